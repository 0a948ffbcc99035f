"""Every construct of the traceable subset translates exactly: into the expected aggregate, and equal to the function.

Each case is a plain function with the construct; the trace must have the language's form for it (a ``count`` for a
filtered ``sum``, an ``Eq`` for ``==``, an ``OrderStatistic`` for ``sorted(data)[k]``…) and equal the function on
datasets drawn by hypothesis (the empty one included), exactly — a float result within the documented tolerance —
and be undefined exactly where the function raises or gives ``nan``.
"""

from fractions import Fraction
import math

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.spec import (
    Count,
    ExpMechError,
    IntRange,
    Mean,
    OrderStatistic,
    OutputSpace,
    QualityError,
    RationalRange,
    RecordSchema,
    Size,
    Total,
    TraceError,
    trace,
)

INTS = RecordSchema(x=IntRange(-3, 6))
OUTS = OutputSpace(r=IntRange(-2, 5))
TOLERANCE = Fraction(1, 10**9)


def agree(fn, quality, data, r):
    """The function and its trace agree at (data, r): both undefined, or equal (a float within the tolerance)."""
    try:
        expected = fn(list(data), r)
        if isinstance(expected, float) and (math.isnan(expected) or math.isinf(expected)):
            expected = None
    except Exception:  # noqa: BLE001 - raising is the function's way of being undefined
        expected = None
    try:
        got = quality(list(data), r)
    except QualityError:
        got = None
    if expected is None or got is None:
        return expected is None and got is None
    if hasattr(expected, "item"):
        expected = expected.item()
    if isinstance(expected, float):
        return abs(Fraction(expected) - got) <= TOLERANCE * max(1, abs(got))
    return Fraction(expected) == got


def len_(data, r):
    return len(data) - r


def filtered_sum(data, r):
    return sum(1 for x in data if x < r)


def sum_of_comparisons(data, r):
    return sum(x < r for x in data)


def sum_with_filter(data, r):
    return sum(x * 2 for x in data if x >= r)


def list_comprehension(data, r):
    return len([x for x in data if x == r])


def accumulate_loop(data, r):
    c = 0
    for x in data:
        if x < r:
            c += 1
        elif x == r:
            c += Fraction(1, 2)
        else:
            c -= 1
    return c


def max_loop(data, r):
    best = -10
    for x in data:
        if x > best:
            best = x
    return best - r


def min_max_terms(data, r):
    return min(len(data), r) + max(r, 0) + abs(r - 2)


def min_max_over_data(data, r):
    return max(data) - min(x for x in data) + r


def exact_division(data, r):
    return sum(1 for x in data if x <= r) / 3 - Fraction(1, 7) * len(data)


def floor_division(data, r):
    return len(data) // 2 + len(data) % 3 - r


def conditional_expression(data, r):
    return len(data) if r > 2 else -sum(1 for x in data if x == r)


def if_statements(data, r):
    above = sum(1 for x in data if x > r)
    if above > len(data) / 2 and r != 0:
        return above
    elif not (r < 1 or len(data) == 0):
        return -above
    return 0


def python_equality(data, r):
    return sum(1 for x in data if x == r) - sum(1 for x in data if x != r)


def numpy_aggregates(data, r):
    a = np.asarray(data)
    return np.sum(a < r) + np.count_nonzero(a >= 2) - np.sum(np.clip(a, 0, r + 3)) + np.sum(np.abs(a - r))


def numpy_minimum_maximum(data, r):
    a = np.asarray(data)
    return np.sum(np.minimum(a, r)) - np.sum(np.maximum(a, 1))


def numpy_mean(data, r):
    return np.mean(np.asarray(data)) - r


def numpy_mask(data, r):
    a = np.asarray(data)
    return np.sum(a[a > r]) + a[a < 0].size


def numpy_boolean_or(data, r):
    a = np.asarray(data)
    return np.sum((a < r) + (a > 4)) + np.sum((a >= 0) * (a != r))  # numpy: + on booleans is or, * is and


