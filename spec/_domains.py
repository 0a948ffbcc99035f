"""Domains of record fields and output variables.

A domain says which values a field or an output variable may take, how a
value is encoded as an exact rational (the form every expression computes
with), and which constraint the prover must assume.  Categories and booleans
are encoded as integers; every code is an ``int`` or a ``Fraction``.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ._errors import BudgetExceeded, InvalidArgument, InvalidType, describe
from ._validate import as_rational

__all__ = [
    "LARGEST_LISTED",
    "SMALL_DOMAIN",
    "Booleans",
    "Categories",
    "Domain",
    "Grid",
    "IntRange",
    "RationalRange",
]

Code = int | Fraction

#: A finite domain (or product of domains) of at most this many values is *small*: the prover may try
#: every value, and a certificate lists a small output space value by value.  A larger one is symbolic:
#: the prover tries a few interesting values (ends, values near the expression's constants, seeded
#: random ones) and z3 covers the rest; a single integer output variable goes through the countable range path.
SMALL_DOMAIN = 4096
#: No domain or product of domains with more values than this is ever listed: :meth:`Domain.codes`,
#: :meth:`Domain.values` and ``OutputSpace.outputs()`` raise :class:`BudgetExceeded` before allocating.
LARGEST_LISTED = 10**6


def refuse_listing(what: str, count: int | None) -> BudgetExceeded:
    """The refusal to list ``what``, which has ``count`` values (None: infinitely many)."""
    many = "infinitely many" if count is None else f"{count:,}"
    return BudgetExceeded(
        f"{what} has {many} values, more than the {LARGEST_LISTED:,} that may be listed one by one; it is handled "
        "symbolically where the mathematics allows (a single integer output variable, z3 over the fields), otherwise "
        "refused: use a smaller domain",
        parameter="domain",
        value=what,
    )


class Domain:
    """Base of every domain.  Subclasses are frozen dataclasses."""

    #: 'int' (codes are integers) or 'real' (codes are rationals)
    sort: str = "int"

    def encode(self, value: Any, *, name: str) -> Code:
        """The exact code of ``value``; raises :class:`InvalidArgument` naming ``name`` if outside."""
        raise NotImplementedError

    def decode(self, code: Code) -> Any:
        """The user-facing value of a code (inverse of :meth:`encode`)."""
        return code

    def bounds(self) -> tuple[Fraction | None, Fraction | None]:
        """Lower and upper bounds of the codes (``None`` where unbounded)."""
        raise NotImplementedError

    @property
    def is_finite(self) -> bool:
        """Whether the domain can be enumerated."""
        return False

    @property
    def size(self) -> int | None:
        """The number of values, without listing them (None: infinitely many)."""
        return None

    def codes(self) -> tuple[Code, ...]:
        """Every code, in order; only for finite domains of at most :data:`LARGEST_LISTED` values."""
        raise InvalidArgument(f"{self.describe()} is not finite and cannot be enumerated", parameter="domain", value=self)

    def values(self) -> tuple[Any, ...]:
        """Every user-facing value, in order; only for finite domains."""
        return tuple(self.decode(c) for c in self.codes())

    def describe(self) -> str:
        """Canonical text of the domain (part of a quality function's canonical form)."""
        raise NotImplementedError


def _bound(value: Any, name: str) -> Fraction | None:
    return None if value is None else as_rational(value, name=name)


def _outside(name: str, value: Any, domain: Domain) -> InvalidArgument:
    return InvalidArgument(f"{name}={describe(value)} is outside {domain.describe()}", parameter=name, value=value)


@dataclass(frozen=True)
class IntRange(Domain):
    """Integers ``lo <= v <= hi``; ``None`` leaves a side unbounded (fields only)."""

    lo: int | None
    hi: int | None

    sort = "int"

    def __post_init__(self) -> None:
        for side in ("lo", "hi"):
            value = getattr(self, side)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise InvalidType(f"{side}={describe(value)} must be an int or None", parameter=side, value=value)
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise InvalidArgument(f"IntRange lo={self.lo} must be <= hi={self.hi}", parameter="lo", value=self.lo)

    def encode(self, value: Any, *, name: str) -> Code:
        if type(value) is int and (self.lo is None or value >= self.lo) and (self.hi is None or value <= self.hi):
            return value  # the common case, checked first
        if isinstance(value, bool) or not _is_integer(value):
            raise InvalidType(f"{name}={describe(value)} must be an integer in {self.describe()}", parameter=name, value=value)
        code = int(value)
        if (self.lo is not None and code < self.lo) or (self.hi is not None and code > self.hi):
            raise _outside(name, value, self)
        return code

    def bounds(self) -> tuple[Fraction | None, Fraction | None]:
        return _bound(self.lo, "lo"), _bound(self.hi, "hi")

    @property
    def is_finite(self) -> bool:
        return self.lo is not None and self.hi is not None

    @property
    def size(self) -> int | None:
        return None if self.lo is None or self.hi is None else self.hi - self.lo + 1

    def codes(self) -> tuple[Code, ...]:
        if not self.is_finite:
            return super().codes()
        assert self.lo is not None and self.hi is not None
        if self.hi - self.lo >= LARGEST_LISTED:
            raise refuse_listing(self.describe(), self.hi - self.lo + 1)
        return tuple(range(self.lo, self.hi + 1))

    def describe(self) -> str:
        return f"IntRange({self.lo}, {self.hi})"


@dataclass(frozen=True)
class RationalRange(Domain):
    """Rationals (standing for reals) ``lo <= v <= hi``; ``None`` leaves a side unbounded."""

    lo: Any
    hi: Any

    sort = "real"

    def __post_init__(self) -> None:
        lo, hi = _bound(self.lo, "lo"), _bound(self.hi, "hi")
        object.__setattr__(self, "lo", lo)
        object.__setattr__(self, "hi", hi)
        if lo is not None and hi is not None and lo > hi:
            raise InvalidArgument(f"RationalRange lo={lo} must be <= hi={hi}", parameter="lo", value=lo)

    def encode(self, value: Any, *, name: str) -> Code:
        code = as_rational(value, name=name)
        if (self.lo is not None and code < self.lo) or (self.hi is not None and code > self.hi):
            raise _outside(name, value, self)
        return code

    def bounds(self) -> tuple[Fraction | None, Fraction | None]:
        return self.lo, self.hi

    def describe(self) -> str:
        return f"RationalRange({self.lo}, {self.hi})"


@dataclass(frozen=True)
class Booleans(Domain):
    """``False``/``True``, encoded 0/1 (so ``count(flag)`` and ``total(flag)`` work)."""

    sort = "int"

    def encode(self, value: Any, *, name: str) -> Code:
        if isinstance(value, bool):
            return int(value)
        if _is_integer(value) and int(value) in (0, 1):
            return int(value)
        raise _outside(name, value, self)

    def decode(self, code: Code) -> Any:
        return bool(code)

    def bounds(self) -> tuple[Fraction | None, Fraction | None]:
        return Fraction(0), Fraction(1)

    @property
    def is_finite(self) -> bool:
        return True

    @property
    def size(self) -> int | None:
        return 2

    def codes(self) -> tuple[Code, ...]:
        return (0, 1)

    def describe(self) -> str:
        return "Booleans()"


_NO_LABELS: Any = object()


@dataclass(frozen=True, init=False)
class Categories(Domain):
    """A finite set of hashable labels, encoded by position 0, 1, …: ``Categories(("a", "b", "c"))``.

    The labels are one tuple (or any sequence but a string): ``Categories("a",
    "b")`` and ``Categories("abc")`` are refused with :class:`InvalidType`
    saying how to write them (a string would otherwise be split into its
    characters).  Codes are positions, so a quality function may only compare
    a category with ``==`` / ``!=`` (to another variable over the same labels,
    or to a label's code from :meth:`code`); arithmetic and ordering on
    positions are refused when the quality function is built.  For numeric
    values use :class:`IntRange` or :class:`Grid`.
    """

    labels: tuple[Hashable, ...]
    _index: dict[Hashable, int] = field(init=False, repr=False, compare=False, hash=False)

    sort = "int"

    def __init__(self, labels: Any = _NO_LABELS, *more: Any) -> None:
        if labels is _NO_LABELS or more:
            given = () if labels is _NO_LABELS else (labels, *more)
            inside = ", ".join(repr(label) for label in given[:4]) + (", …" if len(given) > 4 else "," if len(given) == 1 else "") if given else "'a', 'b'"
            raise InvalidType(
                f"Categories takes the labels as one tuple: Categories(({inside})); got {len(given)} positional arguments",
                parameter="labels",
                value=given,
            )
        if isinstance(labels, str | bytes):
            raise InvalidType(
                f"labels={labels!r} is a string, which would be split into its characters; pass a tuple of labels: "
                f"Categories(({labels!r},)) for one label, or Categories(({', '.join(repr(c) for c in labels[:3])}{', …' if len(labels) > 3 else ''})) for its characters",
                parameter="labels",
                value=labels,
            )
        try:
            iterator = iter(labels)
        except TypeError:
            raise InvalidType(f"labels={describe(labels)} must be a tuple of labels, e.g. Categories(('a', 'b'))", parameter="labels", value=labels) from None
        object.__setattr__(self, "labels", tuple(iterator))
        self.__post_init__()

    def __post_init__(self) -> None:
        labels = tuple(self.labels)
        if not labels:
            raise InvalidArgument("Categories() needs at least one label", parameter="labels", value=labels)
        try:
            index = {label: i for i, label in enumerate(labels)}
        except TypeError:
            raise InvalidType(f"labels={describe(labels)} must be hashable", parameter="labels", value=labels) from None
        if len(index) != len(labels):
            raise InvalidArgument(f"labels={describe(labels)} has duplicates", parameter="labels", value=labels)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "_index", index)

    def code(self, label: Hashable) -> int:
        """The integer code of ``label``."""
        return int(self.encode(label, name="label"))

    def encode(self, value: Any, *, name: str) -> Code:
        try:
            position = self._index.get(value)
        except TypeError:
            position = None
        if position is None:
            raise _outside(name, value, self)
        return position

    def decode(self, code: Code) -> Any:
        if isinstance(code, bool) or not _is_integer(code) or not 0 <= int(code) < len(self.labels):
            raise _outside("code", code, self)
        return self.labels[int(code)]

    def bounds(self) -> tuple[Fraction | None, Fraction | None]:
        return Fraction(0), Fraction(len(self.labels) - 1)

    @property
    def is_finite(self) -> bool:
        return True

    @property
    def size(self) -> int | None:
        return len(self.labels)

    def codes(self) -> tuple[Code, ...]:
        return tuple(range(len(self.labels)))

    def describe(self) -> str:
        return f"Categories({', '.join(repr(v) for v in self.labels)})"


