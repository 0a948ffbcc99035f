"""A claim that fails only past a size limit is REFUTED there, with a pair held by counts, and the tight bound proved.

OpenDP 0.10–0.13 scores a quantile candidate c as |d·min(#(x < c), l) − a·min(n − #(x = c), l)| (α = a/d, l its size
limit) and publishes the sensitivity max(a, d − a).  Below l that is right; from n = l on, one record added below c
moves the first term by d while the second stays at a·l: the true Δq is d, and every counterexample has at least l
records.  The prover must answer REFUTED with such a pair — a Multiset, re-evaluated exactly — and prove d, tight,
through the joint encoding (whose derivation the verifier accepts), for any α and any l up to 2**200.
"""

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs import CheckOutcome, Status, certify, check_certificate, prove_sensitivity
from expmech.spec import IntRange, Multiset, OutputSpace, QualityFunction, RecordSchema, count, size


def verifier_accepts(quality, relation, derivation) -> bool:
    """The certificate of ``quality`` carries the prover's sensitivity derivation, PROVED, and the verifier
    (``expmech check``, proofs/checker) accepts it and certifies ε-DP."""
    cert = certify(quality, epsilon=1, neighbours=relation)
    sensitivity = next(c for c in cert.statement["predicate"]["claims"] if c["id"] == "sensitivity")
    assert sensitivity["status"] == "PROVED" and sensitivity["derivation"]["root"]["rule"] == derivation["root"]["rule"], sensitivity.get("reason")
    report = check_certificate(cert.data)
    return report.ok and report.outcome is CheckOutcome.CERTIFIES_DP


def _score(a, d, limit):
    schema, outputs = RecordSchema(x=IntRange(0, 20)), OutputSpace(r=IntRange(0, 20))
    x, r = schema["x"], outputs["r"]
    lt, eq = count(x < r), count(sympy.Eq(x, r))
    expr = -sympy.Abs(d * sympy.Min(lt, limit) - a * sympy.Min(size() - eq, limit))
    return QualityFunction(expr, schema=schema, outputs=outputs)


def _refuted_at_the_limit(quality, published, tight, limit):
    result = prove_sensitivity(quality, neighbours="add-remove", claimed=published)
    assert result.status is Status.REFUTED, result
    c = result.counterexample
    assert isinstance(c.dataset1, Multiset) and isinstance(c.dataset2, Multiset)
    assert c.size >= limit and c.dataset2.size == c.size + 1
    assert abs(quality(c.dataset1, c.output) - quality(c.dataset2, c.output)) == c.difference == tight
    assert result.bound == tight and result.tight, result.reason
    return result


def test_opendp_013_quantile_score_is_refuted_past_its_size_limit_with_the_tight_bound_four():
    """α = 1/4, l = ⌊(2**64 − 1)/4⌋ = 2**62 − 1: the published 3 is REFUTED at n >= l; Δq = 4 is PROVED, tight."""
    limit = (2**64 - 1) // 4
    quality = _score(1, 4, limit)
    _refuted_at_the_limit(quality, 3, 4, limit)
    proved = prove_sensitivity(quality, neighbours="add-remove", claimed=4)
    assert proved.status is Status.PROVED and proved.tight and proved.witness.size >= limit
    assert verifier_accepts(quality, "add-remove", proved.derivation)


def test_the_issue_s_limit_of_two_to_the_62():
    """The same score with l = 2**62 exactly: REFUTED for 3 with a witness at n >= 2**62, tight bound 4."""
    _refuted_at_the_limit(_score(1, 4, 2**62), 3, 4, 2**62)


@settings(max_examples=8, deadline=None)
@given(a=st.integers(1, 5), extra=st.integers(1, 5), bits=st.integers(20, 200))
def test_any_quantile_and_any_size_limit(a, extra, bits):
    """For α = a/d and l = 2**bits: the published max(a, d − a) is REFUTED by a pair of at least l records; d is tight."""
    d = a + extra
    limit = 2**bits
    _refuted_at_the_limit(_score(a, d, limit), max(a, d - a), d, limit)
