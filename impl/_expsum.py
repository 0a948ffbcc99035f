"""Exact finite sums of rational multiples of exponentials of rationals.

An :class:`ExpSum` is ``Σ c_i · e^{b_i}`` with rational ``c_i`` and ``b_i``.
Equal exponents are merged and zero coefficients dropped, so the
representation is canonical.  By the Lindemann–Weierstrass theorem the numbers
``e^{b}`` for distinct rational (indeed algebraic) ``b`` are linearly
independent over the algebraic numbers; hence a canonical ``ExpSum`` is zero
if and only if it has no terms.  Every other sign is settled by python-flint
ball arithmetic at doubling precision, which terminates because the value is
not zero.  No float ever decides a comparison.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any, Union

from flint import arb, ctx, fmpq

from expmech.spec._errors import InvalidArgument, InvalidType, PrecisionExhausted, describe

from expmech.spec._validate import as_rational

from ._display import sum_text

__all__ = [
    "DEFAULT_MAX_PRECISION",
    "ExactOrdering",
    "ExpSum",
    "arb_from_fraction",
    "ball_endpoints",
]

#: Precision cap, in bits, for settling a sign or an enclosure.
DEFAULT_MAX_PRECISION = 1 << 20
_START_PRECISION = 64

Rational = Union[int, Fraction]


def arb_from_fraction(value: Fraction) -> arb:
    """A ball containing ``value``, at the current python-flint precision."""
    return arb(fmpq(value.numerator, value.denominator))


def ball_endpoints(ball: arb) -> tuple[Fraction, Fraction]:
    """The exact rational endpoints ``(mid - rad, mid + rad)`` of a finite ball."""
    mid = _exact_fraction(ball.mid())
    rad = _exact_fraction(ball.rad())
    return (mid - rad, mid + rad)


def _exact_fraction(value: arb) -> Fraction:
    """The exact rational value of an exact (radius-zero) ball such as ``x.mid()``."""
    mantissa, exponent = value.man_exp()
    mantissa_int, exponent_int = int(mantissa), int(exponent)
    if exponent_int >= 0:
        return Fraction(mantissa_int << exponent_int)
    return Fraction(mantissa_int, 1 << -exponent_int)


class ExactOrdering:
    """``<``, ``<=``, ``>``, ``>=`` from an exact three-way ``_cmp`` (None: not comparable)."""

    __slots__ = ()

    def _cmp(self, other: object) -> int | None:
        raise NotImplementedError

    def __lt__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result < 0

    def __le__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result <= 0

    def __gt__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result > 0

    def __ge__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result >= 0


class ExpSum(ExactOrdering):
    """An exact real number ``Σ c_i · e^{b_i}`` with rational ``c_i``, ``b_i``.

    ``ExpSum(terms)`` takes an iterable of ``(coefficient, exponent)`` pairs,
    each converted exactly with :func:`expmech.spec._validate.as_rational`.
    Instances are immutable.  Arithmetic (``+``, ``-``, ``*`` with another
    ``ExpSum`` or a rational) is exact; comparisons with another ``ExpSum`` or a
    rational are decided exactly (see the module docstring).

    >>> from fractions import Fraction
    >>> ExpSum.exp(1) - ExpSum.exp(1) == 0
    True
    >>> ExpSum.exp(1) > Fraction(27182818284590452, 10**16)
    False
    """

    __slots__ = ("_terms",)

    _terms: tuple[tuple[Fraction, Fraction], ...]  # (exponent, coefficient), sorted

    def __init__(self, terms: Iterable[tuple[Any, Any]] = ()) -> None:
        merged: dict[Fraction, Fraction] = {}
        for index, pair in enumerate(terms):
            try:
                coefficient, exponent = pair
            except (TypeError, ValueError):
                raise InvalidType(
                    f"terms[{index}]={describe(pair)} must be a (coefficient, exponent) pair",
                    parameter="terms",
                    value=pair,
                ) from None
            c = as_rational(coefficient, name=f"terms[{index}].coefficient")
            b = as_rational(exponent, name=f"terms[{index}].exponent")
            merged[b] = merged.get(b, Fraction(0)) + c
        self._terms = _canonical(merged)

    # -- construction ---------------------------------------------------------

    @classmethod
    def _from_mapping(cls, merged: Mapping[Fraction, Fraction]) -> ExpSum:
        """Build from an exponent -> coefficient mapping of Fractions (no validation)."""
        result = object.__new__(cls)
        result._terms = _canonical(merged)
        return result

    @classmethod
    def exp(cls, exponent: Rational) -> ExpSum:
        """The number ``e^{exponent}``."""
        b = as_rational(exponent, name="exponent")
        return cls._from_mapping({b: Fraction(1)})

    @classmethod
    def rational(cls, value: Rational) -> ExpSum:
        """The rational number ``value`` as an ``ExpSum``."""
        c = as_rational(value, name="value")
        return cls._from_mapping({Fraction(0): c})

    @classmethod
    def weighted_exps(cls, pairs: Iterable[tuple[Fraction, Fraction]]) -> ExpSum:
        """``Σ c · e^{b}`` over ``(c, b)`` pairs that are already Fractions.

        The fast path for internal callers: no per-term validation.
        """
        merged: dict[Fraction, Fraction] = {}
        get = merged.get
        for c, b in pairs:
            merged[b] = get(b, _ZERO) + c
        return cls._from_mapping(merged)

    # -- inspection -----------------------------------------------------------

    @property
    def terms(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """The canonical terms as ``(coefficient, exponent)`` pairs, exponents increasing."""
        return tuple((c, b) for b, c in self._terms)

    def __len__(self) -> int:
        return len(self._terms)

    def __iter__(self) -> Iterator[tuple[Fraction, Fraction]]:
        return iter(self.terms)

    def is_zero(self) -> bool:
        """True exactly when the value is 0 (Lindemann–Weierstrass: no terms)."""
        return not self._terms

    def as_rational(self) -> Fraction | None:
        """The value as a Fraction if it is rational, else ``None``.

        A canonical sum is rational exactly when its only exponent is 0.
        """
        if not self._terms:
            return Fraction(0)
        if len(self._terms) == 1 and self._terms[0][0] == 0:
            return self._terms[0][1]
        return None

    # -- arithmetic -----------------------------------------------------------

    def __neg__(self) -> ExpSum:
        result = object.__new__(ExpSum)
        result._terms = tuple((b, -c) for b, c in self._terms)
        return result

    def __add__(self, other: object) -> ExpSum:
        other_sum = _coerce(other)
        if other_sum is None:
            return NotImplemented
        merged = dict(self._terms)
        get = merged.get
        for b, c in other_sum._terms:
            merged[b] = get(b, _ZERO) + c
        return ExpSum._from_mapping(merged)

    __radd__ = __add__

    def __sub__(self, other: object) -> ExpSum:
        other_sum = _coerce(other)
        if other_sum is None:
            return NotImplemented
        return self + (-other_sum)

    def __rsub__(self, other: object) -> ExpSum:
        other_sum = _coerce(other)
        if other_sum is None:
            return NotImplemented
        return other_sum + (-self)

    def __mul__(self, other: object) -> ExpSum:
        if isinstance(other, int | Fraction) and not isinstance(other, bool):
            return self.scale(Fraction(other))
        if not isinstance(other, ExpSum):
            return NotImplemented
        merged: dict[Fraction, Fraction] = {}
        get = merged.get
        for b1, c1 in self._terms:
            for b2, c2 in other._terms:
                b = b1 + b2
                merged[b] = get(b, _ZERO) + c1 * c2
        return ExpSum._from_mapping(merged)

    __rmul__ = __mul__

    def scale(self, factor: Fraction) -> ExpSum:
        """``factor · self`` for a rational ``factor``."""
        if factor == 0:
            return _ZERO_SUM
        result = object.__new__(ExpSum)
        result._terms = tuple((b, c * factor) for b, c in self._terms)
        return result

    def shift(self, exponent: Fraction) -> ExpSum:
        """``e^{exponent} · self`` for a rational ``exponent``."""
        if exponent == 0:
            return self
        result = object.__new__(ExpSum)
        result._terms = tuple((b + exponent, c) for b, c in self._terms)
        return result

    # -- exact decisions ------------------------------------------------------

    def sign(self, *, max_precision: int = DEFAULT_MAX_PRECISION) -> int:
        """The exact sign of the value: -1, 0 or 1.

        Zero is decided by cancellation alone; otherwise the sum is evaluated
        in ball arithmetic at doubling precision until the ball excludes 0.
        Raises :class:`~expmech.spec.PrecisionExhausted` if ``max_precision``
        bits do not suffice (the sign is never guessed).
        """
        terms = self._terms
        if not terms:
            return 0
        signs = {c > 0 for _, c in terms}
        if len(signs) == 1:
            return 1 if True in signs else -1
        precision = _START_PRECISION + max(1, len(terms)).bit_length()
        top = terms[-1][0]
        while True:
            ball = _evaluate(terms, precision, shift=top)
            if ball > 0:
                return 1
            if ball < 0:
                return -1
            if precision >= max_precision:
                raise PrecisionExhausted(
                    f"the sign of an exponential sum with {len(terms)} terms was not settled "
                    f"at max_precision={max_precision} bits"
                )
            precision = min(2 * precision, max_precision)

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` with ``lo <= self <= hi`` and ``hi - lo <= 2**-bits · |self|``.

        Exactly ``(0, 0)`` for zero.  ``bits`` must be a positive int.
        """
        bits = _check_bits(bits)
        if not self._terms:
            return (Fraction(0), Fraction(0))
        return ball_endpoints(self._ball(bits, max_precision=max_precision))

    def _ball(self, bits: int, *, max_precision: int = DEFAULT_MAX_PRECISION) -> arb:
        """A ball of relative radius at most ``2**-bits`` (the value must be nonzero)."""
        terms = self._terms
        precision = _START_PRECISION + bits + len(terms).bit_length()
        scale = 2**bits
        while True:
            ball = _evaluate(terms, precision, shift=Fraction(0))
            with ctx.workprec(precision):
                if ball.rad() * 2 * scale <= ball.abs_lower():
                    return ball
            if precision >= max_precision:
                raise PrecisionExhausted(
                    f"an enclosure to bits={bits} was not reached at max_precision={max_precision} bits"
                )
            precision = min(2 * precision, max_precision)

    def __float__(self) -> float:
        """A float near the value, for display only; never used to decide anything."""
        if not self._terms:
            return 0.0
        top = self._terms[-1][0]
        ball = ExpSum._from_mapping({b - top: c for b, c in self._terms})._ball(53)
        mantissa = float(ball.mid())
        try:
            return mantissa * math.exp(float(top))
        except OverflowError:
            return math.copysign(math.inf, mantissa)

    def _cmp(self, other: object) -> int | None:
        other_sum = _coerce(other)
        if other_sum is None:
            return None
        return (self - other_sum).sign()

    def __eq__(self, other: object) -> bool:
        other_sum = _coerce(other)
        if other_sum is None:
            return NotImplemented
        return self._terms == other_sum._terms

    def __hash__(self) -> int:
        value = self.as_rational()
        if value is not None:
            return hash(value)
        return hash(self._terms)


    def __bool__(self) -> bool:
        return bool(self._terms)

    def __str__(self) -> str:
        """The exact sum in mathematical form, largest exponent first: ``3·e^(1/2) − 1``."""
        return sum_text(self)

    def __repr__(self) -> str:
        return f"ExpSum({self})"


