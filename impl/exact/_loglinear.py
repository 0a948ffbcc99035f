"""Exact real numbers ``c₀ + Σ cᵢ·ln ρᵢ`` with rational ``cᵢ`` and positive rational ``ρᵢ``.

Privacy losses of mechanisms with rational weights (posterior sampling with an
integer tempering factor) are logarithms of rationals, and the ε the privacy
theorem gives them is a rational multiple of one, ``2·ε₀·ln ρ``.  Deciding
``ln R <= 2·ε₀·ln ρ`` or ``ln R <= 1`` needs no float:

* the ``ρᵢ`` are rewritten over a *coprime base* ``β₁, …, β_k`` (pairwise
  coprime integers > 1, found with gcds alone, no factoring), so the number is
  ``c₀ + Σ dⱼ·ln βⱼ`` with rational ``dⱼ``;
* pairwise coprime integers > 1 are multiplicatively independent (unique
  factorisation), so ``Σ dⱼ ln βⱼ = 0`` only when every ``dⱼ`` is 0; and for
  ``c₀ != 0``, ``e^{c₀}`` is transcendental (Lindemann) while ``Π βⱼ^{−dⱼ}`` is
  algebraic, so ``c₀ + Σ dⱼ ln βⱼ != 0``.  Hence the canonical form is zero
  iff it has no terms, exactly as for :class:`ExpSum`;
* a non-zero value's sign is settled by python-flint ball arithmetic at
  doubling precision, which terminates because the value is not zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import sympy
from flint import arb, ctx

from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import approximate, as_rational, describe, readable

from ._balls import enclose_ball, settle_sign
from ._expsum import DEFAULT_MAX_PRECISION, ExactOrdering, _check_bits, arb_from_fraction

__all__ = ["LogLinear", "coprime_base"]


def coprime_base(numbers: Iterable[int]) -> tuple[int, ...]:
    """Pairwise coprime integers > 1 of which every given integer >= 1 is a product of powers.

    Factor refinement by gcds (Bach–Driscoll–Shallit), no factoring: while two
    members share a factor ``g``, replace them by ``a/g``, ``g``, ``b/g``.
    """
    base: list[int] = []
    pending = [n for n in numbers if n > 1]
    while pending:
        x = pending.pop()
        if x == 1:
            continue
        for i, b in enumerate(base):
            g = math.gcd(x, b)
            if g > 1:
                base.pop(i)
                pending.extend((b // g, g, x // g))
                break
        else:
            base.append(x)
    return tuple(sorted(set(base)))


def _valuation(n: int, b: int) -> tuple[int, int]:
    """``(v, n / b^v)`` with ``b^v`` the largest power of ``b`` dividing ``n``."""
    v = 0
    while n % b == 0:
        n //= b
        v += 1
    return v, n


class LogLinear(ExactOrdering):
    """The exact real number ``c₀ + Σ cᵢ·ln ρᵢ`` (rational ``cᵢ``, positive rational ``ρᵢ``), or ``+∞``.

    Build it with :meth:`log` (``ln x``), :meth:`rational`, :meth:`infinity`
    or :meth:`from_sympy`; combine with ``+``, ``-`` and multiplication by a
    rational.  Comparisons with ints, Fractions, other ``LogLinear`` values and
    sympy numbers of the same form are exact (see the module docstring).

    >>> from fractions import Fraction
    >>> LogLinear.log(Fraction(9, 4)) == 2 * LogLinear.log(Fraction(3, 2))
    True
    >>> LogLinear.log(3) < 1 + LogLinear.log(Fraction(11, 10))
    False
    """

    __slots__ = ("constant", "logs", "infinite")

    constant: Fraction
    logs: tuple[tuple[int, Fraction], ...]  # (coprime base element, coefficient), sorted
    infinite: bool

    def __init__(self, constant: Any = 0, logs: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = ()) -> None:
        c0 = as_rational(constant, name="constant")
        items = logs.items() if isinstance(logs, Mapping) else logs
        pairs = []
        for index, pair in enumerate(items):
            try:
                argument, coefficient = pair
            except (TypeError, ValueError):
                raise InvalidType(f"logs[{index}]={describe(pair)} must be an (argument, coefficient) pair", parameter="logs", value=pair) from None
            rho = as_rational(argument, name=f"logs[{index}].argument")
            if rho <= 0:
                raise InvalidArgument(f"logs[{index}].argument={describe(argument)} must be > 0 (ln of a non-positive number)", parameter="logs", value=argument)
            pairs.append((rho, as_rational(coefficient, name=f"logs[{index}].coefficient")))
        self.constant, self.logs, self.infinite = c0, _canonical(pairs), False

    @classmethod
    def _make(cls, constant: Fraction, logs: tuple[tuple[int, Fraction], ...], infinite: bool = False) -> LogLinear:
        result = object.__new__(cls)
        result.constant, result.logs, result.infinite = constant, logs, infinite
        return result

    @classmethod
    def log(cls, value: Any) -> LogLinear:
        """``ln value`` for a rational ``value > 0``."""
        x = as_rational(value, name="value")
        if x <= 0:
            raise InvalidArgument(f"value={describe(value)} must be > 0 to take its logarithm", parameter="value", value=value)
        return cls._make(Fraction(0), _canonical([(x, Fraction(1))]))

    @classmethod
    def rational(cls, value: Any) -> LogLinear:
        """The rational ``value``."""
        return cls._make(as_rational(value, name="value"), ())

    @classmethod
    def infinity(cls) -> LogLinear:
        """``+∞`` (e.g. the privacy loss when one side gives an output probability 0)."""
        return cls._make(Fraction(0), (), True)

    @classmethod
    def from_sympy(cls, expr: Any) -> LogLinear:
        """A sympy number ``c₀ + Σ cᵢ·log(ρᵢ)`` (rationals, ``log`` of positive rationals, ``oo``); else refused."""
        value = sympy.sympify(expr)
        if value is sympy.oo:
            return cls.infinity()
        value = sympy.expand(sympy.expand_log(value, force=True))
        constant = Fraction(0)
        pairs: list[tuple[Fraction, Fraction]] = []
        for term in sympy.Add.make_args(value):
            coefficient, rest = term.as_coeff_Mul()
            if not isinstance(coefficient, sympy.Rational):
                raise InvalidArgument(f"expr={describe(expr)} is not c0 + sum c_i*log(rho_i) with rationals", parameter="expr", value=expr)
            c = Fraction(int(coefficient.p), int(coefficient.q))
            if rest == 1:
                constant += c
            elif isinstance(rest, sympy.log) and isinstance(rest.args[0], sympy.Rational) and rest.args[0] > 0:
                arg = rest.args[0]
                pairs.append((Fraction(int(arg.p), int(arg.q)), c))
            else:
                raise InvalidArgument(f"expr={describe(expr)} is not c0 + sum c_i*log(rho_i) with rationals", parameter="expr", value=expr)
        return cls._make(constant, _canonical(pairs))

    # -- arithmetic -------------------------------------------------------------

    def __add__(self, other: object) -> LogLinear:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        if self.infinite or o.infinite:
            return LogLinear.infinity()
        merged: dict[int, Fraction] = dict(self.logs)
        for b, c in o.logs:
            merged[b] = merged.get(b, Fraction(0)) + c
        return LogLinear._make(self.constant + o.constant, _canonical_base(merged))

    __radd__ = __add__

    def __neg__(self) -> LogLinear:
        if self.infinite:
            raise InvalidArgument("−∞ is not a LogLinear value", parameter="self", value=self)
        return LogLinear._make(-self.constant, tuple((b, -c) for b, c in self.logs))

    def __sub__(self, other: object) -> LogLinear:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return self + (-o)

    def __rsub__(self, other: object) -> LogLinear:
        o = _coerce(other)
        if o is None:
            return NotImplemented
        return o + (-self)

    def __mul__(self, other: object) -> LogLinear:
        if isinstance(other, bool) or not isinstance(other, int | Fraction):
            return NotImplemented
        k = Fraction(other)
        if self.infinite:
            if k <= 0:
                raise InvalidArgument(f"∞ times {k} is not a LogLinear value", parameter="other", value=other)
            return self
        return LogLinear._make(self.constant * k, _canonical_base({b: c * k for b, c in self.logs}))

    __rmul__ = __mul__

    # -- decisions --------------------------------------------------------------

    def is_zero(self) -> bool:
        """Exactly zero (the canonical form has no terms)."""
        return not self.infinite and self.constant == 0 and not self.logs

    def sign(self, *, max_precision: int = DEFAULT_MAX_PRECISION) -> int:
        """The exact sign: -1, 0 or 1 (``+∞`` is positive)."""
        if self.infinite:
            return 1
        if not self.logs:
            return (self.constant > 0) - (self.constant < 0)
        return settle_sign(self._ball, repr(self), max_precision=max_precision)

    def _ball(self, precision: int) -> arb:
        with ctx.workprec(precision):
            total = arb_from_fraction(self.constant)
            for b, c in self.logs:
                total += arb_from_fraction(c) * arb(b).log()
            return total

    def _cmp(self, other: object) -> int | None:
        o = _coerce(other)
        if o is None:
            return None
        if self.infinite or o.infinite:
            return 0 if self.infinite and o.infinite else (1 if self.infinite else -1)
        return (self - o).sign()

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]

    def enclose(self, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the value with ``hi − lo <= 2**-bits · |value|`` (``(0, 0)`` if zero)."""
        bits = _check_bits(bits)
        if self.infinite:
            raise InvalidArgument("+∞ has no rational enclosure", parameter="self", value=self)
        if not self.logs:
            return (self.constant, self.constant)
        return enclose_ball(self._ball, bits, max_precision=max_precision)

    def to_sympy(self) -> sympy.Expr:
        """The value as a sympy expression (``oo`` for ``+∞``)."""
        if self.infinite:
            return sympy.oo
        result = sympy.Rational(self.constant.numerator, self.constant.denominator)
        for b, c in self.logs:
            result += sympy.Rational(c.numerator, c.denominator) * sympy.log(b)
        return result

    def __float__(self) -> float:
        """A float near the value, for display only."""
        if self.infinite:
            return math.inf
        lo, hi = self.enclose(53) if not self.is_zero() else (Fraction(0), Fraction(0))
        return float((lo + hi) / 2)

    def __str__(self) -> str:
        """``2·ln(3) ≈ 2.197`` (``∞``; a rational exactly): the exact form, then a display-only approximation."""
        if self.infinite:
            return "∞"
        if not self.logs:
            return readable(self.constant)
        lo, hi = self.enclose(24)
        if self.constant == 0 and all(c.denominator == 1 for _, c in self.logs):
            argument = Fraction(1)
            for b, c in self.logs:
                argument *= Fraction(b) ** int(c)
            return f"ln({readable(argument)}) ≈ {approximate((lo + hi) / 2)}"
        parts = [] if self.constant == 0 else [readable(self.constant)]
        for b, c in self.logs:
            magnitude = abs(c)
            term = f"ln({b})" if magnitude == 1 else f"{readable(magnitude)}·ln({b})"
            parts.append(("− " if c < 0 else "+ ") + term if parts else ("−" if c < 0 else "") + term)
        return f"{' '.join(parts)} ≈ {approximate((lo + hi) / 2)}"

    def __repr__(self) -> str:
        return f"LogLinear({self})"


