"""The noise identities: sympy-checked proofs, and instances that a wrong law would fail."""

from fractions import Fraction

import pytest

from expmech.impl import ExponentialMechanism, PermuteAndFlip
from expmech.proofs.conformance import check_statement
from expmech.proofs.conformance import _identity_families as families
from expmech.spec import IDENTITIES, STATEMENTS, StepStatus, check_steps, statement


@pytest.mark.parametrize("identity", IDENTITIES, ids=lambda s: s.id)
def test_identity_proof_steps_verify(identity):
    """Every step of each identity's proof (integrals included) is verified by sympy."""
    checks = check_steps(identity)
    assert checks and all(c.status is StepStatus.VERIFIED for c in checks), [c.reason for c in checks]


def test_identities_are_found_by_id_but_are_not_statements_of_the_source():
    """statement() finds them; the source's list is unchanged and they say where they come from."""
    source_ids = {s.id for s in STATEMENTS}
    for identity in IDENTITIES:
        assert statement(identity.id) is identity
        assert identity.id not in source_ids
        assert identity.source_lines == (0, 0) and "Not in the source" in identity.note


class _ScaledEM(ExponentialMechanism):
    """The exponential mechanism at 1.3 ε — a wrong law the Gumbel instances must reject."""

    def __init__(self, quality, *, epsilon, **options):
        super().__init__(quality, epsilon=epsilon * Fraction(13, 10), **options)


class _ExponentialAsPF(PermuteAndFlip):
    """Permute-and-flip whose law is secretly the exponential mechanism's (exact), to be caught."""

    def distribution(self, dataset):
        law = super().distribution(dataset)
        em = ExponentialMechanism(self.quality, epsilon=self.epsilon, outputs=self.outputs).distribution(dataset)

        class Wrong:
            def exact_probability(self, r):
                return em.probability(r)

            def enclose(self, r, bits):
                return em.enclose(r, bits)

        del law
        return Wrong()

    def probabilities(self, dataset):
        em = ExponentialMechanism(self.quality, epsilon=self.epsilon, outputs=self.outputs).distribution(dataset)
        return {r: em.probability(r) for r in self.outputs}


def test_gumbel_instances_reject_a_wrong_epsilon(monkeypatch):
    """With the exponential mechanism at 1.3 ε in place of the right law, the Gumbel integrals disagree."""
    monkeypatch.setattr(families, "ExponentialMechanism", _ScaledEM)
    report = check_statement("rnm-gumbel", instances=30, seed=2)
    assert not report.holds


def test_exponential_noise_instances_reject_the_other_law(monkeypatch):
    """With the exponential mechanism's law in place of permute-and-flip's, the exponential-noise integrals disagree."""
    monkeypatch.setattr(families, "PermuteAndFlip", _ExponentialAsPF)
    report = check_statement("rnm-exponential", instances=30, seed=2)
    assert not report.holds
