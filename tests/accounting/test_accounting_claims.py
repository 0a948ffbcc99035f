"""Certificates carry bounded-range (η = ε₀·Δ̂) and zcdp (ρ = η²/8) claims that check re-derives."""

from __future__ import annotations

from fractions import Fraction

import pytest

from certificate_tools import resealed
from expmech.impl import CATALOGUE, RANGE_CATALOGUE, catalogue_entry
from expmech.proofs import CheckOutcome, certify, check_certificate


def _claims(cert) -> dict:
    return {claim["id"]: claim for claim in cert.statement["predicate"]["claims"]}


@pytest.mark.parametrize("name", ["mode", "median", "mode-add-remove", "laplace-line"])
def test_catalogue_certificates_carry_proved_bounded_range_and_zcdp(name: str) -> None:
    """η = ε₀·Δ̂ with Δ̂ proved (and at most 2Δq), ρ = η²/8 exactly; the certificate checks."""
    entry = catalogue_entry(name)
    cert = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, base_measure=entry.base_measure)
    claims = _claims(cert)
    br, z = claims["bounded-range"], claims["zcdp"]
    assert br["status"] == "PROVED" and z["status"] == "PROVED"
    eta = Fraction(br["eta"])
    assert eta == Fraction(entry.epsilon) * Fraction(br["range_sensitivity"])
    assert Fraction(z["rho"]) == eta * eta / 8 and z["eta"] == br["eta"]
    assert Fraction(br["range_sensitivity"]) <= 2 * Fraction(claims["sensitivity"]["bound"])
    assert check_certificate(cert.data).outcome is CheckOutcome.CERTIFIES_DP


@pytest.mark.parametrize("edit,failed", [
    (lambda s: _set(s, "bounded-range", "eta", "1/4"), "claim bounded-range"),
    (lambda s: _set(s, "bounded-range", "range_sensitivity", "1"), "claim bounded-range"),
    (lambda s: _set(s, "zcdp", "rho", "1/100"), "claim zcdp"),
    (lambda s: _set(s, "bounded-range", "witness", None), "claim bounded-range"),  # tight, with nothing attaining it
])
def test_a_resealed_edit_of_the_new_claims_is_caught(edit, failed: str) -> None:
    """The verifier decides η and ρ: an edited value, even resealed, is INVALID naming the claim."""
    entry = catalogue_entry("mode")
    cert = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, base_measure=entry.base_measure)
    report = check_certificate(resealed(cert.data, edit))
    assert report.outcome is CheckOutcome.INVALID and report.failed == failed, report.problems


def test_a_resealed_weakening_is_valid_and_caught_by_reproduce() -> None:
    """tight edited to False claims less (η unchanged, no tightness stated): the verifier accepts it as true; check
    --reproduce, which re-derives the statement, reports the difference."""
    entry = catalogue_entry("mode")
    cert = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, base_measure=entry.base_measure)
    edited = resealed(cert.data, lambda s: _set(s, "bounded-range", "tight", False))
    assert check_certificate(edited).outcome is CheckOutcome.CERTIFIES_DP
    report = check_certificate(edited, reproduce=True)
    assert report.outcome is CheckOutcome.INVALID and report.failed == "reproduce: claim bounded-range", report.problems
    assert "tight: recorded False, re-derived True" in " ".join(report.problems)


def _set(statement: dict, claim_id: str, key: str, value: object) -> None:
    for claim in statement["predicate"]["claims"]:
        if claim["id"] == claim_id:
            claim[key] = value


def test_every_spec_catalogue_entry_has_a_proved_bounded_range() -> None:
    """Every catalogue quality of the language (finite and ranged) gets a PROVED η."""
    from expmech.proofs.prover._range_sensitivity import prove_range_sensitivity
    from expmech.proofs import Status

    for entry in list(CATALOGUE) + list(RANGE_CATALOGUE):
        result = prove_range_sensitivity(entry.quality, neighbours=entry.neighbours)
        assert result.status is Status.PROVED, (entry.name, result.reason)
