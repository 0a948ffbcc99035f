"""sympy rewrites some conditions into ``ITE(c, a, b)`` (an ``Eq`` of a ``Piecewise``): the spec interpreter and the
prover evaluate it (the taken branch alone), and the certificate of such a quality checks, kernel included."""

from __future__ import annotations

import sympy

from expmech.proofs import CheckOutcome, certify, check_certificate, prove_sensitivity
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count


def _quality() -> QualityFunction:
    schema, outputs = RecordSchema(f0=IntRange(0, 3)), OutputSpace(r0=IntRange(0, 3))
    f0, r0 = schema["f0"], outputs["r0"]
    return QualityFunction(count(sympy.Eq(sympy.Piecewise((f0, sympy.Eq(f0, r0)), (r0, True)), f0)), schema=schema, outputs=outputs)


def test_the_rewritten_condition_is_an_ite_and_is_proved_exactly():
    """The predicate is f0 = r0 in disguise: Δq = 1 under both relations, tight (it raised 'cannot translate ITE')."""
    quality = _quality()
    for relation in ("replace-one", "add-remove"):
        result = prove_sensitivity(quality, neighbours=relation)
        assert str(result.status) == "PROVED" and result.bound == 1 and result.tight


def test_its_certificate_checks():
    cert = certify(_quality(), epsilon=1, neighbours="replace-one")
    assert check_certificate(cert.data).outcome is CheckOutcome.CERTIFIES_DP
