"""Exact sampling from weights ``w_i = c_i · e^{b_i}`` by lazy-bit inversion.

A uniform ``U`` in [0, 1) is drawn bit by bit.  The output is the unique ``i``
with ``F_{i-1} <= U < F_i``, where ``F_i = (w_0 + … + w_i) / Z`` are the exact
cumulative probabilities; so ``P[i] = w_i / Z`` exactly.

The fast path draws ``bits`` random bits, so ``U`` lies in
``[u, u + 1) / 2^bits``, and compares with integer bounds
``lo_i <= F_i · 2^bits <= hi_i`` precomputed once in ball arithmetic.  When
that interval might straddle a boundary, the slow path draws 64 more bits at a
time and decides each comparison ``F_j <= u / 2^k`` exactly, as the sign of an
:class:`ExpSum` — so the outcome never rests on a rounding.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from fractions import Fraction

from flint import arb, ctx

from ._expsum import ExpSum, arb_from_fraction

__all__ = ["InversionTable"]

DEFAULT_TABLE_BITS = 64


class InversionTable:
    """A reusable exact sampler over indices ``0 … len(weights) - 1``.

    ``coefficients`` are rationals >= 0, not all zero; ``exponents`` rationals.
    Index ``i`` is returned with probability exactly
    ``c_i e^{b_i} / Σ_j c_j e^{b_j}``.  ``bits`` sets the width of the
    fast-path comparison (tests lower it to exercise the exact slow path).
    """

    __slots__ = ("_indices", "_coefficients", "_exponents", "_bits", "_lo", "_hi", "_prefix", "_total")

    def __init__(self, coefficients: Sequence[Fraction], exponents: Sequence[Fraction], *, bits: int = DEFAULT_TABLE_BITS) -> None:
        support = [i for i, c in enumerate(coefficients) if c > 0]
        self._indices = support
        self._coefficients = [coefficients[i] for i in support]
        self._exponents = [exponents[i] for i in support]
        self._bits = bits
        self._prefix: dict[int, ExpSum] = {}
        self._total: ExpSum | None = None
        self._lo, self._hi = self._bounds()

    def _bounds(self) -> tuple[list[int], list[int]]:
        """Integer bounds ``lo_i <= F_i · 2^bits <= hi_i`` for every boundary but the last."""
        count = len(self._coefficients)
        scale = 1 << self._bits
        precision = self._bits + 2 * count.bit_length() + 32
        top = max(self._exponents)
        lo: list[int] = []
        hi: list[int] = []
        with ctx.workprec(precision):
            running = arb(0)
            partial = []
            for c, b in zip(self._coefficients, self._exponents):
                shift = b - top
                term = arb_from_fraction(c)
                if shift != 0:
                    term = term * arb_from_fraction(shift).exp()
                running = running + term
                partial.append(running)
            total = partial[-1]
            factor = arb(scale) / total
            for value in partial[:-1]:
                boundary = value * factor
                lo.append(max(0, int(boundary.lower().floor().unique_fmpz())))
                hi.append(min(scale, int(boundary.upper().ceil().unique_fmpz())))
        return lo, hi

    def sample(self, rng: random.Random) -> int:
        """One index, drawn exactly; ``rng`` supplies the random bits."""
        u = rng.getrandbits(self._bits)
        candidate = bisect_right(self._lo, u)
        # decided when F_{c-1} <= u/2^b (hi_{c-1} <= u) and (u+1)/2^b <= F_c (lo_c >= u+1).
        if candidate == 0 or self._hi[candidate - 1] <= u:
            return self._indices[candidate]
        return self._indices[self._sample_exact(u, self._bits, rng)]

    # -- the exact slow path ---------------------------------------------------

    def _cumulative(self, j: int) -> ExpSum:
        """``Σ_{i <= j} c_i e^{b_i}`` exactly (memoised)."""
        cached = self._prefix.get(j)
        if cached is None:
            cached = ExpSum.weighted_exps(zip(self._coefficients[: j + 1], self._exponents[: j + 1]))
            self._prefix[j] = cached
        return cached

    def _total_sum(self) -> ExpSum:
        if self._total is None:
            self._total = self._cumulative(len(self._coefficients) - 1)
        return self._total

    def _side(self, j: int, u: int, k: int) -> int:
        """The exact sign of ``u / 2^k - F_j``."""
        return (self._total_sum().scale(Fraction(u)) - self._cumulative(j).scale(Fraction(1 << k))).sign()

    def _sample_exact(self, u: int, k: int, rng: random.Random) -> int:
        last = len(self._coefficients) - 1
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
