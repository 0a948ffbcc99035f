"""Rational enclosures and python-flint balls for the accounting curves.

Every number an accounting curve reports is an :class:`Enclosure`: two
rationals around the exact value, computed with outward-rounded ``arb`` balls
built from rationals (never from floats).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx, fmpq

from expmech.spec import PrecisionExhausted

__all__ = ["Enclosure", "ball", "endpoints", "finite_ends", "refine"]

#: Relative width every curve reaches where its value is not a closed form.
RELATIVE_WIDTH = Fraction(1, 10**10)
START_PRECISION = 128
MAX_PRECISION = 1 << 14
#: Largest binary exponent of a ball end turned into a rational (a numerator or denominator of 2²⁴ bits).
MAX_EXPONENT = 1 << 24


@dataclass(frozen=True)
class Enclosure:
    """The exact value lies in ``[lower, upper]`` (rationals, ``lower <= upper``).

    ``value`` is the sound side a privacy claim may use: the upper end.
    """

    lower: Fraction
    upper: Fraction

    def __post_init__(self) -> None:
        if not self.lower <= self.upper:
            raise ValueError(f"an enclosure needs lower <= upper, got [{self.lower}, {self.upper}]")

    @property
    def value(self) -> Fraction:
        """The sound side, ``upper``."""
        return self.upper

    def contains(self, value: Fraction) -> bool:
        """Whether ``lower <= value <= upper``."""
        return self.lower <= value <= self.upper

    def as_json(self) -> dict[str, str]:
        """``{"lower": "p/q", "upper": "p/q"}``, exact rationals as strings."""
        return {"lower": _text(self.lower), "upper": _text(self.upper)}


def _text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def ball(value: Fraction | int) -> arb:
    """A ball containing the rational ``value`` at the current precision."""
    value = Fraction(value)
    return arb(fmpq(value.numerator, value.denominator))


def _exact(value: arb) -> Fraction:
    mantissa, exponent = value.man_exp()
    m, e = int(mantissa), int(exponent)
    if abs(e) > MAX_EXPONENT:  # e.g. e^{−10⁴⁰⁰}: no rational of this size is built
        raise PrecisionExhausted(f"a ball's binary exponent {e} is past ±{MAX_EXPONENT}: the value is too large or small to enclose exactly")
    return Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)


def endpoints(value: arb) -> tuple[Fraction, Fraction]:
    """The exact rational ends ``(mid − rad, mid + rad)`` of a finite ball."""
    if not value.is_finite():
        raise PrecisionExhausted(f"a ball was not finite: {value}")
    mid, rad = _exact(value.mid()), _exact(value.rad())
    return mid - rad, mid + rad


def refine(
    at: Callable[[], tuple[Fraction, Fraction]],
    what: str,
    *,
    relative: Fraction = RELATIVE_WIDTH,
    start: int = START_PRECISION,
) -> Enclosure:
    """Call ``at()`` at 128, 256, … bits until its ``(lo, hi)`` is narrow.

    Narrow means ``hi − lo <= relative · lo`` with ``lo > 0``, or ``lo == hi``
    (an exact value such as 0).  Raises :class:`PrecisionExhausted` naming
    ``what`` past 16384 bits rather than return a wide enclosure silently.
    """
    precision = start
    while True:
        try:
            with ctx.workprec(precision):
                lo, hi = at()
        except PrecisionExhausted:  # a ball not finite at this precision (e.g. a log of a ball holding 0): more bits
            lo, hi = Fraction(0), Fraction(-1)
        if lo == hi or (lo > 0 and hi - lo <= relative * lo):
            return Enclosure(lo, hi)
        if precision >= MAX_PRECISION:
            raise PrecisionExhausted(f"{what}: no enclosure of relative width {float(relative):.0e} at {precision} bits")
        precision *= 2


def finite_ends(at: Callable[[], arb], what: str, *, start: int = 256) -> tuple[Fraction, Fraction]:
    """The rational ends of the ball ``at()`` at the first of 256, 512, … bits where it is finite.

    For closed forms that need no width target, only a finite ball (e.g. a logarithm of a difference that
    holds 0 at low precision).  Raises :class:`PrecisionExhausted` naming ``what`` past 16384 bits.
    """
    precision = start
    while True:
        try:
            with ctx.workprec(precision):
                return endpoints(at())
        except PrecisionExhausted:
            if precision >= MAX_PRECISION:
                raise PrecisionExhausted(f"{what}: no finite enclosure at {precision} bits") from None
        precision *= 2
