"""``piecewise``: a Piecewise with data-free conditions changes by at most the largest bound of the branches an
output reaching it can take; a branch listed dead is a side condition (no such output takes it).
"""

from __future__ import annotations

from typing import Any

from ._context import Context, Node, Rejected, at_least
from ._formula import conj
from ._sensitivity import child_of, premises_of, whole
from ._terms import Term

__all__ = ["chosen", "piecewise", "reached"]


def chosen(ctx: Context, term: Term, i: int) -> Any:
    """At this output the Piecewise ``term`` takes branch ``i``: every earlier condition defined and false, the ``i``-th true."""
    a, parts = ctx.encoder("a"), []
    for j, pair in enumerate(term.args[: i + 1]):
        value, undefined = a.condition(pair.args[1])
        parts += [("not", undefined), value if j == i else ("not", value)]
    return conj(*parts)


def reached(ctx: Context, path: tuple[int, ...]) -> list[Any]:
    """The outputs at which the evaluator reaches the subterm at ``path``: each enclosing Piecewise chose its branch."""
    term, conditions = ctx.quality.expr, []
    for step_index, step in enumerate(path):
        if term.op == "Piecewise" and path[step_index + 1 : step_index + 2] == (0,):
            conditions.append(chosen(ctx, term, step))
        term = term.args[step]
    return conditions


def piecewise(ctx: Context, node: Node) -> None:
    """A Piecewise with data-free conditions changes by at most its reachable branches' largest bound;
    ``data["dead"]`` lists the branches no output reaching this subterm takes (a side condition)."""
    whole(node, ("Piecewise",))
    pairs = node.term.args
    dead = node.data.get("dead", [])
    if not isinstance(dead, list) or any(type(i) is not int or not 0 <= i < len(pairs) for i in dead) or dead != sorted(set(dead)):
        raise Rejected(node.id, "data['dead'] must be a list of increasing branch indices")
    live = [i for i in range(len(pairs)) if i not in dead]
    premises = premises_of(node, len(live))
    if any(pair.args[1].aggregate for pair in pairs):
        raise Rejected(node.id, "a condition depends on the data")
    for i, premise in zip(live, premises):
        child_of(node, premise, i, 0)
    for i in dead:
        ctx.require(node.id, f"no output reaching this subterm takes branch {i}", conj(*reached(ctx, node.path), chosen(ctx, node.term, i)))
    at_least(ctx, node, [p.bound for p in premises], "every reachable branch's bound", each=True)
