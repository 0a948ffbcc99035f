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

__all__ = ["joint", "relaxed_change", "size_only", "total_limits"]


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
    s, t, limits = ctx.session, node.expr, total_limits(ctx, node)

    def violation(n: Any) -> Any:
        change, conditions = relaxed_change(ctx, t, limits, n, ctx.outputs)
        bound, undefined = encode_bound(s, node.bound, n)
        return z3.Or(undefined, z3.And(*conditions, z3.Or(change > bound, -change > bound)))

    s.require(Obligation(node.id, "no change above the bound in the joint encoding", violation, ctx.first(node.lo), node.hi, True))


def total_limits(ctx: Context, node: Node) -> dict[sympy.Basic, tuple[Any, Any]]:
    """Each aggregate of the node's subterm -> ``(lo, hi)`` of its record term (totals: ``data["ranges"]``, checked)."""
    aggregates = sorted(node.expr.atoms(Count, Total, Mean), key=str)
    if any(isinstance(a, Mean) for a in aggregates):
        raise Rejected(node.id, f"rule {node.rule} does not encode a mean")
    ranges = node.data.get("ranges", {})
    if not isinstance(ranges, dict):
        raise Rejected(node.id, "data['ranges'] must map each total's text to [lo, hi]")
    s, a = ctx.session, ctx.encoder("a")
    limits: dict[sympy.Basic, tuple[Any, Any]] = {c: (0, 1) for c in aggregates if isinstance(c, Count)}
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
    return limits


def relaxed_change(ctx: Context, t: sympy.Basic, limits: dict[sympy.Basic, tuple[Any, Any]], n: Any, outputs: dict[Any, Any], tag: str = "") -> tuple[Any, list[Any]]:
    """``(t(D′) − t(D), conditions)`` in the joint relaxation at size ``n`` and ``outputs`` (``tag`` names its rests)."""
    s = ctx.session
    a, b = (ctx.encoder(r) if outputs is ctx.outputs else Encoder(s, {**{k: v for k, v in ctx.encoder(r).env.items() if k not in ctx.outputs}, **outputs}) for r in "ab")
    others = n - 1 if ctx.replace else n
    before: dict[Any, Any] = {Size(): (n, s.boolean(False))}
    after: dict[Any, Any] = {Size(): (n if ctx.replace else n + 1, s.boolean(False))}
    constraints = []
    for index, (aggregate, (lo, hi)) in enumerate(sorted(limits.items(), key=lambda item: str(item[0]))):
        rest = s.integer(f"rest{tag}_{index}") if isinstance(aggregate, Count) else s.real(f"rest{tag}_{index}")
        constraints += [rest >= others * s.num(lo), rest <= others * s.num(hi)]
        (va, ua), (vb, ub) = _term(a, aggregate), _term(b, aggregate)
        if ctx.replace:
            before[aggregate], after[aggregate] = (va + rest, ua), (vb + rest, ub)
        else:
            before[aggregate], after[aggregate] = (rest, s.boolean(False)), (rest + va, ua)
    first, u1 = Encoder(s, {**outputs, **before}).number(t)
    second, u2 = Encoder(s, {**outputs, **after}).number(t)
    return second - first, [*constraints, z3.Not(u1), z3.Not(u2)]


def _term(enc: Encoder, aggregate: sympy.Basic) -> tuple[Any, Any]:
    """A record's contribution to ``aggregate``: a count's 0/1 indicator, a total's term."""
    if isinstance(aggregate, Count):
        cond, undefined = enc.condition(aggregate.args[0])
        return z3.If(cond, enc.s.num(1), enc.s.num(0)), undefined
    return enc.number(aggregate.args[0])
