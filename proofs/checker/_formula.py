"""Side conditions: formulas whose satisfiability would be a violation, over declared variables.

Terms: ``("k", q)``, ``("v", name)``, ``("+", t…)``, ``("*", t…)``, ``("inv", t)`` (its zero guarded by the caller),
``("ite", c, t, u)``, ``("floor", t)``; conditions: ``("<" | "<=" | "=", t, u)``, ``("and", c…)``, ``("or", c…)``, ``("not", c)``.  A
:class:`Var` has its sort (integer only where the verifier established it), its ends and its listed values.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ._numbers import add, mul

__all__ = ["FALSE", "TRUE", "Obligation", "Var", "conj", "disj", "floor", "holds", "integer_floors", "ite", "k", "neg", "plus", "times", "value", "var"]

TRUE: tuple[Any, ...] = ("and",)
FALSE: tuple[Any, ...] = ("or",)
ZERO, ONE = ("k", Fraction(0)), ("k", Fraction(1))


@dataclass(frozen=True)
class Var:
    """A variable: ``int`` sort (established by the verifier), bounds, and its finite values when listed."""

    name: str
    integer: bool
    lo: Fraction | None
    hi: Fraction | None
    values: tuple[Fraction, ...] | None = None


@dataclass(frozen=True)
class Obligation:
    """``formula`` must be unsatisfiable over ``variables``: ``node`` (a derivation node id) states ``what``."""

    node: str
    what: str
    formula: tuple[Any, ...]
    variables: tuple[Var, ...]


def k(q: Fraction | int) -> tuple[Any, ...]:
    """The constant ``q``."""
    return ("k", Fraction(q))


def var(name: str) -> tuple[Any, ...]:
    """The variable ``name``."""
    return ("v", name)


def plus(*terms: tuple[Any, ...]) -> tuple[Any, ...]:
    """The sum (constants folded)."""
    parts = [t for t in terms if t != ZERO]
    if all(t[0] == "k" for t in parts):
        total = Fraction(0)
        for t in parts:
            total = add(total, t[1])
        return ("k", total)
    return parts[0] if len(parts) == 1 else ("+", *parts)


def times(*terms: tuple[Any, ...]) -> tuple[Any, ...]:
    """The product (constants folded)."""
    if any(t == ZERO for t in terms):
        return ZERO
    parts = [t for t in terms if t != ONE]
    if all(t[0] == "k" for t in parts):
        product = Fraction(1)
        for t in parts:
            product = mul(product, t[1])
        return ("k", product)
    return parts[0] if len(parts) == 1 else ("*", *parts)


def neg(term: tuple[Any, ...]) -> tuple[Any, ...]:
    """``−term``."""
    return times(("k", Fraction(-1)), term)


def floor(term: tuple[Any, ...]) -> tuple[Any, ...]:
    """``⌊term⌋`` (a constant folded)."""
    return ("k", Fraction(math.floor(term[1]))) if term[0] == "k" else ("floor", term)


def integer_floors(formula: tuple[Any, ...]) -> tuple[tuple[Any, ...], tuple[Var, ...]]:
    """``formula`` with each distinct ``floor(t)`` an integer variable ``floor_i`` and ``floor_i <= t < floor_i + 1``
    conjoined (satisfiable exactly when ``formula`` is: the floor is the one such integer), and those variables."""
    table: dict[Any, str] = {}

    def walk(item: Any) -> Any:
        if not isinstance(item, tuple) or not item or item[0] in ("k", "v"):
            return item
        item = (item[0], *[walk(part) for part in item[1:]])  # inner floors first
        return ("v", table.setdefault(item, f"floor_{len(table)}")) if item[0] == "floor" else item

    body = walk(formula)
    bounds = [c for t, name in table.items() for c in (("<=", var(name), t[1]), ("<", t[1], plus(var(name), ONE)))]
    return conj(body, *bounds), tuple(Var(name, True, None, None) for name in table.values())


def ite(cond: tuple[Any, ...], then: tuple[Any, ...], other: tuple[Any, ...]) -> tuple[Any, ...]:
    """``if cond then … else …`` (a condition between two constants decided at once)."""
    if cond[0] in ("<", "<=", "=") and cond[1][0] == "k" and cond[2][0] == "k":
        cond = TRUE if holds(cond, {}) else FALSE
    if cond == TRUE or then == other:
        return then
    return other if cond == FALSE else ("ite", cond, then, other)


def conj(*conds: tuple[Any, ...]) -> tuple[Any, ...]:
    """The conjunction (TRUE dropped, FALSE absorbing)."""
    parts = [c for c in conds if c != TRUE]
    if FALSE in parts:
        return FALSE
    return parts[0] if len(parts) == 1 else ("and", *parts) if parts else TRUE


def disj(*conds: tuple[Any, ...]) -> tuple[Any, ...]:
    """The disjunction (FALSE dropped, TRUE absorbing)."""
    parts = [c for c in conds if c != FALSE]
    if TRUE in parts:
        return TRUE
    return parts[0] if len(parts) == 1 else ("or", *parts) if parts else FALSE


class Undefined(ArithmeticError):
    """A division by zero reached while evaluating (the formula's own guards did not exclude it)."""


def value(term: tuple[Any, ...], env: Mapping[str, Fraction]) -> Fraction:
    """The exact value of an arithmetic term (Undefined for ``1/0``)."""
    tag = term[0]
    if tag == "k":
        return term[1]  # type: ignore[no-any-return]
    if tag == "v":
        return env[term[1]]
    if tag == "ite":
        return value(term[2] if holds(term[1], env) else term[3], env)
    if tag == "inv":
        inner = value(term[1], env)
        if inner == 0:
            raise Undefined()
        return 1 / inner
    if tag == "floor":
        return Fraction(math.floor(value(term[1], env)))
    parts = [value(t, env) for t in term[1:]]
    result = Fraction(0 if tag == "+" else 1)
    for p in parts:
        result = add(result, p) if tag == "+" else mul(result, p)
    return result


def holds(cond: tuple[Any, ...], env: Mapping[str, Fraction]) -> bool:
    """Whether ``cond`` holds at ``env`` (lazy ``and``/``or``, as written)."""
    tag = cond[0]
    if tag == "and":
        return all(holds(c, env) for c in cond[1:])
    if tag == "or":
        return any(holds(c, env) for c in cond[1:])
    if tag == "not":
        return not holds(cond[1], env)
    left, right = value(cond[1], env), value(cond[2], env)
    return left < right if tag == "<" else left <= right if tag == "<=" else left == right


def variables_of(formula: Any, found: set[str] | None = None) -> set[str]:
    """The variable names a formula mentions."""
    found = set() if found is None else found
    stack = [formula]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple) and item:
            if item[0] == "v":
                found.add(item[1])
            elif item[0] != "k":
                stack.extend(item[1:])
    return found


def declared(variables: Iterable[Var], formula: Any) -> tuple[Var, ...]:
    """The declarations of the variables ``formula`` mentions, in declaration order."""
    used = variables_of(formula)
    return tuple(v for v in variables if v.name in used)
