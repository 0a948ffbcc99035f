"""Exact rational arrays: numpy integer numerators over positive denominators.

A :class:`RationalArray` holds the exact rationals ``num / den`` elementwise.
``num`` is a numpy array of ``int64`` or, when a value could leave the int64
range, of Python ``int`` objects (``dtype=object``); ``den`` is a positive
Python ``int`` shared by every element (the common case, and the fast one) or a
positive integer array broadcastable to ``num``.

Overflow is excluded by bookkeeping, not by luck: each array carries ``bound``,
an upper bound on ``max |num|``, propagated through every operation
(``|a ± b| <= A + B``, ``|a·b| <= A·B``).  Before an int64 operation the bound
of its result is compared with ``2**62``; if it may reach it, the operands are
promoted to Python integers first.  So no operation ever wraps around: results
are exact whatever the inputs, and stay in fast int64 arithmetic whenever they
provably fit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, Union

import numpy as np

__all__ = ["LIMIT", "RationalArray", "Undefined", "integer_array", "maxabs"]

#: Results whose magnitude may reach this bound leave int64 for Python integers.
LIMIT = 1 << 62

Denominator = Union[int, np.ndarray]

#: A shared denominator is reduced only once it or the numerators grow past this.
_REDUCE_ABOVE = 1 << 32


class Undefined(ArithmeticError):
    """An operation has no rational value somewhere (a division by zero)."""


def integer_array(values: Iterable[int]) -> np.ndarray:
    """An int64 array of Python ints, or an object array when one is too large."""
    items = values if isinstance(values, list | tuple) else list(values)
    try:
        array = np.array(items, dtype=np.int64)
    except OverflowError:
        return np.array(items, dtype=object)
    if array.size and int(np.max(np.abs(array))) >= LIMIT:
        return np.array(items, dtype=object)
    return array


def maxabs(value: Any) -> int:
    """The largest magnitude in an integer array (or of an int), as a Python int; 0 if empty."""
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return 0
        return int(np.max(np.abs(value)))
    return abs(int(value))


def _is_object(value: Any) -> bool:
    """An object array, or a Python int outside the int64 comfort zone."""
    if isinstance(value, np.ndarray):
        return value.dtype == object
    return isinstance(value, int) and abs(value) >= LIMIT


def _objects(value: Any) -> np.ndarray:
    """``value`` (an integer array or int) as an array of Python integers."""
    if isinstance(value, np.ndarray):
        return value if value.dtype == object else value.astype(object)
    return np.asarray(int(value), dtype=object)


def _machine(value: Any) -> Any:
    """``value`` as an int64 array or numpy scalar (its bound is known to be < LIMIT)."""
    return value if isinstance(value, np.ndarray) else np.int64(int(value))


def _mul(a: Any, b: Any, bound: int) -> np.ndarray:
    """``a·b`` exactly; ``bound`` bounds ``|a·b|``."""
    if bound >= LIMIT or _is_object(a) or _is_object(b):
        return np.asarray(_objects(a) * _objects(b), dtype=object)
    return np.asarray(_machine(a) * _machine(b))


def _add(a: Any, b: Any, bound: int, *, subtract: bool) -> np.ndarray:
    """``a ± b`` exactly; ``bound`` bounds ``|a ± b|``."""
    if bound >= LIMIT or _is_object(a) or _is_object(b):
        a, b = _objects(a), _objects(b)
        return np.asarray(a - b if subtract else a + b, dtype=object)
    a, b = _machine(a), _machine(b)
    return np.asarray(a - b if subtract else a + b)


def _demote(value: np.ndarray, bound: int) -> np.ndarray:
    """Back to int64 when an object array fits again (keeps later operations fast)."""
    if value.dtype == object and bound < LIMIT:
        return value.astype(np.int64)
    return value


def _lcm(a: int, b: int) -> int:
    return a * b // math.gcd(a, b)


class RationalArray:
    """Exact rationals ``num / den`` elementwise (see the module docstring).

    Construct with :meth:`of` (from ints and Fractions), :meth:`integers`
    (from an integer numpy array) or :meth:`constant`.  Arithmetic and
    comparisons broadcast like numpy and are exact; a division by zero raises
    :class:`Undefined`.
    """

    __slots__ = ("num", "den", "bound")

    num: np.ndarray
    den: Denominator
    bound: int  # >= max |num|

    def __init__(self, num: Any, den: Any = 1, bound: int | None = None) -> None:
        if not isinstance(num, np.ndarray):
            num = np.asarray(int(num), dtype=object if abs(int(num)) >= LIMIT else np.int64)
        if isinstance(den, np.ndarray) and den.size == 1:  # one denominator: keep it shared
            if den.ndim > num.ndim or any(d > n for d, n in zip(den.shape[::-1], num.shape[::-1])):
                num = np.broadcast_to(num, np.broadcast_shapes(num.shape, den.shape))
            den = int(den.reshape(-1)[0])
        elif not isinstance(den, np.ndarray):
            den = int(den)
        self.num = num
        self.den = den
        self.bound = maxabs(num) if bound is None else bound
        if self.bound < LIMIT and num.dtype == object:
            self.num = num.astype(np.int64)

    # -- construction -------------------------------------------------------------

    @classmethod
    def trusted(cls, num: np.ndarray, den: int, bound: int) -> RationalArray:
        """No checks: ``num`` an int64 (or object) array, ``den`` a positive int, ``bound >= max |num|``."""
        result = object.__new__(cls)
        result.num = num
        result.den = den
        result.bound = bound
        return result

    @classmethod
    def of(cls, values: Sequence[int | Fraction]) -> RationalArray:
        """A 1-D array of the given ints and Fractions, over their common denominator."""
        denominator = 1
        for value in values:
            if type(value) is not int:
                d = value.denominator
                if denominator % d:
                    denominator = _lcm(denominator, d)
        if denominator == 1:
            return cls(integer_array([int(v) for v in values]), 1)
        return cls(integer_array([int(v * denominator) for v in values]), denominator)

    @classmethod
    def integers(cls, array: np.ndarray, *, bound: int | None = None) -> RationalArray:
        """An integer numpy array (any int/uint dtype, or object of ints), exactly."""
        if array.dtype == object:
            return cls(array, 1, bound)
        if array.dtype.kind == "u" and array.size and int(array.max()) >= LIMIT:
            return cls(array.astype(object), 1, bound)
        if array.dtype != np.int64:
            array = array.astype(np.int64)
        if bound is None:
            bound = maxabs(array)
        if bound >= LIMIT:
            return cls(array.astype(object), 1, bound)
        return cls(array, 1, bound)

    @classmethod
    def constant(cls, value: int | Fraction) -> RationalArray:
        """A 0-d array holding one rational."""
        fraction = Fraction(value)
        return cls(fraction.numerator, fraction.denominator)

    # -- inspection ---------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The broadcast shape of numerators and denominators."""
        if isinstance(self.den, np.ndarray):
            return tuple(np.broadcast_shapes(self.num.shape, self.den.shape))
        return tuple(self.num.shape)

    def __len__(self) -> int:
        return self.shape[0]

    def dense_den(self) -> np.ndarray:
        """The denominators as an array of the full shape."""
        den = self.den
        if isinstance(den, np.ndarray):
            return np.broadcast_to(den, self.shape)
        return np.full(self.shape, den, dtype=np.int64 if den < LIMIT else object)

    def broadcast_to(self, shape: tuple[int, ...]) -> RationalArray:
        """The same values broadcast to ``shape`` (a read-only view)."""
        num = np.broadcast_to(self.num, shape)
        den = np.broadcast_to(self.den, shape) if isinstance(self.den, np.ndarray) else self.den
        return RationalArray(num, den, self.bound)

    def reshape(self, *shape: int) -> RationalArray:
        """The same values in another shape (denominators materialised if per element)."""
        den = self.den
        if isinstance(den, np.ndarray):
            full = self.shape
            return RationalArray(np.broadcast_to(self.num, full).reshape(shape), np.broadcast_to(den, full).reshape(shape), self.bound)
        return RationalArray(self.num.reshape(shape), den, self.bound)

    def to_list(self) -> list[int | Fraction]:
        """The values of a 1-D array as ints (integral values) and Fractions."""
        nums = np.broadcast_to(self.num, self.shape).tolist()
        den = self.den
        if isinstance(den, np.ndarray):
            dens = np.broadcast_to(den, self.shape).tolist()
            return [_value(n, d) for n, d in zip(nums, dens)]
        if den == 1:
            return [int(n) for n in nums]
        return [_value(n, den) for n in nums]

    def item(self, index: Any) -> Fraction:
        """One element as a Fraction."""
        num = np.broadcast_to(self.num, self.shape)[index]
        den = self.den
        if isinstance(den, np.ndarray):
            den = np.broadcast_to(den, self.shape)[index]
        return Fraction(int(num), int(den))

    def __getitem__(self, index: Any) -> RationalArray:
        den = self.den
        if isinstance(den, np.ndarray):
            den = np.broadcast_to(den, self.shape)[index]
            return RationalArray(np.broadcast_to(self.num, self.shape)[index], den, self.bound)
        return RationalArray(self.num[index], den, self.bound)

    def __repr__(self) -> str:
        return f"RationalArray(shape={self.shape}, den={'array' if isinstance(self.den, np.ndarray) else self.den})"

    # -- arithmetic ---------------------------------------------------------------

    def _reduced(self) -> RationalArray:
        """Divide numerators and denominators by their gcd (keeps magnitudes small)."""
        den = self.den
        if isinstance(den, np.ndarray):
            num = self.num
            if _is_object(num) or _is_object(den):
                num, den = _objects(num), _objects(den)
            g = np.gcd(num, den)
            den = den // g
            reduced = num // g
            return RationalArray(_demote(reduced, maxabs(reduced)), _demote(den, maxabs(den)))
        if den == 1 or self.num.size == 0 or (den < _REDUCE_ABOVE and self.bound < _REDUCE_ABOVE):
            return self  # small: a common factor costs nothing, and finding it costs a pass
        common = math.gcd(den, int(np.gcd.reduce(self.num, axis=None)))
        if common == 1:
            return self
        num = (_objects(self.num) if common >= LIMIT else self.num) // common
        return RationalArray(num, den // common, self.bound // common)

    def __neg__(self) -> RationalArray:
        return RationalArray(-self.num, self.den, self.bound)

    def __abs__(self) -> RationalArray:
        return RationalArray(np.abs(self.num), self.den, self.bound)

    def __add__(self, other: RationalArray) -> RationalArray:
        return self._plus(other, subtract=False)

    def __sub__(self, other: RationalArray) -> RationalArray:
        return self._plus(other, subtract=True)

    def _plus(self, other: RationalArray, *, subtract: bool) -> RationalArray:
        a, b = self.den, other.den
        if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
            if a == b:
                bound = self.bound + other.bound
                return RationalArray(_add(self.num, other.num, bound, subtract=subtract), a, bound)
            common = _lcm(a, b)
            fa, fb = common // a, common // b
            left = _mul(self.num, fa, self.bound * fa)
            right = _mul(other.num, fb, other.bound * fb)
            bound = self.bound * fa + other.bound * fb
            return RationalArray(_add(left, right, bound, subtract=subtract), common, bound)._reduced()
        da, db = maxabs(a), maxabs(b)
        left = _mul(self.num, b, self.bound * db)
        right = _mul(other.num, a, other.bound * da)
        bound = self.bound * db + other.bound * da
        return RationalArray(_add(left, right, bound, subtract=subtract), _mul(a, b, da * db), bound)._reduced()

    def __mul__(self, other: RationalArray) -> RationalArray:
        a, b = self.den, other.den
        if other.num.ndim == 0 and abs(int(other.num)) == 1 and not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
            return RationalArray(self.num if other.num > 0 else -self.num, a * b, self.bound)._reduced()  # ±1/d
        if self.num.ndim == 0 and abs(int(self.num)) == 1:
            return other * self
        bound = self.bound * other.bound
        num = _mul(self.num, other.num, bound)
        if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
            return RationalArray(num, a * b, bound)._reduced()
        return RationalArray(num, _mul(a, b, maxabs(a) * maxabs(b)), bound)._reduced()

    def reciprocal(self) -> RationalArray:
        """``1 / self``; :class:`Undefined` if an element is 0."""
        num = self.num
        if num.size and not np.all(num != 0):
            raise Undefined("division by zero")
        den = self.den
        bound = maxabs(den)
        return RationalArray(_mul(np.sign(num), den, bound), np.abs(num), bound)

    def power(self, exponent: int) -> RationalArray:
        """``self ** exponent`` for an integer exponent (negative: of the reciprocal)."""
        base = self.reciprocal() if exponent < 0 else self
        result = RationalArray.constant(1)
        for _ in range(abs(exponent)):
            result = result * base
        return result

    def compare(self, other: RationalArray) -> np.ndarray:
        """The sign (-1, 0, 1) of ``self - other`` elementwise, as an int8 array."""
        a, b = self.den, other.den
        if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray) and a == b:
            left, right = self.num, other.num
        else:
            left = _mul(self.num, b, self.bound * maxabs(b))
            right = _mul(other.num, a, other.bound * maxabs(a))
        if _is_object(left) or _is_object(right):
            left, right = _objects(left), _objects(right)
        return np.asarray(left > right, dtype=np.int8) - np.asarray(left < right, dtype=np.int8)

    def select(self, mask: np.ndarray, other: RationalArray) -> RationalArray:
        """``self`` where ``mask`` holds, else ``other`` (exact; denominators aligned)."""
        a, b = self.den, other.den
        if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
            if a == b:
                return RationalArray(np.where(mask, self.num, other.num), a, max(self.bound, other.bound))
            common = _lcm(a, b)
            fa, fb = common // a, common // b
            left, right = _mul(self.num, fa, self.bound * fa), _mul(other.num, fb, other.bound * fb)
            bound = max(self.bound * fa, other.bound * fb)
            return RationalArray(np.where(mask, left, right), common, bound)._reduced()
        num = np.where(mask, self.num, other.num)
        if _is_object(a) or _is_object(b):  # a denominator past int64 (a scalar one would overflow np.where)
            a, b = _objects(a), _objects(b)
        den = np.where(mask, a, b)
        return RationalArray(num, den, max(self.bound, other.bound))._reduced()

    # -- reductions ---------------------------------------------------------------

    def integer_matmul(self, counts: np.ndarray) -> RationalArray:
        """``counts @ self`` for a non-negative integer matrix ``counts`` (weighted sums of rows).

        ``self`` must be 2-D; a per-element denominator is first brought to the
        least common one.
        """
        values = self._common_denominator() if isinstance(self.den, np.ndarray) else self
        weight = int(counts.sum(axis=1).max()) if counts.size else 0
        bound = values.bound * max(weight, 1)
        if bound >= LIMIT or _is_object(values.num) or counts.dtype == object:
            return RationalArray(np.dot(_objects(counts), _objects(values.num)), values.den, bound)
        return RationalArray(counts @ values.num, values.den, bound)

    def _common_denominator(self) -> RationalArray:
        den = np.broadcast_to(self.den, self.shape)
        if den.size == 0:
            return RationalArray(np.broadcast_to(self.num, self.shape), 1, 0)
        common = 1
        for d in np.unique(np.asarray(den)).tolist():
            common = _lcm(common, int(d))
        factor = _objects(np.asarray(common, dtype=object)) // _objects(den)
        scaled = _objects(np.broadcast_to(self.num, self.shape)) * factor
        return RationalArray(scaled, common)


def _value(n: int, d: int) -> int | Fraction:
    if d == 1:
        return int(n)
    value = Fraction(n, d)
    return value.numerator if value.denominator == 1 else value
