"""Exact search over small neighbouring datasets: witnesses, counterexamples, bounded checks.

Datasets are multisets of records (order does not change a quality function of
the language).  Each multiset is scored once for every output, exactly; the
scores are then put over a common denominator as integers, so comparing
neighbouring pairs is integer array arithmetic (numpy ``int64`` when every
scaled score fits, Python integers in an object array otherwise) — exact
either way, and one vectorised pass instead of a loop over pairs of
Fractions.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from expmech.impl.internal import VectorisedQuality
from expmech.spec import Neighbours, QualityFunction

__all__ = [
    "Pair",
    "ScoreTable",
    "SearchSummary",
    "all_records",
    "count_multisets",
    "decode_output",
    "decode_record",
    "neighbour_index_pairs",
    "record_space_size",
    "score_table",
    "search_pairs",
]

Codes = dict[sympy.Symbol, Any]
_CHUNK = 1 << 15
_INT64_SAFE = 1 << 61


@dataclass(frozen=True)
class Pair:
    """Two neighbouring datasets (record-index tuples), an output index, and the exact |q(D1, r) − q(D2, r)|."""

    first: tuple[int, ...]
    second: tuple[int, ...]
    output: int
    difference: Fraction


@dataclass(frozen=True)
class SearchSummary:
    """The largest difference per dataset size (of the first, smaller dataset), over the records and outputs searched."""

    best: dict[int, Pair]
    records: list[Codes]
    outputs: Sequence[Codes]
    datasets: int
    exhaustive: bool


def record_space_size(quality: QualityFunction) -> int | None:
    """The number of distinct records, or None when a field's domain is infinite."""
    return quality.schema.size


def all_records(quality: QualityFunction) -> list[Codes]:
    """Every record of a finite schema, as codes."""
    symbols = [sym for _, sym, _ in quality.schema.items()]
    values = [domain.codes() for _, _, domain in quality.schema.items()]
    return [dict(zip(symbols, combo)) for combo in itertools.product(*values)]


def decode_record(quality: QualityFunction, codes: Codes) -> Any:
    """User-facing form of a record: a bare value for one field, else a dict."""
    items = list(quality.schema.items())
    if len(items) == 1:
        _, sym, domain = items[0]
        return domain.decode(codes[sym])
    return {name: domain.decode(codes[sym]) for name, sym, domain in items}


def decode_output(quality: QualityFunction, codes: Codes) -> Hashable:
    """User-facing form of an output: a bare value for one variable, else a tuple."""
    values = tuple(domain.decode(codes[sym]) for _, sym, domain in quality.output_space.items())
    return values[0] if len(values) == 1 else values


def count_multisets(records: int, size: int) -> int:
    """The number of multisets of ``size`` drawn from ``records`` kinds."""
    return math.comb(records + size - 1, size)


@dataclass
class ScoreTable:
    """Exact scores of multisets (rows) at outputs (columns), as integers over one denominator."""

    rows: dict[tuple[int, ...], int]
    values: np.ndarray
    denominator: int

    def fraction(self, row: int, column: int) -> Fraction:
        """One score, exactly."""
        return Fraction(int(self.values[row, column]), self.denominator)


def score_table(quality: QualityFunction, records: list[Codes], outputs: Sequence[Codes], multisets: Sequence[tuple[int, ...]]) -> ScoreTable:
    """Score every multiset at every output exactly (QualityError propagates).

    All multisets at once: the vectorised exact evaluator of ``expmech.impl``
    (cross-checked against the spec interpreter), over a count matrix.
    """
    rows: dict[tuple[int, ...], int] = {}
    for multiset in multisets:
        if multiset not in rows:
            rows[multiset] = len(rows)
    counts = np.zeros((len(rows), len(records)), dtype=np.int64)
    for multiset, row in rows.items():
        for index in multiset:
            counts[row, index] += 1
    evaluator = VectorisedQuality(quality)
    matrix = evaluator.evaluate(evaluator.records(records), counts, evaluator.output_codes(outputs))
    matrix = matrix.shared()
    values = np.ascontiguousarray(np.broadcast_to(matrix.num, (len(rows), len(outputs))))
    if values.dtype != object and matrix.bound >= _INT64_SAFE:
        values = values.astype(object)
    return ScoreTable(rows, values, int(matrix.den))


def _multisets(count: int, size: int) -> Iterator[tuple[int, ...]]:
    return itertools.combinations_with_replacement(range(count), size)


def neighbour_index_pairs(records: int, relation: Neighbours, size: int) -> Iterator[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every neighbouring pair of multisets whose first has ``size`` records (replace-one pairs once each way)."""
    for multiset in _multisets(records, size):
        if relation is Neighbours.REPLACE_ONE:
            for position in sorted(set(multiset)):
                rest = list(multiset)
                rest.remove(position)
                for replacement in range(position + 1, records):
                    yield multiset, tuple(sorted(rest + [replacement]))
        else:
            for added in range(records):
                yield multiset, tuple(sorted(multiset + (added,)))


def search_pairs(
    quality: QualityFunction,
    records: list[Codes],
    outputs: Sequence[Codes],
    relation: Neighbours,
    sizes: Sequence[int],
    *,
    exhaustive: bool,
) -> SearchSummary:
    """For each size, the neighbouring pair (first dataset of that size) with the largest exact difference over the outputs."""
    needed: list[tuple[int, ...]] = []
    for size in sizes:
        needed.extend(_multisets(len(records), size))
        if relation is Neighbours.ADD_REMOVE:
            needed.extend(_multisets(len(records), size + 1))
    table = score_table(quality, records, outputs, needed)
    best: dict[int, Pair] = {}
    for size in sizes:
        pairs = list(neighbour_index_pairs(len(records), relation, size))
        for start in range(0, len(pairs), _CHUNK):
            chunk = pairs[start : start + _CHUNK]
            first = np.fromiter((table.rows[a] for a, _ in chunk), dtype=np.int64, count=len(chunk))
            second = np.fromiter((table.rows[b] for _, b in chunk), dtype=np.int64, count=len(chunk))
            gaps = np.abs(table.values[first] - table.values[second])
            columns = np.argmax(gaps, axis=1)
            largest = gaps[np.arange(len(chunk)), columns]
            index = int(np.argmax(largest))
            difference = Fraction(int(largest[index]), table.denominator)
            current = best.get(size)
            if current is None or difference > current.difference:
                a, b = chunk[index]
                best[size] = Pair(a, b, int(columns[index]), difference)
    return SearchSummary(best, records, outputs, len(table.rows), exhaustive)
