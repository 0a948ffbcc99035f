"""Python booleans where the language wants a sympy expression or condition: refused by name, with the fix.

Python's ``==`` and ``!=`` on sympy expressions compare the expressions
themselves, not their values: ``x == r`` is ``False`` and ``x != r`` is
``True`` before expmech (or sympy) sees them.  Where such a bool lands, the
user's intent is lost:

* ``count(x == r)`` would be ``count(False)``, the constant 0;
* ``Piecewise((1, x == r), (0, True))`` is evaluated by sympy to ``0`` (a
  ``False`` condition is dropped), so ``total(...)`` of it is ``total(0)``;
* ``Piecewise((x == r, c), (1, True))`` keeps ``False`` as a value;
* ``count(x <= r) + (x == r)`` is ``Count + bool``.

This module holds what every position of the language shares: the test for a
constant boolean, the message (naming the place and the value, pointing to
``sympy.Eq`` / ``sympy.Ne``), the walk that finds a boolean left in a numeric
position of an expression, and :class:`RefusesBooleans`, the arithmetic and
ordering of the aggregates that refuses a bool operand instead of letting
Python raise a bare ``TypeError``.
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.logic.boolalg import ITE, BooleanAtom

from ._errors import InvalidType, describe

__all__ = [
    "HINT",
    "PYTHON_COMPARISON_HINT",
    "RefusesBooleans",
    "boolean_error",
    "boolean_in_value_position",
    "is_constant_boolean",
    "record_free_error",
]

#: What every refusal says about the cause and the fix.
PYTHON_COMPARISON_HINT = HINT = (
    "Python's == and != compare sympy expressions structurally (x == r is False, x != r is True) before expmech sees "
    "them, so write sympy.Eq(x, r) or sympy.Ne(x, r)"
)


def is_constant_boolean(value: Any) -> bool:
    """Whether ``value`` is a Python ``bool`` or sympy's ``true`` / ``false``."""
    return isinstance(value, bool | BooleanAtom)


def _shown(value: Any) -> str:
    return "True" if value is True or value is sympy.true else "False"


def boolean_error(value: Any, *, where: str, parameter: str, inside: sympy.Basic | None = None, instead: str = "") -> InvalidType:
    """The :class:`InvalidType` for the constant boolean ``value`` met at ``where``.

    ``parameter`` names the argument that held it; ``inside`` is the expression
    it sits in when it is not the argument itself; ``instead`` an extra hint for
    that place (``"for every record use size(), for none 0"``).
    """
    place = f"{_shown(value)} in {describe(inside)}" if inside is not None and inside is not value else f"{parameter}={_shown(value)}"
    extra = f" ({instead})" if instead else ""
    return InvalidType(
        f"{where}: {place} is a constant, not a number or a condition on the data; {HINT}{extra}",
        parameter=parameter,
        value=value,
    )


def record_free_error(aggregate: str, body: sympy.Basic, *, parameter: str, rewrite: str) -> InvalidType:
    """The :class:`InvalidType` for an aggregate whose body involves no record field (so is the same for every record).

    That is what a Python ``==`` / ``!=`` in a Piecewise condition leaves: sympy
    drops a ``False`` condition and stops at a ``True`` one, so
    ``total(Piecewise((1, x == r), (0, True)))`` is ``total(0)``.  ``rewrite``
    says how to write the aggregate without it, if it was meant.
    """
    return InvalidType(
        f"{aggregate}({describe(body)}): its {parameter} involves no record field, so it is the same for every record. "
        f"If a Python == / != was simplified away in it (sympy drops a False condition and stops at a True one: "
        f"Piecewise((1, x == r), (0, True)) is 0, Or(r > 2, x == r) is r > 2), {HINT}; if it is meant, {rewrite}",
        parameter=parameter,
        value=body,
    )


