"""The range-sensitivity rules: a bound B on ``max_y d(y) − min_y d(y)``, ``d(y) = q(D, y) − q(D′, y)``.

The claim ``range-sensitivity`` has one node, at the root (term ``[]``), read
like a sensitivity root (the same cases in n):

* ``range-direct`` — the joint relaxation of :mod:`._joint` written at two
  outputs ``y₁, y₂`` sharing the changed records and ``n``, each with its own
  unknowns for the other records: ``d(y₁) − d(y₂) > B`` has no model;
* ``range-double`` — its one premise is the root node of a sensitivity
  derivation (read with the sensitivity rules, not the range rules):
  ``|d(y)| <= Δq`` for every y, so ``B >= 2·Δq`` at every n of the case;
* ``range-monotone`` — premises: the same, then the root node of a
  monotonicity derivation (every ``d(y)`` of one sign, or all equal under
  replace-one): ``B >= Δq``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import z3

from ._bounds import encode_bound
from ._derivation import Context, Node, Rule, at_least, read_node
from ._joint import relaxed_change, total_limits
from ._monotone import MONOTONE_RULES
from ._sensitivity import SENSITIVITY_RULES
from ._smt import Obligation
from ._verdict import Rejected, RuleInfo

__all__ = ["RANGE_RULES", "RANGE_TABLE", "check_range"]


def _root(ctx: Context, node: Node) -> None:
    if node.path or node.args is not None or node.premises:
        raise Rejected(node.id, f"rule {node.rule} is the root (term []); its premises are read by their own claims' rules")


def direct(ctx: Context, node: Node) -> None:
    """No neighbouring pair of the two-output joint relaxation has a spread above the bound."""
    _root(ctx, node)
    s, limits = ctx.session, total_limits(ctx, node)
    second = {sym: (s.variable(f"out2_{name}", d), s.boolean(False)) for name, sym, d in ctx.quality.output_space.items()}

    def violation(n: Any) -> Any:
        change1, conditions1 = relaxed_change(ctx, node.expr, limits, n, ctx.outputs)
        change2, conditions2 = relaxed_change(ctx, node.expr, limits, n, second, "2")
        bound, undefined = encode_bound(s, node.bound, n)
        return z3.Or(undefined, z3.And(*conditions1, *conditions2, change2 - change1 > bound))

    s.require(Obligation(node.id, "no spread above the bound in the two-output joint encoding", violation, ctx.first(node.lo), node.hi, True))


def _sub_root(ctx: Context, node: Node, raw: Any, rules: dict[str, Rule]) -> Node:
    """``raw`` read as the root node of a derivation with ``rules``, covering every n the node covers."""
    sub = read_node(Context(ctx.quality, ctx.neighbours, ctx.session, rules), raw)
    if sub.path or sub.args is not None or sub.hi is not None or ctx.first(sub.lo) > ctx.first(node.lo):
        raise Rejected(node.id, f"premise {sub.id} must be the root (term []) of a derivation covering every n >= {node.lo}")
    return sub


def check_range(ctx: Context, derivation: Mapping[str, Any], start: int, envelope: Callable[[Context, Mapping[str, Any], int], None]) -> None:
    """The claim ``range-sensitivity``: the root as a sensitivity root is read (``envelope``: cases, bound), then
    a ``range-double``/``range-monotone`` root's premises under their own claims' rules, and ``B >= 2·Δq`` / ``Δq``."""
    raw = derivation["root"]
    premises = raw.get("premises") if isinstance(raw, Mapping) else None
    if not isinstance(premises, list):
        raise Rejected(None, "the root must be an object with a list of premises")
    envelope(ctx, {**derivation, "root": {**raw, "premises": []}}, start)  # the root's own rule checked here
    wanted = {"range-double": 1, "range-monotone": 2}.get(raw.get("rule"), 0)
    if len(premises) != wanted:
        raise Rejected(str(raw.get("id"))[:100], f"rule {str(raw.get('rule'))[:40]} takes {wanted} premise(s), not {len(premises)}")
    if wanted:
        node = read_node(ctx, {**raw, "premises": []})  # no side condition of its own: read again for its case and bound
        sensitivity = _sub_root(ctx, node, premises[0], SENSITIVITY_RULES)
        if wanted == 2:
            monotone = _sub_root(ctx, node, premises[1], MONOTONE_RULES)
            if (monotone.rule == "monotone-uniform") != ctx.replace:
                raise Rejected(node.id, "the monotonicity derivation is not one of this neighbour relation")
        at_least(ctx, node, [sensitivity.bound] * (3 - wanted), "the sensitivity's bound " + ("twice" if wanted == 1 else "(q monotone)"))
    ctx.session.discharge()


#: rule name -> the function checking it (the premises of the roots through Δq are read by :func:`check_range`)
RANGE_RULES: dict[str, Rule] = {"range-direct": direct, "range-double": _root, "range-monotone": _root}

#: rule name -> (claim, statement name, one-line statement)
RANGE_TABLE: dict[str, RuleInfo] = {
    "range-direct": RuleInfo("range-sensitivity", "range-direct", "the two-output joint encoding shows no spread d(y₁) − d(y₂) above B"),
    "range-double": RuleInfo("range-sensitivity", "range-double", "|d(y)| <= Δq for every y, so the spread is at most 2·Δq"),
    "range-monotone": RuleInfo("range-sensitivity", "range-monotone", "q monotone: every d(y) has one sign, so the spread is at most Δq"),
}
