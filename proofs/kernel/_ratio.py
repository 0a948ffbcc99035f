"""The likelihood-ratio rule: ``Δq <= ln c`` for ``q(D, θ) = Σ_{x ∈ D} ln ℓ(x, θ)`` (a LogLikelihood).

The claim ``likelihood-ratio`` has one node, the root, of rule ``ratio-clipped``
whose bound is the ratio ``ρ`` (a rational); the claim's bound is ``ln c`` (the
tree ``log(c)``, or ``0`` for ``c = 1``) with ``c >= ρ``.  The kernel confirms
with its own queries over every record and θ that ℓ is defined and ``> 0``, and

* replace-one: ``ℓ(x, θ) <= ρ·ℓ(x′, θ)`` — the change ``ln ℓ(x) − ln ℓ(x′)``;
* add-remove: ``1/ρ <= ℓ(x, θ) <= ρ`` — the change ``± ln ℓ(x)``, the pair
  (∅, {x}) included (the empty sum is 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import z3

from expmech.spec import rational_from_text

from ._derivation import Context, Node, Rule, read_node
from ._monotone import never
from ._verdict import Rejected, RuleInfo

__all__ = ["RATIO_RULES", "RATIO_TABLE", "check_ratio"]


def clipped(ctx: Context, node: Node) -> None:
    """ℓ > 0 everywhere, and every ratio of likelihoods (or ℓ and 1/ℓ under add-remove) at most the node's ρ."""
    if node.path or node.args is not None or node.premises or node.bound[0] != "num":
        raise Rejected(node.id, "ratio-clipped is the root (term []), without premises, and its bound a rational ρ")
    s, rho = ctx.session, ctx.session.num(node.bound[1])
    a, ua = ctx.encoder("a").number(ctx.quality.expr)
    never(ctx, node, "the likelihood is defined and > 0 on every record and θ", z3.Or(ua, a <= 0))
    if ctx.replace:
        b, ub = ctx.encoder("b").number(ctx.quality.expr)
        never(ctx, node, f"ℓ(x, θ) <= {node.bound[1]}·ℓ(x′, θ)", z3.And(z3.Not(ua), z3.Not(ub), a > rho * b))
    else:
        never(ctx, node, f"1/{node.bound[1]} <= ℓ(x, θ) <= {node.bound[1]}", z3.And(z3.Not(ua), z3.Or(a > rho, a * rho < s.num(1))))


def _log_argument(tree: Any) -> Fraction | None:
    """``c`` for the tree of ``log(c)`` (``1`` for the tree ``0``), else None."""
    if tree == {"rational": "0"}:
        return Fraction(1)
    if isinstance(tree, Mapping) and set(tree) == {"node", "args"} and tree["node"] == "log" and isinstance(tree["args"], list) and len(tree["args"]) == 1:
        inner = tree["args"][0]
        if isinstance(inner, Mapping) and set(inner) == {"rational"}:
            return rational_from_text(inner["rational"], name="rational")
    return None


def check_ratio(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``likelihood-ratio``: every n (the empty dataset included under add-remove), bound ``ln c``, ``c >= ρ``."""
    if start != (1 if ctx.replace else 0):
        raise Rejected(None, f"start={start}: a likelihood-ratio claim covers every n >= {1 if ctx.replace else 0}")
    root = read_node(ctx, derivation["root"])
    if root.lo > start or root.hi is not None:
        raise Rejected(root.id, "the root must cover every n")
    c = _log_argument(derivation["bound"])
    if c is None or c < root.bound[1]:
        raise Rejected(root.id, f"the claim's bound must be ln c with c >= the root's ρ = {root.bound[1]}")
    ctx.session.discharge()


#: rule name -> the function checking it
RATIO_RULES: dict[str, Rule] = {"ratio-clipped": clipped}

#: rule name -> (claim, statement name, one-line statement)
RATIO_TABLE: dict[str, RuleInfo] = {
    "ratio-clipped": RuleInfo("likelihood-ratio", "ratio-clipped", "ℓ > 0 and ℓ(x, θ) <= ρ·ℓ(x′, θ) (add-remove: 1/ρ <= ℓ <= ρ) everywhere: Δq <= ln ρ"),
}
