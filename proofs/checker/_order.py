"""The order-statistic rule: the k-th smallest value of a per-record term moves by at most its spread over records."""

from __future__ import annotations

from ._context import Context, Node, at_least
from ._formula import conj, k, neg, plus
from ._sensitivity import number_term, premises_of, whole

__all__ = ["order_statistic"]


def order_statistic(ctx: Context, node: Node) -> None:
    """``Δ OrderStatistic(h, k) <= S``: where defined on D and D′ its values are h at a record of each, at one output
    (any rank k); ``data["spread"]`` = S bounds h(b, r) − h(a, r) over every two records and output (a side condition)."""
    whole(node, ("OrderStatistic",))
    premises_of(node, 0)
    spread = node.rational("spread")
    (ha, ua), (hb, ub) = ctx.encoder("a").number(node.term.args[0]), ctx.encoder("b").number(node.term.args[0])
    ctx.require(node.id, f"two records' terms of the order statistic differ by at most {spread}", conj(("not", ua), ("not", ub), ("<", k(spread), plus(hb, neg(ha)))))
    at_least(ctx, node, [number_term(ctx, spread)], "the spread of the per-record term")
