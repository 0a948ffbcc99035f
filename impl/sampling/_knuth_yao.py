"""Knuth–Yao draws over the levels of the scores: exact, at float speed, within ``H + 2`` random bits.

The outputs of the exponential mechanism with counting measure and scores
``q_i = top − g_i / d`` (``g_i >= 0`` integers, one shared denominator ``d``)
fall into *levels*: the outputs of one gap ``g`` all have the probability
``p_g = e^{−λ g} / Z`` (``λ = ε / d``, ``Z = Σ_g m_g e^{−λ g}``, ``m_g`` the
number of outputs at gap ``g``).  Scores of counts, sums and sizes take few
distinct values, so there are few levels, and they are read off the score
vector with one ``bincount``.

**The draw** is Knuth and Yao's (1976) discrete distribution generating tree,
walked on random bits: at depth ``k`` every output whose probability has a 1
in binary place ``k`` owns one leaf, and ``S_k = Σ_g m_g ⌊p_g 2^k⌋`` fixes
how many of the ``2^k`` nodes of depth ``k`` are taken.  Placing the ``N_k =
2^k − S_k`` live nodes first, the walk reads bits into ``V_k`` (the first
``k`` bits as an integer) and stops at the first ``k`` with ``V_k >= N_k``;
then ``V_k − N_k`` numbers the leaf among the depth-``k`` leaves (levels by
increasing gap, outputs of a level in index order).  Each output ``i`` is
returned with probability ``Σ_k bit_k(p_i) 2^{−k} = p_i`` exactly, and the
expected number of bits read is below ``H + 2`` (Knuth–Yao), ``H`` the
entropy of the law.  The walk stops on the bits it has read, so the bits it
did not read stay independent of its output and serve the next draw
(:mod:`~expmech.impl.sampling._bits`).

**Exactness.** A float decides nothing.  ``⌊p_g 2^k⌋`` is read from
``x_g = w̃_g · fl(2^52 / Z̃)``, whose relative error is bounded rigorously
(the weight ``w̃_g = fl(exp(fl(−g·fl(λ))))`` as in
:mod:`~expmech.impl.exact._floatfilter`, the dot product ``Z̃`` by Higham's
``γ``): ``lo_g = ⌊x_g (1 − 2δ)⌋ <= ⌊p_g 2^52⌋ <= hi_g = ⌊x_g (1 + 2δ)⌋``,
and ``⌊p_g 2^k⌋ = lo_g >> (52 − k)`` is used only where ``hi_g`` gives the
same.  Outputs past the cutoff gap ``G`` (chosen so that each has
probability below ``2^{−64} / n``) own no leaf above depth 64.  The walk itself
runs on the integer floors of those bounds (:mod:`~expmech.impl.sampling._ky_integers`:
a few shifts a depth); where they leave a floor open, the float walk reads the
same bits again with an exact resolver of that one floor.  Any walk that
needs a place the floats leave open (about one draw in 2^30) is finished by
:class:`_ExactLevels`, which takes the same walk over every level with each
``⌊p_g 2^k⌋`` decided by exact :class:`~expmech.impl.exact._expsum.ExpSum`
signs; one level (every score equal) is the uniform law, walked in integers.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from ..exact._expsum import ExpSum
from ..exact._floatfilter import EXP_REL, U, filter_enabled, gamma
from ..exact._rationals import RationalArray
from ._bits import RandomBits
from ._ky_integers import number_leaf, walk_integers

__all__ = ["FLOAT_BITS", "draw_levels", "draw_scores", "draw_uniform"]

#: Binary places of the level probabilities held in floats (integers below 2^53 are exact).
FLOAT_BITS = 52
#: Outputs past the cutoff have probability below 2^-TAIL_BITS / n each.
TAIL_BITS = 64
#: Largest table of weights kept per rate (entries).
_TABLE_CAP = 1 << 18
_LN2 = math.log(2.0)
#: Integers below this are exact in float64.
_EXACT = 1 << 53
_INT64 = np.dtype(np.int64)
#: Up to this many outputs (and a cutoff gap below ``_SMALL_CUTOFF``: a table of Python floats), the walk sorts
#: them and meets their levels as it goes (:func:`_draw_small`).
SMALL_OUTPUTS = 256
_SMALL_CUTOFF = 1 << 16


class _Weights:
    """``fl(exp(fl(−g·fl(λ))))`` for ``g = 0 … size − 1`` (one rate ``λ``), with its relative error bound ``η``."""

    __slots__ = ("values", "eta", "_listed")

    def __init__(self, rate: float, size: int) -> None:
        self.values = np.exp(np.arange(size, dtype=np.float64) * -rate)
        # |ỹ − y| <= 4u·|ỹ| for ỹ = fl(g·fl(λ)) (two roundings), then exp's own error: the filter's η
        self.eta = 2.0 * (EXP_REL + 4.0 * U * min((size - 1) * rate * (1.0 + 2.0**-50), 800.0))
        self._listed: list[float] | None = None

    def listed(self) -> list[float]:
        """The values as a list of Python floats (made once)."""
        if self._listed is None:
            self._listed = self.values.tolist()
        return self._listed


class _Table:
    """What one rate ``λ`` needs on every draw: ``fl(λ)``, the cutoff gap per number of outputs, the weights."""

    __slots__ = ("rate", "usable", "_cutoffs", "_weights", "_small")

    def __init__(self, rate: Fraction) -> None:
        self.rate = rate.numerator / rate.denominator  # correctly rounded
        #: whether the float analysis applies to this rate at all
        self.usable = 2.0**-1000 < self.rate < 2.0**1000
        self._cutoffs: dict[int, int] = {}
        self._weights: _Weights | None = None
        self._small: dict[int, tuple[_Weights, float]] = {}

    def small(self, n: int, cut: int) -> tuple[_Weights, float]:
        """For ``n`` outputs (cutoff ``cut``): the weights of gaps up to ``cut + 1`` and the relative bound ``δ`` of
        :func:`_draw_top` and :func:`_draw_small` (the table's ``η``, ``γ_{n+2}`` of the sum, the tail's ``2^-64``)."""
        found = self._small.get(n)
        if found is None:
            if len(self._small) > 256:
                self._small.clear()
            weights = self.weights(cut + 2)
            found = self._small[n] = (weights, 2.0 * (2.0 * weights.eta + gamma(n + 2) + 2.0 * U + 2.0**-TAIL_BITS))
        return found

    def cutoff(self, n: int) -> int:
        """The gap ``G`` past which an output's weight ``e^{−λ g}`` is below ``2^{−TAIL_BITS} / n``."""
        found = self._cutoffs.get(n)
        if found is None:
            if len(self._cutoffs) > 256:
                self._cutoffs.clear()
            # fl(λ) may sit an ulp above λ: 2^-40 of slack on the product keeps e^{−λ(G+1)} below the target
            found = self._cutoffs[n] = int(math.ceil((TAIL_BITS * _LN2 + math.log(n) + 1.0) / self.rate * (1.0 + 2.0**-40)))
        return found

    def weights(self, size: int) -> _Weights:
        """The weights of gaps ``0 … size − 1`` (or more)."""
        weights = self._weights
        if weights is None or len(weights.values) < size:
            weights = self._weights = _Weights(self.rate, max(size, 64, 0 if weights is None else 2 * len(weights.values)))
        return weights


