"""The verifier's own terms: the quality's expression read from the certificate's JSON, never simplified.

A :class:`Term` is a node of the certificate's tree, in its order (a ``Piecewise`` holds ``pair`` nodes
``(value, condition)``), so a derivation's position ``[1, 0]`` indexes ``args``.  Terms are hash-consed per
:class:`Reader`: equal subtrees are one object.  :func:`evaluate` is the language's semantics in exact
rationals: a Boolean used as a number is 0/1, a number used as a condition is ``!= 0``; ``Piecewise`` takes
its first branch that holds (none: undefined); ``And``/``Or`` stop at the first deciding argument; a negative
power of zero, a mean of no records and an order statistic ``OrderStatistic(h, k)`` but where ``0 <= k < n`` are
undefined (None); ``floor`` rounds down.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from ._numbers import TooLarge, add, mul, power, rational, render_rational

__all__ = ["AGGREGATES", "MAYBE", "Reader", "Term", "aggregates", "evaluate", "render"]

AGGREGATES = frozenset({"Count", "Total", "Mean", "Size", "OrderStatistic"})
_ARITY = {**dict.fromkeys(("Pow", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "OrderStatistic"), (2, 2)),
          **dict.fromkeys(("Abs", "Not", "Count", "Total", "Mean", "log", "floor"), (1, 1)),
          **dict.fromkeys(("Add", "Mul", "Max", "Min", "And", "Or"), (2, None)), "Size": (0, 0), "Piecewise": (1, None)}


class Term:
    """A node: ``op`` (a node name, ``rational``, ``bool``, ``symbol`` or ``pair``), ``args``, a leaf's ``value``."""

    __slots__ = ("op", "args", "value", "aggregate")

    def __init__(self, op: str, args: tuple[Term, ...], value: Any) -> None:
        self.op, self.args, self.value = op, args, value
        self.aggregate: bool = op in AGGREGATES or any(a.aggregate for a in args)  # depends on the dataset

    def __repr__(self) -> str:
        return render(self, 200)


def aggregates(term: Term, found: dict[int, Term] | None = None) -> dict[int, Term]:
    """The aggregates in ``term`` by identity, outermost first (the size in an order statistic's rank too)."""
    found = {} if found is None else found
    if term.op in AGGREGATES:
        found[id(term)] = term
    for arg in term.args:
        aggregates(arg, found)
    return found


class Reader:
    """Reads expression trees into hash-consed terms over ``symbols``, within ``max_nodes`` nodes and ``max_depth`` levels."""

    def __init__(self, symbols: set[str], max_nodes: int = 200_000, max_depth: int = 200) -> None:
        self.symbols, self.max_nodes, self.max_depth, self.nodes = symbols, max_nodes, max_depth, 0
        self._table: dict[tuple[Any, ...], Term] = {}

    def make(self, op: str, args: tuple[Term, ...] = (), value: Any = None) -> Term:
        """The one term ``op(args)`` (``value`` for a leaf)."""
        key = (op, value, tuple(map(id, args)))
        found = self._table.get(key)
        if found is None:
            found = self._table[key] = Term(op, args, value)
        return found

    def read(self, tree: Any, depth: int = 0) -> Term:
        """The term written ``tree``; ValueError naming what is wrong."""
        self.nodes += 1
        if self.nodes > self.max_nodes or depth > self.max_depth:
            raise ValueError(f"the expression has more than {self.max_nodes} nodes or {self.max_depth} levels")
        keys = set(tree) if isinstance(tree, dict) else None
        if keys == {"rational"}:
            try:
                return self.make("rational", (), rational(tree["rational"]))
            except TooLarge as error:
                raise ValueError(str(error)) from None
        if keys == {"bool"} and isinstance(tree["bool"], bool) or keys == {"symbol"} and isinstance(tree["symbol"], str) and tree["symbol"] in self.symbols:
            return self.make(next(iter(keys)), (), tree[next(iter(keys))])
        op, args = (tree.get("node"), tree.get("args")) if keys == {"node", "args"} else (None, None)
        if op not in _ARITY or not isinstance(args, list):
            raise ValueError(f"not an expression node of the language, or an unknown symbol ({str(tree)[:60]})")
        low, high = _ARITY[op]
        if len(args) < low or (high is not None and len(args) > high):
            raise ValueError(f"the node {op} has {len(args)} argument(s)")
        if op == "Piecewise":
            if not all(isinstance(p, list) and len(p) == 2 for p in args):
                raise ValueError("a Piecewise holds [value, condition] pairs")
            return self.make(op, tuple(self.make("pair", (self.read(v, depth + 2), self.read(c, depth + 2))) for v, c in args))
        children = tuple(self.read(a, depth + 1) for a in args)
        if op == "Pow" and (children[1].op != "rational" or children[1].value.denominator != 1 or abs(children[1].value) > 64):
            raise ValueError("a power needs an integer exponent up to ±64")
        return self.make(op, children)


