"""The truthfulness rule: a digital-goods auction's ε-DP price makes truthful bidding (e^ε − 1)·U-dominant.

The claim ``truthfulness`` (statement ``auctions``) has one root node of rule
``truthful-posted-price`` and bound ``B`` (a rational).  The kernel checks that the
quality is exactly the revenue ``p·count(b >= p)`` of one bid field ``b`` and one
price ``p``, both over finite domains, under replace-one (bidder i's bid changed);
with the posted-price rule (every bid ``>= p`` buys at ``p``) it enumerates every
value v and report b among the bids and every price p, and confirms exactly that
``u(v, v, p) = (v − p)·1[v >= p] >= 0``, ``u(v, b, p) <= u(v, v, p)`` and
``u(v, v, p) <= U <= B``.  ε is the bound of the certificate's privacy claim, which
the kernel accepts itself (a rational: ε in n is rejected).  The statement then
gives ``E[u | b] − E[u | v] <= (e^ε − 1)·E[u | v] <= (e^ε − 1)·B``.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from expmech.spec import count

from ._conclusions import LIMIT, root_of, premise_of, rational_bound
from ._derivation import Context
from ._verdict import Rejected, RuleInfo

__all__ = ["TRUTHFUL_TABLE", "check_truthful"]


def _utility(value: Fraction, report: Fraction, price: Fraction) -> Fraction:
    return value - price if report >= price else Fraction(0)


def check_truthful(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``truthfulness``: the posted-price auction's hypotheses by enumeration, ε from the accepted privacy claim."""
    node, _, _ = root_of(ctx, derivation, ("truthful-posted-price",))
    outputs, fields = list(ctx.quality.output_space.items()), list(ctx.quality.schema.items())
    if not ctx.replace or len(outputs) != 1 or len(fields) != 1:
        raise Rejected(node, "an auction's quality has one bid field and one price, its neighbours differ in one bid (replace-one)")
    (_, price, prices), (_, bid, reports) = outputs[0], fields[0]
    if ctx.quality.expr != price * count(bid >= price):
        raise Rejected(node, "the quality is not the revenue p·count(b >= p) of the posted-price auction")
    sizes = (prices.size, reports.size)
    if not (prices.is_finite and reports.is_finite) or None in sizes or sizes[0] * sizes[1] ** 2 > LIMIT:  # type: ignore[operator]
        raise Rejected(node, f"the prices and reports must be finite, at most {LIMIT} (value, report, price) points")
    epsilon = rational_bound(node, premise_of(ctx, "privacy", node, start)["bound"], "the privacy claim's ε")
    bound = rational_bound(node, derivation["bound"], "B")
    values = [Fraction(v) for v in reports.codes()]
    utilities = [(v, b, p, _utility(v, v, p), _utility(v, b, p)) for v in values for b in values for p in map(Fraction, prices.codes())]
    if any(truthful < 0 or lie > truthful for _, _, _, truthful, lie in utilities):
        raise Rejected(node, "a truthful utility is negative or a misreport gains at a fixed price")  # pragma: no cover - the rule's own fact
    largest = max((truthful for *_, truthful, _ in utilities), default=Fraction(0))
    if epsilon < 0 or bound < largest:
        raise Rejected(node, f"B = {bound} is below the largest truthful utility U = {largest} (or ε = {epsilon} < 0)")


#: rule name -> (claim, statement name, one-line statement)
TRUTHFUL_TABLE: dict[str, RuleInfo] = {
    "truthful-posted-price": RuleInfo("truthfulness", "truthful-posted-price",
                                      "q = p·count(b >= p), utilities (v − p)·1[b >= p] enumerated, ε the accepted privacy claim's: gain <= (e^ε − 1)·B, B >= U"),
}
