"""What the mechanisms over infinite and continuous ranges share: the range, μ, the privacy loss.

``ExponentialMechanism(quality, epsilon=…, outputs=…)`` comes here when
``outputs`` is a range rather than a list: a
:class:`~expmech.spec.RationalRange` (an interval of the reals, Lebesgue μ or a
:class:`~expmech.spec.PiecewiseDensity`), an :class:`~expmech.spec.IntRange`
(integers, counting μ or a :class:`~expmech.spec.PiecewiseGeometric`), or an
:class:`~expmech.spec.OutputSpace` with one such variable.  Only a
:class:`~expmech.spec.QualityFunction` can be integrated exactly over a range:
its pieces in r are read off the expression (``expmech.impl.quality._piecewise``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import ctx

from expmech.spec import (
    BaseMeasure,
    Counting,
    Domain,
    IntRange,
    InvalidArgument,
    InvalidType,
    Lebesgue,
    PiecewiseDensity,
    PiecewiseGeometric,
    QualityFunction,
    RationalRange,
)
from expmech.spec.internal import describe, readable

from ..exact._balls import enclose_ball
from ..exact._exactreal import LogExpRatio
from ..exact._expsum import ExactOrdering, _check_bits
from ..quality._inputs import check_epsilon
from ..exact._lattice import LatticeSum
from ._finite import ExponentialMechanism
from ._kinds import _domain_of
from ..quality._piecewise import PiecewiseLinear, analyse

__all__ = ["Candidate", "RangeMechanism", "RangePrivacyLoss", "loss_from_candidates", "resolve_range", "unbounded_loss"]


@dataclass(frozen=True)
class ResolvedRange:
    """The range of a mechanism: ``[lo, hi]`` (``None`` infinite), its kind, and μ."""

    domain: Domain
    lo: Fraction | None
    hi: Fraction | None
    integer: bool
    measure: BaseMeasure


def resolve_range(quality: Any, outputs: Any, base_measure: Any) -> ResolvedRange:
    """Validate ``quality``, ``outputs`` and ``base_measure`` for a range mechanism (errors name each)."""
    if not isinstance(quality, QualityFunction):
        raise InvalidType(
            f"quality={describe(quality)} is a black-box callable: a continuous or countable range needs an "
            "expmech.spec.QualityFunction, because a black box cannot be integrated exactly over a range "
            "(list finitely many outputs instead)",
            parameter="quality",
            value=quality,
        )
    domain = _domain_of(outputs)
    items = list(quality.output_space.items())
    if len(items) != 1:
        raise InvalidArgument(
            f"quality {quality!r} has {len(items)} output variables; a range needs exactly one", parameter="quality", value=quality
        )
    own = items[0][2]
    integer = isinstance(domain, IntRange)
    if not isinstance(own, RationalRange | IntRange) or (isinstance(own, IntRange) and not integer):
        raise InvalidArgument(
            f"outputs={domain.describe()} does not fit the quality's output variable {items[0][0]}: {own.describe()}",
            parameter="outputs",
            value=outputs,
        )
    lo, hi = domain.bounds()
    own_lo, own_hi = own.bounds()
    outside = (own_lo is not None and (lo is None or lo < own_lo)) or (own_hi is not None and (hi is None or hi > own_hi))
    if outside:
        raise InvalidArgument(
            f"outputs={domain.describe()} is not inside the quality's output domain {own.describe()}",
            parameter="outputs",
            value=outputs,
        )
    if integer:
        measure = Counting() if base_measure is None else base_measure
        if not isinstance(measure, PiecewiseGeometric):
            raise InvalidType(
                f"base_measure={describe(base_measure)} must be None (counting), Counting(), Geometric(ratio) or "
                "PiecewiseGeometric(...) for an integer range",
                parameter="base_measure",
                value=base_measure,
            )
    else:
        measure = Lebesgue() if base_measure is None else base_measure
        if not isinstance(measure, PiecewiseDensity):
            raise InvalidType(
                f"base_measure={describe(base_measure)} must be None (Lebesgue), Lebesgue() or PiecewiseDensity(...) "
                "for an interval of the reals",
                parameter="base_measure",
                value=base_measure,
            )
    return ResolvedRange(domain, lo, hi, integer, measure)


class RangePrivacyLoss(ExactOrdering):
    """The exact privacy loss ``sup_r |ln p1(r) − ln p2(r)|`` over a continuous or countable range.

    Over the reals the supremum is essential (densities are defined up to null
    sets) and taken over the support of μ.  It is attained on a piece where
    ``q1 − q2`` is constant, or approached at a breakpoint, or at an infinite
    end where it is unbounded.  ``output`` is where: a point of the range
    (``None`` at ±∞), with ``piece`` the piece ``(lo, hi)`` it belongs to
    (``None`` for an infinite end) and ``attained`` whether the value is taken
    on that piece itself (False: a limit at ``output``).  ``larger_on_first``
    says whether ``p1 >= p2`` there.  An unbounded loss is ``infinite``;
    otherwise it equals ``ln(numerator / denominator)`` exactly and compares
    exactly with rationals and :class:`LogExpRatio` values (``loss <= Fraction(1, 2)``).
    """

    __slots__ = ("numerator", "denominator", "output", "piece", "attained", "larger_on_first")

    def __init__(
        self,
        numerator: LatticeSum | None,
        denominator: LatticeSum | None,
        *,
        output: Any,
        piece: tuple[Any, Any],
        attained: bool,
        larger_on_first: bool,
    ) -> None:
        self.numerator = numerator
        self.denominator = denominator
        self.output = output
        self.piece = piece
        self.attained = attained
        self.larger_on_first = larger_on_first

    @property
    def infinite(self) -> bool:
        """Whether the loss is unbounded (``q1 − q2`` grows without bound on the support)."""
        return self.numerator is None

    @property
    def value(self) -> LogExpRatio:
        """The loss as a :class:`LogExpRatio` (raises for an infinite loss)."""
        if self.numerator is None or self.denominator is None:
            raise InvalidArgument("the privacy loss is infinite; it has no finite value", parameter="value", value=None)
        return LogExpRatio._trusted(self.numerator.to_expsum(), self.denominator.to_expsum())

    def _cmp(self, other: object) -> int | None:
        if isinstance(other, RangePrivacyLoss):
            if self.infinite or other.infinite:
                return (self.infinite > other.infinite) - (self.infinite < other.infinite)
            assert self.numerator and self.denominator and other.numerator and other.denominator
            return (self.numerator * other.denominator - other.numerator * self.denominator).sign()
        if isinstance(other, LogExpRatio):
            return 1 if self.infinite else self.value._cmp(other)
        if isinstance(other, bool) or not isinstance(other, int | Fraction):
            return None
        if self.numerator is None or self.denominator is None:
            return 1
        return (self.numerator - self.denominator.shift(Fraction(other))).sign()

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]

    def enclose(self, bits: int = 53) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the (finite) loss, relative width ``<= 2**-bits`` (``(0, 0)`` if zero)."""
        bits = _check_bits(bits)
        if self.numerator is None or self.denominator is None:
            raise InvalidArgument("the privacy loss is infinite; it has no enclosure", parameter="bits", value=bits)
        if (self.numerator - self.denominator).is_zero():
            return (Fraction(0), Fraction(0))
        numerator, denominator = self.numerator, self.denominator

        def ball_at(precision: int) -> Any:
            with ctx.workprec(precision):
                return (numerator.value_ball(precision) / denominator.value_ball(precision)).log()

        return enclose_ball(ball_at, bits)

    def __float__(self) -> float:
        """A float near the loss (``inf`` when unbounded), for display only."""
        if self.infinite:
            return float("inf")
        lo, hi = self.enclose(53)
        return float((lo + hi) / 2)

    def where(self) -> str:
        """Where the loss is attained or approached, in words."""
        piece = f"({'−∞' if self.piece[0] is None else readable(self.piece[0])}, {'+∞' if self.piece[1] is None else readable(self.piece[1])})"
        if self.output is None:
            return f"as r → ±∞ on {piece}"
        if self.attained:
            return f"at r = {readable(self.output)} (on the piece {piece})"
        return f"as r → {readable(self.output)} from inside {piece}"

    def __str__(self) -> str:
        """``ln(…) ≈ 0.5 at r = 1 …``: the exact loss (abridged when long), its approximation and where."""
        if self.infinite:
            return f"∞ {self.where()}"
        assert self.numerator is not None and self.denominator is not None
        small = all(part.sparse is not None or part.poly.degree() < 12 for part in (self.numerator, self.denominator))
        sizes = [len([c for c in part.poly.coeffs() if c]) for part in (self.numerator, self.denominator)]
        exact = str(self.value) if small else f"ln(N/D), N and D exact sums of {sizes[0]} and {sizes[1]} exponentials ≈ {float(self):.6g}"
        return f"{exact} {self.where()}"

    def __repr__(self) -> str:
        return f"RangePrivacyLoss({self})"


