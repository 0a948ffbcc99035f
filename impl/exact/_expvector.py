"""Exponential sums held as exact vectors: ``Σ_i c_i·e^{b_i}`` with rational arrays ``c`` and ``b``.

An :class:`ExpVector` is the vectorised form behind a large
:class:`~expmech.impl.ExpSum`: a normaliser over 10⁶ outputs is two numpy
arrays, not 10⁶ Python fractions.  It offers, each computed once and cached:

* :meth:`ExpVector.summary` — the float filter ``Σ c_i e^{b_i − top}`` with
  its rigorous error bound (:mod:`expmech.impl.exact._floatfilter`);
* :meth:`ExpVector.prefix` — float prefix sums with error bounds, for inversion
  sampling;
* :func:`canonical` — the exact canonical form of a linear combination of
  vectors: equal exponents merged, zero coefficients dropped, all in integer
  arithmetic (this is the *exact cancellation* step: the sum is zero iff no
  term is left, by Lindemann–Weierstrass);
* :meth:`ExpVector.ball` — a python-flint ball for the sum at a given precision
  (a polynomial evaluated in ball arithmetic when the exponents lie on a
  common lattice of moderate span, term by term otherwise).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq, fmpz_poly

from ._floatfilter import FloatSum, float_coefficients, float_exponents, prefix_sums, summarise
from ._rationals import LIMIT, RationalArray, maxabs

__all__ = ["ExpVector", "canonical"]

#: Largest exponent span (in lattice steps) evaluated as one dense polynomial.
_POLY_SPAN = 1 << 22


class ExpVector:
    """``Σ_i c_i·e^{b_i}`` for a 1-D exact exponent array ``b`` and coefficients ``c`` (None: all 1).

    ``nonnegative`` records that every ``c_i >= 0`` (and ``positive`` that some
    ``c_i > 0`` as well) when the caller knows it; it is never guessed.
    """

    __slots__ = ("coefficients", "exponents", "nonnegative", "positive", "_top", "_summary", "_prefix", "_floats")

    def __init__(
        self,
        coefficients: RationalArray | None,
        exponents: RationalArray,
        *,
        nonnegative: bool = False,
        positive: bool = False,
    ) -> None:
        self.coefficients = None if coefficients is None else coefficients.shared()
        self.exponents = exponents.shared()
        self.nonnegative = nonnegative or coefficients is None
        self.positive = positive or (coefficients is None and len(self.exponents) > 0)
        self._top: Fraction | None = None
        self._summary: FloatSum | None | bool = False
        self._prefix: tuple[np.ndarray, float, float] | None | bool = False
        self._floats: tuple[np.ndarray, np.ndarray | None, float] | None | bool = False

    @classmethod
    def from_pairs(cls, pairs: Sequence[tuple[Fraction, Fraction]]) -> ExpVector:
        """From ``(exponent, coefficient)`` pairs of Fractions."""
        exponents = RationalArray.of([b for b, _ in pairs])
        coefficients = RationalArray.of([c for _, c in pairs])
        nonnegative = all(c >= 0 for _, c in pairs)
        return cls(coefficients, exponents, nonnegative=nonnegative, positive=nonnegative and any(c for _, c in pairs))

    def __len__(self) -> int:
        return len(self.exponents)

    def top(self) -> Fraction:
        """The largest exponent, exactly (0 for an empty vector)."""
        if self._top is None:
            exponents = self.exponents
            self._top = Fraction(int(exponents.num.max()), int(exponents.den)) if len(exponents) else Fraction(0)
        return self._top

    def _float_terms(self) -> tuple[np.ndarray, np.ndarray | None, float] | None:
        """``(ỹ, c̃, δ_c)`` with ``ỹ = b − top`` in floats (steps 1 and 3 of the filter's analysis)."""
        if self._floats is False:
            exponents = self.exponents
            top_num = int(exponents.num.max()) if len(exponents) else 0
            shifted = exponents - RationalArray.constant(Fraction(top_num, int(exponents.den)))
            floats = float_exponents(shifted.num, int(shifted.den))
            result: tuple[np.ndarray, np.ndarray | None, float] | None = None
            if floats is not None:
                if self.coefficients is None:
                    result = (floats, None, 0.0)
                else:
                    converted = float_coefficients(self.coefficients.num, int(self.coefficients.den))
                    if converted is not None:
                        result = (floats, converted[0], converted[1])
            self._floats = result
        return self._floats  # type: ignore[return-value]

    def summary(self) -> FloatSum | None:
        """The float filter for ``Σ c_i e^{b_i − top}`` (None where it cannot apply)."""
        if self._summary is False:
            levels = self._level_summary()
            if levels is not None:
                self._summary = levels
            else:
                terms = self._float_terms()
                self._summary = None if terms is None else summarise(terms[1], terms[2], terms[0])
        return self._summary  # type: ignore[return-value]

    def _level_summary(self) -> FloatSum | None:
        """The filter by levels, for unit coefficients and int64 exponents of a span within a few times their number.

        ``Σ_i e^{b_i − top} = Σ_g m_g e^{−g/den}`` with ``m_g`` the number of exponents ``g/den`` below the top
        (one ``bincount``): the same float filter (each ``ỹ_g`` by step 1 of the analysis, the exact integers
        ``m_g`` as coefficients with ``δ_c = 0``) over the distinct levels, so its bound has ``γ`` of the number
        of levels rather than of terms, and only the levels are exponentiated.
        """
        if self.coefficients is not None:
            return None
        nums = self.exponents.num
        n = nums.size
        if n <= 64 or nums.dtype == object or nums.ndim != 1:
            return None
        top = int(nums.max())
        span = top - int(nums.min())
        if span > 4 * n + 1024:
            return None
        counts = np.bincount(top - nums)
        present = np.flatnonzero(counts)
        exponents = float_exponents(-present, int(self.exponents.den))
        if exponents is None:
            return None
        return summarise(counts[present].astype(np.float64), 0.0, exponents)

    def prefix(self) -> tuple[np.ndarray, float, float] | None:
        """Float prefix sums of ``c_i e^{b_i − top}`` with their error bound (non-negative ``c`` only)."""
        if self._prefix is False:
            terms = self._float_terms() if self.nonnegative else None
            self._prefix = None if terms is None else prefix_sums(terms[1], terms[2], terms[0])
        return self._prefix  # type: ignore[return-value]

    def head(self, stop: int) -> ExpVector:
        """The first ``stop`` terms."""
        coefficients = None if self.coefficients is None else self.coefficients[:stop]
        return ExpVector(coefficients, self.exponents[:stop], nonnegative=self.nonnegative, positive=self.positive and self.coefficients is None and stop > 0)

    def pairs(self) -> list[tuple[Fraction, Fraction]]:
        """The terms as ``(exponent, coefficient)`` Fractions, in vector order."""
        exponents = self.exponents.to_list()
        coefficients = [1] * len(exponents) if self.coefficients is None else self.coefficients.to_list()
        return [(Fraction(b), Fraction(c)) for b, c in zip(exponents, coefficients)]

    def ball(self, precision: int, *, shift: Fraction) -> arb:
        """A ball containing ``Σ c_i e^{b_i − shift}`` at ``precision`` bits.

        Terms far below the largest exponent are not evaluated: every term with
        ``top − b_i > G/den`` is at most ``|c_i|·e^{−G/den}`` times ``e^{top}``,
        so their sum lies in ``±W·e^{−G/den}·e^{top − shift}`` with ``W`` an
        upper bound of ``Σ|c_i|`` over them, and that interval is added to the
        ball of the remaining terms.  ``G`` is chosen so the interval is about
        ``2^-precision`` of ``e^{top}``: as a caller raises the precision the cut
        recedes, and at any precision the ball contains the exact sum.
        """
        if len(self.exponents) == 0:
            return arb(0)
        kept, weight, cut = self._truncated(precision)
        with ctx.workprec(precision):
            total = kept._ball(precision, shift=shift)
            if weight:
                exponents = self.exponents
                den = int(exponents.den)
                # the dropped terms' sum: within ±W·e^{−G/den} · e^{top − shift}
                bound = _arb(weight) * (arb(fmpq(int(exponents.num.max()) - cut, den)) - _arb(shift)).exp()
                total += bound.union(-bound)
            return total

    def _truncated(self, precision: int) -> tuple[ExpVector, Fraction, int]:
        """``(kept, W, G)``: the terms with ``top − b_i <= G/den`` and ``W >= Σ|c_i|`` over the others (0: none dropped)."""
        exponents = self.exponents
        n = len(exponents)
        nums = exponents.num
        if n <= 64:
            return self, Fraction(0), 0
        top = int(nums.max())
        span = top - int(nums.min())
        den = int(exponents.den)
        coefficients = self.coefficients
        magnitude = 1 if coefficients is None else maxabs(coefficients.num)
        # G/den >= (precision + log2(n·max|c|) + 2)·ln 2 (6932/10000 > ln 2): the dropped sum is below 2^-precision·e^{top}
        cut = -(-den * (precision + (n * magnitude).bit_length() + 2) * 6932 // 10000)
        if span <= cut:
            return self, Fraction(0), 0
        if nums.dtype != object and span < 1 << 62:
            keep = np.flatnonzero((top - nums) <= cut)  # no overflow: 0 <= top − b_i <= span
        else:
            keep = np.flatnonzero(np.array([top - int(v) <= cut for v in nums.tolist()], dtype=bool))
        dropped = n - len(keep)
        if coefficients is None:
            kept = ExpVector(None, exponents[keep])
            weight = Fraction(dropped)
        else:
            kept = ExpVector(coefficients[keep], exponents[keep], nonnegative=self.nonnegative, positive=False)  # flags unused by _ball
            weight = Fraction(magnitude * dropped, int(coefficients.den))
        return kept, weight, cut

    def _ball(self, precision: int, *, shift: Fraction) -> arb:
        """A ball containing ``Σ c_i e^{b_i − shift}``, every term evaluated."""
        exponents = self.exponents
        n = len(exponents)
        with ctx.workprec(precision):
            if n == 0:
                return arb(0)
            den = int(exponents.den)
            nums = exponents.num
            top = int(nums.max())
            span = top - int(nums.min())
            coefficients = self.coefficients
            if n > 64 and span <= _POLY_SPAN and span <= 64 * n and nums.dtype != object:
                # Σ c_i x^{top − e_i} with x = e^{−1/den}: one dense integer polynomial, Horner in balls
                gaps = (top - nums).astype(np.int64)
                dense = np.zeros(span + 1, dtype=object if coefficients is not None and coefficients.num.dtype == object else np.int64)
                if coefficients is None:
                    dense = np.bincount(gaps, minlength=span + 1).astype(dense.dtype, copy=False)
                    scale = arb(1)
                else:
                    values = coefficients.num
                    if dense.dtype != object and maxabs(values) * n >= LIMIT:
                        dense = dense.astype(object)
                    np.add.at(dense, gaps, values)
                    scale = arb(fmpq(1, int(coefficients.den)))
                polynomial = fmpz_poly(dense.tolist())  # Python ints already (int64 or object array)
                x = (-arb(fmpq(1, den))).exp()
                head = (arb(fmpq(top, den)) - _arb(shift)).exp()
                return polynomial(x) * head * scale
            total = arb(0)
            for b, c in self.pairs():
                exponent = b - shift
                term = _arb(c) if exponent == 0 else _arb(c) * _arb(exponent).exp()
                total += term
            return total


def _arb(value: Fraction) -> arb:
    return arb(fmpq(value.numerator, value.denominator))


def _rescale(values: RationalArray, den: int) -> np.ndarray:
    """Numerators of ``values`` over ``den`` (a multiple of its denominator)."""
    factor = den // int(values.den)
    if factor == 1:
        return values.num
    if values.num.dtype == object or values.bound * factor >= LIMIT:
        return values.num.astype(object) * factor
    return values.num * np.int64(factor)


#: Integers below this are exact in float64, and so are their sums while they stay below it.
_FLOAT_EXACT = 1 << 53


def _merge_by_count(exps: np.ndarray, coefs: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Equal exponents summed by one ``bincount`` where the exponents are int64 of a span within a few times their
    number: ``(exponents increasing, non-zero coefficients)``; None where that does not apply.

    The coefficients are integers with ``Σ|c_i| < 2^53``, so every partial sum ``bincount`` forms in float64
    is an integer below ``2^53``, exact: the result equals the sort-and-reduce merge.
    """
    n = len(exps)
    if n <= 64 or exps.dtype == object or coefs.dtype == object:
        return None
    low = int(exps.min())
    span = int(exps.max()) - low
    if span > 4 * n + 1024 or maxabs(coefs) * n >= _FLOAT_EXACT:
        return None
    summed = np.bincount(exps - low, weights=coefs.astype(np.float64), minlength=span + 1)
    present = np.flatnonzero(summed)
    return present + low, summed[present].astype(np.int64)


def canonical(parts: Sequence[tuple[ExpVector, Fraction, Fraction]]) -> ExpVector:
    """The canonical form of ``Σ_j k_j · Σ_i c_i e^{b_i + s_j}`` over parts ``(vector, k_j, s_j)``.

    Exponents strictly increasing, coefficients non-zero, everything exact
    (integer arithmetic over common denominators; Python integers where int64
    could overflow).  An empty result means the sum is exactly zero.
    """
    exponent_parts: list[RationalArray] = []
    coefficient_parts: list[RationalArray] = []
    for vector, factor, shift in parts:
        if len(vector) == 0 or factor == 0:
            continue
        exponents = vector.exponents if shift == 0 else vector.exponents + RationalArray.constant(shift)
        if vector.coefficients is None:
            coefficients = RationalArray.integers(np.ones(len(vector), dtype=np.int64), bound=1)
        else:
            coefficients = vector.coefficients
        if factor != 1:
            coefficients = coefficients * RationalArray.constant(factor)
        exponent_parts.append(exponents.shared())
        coefficient_parts.append(coefficients.shared())
    if not exponent_parts:
        return ExpVector(RationalArray.of([]), RationalArray.of([]), nonnegative=True)
    exp_den = math.lcm(*[int(e.den) for e in exponent_parts])
    coef_den = math.lcm(*[int(c.den) for c in coefficient_parts])
    exp_nums = [_rescale(e, exp_den) for e in exponent_parts]
    coef_nums = [_rescale(c, coef_den) for c in coefficient_parts]
    if any(a.dtype == object for a in exp_nums):
        exp_nums = [a.astype(object) for a in exp_nums]
    exps = np.concatenate(exp_nums) if len(exp_nums) > 1 else exp_nums[0]
    coef_bound = sum(maxabs(c) for c in coef_nums)
    wide = coef_bound >= LIMIT or any(c.dtype == object for c in coef_nums)
    coefs = np.concatenate([c.astype(object) if wide else c for c in coef_nums]) if len(coef_nums) > 1 else (coef_nums[0].astype(object) if wide else coef_nums[0])
    merged = _merge_by_count(exps, coefs)
    if merged is not None:
        exps, coefs = merged
    else:
        order = np.argsort(exps)  # equal exponents are summed: their order does not matter
        exps, coefs = exps[order], coefs[order]
        if len(exps) > 1:
            starts = np.concatenate([[0], np.flatnonzero(exps[1:] != exps[:-1]) + 1])
            exps = exps[starts]
            coefs = np.add.reduceat(coefs, starts)
        keep = coefs != 0
        exps, coefs = exps[keep], coefs[keep]
    exponent_array = RationalArray(exps if exps.dtype == object else exps.astype(np.int64), exp_den)
    coefficient_array = RationalArray(coefs, coef_den)
    nonnegative = bool(np.all(coefs > 0)) if coefs.size else True
    return ExpVector(coefficient_array, exponent_array, nonnegative=nonnegative, positive=nonnegative and coefs.size > 0)
