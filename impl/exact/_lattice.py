"""Large exact exponential sums whose exponents lie on a lattice, evaluated as polynomials.

A normaliser over a continuous range is ``Σ c_i e^{b_i}`` with up to a term per
piece — 10⁵ terms for a median of 10⁵ records.  Its exponents are rationals,
so they lie on a lattice ``base + j·unit``; then the sum is
``e^{base} · P(e^{unit}) / den`` with ``P`` a polynomial with integer
coefficients, which python-flint evaluates in ball arithmetic in C.

As for :class:`~expmech.impl.ExpSum`, a zero polynomial is the only way the sum
can be zero (``e^{unit}`` is transcendental for a rational ``unit ≠ 0``, by
Lindemann–Weierstrass), and every other sign is settled by balls at doubling
precision — never by a float.  When the lattice is too fine (the degree would
exceed :data:`MAX_DEGREE` and many times the number of terms) the sum is kept
as a sparse :class:`ExpSum` instead; the results are the same.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpz_poly

from ._balls import enclose_ball, settle_sign
from ._expsum import DEFAULT_MAX_PRECISION, ExpSum, _evaluate, arb_from_fraction
from ._rationals import RationalArray

__all__ = ["LatticeSum", "MAX_DEGREE", "term_balls"]

#: Largest polynomial degree kept on a lattice (beyond it a sparse ExpSum is used).
MAX_DEGREE = 1 << 22
_START = 64


def _rational_gcd(values: Iterable[Fraction]) -> Fraction:
    result = Fraction(0)
    for value in values:
        if value:
            result = Fraction(math.gcd(result.numerator * value.denominator, value.numerator * result.denominator), result.denominator * value.denominator)
    return abs(result)


class LatticeSum:
    """``Σ_j c_j · e^{base + j·unit} / den`` with integer ``c_j`` (or, if too sparse, an :class:`ExpSum`).

    Immutable.  Build with :meth:`from_arrays`, :meth:`from_expsum` or
    :meth:`zero`; combine with ``+``, ``-``, :meth:`scale` and :meth:`shift`;
    decide with :meth:`sign`; enclose with :meth:`ball`.
    """

    __slots__ = ("base", "unit", "poly", "den", "sparse")

    base: Fraction
    unit: Fraction
    poly: fmpz_poly
    den: int
    sparse: ExpSum | None

    @classmethod
    def _make(cls, base: Fraction, unit: Fraction, poly: fmpz_poly, den: int) -> LatticeSum:
        result = object.__new__(cls)
        result.base, result.unit, result.poly, result.den, result.sparse = base, unit, poly, den, None
        return result

    @classmethod
    def _of_sparse(cls, value: ExpSum) -> LatticeSum:
        result = cls._make(Fraction(0), Fraction(1), fmpz_poly(), 1)
        result.sparse = value
        return result

    @classmethod
    def zero(cls) -> LatticeSum:
        """The number 0."""
        return cls._make(Fraction(0), Fraction(1), fmpz_poly(), 1)

    @classmethod
    def from_expsum(cls, value: ExpSum) -> LatticeSum:
        """The same number as ``value``."""
        terms = value.terms
        if not terms:
            return cls.zero()
        return cls.from_arrays(RationalArray.of([c for c, _ in terms]), RationalArray.of([b for _, b in terms]))

    @classmethod
    def from_arrays(cls, coefficients: RationalArray, exponents: RationalArray) -> LatticeSum:
        """``Σ_i coefficients[i] · e^{exponents[i]}`` for two exact 1-D arrays of equal length."""
        nonzero = coefficients.num != 0
        if not np.any(nonzero):
            return cls.zero()
        coefficients, exponents = coefficients[nonzero].shared(), exponents[nonzero].shared()
        e = exponents.num
        low = int(e.min())
        shifted = e - low if e.dtype != object else np.asarray(e - low, dtype=object)
        step = int(np.gcd.reduce(shifted)) if shifted.dtype != object else _gcd(shifted.tolist())
        count = len(shifted)
        index: np.ndarray | None
        if step == 0:
            degree, index = 0, np.zeros(count, dtype=np.int64)
        else:
            degree = int(shifted.max()) // step
            index = (shifted // step).astype(np.int64) if degree < (1 << 62) else None
        base = Fraction(low, int(exponents.den))
        unit = Fraction(step, int(exponents.den)) if step else Fraction(1)
        if index is None or degree > MAX_DEGREE and degree > 64 * count:
            pairs = zip(coefficients.fractions(), exponents.fractions())
            return cls._of_sparse(ExpSum.weighted_exps(pairs))
        values = coefficients.num
        if values.dtype == np.int64 and int(np.abs(values).max()) * count < (1 << 62):
            dense = np.zeros(degree + 1, dtype=np.int64)
            np.add.at(dense, index, values)
            coeffs = dense.tolist()
        else:
            dense_obj = np.zeros(degree + 1, dtype=object)
            np.add.at(dense_obj, index, values.astype(object))
            coeffs = [int(v) for v in dense_obj.tolist()]
        return cls._make(base, unit, fmpz_poly(coeffs), int(coefficients.den))

    # -- inspection ----------------------------------------------------------------------

    def is_zero(self) -> bool:
        """Exactly whether the value is 0."""
        if self.sparse is not None:
            return self.sparse.is_zero()
        return self.poly.degree() < 0

    def to_expsum(self) -> ExpSum:
        """The same number as a sparse :class:`ExpSum`."""
        if self.sparse is not None:
            return self.sparse
        den = self.den
        merged = {
            self.base + j * self.unit: Fraction(int(c), den)
            for j, c in enumerate(self.poly.coeffs())
            if c
        }
        return ExpSum._from_mapping(merged)

    # -- arithmetic ----------------------------------------------------------------------

    def scale(self, factor: Fraction) -> LatticeSum:
        """``factor · self`` for a rational factor."""
        factor = Fraction(factor)
        if factor == 0:
            return LatticeSum.zero()
        if self.sparse is not None:
            return LatticeSum._of_sparse(self.sparse.scale(factor))
        poly = self.poly * factor.numerator
        den = self.den * factor.denominator
        if den < 0:
            poly, den = -poly, -den
        return LatticeSum._make(self.base, self.unit, poly, den)

    def shift(self, exponent: Fraction) -> LatticeSum:
        """``e^{exponent} · self``."""
        if self.sparse is not None:
            return LatticeSum._of_sparse(self.sparse.shift(Fraction(exponent)))
        return LatticeSum._make(self.base + Fraction(exponent), self.unit, self.poly, self.den)

    def __neg__(self) -> LatticeSum:
        return self.scale(Fraction(-1))

    def __add__(self, other: LatticeSum) -> LatticeSum:
        if self.is_zero():
            return other
        if other.is_zero():
            return self
        if self.sparse is not None or other.sparse is not None:
            return LatticeSum._of_sparse(self.to_expsum() + other.to_expsum())
        base = min(self.base, other.base)
        unit = _rational_gcd([self.unit, other.unit, self.base - base, other.base - base])
        parts: list[tuple[int, int, LatticeSum]] = []
        degree = 0
        for part in (self, other):
            ratio_offset = (part.base - base) / unit
            ratio_stride = part.unit / unit
            assert ratio_offset.denominator == 1 and ratio_stride.denominator == 1
            parts.append((int(ratio_offset), int(ratio_stride), part))
            degree = max(degree, int(ratio_offset) + int(ratio_stride) * max(part.poly.degree(), 0))
        terms = self.poly.degree() + other.poly.degree() + 2
        if degree > MAX_DEGREE and degree > 64 * terms:
            return LatticeSum._of_sparse(self.to_expsum() + other.to_expsum())
        den = math.lcm(self.den, other.den)
        total = fmpz_poly()
        for offset, stride, part in parts:
            poly = _restride(part.poly, stride) * (den // part.den)
            if offset:
                poly = poly * _monomial(offset)
            total = total + poly
        return LatticeSum._make(base, unit, total, den)

    def __sub__(self, other: LatticeSum) -> LatticeSum:
        return self + (-other)

    def __mul__(self, other: LatticeSum) -> LatticeSum:
        if self.is_zero() or other.is_zero():
            return LatticeSum.zero()
        if self.sparse is not None or other.sparse is not None:
            return LatticeSum._of_sparse(self.to_expsum() * other.to_expsum())
        unit = _rational_gcd([self.unit, other.unit])
        first, second = self.unit / unit, other.unit / unit
        degree = int(first) * self.poly.degree() + int(second) * other.poly.degree()
        if degree > MAX_DEGREE:
            return LatticeSum._of_sparse(self.to_expsum() * other.to_expsum())
        poly = _restride(self.poly, int(first)) * _restride(other.poly, int(second))
        return LatticeSum._make(self.base + other.base, unit, poly, self.den * other.den)

    # -- exact decisions ---------------------------------------------------------------------

    def _poly_ball(self, precision: int) -> arb:
        with ctx.workprec(precision):
            x = arb_from_fraction(self.unit).exp()
            return self.poly(x)

    def value_ball(self, precision: int) -> arb:
        """A ball containing the value, computed at ``precision`` bits (shrinking to it as precision grows)."""
        if self.sparse is not None:
            return _evaluate(self.sparse._terms, precision, shift=Fraction(0))
        with ctx.workprec(precision):
            return self._poly_ball(precision) * arb_from_fraction(self.base).exp() / self.den

    def sign(self, *, max_precision: int = DEFAULT_MAX_PRECISION) -> int:
        """The exact sign: -1, 0 or 1 (raises PrecisionExhausted rather than guess)."""
        if self.sparse is not None:
            return self.sparse.sign(max_precision=max_precision)
        degree = self.poly.degree()
        if degree < 0:
            return 0
        return settle_sign(self._poly_ball, f"an exponential sum of degree {degree}", max_precision=max_precision)

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the value, relative width ``<= 2**-bits`` (``(0, 0)`` for zero)."""
        if self.is_zero():
            return (Fraction(0), Fraction(0))
        return enclose_ball(self.value_ball, bits, max_precision=max_precision)

    def __float__(self) -> float:
        """A float near the value, for display only."""
        lo, hi = self.enclose(53)
        return float((lo + hi) / 2)

    def __repr__(self) -> str:
        if self.sparse is not None:
            return f"LatticeSum({self.sparse!r})"
        return f"LatticeSum(e^({self.base}) · P(e^({self.unit})) / {self.den}, degree {self.poly.degree()})"


