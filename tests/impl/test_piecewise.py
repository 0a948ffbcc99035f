"""A quality of the language as exact pieces in r: the pieces agree with the exact interpreter."""

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl.quality._piecewise import analyse, dataset_columns
from expmech.spec import InvalidArgument, IntRange, OutputSpace, QualityError, QualityFunction, RationalRange, RecordSchema, count, size
from strategies import piecewise_linear_expressions, rationals

SCHEMA = RecordSchema(x=IntRange(0, 12))
X = SCHEMA["x"]


#: Closer than any two switch points of the generated expressions (denominators far below 10**6) to a drawn point.
_NEAR = Fraction(1, 10**12)


def quality_over(expr_factory, integer):
    space = OutputSpace(r=IntRange(-20, 20) if integer else RationalRange(-20, 20))
    return space, space["r"]


@settings(max_examples=40)
@given(st.data(), st.booleans())
def test_pieces_agree_with_the_interpreter(data, integer):
    """At every integer (integer r) or at random points off the cuts (real r), the pieces give q exactly."""
    space = OutputSpace(r=IntRange(-20, 20) if integer else RationalRange(-20, 20))
    r = space["r"]
    expr = data.draw(piecewise_linear_expressions(X, r))
    quality = QualityFunction(expr, schema=SCHEMA, outputs=space)
    dataset = data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
    lo, hi = Fraction(data.draw(st.integers(-20, 0))), Fraction(data.draw(st.integers(0, 20)))
    pieces = analyse(quality, dataset, lo=lo, hi=hi, integer=integer)
    cuts = set(pieces.cuts.fractions())
    assert all(lo < c <= hi if integer else lo < c < hi for c in cuts)
    points = range(int(lo), int(hi) + 1) if integer else data.draw(st.lists(rationals(int(lo), int(hi), 7), min_size=5, max_size=20))
    for point in points:
        if not integer and (point in cuts or point in (lo, hi)):
            continue
        if integer or pieces.value(point) == quality(dataset, point):
            assert pieces.value(point) == quality(dataset, point)
        else:  # over the reals a value at an isolated point is a null set (its cut may merge away): the limit holds
            assert pieces.value(point) == quality(dataset, point + _NEAR), f"q jumps at {point} without a cut"


@settings(max_examples=30)
@given(st.data())
def test_pieces_are_minimal_where_the_interpreter_jumps(data):
    """Each cut of a real range is a true breakpoint: the form differs on its two sides."""
    space = OutputSpace(r=RationalRange(None, None))
    r = space["r"]
    quality = QualityFunction(data.draw(piecewise_linear_expressions(X, r)), schema=SCHEMA, outputs=space)
    dataset = data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=6))
    pieces = analyse(quality, dataset, lo=None, hi=None, integer=False)
    for j in range(len(pieces.cuts)):
        assert (pieces.slopes.item(j), pieces.intercepts.item(j)) != (pieces.slopes.item(j + 1), pieces.intercepts.item(j + 1))


def test_rank_quality_has_one_piece_per_gap():
    """−|#{x <= r} − n/2| over [0, 10] is constant between the distinct data values."""
    space = OutputSpace(r=RationalRange(0, 10))
    quality = QualityFunction(-sympy.Abs(count(X <= space["r"]) - size() / 2), schema=SCHEMA, outputs=space)
    pieces = analyse(quality, [1, 2, 2, 5, 7], lo=Fraction(0), hi=Fraction(10), integer=False)
    assert pieces.cuts.fractions() == [1, 2, 5, 7]
    assert pieces.slopes.fractions() == [0] * 5
    assert pieces.intercepts.fractions() == [Fraction(-5, 2), Fraction(-3, 2), Fraction(-1, 2), Fraction(-3, 2), Fraction(-5, 2)]


@pytest.mark.parametrize(
    "make, needle",
    [
        (lambda r: r * r, "not piecewise linear"),
        (lambda r: 1 / (r - 30), "not piecewise linear"),
        (lambda r: r * count(X <= r) * r, "not piecewise linear"),
        (lambda r: sympy.Piecewise((1, r >= 1)), "no branch"),
        (lambda r: 1 / (count(X <= r) - 1), "division by zero"),
    ],
)
def test_not_piecewise_linear_or_undefined_is_a_quality_error(make, needle):
    """A quality that is not piecewise linear, or undefined on the range, is refused naming a point."""
    space = OutputSpace(r=RationalRange(0, 10))
    quality = QualityFunction(make(space["r"]), schema=SCHEMA, outputs=space)
    with pytest.raises(QualityError, match=needle) as info:
        analyse(quality, [1, 5], lo=Fraction(0), hi=Fraction(10), integer=False)
    assert "r=" in str(info.value)


def test_problems_outside_the_range_or_in_unused_branches_are_not_errors():
    """An undefined part outside the range, or in a Piecewise branch never chosen, is no error."""
    space = OutputSpace(r=RationalRange(None, None))
    r = space["r"]
    guarded = sympy.Piecewise((1 / count(X <= r), count(X <= r) > 0), (0, True))
    quality = QualityFunction(guarded, schema=SCHEMA, outputs=space)
    pieces = analyse(quality, [1, 2], lo=Fraction(-5), hi=Fraction(5), integer=False)
    assert pieces.value(Fraction(3, 2)) == 1 and pieces.value(Fraction(5, 2)) == Fraction(1, 2) and pieces.value(0) == 0
    partial = QualityFunction(sympy.Piecewise((r, r >= 1)), schema=SCHEMA, outputs=space)
    assert analyse(partial, [1], lo=Fraction(1), hi=Fraction(4), integer=False).value(2) == 2


def test_float_columns_are_exact_and_checked():
    """A numpy float column is converted exactly; a value outside the field's domain names its record."""
    schema = RecordSchema(v=RationalRange(0, 1))
    space = OutputSpace(r=RationalRange(0, 1))
    quality = QualityFunction(count(schema["v"] <= space["r"]), schema=schema, outputs=space)
    values = np.array([0.1, 0.7, 1e-300, 0.5])
    columns, n = dataset_columns(quality, values)
    assert n == 4 and columns[schema["v"]].fractions() == [Fraction(v) for v in values.tolist()]
    with pytest.raises(InvalidArgument, match=r"dataset\[2\]"):
        dataset_columns(quality, np.array([0.1, 0.2, 1.5]))
    with pytest.raises(InvalidArgument, match=r"dataset\[1\]"):
        dataset_columns(quality, np.array([0.1, np.nan]))
    integer_schema = RecordSchema(k=IntRange(0, 5))
    integer_quality = QualityFunction(count(integer_schema["k"] <= space["r"]), schema=integer_schema, outputs=space)
    with pytest.raises(InvalidArgument, match=r"dataset\[0\]"):
        dataset_columns(integer_quality, np.array([0.5, 1.0]))