@dataclass(frozen=True)
class Candidate:
    """A value of ``Δ = q1 − q2`` where the loss may peak: at ``output`` in ``piece`` (``attained`` or a limit)."""

    delta: Fraction
    output: Any
    piece: tuple[Any, Any]
    attained: bool


def unbounded_loss(piece: tuple[Any, Any], *, growing: bool) -> RangePrivacyLoss:
    """An infinite loss: ``q1 − q2`` is unbounded (above if ``growing``) at an infinite end of ``piece``."""
    return RangePrivacyLoss(None, None, output=None, piece=piece, attained=False, larger_on_first=growing)


def loss_from_candidates(
    candidates: list[Candidate],
    z1: tuple[LatticeSum, LatticeSum],
    z2: tuple[LatticeSum, LatticeSum],
    epsilon: Fraction,
) -> RangePrivacyLoss:
    """``max |ε Δ + ln(Z2 / Z1)|`` over the candidates, with ``Z = N / D`` (both positive), decided exactly.

    The larger side is at the largest or the smallest Δ; which one is the
    sign of ``Z2 e^{ε (Δmax + Δmin)/2} − Z1``.
    """
    high = max(candidates, key=lambda c: c.delta)
    low = min(candidates, key=lambda c: c.delta)
    (n1, d1), (n2, d2) = z1, z2
    left, right = n2 * d1, n1 * d2  # Z2 / Z1 = left / right
    if (left.shift(epsilon * (high.delta + low.delta) / 2) - right).sign() >= 0:
        return RangePrivacyLoss(left.shift(epsilon * high.delta), right, output=high.output, piece=high.piece, attained=high.attained, larger_on_first=True)
    return RangePrivacyLoss(right.shift(-epsilon * low.delta), left, output=low.output, piece=low.piece, attained=low.attained, larger_on_first=False)


