"""Enclosures of every probability of a finite exponential-family law at once.

``p_i = μ_i e^{b_i} / Σ_j μ_j e^{b_j}`` for all ``i`` costs one normaliser
ball and one quotient per output, instead of one normaliser per output — what
an audit of a sampler over 10⁴ outputs needs.  Every sum is of non-negative
terms, so the balls are tight at modest precision; the precision doubles
until each enclosure has relative width at most ``2**-bits``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from flint import arb, ctx

from expmech.spec import PrecisionExhausted

from ._expsum import DEFAULT_MAX_PRECISION, _check_bits, arb_from_fraction, ball_endpoints

__all__ = ["weight_enclosures"]


def weight_enclosures(
    measure: Sequence[Fraction], exponents: Sequence[Fraction], bits: int = 53
) -> tuple[tuple[Fraction, Fraction], ...]:
    """Rationals ``(lo, hi)`` around each ``μ_i e^{b_i} / Σ_j μ_j e^{b_j}``; exactly ``(0, 0)`` where ``μ_i = 0``.

    ``measure`` are rationals >= 0, not all zero; ``exponents`` rationals.
    """
    bits = _check_bits(bits)
    top = max(b for m, b in zip(measure, exponents) if m > 0)
    precision = bits + 64 + len(measure).bit_length()
    scale = Fraction(1, 2**bits)
    while True:
        with ctx.workprec(precision):
            weights = [
                arb_from_fraction(m) * arb_from_fraction(b - top).exp() if m > 0 else None
                for m, b in zip(measure, exponents)
            ]
            total = sum((w for w in weights if w is not None), arb(0))
            result = []
            narrow = True
            for w in weights:
                if w is None:
                    result.append((Fraction(0), Fraction(0)))
                    continue
                lo, hi = ball_endpoints(w / total)
                lo, hi = max(lo, Fraction(0)), min(hi, Fraction(1))
                narrow = narrow and lo > 0 and hi - lo <= scale * lo
                result.append((lo, hi))
        if narrow:
            return tuple(result)
        if precision >= DEFAULT_MAX_PRECISION:
            raise PrecisionExhausted(f"enclosures to bits={bits} not reached at {precision} bits")
        precision = min(2 * precision, DEFAULT_MAX_PRECISION)