def _coerce(value: object) -> LogLinear | None:
    if isinstance(value, LogLinear):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | Fraction):
        return LogLinear.rational(value)
    if isinstance(value, sympy.Basic):
        try:
            return LogLinear.from_sympy(value)
        except InvalidArgument:
            return None
    return None


def _canonical(pairs: Iterable[tuple[Fraction, Fraction]]) -> tuple[tuple[int, Fraction], ...]:
    """``Σ c·ln ρ`` over a coprime base of the numerators and denominators, zero coefficients dropped."""
    items = [(rho, c) for rho, c in pairs if c != 0 and rho != 1]
    base = coprime_base(n for rho, _ in items for n in (rho.numerator, rho.denominator))
    merged: dict[int, Fraction] = {}
    for rho, c in items:
        for n, sign in ((rho.numerator, 1), (rho.denominator, -1)):
            rest = n
            for b in base:
                v, rest = _valuation(rest, b)
                if v:
                    merged[b] = merged.get(b, Fraction(0)) + sign * v * c
            if rest != 1:  # pragma: no cover - a coprime base covers every input
                raise AssertionError(f"coprime base {base} does not cover {n}")
    return _canonical_base(merged)


def _canonical_base(merged: Mapping[int, Fraction]) -> tuple[tuple[int, Fraction], ...]:
    """Re-base a sum whose bases may no longer be coprime (after adding two canonical sums)."""
    bases = list(merged)
    if len(bases) > 1 and any(math.gcd(a, b) > 1 for i, a in enumerate(bases) for b in bases[i + 1 :]):
        return _canonical((Fraction(b), c) for b, c in merged.items())
    return tuple(sorted((b, c) for b, c in merged.items() if c != 0))
