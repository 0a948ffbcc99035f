"""Floating-point filters for exponential sums, with a rigorous error bound.

As with exact geometric predicates, every sum ``S = Σ c_i·e^{y_i}`` is first
evaluated in vectorised float64 together with a bound ``E`` such that the
exact value lies in ``[S̃ − E, S̃ + E]``.  A sign is *decided* only when
``|S̃| > E``; otherwise the caller falls back to exact cancellation and ball
arithmetic (:mod:`expmech.impl.exact._expsum`).  A float never decides anything the
bound does not prove.

Error analysis (``u = 2^-53``, the unit roundoff of float64, round to nearest)
-------------------------------------------------------------------------------

Inputs are exact rationals: exponents ``y_i = P_i / C`` (integers ``P_i``,
``C > 0``, with the largest ``y_i`` shifted to exactly 0, so ``y_i <= 0``) and
coefficients ``c_i = N_i / D``.

1. *Exponents.* ``ỹ_i = fl(fl(P_i) / fl(C))``: three correctly rounded
   operations (integer→float conversions and one division; numpy and Python
   round integer conversions to nearest), so ``|ỹ_i − y_i| <= 3.0001·u·|y_i|
   <= 4u·|ỹ_i|``.  ``P_i`` and ``C`` must be below ``2^1000`` (else: no filter).
2. *exp.* We do **not** assume ``np.exp`` is correctly rounded.  We assume a
   relative error of at most ``EXP_REL = 2^-43`` (512 ulps) for normal
   results — a factor above 100 over the documented accuracy of numpy's and
   glibc's ``exp`` (< 4 ulps) — and an absolute error of at most
   ``TINY = 2^-1000`` where the result is subnormal or flushed to 0 (the true
   value is then below ``2^-1021``).  :func:`filter_enabled` checks the
   assumption on this platform against ball arithmetic on first use, with a
   further factor of 2^7 to spare (``<= 2^-50``); if it fails, every filter
   returns "undecided" and all decisions are exact.  Combining 1 and 2, for
   ``|ỹ_i| <= 800`` (anything below is flushed):
   ``e^{y_i} = fl(exp(ỹ_i))·(1 + θ_i) ± TINY`` with
   ``|θ_i| <= η = 2·(EXP_REL + 4u·min(max|ỹ|, 800))``.
3. *Coefficients.* ``c̃_i`` is ``c_i`` rounded by at most 4 correctly rounded
   operations: ``|c̃_i − c_i| <= δ_c·|c̃_i| + 2^-1074`` with ``δ_c = 4.01u``
   (``δ_c = 0`` where ``c̃_i`` is known exact, e.g. the counting measure).
4. *Products* ``t̃_i = fl(c̃_i·ẽ_i)`` add ``u·|t̃_i|`` (``+ 2^-1074`` if subnormal).
   Altogether ``|c_i e^{y_i} − t̃_i| <= ρ·|t̃_i| + (|c_i| + 1)·TINY`` with
   ``ρ = 2·(η + δ_c + 2u)`` (the factor 2 absorbs second-order terms; all of
   ``η, δ_c, u`` are below ``2^-40``).
5. *Summation.* Any order of ``n − 1`` float additions (numpy's pairwise
   ``sum``, its sequential ``cumsum``) satisfies
   ``|fl(Σ t̃_i) − Σ t̃_i| <= γ_{n−1}·Σ|t̃_i|``, ``γ_k = k·u / (1 − k·u)``
   (Higham, *Accuracy and Stability of Numerical Algorithms*, §4.2).

Hence ``|S − S̃| <= (γ_{n−1} + ρ)(1 + γ_{n−1})·T + n·(c_max + 1)·TINY`` where
``T = Σ|t̃_i|``.  The bound used is twice that, evaluated in floats (the
factor 2 also covers the rounding of the bound's own few operations; we
require ``γ_n + ρ <= 2^-10``, i.e. ``n <= 2^42``, else no filter).

The sampler's boundaries compare ``U·Z`` with prefix sums; its decisions add
a slack of ``2^-45·Z`` (:data:`SLACK`), far above the rounding error (a few
``u·Z``) of the handful of float operations in each comparison.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = [
    "EXP_REL",
    "SLACK",
    "TINY",
    "FloatSum",
    "filter_enabled",
    "float_exponents",
    "float_coefficients",
    "gamma",
    "summarise",
]

U = 2.0**-53
#: Assumed bound on the relative error of ``np.exp`` on normal results (512 ulps).
EXP_REL = 2.0**-43
#: Absolute error allowed per term where ``exp`` underflows (subnormal or 0).
TINY = 2.0**-1000
#: Relative slack of the sampler's float comparisons (see the module docstring).
SLACK = 2.0**-45
#: Self-check threshold: measured ``np.exp`` error must be at most this (2^7 below EXP_REL).
_CHECKED_REL = 2.0**-50
#: No filter when the accumulated relative error bound exceeds this.
_MAX_RELATIVE = 2.0**-10
#: Magnitude limit for integers converted to floats.
_MAX_BITS = 1000

_ENABLED: bool | None = None


@functools.lru_cache(maxsize=256)
def gamma(n: int) -> float:
    """``γ_n = n·u / (1 − n·u)``, rounded up generously (times ``1 + 2^-20``)."""
    nu = n * U
    return nu / (1.0 - nu) * (1.0 + 2.0**-20) if nu < 0.5 else math.inf


def filter_enabled() -> bool:
    """Whether ``np.exp`` on this platform meets the filter's assumption (checked once, on first use).

    ``np.exp`` is compared with python-flint ball arithmetic at 200 bits on
    fixed and random arguments across ``[−745, 0]`` and near 0; the worst
    relative error must be ``<= 2^-50``.  If not, filters never decide.
    """
    global _ENABLED
    if _ENABLED is None:
        _ENABLED = _self_check()
    return _ENABLED


def _self_check() -> bool:
    from flint import arb, ctx

    generator = np.random.default_rng(20261202)
    points = np.concatenate(
        [
            -generator.uniform(0, 745, 3000),
            -generator.uniform(0, 1, 1000),
            -generator.exponential(1e-6, 500),
            -np.arange(0, 709, 0.5),
            np.array([0.0, -1e-300, -2.0**-30, -0.5, -1.0, -708.0, -708.39]),
        ]
    )
    values = np.exp(points)
    worst = 0.0
    with ctx.workprec(200):
        for x, value in zip(points.tolist(), values.tolist()):
            exact = arb(Fraction(x).numerator) / arb(Fraction(x).denominator)
            truth = exact.exp()
            if value < 2.0**-1021:  # subnormal results carry the TINY allowance instead
                if not abs(truth - value) < TINY:
                    return False
                continue
            error = abs((truth - value) / truth)
            worst = max(worst, float(error.upper()))
    return worst <= _CHECKED_REL


def float_exponents(numerators: np.ndarray, denominator: int) -> np.ndarray | None:
    """``ỹ = fl(fl(P)/fl(C))`` for integer ``P <= 0`` and ``C > 0`` (step 1), or None if out of range."""
    if denominator.bit_length() > _MAX_BITS:
        return None
    if numerators.dtype == object:
        if numerators.size and max(abs(int(v)) for v in (numerators.min(), numerators.max())).bit_length() > _MAX_BITS:
            return None
        floats = numerators.astype(np.float64)
    else:
        floats = numerators.astype(np.float64)
    if denominator == 1:
        return floats
    return floats / float(denominator)


def float_coefficients(numerators: np.ndarray, denominator: int) -> tuple[np.ndarray, float] | None:
    """``c̃ = fl(fl(N)/fl(D))`` and its relative error bound ``δ_c`` (step 3), or None if out of range."""
    if denominator.bit_length() > _MAX_BITS:
        return None
    if numerators.dtype == object:
        if numerators.size and max(abs(int(numerators.min())), abs(int(numerators.max()))).bit_length() > _MAX_BITS:
            return None
        floats = numerators.astype(np.float64)
        exact = False
    else:
        floats = numerators.astype(np.float64)
        exact = not numerators.size or int(np.max(np.abs(numerators))) < 2**53
    if denominator == 1:
        return floats, 0.0 if exact else U * 1.01
    return floats / float(denominator), 4.01 * U


@dataclass(frozen=True)
class FloatSum:
    """``S ∈ [value − error, value + error]`` for an exponential sum; floats, both finite.

    ``magnitude`` bounds ``Σ|terms|`` (used when sums are combined).
    """

    value: float
    error: float
    magnitude: float

    def sign(self) -> int | None:
        """The sign, where the bound decides it; None otherwise."""
        if self.value > self.error:
            return 1
        if self.value < -self.error:
            return -1
        return None

    def enclosure(self) -> tuple[Fraction, Fraction]:
        """Exact rationals ``(lo, hi)`` around the value."""
        middle, radius = Fraction(self.value), Fraction(self.error)
        return middle - radius, middle + radius


def summarise(coefficients: np.ndarray | None, delta_c: float, exponents: np.ndarray) -> FloatSum | None:
    """The filter for ``Σ c̃_i e^{ỹ_i}`` (``ỹ <= 0`` from :func:`float_exponents`); None if it cannot apply.

    ``coefficients`` None means every ``c_i = 1`` exactly.
    """
    if not filter_enabled():
        return None
    n = exponents.size
    if n == 0:
        return FloatSum(0.0, 0.0, 0.0)
    lowest = float(exponents.min())
    if not math.isfinite(lowest):
        return None
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        powers = np.exp(exponents)
        terms = powers if coefficients is None else coefficients * powers
        total = float(np.sum(terms))
        magnitude = total if coefficients is None else float(np.sum(np.abs(terms)))
        largest_c = 1.0 if coefficients is None else float(np.max(np.abs(coefficients)))
    if not (math.isfinite(total) and math.isfinite(magnitude) and math.isfinite(largest_c)):
        return None
    eta = 2.0 * (EXP_REL + 4.0 * U * min(-lowest, 800.0))
    rho = 2.0 * (eta + delta_c + 2.0 * U)
    g = gamma(n)
    relative = (g + rho) * (1.0 + g)
    if relative > _MAX_RELATIVE:
        return None
    error = 2.0 * (relative * magnitude + n * (largest_c + 1.0) * TINY)
    return FloatSum(total, error, magnitude * (1.0 + relative) + n * (largest_c + 1.0) * TINY)


def prefix_sums(
    coefficients: np.ndarray | None, delta_c: float, exponents: np.ndarray, *, lowest: float | None = None
) -> tuple[np.ndarray, float, float] | None:
    """Float prefix sums ``ŝ_k`` of non-negative terms with ``|S_k − ŝ_k| <= rel·ŝ_k + (k+1)·absolute``.

    Returns ``(ŝ, rel, absolute)``, or None if the filter cannot apply.  The
    coefficients must be >= 0 and the exponents ``<= 0`` (from
    :func:`float_exponents`, or with at most that error).  The bound is the
    analysis above with ``T_k = Σ_{i<=k} t̃_i <= ŝ_k (1 + 2γ)`` for
    non-negative terms, doubled.  ``lowest``, if given, is a lower bound on
    the exponents known to the caller (it saves a pass).
    """
    if not (_ENABLED or filter_enabled()):
        return None
    n = exponents.size
    if lowest is None:
        lowest = float(exponents.min()) if n else 0.0
    if lowest != lowest or lowest == -math.inf:
        return None
    powers = np.exp(exponents)  # underflow to 0 is silent in numpy and covered by TINY
    prefix = np.cumsum(powers if coefficients is None else coefficients * powers)
    largest_c = 1.0 if coefficients is None else (float(coefficients.max()) if n else 0.0)
    if n and not (math.isfinite(float(prefix[-1])) and math.isfinite(largest_c)):
        return None
    eta = 2.0 * (EXP_REL + 4.0 * U * min(-lowest, 800.0))
    rho = 2.0 * (eta + delta_c + 2.0 * U)
    g = gamma(max(n, 1))
    relative = (g + rho) * (1.0 + g) * (1.0 + 2.0 * g)
    if relative > _MAX_RELATIVE:
        return None
    return prefix, 2.0 * relative, 2.0 * (largest_c + 1.0) * TINY
