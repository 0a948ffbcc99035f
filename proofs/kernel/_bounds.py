"""Bounds in the dataset size n: read from their JSON form, evaluated exactly, written to z3.

A bound is the expression tree :func:`expmech.spec.internal.expression_to_json`
writes (never parsed by ``sympify``), over the one symbol ``n``: rationals,
``Add``, ``Mul``, integer ``Pow``, ``Abs``, ``Max``, ``Min``, ``Piecewise`` with
conditions built from ``Eq``/``Ne``/``Lt``/``Le``/``Gt``/``Ge``/``And``/``Or``/
``Not``.  :func:`read_bound` refuses anything else, and trees past
:data:`MAX_NODES` nodes or :data:`MAX_DEPTH` levels, with :class:`ValueError`.

A bound is *undefined* at an ``n`` where it divides by zero or no branch of a
``Piecewise`` applies; :func:`value_at` returns None there, and
:func:`encode_bound` returns the condition with the term.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import z3

from expmech.spec import InvalidArgument, rational_from_text

from ._smt import Session
from ._terms import any_of

__all__ = ["Bound", "encode_bound", "read_bound", "value_at"]

MAX_NODES = 20_000
MAX_DEPTH = 64
MAX_POWER = 64
MAX_BITS = 200_000
_NARY = {"Add", "Mul", "Max", "Min", "And", "Or"}
_BINARY = {"Pow", "Eq", "Ne", "Lt", "Le", "Gt", "Ge"}
_CONDITIONS = {"Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "bool"}

#: ("num", Fraction) | ("n",) | ("bool", bool) | (name, (children...)) | ("Piecewise", ((expr, cond), ...))
Bound = tuple[Any, ...]


def read_bound(tree: Any) -> Bound:
    """The bound written as JSON ``tree``; ValueError naming what is wrong."""
    bound = _read(tree, 0, [MAX_NODES])
    if bound[0] in _CONDITIONS:
        raise ValueError("a bound must be a number, not a condition")
    return bound


def _read(tree: Any, depth: int, budget: list[int]) -> Bound:
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH:
        raise ValueError(f"the bound is larger than {MAX_NODES} nodes or deeper than {MAX_DEPTH} levels")
    if not isinstance(tree, dict):
        raise ValueError(f"a bound node must be an object, not {type(tree).__name__}")
    keys = set(tree)
    if keys == {"rational"}:
        try:
            return ("num", rational_from_text(tree["rational"], name="rational"))
        except (InvalidArgument, ValueError) as error:
            raise ValueError(f"a bad rational in the bound: {error}") from None
    if keys == {"symbol"}:
        if tree["symbol"] != "n":
            raise ValueError(f"a bound may only use the symbol n, not {str(tree['symbol'])[:40]!r}")
        return ("n",)
    if keys == {"bool"} and isinstance(tree["bool"], bool):
        return ("bool", tree["bool"])
    if keys != {"node", "args"} or not isinstance(tree["args"], list):
        raise ValueError(f"a bound node must be {{'node', 'args'}}, a rational, a bool or the symbol n (keys {sorted(map(str, keys))[:5]})")
    name, args = tree["node"], tree["args"]
    if name == "Piecewise":
        if not args or not all(isinstance(p, list) and len(p) == 2 for p in args):
            raise ValueError("a Piecewise bound needs [value, condition] pairs")
        pairs = tuple((_read(v, depth + 1, budget), _read(c, depth + 1, budget)) for v, c in args)
        if any(v[0] in _CONDITIONS or c[0] not in _CONDITIONS for v, c in pairs):
            raise ValueError("a Piecewise bound needs numbers as values and conditions as conditions")
        return ("Piecewise", pairs)
    if not isinstance(name, str) or name not in _NARY | _BINARY | {"Abs", "Not"}:
        raise ValueError(f"the node {str(name)[:40]!r} is not allowed in a bound")
    arity_ok = (len(args) >= 2) if name in _NARY else (len(args) == 2) if name in _BINARY else len(args) == 1
    if not arity_ok:
        raise ValueError(f"the node {name} has {len(args)} argument(s)")
    children = tuple(_read(a, depth + 1, budget) for a in args)
    if name == "Pow" and (children[1][0] != "num" or children[1][1].denominator != 1 or abs(children[1][1]) > MAX_POWER):
        raise ValueError(f"a power in a bound needs an integer exponent up to ±{MAX_POWER}")
    for child in children:
        if (child[0] in _CONDITIONS) != (name in {"And", "Or", "Not"}):
            raise ValueError(f"the node {name} mixes conditions and numbers")
    return (name, children)


def has_n(bound: Bound) -> bool:
    """Whether the bound mentions ``n``."""
    if bound[0] == "n":
        return True
    if bound[0] in ("num", "bool"):
        return False
    if bound[0] == "Piecewise":
        return any(has_n(v) or has_n(c) for v, c in bound[1])
    return any(has_n(c) for c in bound[1])


def value_at(bound: Bound, n: int) -> Any:
    """The exact value (Fraction, or bool for a condition) at ``n``; None where undefined."""
    kind = bound[0]
    if kind in ("num", "bool"):
        return bound[1]
    if kind == "n":
        return Fraction(n)
    if kind == "Piecewise":
        for v, c in bound[1]:
            holds = value_at(c, n)
            if holds is None:
                return None
            if holds:
                return value_at(v, n)
        return None
    if kind in ("And", "Or"):  # lazy, as the evaluator
        for child in bound[1]:
            value = value_at(child, n)
            if value is None or (kind == "And") != bool(value):
                return value
        return kind == "And"
    values = [value_at(c, n) for c in bound[1]]
    if any(v is None for v in values):
        return None
    if kind == "Pow":
        base, k = values[0], int(values[1])
        return None if base == 0 and k < 0 else _sized(Fraction(base) ** k)
    return _sized(_apply(kind, values))


def _sized(value: Any) -> Any:
    """``value``, refused (ValueError) past :data:`MAX_BITS` bits: a hostile bound may not make exact arithmetic explode."""
    if isinstance(value, Fraction) and max(value.numerator.bit_length(), value.denominator.bit_length()) > MAX_BITS:
        raise ValueError(f"a value of the bound has more than {MAX_BITS} bits")
    return value


def _apply(kind: str, values: list[Any]) -> Any:
    if kind == "Add":
        return sum(values, Fraction(0))
    if kind == "Mul":
        product = Fraction(1)
        for v in values:
            product *= v
        return product
    table: dict[str, Any] = {
        "Abs": lambda: abs(values[0]), "Max": lambda: max(values), "Min": lambda: min(values), "Not": lambda: not values[0],
        "Eq": lambda: values[0] == values[1], "Ne": lambda: values[0] != values[1], "Lt": lambda: values[0] < values[1],
        "Le": lambda: values[0] <= values[1], "Gt": lambda: values[0] > values[1], "Ge": lambda: values[0] >= values[1],
    }
    return table[kind]()


def encode_bound(session: Session, bound: Bound, n: Any) -> tuple[Any, Any]:
    """``(value, undefined)`` of the bound in z3 at the real-sorted term ``n``."""
    s, kind = session, bound[0]
    if kind == "num":
        value = bound[1]
        return z3.RealVal(f"{value.numerator}/{value.denominator}", s.ctx), s.boolean(False)
    if kind == "bool":
        return s.boolean(bound[1]), s.boolean(False)
    if kind == "n":
        return n, s.boolean(False)
    if kind == "Piecewise":
        pairs = [(encode_bound(s, v, n), encode_bound(s, c, n)) for v, c in bound[1]]
        value, undefined = pairs[-1][0][0], s.boolean(True)
        for (val, val_u), (cond, cond_u) in reversed(pairs):
            undefined = any_of(s, [cond_u, z3.If(cond, val_u, undefined)])
        for (val, _), (cond, _) in reversed(pairs[:-1]):
            value = z3.If(cond, val, value)
        return value, undefined
    parts = [encode_bound(s, c, n) for c in bound[1]]
    values = [v for v, _ in parts]
    undefined = any_of(s, [u for _, u in parts])
    if kind in ("And", "Or"):
        lazy = s.boolean(False)
        for value, part_u in reversed(parts):
            stop = z3.Not(value) if kind == "And" else value
            lazy = any_of(s, [part_u, z3.And(z3.Not(stop), lazy)])
        return (z3.And(*values) if kind == "And" else z3.Or(*values)), lazy
    if kind == "Pow":
        k = int(bound[1][1][1])
        base = values[0]
        product = z3.Product(*([base] * abs(k))) if abs(k) > 1 else base
        if k >= 0:
            return (product if k else z3.RealVal(1, s.ctx)), undefined
        return 1 / product, any_of(s, [undefined, base == 0])
    if kind == "Add":
        return z3.Sum(*values), undefined
    if kind == "Mul":
        return z3.Product(*values), undefined
    if kind == "Abs":
        return z3.If(values[0] >= 0, values[0], -values[0]), undefined
    if kind in ("Max", "Min"):
        result = values[0]
        for other in values[1:]:
            result = z3.If(other > result, other, result) if kind == "Max" else z3.If(other < result, other, result)
        return result, undefined
    if kind == "Not":
        return z3.Not(values[0]), undefined
    ops = {"Eq": lambda a, b: a == b, "Ne": lambda a, b: a != b, "Lt": lambda a, b: a < b, "Le": lambda a, b: a <= b,
           "Gt": lambda a, b: a > b, "Ge": lambda a, b: a >= b}
    return ops[kind](values[0], values[1]), undefined
