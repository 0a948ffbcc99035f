"""Concrete neighbouring pairs from the solver: q encoded exactly on datasets of a given size.

For a dataset size ``n`` the encoding has one z3 record per *kind* of the
other records, each kind repeated a fixed number of times, the changed record
(replace-one: ``a`` → ``b``; add-remove: ``a`` added), and the output.  Every
aggregate is then an exact sum — ``count(p) = Σ mᵢ·[p(kindᵢ, r)] + [p(a, r)]``,
``mean = total / n`` — and ``q`` on both datasets is a z3 term; a model of
``|q(D', r) − q(D, r)| > t`` *is* a pair of datasets.  With every kind
repeated once this is every dataset of size ``n``; for larger ``n`` a few
multiplicity patterns (all alike, one odd record out, two halves) keep the
query small while reaching the sizes where a claim and the bound cross.

Every pair found is re-evaluated with the exact interpreter before anyone
sees it, so a model that only the solver believes is dropped.  These queries
are a search, never evidence: they are not recorded.  A pair past the size
records can be listed holds its datasets by counts (:class:`~expmech.spec.internal.WeightedRecords`,
from :mod:`._symbolic`), evaluated the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.spec import Count, InvalidArgument, Mean, Neighbours, QualityError, Size, Total
from expmech.spec.internal import WeightedRecords

from ._encoding import Codes, codes_from_model, domain_constraint, variables
from ._rules import SEARCH_QUERY_COST, SEARCH_RLIMIT, Prover
from ._z3bridge import Translator, as_number, check, int_val, q

__all__ = ["ConcretePair", "RecordUnknowns", "confirm", "find_pair", "patterns", "search_sizes"]


@dataclass(frozen=True)
class ConcretePair:
    """Two neighbouring datasets as record codes, an output's codes, and the exact |q(D', r) − q(D, r)|.

    A dataset is a tuple of codes, or — for a pair too large to list — :class:`WeightedRecords`
    (distinct codes with their counts).
    """

    first: Any
    second: Any
    output: Codes
    difference: Fraction

    @property
    def size(self) -> int:
        """The size of the first (for add-remove, the smaller) dataset."""
        return self.first.size if type(self.first) is WeightedRecords else len(self.first)

    @property
    def compact(self) -> bool:
        """The datasets are held by counts (too large to list)."""
        return type(self.first) is WeightedRecords


def patterns(others: int) -> list[tuple[int, ...]]:
    """Multiplicity patterns for ``others`` records besides the changed one."""
    if others <= 0:
        return [()]
    if others <= 4:
        return [(1,) * others]
    half = others // 2
    found = [(others,), (others - 1, 1), (others - half, half), (others - 2, 1, 1)]
    unique: list[tuple[int, ...]] = []
    for pattern in found:
        if pattern not in unique:
            unique.append(pattern)
    return unique


class RecordUnknowns:
    """The record unknowns of an encoded pair: the changed record(s) and ``count`` kinds of the other records.

    Names are ``{prefix}a_…`` (and ``{prefix}b_…`` under replace-one) for the changed
    records and ``{prefix}k{i}_…`` for the kinds; ``constraints`` keep every one of them,
    and the output, inside their domains; :meth:`term` is an aggregate's per-record term.
    """

    def __init__(self, prover: Prover, prefix: str, count: int) -> None:
        schema = prover.quality.schema
        tags = ("a", "b") if prover.neighbours is Neighbours.REPLACE_ONE else ("a",)
        self.changed = {tag: variables(f"{prefix}{tag}_", schema) for tag in tags}
        self.kinds = [variables(f"{prefix}k{i}_", schema) for i in range(count)]
        self.constraints = list(prover.output_domain)
        for record in list(self.changed.values()) + self.kinds:
            self.constraints += [domain_constraint(record[sym], d) for _, sym, d in schema.items()]
        self._translators = {id(record): Translator({**record, **prover.output_vars}) for record in list(self.changed.values()) + self.kinds}

    def translator(self, record: dict[sympy.Symbol, Any]) -> Translator:
        """The translator over ``record`` (one of this encoding's) and the outputs."""
        return self._translators[id(record)]

    def sums(self, node: sympy.Basic, rest: list[Any]) -> tuple[Any, Any]:
        """``node``'s aggregate over both datasets, given the other records' contributions ``rest``."""
        if "b" in self.changed:  # replace-one: a → b
            return z3.Sum(*(rest + [self.term(node, self.changed["a"])])), z3.Sum(*(rest + [self.term(node, self.changed["b"])]))
        return (z3.Sum(*rest) if rest else int_val(0)), z3.Sum(*(rest + [self.term(node, self.changed["a"])]))

    def term(self, node: sympy.Basic, record: dict[sympy.Symbol, Any]) -> Any:
        """``node``'s per-record term at ``record``: ``[p]`` as 0/1 for a count, the body otherwise."""
        translator = self._translators[id(record)]
        if isinstance(node, Count):
            return z3.If(translator.condition(node.args[0]), int_val(1), int_val(0))
        return translator.number(node.args[0])


#: The largest dataset a concrete pair may have: past it the records are not listed (a model at n = 2**45 would
#: make a list of 2**45 records and end in MemoryError), so the search gives no pair there.
LARGEST_PAIR = 1_000_000


def find_pair(
    prover: Prover,
    size: int,
    threshold: Fraction,
    *,
    strict: bool = True,
    pattern: tuple[int, ...] | None = None,
    budget: int = SEARCH_RLIMIT,
) -> ConcretePair | None:
    """A concrete neighbouring pair with first dataset of ``size`` records and ``|Δq| > threshold`` (``>=`` if not strict).

    Returns None when the solver finds none within its budget or its model does
    not survive exact re-evaluation.
    """
    quality = prover.quality
    prover.last_search_unknown = False
    replace = prover.neighbours is Neighbours.REPLACE_ONE
    if replace and size < 1:
        return None
    if size > LARGEST_PAIR:
        return None  # a pair this large cannot be listed (nor written to a certificate): no concrete counterexample
    others = size - 1 if replace else size
    shape = pattern if pattern is not None else patterns(others)[0]
    if sum(shape) != others:
        raise InvalidArgument(f"pattern={shape} does not sum to {others}", parameter="pattern", value=shape)
    outputs = prover.output_vars
    unknowns = RecordUnknowns(prover, "", len(shape))
    changed, kinds, constraints, term = unknowns.changed, unknowns.kinds, unknowns.constraints, unknowns.term

    before: dict[sympy.Basic, Any] = {Size(): int_val(size)}
    after: dict[sympy.Basic, Any] = {Size(): int_val(size if replace else size + 1)}
    try:
        for node in sorted(quality.expr.atoms(Count, Total, Mean), key=sympy.default_sort_key):
            rest = [m * term(node, kind) if m != 1 else term(node, kind) for m, kind in zip(shape, kinds)]
            first, second = unknowns.sums(node, rest)
            if isinstance(node, Mean):
                if size == 0:
                    return None  # a mean of no records
                first = z3.ToReal(first) / size if z3.is_int(first) else first / size
                second = z3.ToReal(second) / (size if replace else size + 1) if z3.is_int(second) else second / (size if replace else size + 1)
            before[node], after[node] = first, second
        value_before = as_number(Translator({**before, **outputs})(quality.expr))
        value_after = as_number(Translator({**after, **outputs})(quality.expr))
    except InvalidArgument:
        return None
    difference = value_after - value_before
    bound = q(threshold)
    exceeds = z3.Or(difference > bound, -difference > bound) if strict else z3.Or(difference >= bound, -difference >= bound)
    budget = min(prover.rlimit, budget, prover.search_left)
    if budget <= 0:
        return None
    answer = check(constraints + [exceeds], rlimit=budget, timeout_ms=prover.timeout_ms, export=False)
    prover.search_left -= max(answer.rlimit_used, SEARCH_QUERY_COST)
    prover.last_search_unknown = answer.status == "unknown"
    if answer.status != "sat" or answer.model is None:
        return None
    model = answer.model
    output = codes_from_model(model, "out_", quality.output_space)
    records: dict[str, Codes] = {}
    for tag in changed:
        codes = codes_from_model(model, f"{tag}_", quality.schema)
        if codes is None:
            return None
        records[tag] = codes
    rest_records: list[Codes] = []
    for i, m in enumerate(shape):
        codes = codes_from_model(model, f"k{i}_", quality.schema)
        if codes is None:
            return None
        rest_records.extend([codes] * m)
    if output is None:
        return None
    if replace:
        first_data = tuple([records["a"]] + rest_records)
        second_data = tuple([records["b"]] + rest_records)
    else:
        first_data = tuple(rest_records)
        second_data = tuple(rest_records + [records["a"]])
    prover.remember(model)
    return confirm(prover, first_data, second_data, output, threshold, strict=strict)


def confirm(prover: Prover, first: Any, second: Any, output: Codes, threshold: Fraction, *, strict: bool) -> ConcretePair | None:
    """The pair (tuples of codes, or WeightedRecords), if its exact difference passes the threshold."""
    quality = prover.quality
    try:
        gap = abs(quality.evaluate_codes(_records(second), output) - quality.evaluate_codes(_records(first), output))
    except QualityError:
        return None
    if gap > threshold or (not strict and gap >= threshold):
        return ConcretePair(first, second, output, gap)
    return None


def _records(data: Any) -> Any:
    """Codes for the interpreter: WeightedRecords as they are, a tuple as a list."""
    return data if type(data) is WeightedRecords else list(data)


def search_sizes(
    prover: Prover,
    sizes: Iterable[int],
    threshold_at: Callable[[int], Fraction | None],
    *,
    strict: bool = True,
    all_patterns: bool = True,
    budget: int = SEARCH_RLIMIT,
) -> ConcretePair | None:
    """The first concrete pair found over ``sizes`` (each with its threshold), trying the multiplicity patterns.

    ``budget`` is the rlimit of each query (within the proof's search total)."""
    replace = prover.neighbours is Neighbours.REPLACE_ONE
    for size in sizes:
        if prover.search_left <= 0:
            return None
        threshold = threshold_at(size)
        if threshold is None:
            continue
        others = size - 1 if replace else size
        for pattern in patterns(others) if all_patterns else patterns(others)[:1]:
            found = find_pair(prover, size, threshold, strict=strict, pattern=pattern, budget=budget)
            if found is not None:
                return found
            if not all_patterns and prover.last_search_unknown:
                return None  # the solver gave up at this size: larger ones are no easier
    return None
