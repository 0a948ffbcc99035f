"""Exact sampling from weights ``w_i = μ_i · e^{ε q_i}`` by lazy-bit inversion, filtered by floats.

A uniform ``U`` in [0, 1) is drawn bit by bit.  The output is the unique ``i``
with ``F_{i-1} <= U < F_i``, where ``F_i = (w_0 + … + w_i) / Z`` are the exact
cumulative probabilities; so ``P[i] = w_i / Z`` exactly, whatever the float
arithmetic does.

Decision procedure for one draw:

1. ``bits`` random bits give ``U ∈ [u, u + 1) / 2^bits``.
2. *Float filter.* The prefix sums ``ŝ_k`` of ``μ_i e^{ε(q_i − q*)}`` are
   computed in vectorised float64 with the rigorous bound
   ``|S_k − ŝ_k| <= E_k`` of :func:`expmech.impl.exact._floatfilter.prefix_sums`,
   widened by ``SLACK·Ẑ`` for the rounding of the comparisons themselves.  The
   candidate ``c`` is found by binary search; the draw is decided when
   ``ŝ_{c−1} + E_{c−1} <= (u/2^bits)·(Ẑ − E_Z)`` and
   ``((u+1)/2^bits)·(Ẑ + E_Z) <= ŝ_c − E_c`` (one side only at either end):
   then ``F_{c−1} <= U < F_c`` for every ``U`` the bits allow.
3. *Exact refinement*, only when (2) cannot decide — that is, when ``U·Z``
   falls within the error bound of a cell boundary (probability about
   ``2·E/Z`` per draw, below ``10^-9`` at 10⁶ outputs): 64 more bits at a time,
   each comparison ``F_j <= u / 2^k`` decided exactly as the sign of an
   :class:`ExpSum` (itself filtered, then settled by exact cancellation and
   ball arithmetic).

For repeated draws, :meth:`InversionTable.sample` reuses a table of integer
bounds ``lo_i <= F_i · 2^52 <= hi_i`` derived from the same float enclosures.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..exact._expsum import ExpSum
from ..exact._expvector import ExpVector
from ..exact._floatfilter import SLACK, prefix_sums
from ..exact._rationals import RationalArray

__all__ = ["DEFAULT_TABLE_BITS", "InversionTable"]

#: Bits of ``U`` drawn first on the single-draw path.
DEFAULT_TABLE_BITS = 64
#: Bits of the reusable integer table (bounds stay below 2^53, exact in floats).
_REPEATED_BITS = 52

Rational = int | Fraction


def _vector(values: RationalArray | Sequence[Rational]) -> RationalArray:
    return values if isinstance(values, RationalArray) else RationalArray.of(list(values))


_EXACT = 1 << 53


def _decide(prefix: tuple[np.ndarray, float, float], u: int, bits: int) -> int | None:
    """The cell ``c`` with ``F_{c−1} <= U < F_c`` for every ``U ∈ [u, u+1)/2^bits``, if the float bounds prove it.

    ``prefix = (ŝ, rel, absolute)`` bounds the prefix sums as in
    :func:`~expmech.impl.exact._floatfilter.prefix_sums`; every bound is widened by
    ``SLACK·Ẑ``, which covers the rounding of these few float operations.
    """
    sums, relative, absolute = prefix
    last = len(sums) - 1
    total = float(sums[last])
    slack = SLACK * total
    total_error = relative * total + (last + 1) * absolute + slack
    scale = 2.0**-bits
    low, high = u * scale, (u + 1) * scale
    candidate = min(int(sums.searchsorted(low * total, side="right")), last)
    if candidate and float(sums[candidate - 1]) * (1 + relative) + candidate * absolute + slack > low * (total - total_error):
        return None
    if candidate < last and high * (total + total_error) > float(sums[candidate]) * (1 - relative) - (candidate + 1) * absolute - slack:
        return None
    return candidate


class InversionTable:
    """An exact sampler over output indices for weights ``μ_i · e^{ε q_i}``.

    ``measure`` are rationals >= 0, not all zero (a sequence or a
    :class:`RationalArray`; ``None`` for the counting measure); ``scores``
    rationals; ``epsilon`` a positive rational.  Index ``i`` is returned with
    probability exactly ``μ_i e^{ε q_i} / Σ_j μ_j e^{ε q_j}``.
    :meth:`sample_once` is the single-draw path; :meth:`sample` reuses a table
    built on first use.  ``bits`` sets the width of the first comparison
    (tests lower it to exercise the exact refinement).
    """

    __slots__ = ("_indices", "_vector", "_bits", "_lo", "_hi", "_prefix", "_total", "refinements")

    def __init__(
        self,
        measure: RationalArray | Sequence[Rational] | None,
        scores: RationalArray | Sequence[Rational],
        epsilon: Fraction,
        *,
        bits: int = DEFAULT_TABLE_BITS,
    ) -> None:
        exponents = _vector(scores) * RationalArray.constant(epsilon)
        coefficients: RationalArray | None = None
        self._indices: np.ndarray | None = None
        if measure is not None:
            mu = _vector(measure)
            support = mu.num != 0
            if not bool(np.all(support)):
                self._indices = np.flatnonzero(support)
                exponents = exponents[self._indices]
                mu = mu[self._indices]
            if not (mu.den == 1 and bool(np.all(mu.num == 1))):
                coefficients = mu
        self._vector = ExpVector(coefficients, exponents, nonnegative=True, positive=True)
        self._bits = bits
        self._lo: list[int] | None = None
        self._hi: list[int] | None = None
        self._prefix: dict[int, ExpSum] = {}
        self._total: ExpSum | None = None
        #: how many draws needed the exact refinement (for tests and benchmarks)
        self.refinements = 0

    @staticmethod
    def draw(
        measure: RationalArray | None,
        scores: RationalArray,
        epsilon: Fraction,
        rng: random.Random,
        *,
        measure_floats: tuple[np.ndarray, float] | None = None,
    ) -> int:
        """One exact draw of index ``i`` with probability ``∝ μ_i e^{ε q_i}`` — the fresh-draw fast path.

        For scores over one shared denominator ``d`` (integer scores: the
        common case) the float exponents are ``fl((q_i − q*)·fl(ε/d))``: the
        integer differences are exact in float64 (below ``2^53``) and two
        operations round, within the ``4u·|ỹ|`` that
        :func:`~expmech.impl.exact._floatfilter.float_exponents` allows.  The draw is
        then decided as in :meth:`sample_once`.  Everything else, and any
        undecided draw, goes through a full :class:`InversionTable`.
        ``measure_floats`` is ``(μ̃, δ_c)`` for ``measure`` (cached by the caller).
        """
        if measure_floats is not None or measure is None:
            den = scores.den
            nums = scores.num
            if not isinstance(den, np.ndarray) and nums.dtype != object and nums.size:
                a, b = epsilon.numerator, epsilon.denominator * den
                top = int(nums.max())
                spread = top + scores.bound  # >= top − min
                rate = a / b  # correctly rounded (Python's int/int)
                if spread < _EXACT and 2.0**-1000 < rate < 2.0**1000:
                    # ỹ = fl((q − q*)·fl(a/b)): the integers are exact in float64, two roundings in all
                    exponents = (nums - top) * rate
                    coefficients, delta = (None, 0.0) if measure_floats is None else measure_floats
                    lowest = -spread * rate * (1.0 + 2.0**-50)  # below every exponent
                    prefix = prefix_sums(coefficients, delta, exponents, lowest=lowest)
                    if prefix is not None:
                        u = rng.getrandbits(DEFAULT_TABLE_BITS)
                        candidate = _decide(prefix, u, DEFAULT_TABLE_BITS)
                        if candidate is not None and (measure is None or measure.num[candidate] != 0):
                            return candidate
                        table = InversionTable(measure, scores, epsilon)
                        table.refinements += 1
                        return table._output(table._sample_exact_from(u, rng))
        return InversionTable(measure, scores, epsilon).sample_once(rng)

    def _sample_exact_from(self, u: int, rng: random.Random) -> int:
        """The exact refinement for a uniform whose first 64 bits are ``u`` (indices in the support)."""
        return self._sample_exact(u, DEFAULT_TABLE_BITS, rng)

    def _output(self, position: int) -> int:
        return position if self._indices is None else int(self._indices[position])

    # -- the float-filtered paths ------------------------------------------------------

    def sample_once(self, rng: random.Random) -> int:
        """One index, drawn exactly (the single-draw path: no table is built)."""
        bits = self._bits
        u = rng.getrandbits(bits)
        prefix = self._vector.prefix()
        if prefix is not None:
            candidate = _decide(prefix, u, bits)
            if candidate is not None:
                return self._output(candidate)
        self.refinements += 1
        return self._output(self._sample_exact(u, bits, rng))

    def _bounds(self) -> tuple[list[int], list[int]]:
        """Integer bounds ``lo_i <= F_i · 2^52 <= hi_i`` for every boundary but the last."""
        if self._lo is None or self._hi is None:
            prefix = self._vector.prefix()
            if prefix is None:
                # no filter: the trivial bounds 0 <= F_i·2^b <= 2^b send every draw to the exact path
                n = len(self._vector)
                self._lo, self._hi = [0] * (n - 1), [1 << _REPEATED_BITS] * (n - 1)
                return self._lo, self._hi
            sums, relative, absolute = prefix
            last = len(sums) - 1
            total = float(sums[last])
            slack = SLACK * total
            total_error = relative * total + (last + 1) * absolute + slack
            count = np.arange(1, last + 1, dtype=np.float64)
            head = sums[:last]
            lower = (head * (1 - relative) - count * absolute - slack) / (total + total_error)
            upper = (head * (1 + relative) + count * absolute + slack) / (total - total_error)
            scale = float(1 << _REPEATED_BITS)
            self._lo = np.floor(np.clip(lower, 0.0, 1.0) * scale).astype(np.int64).tolist()
            self._hi = np.ceil(np.clip(upper, 0.0, 1.0) * scale).astype(np.int64).tolist()
        return self._lo, self._hi

    def sample(self, rng: random.Random) -> int:
        """One index, drawn exactly, using (and on first use building) the bound table."""
        lo, hi = self._bounds()
        u = rng.getrandbits(_REPEATED_BITS)
        candidate = bisect_right(lo, u)
        # decided when F_{c-1} <= u/2^b (hi_{c-1} <= u) and (u+1)/2^b <= F_c (lo_c >= u+1)
        if candidate == 0 or hi[candidate - 1] <= u:
            return self._output(candidate)
        self.refinements += 1
        return self._output(self._sample_exact(u, _REPEATED_BITS, rng))

    # -- the exact refinement ------------------------------------------------------------

    def _cumulative(self, j: int) -> ExpSum:
        """``Σ_{i <= j} μ_i e^{ε q_i}`` exactly (memoised)."""
        cached = self._prefix.get(j)
        if cached is None:
            head = self._vector.head(j + 1)
            cached = ExpSum.vector(head.coefficients, head.exponents, nonnegative=True, positive=True)
            self._prefix[j] = cached
        return cached

    def _total_sum(self) -> ExpSum:
        if self._total is None:
            self._total = self._cumulative(len(self._vector) - 1)
        return self._total

    def _side(self, j: int, u: int, k: int) -> int:
        """The exact sign of ``u / 2^k - F_j``."""
        return (self._total_sum().scale(Fraction(u)) - self._cumulative(j).scale(Fraction(1 << k))).sign()

    def _sample_exact(self, u: int, k: int, rng: random.Random) -> int:
        last = len(self._vector) - 1
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
