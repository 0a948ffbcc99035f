"""ρ-zCDP to (ε, δ): Bun–Steinke (2016) and Canonne–Kamath–Steinke (2020), exactly enclosed.

Both are sound at every ``α > 1`` (Bun–Steinke is the closed form of the plain
Markov bound); the curve is the least of the two, the CKS one at a rational α
chosen by a float search (which only picks α: any α is sound).
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from ._balls import Enclosure, ball, endpoints, refine
from ._optimal import FLOAT_FAILURES

__all__ = ["zcdp_delta", "zcdp_epsilon"]


def _alpha_for_delta(rho: float, epsilon: float) -> Fraction:
    def log_delta(a: float) -> float:
        return (a - 1) * (a * rho - epsilon) - math.log(a) + (a - 1) * math.log1p(-1 / a)

    return _golden(log_delta, 1 + 1e-9, max(2.0, 4 * (epsilon + rho) / (2 * rho) + 2))


def _alpha_for_epsilon(rho: float, delta: float) -> Fraction:
    def eps(a: float) -> float:
        return a * rho + (math.log(1 / delta) - math.log(a)) / (a - 1) + math.log1p(-1 / a)

    return _golden(eps, 1 + 1e-9, max(2.0, 4 * (1 + math.sqrt(math.log(1 / delta) / rho)) + 2))


def _golden(f: object, lo: float, hi: float) -> Fraction:
    func = f  # a float objective; only its argmin is used
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        try:
            fa, fb = func(a), func(b)  # type: ignore[operator]
        except FLOAT_FAILURES:
            break
        if fa <= fb:
            hi = b
        else:
            lo = a
    alpha = Fraction((lo + hi) / 2).limit_denominator(10**6)
    return alpha if alpha > 1 else Fraction(2)


def _cks_delta(rho: Fraction, epsilon: Fraction, alpha: Fraction) -> arb:
    a = ball(alpha)
    exponent = (a - 1) * (a * ball(rho) - ball(epsilon)) - a.log() + (a - 1) * (1 - 1 / a).log()
    return exponent.exp()


def _bs_delta(rho: Fraction, epsilon: Fraction) -> arb:
    gap = ball(epsilon - rho)
    return (-(gap * gap) / (4 * ball(rho))).exp()


def zcdp_delta(rho: Fraction, epsilon: Fraction) -> Enclosure:
    """An enclosure of ``min(δ_BS(ε), δ_CKS(ε; α), 1)`` for ρ-zCDP, ``rho > 0``, ``epsilon > 0``."""
    alpha = Fraction(2)
    if epsilon > rho:
        try:  # α is only a choice: past float64 (ρ or ε past 1e308, ρ below 1e-308) α = 2 is as sound
            alpha = _alpha_for_delta(float(rho), float(epsilon))
        except FLOAT_FAILURES:
            pass

    def capped(value: arb) -> tuple[Fraction, Fraction]:  # a bound above 1 is 1 (never turned into a huge rational)
        return (Fraction(1), Fraction(1)) if value > 1 else endpoints(value)

    def ends() -> tuple[Fraction, Fraction]:
        lo_c, hi_c = capped(_cks_delta(rho, epsilon, alpha))
        if epsilon > rho:
            lo_b, hi_b = capped(_bs_delta(rho, epsilon))
            lo_c, hi_c = min(lo_c, lo_b), min(hi_c, hi_b)
        return min(lo_c, Fraction(1)), min(hi_c, Fraction(1))

    return refine(ends, "the zCDP delta")


def zcdp_epsilon(rho: Fraction, delta: Fraction) -> Enclosure:
    """An enclosure of ``min(ε_BS(δ), ε_CKS(δ; α))`` for ρ-zCDP, ``0 < delta < 1``.

    ``ε_BS = ρ + 2√(ρ ln(1/δ))``; ``ε_CKS = αρ + (ln(1/δ) − ln α)/(α − 1) + ln(1 − 1/α)``.
    """
    try:  # α is only a choice: past float64 (δ below 1e-308, ρ past 1e308 or below 1e-308) α = 2 is as sound
        alpha = _alpha_for_epsilon(float(rho), float(delta))
    except FLOAT_FAILURES:
        alpha = Fraction(2)

    def ends() -> tuple[Fraction, Fraction]:
        r, d, a = ball(rho), ball(delta), ball(alpha)
        log_inv = (1 / d).log()
        bs = r + 2 * (r * log_inv).sqrt()
        cks = a * r + (log_inv - a.log()) / (a - 1) + (1 - 1 / a).log()
        lo_b, hi_b = endpoints(bs)
        lo_c, hi_c = endpoints(cks)
        return max(Fraction(0), min(lo_b, lo_c)), max(Fraction(0), min(hi_b, hi_c))

    return refine(ends, "the zCDP epsilon")
