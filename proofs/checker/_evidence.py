"""Witnesses and counterexamples re-evaluated exactly: neighbouring datasets (a list of records, or
``{"multiset": [[record, count], …]}`` for a dataset of any size) and what q does on them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ._domains import Malformed, integer, need
from ._format import Quality
from ._numbers import add, mul
from ._terms import Term, evaluate

__all__ = ["MAX_RECORDS", "Dataset", "neighbours", "pair_of", "quality_at", "read_dataset", "read_size"]

MAX_RECORDS = 100_000  # distinct records written in one dataset
Dataset = Counter[tuple[tuple[str, Fraction], ...]]


def read_dataset(quality: Quality, data: Any, where: str) -> Dataset:
    """The multiset of records a certificate writes (a list, or ``{"multiset": [[record, count], …]}``, a count past
    2^53 written ``{"integer": digits}``)."""
    if isinstance(data, dict):
        need(set(data) == {"multiset"} and isinstance(data["multiset"], list), where, "a dataset is a list or {'multiset': [[record, count], ...]}")
        items = data["multiset"]
        need(all(isinstance(i, list) and len(i) == 2 for i in items), where, "each item is [record, count]")
        pairs = [(item[0], read_size(item[1], where)) for item in items]
        need(all(count >= 1 for _, count in pairs), where, "each count is >= 1")
    else:
        need(isinstance(data, list), where, "a dataset is a list of records")
        pairs = [(record, 1) for record in data]
    need(len(pairs) <= MAX_RECORDS, where, f"more than {MAX_RECORDS} records written")
    out: Dataset = Counter()
    for i, (record, count) in enumerate(pairs):
        out[tuple(sorted(quality.record(record, f"{where}[{i}]").items()))] += count
    return out


def read_size(value: Any, where: str) -> int:
    """A number of records: an int, or ``{"integer": digits}`` past 2^53 (within the verifier's bit limit)."""
    size = integer(value, where)
    need(size is not None and size >= 0, where, "a number of records is an integer >= 0")
    return int(size)  # type: ignore[arg-type]


def neighbours(first: Dataset, second: Dataset, replace: bool) -> bool:
    """Whether the datasets are neighbours: one record replaced (same size), or one added."""
    size1, size2 = first.total(), second.total()
    if replace:
        return size1 == size2 >= 1 and (first - second).total() <= 1
    small, large = (first, second) if size1 < size2 else (second, first)
    return abs(size1 - size2) == 1 and not (small - large)


def quality_at(quality: Quality, dataset: Dataset, output: Mapping[str, Fraction]) -> Fraction | None:
    """``q(D, r)`` exactly, None where undefined (raises TooLarge past the verifier's bit limit)."""
    n = Fraction(dataset.total())

    def aggregate(term: Term) -> Any:
        if term.op == "Size":
            return n
        values = []
        for record, count in dataset.items():
            value = evaluate(term.args[0], {**dict(record), **output}, aggregate)
            if value is None:
                return None
            values.append((Fraction(int(value)) if isinstance(value, bool) else value, count))
        if term.op == "OrderStatistic":  # the k-th smallest (0-based), ties with their multiplicity
            rank = evaluate(term.args[1], dict(output), aggregate)
            if not isinstance(rank, Fraction) or rank.denominator != 1 or not 0 <= rank < n:
                return None
            for value, count in sorted(values):
                rank -= count
                if rank < 0:
                    return value
        total = Fraction(0)
        for value, count in values:
            total = add(total, mul(Fraction(int(value != 0)) if term.op == "Count" else value, Fraction(count)))
        return None if term.op == "Mean" and n == 0 else total / n if term.op == "Mean" else total

    value = evaluate(quality.expr, dict(output), aggregate)
    if isinstance(value, bool):
        return Fraction(int(value))
    return value


def pair_of(quality: Quality, data: Any, where: str, replace: bool) -> tuple[Dataset, Dataset]:
    """The two datasets of a witness or counterexample, checked to be neighbours."""
    need(isinstance(data, dict), where, "not an object")
    first, second = read_dataset(quality, data.get("dataset1"), where + ".dataset1"), read_dataset(quality, data.get("dataset2"), where + ".dataset2")
    if not neighbours(first, second, replace):
        raise Malformed(f"{where}: the datasets are not neighbours under {'replace-one' if replace else 'add-remove'}")
    return first, second
