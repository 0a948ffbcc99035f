"""The exact law and privacy loss over integer ranges with huge ends, against an independent Fraction computation.

The README's median over ``IntRange(lo, hi)`` records and outputs, with ends up
to ``±2**200`` and records anywhere in the range (the ends, both sides of
``2**63``, past ``2**64``), given as a list, a tuple or a numpy array.  Here
``q(d, r) = −|#{x <= r} − n/2|`` is computed from the records directly (Python
integers, ``bisect``), the normaliser as the exact sum over the pieces between
records ``Σ (length of piece)·e^{ε q}``, and each value as an exp-sum, a map
exponent → rational coefficient, multiplied and compared with plain dict
arithmetic.  Two exp-sums with rational exponents are equal iff their merged
coefficients are (Lindemann–Weierstrass), so each comparison is exact.  The
implementation must agree exactly: a record rounded anywhere (a float64 on the
way) changes a cut, hence a coefficient.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from fractions import Fraction

import mpmath
import numpy as np
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import ExponentialMechanism
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, size

ExpDict = dict[Fraction, Fraction]  # exponent -> coefficient


def median(lo: int, hi: int) -> QualityFunction:
    """The README's median over ``IntRange(lo, hi)`` records and outputs."""
    schema, outputs = RecordSchema(x=IntRange(lo, hi)), OutputSpace(r=IntRange(lo, hi))
    return QualityFunction(-sympy.Abs(count(schema["x"] <= outputs["r"]) - size() / 2), schema=schema, outputs=outputs, name="median")


# -- strategies ---------------------------------------------------------------------

#: Where int64, uint64 and float64 part ways.
LANDMARKS = [0, 2**53, 2**62, 2**63, 2**64, 2**200]


def _landmarks() -> st.SearchStrategy[int]:
    near = st.tuples(st.sampled_from(LANDMARKS), st.sampled_from([-1, 1]), st.integers(-3, 3)).map(lambda t: t[1] * t[0] + t[2])
    return st.one_of(near, st.integers(-(2**200), 2**200), st.integers(-(2**65), 2**65))


@st.composite
def ranges_and_records(draw: st.DrawFn, max_records: int = 6) -> tuple[int, int, list[int]]:
    """A range ``[lo, hi]`` with at least one end past ``2**53`` in magnitude, and records in it."""
    across = draw(st.booleans())
    if not across:  # any ends
        a, b = draw(_landmarks()), draw(_landmarks())
        lo, hi = min(a, b), max(a, b)
        if hi - lo < 2 or max(abs(lo), abs(hi)) <= 2**53:
            lo, hi = -(2**63) - 5, 2**64 + 1
    else:  # a range across [−2**63, 2**64), with records that int64 and uint64 each hold only some of
        lo, hi = draw(st.integers(-(2**200), -(2**63))), draw(st.integers(2**64, 2**200))
    machine = (max(lo, -(2**63)), min(hi, 2**64 - 1))
    inside = st.one_of(
        st.sampled_from([lo, lo + 1, hi - 1, hi]),
        st.integers(lo, hi),
        _landmarks().filter(lambda v: lo <= v <= hi),
        st.integers(*machine) if machine[0] <= machine[1] else st.just(lo),
        st.integers(max(2**63, lo), machine[1]) if max(2**63, lo) <= machine[1] else st.just(hi),  # uint64-only values in range
    )
    records = draw(st.lists(inside, min_size=1, max_size=max_records))
    if across:
        records[:1] = [draw(st.integers(lo, 2**63 - 1)), draw(st.integers(2**63, 2**64 - 1))]
    return lo, hi, records


def _container(draw: st.DrawFn, records: list[int]) -> object:
    kind = draw(st.sampled_from(["list", "tuple", "array"]))
    if kind == "tuple":
        return tuple(records)
    if kind == "array":  # int64 or uint64 where they hold the records (object arrays: see the test below)
        for dtype in (np.int64, np.uint64):
            if int(np.iinfo(dtype).min) <= min(records) and max(records) <= int(np.iinfo(dtype).max):
                return np.array(records, dtype=dtype)
    return records


