"""The exact rational arrays agree with ``fractions.Fraction``, operation by operation, at any size.

Generated values mix small rationals (the int64 fast paths), the ends of int64
(±(2**62 − 1), ±2**62, 2**63 − 1, −2**63), numerators and denominators past 2**63,
200-digit rationals, negatives and zero; arrays are empty or not, over one
shared denominator or over one denominator per element (the form a reciprocal
returns).  Every result is compared with the same computation on Fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl.exact._rationals import LIMIT, RationalArray, Undefined, concatenate, from_floats, take_along, where
from strategies import big_integers, big_rationals

EDGES = [2**62 - 1, 2**62, 2**63 - 1, -(2**63), -(2**62), 10**200 + 1]

values = st.one_of(
    st.integers(-6, 6).map(Fraction),
    st.builds(Fraction, st.integers(-50, 50), st.integers(1, 12)),
    st.sampled_from(EDGES).map(Fraction),
    st.builds(Fraction, st.sampled_from(EDGES), st.sampled_from([3, 2**63 + 1, 10**200 + 7])),
    big_rationals(max_bits=700),  # up to about 210 digits
)


@st.composite
def arrays(draw, size: int | None = None, min_size: int = 0) -> tuple[RationalArray, list[Fraction]]:
    """(array, its values): built by ``of`` over a shared denominator, or over one denominator per element."""
    xs = draw(st.lists(values, min_size=min_size, max_size=6)) if size is None else draw(st.lists(values, min_size=size, max_size=size))
    if draw(st.booleans()) or not xs:
        return RationalArray.of(xs), xs
    nums = np.array([x.numerator for x in xs], dtype=object)
    dens = np.array([x.denominator for x in xs], dtype=object)
    return RationalArray(nums, dens), xs


pairs = st.integers(0, 6).flatmap(lambda n: st.tuples(arrays(size=n), arrays(size=n)))
scalars = st.one_of(values, st.integers(-(2**70), 2**70))
EXAMPLES = settings(max_examples=80, deadline=None)


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


@EXAMPLES
@given(pairs, scalars)
def test_arithmetic_agrees_with_fractions(pair, scalar):
    """+, −, · and / between arrays and with an int or Fraction on either side; negation, absolute value."""
    (a, xs), (b, ys) = pair
    assert (a + b).fractions() == [x + y for x, y in zip(xs, ys)]
    assert (a - b).fractions() == [x - y for x, y in zip(xs, ys)]
    assert (a * b).fractions() == [x * y for x, y in zip(xs, ys)]
    assert (a + scalar).fractions() == (scalar + a).fractions() == [x + scalar for x in xs]
    assert (a - scalar).fractions() == [x - scalar for x in xs]
    assert (scalar - a).fractions() == [scalar - x for x in xs]
    assert (a * scalar).fractions() == (scalar * a).fractions() == [x * scalar for x in xs]
    assert (a * 0).fractions() == [0] * len(xs)  # zero over a huge denominator: its gcd passes int64
    assert (-a).fractions() == [-x for x in xs]
    assert abs(a).fractions() == [abs(x) for x in xs]
    if all(ys):
        assert (a / b).fractions() == [x / y for x, y in zip(xs, ys)]
    if scalar:
        assert (a / scalar).fractions() == [x / scalar for x in xs]


@EXAMPLES
@given(arrays(), st.integers(-3, 3))
def test_reciprocal_and_powers_agree_with_fractions(case, exponent):
    """1/a (per-element denominators), its shared form, a**k; a zero element: Undefined, never a wrong value."""
    a, xs = case
    if all(xs):
        assert a.reciprocal().fractions() == a.reciprocal().shared().fractions() == [1 / x for x in xs]
        assert not isinstance(a.reciprocal().shared().den, np.ndarray)
    else:
        with pytest.raises(Undefined):
            a.reciprocal()
    if exponent >= 0 or all(xs):
        assert a.power(exponent).fractions() == [x**exponent for x in xs]


@EXAMPLES
@given(pairs)
def test_comparisons_agree_with_fractions(pair):
    """compare, <, <=, >, >= (also against a scalar), sign and select/where."""
    (a, xs), (b, ys) = pair
    assert a.compare(b).tolist() == [_sign(x - y) for x, y in zip(xs, ys)]
    assert (a < b).tolist() == [x < y for x, y in zip(xs, ys)]
    assert (a <= b).tolist() == [x <= y for x, y in zip(xs, ys)]
    assert (a > b).tolist() == [x > y for x, y in zip(xs, ys)]
    assert (a >= b).tolist() == [x >= y for x, y in zip(xs, ys)]
    if ys:
        assert (a < ys[0]).tolist() == [x < ys[0] for x in xs]
    assert a.sign().tolist() == [_sign(x) for x in xs]
    mask = np.array([x >= y for x, y in zip(xs, ys)], dtype=bool)
    assert where(mask, a, b).fractions() == a.select(mask, b).fractions() == [max(x, y) for x, y in zip(xs, ys)]


@EXAMPLES
@given(arrays())
def test_rounding_and_sums_agree_with_fractions(case):
    """floor, ceil, is_integer, cumsum, sum, total, argsort (stable), to_list, item, shared."""
    a, xs = case
    assert [int(v) for v in np.asarray(a.floor()).tolist()] == [math.floor(x) for x in xs]
    assert [int(v) for v in np.asarray(a.ceil()).tolist()] == [math.ceil(x) for x in xs]
    assert np.asarray(a.is_integer()).tolist() == [x.denominator == 1 for x in xs]
    assert a.cumsum().fractions() == [sum(xs[: i + 1], Fraction(0)) for i in range(len(xs))]
    assert a.sum().item() == a.total() == sum(xs, Fraction(0))
    order = a.argsort().tolist()
    assert order == sorted(range(len(xs)), key=lambda i: xs[i])  # Python's sort is stable too
    assert take_along(a, np.asarray(order, dtype=np.int64)).fractions() == sorted(xs)
    assert a.to_list() == xs and all(type(v) is int for v in a.to_list() if v.denominator == 1)
    assert [a.item(i) for i in range(len(xs))] == xs
    assert a.shared().fractions() == xs


@EXAMPLES
@given(st.lists(arrays(), min_size=1, max_size=3), st.integers(1, 3))
def test_shapes_agree_with_fractions(parts, rows):
    """of over a 2-D array, reshape, broadcast_to, concatenate along either axis, sums and running sums by axis."""
    xs = [x for _, part in parts for x in part]
    joined = concatenate([a for a, _ in parts])
    assert joined.fractions() == xs
    grid = RationalArray.of(np.array([[x + i for x in xs] for i in range(rows)], dtype=object))
    assert grid.shape == (rows, len(xs))
    assert grid.fractions() == [x + i for i in range(rows) for x in xs]
    assert grid.reshape(-1).fractions() == grid.reshape((rows * len(xs),)).fractions() == grid.fractions()
    assert grid.sum(axis=0).fractions() == [sum((x + i for i in range(rows)), Fraction(0)) for x in xs]
    assert grid.sum(axis=1).fractions() == [sum(xs, Fraction(0)) + i * len(xs) for i in range(rows)]
    assert grid.cumsum(axis=0).fractions() == [sum((x + j for j in range(i + 1)), Fraction(0)) for i in range(rows) for x in xs]
    stacked = concatenate([grid, grid], axis=0)
    assert stacked.fractions() == grid.fractions() * 2
    flat = joined.reshape(1, -1).broadcast_to((rows, len(xs)))
    assert flat.fractions() == xs * rows
    if xs:
        assert grid.item(rows - 1, 0) == xs[0] + rows - 1


@EXAMPLES
@given(arrays(min_size=1), st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=6), min_size=1, max_size=3))
def test_integer_matmul_agrees_with_fractions(case, counts):
    """counts @ a (rows of non-negative counts): the weighted sums, exactly."""
    a, xs = case
    counts = [(row * len(xs))[: len(xs)] for row in counts]
    column = a.reshape(-1, 1)
    assert column.integer_matmul(np.array(counts, dtype=np.int64)).fractions() == [sum((c * x for c, x in zip(row, xs)), Fraction(0)) for row in counts]


@EXAMPLES
@given(st.lists(st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.0, -0.0, 5e-324, 1e308, -1e-300])), max_size=6))
def test_from_floats_is_exact(floats):
    """The rationals that float64 values represent, exactly (Fraction(float) is exact too)."""
    assert from_floats(np.array(floats, dtype=np.float64)).fractions() == [Fraction(f) for f in floats]


@EXAMPLES
@given(st.lists(big_integers(0, 700), max_size=6), values, st.integers(0, 3))
def test_constructors_agree_with_fractions(ints, value, size):
    """integers (int64 or Python ints), full, zeros, constant; the bound covers every numerator."""
    array = np.array(ints, dtype=object) if any(abs(i) >= 2**63 for i in ints) else np.array(ints, dtype=np.int64)
    exact = RationalArray.integers(array)
    assert exact.fractions() == [Fraction(i) for i in ints]
    assert exact.bound >= max((abs(i) for i in ints), default=0)
    assert (exact.num.dtype == object) == (exact.bound >= LIMIT)
    assert RationalArray.full((size,), value).fractions() == [value] * size
    assert RationalArray.zeros((size,)).fractions() == [0] * size
    assert RationalArray.constant(value).item() == value


def test_the_ends_of_int64():
    """−2**63 is negated, halved and compared exactly (its magnitude does not fit int64); empty arrays work."""
    low = RationalArray(np.array([-(2**63), 2**63 - 1], dtype=np.int64))
    assert (-low).fractions() == [2**63, -(2**63 - 1)]
    assert abs(low).fractions() == [2**63, 2**63 - 1]
    assert (low * Fraction(1, 2)).fractions() == [-(2**62), Fraction(2**63 - 1, 2)]
    assert RationalArray(np.zeros(3, dtype=np.int64), 2**70).fractions() == [0, 0, 0]
    assert RationalArray(np.array([2**40], dtype=np.int64), 2**100).floor().tolist() == [0]
    empty = RationalArray.of([])
    assert (empty + empty).fractions() == empty.reciprocal().fractions() == empty.cumsum().fractions() == []
    assert empty.total() == 0 and empty.argsort().tolist() == []