_TABLES: dict[Fraction, _Table] = {}
_LAST_TABLE: tuple[Fraction, _Table] | None = None


def _table(rate: Fraction) -> _Table:
    global _LAST_TABLE
    last = _LAST_TABLE
    if last is not None and last[0] is rate:
        return last[1]
    table = _TABLES.get(rate)
    if table is None:
        if len(_TABLES) >= 64:
            _TABLES.clear()
        table = _TABLES[rate] = _Table(rate)
    _LAST_TABLE = (rate, table)
    return table


def draw_uniform(n: int, rng: random.Random, bits: RandomBits) -> int:
    """One of ``0 … n − 1`` uniformly, by the Knuth–Yao walk of ``1/n`` in integers (under ``log2 n + 2`` bits on average)."""
    if n == 1:
        return 0
    width = 64
    u = bits.peek(rng, width)
    k = 0
    while True:
        k += 1
        if k > width:
            width *= 2
            u = bits.peek(rng, width)
        value = u >> (width - k)
        live = (1 << k) % n  # 2^k − n·⌊2^k / n⌋
        if value >= live:  # every output has the same bit at place k, so the leaf's number is the output
            bits.consume(k)
            return value - live


def draw_levels(
    nums: np.ndarray,
    top: int,
    bottom: int,
    rate: Fraction,
    rng: random.Random,
    bits: RandomBits,
    *,
    float_bits: int | None = None,
) -> int | None:
    """One exact draw of index ``i`` with probability ``e^{−λ (top − nums[i])} / Z``; None if the floats cannot apply.

    ``nums`` is a non-empty int64 array with maximum ``top`` and minimum
    ``bottom`` (``top − bottom < 2^53``), ``rate`` the positive rational ``λ``
    (``ε`` over the scores' shared denominator).  Bits are read from ``bits``
    (refilled from ``rng``) under its lock, and only those the walk reads are
    consumed.  ``float_bits`` (default :data:`FLOAT_BITS`; tests lower it) is how
    many binary places the floats hold before the exact walk takes over.
    """
    if float_bits is None:
        float_bits = FLOAT_BITS
    n = int(nums.size)
    if n == 1:
        return 0
    spread = top - bottom
    if spread == 0:
        with bits.lock:
            return draw_uniform(n, rng, bits)
    table = _table(rate)
    if not (table.usable and spread < _EXACT and filter_enabled()):
        return None
    rate_float = table.rate
    gaps = _gaps(nums, top, spread)
    cut = table.cutoff(n)
    if n <= SMALL_OUTPUTS and cut < _SMALL_CUTOFF:
        small_table, small_delta = table.small(n, cut)
        # Z̃: every output's table weight, a gap past the table taking its last entry (above its weight, below 2^-64/n)
        small_total = float(np.add.reduce(small_table.values.take(gaps, mode="clip")))
        with bits.lock:
            found_small = _draw_top(nums, top, small_total, small_delta, float_bits, rng, bits)
            if found_small is None:
                found_small = _draw_small(gaps, small_table, cut, small_total, small_delta, float_bits, rng, bits)
        if found_small is not None:
            return found_small
    limit = min(spread, cut)
    if limit < _TABLE_CAP:
        weights_table = table.weights(limit + 1)
        counts = _level_counts(gaps, spread, limit)
        levels = counts.nonzero()[0]
        multiplicities = counts[levels]
        weights = weights_table.values[levels]
        eta = weights_table.eta
    else:
        levels, multiplicities = np.unique(gaps, return_counts=True)
        head = int(np.searchsorted(levels, cut, side="right"))
        levels, multiplicities = levels[:head], multiplicities[:head]
        weights = np.exp(levels * -rate_float)
        eta = 2.0 * (EXP_REL + 4.0 * U * min(limit * rate_float * (1.0 + 2.0**-50), 800.0))
    total = float(multiplicities @ weights)
    # x̃_g = w̃_g·fl(2^52/Z̃) is within δ of x_g = p_g·2^52: w̃ (η), Z̃ (η, the dot product's γ, the tail's
    # 2^-64), two roundings; the factor 2 covers the second-order terms.  Then fl(x̃·(1 − 2δ)) <= x_g <=
    # fl(x̃·(1 + 2δ)), and scaling either by 2^-s is exact, so their floors bound ⌊p_g 2^{52−s}⌋.
    delta = 2.0 * (2.0 * eta + gamma(len(levels) + 2) + 2.0 * U + 2.0**-TAIL_BITS)
    scaled = weights * (float(1 << float_bits) / total)
    counts_list = multiplicities.tolist()
    bounds = np.multiply.outer((1.0 - 2.0 * delta, 1.0 + 2.0 * delta), scaled)  # the rows low, high
    low, high = bounds.astype(_INT64).tolist()
    with bits.lock:
        found = walk_integers(low, high, counts_list, float_bits, rng, bits)
        if found is None:  # a floor the integers leave open: the same bits again, with the exact resolver
            resolve = _resolver(multiplicities, weights, eta, n - sum(counts_list))
            low_floats, high_floats = bounds.tolist()
            found = _walk(low_floats, high_floats, counts_list, float_bits, rng, bits, resolve)
        if found is None:
            level, position = _ExactLevels(gaps, rate).walk(rng, bits)
            return int((gaps == level).nonzero()[0][position])
    level_index, position = found
    if level_index == 0 and position == 0:
        return int(nums.argmax())  # the first output of the top level
    level = int(levels[level_index])
    if position == 0:
        return int((gaps == level).argmax())
    return int((gaps == level).nonzero()[0][position])


