"""Instances of statement ``auctions``: small exponential-mechanism auctions, every misreport tried exactly.

An instance is a price grid, the reports a bidder may make, the bidders'
true values, ε₀, the Δ the price rule's ε is computed from (``ε = 2ε₀Δ``), a
utility model and a utility bound ``U``.  The generator now and then breaks
one hypothesis: a Δ below the revenue's true sensitivity (the price is then
not ε-DP), an entry fee (utilities < 0), pay-your-bid (truthful bidding is
not dominant at a fixed price: lowering the bid lowers the payment), or a
``U`` below the largest utility.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

from expmech.impl import DigitalGoodsAuction

from ._family_base import Evaluation, InstanceFamily, _pick
from ._truthfulness import check_truthfulness

__all__ = ["AuctionsFamily", "utility_model"]


def utility_model(name: str, fee: Fraction = Fraction(0)) -> Any:
    """``u(value, report, price)`` for a named model: posted-price, entry-fee (minus ``fee``) or pay-your-bid."""
    if name == "posted-price":
        return lambda v, b, p: v - p if b >= p else Fraction(0)
    if name == "entry-fee":
        return lambda v, b, p: (v - p if b >= p else Fraction(0)) - fee
    if name == "pay-your-bid":
        return lambda v, b, p: v - b if b >= p else Fraction(0)
    raise ValueError(f"unknown utility model {name!r}")


class AuctionsFamily(InstanceFamily):
    """Every bidder's best misreport in a small auction against (e^ε − 1)·E[u | v] and (e^ε − 1)·U."""

    statement_id: str = "auctions"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        top = rng.randint(2, 6)
        reports = list(range(0, top + 1))
        prices = sorted(rng.sample(range(1, top + 1), rng.randint(1, min(3, top))))
        values = [rng.choice(reports) for _ in range(rng.randint(1, 3))]
        eps0 = _pick(rng, (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2)))
        true_delta = max((p for p in prices if 0 < p <= top), default=0)
        roll = rng.random()
        delta = Fraction(true_delta) if roll < 0.75 else Fraction(true_delta) * _pick(rng, (Fraction(0), Fraction(1, 10), Fraction(1, 2)))
        model = "posted-price" if rng.random() < 0.7 else _pick(rng, ("entry-fee", "pay-your-bid"))
        u_top = Fraction(top - prices[0])
        u_bound = u_top if rng.random() < 0.8 else u_top * _pick(rng, (Fraction(0), Fraction(1, 100), Fraction(1, 2)))
        return {
            "prices": prices,
            "reports": reports,
            "values": values,
            "epsilon0": eps0,
            "delta": delta,
            "utility": model,
            "fee": Fraction(1) if model == "entry-fee" else Fraction(0),
            "U": u_bound,
        }

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        auction = DigitalGoodsAuction(outputs=instance["prices"], epsilon=instance["epsilon0"], reports=instance["reports"])
        rule = utility_model(instance["utility"], instance["fee"])
        values = [Fraction(v) for v in instance["values"]]
        prices = auction.outputs
        truthful_u = [rule(v, v, p) for v in values for p in prices]
        hypotheses = {
            "privacy": instance["delta"] >= auction.sensitivity(),
            "utility-nonnegative": all(u >= 0 for u in truthful_u),
            "truthful-dominant": all(rule(v, b, p) <= rule(v, v, p) for v in values for b in auction.reports for p in prices),
            "utility-bounded": all(u <= instance["U"] for u in truthful_u),
        }
        epsilon = 2 * instance["epsilon0"] * instance["delta"]
        report = check_truthfulness(auction, values, epsilon=epsilon, utility=rule, utility_bound=instance["U"])
        failing = [b for b in report.bidders if not b.holds]
        b = failing[0] if failing else report.worst()
        if not b.within_bound:
            against = f"(e^ε − 1)·E[u|v] ≈ {float(b.bound):.4g}"
        else:
            against = f"(e^ε − 1)·U ≈ {math.expm1(float(report.epsilon)) * float(b.utility_bound):.4g} (U = {b.utility_bound})"
        detail = (
            f"ε = {report.epsilon}: bidder {b.bidder} (v = {b.value}) reporting {b.best_report} gains "
            f"≈ {float(b.best_gain):.4g}{' >' if failing else ', bound'} {against}"
        )
        return Evaluation(hypotheses, report.holds, detail)
