"""The monotonicity rules: each node states the direction in which adding a record moves its subterm.

A node's ``bound`` is its direction ``d`` (1, −1 or 0).  Under add-remove it
claims: for every dataset D (the empty one included), every record x and every
output r at which both are defined, ``d·(t(D + x, r) − t(D, r)) >= 0``
(``d = 0``: no change).  A total's term and a product's data-free factors must
be defined everywhere (part of the rule's query); a count moves by its
predicate's 0 or 1 wherever that is defined.  Under replace-one the one rule is
``monotone-uniform`` at the root (bound 0): every additive term of q that holds
an aggregate is free of the outputs, so a change moves every output alike.
The statements are ``expmech.spec.rule_statement(name)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import sympy
import z3

from expmech.spec import Count, Size, Total

from ._derivation import Context, Node, Rule, read_node
from ._smt import Obligation
from ._terms import any_of, has_aggregate
from ._verdict import Rejected, RuleInfo

__all__ = ["MONOTONE_RULES", "MONOTONE_TABLE", "check_monotone", "never"]


def _direction(node: Node) -> int:
    bound = node.bound
    if bound[0] != "num" or bound[1] not in (-1, 0, 1):
        raise Rejected(node.id, "a monotonicity node's bound is its direction: 1, -1 or 0")
    return int(bound[1])


def _premises(node: Node, steps: Sequence[tuple[int, ...]]) -> list[int]:
    """The premises' directions; Rejected unless there is one premise per data part, at ``steps``, in order."""
    if node.args is not None:
        raise Rejected(node.id, "a monotonicity node is about a whole subterm, not a partial sum")
    found = [p.path for p in node.premises]
    wanted = [node.path + step for step in steps]
    if found != wanted or any(p.args is not None for p in node.premises):
        raise Rejected(node.id, f"the premises must be the data parts at {[list(w) for w in wanted]}, not {[list(f) for f in found]}")
    return [_direction(p) for p in node.premises]


def _agrees(node: Node, d: int, parts: list[int]) -> None:
    """A part moving by ``p`` moves the whole by ``d`` only when ``p`` is 0 or ``d``."""
    for premise, p in zip(node.premises, parts):
        if p not in (0, d):
            raise Rejected(node.id, f"premise {premise.id} moves with direction {p}, not {d}")


def never(ctx: Context, node: Node, what: str, violation: Any) -> None:
    """Queue the side condition that ``violation`` (a formula free of n) is unsatisfiable."""
    ctx.session.require(Obligation(node.id, what, lambda _n: violation, 0, None, False))


def data_free(ctx: Context, node: Node) -> None:
    """A subterm without aggregates does not move (any direction holds)."""
    _direction(node)
    _premises(node, [])
    if has_aggregate(node.expr):
        raise Rejected(node.id, "the subterm depends on the data")


def counting(ctx: Context, node: Node) -> None:
    """``count`` and ``size`` never decrease when a record is added."""
    _premises(node, [])
    if not isinstance(node.expr, Count | Size) or _direction(node) != 1:
        raise Rejected(node.id, "monotone-count applies to a count or the size, with direction 1")


def total(ctx: Context, node: Node) -> None:
    """``total(f)`` moves with the sign of f, confirmed over every record and output by the kernel's query."""
    _premises(node, [])
    if not isinstance(node.expr, Total):
        raise Rejected(node.id, f"monotone-total applies to a total, not to {type(node.expr).__name__}")
    d = _direction(node)
    value, undefined = ctx.encoder("a").number(node.expr.args[0])
    wrong = value != 0 if d == 0 else value < 0 if d == 1 else value > 0
    never(ctx, node, f"the record term {node.expr.args[0]} is defined and {('zero', 'non-negative', 'non-positive')[d]} everywhere", z3.Or(undefined, wrong))


def combine(ctx: Context, node: Node) -> None:
    """A sum, ``Max`` or ``Min`` of parts moving the same way (or not at all) moves that way."""
    if not isinstance(node.expr, sympy.Add | sympy.Max | sympy.Min):
        raise Rejected(node.id, f"monotone-combine applies to a sum, Max or Min, not to {type(node.expr).__name__}")
    _agrees(node, _direction(node), _premises(node, [(i,) for i, a in enumerate(node.expr.args) if has_aggregate(a)]))