_INFIX = {"Add": (" + ", 1), "Mul": ("*", 2), "Eq": (" == ", 0), "Ne": (" != ", 0), "Lt": (" < ", 0), "Le": (" <= ", 0),
          "Gt": (" > ", 0), "Ge": (" >= ", 0), "And": (" & ", -1), "Or": (" | ", -2)}


def render(term: Term, limit: int = 10**9) -> str:
    """A text of ``term`` (infix, parenthesised where precedence needs it), cut to ``limit`` characters."""
    out: list[str] = []
    room = [limit + 1]

    def put(text: str) -> None:
        out.append(text)
        room[0] -= len(text)

    def walk(t: Term, outer: int) -> None:
        if room[0] <= 0:
            return
        if t.op == "rational":
            text = render_rational(t.value)
            put(f"({text})" if outer > 1 and (t.value < 0 or t.value.denominator != 1) else text)
        elif t.op in ("bool", "symbol"):
            put(str(t.value))
        elif t.op in _INFIX or t.op == "Pow":
            joint, level = _INFIX.get(t.op, ("**", 3))
            put("(" if level < outer else "")
            for i, a in enumerate(t.args):
                put(joint if i else "")
                walk(a, level + 1)
            put(")" if level < outer else "")
        else:
            put("(" if t.op == "pair" else f"{t.op}(")
            for i, a in enumerate(t.args):
                put(", " if i else "")
                walk(a, 0)
            put(")")

    walk(term, 0)
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 1] + "…"


Value = Fraction | bool | None
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {"Eq": lambda a, b: a == b, "Ne": lambda a, b: a != b, "Lt": lambda a, b: a < b,
                                                     "Le": lambda a, b: a <= b, "Gt": lambda a, b: a > b, "Ge": lambda a, b: a >= b}


def _truth(value: Fraction | bool) -> bool:
    return value if isinstance(value, bool) else value != 0


#: a symbol's value left open (every output at once): a term with it is MAYBE unless undefined whatever the value
MAYBE: Any = type("Maybe", (), {"__repr__": lambda self: "MAYBE"})()


def evaluate(term: Term, env: Mapping[str, Fraction], aggregate: Callable[[Term], Value] | None = None) -> Value:
    """The exact value of ``term`` with symbols from ``env`` and aggregates from ``aggregate`` (None: undefined;
    MAYBE where a symbol is MAYBE, except None when undefined at every value of it).

    Raises TooLarge past the verifier's bit limit, KeyError for an unbound symbol or aggregate."""
    op = term.op
    if op in ("rational", "bool"):
        return term.value  # type: ignore[no-any-return]
    if op == "symbol":
        return env[term.value]
    if op in AGGREGATES:
        if aggregate is None:
            raise KeyError(op)
        return aggregate(term)
    if op == "Piecewise":
        for i, pair in enumerate(term.args):
            holds = evaluate(pair.args[1], env, aggregate)
            if holds is MAYBE:  # undefined at every output only if the branch and the rest of the Piecewise are
                rest = evaluate(Term("Piecewise", term.args[i + 1:], None), env, aggregate)
                return None if rest is None and evaluate(pair.args[0], env, aggregate) is None else MAYBE
            if holds is None or _truth(holds):
                return None if holds is None else evaluate(pair.args[0], env, aggregate)
        return None
    if op in ("And", "Or"):
        for arg in term.args:
            value = evaluate(arg, env, aggregate)
            if value is None or value is MAYBE or _truth(value) != (op == "And"):
                return value if value is None or value is MAYBE else _truth(value)
        return op == "And"
    values = [evaluate(a, env, aggregate) for a in term.args]
    if any(v is None for v in values):
        return None
    if any(v is MAYBE for v in values):
        return MAYBE
    if op == "Not":
        return not _truth(values[0])  # type: ignore[arg-type]
    numbers = values if op in ("Eq", "Ne") and all(isinstance(v, bool) for v in values) else [Fraction(int(v)) if isinstance(v, bool) else v for v in values]
    if op in _COMPARE:
        return _COMPARE[op](numbers[0], numbers[1])
    result = Fraction(0 if op == "Add" else 1)
    if op in ("Add", "Mul"):
        for v in numbers:
            result = add(result, v) if op == "Add" else mul(result, v)  # type: ignore[arg-type]
        return result
    if op == "Pow":
        base, k = numbers[0], int(numbers[1])  # type: ignore[arg-type]
        return None if base == 0 and k < 0 else power(base, k)  # type: ignore[arg-type]
    if op == "Abs":
        return abs(numbers[0])  # type: ignore[arg-type, return-value]
    if op == "floor":
        return Fraction(math.floor(numbers[0]))  # type: ignore[arg-type]
    if op in ("Max", "Min"):
        return (max if op == "Max" else min)(numbers)  # type: ignore[type-var]
    raise KeyError(op)  # log: not a value of the language's qualities
