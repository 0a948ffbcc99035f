"""The optimal k-fold non-adaptive composition of η-bounded-range mechanisms.

Dong, Durfee and Rogers (2020, ICML), homogeneous case.  The worst η-BR pair
has two outcomes: A with privacy loss ``t + η`` and B with loss ``t``, for some
``t`` in ``[−η, 0]``.  With ``Q(A) = q``, ``P(A) = p = e^{t+η} q`` and
``P(B) = 1 − p = e^t (1 − q)``::

    q = (e^{−t} − 1) / (e^η − 1),   p = e^{t+η} q,   1 − p = (e^{t+η} − 1) / (e^η − 1).

k copies give the loss ``k·t + i·η`` with ``i ~ Bin(k, p)`` under P and
``Bin(k, q)`` under Q, a loss increasing in ``i``, so the hockey-stick
divergence is the best upper set ``{i >= ℓ}``::

    δ(ε) = sup_t max_ℓ f(t, ℓ),   f(t, ℓ) = P[Bin(k, p) >= ℓ] − e^ε P[Bin(k, q) >= ℓ].

Swapping the two maxima, for fixed ``ℓ >= 1``,
``∂f/∂t = k·C(k−1, ℓ−1)·q^{ℓ−1}(1−q)^{k−ℓ}·(e^{ε−t} − e^{ℓη+kt}) / (e^η − 1)``
(from ``d/dp P[Bin(k,p) >= ℓ] = k C(k−1,ℓ−1) p^{ℓ−1}(1−p)^{k−ℓ}``, ``p' = −e^{t+η}/(e^η−1)``,
``q' = −e^{−t}/(e^η−1)``), positive below ``t* = (ε − ℓη)/(k + 1)`` and negative
above: ``f(·, ℓ)`` is maximised at ``clip(t*, [−η, 0])``.  At ``t = 0``
(``p = q = 0``) and ``t = −η`` (``p = q = 1``) every ``f(t, ℓ)`` with ``ℓ >= 1``
is ``0`` resp. ``1 − e^ε < 0``, and ``f(t, 0) = 1 − e^ε < 0``; so only the ``ℓ``
with ``−η < t* < 0`` count, ``δ(ε) = max(0, max_ℓ f(t*_ℓ, ℓ))``, and ``δ(ε) = 0``
exactly when ``ε >= kη``.

Tails are evaluated as ``P[Bin(k,p) >= ℓ] = p^k Σ_{m <= k−ℓ} C(k,m) s^m`` with
``s = (1−p)/p``: a sum of positive terms, one truncated integer polynomial
evaluated by flint.  Only the few ``ℓ`` a float filter with a per-row error bound
cannot separate from the best are evaluated so (:func:`_filtered_rows`): one
vectorised O(k²) float pass and a handful of O(k) ball evaluations per δ.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import arb, arb_poly

from ._balls import Enclosure, ball, endpoints, refine

__all__ = ["FLOAT_FAILURES", "MAX_TIMES", "log_expm1", "optimal_delta", "optimal_delta_float", "pair_probabilities"]

#: What a float filter may raise on numbers past float64 (``float(Fraction)`` past 1e308, ``int / int`` too
#: large, ``math.exp`` past 709, a rational that rounds to 0.0 used as a divisor): a caller catches these
#: and takes its exact path, never a traceback.
FLOAT_FAILURES = (OverflowError, ZeroDivisionError, ValueError)


def log_expm1(x: np.ndarray | float) -> np.ndarray:
    """``ln(e^x − 1)`` for ``x > 0`` without overflow: ``x + ln(1 − e^{−x})`` past 30, else ``ln(expm1(x))``.

    Each branch is within a few ulp (the first adds a term below ``e^{−30}``); ``x <= 0`` gives nan or −inf.
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(all="ignore"):
        return np.where(x > 30, x + np.log1p(-np.exp(-np.abs(x))), np.log(np.expm1(np.minimum(x, 30.0))))

#: Largest k the exact homogeneous curve accepts (its cost is O(k²)).
MAX_TIMES = 20_000


@lru_cache(maxsize=8)
def _binomials(k: int) -> tuple[int, ...]:
    return tuple(math.comb(k, m) for m in range(k + 1))


def _band(epsilon: Fraction, eta: Fraction, k: int) -> range:
    """The ``ℓ`` in 1..k with ``−η < (ε − ℓη)/(k+1) < 0``."""
    low = math.floor(epsilon / eta) + 1  # ℓη > ε
    high = math.ceil((epsilon + (k + 1) * eta) / eta) - 1  # ℓη < ε + (k+1)η
    return range(max(low, 1), min(high, k) + 1)


