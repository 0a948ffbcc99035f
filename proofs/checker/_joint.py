"""``joint`` (and ``range-direct``): the changed records shared, the other records' share of each
aggregate an unknown bounded by necessary conditions only — a count's in ``[0, others]``, a total's in
``others·[lo, hi]`` with ``lo <= e(x, r) <= hi`` a side condition (``data["ranges"]``, keyed by the total's text).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ._context import Context, Node, Rejected
from ._encode import Encoder
from ._formula import FALSE, Var, conj, disj, ite, k, neg, plus, times, var
from ._numbers import TooLarge, rational
from ._terms import Term, aggregates, render

__all__ = ["joint", "relaxed_change", "total_limits"]


def _alone(node: Node) -> None:
    if node.premises:
        raise Rejected(node.id, f"rule {node.rule} takes no premises")


def total_limits(ctx: Context, node: Node) -> list[tuple[Term, Fraction, Fraction]]:
    """Each count and total of the node's subterm with ``(lo, hi)`` of its record term, in text order (totals:
    ``data["ranges"]``, each a side condition)."""
    found = sorted((a for a in aggregates(node.term).values() if a.op != "Size"), key=render)
    if any(a.op in ("Mean", "OrderStatistic") for a in found):
        raise Rejected(node.id, f"rule {node.rule} does not encode a mean or an order statistic")
    ranges = node.data.get("ranges", {})
    if not isinstance(ranges, dict):
        raise Rejected(node.id, "data['ranges'] must map each total's text to [lo, hi]")
    limits = []
    for aggregate in found:
        if aggregate.op == "Count":
            limits.append((aggregate, Fraction(0), Fraction(1)))
            continue
        pair = ranges.get(render(aggregate))
        if not isinstance(pair, list) or len(pair) != 2:
            raise Rejected(node.id, f"data['ranges'] has no [lo, hi] for {render(aggregate, 80)}")
        try:
            lo, hi = (rational(v, "a range's end") for v in pair)
        except TooLarge as error:
            raise Rejected(node.id, str(error)) from None
        value, undefined = ctx.encoder("a").number(aggregate.args[0])
        ctx.require(node.id, f"{lo} <= {render(aggregate.args[0], 60)} <= {hi} on every record", conj(("not", undefined), disj(("<", value, k(lo)), ("<", k(hi), value))))
        limits.append((aggregate, lo, hi))
    return limits


def relaxed_change(ctx: Context, term: Term, limits: list[tuple[Term, Fraction, Fraction]], outputs: dict[Term, Any], tag: str = "") -> tuple[Any, list[Any], tuple[Var, ...]]:
    """``(t(D′) − t(D), conditions, rest variables)`` in the joint relaxation at size ``n`` and ``outputs``."""
    a, b = (Encoder({**{s: v for s, v in ctx.encoder(r).env.items() if s not in ctx.outputs}, **outputs}) for r in "ab")
    n = var("n")
    others = plus(n, k(-1)) if ctx.replace else n
    size = ctx.quality.reader.make("Size")
    before: dict[Term, Any] = {size: ("n", n, FALSE)}
    after: dict[Term, Any] = {size: ("n", n if ctx.replace else plus(n, k(1)), FALSE)}
    conditions, rests = [], []
    for index, (aggregate, lo, hi) in enumerate(limits):
        name = f"rest{tag}_{index}"
        rests.append(Var(name, aggregate.op == "Count", Fraction(0) if aggregate.op == "Count" else None, None))
        rest = var(name)
        conditions += [("<=", times(others, k(lo)), rest), ("<=", rest, times(others, k(hi)))]
        (va, ua), (vb, ub) = (_term(e, aggregate) for e in (a, b))
        if ctx.replace:
            before[aggregate], after[aggregate] = ("n", plus(va, rest), ua), ("n", plus(vb, rest), ub)
        else:
            before[aggregate], after[aggregate] = ("n", rest, FALSE), ("n", plus(rest, va), ua)
    first, u1 = Encoder({**outputs, **before}).number(term)
    second, u2 = Encoder({**outputs, **after}).number(term)
    return plus(second, neg(first)), [*conditions, ("not", u1), ("not", u2)], tuple(rests)


def _term(enc: Encoder, aggregate: Term) -> tuple[Any, Any]:
    """A record's contribution to ``aggregate``: a count's 0/1 indicator, a total's term."""
    if aggregate.op == "Count":
        cond, undefined = enc.condition(aggregate.args[0])
        return ite(cond, k(1), k(0)), undefined
    return enc.number(aggregate.args[0])


def joint(ctx: Context, node: Node) -> None:
    """The joint encoding of the subterm (see the module docstring) has no change above the bound."""
    _alone(node)
    if node.args is not None:
        raise Rejected(node.id, "rule joint applies to a whole subterm, not a partial sum")
    change, conditions, rests = relaxed_change(ctx, node.term, total_limits(ctx, node), ctx.outputs)
    bound, undefined = Encoder({ctx.n: ("n", var("n"), FALSE)}).number(node.bound)
    ctx.require(node.id, "no change above the bound in the joint encoding",
                disj(undefined, conj(*conditions, disj(("<", bound, change), ("<", bound, neg(change))))), (ctx.first(node.lo), node.hi), rests)
