"""A Python bool (what ``x == r`` and ``x != r`` give) is refused wherever it lands in a quality, with the sympy.Eq hint.

Generated over the grammar: a bool is put in one place of the language — an
aggregate's body or predicate, either side of arithmetic and comparisons with
an aggregate, a Piecewise's values and conditions, And / Or / Not, ``max_over``,
the quality itself — and the result is wrapped in random outer layers.  Two
modes:

* as the command line builds targets (inside ``constant_conditions_refused``):
  every place is refused with :class:`InvalidType` naming the constant and
  pointing to ``sympy.Eq`` / ``sympy.Ne``, except where Python raises first
  (``(q + 1) + False``, sympy's ``false * q``), with its own TypeError (the
  command line adds the hint);
* as the Python API builds them: never accepted silently — refused with the
  hint, or by sympy's own error while an outer layer is built around a bool
  (``Abs(Piecewise((False, c), …))``) — except the conditions that sympy
  simplifies away before any expmech code runs (``Piecewise((q, False), …)`` is
  ``…``; ``And(p, True)`` is ``p``), where only a collapse that leaves a trace
  (an aggregate whose body is a constant) can be, and is, refused.
"""

from __future__ import annotations

import operator

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.spec import IntRange, InvalidType, OutputSpace, QualityFunction, RecordSchema, count, max_over, mean, size, total
from expmech.spec.internal import constant_conditions_refused

SCHEMA = RecordSchema(x=IntRange(0, 4))
OUTPUTS = OutputSpace(r=IntRange(0, 4))
X, R = SCHEMA["x"], OUTPUTS["r"]

BOOLEANS = {
    "x == r": lambda: X == R,
    "x != r": lambda: X != R,
    "r == 2": lambda: R == 2,
    "x != 1": lambda: X != 1,
    "True": lambda: True,
    "False": lambda: False,
    "sympy.true": lambda: sympy.true,
    "sympy.false": lambda: sympy.false,
}
AGGREGATES = {"count": lambda: count(X <= R), "size": size, "total": lambda: total(X), "mean": lambda: mean(X + R)}
OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "**": operator.pow,
             "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _arith(op, side, partner):
    def build(h):
        a = AGGREGATES[partner]()
        result = OPERATORS[op](a, h) if side == "right" else OPERATORS[op](h, a)
        return count(result) if op in ("<", "<=", ">", ">=") else result
    return build


#: Where the bool goes, and what it builds (an expression of the language, or a predicate for count()).
PLACES = {
    "count": lambda h: count(h),
    "total": lambda h: total(h),
    "mean": lambda h: mean(h),
    "max_over": lambda h: max_over(h, R, [0, 1]),
    "quality": lambda h: h,
    "piecewise value (first)": lambda h: sympy.Piecewise((h, R > 1), (count(X <= R), True)),
    "piecewise value (otherwise)": lambda h: sympy.Piecewise((count(X <= R), R > 1), (h, True)),
    "piecewise value in a body": lambda h: total(sympy.Piecewise((h, X > 1), (X, True))),
    "piecewise condition": lambda h: sympy.Piecewise((count(X <= R), h), (size(), True)),
    "piecewise condition in a body": lambda h: total(sympy.Piecewise((X, h), (X + 1, True))),
    "piecewise condition, constant values": lambda h: total(sympy.Piecewise((1, h), (0, True))),
    "And": lambda h: count(sympy.And(X <= R, h)),
    "Or": lambda h: count(sympy.Or(X <= R, h)),
    "&": lambda h: count((X <= R) & h),
    "|": lambda h: count((X <= R) | h),
    "Not": lambda h: count(sympy.Not(h)),
    "relation side": lambda h: count(sympy.Eq(X, h)),
    "sympy.Max": lambda h: sympy.Max(count(X <= R), h),
    "sympy.Min": lambda h: sympy.Min(h, size()),
    "sympy.Abs": lambda h: sympy.Abs(h),
    "arithmetic on a compound": lambda h: (count(X <= R) + 1) + h,
}
PLACES.update({f"{partner} {op} bool ({side})": _arith(op, side, partner) for op in OPERATORS for side in ("left", "right") for partner in AGGREGATES})

#: Where Python raises before any expmech code runs, in both modes: its own TypeError.
RAISED_BY_PYTHON = {"arithmetic on a compound"}
#: Where sympy raises its own error on the bool when no watch is on (the command line's watch refuses them itself).
RAISED_BY_SYMPY = {"sympy.Max", "sympy.Min", "sympy.Abs"}


def _raised_by_python(place, boolean):
    """Compound arithmetic, and sympy's own true/false on the left of an operator ('BooleanAtom not allowed')."""
    return place in RAISED_BY_PYTHON or (boolean.startswith("sympy.") and place.endswith("(left)"))


#: Where sympy simplifies the bool away as the expression is built, leaving a well-formed expression the Python API
#: cannot tell from one written so (the command line watches these constructors as the user's module runs).
SIMPLIFIED_AWAY = {"piecewise condition", "piecewise condition in a body", "And", "Or", "&", "|"}

OUTER = [
    lambda e: e,
    lambda e: e + count(X >= R),
    lambda e: 2 * e - size(),
    lambda e: sympy.Abs(e),
    lambda e: sympy.Max(e, size()),
    lambda e: sympy.Piecewise((e, R > 0), (size(), True)),
    lambda e: e / (size() + 1),
]


def _quality(place, boolean, layers):
    built = PLACES[place](BOOLEANS[boolean]())
    if isinstance(built, sympy.Expr):
        for layer in layers:
            built = OUTER[layer](built)
    return QualityFunction(built, schema=SCHEMA, outputs=OUTPUTS)


