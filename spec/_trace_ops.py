"""The tracer's Python semantics that need no tracer: constants, operators, names of constructs, statement shapes.

Constant folding is Python's, except ``/``, which is exact (a ``Fraction``).  The tables give each operator its
Python function and its name for messages; the predicates read statement shapes (``name.sort()``, an exit inside a
block, the names a block assigns) and accumulation shapes (``max(m, e)`` and its ``if e > m: m = e`` form).
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy

from ._trace_values import Cond, Const, Items, Refused, Value, piecewise

__all__ = [
    "COMPARE",
    "FOLD",
    "OPERATOR_NAMES",
    "RELATIONS",
    "assigned_names",
    "constant_value",
    "exits",
    "expression_name",
    "extremum",
    "fold_constants",
    "guarded",
    "guarded_value",
    "is_bool",
    "is_numpy",
    "items_of",
    "sorts_in_place",
    "statement_name",
]


def guarded(step: sympy.Expr, guard: Any) -> sympy.Expr:
    if guard is sympy.true or step == 0:
        return step
    return piecewise((step, guard), (sympy.Integer(0), True))


def guarded_value(body: sympy.Expr, guard: Any) -> sympy.Expr | None:
    return body if guard is sympy.true else None


def extremum(expr: sympy.Expr, marker: sympy.Symbol) -> tuple[Any, sympy.Expr] | None:
    """``(Max, e)`` or ``(Min, e)`` when ``expr`` is ``max(marker, e)`` / ``min(marker, e)`` (or the if-form of one)."""
    if isinstance(expr, sympy.Max | sympy.Min) and marker in expr.args:
        rest = [a for a in expr.args if a != marker]
        if rest and not any(marker in a.free_symbols for a in rest):
            return type(expr), (rest[0] if len(rest) == 1 else type(expr)(*rest))
    if isinstance(expr, sympy.Piecewise) and len(expr.args) == 2 and expr.args[1].expr == marker and expr.args[1].cond is sympy.true:
        value, cond = expr.args[0].expr, expr.args[0].cond
        if marker in value.free_symbols:
            return None
        for kind, shapes in ((sympy.Max, (sympy.Gt(value, marker), sympy.Ge(value, marker), sympy.Lt(marker, value), sympy.Le(marker, value))),
                             (sympy.Min, (sympy.Lt(value, marker), sympy.Le(value, marker), sympy.Gt(marker, value), sympy.Ge(marker, value)))):
            if cond in shapes:
                return kind, value
    return None


def sorts_in_place(node: ast.expr) -> bool:
    """``name.sort()`` with no arguments."""
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sort"
        and isinstance(node.func.value, ast.Name) and not node.args and not node.keywords
    )


def exits(stmts: list[ast.stmt]) -> bool:
    """Whether the statements hold a return, raise, break or continue (outside nested functions)."""
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Return | ast.Raise | ast.Break | ast.Continue):
                return True
    return False


def assigned_names(stmts: list[ast.stmt]) -> set[str]:
    found: set[str] = set()
    for stmt in stmts:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.add(node.id)
    return found


def is_bool(value: Value) -> bool:
    return isinstance(value, Cond) or (isinstance(value, Const) and isinstance(value.value, bool))


def is_numpy(value: Value) -> bool:
    return isinstance(value, Cond) and value.numpy


def items_of(value: Value) -> tuple[Value, ...] | None:
    if isinstance(value, Items):
        return value.items
    if isinstance(value, Const) and isinstance(value.value, tuple | range):
        return tuple(Const(v) for v in value.value)
    return None


def constant_value(value: Any) -> Value:
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise Refused(f"the float {value!r}", "not a finite number")
        return Const(Fraction(value))  # the exact value of the float the code computes with
    if isinstance(value, bool | int | str) or value is None:
        return Const(value)
    raise Refused(f"the constant {value!r}", "outside the traceable subset")


def fold_constants(op: ast.operator, a: Any, b: Any) -> Const:
    """A constant operation, exactly (``/`` gives a Fraction)."""
    numbers = all(isinstance(v, int | Fraction) for v in (a, b))
    try:
        if isinstance(op, ast.Div):
            if not numbers:
                raise Refused(f"{a!r} / {b!r}")
            return Const(Fraction(a) / Fraction(b))
        if isinstance(op, ast.Pow) and numbers:
            if not isinstance(b, int) or abs(b) > 4096:
                raise Refused(f"the power {a!r} ** {b!r}", "only integer exponents up to 4096")
            return Const(Fraction(a) ** b if b < 0 else a**b)
        function = FOLD.get(type(op))
        if function is None:
            raise Refused(f"{OPERATOR_NAMES.get(type(op), type(op).__name__)} on constants")
        return Const(function(a, b))
    except ZeroDivisionError:
        raise Refused("a division by zero", "the function always raises here") from None
    except TypeError:
        raise Refused(f"{OPERATOR_NAMES.get(type(op), 'an operator')} on {a!r} and {b!r}") from None


FOLD: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
RELATIONS: dict[type, Any] = {ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt, ast.GtE: sympy.Ge}
OPERATOR_NAMES: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.USub: "unary -", ast.UAdd: "unary +", ast.Not: "not", ast.Invert: "~",
}


def statement_name(stmt: ast.stmt) -> str:
    names = {
        ast.While: "a while loop", ast.Try: "a try statement", ast.With: "a with statement", ast.FunctionDef: "a nested function",
        ast.AsyncFunctionDef: "a nested async function", ast.ClassDef: "a class", ast.Global: "a global statement",
        ast.Nonlocal: "a nonlocal statement", ast.Delete: "a del statement", ast.Import: "an import", ast.ImportFrom: "an import",
        ast.Assert: "an assert statement", ast.Break: "a break", ast.Continue: "a continue", ast.AsyncFor: "an async for",
        ast.AsyncWith: "an async with", ast.Match: "a match statement",
    }
    return names.get(type(stmt), f"a {type(stmt).__name__} statement")


def expression_name(node: ast.expr) -> str:
    names = {
        ast.Lambda: "a lambda", ast.Dict: "a dict", ast.Set: "a set", ast.SetComp: "a set comprehension",
        ast.DictComp: "a dict comprehension", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield from",
        ast.NamedExpr: "an assignment expression (:=)", ast.Starred: "a starred expression",
    }
    return names.get(type(node), f"a {type(node).__name__} expression")
