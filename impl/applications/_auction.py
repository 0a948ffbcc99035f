"""McSherry and Talwar's digital-goods auction, with exact expected utilities.

The auctioneer draws one price ``p`` from a finite grid by the exponential
mechanism with revenue quality ``q(b, p) = p·|{j : b_j >= p}|``; every bidder
whose bid is at least ``p`` receives the good and pays ``p``.  A bidder with
true value ``v`` who reports ``b`` gets ``u(p | b) = (v − p)·1[b >= p]``.

Every expected utility is an exact :class:`ExpRatio`, so the gain of a
misreport, ``E[u | b] − E[u | v]``, and its comparison with the bound of
statement ``auctions`` are decided exactly, never on floats.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from expmech.spec import Grid, IntRange, InvalidArgument, InvalidType, OutputSpace, QualityError, QualityFunction, RecordSchema, count
from expmech.spec.internal import as_rational, describe

from ..exact._exactreal import ExpRatio
from ..exact._expsum import ExpSum
from ..quality._inputs import check_epsilon
from ..exponential._front import Distribution, ExponentialMechanism

__all__ = ["DigitalGoodsAuction", "Incentive", "posted_price_utility"]

Utility = Callable[[Fraction, Fraction, Fraction], Any]


def posted_price_utility(value: Fraction, report: Fraction, price: Fraction) -> Fraction:
    """``(value − price)·1[report >= price]``: the bidder buys at ``price`` iff her report is at least it."""
    return value - price if report >= price else Fraction(0)


@dataclass(frozen=True, eq=False)
class Incentive:
    """One bidder's exact incentive to misreport, all other bids fixed.

    ``truthful`` is ``E[u | v]``; ``utilities`` maps each report ``b != v`` to
    the exact ``E[u | b]``; ``best_report`` attains the largest of them,
    ``best_utility`` (``None`` and ``E[u | v]`` when there is no other report).
    Gains ``E[u | b] − E[u | v]`` are :attr:`gains` and :attr:`best_gain`.
    """

    bidder: int
    value: Fraction
    truthful: ExpRatio
    utilities: tuple[tuple[Fraction, ExpRatio], ...]
    best_report: Fraction | None
    best_utility: ExpRatio

    @property
    def best_gain(self) -> ExpRatio:
        """``E[u | best_report] − E[u | v]``, exactly (0 without another report)."""
        return _difference(self.best_utility, self.truthful)

    @property
    def gains(self) -> tuple[tuple[Fraction, ExpRatio], ...]:
        """``(b, E[u | b] − E[u | v])`` for every report ``b != v``, exactly."""
        return tuple((b, _difference(u, self.truthful)) for b, u in self.utilities)


class DigitalGoodsAuction:
    """The exponential-mechanism digital-goods auction over a finite price grid.

    ``outputs`` is the price grid: a finite sequence of distinct rationals > 0.
    ``epsilon`` is ε₀ (the price has weight ``e^{ε₀·q(b, p)}``).  ``reports``
    are the bids a bidder may submit (a finite sequence of distinct rationals);
    true values are among them.  Bad arguments raise
    :class:`~expmech.spec.InvalidArgument` naming the parameter and its value.

    >>> auction = DigitalGoodsAuction(outputs=[1, 2, 3], epsilon=Fraction(1, 2), reports=[0, 1, 2, 3])
    >>> auction.sensitivity()
    Fraction(3, 1)
    >>> incentive = auction.incentives([3, 1])[0]
    >>> incentive.best_gain <= (ExpSum.exp(2 * Fraction(1, 2) * 3) - 1) * incentive.truthful
    True
    """

    __slots__ = ("_prices", "_epsilon", "_reports", "_mechanism")

    def __init__(self, *, outputs: Any, epsilon: Any, reports: Any) -> None:
        self._prices = _distinct_rationals(outputs, "outputs")
        for i, p in enumerate(self._prices):
            if p <= 0:
                raise InvalidArgument(f"outputs[{i}]={describe(outputs[i])} must be a price > 0", parameter="outputs", value=outputs[i])
        self._epsilon = check_epsilon(epsilon)
        self._reports = tuple(sorted(_distinct_rationals(reports, "reports")))
        self._mechanism = ExponentialMechanism(self.revenue, epsilon=self._epsilon, outputs=self._prices)

    @property
    def outputs(self) -> tuple[Fraction, ...]:
        """The price grid, in the order given."""
        return self._prices

    @property
    def epsilon(self) -> Fraction:
        """ε₀: the price's weight is ``e^{ε₀·q(b, p)}``."""
        return self._epsilon

    @property
    def reports(self) -> tuple[Fraction, ...]:
        """The bids a bidder may submit, in increasing order."""
        return self._reports

    @property
    def mechanism(self) -> ExponentialMechanism:
        """The exponential mechanism that draws the price."""
        return self._mechanism

    def revenue(self, bids: Sequence[Any], price: Any) -> Fraction:
        """``q(b, p) = p·|{j : b_j >= p}|``, exactly."""
        p = _rational(price, "price")
        return p * sum(1 for b in bids if b >= p)

    def quality(self, *, name: str | None = "auction-price") -> QualityFunction:
        """The revenue ``p·count(b >= p)`` in the spec language: bids ``b`` over the reports, prices ``p`` over the grid.

        Consecutive integers become an ``IntRange``, anything else a ``Grid``, so
        the catalogue's ``auction-price`` quality is exactly this one.
        """
        schema, outputs = RecordSchema(b=_domain(self._reports)), OutputSpace(p=_domain(self._prices))
        p = outputs["p"]
        return QualityFunction(p * count(schema["b"] >= p), schema=schema, outputs=outputs, name=name)

    def utility_bound(self) -> Fraction:
        """``U``: the largest truthful posted-price utility ``max(v − p, 0)`` over values among the reports and the prices."""
        return max(Fraction(0), self._reports[-1] - min(self._prices))

    def sensitivity(self) -> Fraction:
        """The exact Δq under replace-one over the allowed reports.

        One changed bid moves ``|{j : b_j >= p}|`` by at most 1, and by exactly
        1 iff some report is ``>= p`` and some is ``< p``; so
        ``Δq = max{p : min(reports) < p <= max(reports)}`` (0 if there is none).
        """
        lo, hi = self._reports[0], self._reports[-1]
        return max((p for p in self._prices if lo < p <= hi), default=Fraction(0))

    def _bids(self, bids: Any) -> list[Fraction]:
        if isinstance(bids, str | bytes) or not isinstance(bids, Sequence):
            raise InvalidType(f"bids={describe(bids)} must be a sequence of reports", parameter="bids", value=bids)
        if not bids:
            raise InvalidArgument("bids is empty; an auction needs at least one bidder", parameter="bids", value=bids)
        result = []
        for i, b in enumerate(bids):
            value = _rational(b, f"bids[{i}]")
            if value not in self._reports:
                raise InvalidArgument(f"bids[{i}]={describe(b)} is not one of the reports", parameter="bids", value=b)
            result.append(value)
        return result

    def price_distribution(self, bids: Any) -> Distribution:
        """The exact law of the price on these bids."""
        return self._mechanism.distribution(self._bids(bids))

    def expected_utility(self, bids: Any, *, bidder: int, value: Any, utility: Utility | None = None) -> ExpRatio:
        """``E[u(p | bids[bidder])]`` for a bidder of true value ``value``, exactly.

        ``utility(value, report, price)`` returns a rational; it defaults to
        :func:`posted_price_utility`.
        """
        checked = self._bids(bids)
        index = _bidder(bidder, len(checked))
        v = _rational(value, "value")
        rule = utility_rule(utility)
        dist = self._mechanism.distribution(checked)
        numerator = ExpSum.weighted_exps(
            (utility_value(rule, v, checked[index], p), self._epsilon * score) for p, score in zip(self._prices, dist.scores)
        )
        return ExpRatio(numerator, dist.normaliser)

    def incentives(self, values: Any, *, utility: Utility | None = None) -> tuple[Incentive, ...]:
        """For every bidder, the exact gain of every other report, the others bidding their values.

        ``values`` are the bidders' true values (each one of the reports).
        """
        truthful_bids = self._bids(values)
        utility_rule(utility)
        result = []
        for i, v in enumerate(truthful_bids):
            truthful = self.expected_utility(truthful_bids, bidder=i, value=v, utility=utility)
            utilities = []
            for b in self._reports:
                if b != v:
                    lied = truthful_bids[:i] + [b] + truthful_bids[i + 1 :]
                    utilities.append((b, self.expected_utility(lied, bidder=i, value=v, utility=utility)))
            best_report, best_utility = None, truthful
            for b, u in utilities:
                if best_report is None or u > best_utility:
                    best_report, best_utility = b, u
            result.append(Incentive(i, v, truthful, tuple(utilities), best_report, best_utility))
        return tuple(result)

    def __repr__(self) -> str:
        return f"DigitalGoodsAuction(<{len(self._prices)} prices>, epsilon={self._epsilon}, <{len(self._reports)} reports>)"