#: From this many outputs, with gaps below 2^16 and 16 outputs a gap or more, the levels are counted by sorting
#: 16-bit gaps (many outputs on few gaps slow ``bincount`` down, as each count waits for the last).
_SORT_COUNT = 2048
_SORT_RATIO = 16
_UINT16 = np.dtype(np.uint16)


def _sorts(n: int, spread: int) -> bool:
    """Whether ``n`` outputs with gaps up to ``spread`` are counted by sorting 16-bit gaps."""
    return n >= _SORT_COUNT and spread < 1 << 16 and _SORT_RATIO * spread <= n


def _gaps(nums: np.ndarray, top: int, spread: int) -> np.ndarray:
    """``top − nums`` (``spread`` its largest entry): 16-bit where :func:`_level_counts` will sort them, else int64.

    The 16-bit gaps are ``nums`` cast modulo 2^16 and subtracted from ``top`` modulo 2^16: the true gap, which is
    below 2^16, with no int64 array made on the way.
    """
    if not _sorts(int(nums.size), spread):
        return top - nums
    gaps = nums.astype(_UINT16)
    np.subtract(_UINT16.type(top & 0xFFFF), gaps, out=gaps)
    return gaps


def _level_counts(gaps: np.ndarray, spread: int, limit: int) -> np.ndarray:
    """``counts[g]`` = the number of outputs at gap ``g``, for ``g = 0 … limit`` (``limit <= spread``, the largest gap).

    Many outputs on few gaps are sorted as 16-bit integers and counted by ``searchsorted`` (about half the time of
    a ``bincount`` of 10⁴ outputs on 100 gaps); others are counted by ``bincount``, a spread wide against the
    number of outputs first clipped to ``limit + 1``.  ``gaps`` is int64, or 16-bit from :func:`_gaps`.
    """
    n = gaps.size
    if _sorts(n, spread):
        ordered = np.sort(gaps.astype(_UINT16, copy=False))
        edges = ordered.searchsorted(np.arange(limit + 2, dtype=_UINT16) if limit + 1 < 1 << 16 else np.arange(limit + 2))
        return edges[1:] - edges[:-1]
    if spread <= 8 * n + 256:
        return np.bincount(gaps)[: limit + 1]
    return np.bincount(np.minimum(gaps, limit + 1))[: limit + 1]


