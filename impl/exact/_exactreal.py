"""Exact quotients of exponential sums, and their logarithms.

Probabilities of the exponential mechanism are :class:`ExpRatio` values
``N / D`` with :class:`~expmech.impl.ExpSum` numerator and positive
denominator; privacy losses are :class:`LogExpRatio` values ``ln(N / D)``.
Every comparison among them, or with a rational, is reduced to the exact sign
of one ``ExpSum``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Union

from flint import arb, ctx

from expmech.spec import InvalidArgument, PrecisionExhausted
from expmech.spec.internal import describe

from ._display import log_text, ratio_text
from ._expsum import (
    DEFAULT_MAX_PRECISION,
    ExactOrdering,
    ExpSum,
    _check_bits,
    _coerce,
    ball_endpoints,
)

__all__ = ["ExpRatio", "LogExpRatio"]

Comparable = Union[int, Fraction, ExpSum, "ExpRatio"]


class ExpRatio(ExactOrdering):
    """The exact real number ``numerator / denominator`` of two :class:`ExpSum` values.

    The denominator must be positive (checked exactly; :class:`InvalidArgument`
    otherwise).  Comparisons with ints, Fractions, ``ExpSum`` and other
    ``ExpRatio`` values are exact.  ``float()`` is for display only.

    >>> from fractions import Fraction
    >>> half = ExpRatio(ExpSum.exp(1), ExpSum.exp(1) * 2)
    >>> half == Fraction(1, 2)
    True
    """

    __slots__ = ("numerator", "denominator")

    numerator: ExpSum
    denominator: ExpSum

    def __init__(self, numerator: ExpSum | int | Fraction, denominator: ExpSum | int | Fraction = 1) -> None:
        num = _coerce(numerator)
        den = _coerce(denominator)
        if num is None:
            raise InvalidArgument(
                f"numerator={describe(numerator)} must be an ExpSum or a rational", parameter="numerator", value=numerator
            )
        if den is None or den.sign() <= 0:
            raise InvalidArgument(
                f"denominator={describe(denominator)} must be a positive ExpSum or rational",
                parameter="denominator",
                value=denominator,
            )
        self.numerator = num
        self.denominator = den

    @classmethod
    def _trusted(cls, numerator: ExpSum, denominator: ExpSum) -> ExpRatio:
        """Build without re-checking that ``denominator`` is positive."""
        result = object.__new__(cls)
        result.numerator = numerator
        result.denominator = denominator
        return result

    def sign(self) -> int:
        """The exact sign: -1, 0 or 1."""
        return self.numerator.sign()

    def _cmp(self, other: object) -> int | None:
        if isinstance(other, ExpRatio):
            return (self.numerator * other.denominator - other.numerator * self.denominator).sign()
        other_sum = _coerce(other)
        if other_sum is None:
            return None
        return (self.numerator - other_sum * self.denominator).sign()

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]  # equal values have many representations


    def __neg__(self) -> ExpRatio:
        return ExpRatio._trusted(-self.numerator, self.denominator)

    def complement(self) -> ExpRatio:
        """``1 - self``, exactly."""
        return ExpRatio._trusted(self.denominator - self.numerator, self.denominator)

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` with ``lo <= self <= hi`` and ``hi - lo <= 2**-bits · |self|``.

        Exactly ``(0, 0)`` when the value is 0.
        """
        bits = _check_bits(bits)
        if self.numerator.is_zero():
            return (Fraction(0), Fraction(0))
        return ball_endpoints(_quotient_ball(self.numerator, self.denominator, bits, max_precision))

    def log(self) -> LogExpRatio:
        """``ln(self)``; the value must be positive."""
        if self.numerator.sign() <= 0:
            raise InvalidArgument(f"log of a non-positive value {self}", parameter="self", value=self)
        return LogExpRatio._trusted(self.numerator, self.denominator)

    def __float__(self) -> float:
        """A float near the value, for display only."""
        if self.numerator.is_zero():
            return 0.0
        top = max(self.numerator.terms[-1][1], self.denominator.terms[-1][1])
        ball = _quotient_ball(self.numerator.shift(-top), self.denominator.shift(-top), 53, DEFAULT_MAX_PRECISION)
        return float(ball.mid())

    def __str__(self) -> str:
        """The exact form and a decimal approximation: ``e^(-1/4) / (3·e^(-1/4) + 2) ≈ 0.1748``."""
        return ratio_text(self)

    def __repr__(self) -> str:
        return f"ExpRatio({ratio_text(self)})"


