"""What ``certify`` writes, ``expmech check`` never calls INVALID: a PROVED claim the verifier cannot confirm as a
whole (a stated bound it cannot read, a side condition past its exact reach) is demoted to UNKNOWN before sealing."""

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs import CheckOutcome, certify, check_certificate
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, size

SCHEMA, OUTPUTS = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
X, R = SCHEMA["x"], OUTPUTS["r"]


@settings(max_examples=4, deadline=None)
@given(st.integers(17, 80), st.sampled_from([sympy.Max, sympy.Min]), st.sampled_from(["add-remove", "replace-one"]))
def test_a_size_clipped_at_a_huge_constant_certifies_validly(bits, clip, relation):
    """clip(2^k, size()) + count(x <= r): the change at n = 2^k is past the verifier's exact sizes; the certificate
    is still valid (its sensitivity PROVED with a recorded proof, or UNKNOWN with the reason), never INVALID."""
    q = QualityFunction(clip(2**bits, size()) + count(X <= R), schema=SCHEMA, outputs=OUTPUTS)
    certificate = certify(q, epsilon=1, neighbours=relation)
    report = check_certificate(certificate.data)
    assert report.outcome is not CheckOutcome.INVALID, report.problems
    sensitivity = next(c for c in certificate.statement["predicate"]["claims"] if c["id"] == "sensitivity")
    assert sensitivity["status"] in ("PROVED", "UNKNOWN")
    if sensitivity["status"] == "UNKNOWN":
        assert "not issued as PROVED" in sensitivity["reason"] and not report.certifies_dp
