"""Exact finite sums of rational multiples of exponentials of rationals.

An :class:`ExpSum` is ``Σ c_i · e^{b_i}`` with rational ``c_i`` and ``b_i``.
Equal exponents are merged and zero coefficients dropped, so the canonical
form is unique.  By the Lindemann–Weierstrass theorem the numbers ``e^{b}``
for distinct rational (indeed algebraic) ``b`` are linearly independent over
the algebraic numbers; hence a canonical ``ExpSum`` is zero if and only if it
has no terms.  No float ever decides a comparison.

Two representations, one value:

* *small* sums (built from terms) keep their canonical terms as a tuple of
  Fractions and settle signs in python-flint ball arithmetic at doubling
  precision, which terminates because a non-empty canonical sum is not zero;
* *vector* sums (built by :meth:`ExpSum.vector`, e.g. a normaliser over 10⁶
  outputs) keep a few lazy parts ``k · Σ_i c_i e^{b_i + s}`` over exact numpy
  vectors (:class:`~expmech.impl.exact._expvector.ExpVector`).  ``+``, ``−``, scaling
  and shifting combine parts without touching the vectors.  A sign is decided
  by the procedure of exact geometric predicates:

  1. a sign known from the construction (positive coefficients);
  2. the **float filter**: the sum in vectorised float64 with a rigorous error
     bound (:mod:`expmech.impl.exact._floatfilter`), decisive when ``|S̃| > E``;
  3. **exact cancellation**: the canonical form in integer arithmetic — no
     term left means exactly zero; all coefficients of one sign decide;
  4. the float filter again, on the canonical terms;
  5. **ball arithmetic** on the canonical terms at doubling precision.

  Steps 3–5 run only where step 2 could not decide.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from fractions import Fraction
from typing import Any, Union

import numpy as np
from flint import arb, ctx

from expmech.spec import InvalidType, PrecisionExhausted
from expmech.spec.internal import as_rational, describe


from ._balls import DEFAULT_MAX_PRECISION, _check_bits, arb_from_fraction, ball_endpoints, settle_sign
from ._display import sum_text
from ._expvector import ExpVector, canonical
from ._floatfilter import EXP_REL, TINY, U, FloatSum, gamma
from ._rationals import RationalArray

__all__ = [
    "DEFAULT_MAX_PRECISION",
    "ExactOrdering",
    "ExpSum",
    "arb_from_fraction",
    "ball_endpoints",
]

_START_PRECISION = 64

Rational = Union[int, Fraction]


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
    each converted exactly with :func:`expmech.spec._validate.as_rational`;
    :meth:`vector` builds one from exact numpy vectors.  Instances are
    immutable.  Arithmetic (``+``, ``-``, ``*`` with another ``ExpSum`` or a
    rational) is exact; comparisons with another ``ExpSum`` or a rational are
    decided exactly (see the module docstring).

    >>> from fractions import Fraction
    >>> ExpSum.exp(1) - ExpSum.exp(1) == 0
    True
    >>> ExpSum.exp(1) > Fraction(27182818284590452, 10**16)
    False
    """

    __slots__ = ("_cached_terms", "_parts", "_canon")

    # canonical (exponent, coefficient) pairs, sorted; None until computed for a vector sum
    _cached_terms: tuple[tuple[Fraction, Fraction], ...] | None
    # vector parts (vector, factor, shift) meaning factor · Σ c e^{b + shift}; None for a small sum
    _parts: tuple[tuple[ExpVector, Fraction, Fraction], ...] | None
    _canon: ExpVector | None  # the canonical vector of a vector sum, once computed

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
        self._cached_terms = _canonical(merged)
        self._parts = None
        self._canon = None

    # -- construction ---------------------------------------------------------

    @classmethod
    def _from_terms(cls, terms: tuple[tuple[Fraction, Fraction], ...]) -> ExpSum:
        result = object.__new__(cls)
        result._cached_terms = terms
        result._parts = None
        result._canon = None
        return result

    @classmethod
    def _from_mapping(cls, merged: Mapping[Fraction, Fraction]) -> ExpSum:
        """Build from an exponent -> coefficient mapping of Fractions (no validation)."""
        return cls._from_terms(_canonical(merged))

    @classmethod
    def _from_parts(cls, parts: tuple[tuple[ExpVector, Fraction, Fraction], ...]) -> ExpSum:
        result = object.__new__(cls)
        result._cached_terms = None
        result._parts = parts
        result._canon = None
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

    @classmethod
    def vector(
        cls,
        coefficients: RationalArray | None,
        exponents: RationalArray,
        *,
        nonnegative: bool = False,
        positive: bool = False,
    ) -> ExpSum:
        """``Σ_i c_i · e^{b_i}`` over exact 1-D vectors (``coefficients`` None: every ``c_i = 1``).

        ``nonnegative`` / ``positive`` state what the caller knows of the
        coefficients (all ``>= 0`` / and one ``> 0``); they let a sign be read
        off without computation and are never guessed.  Short vectors become
        small sums.
        """
        vector = ExpVector(coefficients, exponents, nonnegative=nonnegative, positive=positive)
        if len(vector) <= SMALL_TERMS:
            merged: dict[Fraction, Fraction] = {}
            for b, c in vector.pairs():
                merged[b] = merged.get(b, _ZERO) + c
            return cls._from_mapping(merged)
        return cls._from_parts(((vector, _ONE, _ZERO),))

    def _as_parts(self) -> tuple[tuple[ExpVector, Fraction, Fraction], ...]:
        if self._parts is not None:
            return self._parts
        terms = self._cached_terms
        assert terms is not None
        if not terms:
            return ()
        return ((ExpVector.from_pairs(terms), _ONE, _ZERO),)

    # -- inspection -----------------------------------------------------------

    @property
    def _terms(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """The canonical terms as ``(exponent, coefficient)`` pairs (materialised for a vector sum)."""
        if self._cached_terms is None:
            self._cached_terms = tuple(self._canonical_vector().pairs())
        return self._cached_terms

    def _canonical_vector(self) -> ExpVector:
        if self._canon is None:
            self._canon = canonical(self._as_parts())
        return self._canon

    @property
    def terms(self) -> tuple[tuple[Fraction, Fraction], ...]:
        """The canonical terms as ``(coefficient, exponent)`` pairs, exponents increasing."""
        return tuple((c, b) for b, c in self._terms)

    def __len__(self) -> int:
        if self._parts is not None:
            return len(self._canonical_vector())
        return len(self._terms)

    def __iter__(self) -> Iterator[tuple[Fraction, Fraction]]:
        return iter(self.terms)

    def is_zero(self) -> bool:
        """True exactly when the value is 0 (Lindemann–Weierstrass: no terms)."""
        if self._parts is not None:
            if self._known_sign() is not None:
                return False
            filtered = self._float_filter()
            if filtered is not None and filtered[0].sign() is not None:
                return False  # the rigorous float bound excludes 0
            return len(self._canonical_vector()) == 0
        return not self._terms

    def as_rational(self) -> Fraction | None:
        """The value as a Fraction if it is rational, else ``None``.

        A canonical sum is rational exactly when its only exponent is 0.
        """
        if self._parts is not None:
            vector = self._canonical_vector()
            if len(vector) == 0:
                return Fraction(0)
            if len(vector) == 1 and vector.top() == 0:
                return vector.pairs()[0][1]
            return None
        terms = self._terms
        if not terms:
            return Fraction(0)
        if len(terms) == 1 and terms[0][0] == 0:
            return terms[0][1]
        return None

    # -- arithmetic -----------------------------------------------------------

    def __neg__(self) -> ExpSum:
        if self._parts is not None:
            return ExpSum._from_parts(tuple((v, -k, s) for v, k, s in self._parts))
        return ExpSum._from_terms(tuple((b, -c) for b, c in self._terms))

    def __add__(self, other: object) -> ExpSum:
        other_sum = _coerce(other)
        if other_sum is None:
            return NotImplemented
        if self._parts is None and other_sum._parts is None:
            merged = dict(self._terms)
            get = merged.get
            for b, c in other_sum._terms:
                merged[b] = get(b, _ZERO) + c
            return ExpSum._from_mapping(merged)
        return ExpSum._from_parts(self._as_parts() + other_sum._as_parts())

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
        for single, rest in ((self, other), (other, self)):
            if single._parts is None and len(single._terms) == 1:
                b, c = single._terms[0]
                return rest.scale(c).shift(b)
        if self._parts is None and other._parts is None:
            merged: dict[Fraction, Fraction] = {}
            get = merged.get
            for b1, c1 in self._terms:
                for b2, c2 in other._terms:
                    b = b1 + b2
                    merged[b] = get(b, _ZERO) + c1 * c2
            return ExpSum._from_mapping(merged)
        return ExpSum._from_parts(((_outer(self._canonical_vector(), other._canonical_vector()), _ONE, _ZERO),))

    __rmul__ = __mul__

    def scale(self, factor: Fraction) -> ExpSum:
        """``factor · self`` for a rational ``factor``."""
        if factor == 0:
            return _ZERO_SUM
        if self._parts is not None:
            return ExpSum._from_parts(tuple((v, k * factor, s) for v, k, s in self._parts))
        return ExpSum._from_terms(tuple((b, c * factor) for b, c in self._terms))

    def shift(self, exponent: Fraction) -> ExpSum:
        """``e^{exponent} · self`` for a rational ``exponent``."""
        if exponent == 0:
            return self
        if self._parts is not None:
            return ExpSum._from_parts(tuple((v, k, s + exponent) for v, k, s in self._parts))
        return ExpSum._from_terms(tuple((b + exponent, c) for b, c in self._terms))

    # -- exact decisions ------------------------------------------------------

    def _known_sign(self) -> int | None:
        """A sign read off the construction: every part's coefficients of one known sign."""
        parts = self._parts
        if parts is None:
            terms = self._terms
            if not terms:
                return 0
            signs = {c > 0 for _, c in terms}
            if len(signs) == 1:
                return 1 if True in signs else -1
            return None
        if parts and all(v.positive for v, _, _ in parts):
            factor_signs = {k > 0 for _, k, _ in parts}
            if len(factor_signs) == 1:
                return 1 if True in factor_signs else -1
        return None

    def _float_filter(self) -> tuple[FloatSum, Fraction] | None:
        """``(S̃ ± E, top)`` with the value in ``e^{top}·[S̃ − E, S̃ + E]``, from the parts' float filters."""
        return combine_parts(self._as_parts())

    def sign(self, *, max_precision: int = DEFAULT_MAX_PRECISION) -> int:
        """The exact sign of the value: -1, 0 or 1.

        A small sum: zero by cancellation alone, else ball arithmetic at
        doubling precision until the ball excludes 0.  A vector sum: the
        procedure of the module docstring (float filter first).  Raises
        :class:`~expmech.spec.PrecisionExhausted` if ``max_precision`` bits do
        not suffice (the sign is never guessed).
        """
        known = self._known_sign()
        if known is not None:
            return known
        if self._parts is not None:
            filtered = self._float_filter()
            if filtered is not None:
                decided = filtered[0].sign()
                if decided is not None:
                    return decided
            vector = self._canonical_vector()
            if len(vector) == 0:
                return 0
            if vector.nonnegative:
                return 1
            if vector.coefficients is not None and bool(np.all(vector.coefficients.num < 0)):
                return -1
            summary = vector.summary()
            if summary is not None and summary.sign() is not None:
                return summary.sign()  # type: ignore[return-value]
            return _ball_sign(lambda precision: vector.ball(precision, shift=vector.top()), len(vector), max_precision)
        terms = self._terms
        top = terms[-1][0]
        return _ball_sign(lambda precision: _evaluate(terms, precision, shift=top), len(terms), max_precision)

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` with ``lo <= self <= hi`` and ``hi - lo <= 2**-bits · |self|``.

        Exactly ``(0, 0)`` for zero.  ``bits`` must be a positive int.
        """
        bits = _check_bits(bits)
        if self.is_zero():
            return (Fraction(0), Fraction(0))
        return ball_endpoints(self._ball(bits, max_precision=max_precision))

    def _ball(self, bits: int, *, max_precision: int = DEFAULT_MAX_PRECISION) -> arb:
        """A ball of relative radius at most ``2**-bits`` (the value must be nonzero)."""
        if self._parts is not None:
            filtered = self._float_filter()
            if filtered is not None:
                summary, top = filtered
                value, error = abs(summary.value), summary.error
                if value > 0 and error * 2.0 ** (bits + 2) <= value:
                    lo, hi = summary.enclosure()
                    precision = bits + 64
                    with ctx.workprec(precision):
                        ball = arb_from_fraction(lo).union(arb_from_fraction(hi))
                        ball = ball * arb_from_fraction(top).exp() if top != 0 else ball
                        if ball.rad() * 2 * 2**bits <= ball.abs_lower():
                            return ball
            vector = self._canonical_vector()
            evaluate = lambda precision: vector.ball(precision, shift=_ZERO)  # noqa: E731
            size = len(vector)
        else:
            terms = self._terms
            evaluate = lambda precision: _evaluate(terms, precision, shift=_ZERO)  # noqa: E731
            size = len(terms)
        precision = _START_PRECISION + bits + size.bit_length()
        scale = 2**bits
        while True:
            ball = evaluate(precision)
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
        if self._parts is not None:
            filtered = self._float_filter()
            if filtered is not None:
                summary, top = filtered
                if summary.value != 0 and summary.error <= 2.0**-40 * abs(summary.value):
                    return _times_exp(summary.value, top)
            if self.is_zero():
                return 0.0
            vector = self._canonical_vector()
            top = vector.top()
            ball = ExpSum._from_parts(((vector, _ONE, -top),))._ball(53)
            return _times_exp(float(ball.mid()), top)
        if not self._terms:
            return 0.0
        top = self._terms[-1][0]
        ball = ExpSum._from_mapping({b - top: c for b, c in self._terms})._ball(53)
        return _times_exp(float(ball.mid()), top)

    def _cmp(self, other: object) -> int | None:
        other_sum = _coerce(other)
        if other_sum is None:
            return None
        return (self - other_sum).sign()

    def __eq__(self, other: object) -> bool:
        other_sum = _coerce(other)
        if other_sum is None:
            return NotImplemented
        if self._parts is None and other_sum._parts is None:
            return self._terms == other_sum._terms
        return (self - other_sum).is_zero()

    def __hash__(self) -> int:
        value = self.as_rational()
        if value is not None:
            return hash(value)
        return hash(self._terms)

    def __bool__(self) -> bool:
        return not self.is_zero()

    def __str__(self) -> str:
        """The exact sum in mathematical form, largest exponent first: ``3·e^(1/2) − 1``."""
        if self._parts is not None and self._cached_terms is None and sum(len(v) for v, _, _ in self._parts) > 10_000:
            return f"<a sum of {sum(len(v) for v, _, _ in self._parts)} terms ≈ {float(self):.6g}>"
        return sum_text(self)

    def __repr__(self) -> str:
        if self._parts is not None and self._cached_terms is None:
            return f"ExpSum(<{sum(len(v) for v, _, _ in self._parts)} terms in {len(self._parts)} vector parts>)"
        return f"ExpSum({self})"


#: Vectors up to this length become small (tuple-of-Fractions) sums.
SMALL_TERMS = 48

_ZERO = Fraction(0)
_ONE = Fraction(1)


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


def _times_exp(mantissa: float, top: Fraction) -> float:
    try:
        return mantissa * math.exp(float(top))
    except OverflowError:
        return math.copysign(math.inf, mantissa)


def _ball_sign(evaluate: Any, size: int, max_precision: int) -> int:
    """The sign of a nonzero value by balls at doubling precision (``evaluate(precision) -> arb``)."""
    return settle_sign(evaluate, f"an exponential sum with {size} terms", max_precision=max_precision)


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


def _outer(a: ExpVector, b: ExpVector) -> ExpVector:
    """The canonical product of two canonical vectors (every pair of terms)."""
    exponents = (a.exponents.reshape(-1, 1) + b.exponents.reshape(1, -1)).reshape(-1)
    ca = a.coefficients if a.coefficients is not None else RationalArray.integers(np.ones(len(a), dtype=np.int64))
    cb = b.coefficients if b.coefficients is not None else RationalArray.integers(np.ones(len(b), dtype=np.int64))
    coefficients = (ca.reshape(-1, 1) * cb.reshape(1, -1)).reshape(-1)
    return canonical(((ExpVector(coefficients, exponents), _ONE, _ZERO),))


def combine_parts(parts: tuple[tuple[ExpVector, Fraction, Fraction], ...]) -> tuple[FloatSum, Fraction] | None:
    """The float filter of ``Σ_j k_j e^{s_j} Σ_i c_i e^{b_i}`` from each vector's own filter.

    Returns ``(S̃ ± E, top)`` meaning the value lies in ``e^{top}·[S̃ − E, S̃ + E]``,
    or None where a part has no filter.  With ``t_j`` the largest exponent of
    vector ``j`` and ``top = max_j (s_j + t_j)``, part ``j`` contributes
    ``k_j·f_j·S_j`` with ``f_j = e^{s_j + t_j − top} <= 1`` and ``S_j`` in its
    vector's enclosure.  ``k̃_j`` (correctly rounded) errs by ``u``;
    ``f̃_j = exp(fl(d_j))`` by ``η_j = 2(EXP_REL + 2u|d̃_j|)``; each product and
    the final sum of ``m`` parts by ``u`` and ``γ_m``.  The bound is
    ``2·[Σ_j |k̃_j f̃_j|(E_j + (η_j + 3u)(|S̃_j| + E_j)) + γ_m Σ_j |k̃_j f̃_j|(|S̃_j| + E_j)]``;
    parts with ``d_j < −700`` enter as error only (their size is below
    ``2^-1000·|k_j|(|S̃_j| + E_j)``).
    """
    if not parts:
        return FloatSum(0.0, 0.0, 0.0), _ZERO
    summaries = []
    for vector, factor, shift in parts:
        summary = vector.summary()
        if summary is None:
            return None
        summaries.append((summary, factor, shift + vector.top()))
    top = max(offset for _, _, offset in summaries)
    total, error, magnitude = 0.0, 0.0, 0.0
    for summary, factor, offset in summaries:
        k = float(factor)
        if not math.isfinite(k) or (factor != 0 and abs(k) < 2.0**-1000):
            return None  # out of the range where float(factor) errs by a relative u
        d = float(offset - top)
        size = abs(summary.value) + summary.error
        if d < -700.0:
            error += abs(k) * 2.0 * TINY * size
            continue
        f = float(np.exp(d))
        eta = 2.0 * (EXP_REL + 2.0 * U * abs(d))
        scale = abs(k * f)
        contribution = k * f * summary.value
        total += contribution
        error += scale * (summary.error + (eta + 3.0 * U) * size)
        magnitude += scale * size
    g = gamma(len(summaries))
    bound = 2.0 * (error + g * magnitude)
    if not (math.isfinite(total) and math.isfinite(bound)):
        return None
    return FloatSum(total, bound, magnitude), top