def pair_probabilities(t: Fraction, eta: Fraction) -> tuple[arb, arb, arb, arb]:
    """Balls ``(p, 1 − p, q, 1 − q)`` of the worst pair with losses ``t`` and ``t + η``, ``−η < t < 0``."""
    scale = ball(eta).expm1()
    q = ball(-t).expm1() / scale
    one_minus_p = ball(t + eta).expm1() / scale
    p = ball(t + eta).exp() * q
    one_minus_q = ball(-t).exp() * one_minus_p
    return p, one_minus_p, q, one_minus_q


def _upper_tail(success: arb, failure: arb, ell: int, k: int, poly: arb_poly) -> arb:
    return success**k * poly.truncate(k - ell + 1)(failure / success)


#: Relative margin by which the float filter must separate an ℓ from the best one to drop it.
FILTER_MARGIN = 2.0**-20
_UNIT = 2.0**-53


def _filtered_rows(epsilon: Fraction, eta: Fraction, k: int, band: range) -> list[int]:
    """The ℓ of ``band`` that may maximise ``f(t*_ℓ, ℓ)``; every other ℓ is proved below one of them.

    At ``t = t*_ℓ`` every term of ``f`` is positive: ``P_i − e^ε Q_i = Q_i (e^{kt+iη} − e^ε)`` and
    ``kt + iη − ε = (i − ℓ)η − t``, so ``f(ℓ) = e^ε Σ_{i>=ℓ} Q_i (e^{(i−ℓ)η − t} − 1)``, a sum of
    positive terms.  Each is computed in float64 from correctly rounded ``t`` and ``t + η`` (exact
    rationals rounded once) by a few ``log``/``expm1``/``exp`` (each within a few ulp) and sums of
    at most ``k`` logarithms; its exponent's absolute error is at most ``16·u·S`` with
    ``S`` the sum of the magnitudes added (``u = 2⁻⁵³``), computed per row.  A row whose bound is
    above ``2⁻²⁴`` (or whose value is not finite) is kept.  Every value is then within a relative
    ``2⁻²⁰`` of the truth, so an ℓ whose value is below ``(1 − 2⁻¹⁸)`` times the largest cannot be
    the maximum: the caller evaluates exactly only the kept rows.
    """
    rows = np.arange(band.start, band.stop)
    if rows.size <= 8:
        return [int(r) for r in rows]
    try:
        return _filter(epsilon, eta, k, rows)
    except FLOAT_FAILURES:  # a number past float64 (η or ε near 1e308): no filter, every row exactly
        return [int(r) for r in rows]


def _filter(epsilon: Fraction, eta: Fraction, k: int, rows: np.ndarray) -> list[int]:
    # t = (ε − ℓη)/(k+1) = (A − ℓB)/D in integers; int / int is correctly rounded.
    denominator = epsilon.denominator * eta.denominator * (k + 1)
    a, b = epsilon.numerator * eta.denominator, eta.numerator * epsilon.denominator
    shift = eta.numerator * epsilon.denominator * (k + 1)
    t = np.array([(a - int(ell) * b) / denominator for ell in rows])
    s = np.array([(a - int(ell) * b + shift) / denominator for ell in rows])
    eta_f = float(eta)
    with np.errstate(all="ignore"):
        log_scale = float(log_expm1(eta_f))
        log_em1 = log_expm1(-t)
        log_q = log_em1 - log_scale
        log_1mq = -t + log_expm1(s) - log_scale
        i = np.arange(k + 1, dtype=float)
        steps = np.log((k - i[1:] + 1) / i[1:])
        log_c = np.concatenate(([0.0], np.cumsum(steps)))
        low = int(rows[0])
        i, log_c = i[low:], log_c[low:]
        j = i[None, :] - rows[:, None]
        weight = log_expm1(np.maximum(j, 0.0) * eta_f - t[:, None])
        terms = log_c[None, :] + i[None, :] * log_q[:, None] + (k - i[None, :]) * log_1mq[:, None] + weight
        terms[j < 0] = -np.inf
        top = terms.max(axis=1)
        log_f = top + np.log(np.exp(terms - top[:, None]).sum(axis=1))
        # the magnitudes added in any one exponent, row by row (an upper bound over i)
        size = (
            float(np.abs(steps).sum()) + k * (np.abs(log_q) + np.abs(log_1mq))
            + np.maximum(np.abs(log_em1), (k - rows) * eta_f - t + 1) + k
        )
        error = 16 * _UNIT * size + 2 * k * _UNIT
    trusted = np.isfinite(log_f) & np.isfinite(error) & (error <= 2.0**-24)
    if not trusted.any():
        return [int(r) for r in rows]
    best = log_f[trusted].max()
    keep = ~trusted | (log_f >= best + math.log1p(-(2.0**-18)))
    return [int(r) for r in rows[keep]]