def sorted_median(data, r):
    xs = sorted(data)
    return -abs(xs[len(xs) // 2] - r)


def sorted_last(data, r):
    return sorted(data)[-1] - r


def helper(v, c):
    return abs(v - c)


def calls_a_helper(data, r):
    return sum(helper(x, r) for x in data)


def in_a_tuple(data, r):
    return sum(1 for x in data if x in (0, 2, 4)) + (1 if r in (1, 3) else 0)


WEIGHTS = (3, 1, 4, 1, 5, 9, 2, 6)


def tuple_indexed_by_output(data, r):
    return WEIGHTS[r] * len(data)


def unrolled(data, r):
    total = 0
    for h in range(3):
        total += sum(1 for x in data if x == h)
    return total


CASES = [
    (len_, Size),
    (filtered_sum, Count),
    (sum_of_comparisons, Count),
    (sum_with_filter, Total),
    (list_comprehension, Count),
    (accumulate_loop, Count),
    (max_loop, OrderStatistic),
    (min_max_terms, Size),
    (min_max_over_data, OrderStatistic),
    (exact_division, Count),
    (floor_division, sympy.floor),
    (conditional_expression, sympy.Piecewise),
    (if_statements, sympy.Piecewise),
    (python_equality, Count),
    (numpy_aggregates, Total),
    (numpy_minimum_maximum, Total),
    (numpy_mean, Mean),
    (numpy_mask, Total),
    (numpy_boolean_or, Count),
    (sorted_median, OrderStatistic),
    (sorted_last, OrderStatistic),
    (calls_a_helper, Total),
    (in_a_tuple, Count),
    (tuple_indexed_by_output, sympy.Piecewise),
    (unrolled, Count),
]

datasets = st.lists(st.integers(-3, 6), max_size=7)


@pytest.mark.parametrize("fn, node", CASES, ids=[fn.__name__ for fn, _ in CASES])
@settings(max_examples=25, deadline=None)
@given(data=datasets, r=st.integers(-2, 5))
def test_each_construct_traces_exactly(fn, node, data, r):
    """The construct's trace holds the language's node for it and equals the function (undefined where it raises)."""
    quality = _traced(fn)
    assert quality.expr.atoms(node) or isinstance(quality.expr, node), (fn.__name__, quality.expr)
    assert agree(fn, quality, data, r), (fn.__name__, data, r, quality.expr)


_CACHE: dict = {}


def _traced(fn):
    if fn not in _CACHE:
        _CACHE[fn] = trace(fn, schema=INTS, outputs=OUTS)
    return _CACHE[fn]


def test_python_equality_becomes_sympy_eq_never_a_bool():
    """x == r on two symbols is a Python bool in sympy; the trace holds Eq(x, r) and Ne(x, r), never True or False."""
    quality = _traced(python_equality)
    x, r = INTS["x"], OUTS["r"]
    assert Count(sympy.Eq(x, r)) in quality.expr.atoms(Count)
    assert Count(sympy.Ne(x, r)) in quality.expr.atoms(Count)
    assert quality([1, 2, 2], 2) == 1


def test_division_is_exact_never_float():
    """/ gives a rational in the trace: sum(...) / 3 is count/3, and the quality's value is a Fraction."""
    quality = _traced(exact_division)
    assert not quality.expr.atoms(sympy.Float)
    assert quality([0, 1, 5], 2) == Fraction(2, 3) - Fraction(3, 7)


def test_records_of_several_fields_read_by_key_and_attribute():
    """rec["name"] and rec.name both read a field; an output of several variables unpacks and reads by name."""

    def score(data, r):
        lo, hi = r
        return sum(1 for rec in data if lo <= rec["a"] <= hi and rec.b) - r["lo"] + r.hi

    schema = RecordSchema(a=IntRange(0, 5), b=IntRange(0, 1))
    outputs = OutputSpace(lo=IntRange(0, 2), hi=IntRange(2, 4))
    quality = trace(score, schema=schema, outputs=outputs)
    assert quality([{"a": 1, "b": 1}, {"a": 3, "b": 0}, {"a": 2, "b": 1}], (1, 2)) == 2 - 1 + 2


def test_rational_records_and_outputs():
    """Records over a RationalRange are Fractions to the function; a comparison with a rational output is exact."""

    def score(data, r):
        return -abs(sum(1 for x in data if x <= r) - Fraction(1, 3) * len(data))

    quality = trace(score, schema=RecordSchema(x=RationalRange(0, 1)), outputs=OutputSpace(r=RationalRange(0, 1)))
    assert quality([Fraction(1, 3), Fraction(1, 2)], Fraction(1, 2)) == -Fraction(4, 3)


def test_a_trace_error_is_a_value_error_with_file_and_int_line():
    """TraceError derives from the project's root and ValueError, and carries filename, an int lineno and the construct."""

    def score(data, r):
        total = 0
        while total < 3:
            total += 1
        return total

    with pytest.raises(TraceError) as caught:
        trace(score, schema=INTS, outputs=OUTS)
    error = caught.value
    assert isinstance(error, ExpMechError) and isinstance(error, ValueError)
    assert error.filename == __file__ and isinstance(error.lineno, int)
    assert error.lineno == score.__code__.co_firstlineno + 2
    assert error.construct == "a while loop" and f"{__file__}:{error.lineno}" in str(error)


def test_the_record_is_kept_as_provenance():
    """quality.trace holds the source, its sha256, the expression's text and the number of datasets tested."""
    import hashlib

    quality = _traced(filtered_sum)
    record = quality.trace
    assert "def filtered_sum(data, r):" in record.source
    assert record.source_sha256 == hashlib.sha256(record.source.encode()).hexdigest()
    assert record.expression == str(quality.expr) and record.datasets_tested > 50
    assert record.lineno == filtered_sum.__code__.co_firstlineno


def test_bad_schema_and_outputs_are_named():
    """A schema or output space of the wrong type is an InvalidType naming the parameter."""
    with pytest.raises(TypeError, match="schema="):
        trace(len_, schema={"x": IntRange(0, 1)}, outputs=OUTS)
    with pytest.raises(TypeError, match="outputs="):
        trace(len_, schema=INTS, outputs=[0, 1])


def _sum_of(values):
    return sum(values)


def test_a_generator_handed_to_a_helper_is_iterated_once():
    """A generator passed to an inlined helper that sums it is used once: traced, not refused."""

    def score(data, r):
        return _sum_of(x for x in data if x < r)

    assert trace(score, schema=INTS, outputs=OUTS)([0, 1, 3], 2) == 1