@dataclass(frozen=True)
class Grid(Domain):
    """A finite set of rationals, e.g. candidate answers ``0, 1/4, …, 1``."""

    points: tuple[Any, ...]
    _index: dict[Fraction, int] = field(init=False, repr=False, compare=False, hash=False)

    sort = "real"

    def __post_init__(self) -> None:
        points = tuple(as_rational(p, name=f"points[{i}]") for i, p in enumerate(self.points))
        if not points:
            raise InvalidArgument("Grid() needs at least one point", parameter="points", value=points)
        index = {p: i for i, p in enumerate(sorted(points))}
        if len(index) != len(points):
            raise InvalidArgument(f"points={describe(points)} has duplicates", parameter="points", value=points)
        object.__setattr__(self, "points", tuple(index))
        object.__setattr__(self, "_index", index)

    def encode(self, value: Any, *, name: str) -> Code:
        code = as_rational(value, name=name)
        if code not in self._index:
            raise _outside(name, value, self)
        return code

    def position(self, code: Any) -> int:
        """The index of a grid point in :attr:`points` (a dictionary look-up)."""
        try:
            return self._index[Fraction(code)]
        except (KeyError, TypeError, ValueError):
            raise _outside("point", code, self) from None

    def bounds(self) -> tuple[Fraction | None, Fraction | None]:
        return self.points[0], self.points[-1]

    @property
    def is_finite(self) -> bool:
        return True

    @property
    def size(self) -> int | None:
        return len(self.points)

    def codes(self) -> tuple[Code, ...]:
        return self.points

    def describe(self) -> str:
        return f"Grid({', '.join(str(p) for p in self.points)})"


def _is_integer(value: Any) -> bool:
    if isinstance(value, int):
        return True
    try:
        return as_rational(value, name="value").denominator == 1 and not isinstance(value, float)
    except InvalidArgument:
        return False