EPSILONS = st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(3), Fraction(2, 7)])


# -- the independent computation ----------------------------------------------------


def quality(records: list[int], r: int) -> Fraction:
    """``q(d, r) = −|#{x <= r} − n/2|`` straight from the records."""
    ordered = sorted(records)
    return -abs(bisect.bisect_right(ordered, r) - Fraction(len(records), 2))


def normaliser(records: list[int], lo: int, hi: int, epsilon: Fraction) -> ExpDict:
    """``Σ_{r=lo}^{hi} e^{ε q(d, r)}``: one term per piece between consecutive distinct records."""
    starts = sorted({lo} | {x for x in records if x > lo})
    ends = [s - 1 for s in starts[1:]] + [hi]
    total: ExpDict = defaultdict(Fraction)
    for start, end in zip(starts, ends):
        total[epsilon * quality(records, start)] += end - start + 1
    return dict(total)


def times(a: ExpDict, b: ExpDict) -> ExpDict:
    """The product of two exp-sums, merged."""
    product: ExpDict = defaultdict(Fraction)
    for ea, ca in a.items():
        for eb, cb in b.items():
            product[ea + eb] += ca * cb
    return {e: c for e, c in product.items() if c}


def of_impl(value: object) -> ExpDict:
    """The implementation's ExpSum as an exp-sum dict (its canonical terms)."""
    return {b: c for c, b in value.terms if c}  # type: ignore[attr-defined]


def equal_ratios(n1: ExpDict, d1: ExpDict, n2: ExpDict, d2: ExpDict) -> bool:
    """``n1/d1 == n2/d2`` exactly (cross-multiplied, merged coefficients)."""
    return times(n1, d2) == times(n2, d1)


def points(lo: int, hi: int, records: list[int]) -> list[int]:
    """The outputs where a piece starts or ends: the range's ends and each record and its neighbours."""
    around = {v + step for v in records for step in (-1, 0, 1)} | {lo, hi}
    return sorted(v for v in around if lo <= v <= hi)


def value(d: ExpDict) -> mpmath.mpf:
    return mpmath.fsum(mpmath.mpf(c.numerator) / c.denominator * mpmath.exp(mpmath.mpf(e.numerator) / e.denominator) for e, c in d.items())


# -- the tests ----------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.data(), ranges_and_records(), EPSILONS)
def test_probabilities_over_a_huge_range_equal_an_independent_exact_sum(data, case, epsilon):
    """p(r) = e^{ε q(d, r)} / Σ_pieces length·e^{ε q} exactly, at every end of a piece, for ends up to ±2**200."""
    lo, hi, records = case
    mech = ExponentialMechanism(median(lo, hi), epsilon=epsilon, outputs=OutputSpace(r=IntRange(lo, hi)))
    dist = mech.distribution(_container(data.draw, records))
    z = normaliser(records, lo, hi, epsilon)
    for r in points(lo, hi, records):
        p = dist.probability(r)
        assert equal_ratios(of_impl(p.numerator), of_impl(p.denominator), {epsilon * quality(records, r): Fraction(1)}, z), (r, records)


