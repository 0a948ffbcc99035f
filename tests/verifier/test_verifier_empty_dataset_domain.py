"""∅ leaves the mechanism's domain only where q(∅, ·) is undefined on a set of positive μ-measure.

Under add-remove a sensitivity claim may start at n = 1 only if the mechanism is undefined on ∅. On a continuous range a
point has μ-measure 0 and on a finite range an output may have μ = 0: a q undefined on ∅ there alone still has ∅ in the
mechanism's domain (its law is the same), so a derivation from n = 1 leaves the pair (∅, {x}) uncovered and is rejected.
"""

from fractions import Fraction

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from checker_tools import judge, statement_for, text_at
from expmech.spec import Grid, IntRange, OutputSpace, QualityFunction, RationalRange, RecordSchema, size

SCHEMA = RecordSchema(v=IntRange(0, 1))


def _size_only_from_one(data: dict) -> dict:
    root = {"id": "g", "term": [], "text": text_at(data, []), "case": {"from": 1}, "rule": "size-only", "bound": {"rational": "0"}, "data": {}, "premises": []}
    return {"format": 1, "claim": "sensitivity", "relation": "add-remove", "start": 1, "bound": {"rational": "0"}, "root": root}


def _quality(outputs: OutputSpace, holes: list[Fraction] | None, c: int) -> QualityFunction:
    """c·r on ∅ (0 elsewhere), undefined on ∅ at the ``holes`` (None: at every output)."""
    r = outputs["r"]
    defined = sympy.false if holes is None else sympy.And(*(sympy.Ne(r, h) for h in holes))
    return QualityFunction(sympy.Piecewise((c * r, sympy.Eq(size(), 0)), (0, True)) + sympy.Piecewise((0, defined | (size() > 0))),
                           schema=SCHEMA, outputs=outputs)


ENDS = st.tuples(st.fractions(-10, 10, max_denominator=7), st.fractions(Fraction(1, 7), 10, max_denominator=7)).map(lambda t: (t[0], t[0] + t[1]))


@settings(max_examples=25, deadline=None)
@given(ENDS, st.data(), st.integers(1, 3))
def test_a_continuous_range_with_null_holes_keeps_the_empty_dataset(ends, draw, c):
    """Undefined on ∅ at 1 to 3 points of an interval (ends included): a size-only Δq = 0 from n = 1 is rejected."""
    lo, hi = ends
    holes = draw.draw(st.lists(st.one_of(st.sampled_from([lo, hi]), st.fractions(0, 1, max_denominator=11).map(lambda t: lo + (hi - lo) * t)), min_size=1, max_size=3, unique=True))
    q = _quality(OutputSpace(r=RationalRange(lo, hi)), holes, c)
    verdict = judge(statement_for(q, "add-remove"), _size_only_from_one(statement_for(q, "add-remove")))
    assert not verdict.accepted and "n >= 0" in verdict.reason, verdict


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-20, 20), min_size=2, max_size=5, unique=True), st.data())
def test_a_finite_range_undefined_only_where_mu_is_zero_keeps_the_empty_dataset(points, draw):
    """Undefined on ∅ at listed outputs of μ = 0 only: rejected from n = 1; with μ > 0 at one of them: accepted."""
    points = sorted(points)
    holes = draw.draw(st.lists(st.sampled_from(points[1:]), min_size=1, max_size=len(points) - 1, unique=True))
    q = _quality(OutputSpace(r=Grid(points)), holes, 1)
    null = {p: 0 if p in holes else 1 for p in points}
    data = statement_for(q, "add-remove", base_measure=null)
    assert not judge(data, _size_only_from_one(data)).accepted
    weighted = dict.fromkeys(points, 1)
    data = statement_for(q, "add-remove", base_measure=weighted)
    assert judge(data, _size_only_from_one(data)).accepted


@settings(max_examples=10, deadline=None)
@given(ENDS)
def test_undefined_on_the_empty_dataset_at_every_output_leaves_it_out(ends):
    """The control: q(∅, r) undefined at every r of the interval: the derivation from n = 1 is accepted."""
    q = _quality(OutputSpace(r=RationalRange(*ends)), None, 1)
    data = statement_for(q, "add-remove")
    assert judge(data, _size_only_from_one(data)).accepted
