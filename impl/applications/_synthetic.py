"""The Blum–Ligett–Roth synthetic-data mechanism, exactly (spec: ``synthetic-mechanism``, ``synthetic-size``).

For ``D ⊂ {0,1}^k`` of ``n`` records and a finite class ``H`` of predicates on
``{0,1}^k``, the mechanism releases ``D̂ ∈ ({0,1}^k)^m`` with probability
proportional to ``e^{q(D, D̂)·ε·n/2}``, ``q(D, D̂) = −max_h |Q_h(D) − Q_h(D̂)|``.

``q`` depends on ``D̂`` only through its multiset of records, so the outputs
are enumerated as multisets — count vectors ``c`` over the ``2^k`` records
with ``Σ c = m`` — with the multinomial coefficient ``m! / Π c_x!`` as base
measure: the distribution over multisets is exactly the source's distribution
over ordered tuples, aggregated.  The enumeration is streamed: only the
*levels* (distinct values of ``q`` with their total multinomial weight) are
kept, so memory is bounded by the number of levels, not of outputs.  A draw
picks a level exactly (lazy-bit inversion) and then a multiset within it with
probability proportional to its multinomial count (exact integer sampling over
a second streamed pass).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import factorial
from typing import Any

import numpy as np
import sympy

from expmech.spec import InvalidArgument
from expmech.spec.internal import describe

from ..exact._exactreal import ExpRatio
from ..exact._expsum import ExpSum
from ..quality._inputs import check_epsilon
from ..sampling._inversion import InversionTable
from ..sampling._random import resolve_rng

__all__ = ["Query", "SyntheticDataMechanism", "conjunctions", "halfspaces"]

Record = tuple[int, ...]


@dataclass(frozen=True)
class Query:
    """A named predicate ``h`` on ``{0,1}^k`` records; ``Q_h(D)`` is the fraction of D satisfying it.

    ``expression`` builds the same predicate in the spec language from the
    record's bit symbols (for the sensitivity proof).
    """

    name: str
    predicate: Callable[[Record], bool]
    expression: Callable[[Sequence[Any]], Any]


def halfspaces(k: int, grid: Sequence[int] = (-1, 0, 1)) -> list[Query]:
    """The source's running example: ``π₁x₁ + … + π_{k−1}x_{k−1} >= x_k`` for π on ``grid^{k−1}``."""
    _check_k(k)
    if k < 2:
        raise InvalidArgument(f"k={k} must be >= 2 for halfspaces", parameter="k", value=k)
    queries = []
    for pi in itertools.product(grid, repeat=k - 1):
        coefficients = tuple(pi)
        queries.append(
            Query(
                f"{'+'.join(f'{p}*x{i + 1}' for i, p in enumerate(coefficients))}>=x{k}",
                _halfspace_predicate(coefficients),
                _halfspace_expression(coefficients),
            )
        )
    return queries


def conjunctions(k: int, width: int = 2) -> list[Query]:
    """Conjunctions of up to ``width`` positive literals ``x_i ∧ x_j ∧ …``."""
    _check_k(k)
    queries = []
    for size in range(1, width + 1):
        for subset in itertools.combinations(range(k), size):
            queries.append(
                Query("∧".join(f"x{i + 1}" for i in subset), _conjunction_predicate(subset), _conjunction_expression(subset))
            )
    return queries


def _halfspace_predicate(c: tuple[int, ...]) -> Callable[[Record], bool]:
    return lambda x: sum(p * v for p, v in zip(c, x)) >= x[-1]


def _halfspace_expression(c: tuple[int, ...]) -> Callable[[Sequence[Any]], Any]:
    return lambda xs: sympy.Ge(sum((p * v for p, v in zip(c, xs)), sympy.Integer(0)), xs[-1])


def _conjunction_predicate(subset: tuple[int, ...]) -> Callable[[Record], bool]:
    return lambda x: all(x[i] for i in subset)


