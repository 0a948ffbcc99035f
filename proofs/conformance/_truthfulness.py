"""Approximate truthfulness of the exponential-mechanism auction, checked exactly on an instance.

Statement ``auctions`` (McSherry and Talwar 2007): if the price is ε-DP in
the bids, each bidder's utility is >= 0 and truthful bidding is dominant at
every fixed price, then for every bidder and every report ``b``

    E[u | b] − E[u | v] <= (e^ε − 1)·E[u | v] <= (e^ε − 1)·U.

:func:`check_truthfulness` computes every bidder's best misreport over all
reports exactly (``expmech.impl.DigitalGoodsAuction.incentives``) and decides
both inequalities exactly, as signs of exponential sums.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.impl import DigitalGoodsAuction, ExpRatio, ExpSum
from expmech.impl.internal import utility_rule, utility_value
from expmech.spec import InvalidType, derive_epsilon
from expmech.spec.internal import describe, nonnegative_rational

__all__ = ["BidderTruthfulness", "TruthfulnessReport", "check_truthfulness"]


@dataclass(frozen=True, eq=False)
class BidderTruthfulness:
    """One bidder's best misreport against the bound, decided exactly.

    ``bound`` is ``(e^ε − 1)·E[u | v]`` and ``utility_bound`` ``U``;
    ``within_bound`` / ``within_utility_bound`` say whether ``best_gain`` is at
    most ``bound`` / ``(e^ε − 1)·U``.
    """

    bidder: int
    value: Fraction
    truthful: ExpRatio
    best_report: Fraction | None
    best_gain: ExpRatio
    bound: ExpRatio
    utility_bound: Fraction
    within_bound: bool
    within_utility_bound: bool

    @property
    def holds(self) -> bool:
        """Both inequalities of the statement hold for this bidder."""
        return self.within_bound and self.within_utility_bound


@dataclass(frozen=True, eq=False)
class TruthfulnessReport:
    """Every bidder's check on one instance; ``epsilon`` is the ε the bound used."""

    epsilon: Fraction
    bidders: tuple[BidderTruthfulness, ...]

    @property
    def holds(self) -> bool:
        """No bidder gains more than the bound by any report."""
        return all(b.holds for b in self.bidders)

    def worst(self) -> BidderTruthfulness:
        """The bidder with the largest best gain (exactly compared)."""
        worst = self.bidders[0]
        for bidder in self.bidders[1:]:
            if bidder.best_gain > worst.best_gain:
                worst = bidder
        return worst


def _scaled(ratio: ExpRatio, epsilon: Fraction) -> ExpRatio:
    """``(e^ε − 1)·ratio`` exactly."""
    return ExpRatio(ratio.numerator.shift(epsilon) - ratio.numerator, ratio.denominator)


def check_truthfulness(
    auction: DigitalGoodsAuction,
    values: Any,
    *,
    epsilon: Any = None,
    utility: Callable[[Fraction, Fraction, Fraction], Any] | None = None,
    utility_bound: Any = None,
) -> TruthfulnessReport:
    """Check statement ``auctions`` exactly for every bidder of ``auction`` with true ``values``.

    ``epsilon`` (a rational >= 0) is the price rule's privacy parameter; by
    default the privacy theorem's ``2·ε₀·Δq`` with the exact Δq of the revenue
    over the auction's reports.  ``utility(value, report, price)`` defaults to the posted-price
    utility ``(v − p)·1[b >= p]``.  ``utility_bound`` is ``U``; by default each
    bidder's largest truthful utility over the price grid.  The verdicts are
    exact; they are the statement's conclusion only when its hypotheses hold
    (the defaults satisfy them).
    """
    if not isinstance(auction, DigitalGoodsAuction):
        raise InvalidType(f"auction={describe(auction)} must be a DigitalGoodsAuction", parameter="auction", value=auction)
    if epsilon is None:
        derived = derive_epsilon(sympy.Rational(auction.epsilon.numerator, auction.epsilon.denominator), auction.sensitivity())
        eps = Fraction(int(sympy.numer(derived)), int(sympy.denom(derived)))
    else:
        eps = nonnegative_rational(epsilon, name="epsilon")
    rule = utility_rule(utility)
    fixed_u = None if utility_bound is None else nonnegative_rational(utility_bound, name="utility_bound")
    checks = []
    for incentive in auction.incentives(values, utility=utility):
        v = incentive.value
        u_max = fixed_u if fixed_u is not None else max(utility_value(rule, v, v, p) for p in auction.outputs)
        truthful, best = incentive.truthful, incentive.best_utility
        # gain <= (e^ε − 1)·E[u|v]  <=>  E[u|b] <= e^ε·E[u|v]
        within = best <= ExpRatio(truthful.numerator.shift(eps), truthful.denominator)
        # gain <= (e^ε − 1)·U  <=>  E[u|b] <= E[u|v] + (e^ε − 1)·U
        extra = (ExpSum.rational(u_max).shift(eps) - ExpSum.rational(u_max)) * truthful.denominator
        within_u = best <= ExpRatio(truthful.numerator + extra, truthful.denominator)
        checks.append(
            BidderTruthfulness(
                incentive.bidder, v, truthful, incentive.best_report, incentive.best_gain, _scaled(truthful, eps), u_max, within, within_u
            )
        )
    return TruthfulnessReport(eps, tuple(checks))
