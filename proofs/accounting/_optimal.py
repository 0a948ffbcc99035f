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
evaluated by flint, so a pass over every ``ℓ`` is O(k²) in C.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import numpy as np
from flint import arb, arb_poly

from ._balls import Enclosure, ball, endpoints, refine

__all__ = ["MAX_TIMES", "optimal_delta", "optimal_delta_float", "pair_probabilities"]

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


def _pmf(k: int, i: int, success: arb, failure: arb) -> arb:
    return arb(_binomials(k)[i]) * success**i * failure ** (k - i)


def _upper_tail_bound(k: int, ell: int, success: arb, failure: arb) -> arb | None:
    """A ball above ``P[Bin(k, x) >= ℓ]``: the terms from ℓ on fall at least by the ratio at ℓ, a geometric series; None if it does not fall."""
    if ell >= k:
        return _pmf(k, k, success, failure) if ell == k else arb(0)
    ratio = arb(k - ell) * success / (arb(ell + 1) * failure)
    if not ratio < 1:
        return None
    return _pmf(k, ell, success, failure) / (1 - ratio)


def _lower_tail_bound(k: int, m: int, success: arb, failure: arb) -> arb | None:
    """A ball above ``P[Bin(k, x) <= m]``, by the same geometric series downwards from m; None if it does not fall."""
    if m < 0:
        return arb(0)
    if m == 0:
        return failure**k
    ratio = arb(m) * failure / (arb(k - m + 1) * success)
    if not ratio < 1:
        return None
    return _pmf(k, m, success, failure) / (1 - ratio)


def _delta_ends(epsilon: Fraction, eta: Fraction, k: int, hint: int | None) -> tuple[Fraction, Fraction]:
    poly = arb_poly(list(_binomials(k)))
    e_eps = ball(epsilon).exp()
    band = _band(epsilon, eta, k)
    guess = optimal_delta_float(float(epsilon), float(eta), k)[1] if hint is None else hint
    # The ℓ the float filter ranks first are evaluated first; any other ℓ whose
    # geometric tail bound is below the best lower end found cannot be the maximum.
    first = [ell for ell in range(guess - 2, guess + 3) if ell in band]
    order = first + [ell for ell in band if ell not in first]
    lo_best, hi_best = Fraction(0), Fraction(0)
    for ell in order:
        t = (epsilon - ell * eta) / (k + 1)
        p, one_minus_p, q, one_minus_q = pair_probabilities(t, eta)
        if lo_best > 0:
            above = _upper_tail_bound(k, ell, p, one_minus_p)
            if above is not None and endpoints(above)[1] < lo_best:
                continue  # f <= P[Bin(k,p) >= ℓ] < lo_best
            below = _lower_tail_bound(k, ell - 1, q, one_minus_q)
            if below is not None and endpoints(1 - e_eps + e_eps * below)[1] < lo_best:
                continue  # f = 1 − e^ε + e^ε Q[Bin <= ℓ−1] − P[Bin <= ℓ−1]
        f = _upper_tail(p, one_minus_p, ell, k, poly) - e_eps * _upper_tail(q, one_minus_q, ell, k, poly)
        lo, hi = endpoints(f)
        lo_best, hi_best = max(lo_best, lo), max(hi_best, hi)
    return lo_best, hi_best


def optimal_delta(epsilon: Fraction, eta: Fraction, k: int, *, hint: int | None = None) -> Enclosure:
    """An enclosure of the optimal δ(ε) of k non-adaptive η-BR mechanisms (relative width <= 1e-10).

    ``epsilon >= 0``, ``eta > 0`` rationals, ``1 <= k <= MAX_TIMES`` (checked by the callers).
    ``hint``: an ℓ likely to maximise (only the order of work depends on it).
    Exactly ``[0, 0]`` when ``ε >= kη``.
    """
    if epsilon >= k * eta:
        return Enclosure(Fraction(0), Fraction(0))
    return refine(lambda: _delta_ends(epsilon, eta, k, hint), f"the optimal delta at epsilon={epsilon}, eta={eta}, k={k}")


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
    scale = math.expm1(eta)
    log_q = np.log(np.expm1(-t) / scale)
    log_1mp = np.log(np.expm1(t + eta) / scale)
    log_p = t + eta + log_q
    log_1mq = -t + log_1mp
    i = np.arange(k + 1, dtype=float)
    log_c = np.concatenate(([0.0], np.cumsum(np.log((k - i[1:] + 1) / i[1:]))))[low:]
    i = i[low:]  # only the terms i >= ℓ >= low enter a tail
    mask = i[None, :] >= rows[:, None]

    def tail(log_s: np.ndarray, log_f: np.ndarray) -> np.ndarray:
        terms = log_c[None, :] + i[None, :] * log_s[:, None] + (k - i[None, :]) * log_f[:, None]
        terms = np.where(mask, terms, -np.inf)
        top = terms.max(axis=1)
        return np.exp(top) * np.exp(terms - top[:, None]).sum(axis=1)

    f = tail(log_p, log_1mp) - math.exp(epsilon) * tail(log_q, log_1mq)
    f = np.where(np.isfinite(f), f, -np.inf)
    best = int(np.argmax(f))
    return max(float(f[best]), 0.0), int(rows[best])
