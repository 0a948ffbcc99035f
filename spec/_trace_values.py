"""What a traced Python value is: a constant, a number or condition of the language, or a collection of records.

The tracer (:mod:`._trace_exec`) runs a quality function's code on these
values instead of on data.  Each kind knows only the operations whose Python
meaning it can write exactly in the language; anything else is a
:class:`Refused`, which the tracer turns into a :class:`~._errors.TraceError`
at the line it is on.

* :class:`Const` — a Python constant (``int``, ``bool``, ``Fraction``, ``str``,
  ``None``, tuples of them): folded exactly by Python, except ``/`` which is
  exact (a ``Fraction``), never a float.
* :class:`Num` / :class:`Cond` — a sympy expression of the language: numeric
  or a condition.  Over the record of a loop (or comprehension) it holds the
  record's fields; otherwise outputs and aggregates.  ``Cond.numpy`` marks a
  numpy boolean, whose ``+`` and ``*`` are ``or`` and ``and`` (not Python's
  ``int`` arithmetic).
* :class:`Records` — the records, or a per-record value over them: the
  dataset, a comprehension or generator over it, a numpy array of it, a sorted
  list of it; ``cond`` is the filter of a comprehension or a boolean mask.
* :class:`Items` — a list or tuple of other values (``[a, b]``, a comprehension
  over constants), :class:`Record` / :class:`Output` — a record or output of
  several fields, read by name.
* :data:`UNDEFINED` — where the function raises: the quality is undefined there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy
from sympy.logic.boolalg import Boolean, BooleanAtom

from ._language import AGGREGATES

__all__ = [
    "UNDEFINED",
    "Const",
    "Cond",
    "Items",
    "Num",
    "Output",
    "Record",
    "Records",
    "Refused",
    "Undefined",
    "Value",
    "as_condition",
    "as_expr",
    "constants",
    "indicator",
    "lift_condition",
    "piecewise",
    "sympy_constant",
]


class Refused(Exception):
    """A construct the language cannot hold exactly: ``construct`` names it, ``why`` says why (no line yet)."""

    def __init__(self, construct: str, why: str = "") -> None:
        super().__init__(f"{construct}: {why}" if why else construct)
        self.construct = construct
        self.why = why


class Value:
    """A traced value (see the module docstring)."""

    kind = "value"


@dataclass(frozen=True)
class Const(Value):
    """A Python constant, folded exactly."""

    value: Any
    kind = "constant"


@dataclass(frozen=True)
class Num(Value):
    """A numeric expression of the language."""

    expr: sympy.Expr
    kind = "number"


@dataclass(frozen=True)
class Cond(Value):
    """A condition of the language; ``numpy`` marks a numpy boolean (``+`` is ``or``, ``*`` is ``and``)."""

    expr: Any  # a sympy Boolean (or BooleanAtom)
    numpy: bool = False
    kind = "condition"


@dataclass(frozen=True)
class Undefined(Value):
    """The function raises here (a ``raise`` statement, an index past the records): the quality is undefined."""

    kind = "undefined"


UNDEFINED = Undefined()


@dataclass(frozen=True)
class Record(Value):
    """The record of a loop over the data, for a schema of several fields: ``rec["x"]`` or ``rec.x``."""

    fields: tuple[tuple[str, Value], ...]
    kind = "record"

    def field(self, name: Any) -> Value:
        """The field ``name``; Refused for another name."""
        for key, value in self.fields:
            if key == name:
                return value
        raise Refused(f"record field {name!r}", f"the schema has the fields {', '.join(k for k, _ in self.fields)}")


@dataclass(frozen=True)
class Output(Value):
    """An output of several variables: ``r["a"]``, ``r.a``, ``r[0]`` or ``a, b = r`` (declaration order)."""

    variables: tuple[tuple[str, Value], ...]
    kind = "output"

    def variable(self, key: Any) -> Value:
        """The variable named ``key``, or at position ``key``."""
        if isinstance(key, int) and not isinstance(key, bool):
            if -len(self.variables) <= key < len(self.variables):
                return self.variables[key][1]
            raise Refused(f"r[{key}]", f"the output has {len(self.variables)} variables")
        for name, value in self.variables:
            if name == key:
                return value
        raise Refused(f"output variable {key!r}", f"the outputs are {', '.join(k for k, _ in self.variables)}")


@dataclass(frozen=True)
class Records(Value):
    """Per-record ``body`` over the records satisfying ``cond``; ``form`` is how Python holds them.

    ``form``: ``"list"`` (the dataset, a list comprehension, ``list(...)``),
    ``"generator"``, ``"array"`` (numpy), ``"sorted"`` (a sorted list) or
    ``"sorted-array"`` (``np.sort``).  ``body`` is a :class:`Num`, a
    :class:`Cond` or a :class:`Record` over the fields of one record.
    """

    body: Value
    cond: Any = sympy.true
    form: str = "list"
    kind = "records"

    @property
    def is_array(self) -> bool:
        """A numpy array (elementwise arithmetic), sorted or not."""
        return self.form in ("array", "sorted-array")

    @property
    def is_sorted(self) -> bool:
        """Sorted by value (``sorted(...)``, ``np.sort(...)``)."""
        return self.form in ("sorted", "sorted-array")


@dataclass(frozen=True)
class Items(Value):
    """A Python list or tuple of values of known length (``form``: ``"list"``, ``"tuple"`` or ``"generator"``)."""

    items: tuple[Value, ...]
    form: str = "tuple"
    kind = "items"


@dataclass(frozen=True)
class Callable_(Value):
    """Something the tracer can call: a builtin it knows, a module attribute, or a user function to inline."""

    target: Any
    name: str
    bound: tuple[Value, ...] = field(default=())
    kind = "function"


@dataclass(frozen=True)
class Module(Value):
    """A module the tracer knows (``numpy``, ``math``, ``bisect``, ``fractions``)."""

    module: Any
    name: str
    kind = "module"


def constants(values: Any) -> list[Any]:
    """The Python values of traced constants (every one a :class:`Const`: the caller checked)."""
    return [value.value for value in values if isinstance(value, Const)]


def sympy_constant(value: Any) -> sympy.Expr:
    """An exact constant as a sympy number; Refused for anything else (a str, None, a tuple)."""
    if isinstance(value, bool):
        return sympy.Integer(int(value))
    if isinstance(value, int):
        return sympy.Integer(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    raise Refused(f"the constant {value!r}", "only numbers (int, Fraction, bool) enter arithmetic")


def indicator(cond: Any) -> sympy.Expr:
    """``1`` where ``cond`` holds, else ``0``: a Python ``bool`` read as a number."""
    if cond is sympy.true:
        return sympy.Integer(1)
    if cond is sympy.false:
        return sympy.Integer(0)
    return piecewise((sympy.Integer(1), cond), (sympy.Integer(0), sympy.true))


def piecewise(*pairs: tuple[Any, Any]) -> sympy.Expr:
    """``Piecewise(*pairs)`` with every condition free of a Piecewise outside the aggregates (:func:`lift_condition`).

    sympy folds a Piecewise it finds in a condition into an ``ITE`` the language does not hold; a condition on a
    value that is itself a ``Piecewise`` (an ``if`` on the result of another) is split by that value's branches first.
    """
    return sympy.Piecewise(*[(value, lift_condition(cond)) for value, cond in pairs])


def lift_condition(cond: Any) -> Any:
    """``cond`` with each relation over a Piecewise (outside the aggregates) split by the Piecewise's branches.

    ``a < Piecewise((b, c), (d, True))`` becomes ``(c ∧ a < b) ∨ (¬c ∧ a < d)``: the same truth value wherever the
    Piecewise has one.  One without a default branch (undefined where no branch applies) is refused: the split
    would be false there, not undefined.
    """
    if not isinstance(cond, sympy.Basic) or not _outer_piecewise(cond):
        return cond
    if isinstance(cond, sympy.And | sympy.Or | sympy.Not):
        return type(cond)(*[lift_condition(arg) for arg in cond.args])
    if not isinstance(cond, sympy.core.relational.Relational):
        raise Refused("a condition on a conditional value", f"{type(cond).__name__} over a Piecewise")
    inner = _outer_piecewise(cond)
    assert inner is not None
    if inner.args[-1].cond is not sympy.true:
        raise Refused("a condition on a value that may be undefined", "the value has no branch for every case")
    parts: list[Any] = []
    earlier: list[Any] = []
    for pair in inner.args:
        taken = sympy.And(*[sympy.Not(c) for c in earlier], pair.cond)
        parts.append(sympy.And(taken, lift_condition(cond.xreplace({inner: pair.expr}))))
        earlier.append(pair.cond)
    return sympy.Or(*parts)


def _outer_piecewise(expr: sympy.Basic) -> sympy.Piecewise | None:
    """A Piecewise of ``expr`` outside every aggregate (the aggregates' own bodies are theirs), or None."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, sympy.Piecewise):
            return node
        if isinstance(node, AGGREGATES):
            continue
        stack.extend(node.args)
    return None


def as_expr(value: Value) -> sympy.Expr:
    """``value`` as a numeric sympy expression (a condition as 0/1, a constant exactly); Refused otherwise."""
    if isinstance(value, Num):
        return value.expr
    if isinstance(value, Cond):
        return indicator(value.expr)
    if isinstance(value, Const):
        return sympy_constant(value.value)
    raise Refused(f"a {value.kind} used as a number")


def as_condition(value: Value) -> Any:
    """``value`` as a sympy condition, by Python's truth: a number is true when it is not 0."""
    if isinstance(value, Cond):
        return value.expr
    if isinstance(value, Num):
        return sympy.Ne(value.expr, 0)
    if isinstance(value, Const):
        return sympy.true if value.value else sympy.false
    raise Refused(f"a {value.kind} used as a condition")


def is_boolean(expr: Any) -> bool:
    """Whether ``expr`` is a sympy condition."""
    return isinstance(expr, Boolean | BooleanAtom) and not isinstance(expr, sympy.Expr)