def _delta_ends(epsilon: Fraction, eta: Fraction, k: int, rows: list[int]) -> tuple[Fraction, Fraction]:
    """The exact ends of ``max_ℓ f(t*_ℓ, ℓ)`` over ``rows`` (those :func:`_filtered_rows` kept), and 0."""
    poly = arb_poly(list(_binomials(k)))
    e_eps = ball(epsilon).exp()
    lo_best, hi_best = Fraction(0), Fraction(0)
    for ell in rows:
        p, one_minus_p, q, one_minus_q = pair_probabilities((epsilon - ell * eta) / (k + 1), eta)
        lo, hi = endpoints(_upper_tail(p, one_minus_p, ell, k, poly) - e_eps * _upper_tail(q, one_minus_q, ell, k, poly))
        lo_best, hi_best = max(lo_best, lo), max(hi_best, hi)
    return lo_best, hi_best


def optimal_delta(epsilon: Fraction, eta: Fraction, k: int) -> Enclosure:
    """An enclosure of the optimal δ(ε) of k non-adaptive η-BR mechanisms (relative width <= 1e-10).

    ``epsilon >= 0``, ``eta > 0`` rationals, ``1 <= k <= MAX_TIMES`` (checked by the callers).
    Only the ℓ that :func:`_filtered_rows` keeps are evaluated in balls; every other ℓ is proved below them.
    Exactly ``[0, 0]`` when ``ε >= kη``.
    """
    if epsilon >= k * eta:
        return Enclosure(Fraction(0), Fraction(0))
    rows = _filtered_rows(epsilon, eta, k, _band(epsilon, eta, k))
    return refine(lambda: _delta_ends(epsilon, eta, k, rows), f"the optimal delta at epsilon={epsilon}, eta={eta}, k={k}")


def optimal_delta_float(
    epsilon: float, eta: float, k: int, window: tuple[int, int] | None = None, stride: int = 1
) -> tuple[float, int]:
    """A float estimate of the same δ(ε) and the maximising ``ℓ`` (a filter only, never a decision).

    ``window`` limits the ``ℓ`` searched and ``stride`` thins them (the caller re-checks exactly).
    """
    if epsilon >= k * eta:
        return 0.0, 0
    low = max(math.floor(epsilon / eta) + 1, 1)
    high = min(math.ceil((epsilon + (k + 1) * eta) / eta) - 1, k)
    if window is not None:
        low, high = max(low, window[0]), min(high, window[1])
    if low > high:
        return 0.0, 0
    with np.errstate(all="ignore"):
        return _float_rows(epsilon, eta, k, low, high, stride)


def _float_rows(epsilon: float, eta: float, k: int, low: int, high: int, stride: int) -> tuple[float, int]:
    rows = np.arange(low, high + 1, stride)
    ells = rows.astype(float)
    t = (epsilon - ells * eta) / (k + 1)
    log_scale = float(log_expm1(eta))
    log_q = log_expm1(-t) - log_scale
    log_1mp = log_expm1(t + eta) - log_scale
    log_p = t + eta + log_q
    log_1mq = -t + log_1mp
    i = np.arange(k + 1, dtype=float)
    log_c = np.concatenate(([0.0], np.cumsum(np.log((k - i[1:] + 1) / i[1:]))))[low:]
    i = i[low:]  # only the terms i >= ℓ >= low enter a tail
    mask = i[None, :] >= rows[:, None]

    def log_tail(log_s: np.ndarray, log_f: np.ndarray) -> np.ndarray:
        terms = log_c[None, :] + i[None, :] * log_s[:, None] + (k - i[None, :]) * log_f[:, None]
        terms = np.where(mask, terms, -np.inf)
        top = terms.max(axis=1)
        return top + np.log(np.exp(terms - top[:, None]).sum(axis=1))

    # f = P-tail − e^ε Q-tail, in logs (e^ε overflows past ε = 709): e^{lp}(1 − e^{ε + lq − lp})
    lp = log_tail(log_p, log_1mp)
    gap = epsilon + log_tail(log_q, log_1mq) - lp
    f = np.where(gap < 0, np.exp(lp) * -np.expm1(np.minimum(gap, 0.0)), -np.inf)
    f = np.where(np.isfinite(f), f, -np.inf)
    best = int(np.argmax(f))
    return max(float(f[best]), 0.0), int(rows[best])
