"""Two sensitivity rules that encode a whole subterm at once: ``size-only`` and ``joint``.

``size-only``: a subterm whose only aggregate is ``size()`` keeps its value
under replace-one, and changes by ``|g(n + 1) − g(n)|`` under add-remove;
the kernel writes ``g`` at ``n`` and ``n + 1`` itself.

``joint``: the subterm is written with every aggregate at once: the changed
record(s) are shared, and the other records' contribution to each aggregate
is an unknown bounded by necessary conditions only — a count's by
``[0, others]``, a total's by ``others · [lo, hi]`` where ``lo <= e(x, r) <=
hi`` is a side condition the kernel checks (``data["ranges"]``, keyed by the
total's text).  No change above the bound in that relaxation means none
between real neighbours.
"""

from __future__ import annotations

from typing import Any

import sympy
import z3

from expmech.spec import Count, Mean, Size, Total

from ._bounds import encode_bound
from ._derivation import Context, Node, at_least
from ._smt import Obligation
from ._terms import Encoder, any_of
from ._verdict import Rejected

__all__ = ["joint", "size_only"]


def _alone(node: Node) -> None:
    if node.premises:
        raise Rejected(node.id, f"rule {node.rule} takes no premises")


def size_only(ctx: Context, node: Node) -> None:
    """``Δ g(size())``: 0 under replace-one, ``|g(n + 1) − g(n)|`` under add-remove."""
    _alone(node)
    atoms = set().union(*(t.atoms(Count, Total, Mean, Size) for t in node.summands))
    if not atoms or any(not isinstance(a, Size) for a in atoms):
        raise Rejected(node.id, "rule size-only needs a subterm whose only aggregate is size()")
    if ctx.replace:
        at_least(ctx, node, [], "0 (the size is kept)")
        return
    s = ctx.session

    def at(n: Any) -> tuple[Any, Any]:
        enc = Encoder(s, {**ctx.outputs, Size(): (n, s.boolean(False))})
        parts = [enc.number(t) for t in node.summands]
        return z3.Sum(*[v for v, _ in parts]), any_of(s, [u for _, u in parts])

    def violation(n: Any) -> Any:
        bound, undefined = encode_bound(s, node.bound, n)
        (before, ub), (after, ua) = at(n), at(n + 1)
        change = after - before
        return z3.Or(undefined, z3.And(z3.Not(ub), z3.Not(ua), z3.Or(change > bound, -change > bound)))

    s.require(Obligation(node.id, "the bound is at least |g(n + 1) − g(n)| for every n of the case", violation, node.lo, node.hi, True))


def joint(ctx: Context, node: Node) -> None:
    """The joint encoding of the subterm (see the module docstring) has no change above the bound."""
    _alone(node)
    if node.args is not None:
        raise Rejected(node.id, "rule joint applies to a whole subterm, not a partial sum")
    t = node.expr
    aggregates = sorted(t.atoms(Count, Total, Mean), key=str)
    if any(isinstance(a, Mean) for a in aggregates):
        raise Rejected(node.id, "rule joint does not encode a mean")
    ranges = node.data.get("ranges", {})
    if not isinstance(ranges, dict):
        raise Rejected(node.id, "data['ranges'] must map each total's text to [lo, hi]")
    s, a, b = ctx.session, ctx.encoder("a"), ctx.encoder("b")
    limits = {}
    for index, aggregate in enumerate(aggregates):
        if isinstance(aggregate, Total):
            pair = ranges.get(str(aggregate))
            if not isinstance(pair, list) or len(pair) != 2:
                raise Rejected(node.id, f"data['ranges'] has no [lo, hi] for {aggregate}")
            lo, hi = (node.rational_text(v, f"ranges[{str(aggregate)!r}]") for v in pair)
            limits[aggregate] = (lo, hi)
            body = aggregate.args[0]

            def outside(_n: Any, body: sympy.Basic = body, lo: Any = lo, hi: Any = hi) -> Any:
                value, undefined = a.number(body)
                return z3.And(z3.Not(undefined), z3.Or(value < s.num(lo), value > s.num(hi)))

            ctx.session.require(Obligation(node.id, f"{lo} <= {body} <= {hi} on every record", outside, 0, None, False), ("range", body, lo, hi))

    def term(enc: Encoder, aggregate: sympy.Basic) -> tuple[Any, Any]:
        if isinstance(aggregate, Count):
            cond, undefined = enc.condition(aggregate.args[0])
            return z3.If(cond, s.num(1), s.num(0)), undefined
        return enc.number(aggregate.args[0])

    def violation(n: Any) -> Any:
        others = n - 1 if ctx.replace else n
        before: dict[Any, Any] = {Size(): (n, s.boolean(False))}
        after: dict[Any, Any] = {Size(): (n if ctx.replace else n + 1, s.boolean(False))}
        constraints = []
        for index, aggregate in enumerate(aggregates):
            if isinstance(aggregate, Count):
                rest = s.integer(f"rest_{index}")
                constraints += [rest >= 0, rest <= others]
            else:
                rest = s.real(f"rest_{index}")
                lo, hi = limits[aggregate]
                constraints += [rest >= others * s.num(lo), rest <= others * s.num(hi)]
            va, ua = term(a, aggregate)
            if ctx.replace:
                vb, ub = term(b, aggregate)
                before[aggregate], after[aggregate] = (va + rest, ua), (vb + rest, ub)
            else:
                before[aggregate], after[aggregate] = (rest, s.boolean(False)), (rest + va, ua)
        first, u1 = Encoder(s, {**ctx.outputs, **before}).number(t)
        second, u2 = Encoder(s, {**ctx.outputs, **after}).number(t)
        bound, undefined = encode_bound(s, node.bound, n)
        change = second - first
        return z3.Or(undefined, z3.And(*constraints, z3.Not(u1), z3.Not(u2), z3.Or(change > bound, -change > bound)))

    s.require(Obligation(node.id, "no change above the bound in the joint encoding", violation, ctx.first(node.lo), node.hi, True))
