"""Exact real numbers known through rigorous enclosures, with an exact fallback.

Some exact laws (permute-and-flip at |R| = 10³, products of them over top-k
tuples) are cheap to *enclose* — rational bounds of any requested relative
width — but expensive to write as one :class:`~expmech.impl.ExpSum`.  A
:class:`RefinedValue` holds both routes: comparisons first narrow the
enclosure (doubling the bits), and only when that cannot separate the two
numbers (they may be equal) ask for the exact value.  No comparison is ever
decided on a float, and none is guessed: if neither route settles it,
:class:`~expmech.spec.PrecisionExhausted` is raised.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, Union

from expmech.spec import InvalidArgument, InvalidType, PrecisionExhausted
from expmech.spec.internal import describe

from ._exactreal import ExpRatio, LogExpRatio
from ._expsum import ExactOrdering, ExpSum, _check_bits

__all__ = ["RefinedValue", "enclosure_bits"]

#: The enclosure widths (bits) a comparison tries before the exact fallback.
_COMPARISON_BITS = (30, 60, 120, 240, 480)

Exact = Union[ExpRatio, LogExpRatio, ExpSum, Fraction]
Enclose = Callable[[int], tuple[Fraction, Fraction]]


def enclosure_bits(lo: Fraction, hi: Fraction) -> float:
    """About how many bits of relative accuracy ``[lo, hi]`` gives (``inf`` when exact, 0 if it spans 0)."""
    if lo == hi:
        return float("inf")
    if lo <= 0 <= hi:
        return 0.0
    ratio = max(abs(lo), abs(hi)) / (hi - lo)
    return max(0.0, float(ratio.numerator.bit_length() - ratio.denominator.bit_length()))


class RefinedValue(ExactOrdering):
    """An exact real number given by rigorous enclosures and, optionally, its exact form.

    ``enclose(bits)`` must return rationals ``(lo, hi)`` with
    ``lo <= value <= hi``; it should aim at a relative width of ``2**-bits``
    but is only trusted to be *correct*, never to be tight.  ``exact()``, if
    given, returns the value as an exact ``ExpRatio``/``LogExpRatio``/``ExpSum``
    or Fraction (it may raise :class:`~expmech.spec.PrecisionExhausted` when
    that form is too large).  ``label`` names the number in messages.

    Comparisons with ints, Fractions, exact expmech numbers and other
    ``RefinedValue`` objects are exact.
    """

    __slots__ = ("_enclose", "_exact", "label", "_cache")

    def __init__(self, enclose: Enclose, *, exact: Callable[[], Exact] | None = None, label: str = "value") -> None:
        if not callable(enclose):
            raise InvalidType(f"enclose={describe(enclose)} must be callable", parameter="enclose", value=enclose)
        self._enclose = enclose
        self._exact = exact
        self.label = label
        self._cache: dict[int, tuple[Fraction, Fraction]] = {}

    def enclose(self, bits: int = 53) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` with ``lo <= value <= hi``, aiming at relative width ``2**-bits``."""
        bits = _check_bits(bits)
        if bits not in self._cache:
            lo, hi = self._enclose(bits)
            if lo > hi:
                raise InvalidArgument(f"{self.label}: enclosure ({lo}, {hi}) is empty", parameter="enclose", value=(lo, hi))
            self._cache[bits] = (lo, hi)
        return self._cache[bits]

    def exact(self) -> Exact:
        """The value in exact form; :class:`PrecisionExhausted` if no exact form is available or affordable."""
        if self._exact is None:
            raise PrecisionExhausted(f"{self.label} has no exact form; its enclosures did not settle the comparison")
        return self._exact()

    def _cmp(self, other: object) -> int | None:
        if isinstance(other, RefinedValue):
            return _compare_refined(self, other)
        if isinstance(other, bool) or not isinstance(other, int | Fraction | ExpSum | ExpRatio | LogExpRatio):
            return None
        for bits in _COMPARISON_BITS:
            lo, hi = self.enclose(bits)
            if isinstance(other, int | Fraction):
                if hi < other:
                    return -1
                if lo > other:
                    return 1
                if lo == hi == other:
                    return 0
            else:
                if other > hi:
                    return -1
                if other < lo:
                    return 1
        exact = self.exact()
        if isinstance(exact, Fraction):
            exact_value: Any = ExpSum.rational(exact)
        else:
            exact_value = exact
        if exact_value < other:
            return -1
        if exact_value > other:
            return 1
        return 0

    def __eq__(self, other: object) -> bool:
        result = self._cmp(other)
        return NotImplemented if result is None else result == 0

    __hash__ = None  # type: ignore[assignment]

    def __float__(self) -> float:
        """A float near the value, for display only."""
        lo, hi = self.enclose(53)
        return float((lo + hi) / 2)

    def __str__(self) -> str:
        lo, hi = self.enclose(30)
        return f"{self.label} ∈ [{float(lo):.10g}, {float(hi):.10g}]"

    def __repr__(self) -> str:
        return f"RefinedValue({self})"


def _compare_refined(left: RefinedValue, right: RefinedValue) -> int:
    for bits in _COMPARISON_BITS:
        lo1, hi1 = left.enclose(bits)
        lo2, hi2 = right.enclose(bits)
        if hi1 < lo2:
            return -1
        if lo1 > hi2:
            return 1
        if lo1 == hi1 == lo2 == hi2:
            return 0
    a, b = left.exact(), right.exact()
    a_value: Any = ExpSum.rational(a) if isinstance(a, Fraction) else a
    b_value: Any = ExpSum.rational(b) if isinstance(b, Fraction) else b
    if a_value < b_value:
        return -1
    if a_value > b_value:
        return 1
    return 0
