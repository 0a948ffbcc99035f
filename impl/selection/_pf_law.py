"""Permute-and-flip's exact law in polynomial time.

Permute-and-flip visits the outputs in a uniformly random order and stops at
the first ``r`` whose coin, of heads-probability ``p_r = e^{−ε (q* − q_r)}``,
lands heads.  Give every output an independent uniform arrival time ``U_j``;
given ``U_r = t`` each other output comes earlier with probability ``t`` and
then rejects with probability ``1 − p_j``, so

    P[r] = p_r · ∫₀¹ Π_{j≠r} (1 − t·p_j) dt.                        (1)

(Equivalently, report-noisy-max with exponential noise: substituting
``t = e^{−ε(z − q*)}`` in ``∫ ε e^{−ε(z−q_r)} Π_{j≠r} (1 − e^{−ε(z−q_j)}) dz``
gives (1); spec statement ``rnm-exponential``.)

The integrand is a polynomial of degree ``m − 1`` in ``t``, so Gauss–Legendre
quadrature with ``⌈m/2⌉`` nodes is *exact* for it.  Writing each factor as
``s + t·a_j`` with ``s = 1 − t`` and ``a_j = 1 − p_j`` makes every quantity a
sum or product of non-negative numbers: no cancellation, at any ``m``.  Three
routes compute (1), all for every output at once (outputs with equal scores
share one value):

* **float filter** — vectorised float64 with a rigorous bound.  Nodes,
  weights, ``a_j`` and ``p_j`` come from python-flint balls as directed float
  bounds; the integrand is monotone in each of them, so evaluating once at the
  lower and once at the upper ends brackets (1), and ``+ × ÷`` of positives are
  correctly rounded, so ``K`` operations move a value by at most a factor
  ``(1 ± u)^K``.  Products are renormalised with ``frexp`` (exact) so nothing
  underflows.  About 35 bits at |R| = 10⁴, in milliseconds.
* **ball arithmetic** — the same sum in python-flint ``arb`` at any precision.
* **exact** — with every gap ``q* − q_j = n_j·δ`` on a common rational grid
  ``δ``, (1) is ``x^{n_r}`` times a polynomial in ``x = e^{−εδ}`` with rational
  coefficients, built from integer polynomials (python-flint ``fmpz_poly``)
  and returned as an :class:`~expmech.impl.ExpSum`.  Its degree is
  ``Σ_j n_j``; a cap keeps it affordable, beyond which only the enclosures
  are offered (comparisons then raise
  :class:`~expmech.spec.PrecisionExhausted` rather than guess).
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np
from flint import arb, ctx, fmpq, fmpq_poly, fmpz_poly

from expmech.spec import InvalidArgument, PrecisionExhausted
from expmech.spec.internal import describe

from ..exact._exactreal import ExpRatio, LogExpRatio
from ..exact._balls import _check_bits, _exact_fraction, arb_from_fraction, ball_endpoints
from ..exact._expsum import ExpSum
from ..sampling._coins import sample_permute_and_flip
from ..sampling._random import resolve_rng
from ..exponential._finite import PrivacyLoss
from ..exact._refined import RefinedValue

if TYPE_CHECKING:
    from ._permute_flip import PermuteAndFlip

__all__ = [
    "DEFAULT_MAX_DEGREE",
    "PermuteAndFlipDistribution",
    "log_ratio_loss",
    "permute_and_flip_enclosures",
    "permute_and_flip_exact",
]

#: Largest degree in ``x = e^{−εδ}`` the exact route builds.
DEFAULT_MAX_DEGREE = 20_000
_UNIT = 2.0**-53
_FLOAT_BITS = 30  # what the float filter is trusted to reach; more goes to balls
_MAX_PRECISION = 1 << 14


# -- the shape of one score vector ------------------------------------------------


class _Levels:
    """Distinct gaps ``q* − q`` (increasing, the first 0), their counts, and each output's level."""

    __slots__ = ("gaps", "counts", "level_of", "size")

    def __init__(self, scores: Sequence[int | Fraction]) -> None:
        best = max(scores)
        gaps = sorted({Fraction(best - s) for s in scores})
        index = {g: i for i, g in enumerate(gaps)}
        self.gaps: tuple[Fraction, ...] = tuple(gaps)
        self.level_of: tuple[int, ...] = tuple(index[Fraction(best - s)] for s in scores)
        counts = [0] * len(gaps)
        for level in self.level_of:
            counts[level] += 1
        self.counts: tuple[int, ...] = tuple(counts)
        self.size = len(scores)