def _refused(info):
    message = str(info.value)
    assert "sympy.Eq" in message and "sympy.Ne" in message, message
    assert "True" in message or "False" in message or "no record field" in message, message


places = st.sampled_from(sorted(PLACES))
booleans = st.sampled_from(sorted(BOOLEANS))
layers = st.lists(st.integers(0, len(OUTER) - 1), max_size=3)


python_booleans = st.sampled_from(sorted(b for b in BOOLEANS if not b.startswith("sympy.")))


@settings(max_examples=300)
@given(places, python_booleans, layers)
def test_the_command_line_refuses_a_python_bool_in_every_place(place, boolean, layers):
    """As the command line imports a target: a Python bool (what == gives) is refused everywhere, by expmech with the
    hint, or by Python before it (compound arithmetic)."""
    with constant_conditions_refused():
        if _raised_by_python(place, boolean):
            with pytest.raises(TypeError):
                _quality(place, boolean, layers)
            return
        with pytest.raises(InvalidType) as info:
            _quality(place, boolean, layers)
    _refused(info)


@settings(max_examples=200)
@given(places, st.sampled_from(["sympy.true", "sympy.false"]), layers)
def test_the_command_line_never_accepts_sympy_s_own_constants_silently_where_they_survive(place, boolean, layers):
    """sympy's true/false written directly (no == gives them): the watch leaves them to the checks of the finished
    expression, which refuse them wherever they survive; where sympy simplifies them away they are sympy's meaning."""
    with constant_conditions_refused():
        test_the_python_api_never_accepts_a_python_bool_silently.hypothesis.inner_test(place, boolean, layers)


def _raised_in_sympy(error):
    """The innermost frame of ``error`` is sympy's: sympy refused a bool it was given, before expmech saw it."""
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return "sympy" in tb.tb_frame.f_code.co_filename.replace("\\", "/").split("/")


@settings(max_examples=300)
@given(places, booleans, layers)
def test_the_python_api_never_accepts_a_python_bool_silently(place, boolean, layers):
    """In a script: refused with the hint, or by sympy's own error, wherever the bool survives sympy's construction."""
    if _raised_by_python(place, boolean):
        with pytest.raises(TypeError):
            _quality(place, boolean, layers)
        return
    if place in SIMPLIFIED_AWAY:  # sympy may have left a well-formed quality; if anything is refused, it says why
        try:
            _quality(place, boolean, layers)
        except InvalidType as error:
            assert "sympy.Eq" in str(error)
        return
    with pytest.raises((InvalidType, TypeError, ValueError, AttributeError)) as info:
        _quality(place, boolean, layers)
    if isinstance(info.value, InvalidType):
        _refused(info)
    else:
        assert place in RAISED_BY_SYMPY or _raised_in_sympy(info.value), info.value


@pytest.mark.parametrize("boolean", sorted(b for b in BOOLEANS if not b.startswith("sympy.")))
def test_the_issue_s_cases(boolean):
    """total(Piecewise((1, x == r), (0, True))) is refused (not total(0)); count(x <= r) + (x == r) is not a bare TypeError."""
    with pytest.raises(InvalidType, match="sympy.Eq"):
        total(sympy.Piecewise((1, BOOLEANS[boolean]()), (0, True)))
    with pytest.raises(InvalidType, match="sympy.Eq"):
        count(X <= R) + BOOLEANS[boolean]()
    with pytest.raises(InvalidType, match="sympy.Eq"):
        BOOLEANS[boolean]() * size()


@pytest.mark.parametrize("make", [lambda: total(0), lambda: total(sympy.Rational(3, 2)), lambda: mean(1), lambda: count(sympy.Eq(1, 2) | sympy.Eq(R, R))])
def test_an_aggregate_of_a_constant_is_refused(make):
    """A body without symbols is what a Python == leaves after sympy's simplification: refused, saying c*size()."""
    with pytest.raises(InvalidType, match="sympy.Eq"):
        make()


@pytest.mark.parametrize(
    "expr",
    [lambda: total(sympy.Piecewise((X, X > R), (R, True))), lambda: count(sympy.Or(sympy.Eq(X, R), R > 2))],
)
def test_a_body_with_a_field_is_accepted(expr):
    """Bodies that involve a record field (and sympy relations) are untouched."""
    assert QualityFunction(expr(), schema=SCHEMA, outputs=OUTPUTS).expr.has(X)


@pytest.mark.parametrize("body", [lambda: total(R + 1), lambda: count(R > 2), lambda: mean(2 * R)])
def test_a_body_of_output_variables_only_is_refused_by_the_quality(body):
    """total(r + 1) is (r + 1)·size(): the constructors cannot tell outputs from fields, the quality refuses it."""
    with pytest.raises(InvalidType, match="no record field"):
        QualityFunction(body(), schema=SCHEMA, outputs=OUTPUTS)


def test_the_watch_leaves_sympy_s_own_rebuilds_alone():
    """Inside the watch, a substitution that makes a condition False (max_over, subs) is sympy's, not the user's: kept."""
    with constant_conditions_refused():
        q = max_over(sympy.Piecewise((count(X <= R), sympy.Eq(R, 2)), (size(), True)), R, [1, 2, 3])
        assert q.has(size())
        assert sympy.Piecewise((count(X <= R), R > 2), (0, True)).subs(R, 1) == 0
    assert "__new__" not in vars(sympy.And) and isinstance(vars(sympy.Piecewise)["__new__"], staticmethod)