@settings(max_examples=40, deadline=None)
@given(st.data(), ranges_and_records(), EPSILONS)
def test_privacy_loss_over_a_huge_range_equals_an_independent_exact_value(data, case, epsilon):
    """The loss between two neighbours (one record replaced) is exactly max_r |ε(q1 − q2)(r) + ln(Z2/Z1)|, and at most 2ε."""
    lo, hi, first = case
    position = data.draw(st.integers(0, len(first) - 1))
    other = data.draw(ranges_and_records(max_records=1).map(lambda c: c[2][0]).filter(lambda v: lo <= v <= hi) | st.sampled_from([lo, hi]))
    second = first[:position] + [other] + first[position + 1 :]
    mech = ExponentialMechanism(median(lo, hi), epsilon=epsilon, outputs=OutputSpace(r=IntRange(lo, hi)))
    loss = mech.privacy_loss(_container(data.draw, first), _container(data.draw, second))
    z1, z2 = normaliser(first, lo, hi, epsilon), normaliser(second, lo, hi, epsilon)
    deltas = {quality(first, r) - quality(second, r) for r in points(lo, hi, first + second)}
    # ln p1 − ln p2 = ε Δ + ln(Z2/Z1): its largest magnitude is at the largest or the smallest Δ
    candidates = [(times({epsilon * max(deltas): Fraction(1)}, z2), z1), (times({-epsilon * min(deltas): Fraction(1)}, z1), z2)]
    with mpmath.workdps(80 + max(len(str(abs(c))) for d in (z1, z2) for c in d.values())):
        sizes = [mpmath.log(value(n) / value(d)) for n, d in candidates]
        best = max(sizes)
        admissible = [c for c, s in zip(candidates, sizes) if s >= best - mpmath.mpf(10) ** -60]
    numerator, denominator = of_impl(loss.numerator.to_expsum()), of_impl(loss.denominator.to_expsum())
    assert any(equal_ratios(numerator, denominator, n, d) for n, d in admissible), (first, second, float(loss), float(best))
    assert loss <= 2 * epsilon


@settings(max_examples=30, deadline=None)
@given(ranges_and_records())
def test_every_spelling_of_a_dataset_gives_the_same_pieces(case):
    """A list, a tuple, an object array and Fractions of the same integer records give the same exact pieces."""
    lo, hi, records = case
    mech = ExponentialMechanism(median(lo, hi), epsilon=1, outputs=OutputSpace(r=IntRange(lo, hi)))
    expected = mech.scores([Fraction(x) for x in records])
    for spelling in (records, tuple(records), np.array(records, dtype=object)):
        pieces = mech.scores(spelling)
        assert pieces.cuts.fractions() == expected.cuts.fractions() and pieces.intercepts.fractions() == expected.intercepts.fractions()


def test_ints_beside_floats_over_the_reals_are_not_rounded():
    """[2**60 + 1, 0.5] over a real range: the int stays exact (numpy alone would make both float64)."""
    from expmech.spec import RationalRange

    schema, outputs = RecordSchema(x=RationalRange(-(2**61), 2**61)), OutputSpace(r=RationalRange(-(2**61), 2**61))
    quality_function = QualityFunction(-sympy.Abs(count(schema["x"] <= outputs["r"]) - size() / 2), schema=schema, outputs=outputs)
    mech = ExponentialMechanism(quality_function, epsilon=1, outputs=outputs)
    assert mech.scores([2**60 + 1, 0.5]).cuts.fractions() == [Fraction(1, 2), Fraction(2**60 + 1)]


def test_a_bool_record_is_refused_in_a_list_of_ints():
    """[True, 2] over an IntRange is refused naming dataset[0], as record by record (numpy would read True as 1)."""
    import pytest

    from expmech.spec import InvalidType

    mech = ExponentialMechanism(median(-(2**70), 2**70), epsilon=1, outputs=OutputSpace(r=IntRange(-(2**70), 2**70)))
    with pytest.raises(InvalidType, match=r"dataset\[0\]"):
        mech.scores([True, 2])


def test_a_probability_too_small_to_enclose_is_refused_by_name_and_still_compares_exactly():
    """p(lo) = e^{−ε·2**200}/Z: a rational enclosure would need a 2**200-bit power of two, so enclose raises
    PrecisionExhausted (an ExpMechError, not an OverflowError); exact comparisons and float() still work."""
    import pytest

    from expmech.spec import ExpMechError, PrecisionExhausted

    lo, hi = -(2**200), 2**200
    schema, outputs = RecordSchema(x=IntRange(lo, hi)), OutputSpace(r=IntRange(lo, hi))
    slope = QualityFunction(-sympy.Abs(outputs["r"] - count(schema["x"] >= 0)), schema=schema, outputs=outputs)
    p = ExponentialMechanism(slope, epsilon=1, outputs=outputs).distribution([1, -1]).probability(lo)
    assert 0 < p < Fraction(1, 10**100) and float(p) == 0.0
    with pytest.raises(PrecisionExhausted, match="enclosure") as raised:
        p.enclose(30)
    assert isinstance(raised.value, ExpMechError)
