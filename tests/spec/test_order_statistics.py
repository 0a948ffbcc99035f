"""Order statistics and floor in the language: the interpreter equals a brute force, and datasets by counts equal lists.

``order_statistic(e, k)`` is the k-th smallest of e over the records (0-based), k an index of size(); undefined
outside ``0 <= k < size()``, so on the empty dataset.  A Multiset (records with counts) evaluates as the list it
stands for, at sizes past any list too.
"""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.spec import (
    InvalidArgument,
    IntRange,
    Multiset,
    OrderStatistic,
    OutputSpace,
    QualityError,
    QualityFunction,
    RecordSchema,
    count,
    order_statistic,
    size,
    total,
)
from expmech.spec.internal import order_index

SCHEMA, OUTPUTS = RecordSchema(x=IntRange(-5, 9)), OutputSpace(r=IntRange(-2, 3))
x, r = SCHEMA["x"], OUTPUTS["r"]

indices = st.sampled_from([0, 1, 2, size() - 1, size() - 2, sympy.floor(size() / 2), sympy.floor((size() - 1) / 2), sympy.floor(size() / 3) + 1])


@settings(max_examples=80, deadline=None)
@given(data=st.lists(st.integers(-5, 9), max_size=7), index=indices, shift=st.integers(-2, 3))
def test_an_order_statistic_is_the_kth_smallest(data, index, shift):
    """order_statistic(x·c + r, k) is sorted(x·c + r)[k] for 0 <= k < n, and undefined (QualityError) otherwise."""
    quality = QualityFunction(order_statistic(3 * x - r, index) + shift, schema=SCHEMA, outputs=OUTPUTS)
    a, b, c = order_index(index)
    k = (a * len(data) + b) // c
    for out in range(-2, 4):
        values = sorted(3 * v - out for v in data)
        if 0 <= k < len(data):
            assert quality(data, out) == values[k] + shift
        else:
            with pytest.raises(QualityError, match="undefined"):
                quality(data, out)


@settings(max_examples=60, deadline=None)
@given(counts=st.dictionaries(st.integers(-5, 9), st.integers(1, 5), max_size=4), out=st.integers(-2, 3))
def test_a_multiset_evaluates_as_the_list_it_stands_for(counts, out):
    """Counts, totals, means of size, floors and order statistics on a Multiset equal their values on its listing."""
    expr = count(x < r) * 2 + total(x) - sympy.floor(size() / 3) + sympy.Piecewise((order_statistic(x, sympy.floor(size() / 2)), size() > 0), (0, True))
    quality = QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)
    multiset = Multiset(counts)
    assert quality(multiset, out) == quality(multiset.listed(), out)


def test_a_multiset_past_two_to_the_62_records_evaluates_exactly():
    """2**62 records of one value and one of another: the median, the count and the size, exactly, without listing."""
    quality = QualityFunction(order_statistic(x, sympy.floor(size() / 2)) + count(x < r) - size(), schema=SCHEMA, outputs=OUTPUTS)
    assert quality(Multiset([(7, 2**62), (-1, 1)]), 0) == 7 + 1 - (2**62 + 1)
    with pytest.raises(InvalidArgument):
        Multiset([(7, 2**62)]).listed()


def test_bad_indices_and_bad_counts_are_named():
    """An index that is not an integer form of size() and a count that is not an int >= 1 are refused by name."""
    for index in (size() / 2, size() ** 2, r, sympy.Rational(1, 2), x):
        with pytest.raises(InvalidArgument, match="index"):
            order_statistic(x, index)
    for entries in ([(1, 0)], [(1, True)], [(1, 1.5)], [(1,)]):
        with pytest.raises(InvalidArgument):
            Multiset(entries)


def test_an_order_statistic_cannot_hide_an_aggregate_or_a_field_outside_one():
    """Its body is per-record (no aggregate inside); a field outside it is still refused."""
    with pytest.raises(InvalidArgument):
        QualityFunction(order_statistic(count(x > 0), 0), schema=SCHEMA, outputs=OUTPUTS)
    assert isinstance(QualityFunction(order_statistic(x, 0), schema=SCHEMA, outputs=OUTPUTS).expr, OrderStatistic)


def test_order_statistics_and_floor_round_trip_through_json():
    """The certificate's expression tree holds both nodes and rebuilds the same quality."""
    from expmech.spec import quality_from_json, quality_to_json

    quality = QualityFunction(-sympy.Abs(order_statistic(x, sympy.floor(size() / 2)) - r) + sympy.floor(count(x > r) / 3), schema=SCHEMA, outputs=OUTPUTS)
    assert quality_from_json(quality_to_json(quality)) == quality


def test_floor_of_a_rational_is_exact():
    """floor(count/3) of a negative or positive rational is Python's floor."""
    quality = QualityFunction(sympy.floor((count(x < r) - 5) / 3), schema=SCHEMA, outputs=OUTPUTS)
    assert quality([0, 1], 2) == (2 - 5) // 3 == -1
    assert quality([0, 1], -2) == Fraction(-5, 3).__floor__()
