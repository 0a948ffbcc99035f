"""``truthful-posted-price``: q is the revenue ``p·count(b >= p)`` of one bid and one price over finite domains, under
replace-one; every value, report and price is enumerated to confirm ``u(v, v, p) >= 0``, ``u(v, b, p) <= u(v, v, p)``
and ``u(v, v, p) <= B``, ε is the accepted privacy claim's: ``E[u | b] − E[u | v] <= (e^ε − 1)·B``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ._privacy import premise_of, rational_bound, root_of
from ._context import Context, Rejected
from ._split import finite_values
from ._terms import Term

__all__ = ["AUCTION_RULE", "LIMIT", "bind_truthfulness", "check_truthful"]

LIMIT = 200_000
AUCTION_RULE = "every bid >= p buys at p; utility (v − p)·1[b >= p]"


def _is_revenue(ctx: Context) -> bool:
    """Whether q is ``Mul(p, Count(Ge(b, p)))`` in either order of its factors."""
    expr = ctx.quality.expr
    (price, _), (bid, _) = ctx.quality.outputs[0], ctx.quality.fields[0]
    if expr.op != "Mul" or len(expr.args) != 2:
        return False
    symbols = [a for a in expr.args if a.op == "symbol" and a.value == price]
    counts = [a for a in expr.args if a.op == "Count"]
    if len(symbols) != 1 or len(counts) != 1:
        return False
    cond = counts[0].args[0]
    ge = cond.op == "Ge" and [a.value for a in cond.args if a.op == "symbol"] == [bid, price] and all(a.op == "symbol" for a in cond.args)
    le = cond.op == "Le" and [a.value for a in cond.args if a.op == "symbol"] == [price, bid] and all(a.op == "symbol" for a in cond.args)
    return ge or le


def check_truthful(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``truthfulness`` (see the module docstring)."""
    node, _, _ = root_of(ctx, derivation, ("truthful-posted-price",))
    if not ctx.replace or len(ctx.quality.outputs) != 1 or len(ctx.quality.fields) != 1 or not _is_revenue(ctx):
        raise Rejected(node, "an auction's quality is the revenue p·count(b >= p) of one bid field and one price, under replace-one")
    prices = finite_values(ctx.quality.outputs[0][1].var("p"))
    reports = finite_values(ctx.quality.fields[0][1].var("b"))
    if prices is None or reports is None or len(prices) * len(reports) ** 2 > LIMIT:
        raise Rejected(node, f"the prices and reports must be finite, at most {LIMIT} (value, report, price) points")
    epsilon = rational_bound(node, premise_of(ctx, "privacy", node, start)["bound"], "the privacy claim's ε")
    bound = rational_bound(node, derivation["bound"], "B")
    largest = Fraction(0)
    for v in reports:
        for p in prices:
            truthful = v - p if v >= p else Fraction(0)
            if truthful < 0 or any((v - p if b >= p else 0) > truthful for b in reports):
                raise Rejected(node, "a truthful utility is negative or a misreport gains at a fixed price")  # pragma: no cover - the rule's own fact
            largest = max(largest, truthful)
    if epsilon < 0 or bound < largest:
        raise Rejected(node, f"B = {bound} is below the largest truthful utility U = {largest} (or ε = {epsilon} < 0)")


def bind_truthfulness(run: Any, claim: dict[str, Any], bound: Term) -> None:
    """The claim's auction, hypotheses, ε, U and bound ``U·(e^ε − 1)`` are its accepted derivation's and privacy's."""
    statement, make = run.statement, run.values.make
    if statement.auction is None or claim.get("auction") != {**statement.auction, "rule": AUCTION_RULE}:
        raise Rejected(None, "the claim's auction is not options.auction with the posted-price rule")
    points = len(statement.auction["prices"]) * len(statement.auction["reports"]) ** 2
    if claim.get("hypotheses") != {"utility-nonnegative": True, "truthful-dominant": True, "utility-bounded": True, "points": points}:
        raise Rejected(None, f"the hypotheses are not the three checked at every one of the {points} (value, report, price) points")
    epsilon = run.value(run.accepted["privacy"]["bound"], "ε")
    run.same(claim, "epsilon", epsilon)
    run.same(claim, "utility_bound", bound)
    run.same(claim, "bound", make("Mul", (bound, make("Add", (make("exp", (epsilon,)), make("rational", (), Fraction(-1)))))))
