"""Posterior sampling: ``likelihood-ratio`` (``ratio-clipped``: ℓ defined and > 0, and ``ℓ(x, θ) <= ρ·ℓ(x′, θ)``, or
``1/ρ <= ℓ <= ρ`` under add-remove; the claim's bound ``ln c`` with ``c >= ρ``) and ``posterior-range`` (``e^Δ̂ >= c²``,
or ``e^Δ̂ >= R``, R the largest ``max_θ r / min_θ r`` of the likelihood ratios over every record and θ of positive μ).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ._privacy import log_argument, premise_of, rational_bound, root_of
from ._context import Context, Node, Rejected, Rule, read_node
from ._formula import conj, disj, k, times
from ._numbers import TooLarge, exp_compare, rational, render_rational
from ._split import finite_values
from ._terms import Term, evaluate
from ._values import same_value

__all__ = ["RATIO_RULES", "check_posterior_range", "check_ratio", "ratio_witness"]

LIMIT = 200_000  # (record, record, θ) evaluations of range-enumerate


def clipped(ctx: Context, node: Node) -> None:
    """ℓ > 0 everywhere, and every ratio of likelihoods (or ℓ and 1/ℓ under add-remove) at most the node's ρ."""
    if node.path or node.args is not None or node.premises or node.bound.op != "rational":
        raise Rejected(node.id, "ratio-clipped is the root (term []), without premises, and its bound a rational ρ")
    rho = k(node.bound.value)
    a, ua = ctx.encoder("a").number(ctx.quality.expr)
    ctx.require(node.id, "the likelihood is defined and > 0 on every record and θ", disj(ua, ("<=", a, k(0))))
    if ctx.replace:
        b, ub = ctx.encoder("b").number(ctx.quality.expr)
        ctx.require(node.id, f"ℓ(x, θ) <= {node.bound.value}·ℓ(x′, θ)", conj(("not", ua), ("not", ub), ("<", times(rho, b), a)))
    else:
        ctx.require(node.id, f"1/{node.bound.value} <= ℓ(x, θ) <= {node.bound.value}", conj(("not", ua), disj(("<", rho, a), ("<", times(a, rho), k(1)))))


def check_ratio(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``likelihood-ratio``: every n (the empty dataset included under add-remove), bound ``ln c``, ``c >= ρ``."""
    if start != (1 if ctx.replace else 0):
        raise Rejected(None, f"start={start}: a likelihood-ratio claim covers every n >= {1 if ctx.replace else 0}")
    root = read_node(ctx, derivation["root"])
    if root.lo > start or root.hi is not None:
        raise Rejected(root.id, "the root must cover every n")
    c = log_argument(derivation["bound"])
    if c is None or c < root.bound.value:
        raise Rejected(root.id, f"the claim's bound must be ln c with c >= the root's ρ = {root.bound.value}")


def check_posterior_range(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``posterior-range``: ``e^Δ̂`` at least ``c²`` or the enumerated R."""
    node, rule, data = root_of(ctx, derivation, ("range-enumerate", "range-ratio-double"))
    spread = rational_bound(node, derivation["bound"], "Δ̂")
    if start != (1 if ctx.replace else 0):
        raise Rejected(node, f"start={start}: a posterior's range claim covers every n >= {1 if ctx.replace else 0}")
    if rule == "range-ratio-double":
        c = log_argument(premise_of(ctx, "likelihood-ratio", node, start)["bound"])
        target = None if c is None else c * c
    else:
        target = _enumerate(ctx, node, data.get("outputs"))
    try:
        sign = None if target is None else exp_compare(spread, target)
    except TooLarge as error:
        raise Rejected(node, str(error)) from None
    if sign is None or sign < 0:
        raise Rejected(node, f"could not confirm e^Δ̂ >= {target} (Δ̂ = {spread})")


def _enumerate(ctx: Context, node: str, text: Any) -> Fraction:
    """R (see the module docstring); ``data["outputs"]`` must list exactly the θ of positive μ."""
    quality, rng = ctx.quality, ctx.range
    if rng is None or rng.kind != "finite":
        raise Rejected(node, "range-enumerate needs a finite range of θ")
    thetas = [theta for theta, weight in zip(rng.outputs, rng.weights) if weight > 0]
    written = [[render_rational(theta[name]) for name, _ in quality.outputs] for theta in thetas]
    try:
        listed = json.loads(text) if isinstance(text, str) and len(text) <= 1_000_000 else None
    except ValueError:
        listed = None
    if listed != written:
        raise Rejected(node, "data['outputs'] must list the θ of positive μ, in the range's order")
    codes = [finite_values(domain.var(name)) for name, domain in quality.fields]
    if any(values is None for values in codes):
        raise Rejected(node, "range-enumerate needs finite record fields")
    records = [dict(zip([n for n, _ in quality.fields], combo)) for combo in itertools.islice(itertools.product(*codes), LIMIT + 1)]  # type: ignore[arg-type]
    if len(records) * (len(records) if ctx.replace else 1) * len(thetas) > LIMIT:
        raise Rejected(node, f"more than {LIMIT} (record, record, θ) evaluations")
    try:
        table = [[evaluate(quality.expr, {**record, **theta}) for theta in thetas] for record in records]
    except TooLarge as error:
        raise Rejected(node, str(error)) from None
    if any(value is None or isinstance(value, bool) or value <= 0 for row in table for value in row):
        raise Rejected(node, "the likelihood is undefined or not > 0 somewhere: the range is unbounded")
    best = Fraction(1)
    for row in table:
        for other in table if ctx.replace else [None]:
            ratios = row if other is None else [a / b for a, b in zip(row, other)]  # type: ignore[operator]
            best = max(best, max(ratios) / min(ratios))  # type: ignore[type-var, operator, assignment]
    return best


RATIO_RULES: dict[str, Rule] = {"ratio-clipped": clipped}


def ratio_witness(run: Any, claim: dict[str, Any], derivation: Mapping[str, Any], bound: Term) -> None:
    """A posterior's tight ratio: the witness's likelihood ratio (add-remove: ℓ or 1/ℓ) is ρ, and the bound ln ρ."""
    quality, witness, rho = run.statement.quality, claim.get("ratio_witness"), derivation["root"]["bound"]
    if not isinstance(witness, dict) or witness.get("ratio") != claim.get("ratio") or {"rational": claim.get("ratio")} != rho:
        raise Rejected(None, "tight without a ratio witness attaining the root's ρ")
    theta = quality.output(witness.get("output"), "ratio_witness.output")
    first = evaluate(quality.expr, {**quality.record(witness.get("record1"), "record1"), **theta})
    second = evaluate(quality.expr, {**quality.record(witness["record2"], "record2"), **theta}) if witness.get("record2") is not None else Fraction(1)
    if not isinstance(first, Fraction) or not isinstance(second, Fraction) or first <= 0 or second <= 0:
        raise Rejected(None, "the ratio witness's likelihoods are not defined and > 0")
    if (rational(witness["ratio"], "ratio_witness.ratio") if isinstance(witness["ratio"], str) else None) not in (first / second, second / first) or not same_value(bound, run.values.make("log", (run.values.read(rho),)), run.values):
        raise Rejected(None, "the ratio witness does not re-evaluate to ρ, or the bound is not ln ρ")
