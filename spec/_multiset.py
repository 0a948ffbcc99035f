"""Datasets given by counts: each distinct record with how many times it occurs, at any size.

A quality function of the language does not see the order of the records, so
a dataset is a multiset.  :class:`Multiset` writes one compactly — ``[5] ×
2⁶² + [0]`` is two entries, not 2⁶² + 1 records — and the interpreter
evaluates every aggregate on it from the counts (``count(p) = Σ mᵢ·[p(xᵢ)]``,
an order statistic by cumulative counts), exactly, at any size.  This is how
a counterexample that only exists past a size limit such as 2⁶² is written
down and re-checked.

:class:`WeightedRecords` is its encoded form, what the interpreter reads; it
refuses ``len()`` and iteration, so no code that expects a list of records
can read it as one by mistake.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import sympy

from ._errors import InvalidArgument, InvalidType, describe, readable

__all__ = ["Multiset", "WeightedRecords", "record_count"]

Env = dict[sympy.Symbol, Any]

#: The most distinct records a multiset may hold (its counts are unbounded).
MAX_DISTINCT = 10_000


class Multiset:
    """A dataset as distinct records with their counts: ``Multiset([(5, 2**62), (0, 1)])``.

    ``entries`` is an iterable of ``(record, count)`` pairs or a mapping from
    (hashable) records to counts; counts are ints >= 1 of any size, and equal
    records are merged (order of first appearance kept).  ``size`` is the
    number of records, ``items()`` the pairs.  A quality function accepts it
    wherever it accepts a list of records (``q(Multiset(...), r)``); it is not
    a sequence: ``len()`` would overflow past 2⁶³ and listing it is what it
    avoids.
    """

    __slots__ = ("_items", "_size")

    def __init__(self, entries: Iterable[tuple[Any, int]] | Mapping[Any, int]) -> None:
        pairs = list(entries.items()) if isinstance(entries, Mapping) else list(entries)
        merged: list[list[Any]] = []
        for index, pair in enumerate(pairs):
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise InvalidType(f"entries[{index}]={describe(pair)} must be a (record, count) pair", parameter="entries", value=pair)
            record, count = pair
            if isinstance(count, bool) or not isinstance(count, int) or count < 1:
                raise InvalidArgument(f"entries[{index}] has count={describe(count)}; a count is an int >= 1", parameter="entries", value=count)
            for kept in merged:
                if kept[0] == record:
                    kept[1] += count
                    break
            else:
                merged.append([record, count])
        if len(merged) > MAX_DISTINCT:
            raise InvalidArgument(f"a Multiset holds at most {MAX_DISTINCT} distinct records, not {len(merged)}", parameter="entries", value=len(merged))
        self._items = tuple((record, count) for record, count in merged)
        self._size = sum(count for _, count in merged)

    @property
    def size(self) -> int:
        """The number of records, counts included."""
        return self._size

    def items(self) -> tuple[tuple[Any, int], ...]:
        """``(record, count)`` for each distinct record."""
        return self._items

    def listed(self, limit: int = 10**6) -> list[Any]:
        """Every record, repeated by its count; refused above ``limit`` records."""
        if self._size > limit:
            raise InvalidArgument(f"a Multiset of {self._size} records is not listed (limit {limit})", parameter="limit", value=limit)
        return [record for record, count in self._items for _ in range(count)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Multiset):
            return NotImplemented
        return self._size == other._size and all(any(r == s and c == d for s, d in other._items) for r, c in self._items)

    def __hash__(self) -> int:
        return hash(self._size)

    def __repr__(self) -> str:
        return f"Multiset({readable(list(self._items))})"

    def __str__(self) -> str:
        parts = [readable(record) if count == 1 else f"{readable(record)} ×{count}" for record, count in self._items]
        return "[" + ", ".join(parts) + "]"


class WeightedRecords:
    """Encoded records with their counts: what the interpreter reads for a :class:`Multiset`."""

    __slots__ = ("pairs", "size")

    def __init__(self, pairs: Iterable[tuple[Env, int]]) -> None:
        self.pairs = tuple(pairs)
        self.size = sum(count for _, count in self.pairs)

    def __len__(self) -> int:
        raise TypeError("WeightedRecords have no len(); read .size (it may exceed 2**63)")

    def __iter__(self) -> Any:
        raise TypeError("WeightedRecords are not a list of records; read .pairs")


def record_count(records: Any) -> int:
    """The number of records of a list of encoded records or of :class:`WeightedRecords`."""
    return records.size if type(records) is WeightedRecords else len(records)