def _domain(values: tuple[Fraction, ...]) -> IntRange | Grid:
    ordered = sorted(values)
    if all(v.denominator == 1 for v in ordered) and ordered == [ordered[0] + i for i in range(len(ordered))]:
        return IntRange(int(ordered[0]), int(ordered[-1]))
    return Grid(tuple(ordered))


def _difference(first: ExpRatio, second: ExpRatio) -> ExpRatio:
    """``first − second`` exactly."""
    return ExpRatio(
        first.numerator * second.denominator - second.numerator * first.denominator,
        first.denominator * second.denominator,
    )


def _rational(value: Any, name: str) -> Fraction:
    return as_rational(value, name=name)


def _distinct_rationals(values: Any, name: str) -> tuple[Fraction, ...]:
    """A finite non-empty sequence of distinct rationals, or an error naming ``name``."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise InvalidType(f"{name}={describe(values)} must be a sequence of rationals", parameter=name, value=values)
    result = tuple(_rational(v, f"{name}[{i}]") for i, v in enumerate(values))
    if not result:
        raise InvalidArgument(f"{name} must not be empty", parameter=name, value=values)
    for i, v in enumerate(result):
        if v in result[:i]:
            raise InvalidArgument(f"{name}[{i}]={describe(values[i])} repeats an earlier value", parameter=name, value=values[i])
    return result


def _bidder(bidder: Any, count: int) -> int:
    if isinstance(bidder, bool) or not isinstance(bidder, int):
        raise InvalidType(f"bidder={describe(bidder)} must be an int", parameter="bidder", value=bidder)
    if not 0 <= bidder < count:
        raise InvalidArgument(f"bidder={bidder} must be in 0..{count - 1}", parameter="bidder", value=bidder)
    return bidder


def utility_rule(utility: Any) -> Utility:
    """``utility`` itself, :func:`posted_price_utility` for None; InvalidType naming ``utility`` if it cannot be called."""
    if utility is None:
        return posted_price_utility
    if not callable(utility):
        raise InvalidType(f"utility={describe(utility)} must be a callable utility(value, report, price)", parameter="utility", value=utility)
    return utility


def utility_value(rule: Utility, value: Fraction, report: Fraction, price: Fraction) -> Fraction:
    """``rule(value, report, price)`` as an exact rational; a rule that raises or returns a non-rational raises :class:`~expmech.spec.QualityError` naming the price."""
    try:
        result = rule(value, report, price)
    except Exception as error:  # noqa: BLE001 - a user callable; reported with its output
        raise QualityError(f"utility raised {type(error).__name__}: {error} at price={price}", output=price) from None
    try:
        return as_rational(result, name="utility")
    except InvalidArgument as error:
        raise QualityError(f"utility returned {describe(result)} at price={price}: {error}", output=price, value=result) from None
