"""A proven lower end for the optimal non-adaptive composition of η-BR mechanisms with different η.

Every choice of windows ``t_j ∈ [−η_j, 0]`` gives a real family member: ``k_j`` copies of the
two-outcome pair with losses ``t_j`` and ``t_j + η_j``.  Its exact δ(ε) is a lower bound on the
optimum.  With ``c_j ~ Bin(k_j, ·)`` the number of high outcomes of group j, the loss is
``L(c) = Σ k_j t_j + Σ η_j c_j``, ``P(c)/Q(c) = e^{L(c)}`` exactly, so

    δ_t(ε) = Σ_{c : L(c) > ε} P(c) − e^ε Q(c),

where the test ``L(c) > ε`` is decided in integers (rational t).  The t are chosen by a float
coordinate search (a choice only: every t is sound), and δ_t is enclosed in balls.  Groups: at
most :data:`MAX_GROUPS`, and at most :data:`MAX_CELLS` count vectors.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from flint import arb

from ._balls import Enclosure, ball, endpoints, refine
from ._optimal import FLOAT_FAILURES, log_expm1, pair_probabilities

__all__ = ["MAX_CELLS", "MAX_GROUPS", "pair_family_delta", "pair_family_lower"]

MAX_GROUPS = 3
MAX_CELLS = 40_000


def _applies(components: tuple[tuple[Fraction, int], ...]) -> bool:
    return len(components) <= MAX_GROUPS and math.prod(k + 1 for _, k in components) <= MAX_CELLS


def _log_pmf(k: int, log_s: float, log_f: float) -> np.ndarray:
    i = np.arange(k + 1, dtype=float)
    log_c = np.concatenate(([0.0], np.cumsum(np.log((k - i[1:] + 1) / i[1:]))))
    return log_c + i * log_s + (k - i) * log_f


def _float_delta(components: tuple[tuple[Fraction, int], ...], epsilon: float, ts: list[float]) -> float:
    """δ_t(ε) in float64, in logs (``e^ε`` and ``e^η`` overflow past 709): a choice of windows only."""
    log_p = np.zeros(1)
    log_q = np.zeros(1)
    loss = np.zeros(1)
    for (eta, k), t in zip(components, ts):
        e = float(eta)
        if not -e < t < 0:
            return 0.0
        log_scale = float(log_expm1(e))
        lq, l1mp = float(log_expm1(-t)) - log_scale, float(log_expm1(t + e)) - log_scale
        lp, l1mq = t + e + lq, -t + l1mp
        log_p = (log_p[:, None] + _log_pmf(k, lp, l1mp)[None, :]).ravel()
        log_q = (log_q[:, None] + _log_pmf(k, lq, l1mq)[None, :]).ravel()
        loss = (loss[:, None] + (k * t + e * np.arange(k + 1))[None, :]).ravel()
    mask = loss > epsilon
    if not mask.any():
        return 0.0
    top_p = float(np.max(log_p[mask]))
    total_p = top_p + math.log(float(np.sum(np.exp(log_p[mask] - top_p))))
    top_q = float(np.max(log_q[mask]))
    gap = epsilon + top_q + math.log(float(np.sum(np.exp(log_q[mask] - top_q)))) - total_p
    value = math.exp(total_p) * -math.expm1(gap) if gap < 0 else 0.0
    return value if math.isfinite(value) else 0.0


def _choose(components: tuple[tuple[Fraction, int], ...], epsilon: Fraction) -> list[Fraction]:
    """Rational windows t_j found by a coordinate golden search on the float δ_t (only a choice)."""
    eps = float(epsilon)
    total = sum(k for _, k in components)
    ts = [min(-1e-9, max(-float(eta) + 1e-9, (eps - float(eta) * total / 2) / (total + 1))) for eta, _ in components]
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(4):
        for j, (eta, _) in enumerate(components):
            lo, hi = -float(eta) * (1 - 1e-9), -float(eta) * 1e-9

            def value(x: float) -> float:
                trial = list(ts)
                trial[j] = x
                return _float_delta(components, eps, trial)

            # a coarse scan first (δ_t has a kink at each threshold), then golden refinement
            grid = [lo + (hi - lo) * i / 24 for i in range(25)]
            best = max(range(25), key=lambda i: value(grid[i]))
            a, b = grid[max(best - 1, 0)], grid[min(best + 1, 24)]
            for _ in range(40):
                x1, x2 = b - ratio * (b - a), a + ratio * (b - a)
                if value(x1) >= value(x2):
                    b = x2
                else:
                    a = x1
            ts[j] = (a + b) / 2
    return [max(-eta, min(Fraction(0), Fraction(t).limit_denominator(10**9))) for (eta, _), t in zip(components, ts)]


def pair_family_delta(components: tuple[tuple[Fraction, int], ...], epsilon: Fraction, ts: list[Fraction]) -> Enclosure:
    """The exact δ(ε) of the product of ``k_j`` two-outcome pairs with windows ``t_j`` (``−η_j < t_j < 0``), enclosed."""
    scale = math.lcm(epsilon.denominator, *(eta.denominator for eta, _ in components), *(t.denominator for t in ts))
    base = sum((k * t for (_, k), t in zip(components, ts)), Fraction(0))
    steps = [int(eta * scale) for eta, _ in components]
    threshold = int((epsilon - base) * scale)  # L(c) > ε  ⇔  Σ steps_j c_j > threshold (all integers)
    cells = [c for c in itertools.product(*(range(k + 1) for _, k in components)) if sum(s * x for s, x in zip(steps, c)) > threshold]

    def ends() -> tuple[Fraction, Fraction]:
        tables = []
        for (eta, k), t in zip(components, ts):
            p, one_minus_p, q, one_minus_q = pair_probabilities(t, eta)
            pp = [arb(math.comb(k, i)) * p**i * one_minus_p ** (k - i) for i in range(k + 1)]
            qq = [arb(math.comb(k, i)) * q**i * one_minus_q ** (k - i) for i in range(k + 1)]
            tables.append((pp, qq))
        total_p, total_q = arb(0), arb(0)
        for c in cells:
            wp, wq = arb(1), arb(1)
            for (pp, qq), x in zip(tables, c):
                wp, wq = wp * pp[x], wq * qq[x]
            total_p, total_q = total_p + wp, total_q + wq
        lo, hi = endpoints(total_p - ball(epsilon).exp() * total_q)
        return max(lo, Fraction(0)), max(hi, Fraction(0))

    if not cells:
        return Enclosure(Fraction(0), Fraction(0))
    return refine(ends, "the pair family's delta")


def pair_family_lower(components: tuple[tuple[Fraction, int], ...], epsilon: Fraction) -> Fraction:
    """A proven lower bound on the optimal δ(ε): the exact δ of the best pair family found; 0 where it does not apply."""
    if not _applies(components) or len(components) < 2:
        return Fraction(0)
    try:
        ts = _choose(components, epsilon)
    except FLOAT_FAILURES:  # η or ε past float64: no window chosen, 0 is the (sound) lower end
        return Fraction(0)
    if any(not -eta < t < 0 for (eta, _), t in zip(components, ts)):
        return Fraction(0)
    return pair_family_delta(components, epsilon, ts).lower