# -- Gauss–Legendre on [0, 1] -------------------------------------------------------


@functools.lru_cache(maxsize=32)
def _arb_rule(nodes: int, precision: int) -> tuple[tuple[arb, arb, arb], ...]:
    """``(t, s = 1 − t, W)`` balls of the ``nodes``-point Gauss–Legendre rule on [0, 1]."""
    rule = []
    with ctx.workprec(precision):
        for k in range((nodes + 1) // 2):
            x, w = arb.legendre_p_root(nodes, k, weight=True)
            t, s, half = (1 + x) / 2, (1 - x) / 2, w / 2
            rule.append((t, s, half))
            if 2 * k + 1 != nodes:  # mirror, except the middle root 0 of an odd rule
                rule.append((s, t, half))
    return tuple(rule)


def _directed(ball: arb) -> tuple[float, float]:
    """Floats ``lo <= ball <= hi`` (directed rounding of the ball's exact endpoints)."""
    lower, upper = ball.lower(), ball.upper()
    lo, hi = float(lower), float(upper)
    if arb(lo) > lower:
        lo = math.nextafter(lo, -math.inf)
    if arb(hi) < upper:
        hi = math.nextafter(hi, math.inf)
    return lo, hi


@functools.lru_cache(maxsize=16)
def _float_rule(nodes: int) -> tuple[np.ndarray, ...]:
    """Directed float bounds ``t_lo, t_hi, s_lo, s_hi, W_lo, W_hi`` of the rule's nodes and weights."""
    columns: list[list[float]] = [[], [], [], [], [], []]
    for t, s, w in _arb_rule(nodes, 192):
        for offset, ball in ((0, t), (2, s), (4, w)):
            lo, hi = _directed(ball)
            columns[offset].append(lo)
            columns[offset + 1].append(hi)
    return tuple(np.array(column, dtype=np.float64) for column in columns)


def _node_count(size: int) -> int:
    return max(1, (size + 1) // 2)  # exact for degree 2·nodes − 1 >= size − 1


# -- route 1: the float filter ---------------------------------------------------------


def _coins(levels: _Levels, epsilon: Fraction, precision: int = 128) -> list[tuple[arb, arb]]:
    """Balls ``(p, a = 1 − p)`` per level, ``p = e^{−ε·gap}``."""
    result = []
    with ctx.workprec(precision):
        for gap in levels.gaps:
            exponent = arb_from_fraction(-epsilon * gap)
            result.append((exponent.exp(), -exponent.expm1()))
    return result


def _float_sums(
    a: np.ndarray, counts: Sequence[int], t: np.ndarray, s: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, int, int] | None:
    """Float ``S_ℓ = Σ_i W_i Π_j (s_i + t_i a_j) / (s_i + t_i a_ℓ)`` as ``(S, E, K)``: value ``S·2^E``, ``K`` operations.

    ``None`` if the rule is too extreme for the underflow guards (the caller
    then uses balls).
    """
    s_min = float(s.min())
    if s_min <= 2.0**-60 or float(w.max()) / float(w.min()) / s_min >= 2.0**59:
        return None
    bits = math.ceil(-math.log2(s_min)) + 1
    block = max(1, 960 // bits)
    rows = np.repeat(a, counts)
    mantissa = np.ones_like(t)
    exponent = np.zeros(t.shape, dtype=np.int64)
    for start in range(0, rows.size, block):
        factors = s[None, :] + t[None, :] * rows[start : start + block, None]
        mantissa = mantissa * factors.prod(axis=0)
        mantissa, step = np.frexp(mantissa)
        exponent += step
    top = int(exponent.max())
    shift = exponent - top
    keep = shift >= -960
    scaled = np.where(keep, w * np.ldexp(mantissa, np.where(keep, shift, 0)), 0.0)
    sums = np.empty(a.size, dtype=np.float64)
    chunk = max(1, (1 << 20) // t.size)
    for start in range(0, a.size, chunk):
        denominators = s[None, :] + t[None, :] * a[start : start + chunk, None]
        sums[start : start + chunk] = (scaled[None, :] / denominators).sum(axis=1)
    operations = 4 * rows.size + t.size + 16
    return sums, top, operations


def _float_enclosures(levels: _Levels, epsilon: Fraction) -> list[tuple[Fraction, Fraction]] | None:
    """Rigorous per-level enclosures of (1) from two float passes, or ``None`` if the guards fail."""
    nodes = _node_count(levels.size)
    t_lo, t_hi, s_lo, s_hi, w_lo, w_hi = _float_rule(nodes)
    coins = _coins(levels, epsilon)
    a_bounds = [_directed(a) for _, a in coins]
    a_lo = np.array([lo for lo, _ in a_bounds], dtype=np.float64)
    a_hi = np.array([hi for _, hi in a_bounds], dtype=np.float64)
    lower = _float_sums(np.maximum(a_lo, 0.0), levels.counts, t_lo, s_lo, w_lo)
    upper = _float_sums(np.minimum(a_hi, 1.0), levels.counts, t_hi, s_hi, w_hi)
    if lower is None or upper is None:
        return None
    (sums_lo, top_lo, k_lo), (sums_hi, top_hi, k_hi) = lower, upper
    operations = max(k_lo, k_hi)
    if operations * _UNIT >= 0.25:
        return None
    gamma = Fraction(operations, 2**53) / (1 - Fraction(operations, 2**53))
    result = []
    with ctx.workprec(96):
        shrink = 1 / arb_from_fraction(1 + gamma)
        grow = arb_from_fraction((1 + Fraction(1, 2**850)) / (1 - gamma))
        scale_lo, scale_hi = arb(2) ** top_lo, arb(2) ** top_hi
        for level, (p, _) in enumerate(coins):
            low_end = (p * arb(float(sums_lo[level])) * scale_lo * shrink).lower()
            high_end = (p * arb(float(sums_hi[level])) * scale_hi * grow).upper()
            lo = max(_exact_fraction(low_end), Fraction(0))
            result.append((lo, min(_exact_fraction(high_end), Fraction(1))))
    return result


# -- route 2: ball arithmetic -----------------------------------------------------------


def _arb_enclosures(levels: _Levels, epsilon: Fraction, precision: int) -> list[tuple[Fraction, Fraction]]:
    """Per-level enclosures of (1) in ``arb`` at ``precision`` bits."""
    rule = _arb_rule(_node_count(levels.size), precision + 32)
    coins = _coins(levels, epsilon, precision + 32)
    result = []
    with ctx.workprec(precision + 32):
        totals = []
        for t, s, w in rule:
            factors = [s + t * a for _, a in coins]
            product = arb(1)
            for factor, count in zip(factors, levels.counts):
                product *= factor**count
            totals.append((w * product, factors))
        for level, (p, _) in enumerate(coins):
            total = arb(0)
            for weighted, factors in totals:
                total += weighted / factors[level]
            lo, hi = ball_endpoints(p * total)
            result.append((max(lo, Fraction(0)), min(hi, Fraction(1))))
    return result


# -- route 3: exact --------------------------------------------------------------------


def _grid(gaps: Sequence[Fraction]) -> Fraction:
    """The largest rational ``δ`` of which every gap is an integer multiple (1 if all gaps are 0)."""
    positive = [g for g in gaps if g]
    if not positive:
        return Fraction(1)
    denominator = math.lcm(*(g.denominator for g in positive))
    numerator = math.gcd(*(g.numerator * (denominator // g.denominator) for g in positive))
    return Fraction(numerator, denominator)


def _exact_levels(levels: _Levels, epsilon: Fraction, max_degree: int) -> list[ExpSum]:
    """(1) per level as exact ``ExpSum`` values; :class:`PrecisionExhausted` past ``max_degree``."""
    delta = _grid(levels.gaps)
    powers = [int(g / delta) for g in levels.gaps]
    degree = sum(n * c for n, c in zip(powers, levels.counts))
    if degree > max_degree:
        raise PrecisionExhausted(
            f"the exact permute-and-flip law here is a polynomial of degree {degree} in e^(-ε·{delta}), "
            f"over max_degree={max_degree}; only enclosures are available"
        )
    monomials = [fmpz_poly([0] * n + [1]) for n in powers]
    # coefficients (in t) of Π_j (1 − t·x^{n_j}), each an integer polynomial in x
    coefficients = [fmpz_poly([1])]
    for monomial, count in zip(monomials, levels.counts):
        for _ in range(count):
            coefficients.append(fmpz_poly([]))
            for k in range(len(coefficients) - 1, 0, -1):
                coefficients[k] = coefficients[k] - monomial * coefficients[k - 1]
    step = -epsilon * delta
    result = []
    for monomial in monomials:
        # divide by (1 − t·x^{n_ℓ}) and integrate over t in [0, 1]
        quotient = coefficients[0]
        integral = fmpq_poly(quotient)
        for k in range(1, levels.size):
            quotient = coefficients[k] + monomial * quotient
            integral += fmpq_poly(quotient) / (k + 1)
        integral *= fmpq_poly(monomial)
        terms = []
        for power, coefficient in enumerate(integral.coeffs()):
            if coefficient != 0:
                value = fmpq(coefficient)
                terms.append((Fraction(int(value.p), int(value.q)), step * power))
        result.append(ExpSum.weighted_exps(terms))
    return result


def permute_and_flip_exact(
    scores: Sequence[int | Fraction], epsilon: Fraction, *, max_degree: int = DEFAULT_MAX_DEGREE
) -> tuple[ExpSum, ...]:
    """Exact ``P[r]`` of permute-and-flip for each score, as :class:`ExpSum` values (the exact route above)."""
    levels = _Levels(scores)
    per_level = _exact_levels(levels, epsilon, max_degree)
    return tuple(per_level[level] for level in levels.level_of)


def permute_and_flip_enclosures(
    scores: Sequence[int | Fraction], epsilon: Fraction, *, bits: int = _FLOAT_BITS
) -> tuple[tuple[Fraction, Fraction], ...]:
    """Rigorous rational enclosures of ``P[r]`` for each score, of relative width about ``2**-bits``.

    Tries the float filter, then balls at rising precision.  Each pair is
    correct whatever its width; the width reaches ``2**-bits`` unless
    :class:`PrecisionExhausted` is raised.
    """
    levels = _Levels(scores)
    per_level = _LevelCache(levels, epsilon).enclosures(_check_bits(bits))
    return tuple(per_level[level] for level in levels.level_of)


class _LevelCache:
    """Per-level enclosures at each requested width, computed once."""

    __slots__ = ("levels", "epsilon", "_by_bits", "_exact")

    def __init__(self, levels: _Levels, epsilon: Fraction) -> None:
        self.levels, self.epsilon = levels, epsilon
        self._by_bits: dict[int, list[tuple[Fraction, Fraction]]] = {}
        self._exact: list[ExpSum] | None = None

    def enclosures(self, bits: int) -> list[tuple[Fraction, Fraction]]:
        known = [b for b in self._by_bits if b >= bits]
        if known:
            return self._by_bits[min(known)]
        result = None
        if len(self.levels.gaps) == 1:
            share = Fraction(1, self.levels.size)
            result = [(share, share)]
        elif bits <= _FLOAT_BITS:
            result = _float_enclosures(self.levels, self.epsilon)
            if result is not None and not _narrow(result, bits):
                result = None
        precision = bits + 32 + self.levels.size.bit_length()
        while result is None:
            candidate = _arb_enclosures(self.levels, self.epsilon, precision)
            if _narrow(candidate, bits):
                result = candidate
            elif precision >= _MAX_PRECISION:
                exact = self.exact()
                result = [value.enclose(bits) for value in exact]
            else:
                precision = min(2 * precision, _MAX_PRECISION)
        self._by_bits[bits] = result
        return result

    def exact(self, max_degree: int = DEFAULT_MAX_DEGREE) -> list[ExpSum]:
        if self._exact is None:
            self._exact = _exact_levels(self.levels, self.epsilon, max_degree)
        return self._exact


def _narrow(enclosures: Sequence[tuple[Fraction, Fraction]], bits: int) -> bool:
    scale = Fraction(1, 2**bits)
    return all(lo > 0 and hi - lo <= scale * lo for lo, hi in enclosures)


# -- the distribution -------------------------------------------------------------------


class PermuteAndFlipDistribution:
    """The exact output law of permute-and-flip on one dataset.

    Built by :meth:`PermuteAndFlip.distribution`.  ``probability(r)`` is a
    :class:`RefinedValue` (enclosures of any width, exact form on demand);
    ``enclose(r, bits)`` gives rationals ``lo <= P[r] <= hi`` of relative width
    at most ``2**-bits``; ``exact_probability(r)`` the exact ``ExpSum``.
    ``|R| = 1000`` costs a few milliseconds for 30-bit enclosures of every
    output.
    """

    __slots__ = ("_mechanism", "_scores", "_levels", "_cache", "_index")

    def __init__(self, mechanism: PermuteAndFlip, scores: tuple[int | Fraction, ...]) -> None:
        self._mechanism = mechanism
        self._scores = scores
        self._levels = _Levels(scores)
        self._cache = _LevelCache(self._levels, mechanism.epsilon)
        self._index = {r: i for i, r in enumerate(mechanism.outputs)}

    @property
    def mechanism(self) -> PermuteAndFlip:
        """The mechanism this is the law of."""
        return self._mechanism

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The range, in the mechanism's order."""
        return self._mechanism.outputs

    @property
    def scores(self) -> tuple[int | Fraction, ...]:
        """``q(dataset, r)`` per output, exactly."""
        return self._scores

    def _position(self, r: Hashable) -> int:
        try:
            return self._index[r]
        except (KeyError, TypeError):
            raise InvalidArgument(f"r={describe(r)} is not an output of this mechanism", parameter="r", value=r) from None

    def enclosures(self, bits: int = _FLOAT_BITS) -> tuple[tuple[Fraction, Fraction], ...]:
        """``(lo, hi)`` for every output in order, each of relative width at most ``2**-bits``."""
        per_level = self._cache.enclosures(_check_bits(bits))
        return tuple(per_level[level] for level in self._levels.level_of)

    def enclose(self, r: Hashable, bits: int = 53) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` with ``lo <= P[r] <= hi`` and ``hi − lo <= 2**-bits · P[r]``."""
        level = self._levels.level_of[self._position(r)]
        return self._cache.enclosures(_check_bits(bits))[level]

    def exact_probability(self, r: Hashable, *, max_degree: int = DEFAULT_MAX_DEGREE) -> ExpSum:
        """``P[r]`` as an exact :class:`ExpSum`; :class:`PrecisionExhausted` past ``max_degree`` (see the module)."""
        level = self._levels.level_of[self._position(r)]
        return self._cache.exact(max_degree)[level]

    def probability(self, r: Hashable) -> RefinedValue:
        """``P[r]`` as a :class:`RefinedValue`: exact comparisons, enclosures first."""
        position = self._position(r)
        output = self.outputs[position]
        return RefinedValue(
            lambda bits: self.enclose(output, bits),
            exact=lambda: ExpRatio._trusted(self.exact_probability(output), ExpSum.rational(1)),
            label=f"P[{output!r}]",
        )

    def approximate(self) -> dict[Hashable, float]:
        """``{r: float(P[r])}``, for display and plots only."""
        return {r: float((lo + hi) / 2) for r, (lo, hi) in zip(self.outputs, self.enclosures())}

    def sample(self, *, rng: random.Random | None = None) -> Hashable:
        """One exact draw (the mechanism itself: random order, exact coins)."""
        index = sample_permute_and_flip(self._scores, self._mechanism.epsilon, resolve_rng(rng))
        return self.outputs[index]

    def privacy_loss(self, other: PermuteAndFlipDistribution) -> PrivacyLoss:
        """The exact ``max_r |ln P_self(r) − ln P_other(r)|``, as enclosures with an exact fallback."""
        if not isinstance(other, PermuteAndFlipDistribution) or other._mechanism is not self._mechanism:
            raise InvalidArgument(
                f"other={describe(other)} must be a PermuteAndFlipDistribution of the same mechanism",
                parameter="other",
                value=other,
            )
        return log_ratio_loss(self.outputs, self.enclose, other.enclose, self._exact_pair(other))

    def _exact_pair(self, other: PermuteAndFlipDistribution) -> Any:
        def exact() -> list[tuple[ExpRatio, ExpRatio]]:
            one = ExpSum.rational(1)
            return [
                (ExpRatio._trusted(self.exact_probability(r), one), ExpRatio._trusted(other.exact_probability(r), one))
                for r in self.outputs
            ]

        return exact

    def __repr__(self) -> str:
        return f"PermuteAndFlipDistribution(<{len(self.outputs)} outputs>, epsilon={self._mechanism.epsilon})"


def log_ratio_loss(outputs: Sequence[Hashable], enclose1: Any, enclose2: Any, exact_pairs: Any) -> PrivacyLoss:
    """``max_r |ln P1(r) − ln P2(r)|`` from per-output enclosures ``enclose(r, bits)`` of two laws.

    ``exact_pairs()`` returns ``[(P1(r), P2(r)), …]`` as exact ``ExpRatio``
    values for the exact fallback.  Outputs impossible under both laws are
    skipped; one possible under only one law gives an infinite loss
    (:class:`InvalidArgument`: the laws are not mutually absolutely continuous).
    """
    best: dict[str, Any] = {}

    def enclose(bits: int) -> tuple[Fraction, Fraction]:
        lo_max, hi_max = Fraction(0), Fraction(0)
        for r in outputs:
            lo1, hi1 = enclose1(r, bits + 4)
            lo2, hi2 = enclose2(r, bits + 4)
            if hi1 == 0 and hi2 == 0:
                continue
            if lo1 <= 0 or lo2 <= 0:
                raise InvalidArgument(f"output {r!r} is impossible under one law only: the loss is infinite", parameter="r", value=r)
            up_lo, up_hi = _log_bounds(lo1 / hi2, hi1 / lo2, bits + 8)
            low_lo, low_hi = -up_hi, -up_lo
            candidate_lo = max(up_lo, low_lo, Fraction(0))
            candidate_hi = max(up_hi, low_hi)
            if candidate_hi > hi_max or not best:
                best["output"], best["first"] = r, up_hi >= low_hi
            lo_max, hi_max = max(lo_max, candidate_lo), max(hi_max, candidate_hi)
        return lo_max, hi_max

    def exact() -> LogExpRatio:
        winner: LogExpRatio | None = None
        for (p1, p2), r in zip(exact_pairs(), outputs):
            if p1.sign() == 0 and p2.sign() == 0:
                continue
            up = LogExpRatio._trusted(p1.numerator * p2.denominator, p2.numerator * p1.denominator)
            for candidate in (up, -up):
                if winner is None or candidate > winner:
                    winner = candidate
        assert winner is not None
        return winner

    value = RefinedValue(enclose, exact=exact, label="privacy loss")
    value.enclose(30)
    return PrivacyLoss(value=value, output=best.get("output"), larger_on_first=bool(best.get("first", True)))


def _log_bounds(lo: Fraction, hi: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals around ``[ln lo, ln hi]`` (``0 < lo <= hi``)."""
    with ctx.workprec(bits + 64):
        low = ball_endpoints(arb(fmpq(lo.numerator, lo.denominator)).log())[0]
        high = ball_endpoints(arb(fmpq(hi.numerator, hi.denominator)).log())[1]
    return low, high