def _walk(
    low: list[float],
    high: list[float],
    counts: list[int],
    places: int,
    rng: random.Random,
    bits: RandomBits,
    resolve: Callable[[int, int, int, int], int | None],
) -> tuple[int, int] | None:
    """The Knuth–Yao walk on floors bounded by floats; ``(level index, position in the level)``, or None where a
    floor is left open (nothing is consumed then: the exact walk reads the same bits again).

    ``low[g] <= p_g·2^places <= high[g]``; ``⌊p_g 2^k⌋`` is ``int(low[g]·2^{k−places})`` when
    ``int(high[g]·2^{k−places})`` is the same, else ``resolve(g, k, that, this)`` decides it (or returns
    None).  The levels come by increasing gap, so by decreasing probability: past the first level whose
    floor is 0, every floor is 0.
    """
    u = bits.peek(rng, 64)
    for k in range(1, min(places, 64) + 1):
        scale = 2.0 ** (k - places)
        value = u >> (64 - k)
        taken = 0
        floors = []
        for g, (a, b, m) in enumerate(zip(low, high, counts)):
            f = int(a * scale)
            above = int(b * scale)
            if f != above:
                decided = resolve(g, k, f, above)
                if decided is None:
                    return None
                f = decided
            if f == 0:
                break
            floors.append(f)
            taken += m * f
        live = (1 << k) - taken
        if value >= live:
            found = number_leaf(floors, 0, counts, value - live)
            bits.consume(k)
            return found
    return None


