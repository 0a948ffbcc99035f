"""Exact rational arrays: numpy integer numerators over positive denominators.

A :class:`RationalArray` holds the exact rationals ``num / den`` elementwise.
``num`` is a numpy array of ``int64`` or, when a value could leave the int64
range, of Python ``int`` objects (``dtype=object``); ``den`` is a positive
Python ``int`` shared by every element (the common case, and the fast one) or a
positive integer array broadcastable to ``num`` (after a reciprocal, or when
arrays over different denominators are combined elementwise).
:meth:`RationalArray.shared` brings the values over one common denominator;
the operations that read values in order (sorting, running sums, floors) do so
themselves.

Overflow is excluded by bookkeeping, not by luck: each array carries ``bound``,
an upper bound on ``max |num|``, propagated through every operation
(``|a ± b| <= A + B``, ``|a·b| <= A·B``).  Before an int64 operation the bound
of its result is compared with ``2**62``; if it may reach it, the operands are
promoted to Python integers first.  So no operation ever wraps around: results
are exact whatever the inputs, and stay in fast int64 arithmetic whenever they
provably fit.  Comparisons are comparisons of integers: no float ever decides
anything here (a sort of Python integers may use a float order as a filter,
checked exactly afterwards).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import Any, Union

import numpy as np

__all__ = ["LIMIT", "RationalArray", "Undefined", "concatenate", "from_floats", "integer_array", "maxabs", "take_along", "where"]

#: Results whose magnitude may reach this bound leave int64 for Python integers.
LIMIT = 1 << 62

Denominator = Union[int, np.ndarray]
Operand = Union["RationalArray", Fraction, int]

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
    if array.size and maxabs(array) >= LIMIT:
        return np.array(items, dtype=object)
    return array


def maxabs(value: Any) -> int:
    """The largest magnitude in an integer array (or of an int), as a Python int; 0 if empty."""
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return 0
        if value.dtype == object:
            return int(np.max(np.abs(value)))
        return max(abs(int(value.max())), abs(int(value.min())))  # |−2**63| does not fit int64: no np.abs
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


def _integers(num: Any) -> np.ndarray:
    """``num`` (an int, or an array of any integer or boolean dtype) as an int64 or object array."""
    if not isinstance(num, np.ndarray):
        if isinstance(num, int | np.integer):
            return np.asarray(int(num), dtype=object if abs(int(num)) >= LIMIT else np.int64)
        num = np.asarray(num)
    if num.dtype == np.int64 or num.dtype == object:
        return num
    if num.dtype.kind == "u" and num.size and int(num.max()) >= LIMIT:
        return num.astype(object)
    if num.dtype.kind not in "iub":
        raise TypeError(f"internal error: {num.dtype} is not an integer array")
    return num.astype(np.int64)


def _floor_div(num: np.ndarray, den: Denominator) -> np.ndarray:
    """``⌊num / den⌋`` elementwise, exactly, as integers."""
    if _is_object(num) or _is_object(den):
        return np.asarray(_objects(num) // _objects(den), dtype=object)
    return np.asarray(num // den)


class RationalArray:
    """Exact rationals ``num / den`` elementwise (see the module docstring).

    Construct with :meth:`of` (from ints and Fractions), :meth:`integers`
    (from an integer numpy array), :meth:`full`, :meth:`zeros`,
    :meth:`constant` or :func:`from_floats`.  Arithmetic (with arrays, ints or
    Fractions) and comparisons broadcast like numpy and are exact; a division
    by zero raises :class:`Undefined`.
    """

    __slots__ = ("num", "den", "bound")

    num: np.ndarray
    den: Denominator
    bound: int  # >= max |num|

    def __init__(self, num: Any, den: Any = 1, bound: int | None = None) -> None:
        num = _integers(num)
        if isinstance(den, np.ndarray) and den.size == 1:  # one denominator: keep it shared
            if den.ndim > num.ndim or any(d > n for d, n in zip(den.shape[::-1], num.shape[::-1])):
                num = np.broadcast_to(num, np.broadcast_shapes(num.shape, den.shape))
            den = int(den.reshape(-1)[0])
        elif not isinstance(den, np.ndarray):
            den = int(den)
            if den <= 0:
                raise ValueError(f"internal error: a RationalArray denominator must be positive, not {den}")
        if bound is None:
            bound = maxabs(num)
        if bound >= LIMIT:
            if num.dtype != object:  # may hold −2**63, whose negation wraps: Python ints from here
                num = num.astype(object)
        elif num.dtype == object:
            num = num.astype(np.int64)
        self.num = num
        self.den = den
        self.bound = bound

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
    def of(cls, values: Sequence[int | Fraction] | np.ndarray) -> RationalArray:
        """The given ints and Fractions (a sequence, or a numpy array of any shape) over their common denominator."""
        if isinstance(values, np.ndarray) and values.ndim != 1:
            return cls.of(values.reshape(-1).tolist()).reshape(values.shape)
        denominator = 1
        for value in values:
            if type(value) is not int:
                d = value.denominator
                if denominator % d:
                    denominator = math.lcm(denominator, d)
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

    @classmethod
    def full(cls, shape: Any, value: int | Fraction) -> RationalArray:
        """An array of ``shape`` filled with one rational."""
        fraction = Fraction(value)
        numerator = fraction.numerator
        return cls(np.full(shape, numerator, dtype=object if abs(numerator) >= LIMIT else np.int64), fraction.denominator, abs(numerator))

    @classmethod
    def zeros(cls, shape: Any) -> RationalArray:
        """An array of zeros."""
        return cls(np.zeros(shape, dtype=np.int64), 1, 0)

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

    def reshape(self, *shape: Any) -> RationalArray:
        """The same values in another shape (``reshape(2, 3)`` or ``reshape((2, 3))``)."""
        if len(shape) == 1 and isinstance(shape[0], tuple | list):
            shape = tuple(shape[0])
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

    def fractions(self) -> list[Fraction]:
        """Every element (flattened, in C order) as a Fraction."""
        shape = self.shape
        nums = np.broadcast_to(self.num, shape).reshape(-1).tolist()
        den = self.den
        if isinstance(den, np.ndarray):
            return [Fraction(int(n), int(d)) for n, d in zip(nums, np.broadcast_to(den, shape).reshape(-1).tolist())]
        return [Fraction(int(n), den) for n in nums]

    def item(self, *index: Any) -> Fraction:
        """One element as a Fraction: ``item(i)``, ``item(i, j)``, or ``item()`` of a one-element array."""
        shape = self.shape
        num = np.broadcast_to(self.num, shape)
        den = self.den
        if not index:
            if num.size != 1:
                raise ValueError(f"internal error: item() of an array of {num.size} values")
            return Fraction(int(num.reshape(-1)[0]), int(np.broadcast_to(den, shape).reshape(-1)[0]) if isinstance(den, np.ndarray) else den)
        key = index[0] if len(index) == 1 else index
        if isinstance(den, np.ndarray):
            den = np.broadcast_to(den, shape)[key]
        return Fraction(int(num[key]), int(den))

    def __getitem__(self, index: Any) -> RationalArray:
        den = self.den
        if isinstance(den, np.ndarray):
            den = np.broadcast_to(den, self.shape)[index]
            return RationalArray(np.broadcast_to(self.num, self.shape)[index], den, self.bound)
        return RationalArray(self.num[index], den, self.bound)

    def __repr__(self) -> str:
        shown = ", ".join(str(v) for v in self[:6].fractions()) if self.num.ndim == 1 else "…"
        return f"RationalArray([{shown}{', …' if self.num.ndim == 1 and len(self) > 6 else ''}], shape={self.shape})"

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

    def shared(self) -> RationalArray:
        """The same values over one common (shared) denominator: ``self`` when it has one already."""
        if not isinstance(self.den, np.ndarray):
            return self
        den = np.broadcast_to(self.den, self.shape)
        if den.size == 0:
            return RationalArray(np.broadcast_to(self.num, self.shape), 1, 0)
        common = math.lcm(*np.unique(np.asarray(den)).tolist())
        factor = _objects(np.asarray(common, dtype=object)) // _objects(den)
        scaled = _objects(np.broadcast_to(self.num, self.shape)) * factor
        return RationalArray(scaled, common)._reduced()

    def __neg__(self) -> RationalArray:
        return RationalArray(-self.num, self.den, self.bound)

    def __abs__(self) -> RationalArray:
        return RationalArray(np.abs(self.num), self.den, self.bound)

    def __add__(self, other: Operand) -> RationalArray:
        return self._plus(_operand(other), subtract=False)

    __radd__ = __add__

    def __sub__(self, other: Operand) -> RationalArray:
        return self._plus(_operand(other), subtract=True)

    def __rsub__(self, other: Operand) -> RationalArray:
        return _operand(other)._plus(self, subtract=True)

    def _plus(self, other: RationalArray, *, subtract: bool) -> RationalArray:
        a, b = self.den, other.den
        if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
            if a == b:
                bound = self.bound + other.bound
                return RationalArray(_add(self.num, other.num, bound, subtract=subtract), a, bound)
            common = math.lcm(a, b)
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

    def __mul__(self, other: Operand) -> RationalArray:
        other = _operand(other)
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

    __rmul__ = __mul__

    def __truediv__(self, other: Operand) -> RationalArray:
        return self * _operand(other).reciprocal()

    def reciprocal(self) -> RationalArray:
        """``1 / self`` (over per-element denominators; :meth:`shared` for one); :class:`Undefined` if an element is 0."""
        num = self.num
        if num.size and not np.all(num != 0):
            raise Undefined("division by zero")
        den = self.den
        bound = maxabs(den)
        return RationalArray(_mul(np.sign(num), den, bound), np.abs(num), bound)

    def power(self, exponent: int) -> RationalArray:
        """``self ** exponent`` for an integer exponent (negative: of the reciprocal)."""
        if exponent == 0:
            return RationalArray.full(self.shape, 1)
        base = self.reciprocal() if exponent < 0 else self
        result = base
        for _ in range(abs(exponent) - 1):
            result = result * base
        return result

    # -- comparisons --------------------------------------------------------------

    def sign(self) -> np.ndarray:
        """-1, 0 or 1 per element (int64)."""
        return np.sign(self.num).astype(np.int64)

    def compare(self, other: Operand) -> np.ndarray:
        """The sign (-1, 0, 1) of ``self - other`` elementwise, as an int8 array."""
        other = _operand(other)
        a, b = self.den, other.den
        if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray) and a == b:
            left, right = self.num, other.num
        else:
            left = _mul(self.num, b, self.bound * maxabs(b))
            right = _mul(other.num, a, other.bound * maxabs(a))
        if _is_object(left) or _is_object(right):
            left, right = _objects(left), _objects(right)
        return np.asarray(left > right, dtype=np.int8) - np.asarray(left < right, dtype=np.int8)

    def __lt__(self, other: Operand) -> np.ndarray:
        return self.compare(other) < 0

    def __le__(self, other: Operand) -> np.ndarray:
        return self.compare(other) <= 0

    def __gt__(self, other: Operand) -> np.ndarray:
        return self.compare(other) > 0

    def __ge__(self, other: Operand) -> np.ndarray:
        return self.compare(other) >= 0

    __hash__ = None  # type: ignore[assignment]

    def select(self, mask: np.ndarray, other: RationalArray) -> RationalArray:
        """``self`` where ``mask`` holds, else ``other`` (exact; denominators aligned)."""
        a, b = self.den, other.den
        if not isinstance(a, np.ndarray) and not isinstance(b, np.ndarray):
            if a == b:
                return RationalArray(_where(mask, self.num, other.num), a, max(self.bound, other.bound))
            common = math.lcm(a, b)
            fa, fb = common // a, common // b
            left, right = _mul(self.num, fa, self.bound * fa), _mul(other.num, fb, other.bound * fb)
            bound = max(self.bound * fa, other.bound * fb)
            return RationalArray(_where(mask, left, right), common, bound)._reduced()
        num = _where(mask, self.num, other.num)
        if _is_object(a) or _is_object(b):  # a denominator past int64 (a scalar one would overflow np.where)
            a, b = _objects(a), _objects(b)
        den = np.where(mask, a, b)
        return RationalArray(num, den, max(self.bound, other.bound))._reduced()

    def argsort(self, axis: int = -1) -> np.ndarray:
        """A stable sorting permutation along ``axis``, exact.

        Python-int numerators (below 2**1000) are first ordered by their float
        values, and the order is then checked exactly; only if the check fails,
        or they are larger, are they sorted as Python ints.
        """
        values = self.shared()
        num = values.num
        if num.dtype == np.int64:
            return np.argsort(num, axis=axis, kind="stable")
        if values.bound >= 1 << 1000:  # past float64's range: no float order to filter with
            return np.argsort(num, axis=axis, kind="stable")
        order = np.argsort(num.astype(float), axis=axis, kind="stable")
        ordered = np.take_along_axis(num, order, axis=axis)
        if ordered.shape[axis] < 2 or np.all(np.diff(ordered, axis=axis) >= 0):
            return order
        return np.argsort(num, axis=axis, kind="stable")

    def floor(self) -> np.ndarray:
        """``⌊self⌋`` per element, as integers (int64, or Python ints past it)."""
        return _floor_div(self.num, self.den)

    def ceil(self) -> np.ndarray:
        """``⌈self⌉`` per element, as integers (int64, or Python ints past it)."""
        return -_floor_div(-self.num, self.den)

    def is_integer(self) -> np.ndarray:
        """Whether each element is an integer."""
        den = self.den
        if _is_object(self.num) or _is_object(den):
            return np.asarray(_objects(self.num) % _objects(den) == 0, dtype=bool)
        return np.asarray(self.num % den == 0)

    # -- reductions ---------------------------------------------------------------

    def cumsum(self, axis: int = -1) -> RationalArray:
        """Running sums along ``axis``."""
        values = self.shared()
        num = values.num
        bound = values.bound * max(1, num.shape[axis] if num.ndim else 1)
        if bound >= LIMIT or num.dtype == object:
            return RationalArray(np.cumsum(_objects(num), axis=axis), values.den, bound)
        return RationalArray(np.cumsum(num, axis=axis), values.den, bound)

    def sum(self, axis: int | None = None) -> RationalArray:
        """Sums along ``axis`` (of every element for None)."""
        values = self.shared()
        num = values.num
        bound = values.bound * max(1, num.size if axis is None else num.shape[axis])
        if bound >= LIMIT or num.dtype == object:
            return RationalArray(np.asarray(np.sum(_objects(num), axis=axis), dtype=object), values.den, bound)
        return RationalArray(np.asarray(np.sum(num, axis=axis)), values.den, bound)

    def total(self) -> Fraction:
        """The sum of every element, as a Fraction."""
        return self.sum().item()

    def integer_matmul(self, counts: np.ndarray) -> RationalArray:
        """``counts @ self`` for a non-negative integer matrix ``counts`` (weighted sums of rows).

        ``self`` must be 2-D; a per-element denominator is first brought to the
        least common one.
        """
        values = self.shared()
        weight = int(counts.sum(axis=1).max()) if counts.size else 0
        bound = values.bound * max(weight, 1)
        if bound >= LIMIT or _is_object(values.num) or counts.dtype == object:
            return RationalArray(np.dot(_objects(counts), _objects(values.num)), values.den, bound)
        return RationalArray(counts @ values.num, values.den, bound)


def _operand(value: Operand) -> RationalArray:
    return value if isinstance(value, RationalArray) else RationalArray.constant(value)


def _where(mask: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    if left.dtype != right.dtype:  # one int64, one object: np.where would pick a float or overflow
        left, right = _objects(left), _objects(right)
    return np.where(mask, left, right)


def _value(n: int, d: int) -> int | Fraction:
    if d == 1:
        return int(n)
    value = Fraction(n, d)
    return value.numerator if value.denominator == 1 else value


def where(condition: np.ndarray, a: RationalArray, b: RationalArray) -> RationalArray:
    """``a`` where ``condition`` holds, else ``b`` (broadcasting)."""
    return a.select(condition, b)


def concatenate(parts: Sequence[RationalArray], axis: int = -1) -> RationalArray:
    """The arrays joined along ``axis``: over their least common denominator when each has a shared one."""
    if any(isinstance(p.den, np.ndarray) for p in parts):
        nums = [_objects(np.broadcast_to(p.num, p.shape)) for p in parts]
        dens = np.concatenate([_objects(p.dense_den()) for p in parts], axis=axis)
        return RationalArray(np.concatenate(nums, axis=axis), dens, max(p.bound for p in parts))._reduced()
    den = math.lcm(*(int(p.den) for p in parts))
    factors = [den // int(p.den) for p in parts]
    bound = max((p.bound * f for p, f in zip(parts, factors)), default=0)
    nums = [p.num if f == 1 else _mul(p.num, f, p.bound * f) for p, f in zip(parts, factors)]
    if any(n.dtype == object for n in nums):
        nums = [_objects(n) for n in nums]
    return RationalArray(np.concatenate(nums, axis=axis), den, bound)


def take_along(array: RationalArray, indices: np.ndarray, axis: int = -1) -> RationalArray:
    """``np.take_along_axis`` for a RationalArray."""
    values = array.shared()
    return RationalArray(np.take_along_axis(values.num, indices, axis=axis), values.den, values.bound)


def from_floats(values: np.ndarray) -> RationalArray:
    """The exact rationals that finite float64 values represent, over one power-of-two denominator."""
    array = np.asarray(values, dtype=np.float64)
    if not np.all(np.isfinite(array)):
        raise ValueError("internal error: from_floats needs finite values")
    if array.size == 0:
        return RationalArray.zeros(array.shape)
    integral = np.floor(array) == array
    if np.all(integral) and np.all(np.abs(array) < 2.0**62):
        return RationalArray(array.astype(np.int64))
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
    if int((bits + offsets).max()) < 62:
        return RationalArray(ints << offsets, 1 << -low)
    powers = np.array([1 << k for k in range(int(offsets.max()) + 1)], dtype=object)
    return RationalArray(ints.astype(object) * powers[offsets], 1 << -low)
