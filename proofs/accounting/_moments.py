"""A moment (Chernoff) bound for adaptive composition of η-bounded-range mechanisms.

Dong, Durfee and Rogers (2020) reduce every η-BR pair to two outcomes: given
the window ``[t, t + η]`` of its privacy loss L (``−η <= t <= 0``, forced by
``E_P[e^{−L}] = 1``), any function of L that is convex in ``u = e^{−L}`` has its
largest mean at the two-outcome pair with losses ``t`` and ``t + η`` (the chord of
a convex function lies above it, and ``E_P[u] = 1`` fixes the chord's mean).
For ``λ > 0``, ``e^{λL} = u^{−λ}`` is convex in u, so with ``x = e^t`` and
``a = e^η`` the moment of one step, given everything before it, is at most

    M(λ) = sup_{1/a <= x <= 1} x^λ (α − β x) / (a − 1),   α = a^{λ+1} − 1,  β = a^{λ+1} − a,

(the two-outcome pair's ``p e^{λ(t+η)} + (1 − p) e^{λt}``).  ``x^λ(α − βx)`` rises
then falls on ``x > 0``; its peak is at ``x* = λα / ((λ+1)β)``, so ``M(λ)`` is the
value at ``x*`` clipped to ``[1/a, 1]``.  An adaptive analyst picks the next
mechanism from the past, but each step's conditional moment is at most its
``M_i(λ)``, so ``E_P[e^{λ ΣL}] <= Π M_i(λ)^{k_i}`` (tower rule).  Finally
``(1 − e^{ε−L})₊ <= c(λ) e^{λ(L−ε)}`` with ``c(λ) = (λ/(λ+1))^λ / (λ+1)`` (the
largest value of ``(1 − e^{−y}) e^{−λy}``, at ``e^{−y} = λ/(λ+1)``), so

    δ(ε) <= c(λ) · Π M_i(λ)^{k_i} · e^{−λε}   for every λ > 0.

This is the exact Rényi divergence of the worst BR pair (order ``λ + 1``),
composed and converted as Canonne–Kamath–Steinke do; ``M(λ) <= e^{λ(λ+1)η²/8}``
(η²/8-zCDP) and ``M(λ) <= e^{λ m(η) + λ²η²/8}`` (Hoeffding's lemma with the mean
bound ``m(η)``), so it is never above the zCDP conversion at the same λ nor above
the Azuma bound of Durfee–Rogers (2019).  λ is chosen by a float search (which
only picks λ: every λ is sound) and the value is enclosed in balls.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from ._balls import Enclosure, ball, endpoints, finite_ends, refine
from ._optimal import FLOAT_FAILURES, log_expm1

__all__ = ["moment_delta", "moment_epsilon", "log_moment"]


def log_moment(eta: Fraction, lam: Fraction) -> arb:
    """A ball around ``ln M(λ)`` for one η-BR step (``eta > 0``, ``lam > 0``)."""
    a, lm = ball(eta).exp(), ball(lam)
    power = (ball(eta) * (lm + 1)).exp()  # a^{λ+1}
    alpha, beta = power - 1, power - a
    x = lm * alpha / ((lm + 1) * beta)
    low = 1 / a
    if x < low:
        x = low
    elif x > 1:
        x = arb(1)
    elif not (x > low and x < 1):  # the ball straddles an end: the union of both candidates
        x = x.union(low) if not x > low else x.union(arb(1))
    return lm * x.log() + (alpha - beta * x).log() - (a - 1).log()


def _log_factor(lam: Fraction) -> arb:
    """``ln c(λ) = λ ln(λ/(λ+1)) − ln(λ+1)``."""
    lm = ball(lam)
    return lm * (lm / (lm + 1)).log() - (lm + 1).log()


def _log_moment_float(eta: float, lam: float) -> float:
    """``ln M(λ)`` in float64, in logs (``a^{λ+1}`` overflows past ``η(λ+1) = 709``): only picks λ."""
    log_alpha = float(log_expm1(eta * (lam + 1)))  # ln(a^{λ+1} − 1)
    log_beta = eta + float(log_expm1(eta * lam))  # ln(a^{λ+1} − a) = η + ln(a^λ − 1)
    log_x = min(max(math.log(lam) + log_alpha - math.log1p(lam) - log_beta, -eta), 0.0)
    # β x / α < 1 at every clipped x (it is λ/(λ+1) at x*, and β/a < α at x = 1/a): log1p's argument is above −1
    return lam * log_x + log_alpha + math.log1p(-math.exp(log_beta + log_x - log_alpha)) - float(log_expm1(eta))


def _log_delta_float(components: tuple[tuple[Fraction, int], ...], epsilon: float, lam: float) -> float:
    factor = lam * math.log(lam / (lam + 1)) - math.log1p(lam)
    return factor + sum(k * _log_moment_float(float(eta), lam) for eta, k in components) - lam * epsilon


def _epsilon_float(components: tuple[tuple[Fraction, int], ...], log_delta: float, lam: float) -> float:
    return _log_delta_float(components, 0.0, lam) / lam - log_delta / lam


def _golden(f: object, lo: float, hi: float) -> Fraction:
    """A rational near the minimiser of a float objective on ``[lo, hi]`` (only the choice of λ depends on it)."""
    func = f
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(120):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        try:
            fa, fb = func(a), func(b)  # type: ignore[operator]
            if not (math.isfinite(fa) and math.isfinite(fb)):
                raise OverflowError
        except FLOAT_FAILURES:
            hi = b
            continue
        if fa <= fb:
            hi = b
        else:
            lo = a
        if hi - lo <= 1e-9 * hi:
            break
    lam = Fraction((lo + hi) / 2).limit_denominator(10**6)
    return lam if lam > 0 else Fraction(1, 10**6)


def _lambda_cap(components: tuple[tuple[Fraction, int], ...]) -> float:
    try:
        smallest = min(float(eta) for eta, _ in components)
        return max(4.0, 700.0 / smallest) if smallest > 1e-300 else 1e300
    except FLOAT_FAILURES:  # an η past float64: a large cap (λ is only a choice)
        return 4.0


def moment_delta(components: tuple[tuple[Fraction, int], ...], epsilon: Fraction) -> Enclosure:
    """An enclosure of ``min(1, c(λ) Π M_i(λ)^{k_i} e^{−λε})`` at a chosen rational ``λ > 0``."""
    lam = _golden(lambda x: _log_delta_float(components, float(epsilon), x), 1e-9, _lambda_cap(components))

    def ends() -> tuple[Fraction, Fraction]:
        log_value = _log_factor(lam) + sum((k * log_moment(eta, lam) for eta, k in components), arb(0)) - ball(lam) * ball(epsilon)
        if log_value > 0:  # the bound is above 1: δ <= 1 (never turned into a huge rational)
            return Fraction(1), Fraction(1)
        lo, hi = endpoints(log_value.exp())
        return min(lo, Fraction(1)), min(hi, Fraction(1))

    return refine(ends, "the moment bound's delta")


def moment_epsilon(components: tuple[tuple[Fraction, int], ...], delta: Fraction) -> Fraction:
    """A rational above ``(ln c(λ) + Σ k_i ln M_i(λ) − ln δ)/λ`` at a chosen ``λ > 0``: ε with δ(ε) <= delta."""
    log_delta = math.log(delta.numerator) - math.log(delta.denominator)
    lam = _golden(lambda x: _epsilon_float(components, log_delta, x), 1e-9, _lambda_cap(components))

    def value() -> arb:
        return (_log_factor(lam) + sum((k * log_moment(eta, lam) for eta, k in components), arb(0)) - (ball(delta)).log()) / ball(lam)

    return max(finite_ends(value, "the moment bound's epsilon")[1], Fraction(0))
