"""Terms of the language written as formulas ``(value, undefined)`` with :func:`~._terms.evaluate`'s semantics: a
Boolean used as a number is 0/1, a number used as a condition ``!= 0``; ``Piecewise`` takes the first branch that holds
(none: undefined); ``And``/``Or`` stop at the first deciding argument; a negative power of zero is undefined;
``floor`` is the formula's ``floor``.  An aggregate has a value only where the caller binds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._formula import FALSE, TRUE, conj, disj, floor, ite, k, neg, plus, times
from ._terms import Term

__all__ = ["Encoder", "Unsupported", "when"]

F = tuple[Any, ...]


class Unsupported(Exception):
    """A construct the verifier does not encode (a rejection, never a guess)."""


def when(cond: F, then: F, other: F) -> F:
    """The Boolean ``if cond then … else …``."""
    if then == other:
        return then
    return disj(conj(cond, then), conj(("not", cond), other))


class Encoder:
    """``(kind, value, undefined)`` of terms over ``env`` (kind ``"n"`` a number, ``"b"`` a condition); memoised."""

    def __init__(self, env: Mapping[Term, tuple[str, F, F]]) -> None:
        self.env = dict(env)
        self._memo: dict[int, tuple[str, F, F]] = {}

    def number(self, term: Term) -> tuple[F, F]:
        """``term`` as an arithmetic term, with its undefinedness."""
        kind, value, undefined = self.pair(term)
        return (ite(value, k(1), k(0)) if kind == "b" else value), undefined

    def condition(self, term: Term) -> tuple[F, F]:
        """``term`` as a condition, with its undefinedness."""
        kind, value, undefined = self.pair(term)
        return (value if kind == "b" else ("not", ("=", value, k(0)))), undefined

    def pair(self, term: Term) -> tuple[str, F, F]:
        """``(kind, value, undefined)`` as the node gives it."""
        if term in self.env:
            return self.env[term]
        found = self._memo.get(id(term))
        if found is None:
            found = self._memo[id(term)] = self._encode(term)
        return found

    def _encode(self, t: Term) -> tuple[str, F, F]:
        op = t.op
        if op == "rational":
            return "n", k(t.value), FALSE
        if op == "bool":
            return "b", TRUE if t.value else FALSE, FALSE
        if op == "Piecewise":
            branches = [(self.number(p.args[0]), self.condition(p.args[1])) for p in t.args]
            value, undefined = branches[-1][0][0], TRUE  # no branch applies: undefined
            for (val, val_u), (cond, cond_u) in reversed(branches):
                undefined = disj(cond_u, when(cond, val_u, undefined))
            for (val, _), (cond, _) in reversed(branches[:-1]):
                value = ite(cond, val, value)
            return "n", value, undefined
        if op in ("And", "Or"):
            parts = [self.condition(a) for a in t.args]
            undefined = FALSE
            for value, part_u in reversed(parts):
                stop = ("not", value) if op == "And" else value
                undefined = disj(part_u, conj(("not", stop), undefined))
            values = [v for v, _ in parts]
            return "b", conj(*values) if op == "And" else disj(*values), undefined
        if op == "Not":
            value, undefined = self.condition(t.args[0])
            return "b", ("not", value), undefined
        if op in ("Eq", "Ne"):
            (lk, left, lu), (rk, right, ru) = self.pair(t.args[0]), self.pair(t.args[1])
            if lk == rk == "b":
                same = when(left, right, ("not", right))
            else:
                same = ("=", self.number(t.args[0])[0], self.number(t.args[1])[0])
            return "b", same if op == "Eq" else ("not", same), disj(lu, ru)
        if op not in ("Add", "Mul", "Pow", "Abs", "Max", "Min", "Lt", "Le", "Gt", "Ge", "floor"):
            raise Unsupported(f"{op} has no value here" if op == "symbol" or t.aggregate else f"a node {op} outside the language")
        parts = [self.number(a) for a in t.args]
        values = [v for v, _ in parts]
        undefined = disj(*[u for _, u in parts])
        if op == "Add":
            return "n", plus(*values), undefined
        if op == "Mul":
            return "n", times(*values), undefined
        if op == "Pow":
            power = int(t.args[1].value)
            product = times(*([values[0]] * abs(power))) if power else k(1)
            if power >= 0:
                return "n", product, undefined
            return "n", ("inv", product), disj(undefined, ("=", values[0], k(0)))
        if op == "Abs":
            return "n", ite(("<=", k(0), values[0]), values[0], neg(values[0])), undefined
        if op == "floor":
            return "n", floor(values[0]), undefined
        if op in ("Max", "Min"):
            result = values[0]
            for other in values[1:]:
                result = ite(("<", result, other) if op == "Max" else ("<", other, result), other, result)
            return "n", result, undefined
        a, b = values
        return "b", {"Lt": ("<", a, b), "Le": ("<=", a, b), "Gt": ("<", b, a), "Ge": ("<=", b, a)}[op], undefined
