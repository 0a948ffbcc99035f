"""``size-only``: a term of ``size()`` alone keeps its value under replace-one and changes by ``|g(n + 1) − g(n)|``
under add-remove.
"""

from __future__ import annotations

from typing import Any

from ._context import Context, Node, Rejected, at_least
from ._encode import Encoder
from ._formula import FALSE, conj, disj, k, neg, plus, var
from ._terms import Term, aggregates

__all__ = ["size_only"]


def size_only(ctx: Context, node: Node) -> None:
    """``Δ g(size())``: 0 under replace-one, ``|g(n + 1) − g(n)|`` under add-remove."""
    if node.premises:
        raise Rejected(node.id, "rule size-only takes no premises")
    atoms: dict[int, Term] = {}
    for t in node.summands:
        aggregates(t, atoms)
    if not atoms or any(a.op != "Size" for a in atoms.values()):
        raise Rejected(node.id, "rule size-only needs a subterm whose only aggregate is size()")
    if ctx.replace:
        at_least(ctx, node, [], "0 (the size is kept)")
        return
    size = next(iter(atoms.values()))

    def at(n: Any) -> tuple[Any, Any]:
        enc = Encoder({**ctx.outputs, size: ("n", n, FALSE)})
        parts = [enc.number(t) for t in node.summands]
        return plus(*[v for v, _ in parts]), disj(*[u for _, u in parts])

    bound, undefined = Encoder({ctx.n: ("n", var("n"), FALSE)}).number(node.bound)
    (before, ub), (after, ua) = at(var("n")), at(plus(var("n"), k(1)))
    change = plus(after, neg(before))
    ctx.require(node.id, "the bound is at least |g(n + 1) − g(n)| for every n of the case",
                disj(undefined, conj(("not", ub), ("not", ua), disj(("<", bound, change), ("<", bound, neg(change))))), (node.lo, node.hi))
