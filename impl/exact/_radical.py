"""Exact sums of real radicals ``Σ cᵢ·sᵢ^{1/m}`` with rational ``cᵢ`` and positive rational ``sᵢ``.

A posterior tempered by a fractional factor ``ε₀ = a/b`` has weights
``π(θ)·L(d | θ)^{a/b} = π(θ)·(L^a)^{1/b}``: positive real ``b``-th roots of
rationals.  Every probability, every comparison of probabilities and every
privacy-loss decision is then the sign of such a sum, and it is decided
exactly:

* two roots ``s^{1/m}`` and ``t^{1/m}`` are rational multiples of each other
  iff ``s/t`` is the ``m``-th power of a rational (tested with exact integer
  roots, after a cheap filter by power residues modulo small primes); such
  terms are merged;
* after merging, the positive real ``m``-th roots of positive rationals whose
  ratios are not ``m``-th powers are linearly independent over the rationals
  (Besicovitch 1940; Boreico 2008, "Linear independence of radicals"), so the
  sum is zero iff every merged coefficient is zero;
* a non-zero sum's sign is settled by python-flint ball arithmetic at doubling
  precision, which terminates because the value is not zero.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from flint import arb, ctx, fmpz

from expmech.spec import InvalidArgument
from expmech.spec.internal import approximate, as_rational, describe, readable

from ._balls import enclose_ball, settle_sign
from ._expsum import DEFAULT_MAX_PRECISION, ExactOrdering, _check_bits, arb_from_fraction

__all__ = ["LogRadicalRatio", "RadicalRatio", "RadicalSum", "rational_root"]

# primes p with many divisors of p - 1, for the power-residue filter
_FILTER_PRIMES = (7, 13, 31, 61, 97, 181, 211, 241, 331, 421, 433, 541, 601, 661, 1009, 2521)


def _is_power_mod(n: int, m: int) -> bool:
    """False only if ``n`` is certainly not an ``m``-th power (by residues modulo small primes)."""
    for p in _FILTER_PRIMES:
        r = n % p
        if r == 0:
            continue
        from math import gcd

        g = gcd(m, p - 1)
        if g > 1 and pow(r, (p - 1) // g, p) != 1:
            return False
    return True


def _integer_root(n: int, m: int) -> int | None:
    """The ``m``-th root of ``n >= 0`` if it is an integer, else None."""
    if n in (0, 1) or m == 1:
        return n
    if m >= n.bit_length():  # 2^m > n > 1: no integer m-th root (and m may pass a C long)
        return None
    if not _is_power_mod(n, m):
        return None
    root = int(fmpz(n).root(m))
    return root if root**m == n else None


def rational_root(value: Fraction, m: int) -> Fraction | None:
    """The positive rational ``t`` with ``t^m = value > 0``, or None if there is none."""
    top = _integer_root(value.numerator, m)
    if top is None:
        return None
    bottom = _integer_root(value.denominator, m)
    return None if bottom is None else Fraction(top, bottom)


class RadicalSum(ExactOrdering):
    """The exact real number ``Σ cᵢ·sᵢ^{1/m}`` (rational ``cᵢ``, rational ``sᵢ > 0``, positive real roots).

    ``RadicalSum(terms, index=m)`` takes ``(coefficient, radicand)`` pairs.
    Terms whose radicands differ by an ``m``-th power are merged, so the sum is
    zero iff no term is left (see the module docstring).  ``+``, ``-`` and
    ``*`` combine sums (of any indices, over their least common multiple) and
    rationals; comparisons are exact.

    >>> from fractions import Fraction
    >>> RadicalSum([(1, 8)], index=3) == 2
    True
    >>> RadicalSum([(1, 2)], index=2) * RadicalSum([(1, 2)], index=2) == 2
    True
    >>> RadicalSum([(1, 2), (1, 3)], index=2) < RadicalSum([(1, 10)], index=2)  # √2 + √3 < √10
    True
    """

    __slots__ = ("index", "terms")

    index: int
    terms: tuple[tuple[Fraction, Fraction], ...]  # (radicand, coefficient) after merging

    def __init__(self, terms: Iterable[tuple[Any, Any]] = (), *, index: int = 1) -> None:
        if isinstance(index, bool) or not isinstance(index, int) or index < 1:
            raise InvalidArgument(f"index={describe(index)} must be an int >= 1", parameter="index", value=index)
        pairs = []
        for position, pair in enumerate(terms):
            try:
                coefficient, radicand = pair
            except (TypeError, ValueError):
                raise InvalidArgument(f"terms[{position}]={describe(pair)} must be a (coefficient, radicand) pair", parameter="terms", value=pair) from None
            c = as_rational(coefficient, name=f"terms[{position}].coefficient")
            s = as_rational(radicand, name=f"terms[{position}].radicand")
            if s <= 0:
                raise InvalidArgument(f"terms[{position}].radicand={describe(radicand)} must be > 0", parameter="terms", value=radicand)
            pairs.append((s, c))
        self.index, self.terms = index, _merge(pairs, index)

    @classmethod
    def _make(cls, terms: Iterable[tuple[Fraction, Fraction]], index: int) -> RadicalSum:
        result = object.__new__(cls)
        result.index, result.terms = index, _merge(terms, index)
        return result

    @classmethod
    def root(cls, radicand: Any, index: int, coefficient: Any = 1) -> RadicalSum:
        """``coefficient · radicand^{1/index}``."""
        return cls([(coefficient, radicand)], index=index)

    def lifted(self, index: int) -> RadicalSum:
        """The same number written with root index ``index`` (a multiple of this one's)."""
        if index % self.index:
            raise InvalidArgument(f"index={index} must be a multiple of {self.index}", parameter="index", value=index)
        k = index // self.index
        return RadicalSum._make(((s**k, c) for s, c in self.terms), index)

    # -- arithmetic ---------------------------------------------------------------

    def _common(self, other: RadicalSum) -> tuple[RadicalSum, RadicalSum]:
        from math import lcm

        m = lcm(self.index, other.index)
        return (self if self.index == m else self.lifted(m)), (other if other.index == m else other.lifted(m))

    def __add__(self, other: object) -> RadicalSum:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        a, b = self._common(o)
        return RadicalSum._make(a.terms + b.terms, a.index)

    __radd__ = __add__

    def __neg__(self) -> RadicalSum:
        return RadicalSum._make(((s, -c) for s, c in self.terms), self.index)

    def __sub__(self, other: object) -> RadicalSum:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return self + (-o)

    def __rsub__(self, other: object) -> RadicalSum:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return o + (-self)

    def __mul__(self, other: object) -> RadicalSum:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        a, b = self._common(o)
        return RadicalSum._make(((s * t, c * d) for s, c in a.terms for t, d in b.terms), a.index)

    __rmul__ = __mul__

    # -- decisions ----------------------------------------------------------------

    def is_zero(self) -> bool:
        """Exactly zero."""
        return not self.terms

    def _ball(self, precision: int) -> arb:
        with ctx.workprec(precision):
            total = arb(0)
            for s, c in self.terms:
                radicand = arb_from_fraction(s)
                # arb's root takes a C unsigned long: past it, s^(1/m) = exp(ln s / m) (s > 0)
                root = radicand.root(self.index) if self.index < 1 << 62 else (radicand.log() / self.index).exp()
                total += arb_from_fraction(c) * root
            return total

    def sign(self, *, max_precision: int = DEFAULT_MAX_PRECISION) -> int:
        """The exact sign: -1, 0 or 1."""
        if not self.terms:
            return 0
        if len(self.terms) == 1:
            c = self.terms[0][1]
            return 1 if c > 0 else -1
        return settle_sign(self._ball, f"a sum of {len(self.terms)} radicals", max_precision=max_precision)

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the value with ``hi − lo <= 2**-bits · |value|`` (``(0, 0)`` if zero)."""
        bits = _check_bits(bits)
        if not self.terms:
            return (Fraction(0), Fraction(0))
        return enclose_ball(self._ball, bits, max_precision=max_precision)

    def _cmp(self, other: object) -> int | None:
        o = _coerce(other)
        if o is None:
            return None
        return (self - o).sign()

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        """A float near the value, for display only."""
        lo, hi = self.enclose(53)
        return float((lo + hi) / 2)

    def exact_text(self) -> str:
        """``3·2^(1/2) − 1``: the exact form (six terms at most, then a count of the rest)."""
        if not self.terms:
            return "0"
        parts: list[str] = []
        for s, c in self.terms[:6]:
            if s == 1:
                body = readable(abs(c))
            else:
                root = f"{readable(s)}^(1/{self.index})" if s.denominator == 1 else f"({readable(s)})^(1/{self.index})"
                body = root if abs(c) == 1 else f"{readable(abs(c))}·{root}"
            parts.append(("− " if c < 0 else "+ ") + body if parts else ("−" if c < 0 else "") + body)
        more = f" + … ({len(self.terms) - 6} more terms)" if len(self.terms) > 6 else ""
        return " ".join(parts) + more

    def __str__(self) -> str:
        """``3·2^(1/2) − 1 ≈ 3.243`` (a rational exactly, without an approximation)."""
        if not self.terms or (len(self.terms) == 1 and self.terms[0][0] == 1):
            return self.exact_text()
        lo, hi = self.enclose(24)
        return f"{self.exact_text()} ≈ {approximate((lo + hi) / 2)}"

    def __repr__(self) -> str:
        return f"RadicalSum({self})"


class RadicalRatio(ExactOrdering):
    """The exact real number ``numerator / denominator`` of two :class:`RadicalSum` values, the denominator > 0.

    Compares exactly with rationals, ``RadicalSum`` and other ``RadicalRatio``
    values (by cross-multiplication); :meth:`log` gives its logarithm.
    """

    __slots__ = ("numerator", "denominator")

    numerator: RadicalSum
    denominator: RadicalSum

    def __init__(self, numerator: RadicalSum | int | Fraction, denominator: RadicalSum | int | Fraction = 1) -> None:
        num, den = _coerce(numerator), _coerce(denominator)
        if num is None:
            raise InvalidArgument(f"numerator={describe(numerator)} must be a RadicalSum or a rational", parameter="numerator", value=numerator)
        if den is None or den.sign() <= 0:
            raise InvalidArgument(f"denominator={describe(denominator)} must be a positive RadicalSum or rational", parameter="denominator", value=denominator)
        self.numerator, self.denominator = num, den

    def sign(self) -> int:
        """The exact sign."""
        return self.numerator.sign()

    def _cmp(self, other: object) -> int | None:
        if isinstance(other, RadicalRatio):
            return (self.numerator * other.denominator - other.numerator * self.denominator).sign()
        o = _coerce(other)
        if o is None:
            return None
        return (self.numerator - o * self.denominator).sign()

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the value, relative width ``<= 2**-bits`` (``(0, 0)`` if zero)."""
        bits = _check_bits(bits)
        if self.numerator.is_zero():
            return (Fraction(0), Fraction(0))
        return enclose_ball(self._quotient, bits, max_precision=max_precision)

    def _quotient(self, precision: int) -> arb:
        with ctx.workprec(precision):
            return self.numerator._ball(precision) / self.denominator._ball(precision)

    def log(self) -> LogRadicalRatio:
        """``ln(self)``; the value must be positive."""
        if self.numerator.sign() <= 0:
            raise InvalidArgument(f"log of a non-positive value {self}", parameter="self", value=self)
        return LogRadicalRatio(self.numerator, self.denominator)

    def __float__(self) -> float:
        """A float near the value, for display only."""
        lo, hi = self.enclose(53)
        return float((lo + hi) / 2)

    def __str__(self) -> str:
        """``(N) / (D) ≈ x``."""
        if self.numerator.is_zero():
            return "0"
        top, bottom = self.numerator.terms, self.denominator.terms
        if len(top) == 1 == len(bottom) and top[0][0] == 1 == bottom[0][0]:
            return readable(top[0][1] / bottom[0][1])
        lo, hi = self.enclose(24)
        return f"({self.numerator.exact_text()}) / ({self.denominator.exact_text()}) ≈ {approximate((lo + hi) / 2)}"

    def __repr__(self) -> str:
        return f"RadicalRatio({self})"


class LogRadicalRatio(ExactOrdering):
    """The exact real number ``ln(N / D)`` for positive :class:`RadicalSum` values ``N``, ``D``.

    Compares exactly with rationals, :class:`~expmech.impl.LogLinear` values
    ``c₀ + Σ cᵢ ln ρᵢ`` (so with ``ε = 2·ε₀·ln ρ``), sympy numbers of that form
    and other ``LogRadicalRatio`` values: ``ln(N/D) <= c₀ + Σ cᵢ ln ρᵢ`` is
    ``N <= e^{c₀}·D·Π ρᵢ^{cᵢ}``, a radical sum's sign when ``c₀ = 0`` and
    otherwise never an equality (``e^{c₀}`` is transcendental, Lindemann), so
    ball arithmetic settles it.
    """

    __slots__ = ("numerator", "denominator")

    numerator: RadicalSum
    denominator: RadicalSum

    def __init__(self, numerator: RadicalSum, denominator: RadicalSum) -> None:
        if numerator.sign() <= 0 or denominator.sign() <= 0:
            raise InvalidArgument("ln(N/D) needs N > 0 and D > 0", parameter="numerator", value=numerator)
        self.numerator, self.denominator = numerator, denominator

    @property
    def infinite(self) -> bool:
        """Always False: the value is finite."""
        return False

    def is_zero(self) -> bool:
        """Exactly zero (N = D)."""
        return (self.numerator - self.denominator).is_zero()

    def _cmp(self, other: object) -> int | None:
        if isinstance(other, LogRadicalRatio):
            return (self.numerator * other.denominator - other.numerator * self.denominator).sign()
        from ._loglinear import LogLinear, _coerce as log_coerce

        o = other if isinstance(other, LogLinear) else log_coerce(other)
        if o is None:
            return None
        if o.infinite:
            return -1
        from math import lcm

        index = 1
        for _, c in o.logs:
            index = lcm(index, c.denominator)
        product = Fraction(1)
        for base, c in o.logs:
            product *= Fraction(base) ** int(c * index)
        scaled = self.denominator * RadicalSum.root(product, index)
        difference = self.numerator - scaled if o.constant == 0 else None
        if difference is not None:
            return difference.sign()
        constant = o.constant

        def ball_at(precision: int) -> arb:
            with ctx.workprec(precision):
                return self.numerator._ball(precision) - arb_from_fraction(constant).exp() * scaled._ball(precision)

        return settle_sign(ball_at, f"ln(N/D) − ({o})")

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the value, relative width ``<= 2**-bits`` (``(0, 0)`` if zero)."""
        bits = _check_bits(bits)
        if self.is_zero():
            return (Fraction(0), Fraction(0))
        def ball_at(precision: int) -> arb:
            with ctx.workprec(precision):
                return (self.numerator._ball(precision) / self.denominator._ball(precision)).log()

        return enclose_ball(ball_at, bits, max_precision=max_precision)

    def __float__(self) -> float:
        """A float near the value, for display only."""
        if self.is_zero():
            return 0.0
        lo, hi = self.enclose(53)
        return float((lo + hi) / 2)

    def __str__(self) -> str:
        """``ln(N/D) ≈ x`` (N, D sums of radicals)."""
        if self.is_zero():
            return "0"
        lo, hi = self.enclose(24)
        return f"ln(({self.numerator.exact_text()}) / ({self.denominator.exact_text()})) ≈ {approximate((lo + hi) / 2)}"

    def __repr__(self) -> str:
        return f"LogRadicalRatio({self})"


def _coerce(value: object) -> RadicalSum | None:
    if isinstance(value, RadicalSum):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | Fraction):
        return RadicalSum._make([(Fraction(1), Fraction(value))], 1)
    return None


def _merge(pairs: Iterable[tuple[Fraction, Fraction]], index: int) -> tuple[tuple[Fraction, Fraction], ...]:
    """Merge terms whose radicands differ by an ``index``-th power; drop zero coefficients."""
    classes: list[list[Fraction]] = []  # [representative radicand, coefficient]
    for s, c in pairs:
        if c == 0:
            continue
        if index > 1 and s != 1:
            whole = rational_root(s, index)
            if whole is not None:  # a rational: keep it in the class of 1
                s, c = Fraction(1), c * whole
        for entry in classes:
            factor = s / entry[0]
            t = factor if index == 1 else rational_root(factor, index)
            if t is not None:
                entry[1] += c * t
                break
        else:
            classes.append([s, c])
    if index == 1:
        total = sum((s * c for s, c in classes), Fraction(0))
        return () if total == 0 else ((Fraction(1), total),)
    return tuple((s, c) for s, c in classes if c != 0)
