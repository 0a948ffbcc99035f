"""The range-sensitivity rules: a bound B on ``max_y d(y) − min_y d(y)``, ``d(y) = q(D, y) − q(D′, y)``.

The claim ``range-sensitivity`` has one node, at the root (term ``[]``), read
like a sensitivity root (the same cases in n):

* ``range-direct`` — the joint relaxation of :mod:`._joint` written at two
  outputs ``y₁, y₂`` sharing the changed records and ``n``, each with its own
  unknowns for the other records: ``d(y₁) − d(y₂) > B`` has no model;
* ``range-double`` — ``data["sensitivity"]`` is the root node of a
  sensitivity derivation (read with the sensitivity rules): ``|d(y)| <= Δq``
  for every y, so ``B >= 2·Δq`` at every n of the case;
* ``range-monotone`` — the same with ``data["monotonicity"]``, the root node of
  a monotonicity derivation (every ``d(y)`` of one sign, or all equal under
  replace-one): ``B >= Δq``.
"""

from __future__ import annotations

from typing import Any

import z3

from ._bounds import encode_bound
from ._derivation import Context, Node, Rule, at_least, read_node
from ._joint import relaxed_change, total_limits
from ._monotone import MONOTONE_RULES
from ._sensitivity import SENSITIVITY_RULES
from ._smt import Obligation
from ._verdict import Rejected, RuleInfo

__all__ = ["RANGE_RULES", "RANGE_TABLE"]


def _root(node: Node) -> None:
    if node.path or node.args is not None or node.premises:
        raise Rejected(node.id, f"rule {node.rule} is the root (term []) and takes no premises")


def direct(ctx: Context, node: Node) -> None:
    """No neighbouring pair of the two-output joint relaxation has a spread above the bound."""
    _root(node)
    s, limits = ctx.session, total_limits(ctx, node)
    second = {sym: (s.variable(f"out2_{name}", d), s.boolean(False)) for name, sym, d in ctx.quality.output_space.items()}

    def violation(n: Any) -> Any:
        change1, conditions1 = relaxed_change(ctx, node.expr, limits, n, ctx.outputs)
        change2, conditions2 = relaxed_change(ctx, node.expr, limits, n, second, "2")
        bound, undefined = encode_bound(s, node.bound, n)
        return z3.Or(undefined, z3.And(*conditions1, *conditions2, change2 - change1 > bound))

    s.require(Obligation(node.id, "no spread above the bound in the two-output joint encoding", violation, ctx.first(node.lo), node.hi, True))


def _sub_root(ctx: Context, node: Node, key: str, rules: dict[str, Rule]) -> Node:
    """``data[key]`` read as the root node of a derivation with ``rules``, covering every n the node covers."""
    sub = read_node(Context(ctx.quality, ctx.neighbours, ctx.session, rules), node.data.get(key))
    if sub.path or sub.args is not None or sub.hi is not None or ctx.first(sub.lo) > ctx.first(node.lo):
        raise Rejected(node.id, f"data[{key!r}] must be the root (term []) of a derivation covering every n >= {node.lo}")
    return sub


def through_sensitivity(ctx: Context, node: Node) -> None:
    """``B >= 2·Δq`` (``range-double``) or ``B >= Δq`` with q monotone (``range-monotone``), at every n of the case."""
    _root(node)
    sensitivity = _sub_root(ctx, node, "sensitivity", SENSITIVITY_RULES)
    if node.rule == "range-double":
        at_least(ctx, node, [sensitivity.bound, sensitivity.bound], "twice the sensitivity's bound")
        return
    monotone = _sub_root(ctx, node, "monotonicity", MONOTONE_RULES)
    if (monotone.rule == "monotone-uniform") != ctx.replace:
        raise Rejected(node.id, "the monotonicity derivation is not one of this neighbour relation")
    at_least(ctx, node, [sensitivity.bound], "the sensitivity's bound (q monotone)")


#: rule name -> the function checking it
RANGE_RULES: dict[str, Rule] = {"range-direct": direct, "range-double": through_sensitivity, "range-monotone": through_sensitivity}

#: rule name -> (claim, statement name, one-line statement)
RANGE_TABLE: dict[str, RuleInfo] = {
    "range-direct": RuleInfo("range-sensitivity", "range-direct", "the two-output joint encoding shows no spread d(y₁) − d(y₂) above B"),
    "range-double": RuleInfo("range-sensitivity", "range-double", "|d(y)| <= Δq for every y, so the spread is at most 2·Δq"),
    "range-monotone": RuleInfo("range-sensitivity", "range-monotone", "q monotone: every d(y) has one sign, so the spread is at most Δq"),
}