_ZERO = Fraction(0)


def _canonical(merged: Mapping[Fraction, Fraction]) -> tuple[tuple[Fraction, Fraction], ...]:
    return tuple(sorted((b, c) for b, c in merged.items() if c != 0))


_ZERO_SUM = ExpSum._from_mapping({})


def _coerce(value: object) -> ExpSum | None:
    if isinstance(value, ExpSum):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | Fraction):
        return ExpSum._from_mapping({_ZERO: Fraction(value)})
    return None


def _check_bits(bits: int) -> int:
    if isinstance(bits, bool) or not isinstance(bits, int):
        raise InvalidType(f"bits={describe(bits)} must be an int", parameter="bits", value=bits)
    if bits < 1:
        raise InvalidArgument(f"bits={bits} must be >= 1", parameter="bits", value=bits)
    return bits


def _evaluate(terms: tuple[tuple[Fraction, Fraction], ...], precision: int, *, shift: Fraction) -> arb:
    """A ball containing ``Σ c · e^{b - shift}`` at ``precision`` bits."""
    with ctx.workprec(precision):
        total = arb(0)
        for b, c in terms:
            exponent = b - shift
            if exponent == 0:
                total += arb_from_fraction(c)
            else:
                total += arb_from_fraction(c) * arb_from_fraction(exponent).exp()
        return total
