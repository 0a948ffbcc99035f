"""Exact rational arrays: integer numerators over one common denominator.

A :class:`QArray` holds ``num / den`` elementwise, with ``num`` a numpy array
of ``int64`` or of Python ints (``object``) and ``den`` a positive Python int
shared by every element.  Every operation is exact: results that could leave
the ``int64`` range are computed on Python ints, and a result that fits is
moved back to ``int64`` for speed.  Comparisons are comparisons of integers,
so no float ever decides anything here.  Sorting may use a float ordering as a
filter, checked exactly afterwards.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

__all__ = ["QArray", "from_floats", "lcm_of"]

_SAFE = 1 << 62  # int64 magnitude below which a sum of two values cannot overflow


def _as_ints(values: Any) -> np.ndarray:
    """A numpy array of exact integers: int64 when every value fits, else Python ints."""
    array = np.asarray(values)
    if array.dtype == np.int64:
        return array
    if array.dtype.kind in "iub":
        return array.astype(np.int64)
    if array.dtype.kind != "O":
        raise TypeError(f"internal error: {array.dtype} is not an integer array")
    return _shrink(array)


def _shrink(array: np.ndarray) -> np.ndarray:
    """Move an object array of Python ints to int64 when every value fits."""
    if array.dtype != object:
        return array
    if array.size == 0:
        return array.astype(np.int64)
    top = max(abs(int(array.max())), abs(int(array.min())))
    return array.astype(np.int64) if top < _SAFE else array


def _magnitude(array: np.ndarray) -> int:
    if array.size == 0:
        return 0
    if array.dtype == object:
        return max(abs(int(array.max())), abs(int(array.min())))
    return int(max(abs(int(array.max())), abs(int(array.min()))))


def _wide(array: np.ndarray) -> np.ndarray:
    return array if array.dtype == object else array.astype(object)


def _add(a: np.ndarray, b: np.ndarray, sign: int = 1) -> np.ndarray:
    if a.dtype == np.int64 and b.dtype == np.int64 and _magnitude(a) < _SAFE and _magnitude(b) < _SAFE:
        return a + b if sign > 0 else a - b
    result = _wide(a) + _wide(b) if sign > 0 else _wide(a) - _wide(b)
    return _shrink(np.asarray(result, dtype=object))


def _mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype == np.int64 and b.dtype == np.int64 and _magnitude(a) * _magnitude(b) < _SAFE:
        return a * b
    return _shrink(np.asarray(_wide(a) * _wide(b), dtype=object))


def _scale(a: np.ndarray, factor: int) -> np.ndarray:
    if factor == 1:
        return a
    if a.dtype == np.int64 and abs(factor) < _SAFE and abs(factor) * _magnitude(a) < _SAFE:
        return a * factor
    return _shrink(np.asarray(_wide(a) * factor, dtype=object))


def lcm_of(values: Iterable[int]) -> int:
    """The least common multiple of positive ints (1 for none)."""
    result = 1
    for value in values:
        result = math.lcm(result, int(value))
    return result


class QArray:
    """An exact array of rationals ``num / den`` (see the module docstring).

    Build one with :meth:`of` (from ints or Fractions), :meth:`full`, or
    :func:`from_floats`.  Shapes follow numpy; operations broadcast.
    """

    __slots__ = ("num", "den")

    num: np.ndarray
    den: int

    def __init__(self, num: Any, den: int = 1) -> None:
        if den <= 0:
            raise ValueError("internal error: QArray denominator must be positive")
        self.num = _as_ints(num)
        self.den = int(den)

    # -- construction -------------------------------------------------------------

    @classmethod
    def of(cls, values: Sequence[Any] | np.ndarray) -> QArray:
        """Exact array of ints and Fractions (any shape numpy accepts)."""
        array = np.asarray(values, dtype=object)
        flat = array.reshape(-1)
        den = lcm_of(v.denominator for v in flat if isinstance(v, Fraction))
        if den == 1:
            return cls(np.asarray([int(v) for v in flat], dtype=object).reshape(array.shape))
        nums = [v.numerator * (den // v.denominator) if isinstance(v, Fraction) else int(v) * den for v in flat]
        return cls(np.asarray(nums, dtype=object).reshape(array.shape), den)

    @classmethod
    def full(cls, shape: Any, value: Fraction | int) -> QArray:
        """An array of ``shape`` filled with one rational."""
        value = Fraction(value)
        num = np.full(shape, value.numerator, dtype=object if abs(value.numerator) >= _SAFE else np.int64)
        return cls(num, value.denominator)

    @classmethod
    def zeros(cls, shape: Any) -> QArray:
        """An array of zeros."""
        return cls(np.zeros(shape, dtype=np.int64))

    # -- shape and access ---------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The numpy shape."""
        return tuple(self.num.shape)

    def __len__(self) -> int:
        return len(self.num)

    def __getitem__(self, index: Any) -> QArray:
        return QArray(self.num[index], self.den)

    def item(self, *index: int) -> Fraction:
        """One element as a Fraction."""
        return Fraction(int(self.num[index] if index else self.num.item()), self.den)

    def fractions(self) -> list[Fraction]:
        """Every element (flattened) as a Fraction."""
        den = self.den
        return [Fraction(int(v), den) for v in self.num.reshape(-1)]

    def reshape(self, *shape: int) -> QArray:
        """The same values in another shape."""
        return QArray(self.num.reshape(*shape), self.den)

    def copy(self) -> QArray:
        """A copy that owns its numerators."""
        return QArray(self.num.copy(), self.den)

    def with_den(self, den: int) -> np.ndarray:
        """The numerators over ``den`` (which must be a multiple of :attr:`den`)."""
        factor, rest = divmod(den, self.den)
        if rest:
            raise ValueError("internal error: the new denominator is not a multiple")
        return _scale(self.num, factor)

    def reduced(self) -> QArray:
        """The same values with the common denominator made as small as possible."""
        if self.den == 1 or self.num.size == 0:
            return self
        if self.num.dtype == object:
            g = _gcd_object(self.num, self.den)
        else:
            g = math.gcd(int(np.gcd.reduce(self.num.reshape(-1))), self.den)
        if g == 1:
            return self
        if self.num.dtype == object or g >= _SAFE:  # g may pass int64 (a zero over a huge denominator): divide Python ints
            return QArray(_shrink(np.asarray(_wide(self.num) // g, dtype=object)), self.den // g)
        return QArray(self.num // g, self.den // g)

    # -- arithmetic -----------------------------------------------------------------

    def _pair(self, other: QArray | Fraction | int) -> tuple[np.ndarray, np.ndarray, int]:
        if not isinstance(other, QArray):
            other = QArray.full((), other)
        den = math.lcm(self.den, other.den)
        return self.with_den(den), other.with_den(den), den

    def __add__(self, other: QArray | Fraction | int) -> QArray:
        a, b, den = self._pair(other)
        return QArray(_add(a, b), den).reduced()

    __radd__ = __add__

    def __sub__(self, other: QArray | Fraction | int) -> QArray:
        a, b, den = self._pair(other)
        return QArray(_add(a, b, -1), den).reduced()

    def __rsub__(self, other: QArray | Fraction | int) -> QArray:
        a, b, den = self._pair(other)
        return QArray(_add(b, a, -1), den).reduced()

    def __neg__(self) -> QArray:
        if self.num.dtype == object or _magnitude(self.num) >= _SAFE:  # −(−2^63) does not fit int64
            return QArray(_shrink(np.asarray(-_wide(self.num), dtype=object)), self.den)
        return QArray(-self.num, self.den)

    def __mul__(self, other: QArray | Fraction | int) -> QArray:
        if isinstance(other, QArray):
            return QArray(_mul(self.num, other.num), self.den * other.den).reduced()
        value = Fraction(other)
        return QArray(_scale(self.num, value.numerator), self.den * value.denominator).reduced()

    __rmul__ = __mul__

    def reciprocal(self) -> QArray:
        """``1 / self`` elementwise; every element must be nonzero."""
        if self.num.size and not np.all(self.num != 0):
            raise ZeroDivisionError("internal error: reciprocal of zero")
        magnitudes = np.abs(self.num)
        common = lcm_of(np.unique(magnitudes).tolist()) if magnitudes.size else 1
        signs = np.sign(self.num).astype(np.int64)
        if magnitudes.dtype == np.int64 and common * self.den < _SAFE:
            return QArray(signs * ((common // magnitudes) * self.den), common).reduced()
        quotient = np.asarray(common // _wide(magnitudes), dtype=object) * self.den
        return QArray(_shrink(np.asarray(quotient * signs, dtype=object)), common).reduced()

    def __truediv__(self, other: QArray | Fraction | int) -> QArray:
        if isinstance(other, QArray):
            return self * other.reciprocal()
        return self * (1 / Fraction(other))

    def cumsum(self, axis: int = -1) -> QArray:
        """Running sums along ``axis``."""
        if self.num.dtype == np.int64 and _magnitude(self.num) * max(1, self.num.shape[axis] if self.num.ndim else 1) < _SAFE:
            return QArray(np.cumsum(self.num, axis=axis), self.den)
        return QArray(_shrink(np.cumsum(_wide(self.num), axis=axis)), self.den)

    def sum(self, axis: int | None = None) -> QArray:
        """Sums along ``axis`` (all elements for None)."""
        if self.num.dtype == np.int64 and _magnitude(self.num) * max(1, self.num.size) < _SAFE:
            return QArray(np.asarray(np.sum(self.num, axis=axis)), self.den)
        return QArray(_shrink(np.asarray(np.sum(_wide(self.num), axis=axis), dtype=object)), self.den)

    def total(self) -> Fraction:
        """The sum of every element, as a Fraction."""
        return Fraction(int(self.sum().num.item()), self.den)

    # -- comparisons ------------------------------------------------------------------

    def sign(self) -> np.ndarray:
        """-1, 0 or 1 per element (int64)."""
        return np.sign(self.num).astype(np.int64)

    def cmp(self, other: QArray | Fraction | int) -> np.ndarray:
        """The sign of ``self − other`` per element."""
        a, b, _ = self._pair(other)
        if a.dtype == np.int64 and b.dtype == np.int64:
            return np.sign(a - b) if _magnitude(a) < _SAFE and _magnitude(b) < _SAFE else np.sign(_wide(a) - _wide(b)).astype(np.int64)
        return (np.asarray(_wide(a) > _wide(b), dtype=np.int64) - np.asarray(_wide(a) < _wide(b), dtype=np.int64))

    def __lt__(self, other: QArray | Fraction | int) -> np.ndarray:  # type: ignore[override]
        return self.cmp(other) < 0

    def __le__(self, other: QArray | Fraction | int) -> np.ndarray:  # type: ignore[override]
        return self.cmp(other) <= 0

    def __gt__(self, other: QArray | Fraction | int) -> np.ndarray:  # type: ignore[override]
        return self.cmp(other) > 0

    def __ge__(self, other: QArray | Fraction | int) -> np.ndarray:  # type: ignore[override]
        return self.cmp(other) >= 0

    def eq(self, other: QArray | Fraction | int) -> np.ndarray:
        """Elementwise equality (a boolean array)."""
        return self.cmp(other) == 0

    __hash__ = None  # type: ignore[assignment]

    def argsort(self, axis: int = -1) -> np.ndarray:
        """A stable sorting permutation along ``axis``, exact.

        Python-int numerators are first ordered by their float values, and the
        order is then checked exactly; only if the check fails are they sorted
        as Python ints.
        """
        if self.num.dtype == np.int64:
            return np.argsort(self.num, axis=axis, kind="stable")
        approx = self.num.astype(float)
        order = np.argsort(approx, axis=axis, kind="stable")
        ordered = np.take_along_axis(self.num, order, axis=axis)
        if ordered.shape[axis] < 2 or np.all(np.diff(ordered, axis=axis) >= 0):
            return order
        return np.argsort(self.num, axis=axis, kind="stable")

    def maximum(self, other: QArray) -> QArray:
        """Elementwise maximum."""
        a, b, den = self._pair(other)
        return QArray(np.where(_ge(a, b), a, b), den).reduced()

    def minimum(self, other: QArray) -> QArray:
        """Elementwise minimum."""
        a, b, den = self._pair(other)
        return QArray(np.where(_ge(a, b), b, a), den).reduced()

    def floor(self) -> np.ndarray:
        """``⌊self⌋`` per element, as integers."""
        if self.num.dtype == object or self.den >= _SAFE:
            return _shrink(np.asarray(_wide(self.num) // self.den, dtype=object))
        return self.num // self.den

    def ceil(self) -> np.ndarray:
        """``⌈self⌉`` per element, as integers."""
        return -QArray((-self).num, self.den).floor()

    def is_integer(self) -> np.ndarray:
        """Whether each element is an integer."""
        if self.num.dtype == object or self.den >= _SAFE:
            return np.asarray(_wide(self.num) % self.den == 0, dtype=bool)
        return (self.num % self.den) == 0

    def __repr__(self) -> str:
        shown = self.fractions()[:6]
        more = "" if self.num.size <= 6 else f", … ({self.num.size} values)"
        return f"QArray([{', '.join(str(v) for v in shown)}{more}], shape={self.shape})"


def _ge(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype == np.int64 and b.dtype == np.int64:
        return a >= b
    return np.asarray(_wide(a) >= _wide(b), dtype=bool)


def _gcd_object(values: np.ndarray, start: int) -> int:
    """gcd of ``start`` and every value, stopping as soon as it is 1."""
    g = start
    for value in values.reshape(-1).tolist():
        g = math.gcd(g, value)
        if g == 1:
            break
    return g


def concatenate(parts: Sequence[QArray], axis: int = -1) -> QArray:
    """The arrays joined along ``axis``, over a common denominator."""
    den = lcm_of(p.den for p in parts)
    nums = [p.with_den(den) for p in parts]
    if any(n.dtype == object for n in nums):
        nums = [_wide(n) for n in nums]
    return QArray(_shrink(np.concatenate(nums, axis=axis)) if nums[0].dtype == object else np.concatenate(nums, axis=axis), den)


def where(condition: np.ndarray, a: QArray, b: QArray) -> QArray:
    """``a`` where ``condition`` holds, else ``b`` (broadcasting)."""
    x, y, den = a._pair(b)
    if x.dtype != y.dtype:
        x, y = _wide(x), _wide(y)
    return QArray(_shrink(np.where(condition, x, y)) if x.dtype == object else np.where(condition, x, y), den).reduced()


def take_along(array: QArray, indices: np.ndarray, axis: int = -1) -> QArray:
    """``np.take_along_axis`` for a QArray."""
    return QArray(np.take_along_axis(array.num, indices, axis=axis), array.den)


def from_floats(values: np.ndarray) -> QArray:
    """The exact rationals that finite float64 values represent, over one power-of-two denominator."""
    array = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("internal error: from_floats needs finite values")
    if array.size == 0:
        return QArray(np.zeros(array.shape, dtype=np.int64))
    integral = np.floor(array) == array
    if np.all(integral) and np.all(np.abs(array) < 2.0**62):
        return QArray(array.astype(np.int64))
    mantissa, exponent = np.frexp(array)
    ints = (mantissa * 2.0**53).astype(np.int64)  # exact: |mantissa| < 1 has 53 bits
    shifts = exponent.astype(np.int64) - 53
    nonzero = ints != 0
    lowest = np.where(nonzero, ints & -ints, 1)  # the lowest set bit, a power of two
    zeros = np.log2(lowest.astype(np.float64)).astype(np.int64)  # exact for powers of two
    ints, shifts = ints >> zeros, np.where(nonzero, shifts + zeros, 0)
    low = min(0, int(shifts[nonzero].min())) if np.any(nonzero) else 0
    offsets = shifts - low
    bits = np.frexp(np.abs(ints).astype(np.float64))[1]  # bit lengths (exact: |ints| < 2^53)
    if int((bits + offsets).max()) < 63:
        return QArray(ints << offsets, 1 << -low)
    powers = np.array([1 << k for k in range(int(offsets.max()) + 1)], dtype=object)
    wide = ints.astype(object) * powers[offsets]
    return QArray(_shrink(np.asarray(wide, dtype=object)), 1 << -low)
