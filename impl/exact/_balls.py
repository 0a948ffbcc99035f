"""Ball arithmetic at doubling precision: exact signs of non-zero reals and rational enclosures.

Shared by the exact real types whose zero test is algebraic (a canonical form
that is empty iff the value is 0) and whose remaining decisions are made by
python-flint balls: ``ball_at(precision)`` must return a ball containing the
value, shrinking to it as the precision grows.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from flint import arb

from expmech.spec._errors import PrecisionExhausted

from ._expsum import DEFAULT_MAX_PRECISION, _check_bits, ball_endpoints

__all__ = ["enclose_ball", "settle_sign"]

START_PRECISION = 64


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
