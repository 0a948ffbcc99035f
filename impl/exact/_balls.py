"""Ball arithmetic at doubling precision: exact signs of non-zero reals and rational enclosures.

Shared by the exact real types whose zero test is algebraic (a canonical form
that is empty iff the value is 0) and whose remaining decisions are made by
python-flint balls: ``ball_at(precision)`` must return a ball containing the
value, shrinking to it as the precision grows.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from flint import arb, fmpq

from expmech.spec import InvalidArgument, InvalidType, PrecisionExhausted
from expmech.spec.internal import describe

__all__ = ["DEFAULT_MAX_PRECISION", "arb_from_fraction", "ball_endpoints", "enclose_ball", "settle_sign"]

#: Precision cap, in bits, for settling a sign or an enclosure.
DEFAULT_MAX_PRECISION = 1 << 20
START_PRECISION = 64


def arb_from_fraction(value: Fraction) -> arb:
    """A ball containing ``value``, at the current python-flint precision."""
    return arb(fmpq(value.numerator, value.denominator))


def ball_endpoints(ball: arb) -> tuple[Fraction, Fraction]:
    """The exact rational endpoints ``(mid - rad, mid + rad)`` of a finite ball."""
    mid = _exact_fraction(ball.mid())
    rad = _exact_fraction(ball.rad())
    return (mid - rad, mid + rad)


#: Largest power of two (in bits) an exact enclosure endpoint may carry: past it, refused (PrecisionExhausted).
MAX_ENDPOINT_BITS = 1 << 28


def _exact_fraction(value: arb) -> Fraction:
    """The exact rational value of an exact (radius-zero) ball such as ``x.mid()``.

    Raises :class:`PrecisionExhausted` for a value such as ``e^(−2**199)``, whose
    binary exponent is past :data:`MAX_ENDPOINT_BITS`: no rational of that size
    can be written down (Python refuses or runs out of memory).
    """
    mantissa, exponent = value.man_exp()
    mantissa_int, exponent_int = int(mantissa), int(exponent)
    if abs(exponent_int) > MAX_ENDPOINT_BITS:
        raise PrecisionExhausted(
            f"a rational enclosure of a value near 2^{exponent_int + mantissa_int.bit_length()} would need a power of two "
            f"of {abs(exponent_int)} bits (more than {MAX_ENDPOINT_BITS}); compare it exactly instead"
        )
    if exponent_int >= 0:
        return Fraction(mantissa_int << exponent_int)
    return Fraction(mantissa_int, 1 << -exponent_int)


def _check_bits(bits: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int):
        raise InvalidType(f"bits={describe(bits)} must be an int", parameter="bits", value=bits)
    if bits < 1:
        raise InvalidArgument(f"bits={bits} must be >= 1", parameter="bits", value=bits)
    return bits


def settle_sign(ball_at: Callable[[int], arb], what: str, *, max_precision: int = DEFAULT_MAX_PRECISION) -> int:
    """The sign (-1 or 1) of a value known to be non-zero, from balls at 64, 128, … bits.

    Terminates because the value is not zero; raises :class:`PrecisionExhausted`
    naming ``what`` at the cap rather than guess.
    """
    precision = START_PRECISION
    while True:
        ball = ball_at(precision)
        if ball > 0:
            return 1
        if ball < 0:
            return -1
        if precision >= max_precision:
            raise PrecisionExhausted(f"the sign of {what} was not settled at {max_precision} bits")
        precision = min(2 * precision, max_precision)


def enclose_ball(ball_at: Callable[[int], arb], bits: int, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
    """Rationals ``(lo, hi)`` around a non-zero value with ``hi − lo <= 2**-bits · |value|``."""
    bits = _check_bits(bits)
    precision = START_PRECISION + bits
    while True:
        ball = ball_at(precision)
        if ball.is_finite() and ball.rad() * 2 ** (bits + 1) <= ball.abs_lower():
            return ball_endpoints(ball)
        if precision >= max_precision:
            raise PrecisionExhausted(f"an enclosure to bits={bits} was not reached at {max_precision} bits")
        precision = min(2 * precision, max_precision)