def _resolver(multiplicities: np.ndarray, weights: np.ndarray, eta: float, tail: int) -> Callable[[int, int, int, int], int | None]:
    """Decides ``⌊p_g 2^k⌋`` between ``j − 1`` and ``j`` where the floats of the walk leave it open.

    ``x = p_g 2^k >= j`` iff ``S = (2^k − j·m_g)·w_g − j·(R_g + T) >= 0``, with ``R_g`` the weight of the other
    levels and ``T`` that of the ``tail`` outputs past the cutoff (``0 <= T <= tail·2^{−64}``, and ``T > 0`` when
    there is one).  The integer ``2^k − j·m_g`` is exact, so a probability next to a dyadic rational (two tied
    best outputs and the rest far below: ``p = 1/(2 + r)``) cancels exactly instead of in floats.  ``w̃_g`` and
    ``R̃_g`` are within ``η`` and ``η + γ`` of the truth; an ``S̃`` within twice that of 0 is left open (None).
    """
    size = len(weights)
    rests: dict[int, float] = {}

    def resolve(g: int, k: int, below: int, above: int) -> int | None:
        if above - below != 1:
            return None
        j = above
        coefficient = (1 << k) - j * int(multiplicities[g])
        if abs(coefficient) >= _EXACT:
            return None
        weight = float(weights[g])
        rest = rests.get(g)
        if rest is None:
            rest = rests[g] = float(multiplicities[:g] @ weights[:g]) + float(multiplicities[g + 1 :] @ weights[g + 1 :])
        value = coefficient * weight - j * rest
        error = 2.0 * (abs(coefficient) * weight * (eta + 2.0 * U) + j * rest * (eta + gamma(size + 2) + 2.0 * U))
        lowest = value - error - (j * tail * 2.0**-TAIL_BITS) * (1.0 + 2.0**-40)
        if lowest >= 0:
            return j
        if value + error < 0 or (value + error <= 0 and tail > 0):  # T > 0 makes S < its bound
            return j - 1
        return None

    return resolve


def _draw_top(nums: np.ndarray, top: int, total: float, delta: float, places: int, rng: random.Random, bits: RandomBits) -> int | None:
    """The walk while only the best outputs can own a leaf; None (nothing consumed) once another might.

    With ``m`` outputs at the top (weight 1 each, so ``p_0 = 1/Z``) the others weigh ``R = Z − m`` together,
    so none owns a leaf at depth ``k`` while ``R·2^k < Z``.  ``total``, the sum ``Z̃`` of every output's table
    weight, is within ``δ`` of ``Z``; ``R`` is bounded above by ``Z̃(1 + 2δ) − m`` plus the
    rounding of that sum.  The leaves are the top level's, in index order: the same map as every walk here.
    """
    at_top = nums == top
    count = int(np.count_nonzero(at_top))
    rest = total * (1.0 + 2.0 * delta) - count + 4.0 * U * total  # >= R
    floor_total = total * (1.0 - 2.0 * delta) * (1.0 - 4.0 * U)  # <= Z
    x = float(1 << places) / total
    low, high = x * (1.0 - 2.0 * delta), x * (1.0 + 2.0 * delta)
    u = bits.peek(rng, 64)
    for k in range(1, min(places, 64) + 1):
        if rest * 2.0**k >= floor_total:
            return None
        scale = 2.0 ** (k - places)
        f = int(low * scale)
        if f != int(high * scale):
            return None
        value = u >> (64 - k)
        live = (1 << k) - count * f
        if value >= live:
            leaf = value - live  # < count·(f mod 2): the top level owns every leaf at this depth
            bits.consume(k)
            if count == 1:
                return int(nums.argmax())
            return int(at_top.nonzero()[0][leaf])
    return None


