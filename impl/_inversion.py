"""Exact sampling from weights ``w_i = μ_i · e^{ε q_i}`` by lazy-bit inversion.

A uniform ``U`` in [0, 1) is drawn bit by bit.  The output is the unique ``i``
with ``F_{i-1} <= U < F_i``, where ``F_i = (w_0 + … + w_i) / Z`` are the exact
cumulative probabilities; so ``P[i] = w_i / Z`` exactly.

The fast path draws ``bits`` random bits, so ``U`` lies in
``[u, u + 1) / 2^bits``, and compares with rigorous ball enclosures of the
``F_i`` (as integer bounds ``lo_i <= F_i · 2^bits <= hi_i`` when a table is
reused).  When an enclosure cannot decide, the slow path draws 64 more bits at
a time and decides each comparison ``F_j <= u / 2^k`` exactly, as the sign of
an :class:`ExpSum` — so an outcome never rests on a rounding.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from fractions import Fraction

from flint import arb, ctx, fmpq

from ._expsum import ExpSum

__all__ = ["DEFAULT_TABLE_BITS", "InversionTable"]

DEFAULT_TABLE_BITS = 64

Rational = int | Fraction


def _fmpq(value: Rational) -> fmpq:
    if type(value) is int:
        return fmpq(value)
    return fmpq(value.numerator, value.denominator)


def _exact_integer(ball: arb) -> int:
    """The integer an exact integer ball holds (the floor or ceiling of an exact endpoint)."""
    value = ball.unique_fmpz()
    if value is None:  # pragma: no cover - floor/ceil of an exact endpoint is one integer
        raise ArithmeticError(f"internal error: {ball} is not a single integer")
    return int(value)


class InversionTable:
    """An exact sampler over output indices for weights ``μ_i · e^{ε q_i}``.

    ``measure`` are rationals >= 0, not all zero; ``scores`` rationals;
    ``epsilon`` a positive rational.  Index ``i`` is returned with probability
    exactly ``μ_i e^{ε q_i} / Σ_j μ_j e^{ε q_j}``.  :meth:`sample` reuses a
    table of integer bounds built on first use; :meth:`sample_once` scans the
    enclosures directly, the cheaper choice for a single draw.  ``bits`` sets
    the width of the fast-path comparison (tests lower it to exercise the exact
    slow path).
    """

    __slots__ = ("_indices", "_measure", "_scores", "_epsilon", "_bits", "_partial", "_lo", "_hi", "_prefix", "_total")

    def __init__(self, measure: Sequence[Rational], scores: Sequence[Rational], epsilon: Fraction, *, bits: int = DEFAULT_TABLE_BITS) -> None:
        support = [i for i, m in enumerate(measure) if m]
        self._indices = support
        self._measure = [measure[i] for i in support]
        self._scores = [scores[i] for i in support]
        self._epsilon = epsilon
        self._bits = bits
        self._prefix: dict[int, ExpSum] = {}
        self._total: ExpSum | None = None
        self._lo: list[int] | None = None
        self._hi: list[int] | None = None
        self._partial = self._partial_sums()

    def _precision(self) -> int:
        return self._bits + 2 * len(self._scores).bit_length() + 32

    def _partial_sums(self) -> list[arb]:
        """Balls for ``S_i = Σ_{j <= i} μ_j e^{ε (q_j − q*)}``, with ``q*`` the largest score."""
        epsilon = _fmpq(self._epsilon)
        partial: list[arb] = []
        running = arb(0)
        with ctx.workprec(self._precision()):
            integers = [q for q in self._scores if type(q) is int]
            if len(integers) == len(self._scores):
                top = max(integers)
                base = (-arb(epsilon)).exp()  # e^{-ε}; every weight is an integer power of it
                int_cache: dict[int, arb] = {}
                for m, q_int in zip(self._measure, integers):
                    gap = top - q_int
                    weight = int_cache.get(gap)
                    if weight is None:
                        weight = int_cache[gap] = base**gap
                    running = running + (weight if m == 1 else weight * arb(_fmpq(m)))
                    partial.append(running)
            else:
                rationals = [_fmpq(q) for q in self._scores]
                top_q = max(rationals)
                cache: dict[tuple[int, int], arb] = {}
                for m, q_rational in zip(self._measure, rationals):
                    gap_q = q_rational - top_q
                    key = (int(gap_q.p), int(gap_q.q))
                    weight = cache.get(key)
                    if weight is None:
                        weight = cache[key] = arb(epsilon * gap_q).exp()
                    running = running + (weight if m == 1 else weight * arb(_fmpq(m)))
                    partial.append(running)
        return partial

    def _bounds(self) -> tuple[list[int], list[int]]:
        """Integer bounds ``lo_i <= F_i · 2^bits <= hi_i`` for every boundary but the last."""
        if self._lo is None or self._hi is None:
            scale = 1 << self._bits
            lo: list[int] = []
            hi: list[int] = []
            with ctx.workprec(self._precision()):
                factor = arb(scale) / self._partial[-1]
                for value in self._partial[:-1]:
                    boundary = value * factor
                    lo.append(max(0, _exact_integer(boundary.lower().floor())))
                    hi.append(min(scale, _exact_integer(boundary.upper().ceil())))
            self._lo, self._hi = lo, hi
        return self._lo, self._hi

    def sample(self, rng: random.Random) -> int:
        """One index, drawn exactly, using (and on first use building) the bound table."""
        lo, hi = self._bounds()
        u = rng.getrandbits(self._bits)
        candidate = bisect_right(lo, u)
        # decided when F_{c-1} <= u/2^b (hi_{c-1} <= u) and (u+1)/2^b <= F_c (lo_c >= u+1)
        if candidate == 0 or hi[candidate - 1] <= u:
            return self._indices[candidate]
        return self._indices[self._sample_exact(u, self._bits, rng)]

    def sample_once(self, rng: random.Random) -> int:
        """One index, drawn exactly, without building the bound table."""
        u = rng.getrandbits(self._bits)
        partial = self._partial
        last = len(partial) - 1
        with ctx.workprec(self._precision()):
            total = partial[-1]
            scale = arb(1 << self._bits)
            low_target = total * u / scale  # U·Z >= this
            high_target = total * (u + 1) / scale  # U·Z < this
            # first boundary that may exceed the low target, by bisection on midpoints
            left, right = 0, last
            while left < right:
                middle = (left + right) // 2
                if partial[middle].mid() <= low_target.mid():
                    left = middle + 1
                else:
                    right = middle
            candidate = left
            decided = (candidate == 0 or partial[candidate - 1] <= low_target) and (
                candidate == last or partial[candidate] >= high_target
            )
        if decided:
            return self._indices[candidate]
        return self._indices[self._sample_exact(u, self._bits, rng)]

    # -- the exact slow path ---------------------------------------------------

    def _cumulative(self, j: int) -> ExpSum:
        """``Σ_{i <= j} μ_i e^{ε q_i}`` exactly (memoised)."""
        cached = self._prefix.get(j)
        if cached is None:
            epsilon = self._epsilon
            cached = ExpSum.weighted_exps(
                (Fraction(m), epsilon * q) for m, q in zip(self._measure[: j + 1], self._scores[: j + 1])
            )
            self._prefix[j] = cached
        return cached

    def _total_sum(self) -> ExpSum:
        if self._total is None:
            self._total = self._cumulative(len(self._scores) - 1)
        return self._total

    def _side(self, j: int, u: int, k: int) -> int:
        """The exact sign of ``u / 2^k - F_j``."""
        return (self._total_sum().scale(Fraction(u)) - self._cumulative(j).scale(Fraction(1 << k))).sign()

    def _sample_exact(self, u: int, k: int, rng: random.Random) -> int:
        last = len(self._scores) - 1
        while True:
            # c = how many of the boundaries F_0 < … < F_{last-1} are <= u / 2^k
            low, high = 0, last
            while low < high:
                middle = (low + high) // 2
                if self._side(middle, u, k) >= 0:
                    low = middle + 1
                else:
                    high = middle
            # F_{c-1} <= u/2^k < F_c; decided once (u + 1)/2^k <= F_c as well
            if low == last or self._side(low, u + 1, k) <= 0:
                return low
            u = (u << 64) | rng.getrandbits(64)
            k += 64