class LogExpRatio(ExactOrdering):
    """The exact real number ``ln(numerator / denominator)``, both positive :class:`ExpSum` values.

    Comparable exactly with ints, Fractions and other ``LogExpRatio`` values:
    ``ln(N/D) <= b`` is decided as the sign of ``N - e^b · D``.
    Build one with :meth:`ExpRatio.log` or :meth:`LogExpRatio.of`.
    """

    __slots__ = ("numerator", "denominator")

    numerator: ExpSum
    denominator: ExpSum

    @classmethod
    def of(cls, numerator: ExpSum, denominator: ExpSum) -> LogExpRatio:
        """``ln(numerator / denominator)``; both must be positive (checked exactly)."""
        return ExpRatio(numerator, denominator).log()

    @classmethod
    def _trusted(cls, numerator: ExpSum, denominator: ExpSum) -> LogExpRatio:
        result = object.__new__(cls)
        result.numerator = numerator
        result.denominator = denominator
        return result

    def __neg__(self) -> LogExpRatio:
        return LogExpRatio._trusted(self.denominator, self.numerator)

    def __add__(self, other: object) -> LogExpRatio:
        if isinstance(other, bool) or not isinstance(other, int | Fraction):
            return NotImplemented
        return LogExpRatio._trusted(self.numerator.shift(Fraction(other)), self.denominator)

    __radd__ = __add__

    def exp(self) -> ExpRatio:
        """``e^{self}`` as an exact :class:`ExpRatio`."""
        return ExpRatio._trusted(self.numerator, self.denominator)

    def _cmp(self, other: object) -> int | None:
        if isinstance(other, LogExpRatio):
            return (self.numerator * other.denominator - other.numerator * self.denominator).sign()
        if isinstance(other, bool) or not isinstance(other, int | Fraction):
            return None
        return (self.numerator - self.denominator.shift(Fraction(other))).sign()

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]


    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` with ``lo <= self <= hi`` and ``hi - lo <= 2**-bits · |self|``.

        Exactly ``(0, 0)`` when the value is 0 (numerator equals denominator).
        """
        bits = _check_bits(bits)
        if self.numerator == self.denominator:
            return (Fraction(0), Fraction(0))
        precision = 64 + 2 * bits
        scale = 2**bits
        while True:
            ratio = _quotient_ball(self.numerator, self.denominator, precision, max_precision)
            with ctx.workprec(precision):
                ball = ratio.log()
                if ball.is_finite() and ball.rad() * 2 * scale <= ball.abs_lower():
                    return ball_endpoints(ball)
            if precision >= max_precision:
                raise PrecisionExhausted(f"a log enclosure to bits={bits} was not reached at {max_precision} bits")
            precision = min(2 * precision, max_precision)

    def __float__(self) -> float:
        """A float near the value, for display only (within a relative ``2^-36``, or to a float's precision).

        From the two sums' float filters where their bounds give the logarithm to a relative ``2^-36``
        (``ln(S̃_N e^{t_N} / S̃_D e^{t_D})`` errs by at most the sum of their relative bounds, doubled);
        otherwise from :meth:`enclose`.
        """
        estimate = _log_estimate(self.numerator, self.denominator)
        if estimate is not None:
            return estimate
        lo, hi = self.enclose(53)
        return float((lo + hi) / 2)

    def __str__(self) -> str:
        """The exact form and a decimal approximation: ``ln((1 + e) / 2) ≈ 0.6201``."""
        return log_text(self)

    def __repr__(self) -> str:
        return f"LogExpRatio({log_text(self)})"


def _log_estimate(numerator: ExpSum, denominator: ExpSum) -> float | None:
    """``ln(numerator / denominator)`` from the float filters when they give it to a relative ``2^-36``; else None."""
    filtered = []
    for value in (numerator, denominator):
        if value._parts is None:
            return None
        found = value._float_filter()
        if found is None or not found[0].value > 0:
            return None
        summary, top = found
        filtered.append((summary.value, summary.error / summary.value, top))
    (n_value, n_error, n_top), (d_value, d_error, d_top) = filtered
    try:
        estimate = float(n_top - d_top) + math.log(n_value / d_value)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    error = 2.0 * (n_error + d_error) + 4.0 * 2.0**-53 * (abs(float(n_top - d_top)) + abs(estimate))
    if not (math.isfinite(estimate) and n_error < 2.0**-10 and d_error < 2.0**-10 and error <= 2.0**-36 * abs(estimate)):
        return None
    return estimate


def _quotient_ball(numerator: ExpSum, denominator: ExpSum, bits: int, max_precision: int) -> arb:
    """A ball for ``numerator / denominator`` (numerator nonzero) of width at most ``2**-bits`` · |value|."""
    scale = 2**bits
    extra = 2
    while True:
        num = numerator._ball(bits + extra, max_precision=max_precision)
        den = denominator._ball(bits + extra, max_precision=max_precision)
        with ctx.workprec(bits + extra + 64):
            ball = num / den
            if ball.rad() * 2 * scale <= ball.abs_lower():
                return ball
        if bits + extra >= max_precision:
            raise PrecisionExhausted(f"a quotient enclosure to bits={bits} was not reached at {max_precision} bits")
        extra *= 2