def _draw_small(
    gaps: np.ndarray, weights: _Weights, cut: int, total: float, delta: float, places: int, rng: random.Random, bits: RandomBits
) -> int | None:
    """The walk for a few outputs: sorted once, levels met as the walk reaches them; None (nothing consumed)
    where a floor is left open.

    The walk is :func:`~expmech.impl.sampling._ky_integers.walk_integers` over the levels by increasing gap, each
    in index order (the sort is stable): the same tree and the same order of leaves as :func:`_walk`, so a draw
    handed on is drawn by the same map.  ``total`` is ``Z̃``, within ``δ`` of ``Z`` (see :func:`_draw_top`);
    outputs past the cutoff gap own no leaf above depth 64 and are never met.
    """
    n = int(gaps.size)
    order = gaps.argsort(kind="stable")
    listed = gaps[order].tolist()
    factor = float(1 << places) / total
    down, up = 1.0 - 2.0 * delta, 1.0 + 2.0 * delta
    values = weights.listed()
    low: list[int] = []
    high: list[int] = []
    counts: list[int] = []
    starts: list[int] = []
    position = 0

    def more(shift: int) -> None:
        nonlocal position
        while position < n:
            g = listed[position]
            if g > cut:
                return  # the tail: no leaf above depth 64
            x = values[g] * factor
            h = int(x * up)
            if not h >> shift:
                return
            end = bisect_right(listed, g, position)
            low.append(int(x * down))
            high.append(h)
            counts.append(end - position)
            starts.append(position)
            position = end

    found = walk_integers(low, high, counts, places, rng, bits, more)
    if found is None:
        return None
    return int(order[starts[found[0]] + found[1]])


class _ExactLevels:
    """Every level of a score vector, with ``⌊p_g 2^k⌋`` decided exactly: the walk where the floats leave a place open."""

    def __init__(self, gaps: np.ndarray, rate: Fraction) -> None:
        levels, multiplicities = np.unique(gaps, return_counts=True)
        self.levels: list[int] = levels.tolist()
        self.counts: list[int] = multiplicities.tolist()
        self.rate = rate
        exponents = RationalArray.integers(-levels.astype(np.int64)) * RationalArray.constant(rate)
        self.total = ExpSum.vector(RationalArray.integers(multiplicities.astype(np.int64)), exponents, nonnegative=True, positive=True)
        self._floors: dict[tuple[int, int], int] = {}

    def floor(self, index: int, k: int) -> int:
        """``⌊p_g 2^k⌋`` for the ``index``-th level, exactly."""
        key = (index, k)
        cached = self._floors.get(key)
        if cached is not None:
            return cached
        weight = ExpSum.exp(-self.rate * self.levels[index]).scale(Fraction(1 << k))
        weight_low, _ = weight.enclose(k + 16)
        _, total_high = self.total.enclose(k + 16)
        guess = math.floor(weight_low / total_high)  # within 1 of ⌊x⌋: x < 2^k is known to 2^-15 or better
        while (weight - self.total.scale(Fraction(guess))).sign() < 0:  # guess > x
            guess -= 1
        while (weight - self.total.scale(Fraction(guess + 1))).sign() >= 0:  # guess + 1 <= x
            guess += 1
        self._floors[key] = guess
        return guess

    def walk(self, rng: random.Random, bits: RandomBits) -> tuple[int, int]:
        """The Knuth–Yao walk over every level: ``(gap, position in the level)``; consumes the bits it reads."""
        width = 64
        u = bits.peek(rng, width)
        k = 0
        while True:
            k += 1
            if k > width:
                width *= 2
                u = bits.peek(rng, width)
            value = u >> (width - k)
            floors: list[int] = []  # the nonzero floors at depth k: a prefix, as the levels come by increasing gap
            for index in range(len(self.levels)):
                f = self.floor(index, k)
                if f == 0:
                    break
                floors.append(f)
            live = (1 << k) - sum(m * f for m, f in zip(self.counts, floors))
            if value >= live:
                index, position = number_leaf(floors, 0, self.counts, value - live)
                bits.consume(k)
                return self.levels[index], position


def draw_scores(
    scores: RationalArray,
    epsilon: Fraction,
    rng: random.Random,
    bits: RandomBits,
    *,
    top: int | None = None,
    bottom: int | None = None,
) -> int | None:
    """One exact draw of index ``i`` with probability ``e^{ε q_i} / Σ_j e^{ε q_j}`` (counting measure); None where
    the level walk does not apply (scores past int64, or floats out of range), for the caller's own exact path.

    ``top`` and ``bottom``, if given, are the largest and smallest numerator of ``scores`` (over its shared
    denominator), read by the caller on the way.
    """
    vector = scores.shared()
    nums = vector.num
    if nums.dtype != _INT64 or nums.ndim != 1 or not nums.size:
        return None
    if top is None or bottom is None or vector is not scores:
        top, bottom = int(nums.max()), int(nums.min())
    den = vector.den
    return draw_levels(nums, top, bottom, epsilon if den == 1 else epsilon / int(den), rng, bits)
