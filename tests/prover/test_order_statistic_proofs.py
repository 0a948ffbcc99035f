"""Order statistics are proved exactly, never treated as data-free; every PROVED derivation is accepted by the verifier.

An order statistic alone moves by the spread of its per-record term (rule order-statistic): the median distance
−|x_(⌊n/2⌋) − r| over x ∈ [0, h] is PROVED Δq = h, tight, under both relations; the inverse-sensitivity median with
its floor(n/2) is PROVED 1 under both.  The class of the bug this guards against: any list of aggregates that
forgot OrderStatistic read a term of it alone as data-free (Δq = 0) or monotone.
"""

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs import CheckOutcome, Status, certify, check_certificate, prove_monotone, prove_sensitivity
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, order_statistic, size

RELATIONS = ["replace-one", "add-remove"]


def verifier_accepts(quality, relation, derivation, outputs=None) -> bool:
    """The certificate of ``quality`` carries the prover's sensitivity derivation, PROVED, and the verifier
    (``expmech check``, proofs/checker) accepts it and certifies ε-DP."""
    cert = certify(quality, epsilon=1, neighbours=relation, outputs=outputs)
    sensitivity = next(c for c in cert.statement["predicate"]["claims"] if c["id"] == "sensitivity")
    assert sensitivity["status"] == "PROVED" and sensitivity["derivation"]["root"]["rule"] == derivation["root"]["rule"], sensitivity.get("reason")
    report = check_certificate(cert.data)
    return report.ok and report.outcome is CheckOutcome.CERTIFIES_DP


def _median_distance(high, index):
    schema, outputs = RecordSchema(x=IntRange(0, high)), OutputSpace(r=IntRange(0, high))
    x, r = schema["x"], outputs["r"]
    return QualityFunction(-sympy.Abs(order_statistic(x, index) - r), schema=schema, outputs=outputs)


@pytest.mark.parametrize("relation", RELATIONS)
@settings(max_examples=6, deadline=None)
@given(high=st.integers(1, 10**9), index=st.sampled_from([0, size() - 1, sympy.floor(size() / 2), sympy.floor((size() - 1) / 2)]))
def test_an_order_statistic_moves_by_the_spread_of_its_term(relation, high, index):
    """Δ order_statistic(x, k) = the width of x's domain, PROVED and tight, for every index and both relations; the
    verifier accepts the derivation."""
    quality = _median_distance(high, index)
    result = prove_sensitivity(quality, neighbours=relation)
    assert result.status is Status.PROVED and result.bound == high and result.tight, result
    assert verifier_accepts(quality, relation, result.derivation, outputs=[0, high])  # the range: two outputs (Δq is over all)
    assert "n >= 1" in " ".join(result.hypotheses) or relation == "replace-one"  # undefined on the empty dataset


@pytest.mark.parametrize("relation", RELATIONS)
def test_a_smaller_claim_on_an_order_statistic_is_refuted(relation):
    """A claim below the spread is REFUTED with a pair that re-evaluates above it."""
    quality = _median_distance(15, sympy.floor(size() / 2))
    result = prove_sensitivity(quality, neighbours=relation, claimed=14)
    assert result.status is Status.REFUTED
    c = result.counterexample
    assert abs(quality(list(c.dataset1), c.output) - quality(list(c.dataset2), c.output)) == 15


@pytest.mark.parametrize("relation", RELATIONS)
def test_an_order_statistic_alone_is_never_data_free_nor_monotone(relation):
    """order_statistic(x, 0) without an output: Δq is the domain's width (not 0) and it is not PROVED monotone."""
    schema, outputs = RecordSchema(x=IntRange(0, 7)), OutputSpace(r=IntRange(0, 2))
    x, r = schema["x"], outputs["r"]
    quality = QualityFunction(order_statistic(x, 0) * r, schema=schema, outputs=outputs)
    result = prove_sensitivity(quality, neighbours=relation)
    assert result.status is Status.PROVED and result.bound == 14, result
    monotone = prove_monotone(quality, neighbours=relation)
    assert monotone.status is not Status.PROVED, monotone


#: replace-one (about 17 s: its certificate's split tree) runs in the slow tier; the default keeps add-remove, and the
#: replace-one verdict of the same score (inverse-sensitivity-median) is tests/impl/test_library_catalogue's
@pytest.mark.parametrize("relation", [pytest.param("replace-one", marks=pytest.mark.slow), "add-remove"])
def test_the_inverse_sensitivity_median_is_proved_one_under_both_relations(relation):
    """−max(0, #{x < r} − ⌊n/2⌋, ⌊n/2⌋ + 1 − #{x <= r}): PROVED 1, tight; the verifier accepts its derivation."""
    schema, outputs = RecordSchema(x=IntRange(0, 20)), OutputSpace(r=IntRange(0, 20))
    x, r = schema["x"], outputs["r"]
    m = sympy.floor(size() / 2)
    quality = QualityFunction(-sympy.Max(0, count(x < r) - m, m + 1 - count(x <= r)), schema=schema, outputs=outputs)
    result = prove_sensitivity(quality, neighbours=relation, claimed=1)
    assert result.status is Status.PROVED and result.bound == 1 and result.tight, result
    assert verifier_accepts(quality, relation, result.derivation)


def test_a_floor_of_the_size_moves_by_a_certified_constant_under_add_remove():
    """floor(size()/3)·r moves by at most 1·max r when a record is added: PROVED 2, tight."""
    schema, outputs = RecordSchema(x=IntRange(0, 1)), OutputSpace(r=IntRange(0, 2))
    quality = QualityFunction(sympy.floor(size() / 3) * outputs["r"], schema=schema, outputs=outputs)
    result = prove_sensitivity(quality, neighbours="add-remove")
    assert result.status is Status.PROVED and result.bound == 2 and result.tight, result
    assert verifier_accepts(quality, "add-remove", result.derivation)
