"""Sums over score levels: merging equal exponents by count, the level filter, and the float of a log ratio.

A vector of many exponents with few distinct values is summed over its levels (one ``bincount``): the
merge must equal the sort-and-reduce merge, the level filter must enclose the exact sum, and a privacy
loss read from the filters must lie within a relative 2^-36 of its exact enclosure.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import ExpSum, ExponentialMechanism
from expmech.impl.exact import _expvector
from expmech.impl.exact._expvector import ExpVector, canonical
from expmech.impl.exact._rationals import RationalArray

vectors = st.lists(st.integers(-40, 40), min_size=65, max_size=400)


def _vector(exponents: list[int], den: int, coefficients: list[int] | None = None) -> ExpVector:
    return ExpVector(
        None if coefficients is None else RationalArray.of(coefficients),
        RationalArray.integers(np.array(exponents, dtype=np.int64)) * RationalArray.constant(Fraction(1, den)),
    )


@settings(max_examples=40, deadline=None)
@given(a=vectors, b=vectors, den=st.sampled_from([1, 3, 10]), shift=st.integers(-5, 5), data=st.data())
def test_merging_by_count_equals_merging_by_sort(a: list[int], b: list[int], den: int, shift: int, data: st.DataObject) -> None:
    """canonical() of a difference of two vectors is the same with the count merge as with the sort merge."""
    weights = data.draw(st.one_of(st.none(), st.lists(st.integers(-3, 3), min_size=len(a), max_size=len(a))))
    parts = ((_vector(a, den, weights), Fraction(1), Fraction(shift, den)), (_vector(b, den), Fraction(-1), Fraction(0)))
    counted = canonical(parts)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_expvector, "_merge_by_count", lambda exps, coefs: None)
        sorted_ = canonical(parts)
    assert counted.pairs() == sorted_.pairs()
    assert counted.nonnegative == sorted_.nonnegative


@settings(max_examples=40, deadline=None)
@given(exponents=vectors, den=st.sampled_from([1, 7, 10**6]))
def test_the_level_filter_encloses_the_sum(exponents: list[int], den: int) -> None:
    """The filter over levels holds Σ e^{b_i − top} (60-digit reference), with a bound no wider than the term-by-term one."""
    vector = _vector(exponents, den)
    levels = vector.summary()
    assert levels is not None
    top = max(exponents)
    with mpmath.workdps(60):
        exact = mpmath.fsum(mpmath.exp(mpmath.mpf(e - top) / den) for e in exponents)
        assert levels.value - levels.error <= exact <= levels.value + levels.error
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ExpVector, "_level_summary", lambda self: None)
        plain = _vector(exponents, den).summary()
    assert plain is not None and levels.error <= plain.error


@settings(max_examples=30, deadline=None)
@given(
    first=st.lists(st.integers(0, 30), min_size=70, max_size=300),
    moves=st.data(),
    epsilon=st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(3)]),
)
def test_the_float_of_a_privacy_loss_is_within_its_stated_accuracy(first: list[int], moves: st.DataObject, epsilon: Fraction) -> None:
    """float(loss) of a many-output mechanism lies within a relative 2^-36 of the loss's exact 80-bit enclosure."""
    second = [s + moves.draw(st.integers(-1, 1)) for s in first]
    scores = {0: first, 1: second}
    mech = ExponentialMechanism(lambda d, r: scores[d][r], epsilon=epsilon, outputs=range(len(first)))
    loss = mech.privacy_loss(0, 1)
    lo, hi = loss.enclose(80)
    shown = float(loss)
    if hi == 0:
        assert shown == 0.0
    else:
        assert abs(Fraction(shown) - (lo + hi) / 2) <= Fraction(1, 2**35) * hi