def scale(ctx: Context, node: Node) -> None:
    """A product of one data part and data-free factors: the factors' product has the sign the directions need."""
    if not isinstance(node.expr, sympy.Mul):
        raise Rejected(node.id, f"monotone-scale applies to a product, not to {type(node.expr).__name__}")
    data = [(i,) for i, a in enumerate(node.expr.args) if has_aggregate(a)]
    if len(data) != 1:
        raise Rejected(node.id, "monotone-scale needs exactly one factor that depends on the data")
    (p,) = _premises(node, data)
    d = _direction(node)
    if p == 0:
        return
    enc = ctx.encoder("a")
    factors = [enc.number(a) for i, a in enumerate(node.expr.args) if (i,) != data[0]]
    c = z3.Product(*[v for v, _ in factors]) if len(factors) > 1 else factors[0][0]
    wrong = c != 0 if d == 0 else c < 0 if d == p else c > 0
    need = "zero" if d == 0 else "non-negative" if d == p else "non-positive"
    never(ctx, node, f"the data-free factor is defined and {need} at every output", z3.Or(any_of(ctx.session, [u for _, u in factors]), wrong))


def piecewise(ctx: Context, node: Node) -> None:
    """A ``Piecewise`` with data-free conditions moves as its branches that hold data."""
    if not isinstance(node.expr, sympy.Piecewise):
        raise Rejected(node.id, f"monotone-piecewise applies to a Piecewise, not to {type(node.expr).__name__}")
    for pair in node.expr.args:
        if has_aggregate(pair.args[1]):
            raise Rejected(node.id, f"the condition {pair.args[1]} depends on the data")
    _agrees(node, _direction(node), _premises(node, [(i, 0) for i, pair in enumerate(node.expr.args) if has_aggregate(pair.args[0])]))


def uniform(ctx: Context, node: Node) -> None:
    """Replace-one: every additive term of q holding an aggregate is free of the outputs (q = u(D) + v(r))."""
    if not ctx.replace or node.path or node.args is not None or _direction(node) != 0:
        raise Rejected(node.id, "monotone-uniform is the root of a replace-one derivation, with bound 0")
    _premises(node, [])
    outputs = set(ctx.quality.output_space.symbols)
    for term in sympy.Add.make_args(node.expr):
        if has_aggregate(term) and term.free_symbols & outputs:
            raise Rejected(node.id, f"the term {str(term)[:80]} depends on both the data and the outputs")


def check_monotone(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``monotonicity``: the root covers q and every n (from 0 under add-remove), its bound is the claim's."""
    if start != (1 if ctx.replace else 0):
        raise Rejected(None, f"start={start}: a monotonicity claim covers every n >= {1 if ctx.replace else 0}")
    root = read_node(ctx, derivation["root"])
    if root.path or root.args is not None or root.hi is not None or root.lo > start:
        raise Rejected(root.id, "the root must be about the whole quality function (term []) at every n")
    if (root.rule == "monotone-uniform") != ctx.replace:
        raise Rejected(root.id, "under replace-one the root is monotone-uniform; under add-remove it is not")
    if derivation["bound"] != root.bound_json:
        raise Rejected(root.id, "the derivation's bound is not the root's direction")
    ctx.session.discharge()


#: rule name -> the function checking it
MONOTONE_RULES: dict[str, Rule] = {
    "monotone-data-free": data_free,
    "monotone-count": counting,
    "monotone-total": total,
    "monotone-combine": combine,
    "monotone-scale": scale,
    "monotone-piecewise": piecewise,
    "monotone-uniform": uniform,
}

#: rule name -> (claim, statement name, one-line statement)
MONOTONE_TABLE: dict[str, RuleInfo] = {
    name: RuleInfo("monotonicity", name, text)
    for name, text in {
        "monotone-data-free": "a subterm without aggregates does not move",
        "monotone-count": "count and size never decrease when a record is added",
        "monotone-total": "total(f) moves with the sign of f, when f has one sign over every record and output",
        "monotone-combine": "a sum, Max or Min of parts moving the same way moves that way",
        "monotone-scale": "a data-free factor of constant sign keeps (>= 0) or flips (<= 0) the direction",
        "monotone-piecewise": "a Piecewise with data-free conditions moves as its branches",
        "monotone-uniform": "replace-one: data only in terms free of r move every output alike",
    }.items()
}