def boolean_in_value_position(expr: sympy.Basic) -> tuple[sympy.Basic, sympy.Basic] | None:
    """The first ``true`` / ``false`` of ``expr`` where a number belongs, and the node holding it; else None.

    A constant boolean is allowed in two places only: as a Piecewise's
    condition ``True`` (the "otherwise" branch) and as an argument of
    ``And`` / ``Or`` / ``Not`` / ``ITE``.  Everywhere else — a Piecewise's
    values, the operands of arithmetic, ``Abs``, ``Max``, ``Min``, a relation's
    sides, an aggregate's body or predicate, ``expr`` itself — it is what a
    Python ``==`` / ``!=`` left.  The walk is iterative (no recursion limit).
    """
    if is_constant_boolean(expr):
        return expr, expr
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, sympy.Piecewise):
            for pair in node.args:
                if is_constant_boolean(pair.expr) or pair.cond is sympy.false:
                    return (pair.expr if is_constant_boolean(pair.expr) else pair.cond), node
                stack.extend((pair.expr, pair.cond))
            continue
        logical = isinstance(node, sympy.And | sympy.Or | sympy.Not | ITE)
        for arg in node.args:
            if is_constant_boolean(arg) and not logical:
                return arg, node
            stack.append(arg)
    return None


def _refuse_operand(self: Any, other: Any, operator: str) -> None:
    if is_constant_boolean(other):
        raise boolean_error(other, where=f"{describe(self)} {operator} {_shown(other)}", parameter="operand")


class RefusesBooleans:
    """Arithmetic and ordering that refuse a ``bool`` operand with :func:`boolean_error` (mixed into the aggregates).

    Without it ``count(x <= r) + (x == r)`` raises Python's bare ``TypeError:
    unsupported operand type(s) for +: 'Count' and 'bool'``.
    """

    def __add__(self, other: Any) -> Any:
        _refuse_operand(self, other, "+")
        return super().__add__(other)  # type: ignore[misc]

    def __radd__(self, other: Any) -> Any:
        _refuse_operand(self, other, "+")
        return super().__radd__(other)  # type: ignore[misc]

    def __sub__(self, other: Any) -> Any:
        _refuse_operand(self, other, "-")
        return super().__sub__(other)  # type: ignore[misc]

    def __rsub__(self, other: Any) -> Any:
        _refuse_operand(self, other, "-")
        return super().__rsub__(other)  # type: ignore[misc]

    def __mul__(self, other: Any) -> Any:
        _refuse_operand(self, other, "*")
        return super().__mul__(other)  # type: ignore[misc]

    def __rmul__(self, other: Any) -> Any:
        _refuse_operand(self, other, "*")
        return super().__rmul__(other)  # type: ignore[misc]

    def __truediv__(self, other: Any) -> Any:
        _refuse_operand(self, other, "/")
        return super().__truediv__(other)  # type: ignore[misc]

    def __rtruediv__(self, other: Any) -> Any:
        _refuse_operand(self, other, "/")
        return super().__rtruediv__(other)  # type: ignore[misc]

    def __pow__(self, other: Any, mod: Any = None) -> Any:
        _refuse_operand(self, other, "**")
        return super().__pow__(other) if mod is None else super().__pow__(other, mod)  # type: ignore[misc]

    def __rpow__(self, other: Any) -> Any:
        _refuse_operand(self, other, "**")
        return super().__rpow__(other)  # type: ignore[misc]

    def __lt__(self, other: Any) -> Any:
        _refuse_operand(self, other, "<")
        return super().__lt__(other)  # type: ignore[misc]

    def __le__(self, other: Any) -> Any:
        _refuse_operand(self, other, "<=")
        return super().__le__(other)  # type: ignore[misc]

    def __gt__(self, other: Any) -> Any:
        _refuse_operand(self, other, ">")
        return super().__gt__(other)  # type: ignore[misc]

    def __ge__(self, other: Any) -> Any:
        _refuse_operand(self, other, ">=")
        return super().__ge__(other)  # type: ignore[misc]