def _conjunction_expression(subset: tuple[int, ...]) -> Callable[[Sequence[Any]], Any]:
    return lambda xs: sympy.And(*[sympy.Eq(xs[i], 1) for i in subset])


def _check_k(k: Any) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidArgument(f"k={describe(k)} must be an int >= 1", parameter="k", value=k)


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    """Every vector of ``parts`` non-negative ints summing to ``total``, lexicographically, streamed."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total, -1, -1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


@dataclass(frozen=True)
class _Tables:
    """Every multiset of one (m, 2^k, H): count vectors, multinomial counts, and ``Σ_x h(x)·c_x`` per query."""

    counts: np.ndarray  # N × 2^k, in _compositions order
    multiplicities: np.ndarray  # N (int64, or Python ints when m! is large)
    answers: np.ndarray  # N × |H|: how many synthetic records satisfy each query


def _composition_matrix(total: int, parts: int) -> np.ndarray:
    """The rows of :func:`_compositions` (``total`` into ``parts``) as one array, in the same order."""
    dtype = np.int16 if total < (1 << 15) else np.int64
    memo: dict[tuple[int, int], np.ndarray] = {}

    def build(rest: int, width: int) -> np.ndarray:
        key = (rest, width)
        if key not in memo:
            if width == 1:
                memo[key] = np.array([[rest]], dtype=dtype)
            else:
                blocks = []
                for first in range(rest, -1, -1):
                    tail = build(rest - first, width - 1)
                    head = np.full((len(tail), 1), first, dtype=dtype)
                    blocks.append(np.hstack([head, tail]))
                memo[key] = np.vstack(blocks)
        return memo[key]

    return build(total, parts)


_TABLES: dict[tuple[int, int, bytes], _Tables] = {}


def _tables(m: int, records: int, matrix: np.ndarray) -> _Tables:
    """The multiset tables for (m, records, query matrix), shared by every dataset (a small cache)."""
    key = (m, records, matrix.tobytes() + str(matrix.shape).encode())
    cached = _TABLES.get(key)
    if cached is None:
        counts = _composition_matrix(m, records)
        factorials = [factorial(c) for c in range(m + 1)]
        top = factorial(m)
        if top < (1 << 62):  # then every Π c_x! <= m! fits as well
            multiplicities = top // np.prod(np.array(factorials, dtype=np.int64)[counts], axis=1)
        else:
            multiplicities = np.array([top // _product(factorials[c] for c in row) for row in counts.tolist()], dtype=object)
        # exact in float64: every entry is an integer <= m·2^k < 2^53
        answers = np.rint(counts.astype(np.float64) @ matrix.T.astype(np.float64))
        small = np.int8 if m < 128 else np.int32
        cached = _Tables(counts, multiplicities, answers.astype(small))
        if len(_TABLES) >= 4:
            _TABLES.pop(next(iter(_TABLES)))
        _TABLES[key] = cached
    return cached


def _product(values: Iterator[int]) -> int:
    result = 1
    for v in values:
        result *= v
    return result


def _group_sums(groups: np.ndarray, weights: np.ndarray, size: int) -> list[int]:
    """Exact ``Σ weights[i]`` per group label, as Python ints."""
    if weights.dtype != object and float(weights.sum(dtype=np.float64)) < 2.0**62:
        totals = np.zeros(size, dtype=np.int64)
        np.add.at(totals, groups, weights)
        return [int(t) for t in totals.tolist()]
    exact = [0] * size
    for g, w in zip(groups.tolist(), weights.tolist()):
        exact[g] += int(w)
    return exact


def _shattered(matrix: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Which rows of ``subsets`` (point indices) the queries (rows of ``matrix``) cut in every way."""
    size = subsets.shape[1]
    result = np.zeros(len(subsets), dtype=bool)
    step = max(1, (1 << 22) // max(1, matrix.shape[0] * max(size, 2**size)))
    for start in range(0, len(subsets), step):
        block = subsets[start : start + step]
        codes = np.zeros((matrix.shape[0], len(block)), dtype=np.int64)
        for j in range(size):
            codes |= matrix[:, block[:, j]] << j
        seen = np.zeros((len(block), 2**size), dtype=bool)
        seen[np.arange(len(block))[None, :], codes] = True
        result[start : start + step] = seen.all(axis=1)
    return result


class SyntheticDataMechanism:
    """The exponential mechanism over synthetic datasets of ``m`` records, exactly.

    ``data`` is a non-empty sequence of records, each a sequence of ``k`` bits
    (0/1 or bools); ``queries`` a non-empty list of :class:`Query`; ``epsilon``
    the target ε (the weight is ``e^{q·ε·n/2}``, so the mechanism is ε-DP by
    the source's argument, which :func:`expmech.proofs.certify` checks).
    """

    def __init__(self, data: Sequence[Sequence[Any]], *, k: int, m: int, epsilon: Any, queries: Sequence[Query]) -> None:
        _check_k(k)
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise InvalidArgument(f"m={describe(m)} must be an int >= 1", parameter="m", value=m)
        self.k, self.m = k, m
        self.epsilon = check_epsilon(epsilon)
        self.records: list[Record] = [tuple(itertools.product((0, 1), repeat=k))[i] for i in range(2**k)]
        rows = []
        for index, row in enumerate(data):
            bits = tuple(int(b) if isinstance(b, bool) or b in (0, 1) else -1 for b in row)
            if len(bits) != k or -1 in bits:
                raise InvalidArgument(f"data[{index}]={describe(row)} must be {k} bits (0/1)", parameter="data", value=row)
            rows.append(bits)
        if not rows:
            raise InvalidArgument("data must not be empty", parameter="data", value=data)
        if not queries:
            raise InvalidArgument("queries must not be empty", parameter="queries", value=queries)
        self.data = rows
        self.n = len(rows)
        self.queries = list(queries)
        # matrix[h, x] = h(record x); counts_on_data[h] = #{records of D satisfying h}
        self._matrix = np.array([[1 if q.predicate(x) else 0 for x in self.records] for q in self.queries], dtype=np.int64)
        type_counts = np.array([sum(1 for r in rows if r == x) for x in self.records], dtype=np.int64)
        self._on_data = self._matrix @ type_counts
        self._levels: dict[Fraction, int] | None = None
        self._gap_cache: np.ndarray | None = None
        self._tuples: list[tuple[int, ...]] | None = None

    @property
    def exponent_scale(self) -> Fraction:
        """``ε·n/2``: the mechanism's ε₀ (weight ``e^{ε₀ q}``)."""
        return self.epsilon * self.n / 2

    def multisets(self) -> Iterator[tuple[int, ...]]:
        """Every synthetic dataset as a count vector over the 2^k records, in :func:`_compositions` order."""
        return iter(self._count_tuples())

    def _count_tuples(self) -> list[tuple[int, ...]]:
        """The count vectors as tuples of ints, built once (the outputs and the base measure's keys share them)."""
        if self._tuples is None:
            self._tuples = list(map(tuple, _tables(self.m, len(self.records), self._matrix).counts.tolist()))
        return self._tuples

    def multiplicity(self, counts: Sequence[int]) -> int:
        """The number of ordered tuples with these counts: ``m! / Π c_x!``."""
        result = factorial(self.m)
        for c in counts:
            result //= factorial(c)
        return result

    def quality(self, counts: Sequence[int]) -> Fraction:
        """``q(D, D̂) = −max_h |Q_h(D) − Q_h(D̂)|`` exactly, for the multiset with these counts."""
        gap = int(np.max(np.abs(self.m * self._on_data - self.n * (self._matrix @ np.asarray(counts, dtype=np.int64)))))
        return -Fraction(gap, self.n * self.m)

    def _gaps(self) -> np.ndarray:
        """``n·m·|q|`` of every multiset (integers, in enumeration order), vectorised over the multisets."""
        if self._gap_cache is None:
            tables = _tables(self.m, len(self.records), self._matrix)
            bound = self.n * self.m  # |n·answer − m·Q_h(D)·n| <= n·m: the narrowest integer type that holds it
            dtype: Any = np.int16 if bound < (1 << 15) else np.int32 if bound < (1 << 31) else np.int64
            target = (self.m * self._on_data).astype(dtype)
            scale: Any = dtype(self.n)
            gaps = np.empty(len(tables.counts), dtype=np.int64)
            step = max(1, (1 << 20) // max(1, len(target)))
            for start in range(0, len(gaps), step):
                block = tables.answers[start : start + step].astype(dtype) * scale
                gaps[start : start + step] = np.max(np.abs(block - target), axis=1)
            self._gap_cache = gaps
        return self._gap_cache

    def levels(self) -> dict[Fraction, int]:
        """``{q: total multiplicity of the multisets with that q}``, from one vectorised pass (cached)."""
        if self._levels is None:
            tables = _tables(self.m, len(self.records), self._matrix)
            gaps = self._gaps()
            distinct, inverse = np.unique(gaps, return_inverse=True)
            totals = _group_sums(inverse, tables.multiplicities, len(distinct))
            scale = self.n * self.m
            self._levels = {-Fraction(int(g), scale): int(t) for g, t in zip(distinct.tolist(), totals)}
        return self._levels

    def _normaliser(self) -> ExpSum:
        scale = self.exponent_scale
        return ExpSum.weighted_exps((Fraction(count), scale * q) for q, count in self.levels().items())

    def probability(self, counts: Sequence[int]) -> ExpRatio:
        """The exact probability of releasing the multiset with these counts."""
        weight = ExpSum.weighted_exps([(Fraction(self.multiplicity(counts)), self.exponent_scale * self.quality(counts))])
        return ExpRatio._trusted(weight, self._normaliser())

    def probability_error_above(self, alpha: Any) -> ExpRatio:
        """Exactly ``Pr[max_h |Q_h(D) − Q_h(D̂)| > α]``, i.e. ``Pr[q < −α]``."""
        bound = Fraction(alpha)
        scale = self.exponent_scale
        bad = ExpSum.weighted_exps((Fraction(c), scale * q) for q, c in self.levels().items() if q < -bound)
        return ExpRatio._trusted(bad, self._normaliser())

    def probability_error_at_least(self, alpha: Any) -> ExpRatio:
        """Exactly ``Pr[q <= −α]`` (the source's event B)."""
        bound = Fraction(alpha)
        scale = self.exponent_scale
        bad = ExpSum.weighted_exps((Fraction(c), scale * q) for q, c in self.levels().items() if q <= -bound)
        return ExpRatio._trusted(bad, self._normaliser())

    def sample(self, *, rng: random.Random | None = None) -> list[Record]:
        """One exact release: a synthetic dataset of m records (sorted)."""
        generator = resolve_rng(rng)
        levels = sorted(self.levels().items())
        table = InversionTable([Fraction(c) for _, c in levels], [q for q, _ in levels], self.exponent_scale)
        level, total = levels[table.sample_once(generator)]
        pick = generator.randrange(total)
        tables = _tables(self.m, len(self.records), self._matrix)
        members = np.flatnonzero(self._gaps() == int(-level * self.n * self.m))
        running = itertools.accumulate(int(w) for w in tables.multiplicities[members].tolist())
        position = next(i for i, upto in enumerate(running) if pick < upto)
        chosen = int(members[position])
        counts = tables.counts[chosen].tolist()
        return [x for x, c in zip(self.records, counts) for _ in range(c)]

    def quality_function(self) -> Any:
        """``q`` in the spec language: bits ``x1…xk`` per record, outputs the counts ``c_…`` of each synthetic record.

        The output space holds every count vector in ``[0, m]^{2^k}``, a
        superset of the multisets (``Σ c = m``): a sensitivity bound proved over
        it holds for the mechanism's outputs.  Use :meth:`output_list` for them.
        """
        from expmech.spec import Booleans, IntRange, OutputSpace, QualityFunction, RecordSchema, count, size

        schema = RecordSchema({f"x{i + 1}": Booleans() for i in range(self.k)})
        outputs = OutputSpace({self._count_name(x): IntRange(0, self.m) for x in self.records})
        bits = [schema[f"x{i + 1}"] for i in range(self.k)]
        terms = []
        for query, row in zip(self.queries, self._matrix):
            # one n-ary Add (a running sum re-flattens it at every step: quadratic)
            on_synthetic = sympy.Add(*[outputs[self._count_name(x)] for h, x in zip(row, self.records) if h])
            # evaluate=False: sympy's Abs simplification (signsimp, ~50 ms a term) proves nothing here
            terms.append(sympy.Abs(count(query.expression(bits)) / size() - on_synthetic / self.m, evaluate=False))
        # evaluate=False: the terms are distinct |·| of affine forms, so sympy's pairwise
        # search for dominated arguments (quadratic, and seconds per pair) finds nothing to drop
        return QualityFunction(-sympy.Max(*terms, evaluate=False), schema=schema, outputs=outputs, name=f"synthetic-k{self.k}-m{self.m}")

    @staticmethod
    def _count_name(record: Record) -> str:
        return "c_" + "".join(str(b) for b in record)

    def output_list(self) -> list[tuple[int, ...]]:
        """The multisets as outputs of :meth:`quality_function` (count tuples), materialised."""
        return list(self._count_tuples())

    def base_measure(self) -> dict[tuple[int, ...], int]:
        """The multinomial counts (ints) as a base measure over :meth:`output_list`."""
        tables = _tables(self.m, len(self.records), self._matrix)
        return dict(zip(self._count_tuples(), tables.multiplicities.tolist()))

    def dataset_records(self) -> list[dict[str, bool]]:
        """The data as records of :meth:`quality_function`'s schema."""
        return [{f"x{i + 1}": bool(b) for i, b in enumerate(row)} for row in self.data]

    def vc_dimension(self, limit: int = 6) -> int:
        """The VC dimension of the query class on ``{0,1}^k``, capped at ``limit`` (exact, vectorised).

        A set is shattered when the queries cut it in all ``2^s`` ways; every
        subset of a shattered set is shattered, so the candidates of size
        ``s`` extend the shattered sets of size ``s − 1`` by a larger point.
        """
        matrix = self._matrix.astype(np.int64)  # H × K, 0/1
        points = matrix.shape[1]
        shattered = np.arange(points, dtype=np.int64).reshape(-1, 1)
        shattered = shattered[_shattered(matrix, shattered)]
        best = 1 if len(shattered) else 0
        for size in range(2, min(limit, points) + 1):
            if len(shattered) == 0 or 2**size > matrix.shape[0]:
                break
            last = shattered[:, -1]
            found = []
            for extra in range(points):
                grown = shattered[last < extra]
                if len(grown):
                    candidates = np.hstack([grown, np.full((len(grown), 1), extra, dtype=np.int64)])
                    found.append(candidates[_shattered(matrix, candidates)])
            shattered = np.vstack(found) if found else np.empty((0, size), dtype=np.int64)
            if len(shattered):
                best = size
        return best

    def source_sufficient_n(self, alpha: Any, delta: Any) -> float:
        """The source's sufficient size ``4/(εα)·(km + ln(1/δ))`` (a float, for display)."""
        import math

        return 4 / (float(self.epsilon) * float(alpha)) * (self.k * self.m + math.log(1 / float(delta)))
