"""The truthfulness claim of a digital-goods auction's certificate (statement ``auctions``).

When the certified quality is the revenue ``p·count(b >= p)`` of a
:class:`~expmech.impl.DigitalGoodsAuction` and ε is PROVED, McSherry and
Talwar's guarantee follows from the spec's statement ``auctions`` (its proof
steps are checked by sympy): with the posted-price rule no bidder gains more
than ``(e^ε − 1)·E[u | v] <= (e^ε − 1)·U`` by any report.  Its other
hypotheses — truthful utilities >= 0, truthful bidding dominant at every
fixed price, utilities <= U — are checked exhaustively and exactly over every
value, report and price of the auction's finite grids.  Exact best-misreport
gains on seeded random value profiles are recorded beside it as non-proof
evidence.  :func:`check_truthfulness_claim` re-derives all of it.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

from expmech.impl import DigitalGoodsAuction, posted_price_utility
from expmech.spec import InvalidArgument, QualityFunction, rational_from_text, rational_text
from expmech.spec.internal import describe

from ...conformance._truthfulness import check_truthfulness

__all__ = ["check_truthfulness_claim", "truthfulness_claim"]

_PROFILES = 6


def _hypotheses(auction: DigitalGoodsAuction) -> tuple[bool, bool, bool, int]:
    """(utilities >= 0, truthful dominant at every price, utilities <= U, points checked), exactly."""
    bound = auction.utility_bound()
    nonnegative = dominant = bounded = True
    points = 0
    for v in auction.reports:
        for p in auction.outputs:
            truthful = posted_price_utility(v, v, p)
            nonnegative &= truthful >= 0
            bounded &= truthful <= bound
            for b in auction.reports:
                dominant &= posted_price_utility(v, b, p) <= truthful
                points += 1
    return nonnegative, dominant, bounded, points


def _instances(auction: DigitalGoodsAuction, epsilon: Fraction, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    largest = Fraction(0)
    violations = []
    for _ in range(_PROFILES):
        values = [rng.choice(auction.reports) for _ in range(rng.randint(1, 3))]
        report = check_truthfulness(auction, values, epsilon=epsilon, utility_bound=auction.utility_bound())
        for bidder in report.bidders:
            if bidder.best_gain.sign() > 0:
                largest = max(largest, bidder.best_gain.enclose(30)[1])
        if not report.holds:
            violations.append([rational_text(v) for v in values])
    return {
        "profiles": _PROFILES,
        "seed": seed,
        "non_proof": True,
        "method": "exact best-misreport gain of every bidder over every report, compared exactly with the bound",
        "largest_gain_upper_bound": rational_text(largest),
        "violations": violations,
    }


def _bound_text(epsilon: Fraction, utility_bound: Fraction) -> str:
    """``U*(exp(ε) - 1)``: sympy-readable text of the bound."""
    return f"{rational_text(utility_bound)}*(exp({rational_text(epsilon)}) - 1)"


def truthfulness_claim(auction: DigitalGoodsAuction, quality: QualityFunction, epsilon_text: str, *, seed: int = 0) -> dict[str, Any] | None:
    """The ``truthfulness`` claim for a certified ``quality`` that is ``auction``'s revenue, or None if ε is not rational.

    Raises :class:`InvalidArgument` when ``quality`` is not the auction's revenue.
    """
    if not isinstance(auction, DigitalGoodsAuction):
        raise InvalidArgument(f"auction={describe(auction)} must be a DigitalGoodsAuction", parameter="auction", value=auction)
    if auction.quality().sha256 != quality.sha256:
        raise InvalidArgument(
            f"auction={describe(auction)} does not match the quality {quality!r}: its revenue p·count(b >= p) over its reports and "
            "prices must be the certified quality",
            parameter="auction",
            value=auction,
        )
    try:
        epsilon = rational_from_text(epsilon_text, name="epsilon")
    except InvalidArgument:
        return None
    nonnegative, dominant, bounded, points = _hypotheses(auction)
    instances = _instances(auction, epsilon, seed)
    holds = nonnegative and dominant and bounded
    status = "REFUTED" if instances["violations"] else ("PROVED" if holds else "UNKNOWN")
    return {
        "id": "truthfulness",
        "statement": "auctions",
        "status": status,
        "method": "statement `auctions` (proof steps checked by sympy) from the certified ε; its hypotheses checked "
        "exhaustively and exactly over every value, report and price",
        "auction": {
            "prices": [rational_text(p) for p in auction.outputs],
            "reports": [rational_text(b) for b in auction.reports],
            "epsilon0": rational_text(auction.epsilon),
            "rule": "every bid >= p buys at p; utility (v − p)·1[b >= p]",
        },
        "epsilon": rational_text(epsilon),
        "utility_bound": rational_text(auction.utility_bound()),
        "bound": _bound_text(epsilon, auction.utility_bound()),
        "guarantee": "for every bidder, other bids and report b: E[u | b] − E[u | v] <= (e^ε − 1)·E[u | v] <= bound",
        "hypotheses": {"utility-nonnegative": nonnegative, "truthful-dominant": dominant, "utility-bounded": bounded, "points": points},
        "instances": instances,
    }


def check_truthfulness_claim(claim: dict[str, Any], predicate: dict[str, Any], quality: Any, record: Any) -> None:
    """Re-derive a ``truthfulness`` claim from the certificate's inputs, reporting through ``record(name, passed, detail)``."""
    try:
        data = claim["auction"]
        auction = DigitalGoodsAuction(
            outputs=[rational_from_text(p, name="price") for p in data["prices"]],
            epsilon=rational_from_text(data["epsilon0"], name="epsilon0"),
            reports=[rational_from_text(b, name="report") for b in data["reports"]],
        )
        epsilon = rational_from_text(claim["epsilon"], name="epsilon")
    except (KeyError, TypeError, InvalidArgument) as error:
        record("truthfulness: the auction is well-formed", False, str(error))
        return
    record("truthfulness: the quality is the auction's revenue", auction.quality().sha256 == getattr(quality, "sha256", None), "")
    record("truthfulness: ε₀ is the mechanism's", data["epsilon0"] == predicate["mechanism"]["epsilon0"], f"{data['epsilon0']} vs {predicate['mechanism']['epsilon0']}")
    record("truthfulness: neighbours differ in one report", predicate["mechanism"]["neighbours"] == "replace-one", predicate["mechanism"]["neighbours"])
    record("truthfulness: the auction is the certified claim's", data == {**(predicate["options"]["auction"] or {}), "rule": data.get("rule")}, "")
    record("truthfulness: ε is the certified ε", predicate["dp_claim"] and claim["epsilon"] == predicate["epsilon"], f"{claim['epsilon']} vs {predicate['epsilon']}")
    record("truthfulness: U re-derived", claim["utility_bound"] == rational_text(auction.utility_bound()), f"U = {auction.utility_bound()}")
    record("truthfulness: bound re-derived", claim["bound"] == _bound_text(epsilon, auction.utility_bound()), claim["bound"])
    nonnegative, dominant, bounded, points = _hypotheses(auction)
    fresh = {"utility-nonnegative": nonnegative, "truthful-dominant": dominant, "utility-bounded": bounded, "points": points}
    record("truthfulness: hypotheses re-checked exhaustively", fresh == claim["hypotheses"], f"{points} points")
    instances = _instances(auction, epsilon, claim["instances"]["seed"])
    record("truthfulness: instances reproduced", instances == claim["instances"], f"{instances['profiles']} value profiles")
    expected = "REFUTED" if instances["violations"] else ("PROVED" if nonnegative and dominant and bounded else "UNKNOWN")
    record("truthfulness: status follows", claim["status"] == expected, f"{claim['status']} vs {expected}")
