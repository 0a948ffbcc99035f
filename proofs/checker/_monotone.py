"""The monotonicity rules: a node's bound is the direction d (1, −1, 0) in which adding a record moves its subterm:
``d·(t(D + x, r) − t(D, r)) >= 0`` for every dataset (the empty one too), record and output where both are defined.
Under replace-one the one rule is ``monotone-uniform``: data only in terms free of the outputs moves every output alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ._context import Context, Node, Rejected, Rule, read_node
from ._formula import disj, k, times
from ._terms import Term

__all__ = ["MONOTONE_RULES", "check_monotone"]


def _direction(node: Node) -> int:
    if node.bound.op != "rational" or node.bound.value not in (-1, 0, 1):
        raise Rejected(node.id, "a monotonicity node's bound is its direction: 1, -1 or 0")
    return int(node.bound.value)


def _premises(node: Node, steps: Sequence[tuple[int, ...]]) -> list[int]:
    """The premises' directions; Rejected unless there is one premise per data part, at ``steps``, in order."""
    if node.args is not None:
        raise Rejected(node.id, "a monotonicity node is about a whole subterm, not a partial sum")
    wanted = [node.path + step for step in steps]
    if [p.path for p in node.premises] != wanted or any(p.args is not None for p in node.premises):
        raise Rejected(node.id, f"the premises must be the data parts at {[list(w) for w in wanted]}")
    return [_direction(p) for p in node.premises]


def _agrees(node: Node, d: int, parts: list[int]) -> None:
    for premise, p in zip(node.premises, parts):
        if p not in (0, d):
            raise Rejected(node.id, f"premise {premise.id} moves with direction {p}, not {d}")


def _sign(value: Any, d: int) -> Any:
    """The value is not zero (d = 0), negative (d = 1) or positive (d = −1)."""
    return ("not", ("=", value, k(0))) if d == 0 else ("<", value, k(0)) if d == 1 else ("<", k(0), value)


def data_free(ctx: Context, node: Node) -> None:
    """A subterm without aggregates does not move."""
    _direction(node)
    _premises(node, [])
    if node.term.aggregate:
        raise Rejected(node.id, "the subterm depends on the data")


def counting(ctx: Context, node: Node) -> None:
    """``count`` and ``size`` never decrease when a record is added."""
    _premises(node, [])
    if node.term.op not in ("Count", "Size") or _direction(node) != 1:
        raise Rejected(node.id, "monotone-count applies to a count or the size, with direction 1")


def total(ctx: Context, node: Node) -> None:
    """``total(f)`` moves with the sign of f, a side condition over every record and output."""
    _premises(node, [])
    if node.term.op != "Total":
        raise Rejected(node.id, f"monotone-total applies to a total, not to {node.term.op}")
    d = _direction(node)
    value, undefined = ctx.encoder("a").number(node.term.args[0])
    ctx.require(node.id, f"the record term is defined and {('zero', 'non-negative', 'non-positive')[d]} everywhere", disj(undefined, _sign(value, d)))


def combine(ctx: Context, node: Node) -> None:
    """A sum, ``Max`` or ``Min`` of parts moving the same way (or not at all) moves that way."""
    if node.term.op not in ("Add", "Max", "Min"):
        raise Rejected(node.id, f"monotone-combine applies to a sum, Max or Min, not to {node.term.op}")
    _agrees(node, _direction(node), _premises(node, [(i,) for i, a in enumerate(node.term.args) if a.aggregate]))


def scale(ctx: Context, node: Node) -> None:
    """A product of one data part and data-free factors: the factors' product has the sign the directions need."""
    if node.term.op != "Mul":
        raise Rejected(node.id, f"monotone-scale applies to a product, not to {node.term.op}")
    data = [(i,) for i, a in enumerate(node.term.args) if a.aggregate]
    if len(data) != 1:
        raise Rejected(node.id, "monotone-scale needs exactly one factor that depends on the data")
    (p,) = _premises(node, data)
    d = _direction(node)
    if p == 0:
        return
    enc = ctx.encoder("a")
    factors = [enc.number(a) for i, a in enumerate(node.term.args) if (i,) != data[0]]
    c = times(*[v for v, _ in factors])
    need = "zero" if d == 0 else "non-negative" if d == p else "non-positive"
    ctx.require(node.id, f"the data-free factor is defined and {need} at every output", disj(*[u for _, u in factors], _sign(c, 0 if d == 0 else 1 if d == p else -1)))


def piecewise(ctx: Context, node: Node) -> None:
    """A ``Piecewise`` with data-free conditions moves as its branches that hold data."""
    if node.term.op != "Piecewise":
        raise Rejected(node.id, f"monotone-piecewise applies to a Piecewise, not to {node.term.op}")
    if any(pair.args[1].aggregate for pair in node.term.args):
        raise Rejected(node.id, "a condition depends on the data")
    _agrees(node, _direction(node), _premises(node, [(i, 0) for i, pair in enumerate(node.term.args) if pair.args[0].aggregate]))


def _summands(term: Term) -> tuple[Term, ...]:
    return term.args if term.op == "Add" else (term,)


def _symbols(term: Term, found: set[str]) -> set[str]:
    if term.op == "symbol":
        found.add(term.value)
    for arg in term.args:
        _symbols(arg, found)
    return found


def uniform(ctx: Context, node: Node) -> None:
    """Replace-one: every additive term of q holding an aggregate is free of the outputs (q = u(D) + v(r))."""
    if not ctx.replace or node.path or node.args is not None or _direction(node) != 0:
        raise Rejected(node.id, "monotone-uniform is the root of a replace-one derivation, with bound 0")
    _premises(node, [])
    outputs = {name for name, _ in ctx.quality.outputs}
    for term in _summands(node.term):
        if term.aggregate and _symbols(term, set()) & outputs:
            raise Rejected(node.id, f"the term {term} depends on both the data and the outputs")


def check_monotone(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``monotonicity``: the root covers q and every n (from 0 under add-remove), its bound the claim's."""
    if start != (1 if ctx.replace else 0):
        raise Rejected(None, f"start={start}: a monotonicity claim covers every n >= {1 if ctx.replace else 0}")
    root = read_node(ctx, derivation["root"])
    if root.path or root.args is not None or root.hi is not None or root.lo > start:
        raise Rejected(root.id, "the root must be about the whole quality function (term []) at every n")
    if (root.rule == "monotone-uniform") != ctx.replace:
        raise Rejected(root.id, "under replace-one the root is monotone-uniform; under add-remove it is not")
    if derivation["bound"] != root.bound_json:
        raise Rejected(root.id, "the derivation's bound is not the root's direction")


MONOTONE_RULES: dict[str, Rule] = {"monotone-data-free": data_free, "monotone-count": counting, "monotone-total": total, "monotone-combine": combine,
                                   "monotone-scale": scale, "monotone-piecewise": piecewise, "monotone-uniform": uniform}
