"""Exact search over small neighbouring datasets: witnesses, counterexamples, bounded checks.

Datasets are multisets of records (order does not change a quality function of
the language), enumerated up to a size; each is scored once for every output,
exactly, and neighbouring pairs are compared by table look-up.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import Neighbours, QualityFunction

__all__ = ["Pair", "SearchSummary", "all_records", "count_multisets", "decode_record", "merge", "neighbouring_scores", "record_space_size", "search_pairs"]

Codes = dict[sympy.Symbol, Any]


@dataclass(frozen=True)
class Pair:
    """Two neighbouring datasets (as record-code tuples), an output, and the exact |q(D1, r) − q(D2, r)|."""

    first: tuple[int, ...]  # indices into the record list
    second: tuple[int, ...]
    output: Hashable
    difference: Fraction


@dataclass(frozen=True)
class SearchSummary:
    """The largest difference per dataset size, and every size's maximising pair."""

    best: dict[int, Pair]
    records: list[Codes]
    datasets: int
    exhaustive: bool


def record_space_size(quality: QualityFunction) -> int | None:
    """The number of distinct records, or None when a field's domain is infinite."""
    total = 1
    for _, _, domain in quality.schema.items():
        if not domain.is_finite:
            return None
        total *= len(domain.codes())
    return total


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


def count_multisets(records: int, size: int) -> int:
    """The number of multisets of ``size`` drawn from ``records`` kinds."""
    from math import comb

    return comb(records + size - 1, size)


def neighbouring_scores(
    quality: QualityFunction,
    records: list[Codes],
    outputs: Sequence[Hashable],
    neighbours: Neighbours,
    size: int,
) -> Iterator[tuple[tuple[int, ...], tuple[int, ...], list[Fraction], list[Fraction]]]:
    """Every neighbouring pair of multisets whose first dataset has ``size`` records, with exact scores.

    Under replace-one a pair is (D, D with one record replaced), both of size
    ``n``; under add-remove (D, D plus one record) with ``n = |D|``.  Each
    multiset is scored once for every output.
    """
    output_codes = [quality.output_space.encode(r) for r in outputs]
    sizes = [size, size + 1] if neighbours is Neighbours.ADD_REMOVE else [size]
    scores: dict[tuple[int, ...], list[Fraction]] = {}
    for k in sizes:
        for multiset in itertools.combinations_with_replacement(range(len(records)), k):
            data = [records[i] for i in multiset]
            scores[multiset] = quality.evaluate_many(data, output_codes)
    for multiset, first_scores in scores.items():
        if len(multiset) != size:
            continue
        if neighbours is Neighbours.REPLACE_ONE:
            for position in sorted(set(multiset)):
                rest = list(multiset)
                rest.remove(position)
                for replacement in range(len(records)):
                    if replacement != position:
                        other = tuple(sorted(rest + [replacement]))
                        yield multiset, other, first_scores, scores[other]
        else:
            for added in range(len(records)):
                other = tuple(sorted(list(multiset) + [added]))
                yield multiset, other, first_scores, scores[other]


def search_pairs(
    quality: QualityFunction,
    records: list[Codes],
    outputs: Sequence[Hashable],
    neighbours: Neighbours,
    size: int,
    *,
    exhaustive: bool,
) -> SearchSummary:
    """A neighbouring pair (first dataset of ``size`` records) with the largest exact difference over all outputs."""
    best: dict[int, Pair] = {}
    datasets = 0
    for first, second, a, b in neighbouring_scores(quality, records, outputs, neighbours, size):
        datasets += 1
        index, gap = max(enumerate(abs(x - y) for x, y in zip(a, b)), key=lambda item: item[1])
        current = best.get(size)
        if current is None or gap > current.difference:
            best[size] = Pair(first, second, outputs[index], gap)
    return SearchSummary(best, records, datasets, exhaustive)


def merge(summaries: list[SearchSummary]) -> SearchSummary | None:
    """One summary over several sizes (the records must be the same list)."""
    if not summaries:
        return None
    best: dict[int, Pair] = {}
    for summary in summaries:
        best.update(summary.best)
    first = summaries[0]
    return SearchSummary(best, first.records, sum(s.datasets for s in summaries), all(s.exhaustive for s in summaries))
