"""``range-sensitivity``: a bound B on ``max_y d(y) − min_y d(y)``, ``d(y) = q(D, y) − q(D′, y)``, by ``range-direct``
(the joint relaxation at two outputs shows no spread above B), ``range-double`` (``B >= 2·Δq``, a sensitivity
derivation its premise) or ``range-monotone`` (``B >= Δq`` with a monotonicity derivation of the relation).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ._context import Context, Node, Rejected, Rule, at_least, read_node
from ._encode import Encoder
from ._formula import FALSE, conj, disj, plus, neg, var
from ._sensitivity import SENSITIVITY_RULES, check_sensitivity

__all__ = ["RANGE_RULES", "check_range"]


def _root(ctx: Context, node: Node) -> None:
    if node.path or node.args is not None or node.premises:
        raise Rejected(node.id, f"rule {node.rule} is the root (term []); its premises are read by their own claims' rules")


def direct(ctx: Context, node: Node) -> None:
    """No neighbouring pair of the two-output joint relaxation has a spread above the bound."""
    _root(ctx, node)
    from ._joint import relaxed_change, total_limits  # loaded by the rules that need it

    limits = total_limits(ctx, node)
    second = ctx.declare("out2", ctx.quality.outputs)
    change1, conditions1, rests1 = relaxed_change(ctx, node.term, limits, ctx.outputs)
    change2, conditions2, rests2 = relaxed_change(ctx, node.term, limits, second, "2")
    bound, undefined = Encoder({ctx.n: ("n", var("n"), FALSE)}).number(node.bound)
    ctx.require(node.id, "no spread above the bound in the two-output joint encoding",
                disj(undefined, conj(*conditions1, *conditions2, ("<", bound, plus(change2, neg(change1))))), (ctx.first(node.lo), node.hi), rests1 + rests2)


def _sub_root(ctx: Context, node: Node, raw: Any, rules: Mapping[str, Rule]) -> Node:
    saved, ctx.rules = ctx.rules, rules
    try:
        sub = read_node(ctx, raw)
    finally:
        ctx.rules = saved
    if sub.path or sub.args is not None or sub.hi is not None or ctx.first(sub.lo) > ctx.first(node.lo):
        raise Rejected(node.id, f"premise {sub.id} must be the root (term []) of a derivation covering every n >= {node.lo}")
    return sub


def check_range(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``range-sensitivity``: the root read as a sensitivity root, then a ``range-double``/``range-monotone``
    root's premises under their own claims' rules, and ``B >= 2·Δq`` / ``Δq``."""
    raw = derivation["root"]
    premises = raw.get("premises") if isinstance(raw, Mapping) else None
    if not isinstance(premises, list):
        raise Rejected(None, "the root must be an object with a list of premises")
    node = check_sensitivity(ctx, {**derivation, "root": {**raw, "premises": []}}, start)
    wanted = {"range-double": 1, "range-monotone": 2}.get(node.rule, 0)
    if len(premises) != wanted:
        raise Rejected(node.id, f"rule {node.rule} takes {wanted} premise(s), not {len(premises)}")
    if wanted:
        sensitivity = _sub_root(ctx, node, premises[0], SENSITIVITY_RULES)
        if wanted == 2:
            from ._monotone import MONOTONE_RULES  # the monotonicity rules, loaded for the certificates that use them

            monotone = _sub_root(ctx, node, premises[1], MONOTONE_RULES)
            if (monotone.rule == "monotone-uniform") != ctx.replace:
                raise Rejected(node.id, "the monotonicity derivation is not one of this neighbour relation")
        at_least(ctx, node, [sensitivity.bound] * (3 - wanted), "the sensitivity's bound " + ("twice" if wanted == 1 else "(q monotone)"))


RANGE_RULES: dict[str, Rule] = {"range-direct": direct, "range-double": _root, "range-monotone": _root}