class RangeMechanism(ExponentialMechanism):
    """What the mechanisms over an interval and over the integers share (see their classes).

    ``quality`` must be a :class:`~expmech.spec.QualityFunction` with one
    output variable; ``outputs`` the range; ``base_measure`` μ on it.
    """

    __slots__ = ("_range",)

    _range: ResolvedRange
    _integer: bool = False

    def __init__(self, quality: Any, *, epsilon: Any, outputs: Any, base_measure: Any = None) -> None:
        resolved = resolve_range(quality, outputs, base_measure)
        if resolved.integer != self._integer:
            other = "an interval of the reals" if resolved.integer is False else "a set of integers"
            raise InvalidArgument(f"outputs={outputs!r} is {other}; use ExponentialMechanism(...) to pick the mechanism", parameter="outputs", value=outputs)
        self._quality = quality
        self._epsilon = check_epsilon(epsilon)
        self._outputs = resolved.domain  # type: ignore[assignment]
        self._base_measure = resolved.measure  # type: ignore[assignment]
        self._index = {}
        self._range = resolved

    @property
    def outputs(self) -> Any:
        """The range: a :class:`~expmech.spec.RationalRange` or an :class:`~expmech.spec.IntRange`."""
        return self._range.domain

    @property
    def base_measure(self) -> Any:
        """μ: a :class:`~expmech.spec.PiecewiseDensity` or a :class:`~expmech.spec.PiecewiseGeometric`."""
        return self._range.measure

    def scores(self, dataset: Any) -> PiecewiseLinear:  # type: ignore[override]
        """``q(dataset, ·)`` on the range as exact pieces (a :class:`PiecewiseLinear`)."""
        return analyse(self._quality, dataset, lo=self._range.lo, hi=self._range.hi, integer=self._integer)

    def privacy_loss(self, dataset1: Any, dataset2: Any) -> RangePrivacyLoss:  # type: ignore[override]
        """The exact ``sup_r |ln p1(r) − ln p2(r)|`` between the laws on two datasets, and where."""
        first: Any = self.distribution(dataset1)
        return first.privacy_loss(self.distribution(dataset2))  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(quality={self._quality!r}, epsilon={self._epsilon}, "
            f"outputs={self._range.domain.describe()}, base_measure={self._range.measure!r})"
        )
