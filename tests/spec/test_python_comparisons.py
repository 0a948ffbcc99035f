"""Python's == and != on sympy symbols are structural: their bool results are refused where a condition belongs.

``count(x == r)`` is ``count(False)`` (the constant 0) before expmech sees it,
and ``count(x != r)`` is ``count(True)`` (the size).  The language refuses a
constant condition in ``count()``, ``total()``, ``mean()`` and in a ``Count``
reaching ``QualityFunction``, naming it and pointing to ``sympy.Eq`` /
``sympy.Ne``; the sympy relations themselves keep working.
"""

import operator

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from expmech.spec import (
    Count,
    IntRange,
    InvalidType,
    OutputSpace,
    QualityFunction,
    RecordSchema,
    count,
    mean,
    total,
)

SCHEMA = RecordSchema(x=IntRange(0, 3), y=IntRange(0, 3))
OUTPUTS = OutputSpace(r=IntRange(0, 3))
X, Y, R = SCHEMA["x"], SCHEMA["y"], OUTPUTS["r"]

sides = st.one_of(st.sampled_from([X, Y, R, X + 1, R - Y]), st.integers(-3, 5).map(sympy.Integer), st.integers(-3, 5))
python_comparisons = st.tuples(st.sampled_from([operator.eq, operator.ne]), sides, sides).map(lambda t: t[0](t[1], t[2]))
constants = st.one_of(python_comparisons, st.booleans(), st.sampled_from([sympy.true, sympy.false]))


@given(constants, st.sampled_from([count, total, mean]))
def test_a_constant_condition_is_refused_by_name(condition, aggregate):
    """Every Python comparison result (a bool) and sympy's true/false are refused, and the message says what to write."""
    with pytest.raises(InvalidType) as info:
        aggregate(condition)
    message = str(info.value)
    assert "sympy.Eq" in message and "sympy.Ne" in message
    assert ("=True" in message) or ("=False" in message)
    assert info.value.parameter in ("predicate", "expr")


@given(constants)
def test_a_constant_count_built_directly_is_refused_by_the_quality(condition):
    """Count(False) built without count() (e.g. by substitution) is refused when the quality is checked."""
    node = Count(sympy.sympify(condition))
    with pytest.raises(InvalidType, match="sympy.Eq"):
        QualityFunction(node + count(X >= R), schema=SCHEMA, outputs=OUTPUTS)


@given(st.sampled_from([sympy.Eq, sympy.Ne]), st.sampled_from([X, Y]), st.sampled_from([R, R + 1, sympy.Integer(2)]))
def test_the_sympy_relations_are_conditions(relation, left, right):
    """sympy.Eq / sympy.Ne stay conditions: count of them is a data-dependent quality, evaluated by value."""
    q = QualityFunction(count(relation(left, right)), schema=SCHEMA, outputs=OUTPUTS)
    data = [{"x": 2, "y": 1}, {"x": 1, "y": 1}]
    expected = sum(
        1
        for record in data
        if bool(relation(left, right).subs({X: record["x"], Y: record["y"], R: 2}))
    )
    assert q(data, 2) == expected