def _restride(poly: fmpz_poly, stride: int) -> fmpz_poly:
    """``P(x^stride)``."""
    if stride == 1:
        return poly
    coeffs = poly.coeffs()
    spread = [0] * (stride * (len(coeffs) - 1) + 1) if coeffs else []
    for j, c in enumerate(coeffs):
        spread[j * stride] = int(c)
    return fmpz_poly(spread)


def _monomial(power: int) -> fmpz_poly:
    """``x^power``."""
    return fmpz_poly([0] * power + [1])


def _gcd(values: list[int]) -> int:
    g = 0
    for value in values:
        g = math.gcd(g, int(value))
    return g


def term_balls(coefficients: RationalArray, exponents: RationalArray, precision: int) -> list[arb]:
    """Balls around ``c_i · e^{b_i − max b}`` for every term, at ``precision`` bits.

    On a lattice of exponents the powers of ``e^{unit}`` are built by
    multiplication (one exponential in all), so 10⁵ terms cost 10⁵ ball
    products; otherwise one exponential per distinct exponent.
    """
    count = len(coefficients)
    if count == 0:
        return []
    coefficients, exponents = coefficients.shared(), exponents.shared()
    e = exponents.num
    top = int(e.max())
    gaps = (top - e) if e.dtype != object else np.asarray(top - e, dtype=object)
    step = int(np.gcd.reduce(gaps)) if gaps.dtype != object else _gcd(gaps.tolist())
    with ctx.workprec(precision):
        numerators = [arb(int(c)) for c in coefficients.num.tolist()]
        scale = arb(1) / int(coefficients.den)
        if step and int(gaps.max()) // step <= MAX_DEGREE and gaps.dtype != object:
            index = (gaps // step).tolist()
            base = arb_from_fraction(Fraction(-step, int(exponents.den))).exp()
            powers: dict[int, arb] = {}
            previous, value = 0, arb(1)
            for k in sorted(set(index)):
                value = value * base ** (k - previous)
                powers[k] = value
                previous = k
            return [c * powers[k] * scale for c, k in zip(numerators, index)]
        cache: dict[int, arb] = {}
        balls = []
        for c, gap in zip(numerators, gaps.tolist()):
            power = cache.get(gap)
            if power is None:
                power = cache[gap] = arb_from_fraction(Fraction(-int(gap), int(exponents.den))).exp()
            balls.append(c * power * scale)
        return balls
