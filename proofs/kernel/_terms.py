"""The spec language in z3, written by the kernel from the evaluator's definitions.

:class:`Encoder` turns an expression of the quality-function language into a
pair ``(value, undefined)`` of z3 terms over an environment: ``env`` maps
record fields, output variables and aggregate nodes to such pairs.  The
semantics are those of :func:`expmech.spec.internal.compile_expression`:
a Boolean used as a number is 0/1 and a number used as a condition is
``!= 0``; ``Piecewise`` takes its first branch whose condition holds (no
branch applies: undefined); ``And``/``Or`` stop at the first deciding
argument; every other node evaluates all its arguments; a negative power of
zero is undefined; ``Max``/``Min``/``Abs`` are ``If`` terms.  Anything else
(a non-integer exponent, a node outside the language, an unbound symbol or
aggregate) raises :class:`~._smt.Unsupported`.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.spec import Count, Mean, Size, Total

from ._smt import Session, Unsupported

__all__ = ["AGGREGATES", "Encoder", "any_of", "has_aggregate"]

AGGREGATES = (Count, Total, Mean, Size)
MAX_POWER = 64
_RELATIONS = {sympy.StrictLessThan: "<", sympy.LessThan: "<=", sympy.StrictGreaterThan: ">", sympy.GreaterThan: ">="}


@functools.lru_cache(maxsize=4096)
def has_aggregate(expr: sympy.Basic) -> bool:
    """Whether ``expr`` depends on the dataset (contains an aggregate)."""
    return isinstance(expr, AGGREGATES) or any(has_aggregate(arg) for arg in expr.args)


def any_of(session: Session, parts: Iterable[Any]) -> Any:
    """The disjunction of z3 Booleans, without the plainly false ones."""
    kept = [p for p in parts if not z3.is_false(p)]
    if not kept:
        return session.boolean(False)
    return kept[0] if len(kept) == 1 else z3.Or(*kept)


class Encoder:
    """``(value, undefined)`` of expressions over ``env`` (see the module docstring); memoised per node."""

    def __init__(self, session: Session, env: Mapping[sympy.Basic, tuple[Any, Any]]) -> None:
        self.s = session
        self.env = dict(env)
        self._memo: dict[sympy.Basic, tuple[Any, Any]] = {}

    def number(self, expr: sympy.Basic) -> tuple[Any, Any]:
        """``expr`` as an arithmetic term, with its undefinedness."""
        value, undefined = self.pair(expr)
        return (z3.If(value, self.s.num(1), self.s.num(0)) if z3.is_bool(value) else value), undefined

    def condition(self, expr: sympy.Basic) -> tuple[Any, Any]:
        """``expr`` as a Boolean term, with its undefinedness."""
        value, undefined = self.pair(expr)
        return (value if z3.is_bool(value) else value != 0), undefined

    def pair(self, expr: sympy.Basic) -> tuple[Any, Any]:
        """``(value, undefined)`` as the node gives it (Boolean or arithmetic)."""
        if expr in self.env:
            return self.env[expr]
        found = self._memo.get(expr)
        if found is None:
            found = self._encode(expr)
            self._memo[expr] = found
        return found

    def _encode(self, e: sympy.Basic) -> tuple[Any, Any]:
        s, false = self.s, self.s.boolean(False)
        if isinstance(e, sympy.Rational):
            return s.num(Fraction(int(e.p), int(e.q))), false
        if e is sympy.true or e is sympy.false:
            return s.boolean(bool(e)), false
        if isinstance(e, (sympy.Symbol, *AGGREGATES)):
            raise Unsupported(f"{e} has no value here")
        if isinstance(e, sympy.Piecewise):
            return self._piecewise(e)
        if isinstance(e, sympy.And | sympy.Or):
            return self._lazy(e)
        if isinstance(e, sympy.Not):
            value, undefined = self.condition(e.args[0])
            return z3.Not(value), undefined
        if isinstance(e, sympy.Eq | sympy.Ne):
            (left, lu), (right, ru) = self.pair(e.args[0]), self.pair(e.args[1])
            if z3.is_bool(left) != z3.is_bool(right):
                (left, lu), (right, ru) = self.number(e.args[0]), self.number(e.args[1])
            return (left == right if isinstance(e, sympy.Eq) else left != right), any_of(s, [lu, ru])
        if isinstance(e, sympy.Pow):
            return self._power(e)
        parts = [self.number(a) for a in e.args]
        values = [v for v, _ in parts]
        undefined = any_of(s, [u for _, u in parts])
        if isinstance(e, sympy.Add):
            return z3.Sum(*values), undefined
        if isinstance(e, sympy.Mul):
            return z3.Product(*values), undefined
        if isinstance(e, sympy.Abs) and len(values) == 1:
            return z3.If(values[0] >= 0, values[0], -values[0]), undefined
        if isinstance(e, sympy.Max | sympy.Min) and values:
            result = values[0]
            for other in values[1:]:
                result = z3.If(other > result, other, result) if isinstance(e, sympy.Max) else z3.If(other < result, other, result)
            return result, undefined
        for kind, op in _RELATIONS.items():
            if isinstance(e, kind):
                a, b = values
                return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op], undefined
        raise Unsupported(f"a node {type(e).__name__} outside the language")

    def _power(self, e: sympy.Basic) -> tuple[Any, Any]:
        exponent = e.args[1]
        if not isinstance(exponent, sympy.Integer) or abs(int(exponent)) > MAX_POWER:
            raise Unsupported(f"the power {e} (only integer exponents up to ±{MAX_POWER})")
        base, undefined = self.number(e.args[0])
        k = int(exponent)
        if k == 0:
            return self.s.num(1), undefined
        product = z3.Product(*([base] * abs(k))) if abs(k) > 1 else base
        if k > 0:
            return product, undefined
        real = z3.ToReal(product) if z3.is_int(product) else product
        return 1 / real, any_of(self.s, [undefined, base == 0])

    def _piecewise(self, e: sympy.Piecewise) -> tuple[Any, Any]:
        branches = [(self.number(p.args[0]), self.condition(p.args[1])) for p in e.args]
        value = branches[-1][0][0]
        undefined = self.s.boolean(True)  # no branch applies
        for (val, val_u), (cond, cond_u) in reversed(branches):
            undefined = any_of(self.s, [cond_u, z3.If(cond, val_u, undefined)])
        for (val, _), (cond, _) in reversed(branches[:-1]):
            value = z3.If(cond, val, value)
        return value, z3.simplify(undefined)

    def _lazy(self, e: sympy.Basic) -> tuple[Any, Any]:
        parts = [self.condition(a) for a in e.args]
        undefined = self.s.boolean(False)
        for value, part_u in reversed(parts):
            stop = z3.Not(value) if isinstance(e, sympy.And) else value
            undefined = any_of(self.s, [part_u, z3.And(z3.Not(stop), undefined)])
        values = [v for v, _ in parts]
        return (z3.And(*values) if isinstance(e, sympy.And) else z3.Or(*values)), undefined
