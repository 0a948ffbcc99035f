"""A claimed Δq looser than the proved one is certified: the derivation proves the tight bound and weakens it to
the claim, the claim states both, and ``expmech check`` accepts it (it used to be INVALID, then UNKNOWN)."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE
from expmech.proofs import CheckOutcome, certify, check_certificate


def _claims(certificate):
    return {c["id"]: c for c in certificate.statement["predicate"]["claims"]}


@settings(max_examples=4, deadline=None)
@given(st.sampled_from([e for e in CATALOGUE if e.claimed_sensitivity is not None and not sympy.sympify(e.claimed_sensitivity).free_symbols][:4]),
       st.fractions(0, 7, max_denominator=3))
def test_a_looser_claim_over_a_quality_certifies_its_epsilon(entry, extra):
    """Δq claimed = the tight Δq + extra (extra >= 0): PROVED, the claim's bound the tight one, and check says ε-DP."""
    tight = Fraction(str(entry.claimed_sensitivity))
    claimed = tight + extra
    certificate = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=str(claimed))
    sensitivity = _claims(certificate)["sensitivity"]
    assert sensitivity["status"] == "PROVED", sensitivity.get("reason")
    assert Fraction(sensitivity["bound"]) == tight and Fraction(sensitivity["claimed"]) == claimed
    report = check_certificate(certificate.data)
    assert report.outcome is CheckOutcome.CERTIFIES_DP, report.problems


@pytest.mark.parametrize("claimed", ["2*log(2)", "log(3)", "log(2)"])
def test_a_looser_log_claim_over_a_likelihood_certifies(claimed):
    """A posterior's claimed ln-ratio at or above the proved ln 2 (written as k·log c): ε-DP certified and checked."""
    entry = POSTERIOR_CATALOGUE[1]
    certificate = certify(entry.quality, epsilon="1/2", neighbours="replace-one", claimed=claimed, base_measure=entry.base_measure)
    assert _claims(certificate)["sensitivity"]["status"] == "PROVED"
    assert check_certificate(certificate.data).outcome is CheckOutcome.CERTIFIES_DP
