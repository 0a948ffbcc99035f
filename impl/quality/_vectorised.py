"""Exact, vectorised evaluation of quality functions of the spec language.

:class:`VectorisedQuality` computes ``q(D, r)`` for *many* datasets ``D`` and
*many* outputs ``r`` at once, exactly, with numpy integer arrays
(:class:`~expmech.impl.exact._rationals.RationalArray`) instead of one ``Fraction``
at a time.  It evaluates the same expression tree as the spec's interpreter
(``QualityFunction.evaluate_codes``), which stays the reference: the test
suite cross-checks the two on generated expressions.

Layout of a batch: the distinct records ``x_1 … x_K`` occurring in the
datasets; a count matrix ``C`` (``M × K``, ``C[j, i]`` copies of ``x_i`` in
dataset ``j``); the outputs ``r_1 … r_N``.  An aggregate of a per-record body
is then a matrix product, ``count(p)(D_j, r) = Σ_i C[j, i]·[p(x_i, r)]``, and
everything around the aggregates is elementwise over the ``M × N`` grid.
Datasets are multisets: a quality function of the language does not depend on
the order of the records.

Where the vectorised form has no value that the interpreter would not also
lack — a division by zero in a ``Piecewise`` branch that is not taken, or a
``Piecewise`` with no branch that applies — the whole batch is handed to the
spec interpreter, which gives its answer or its error.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Union, overload

import numpy as np
import sympy
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from expmech.spec import Booleans, Count, IntRange, InvalidType, Mean, OrderStatistic, QualityFunction, Size, Total
from expmech.spec.internal import EncodedOutputs, describe

from ..exact._rationals import LIMIT, RationalArray, Undefined, concatenate, integer_array

__all__ = ["OutputBatch", "RecordBatch", "VectorisedQuality"]

Value = Union[RationalArray, np.ndarray]  # rationals, or a boolean array
Codes = dict[sympy.Symbol, Any]

#: Elements of the largest intermediate array evaluated at once (outputs are chunked to stay below it).
CHUNK_ELEMENTS = 1 << 21


class _Fallback(Exception):
    """The vectorised form cannot stand in for the interpreter on this batch."""


@dataclass(frozen=True)
class OutputBatch:
    """Encoded outputs: one exact column (shape ``(N,)``) per output variable."""

    columns: Mapping[sympy.Symbol, RationalArray]
    size: int
    codes: Sequence[Codes] | None = None  # the interpreter's per-output codes, when already known
    #: What depends on the outputs alone (the stacked output matrix, linear forms in them), kept across
    #: evaluations of this batch on many datasets; a slice starts with its own.
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def slice(self, start: int, stop: int) -> OutputBatch:
        """The outputs ``start … stop − 1``."""
        return OutputBatch({s: c[start:stop] for s, c in self.columns.items()}, max(0, min(stop, self.size) - start),
                           None if self.codes is None else self.codes[start:stop])


@dataclass(frozen=True)
class RecordBatch:
    """Distinct encoded records: one exact column (shape ``(K,)``) per field, and their codes."""

    columns: Mapping[sympy.Symbol, RationalArray]
    codes: Sequence[Codes]

    @property
    def size(self) -> int:
        """The number of distinct records ``K``."""
        return len(self.codes)


class _OneFieldCodes(Sequence[Codes]):
    """The codes ``{symbol: value}`` of records of one field, made as they are read (the interpreter's fallback alone
    reads them)."""

    __slots__ = ("_symbol", "_values")

    def __init__(self, symbol: sympy.Symbol, values: list[int]) -> None:
        self._symbol, self._values = symbol, values

    def __len__(self) -> int:
        return len(self._values)

    @overload
    def __getitem__(self, index: int) -> Codes: ...

    @overload
    def __getitem__(self, index: slice) -> list[Codes]: ...

    def __getitem__(self, index: int | slice) -> Codes | list[Codes]:
        if isinstance(index, slice):
            return [{self._symbol: value} for value in self._values[index]]
        return {self._symbol: self._values[index]}


@dataclass
class _Env:
    counts: np.ndarray  # M × K
    fields: Mapping[sympy.Symbol, RationalArray]  # each K × 1
    outputs: Mapping[sympy.Symbol, RationalArray]  # each 1 × N
    sizes: RationalArray  # M × 1
    size_bound: int  # the largest dataset size
    #: The batch's cache (OutputBatch.cache): values that depend on the outputs alone, e.g. the linear
    #: forms of a _LinearForms (key: the forms object and a group of rows) and the stacked output matrix.
    shared: dict[Any, Any] = field(default_factory=dict)
    local: dict[Any, Any] = field(default_factory=dict)  # the same for this evaluation only, past the batch's cache limit

    def output_matrix(self) -> tuple[np.ndarray, dict[sympy.Symbol, int], int] | None:
        """The output columns stacked as a float64 ``V × N`` matrix, their row indices and ``max |value|``.

        Only when every output column is an int64 integer column (denominator
        1) of magnitude below ``2^53``, so each value is exact in float64;
        None otherwise.  Built once per batch.
        """
        if "stacked" not in self.shared:
            columns = list(self.outputs.items())
            size = max((c.num.size for _, c in columns), default=0)
            plain = all(type(c.den) is int and c.den == 1 and c.num.dtype == np.int64 and c.num.size == size for _, c in columns)
            largest = max((c.bound for _, c in columns), default=0)
            if columns and size and plain and largest < _FLOAT_EXACT:
                matrix = np.vstack([c.num.reshape(-1) for _, c in columns]).astype(np.float64)
                self.shared["stacked"] = (matrix, {symbol: i for i, (symbol, _) in enumerate(columns)}, largest)
            else:
                self.shared["stacked"] = None
        return self.shared["stacked"]  # type: ignore[no-any-return]


#: Integers below this are exact in float64, and so are sums and products of them that stay below it.
_FLOAT_EXACT = 1 << 53
#: Elements of the float64 block of linear forms computed at once (see _LinearForms).
_LINEAR_BLOCK = 1 << 22
#: Bytes of linear forms an OutputBatch keeps across evaluations (beyond them, forms are recomputed per evaluation).
_CACHE_LIMIT = 1 << 26
_CACHE_BYTES = "linear-form bytes"


Node = Callable[[_Env], Value]


class VectorisedQuality:
    """The exact vectorised evaluator of one :class:`~expmech.spec.QualityFunction`.

    ``evaluate(records, counts, outputs)`` returns the exact ``M × N`` matrix
    ``q(D_j, r_k)`` as a :class:`RationalArray`; ``scores(dataset, outputs)``
    the row for one dataset (validated like ``quality(dataset, r)``).  Results
    equal the spec interpreter's value for value.

    >>> from expmech.impl import CATALOGUE
    >>> median = CATALOGUE[0].quality
    >>> VectorisedQuality(median).scores([1, 2, 2, 5], median.outputs()).to_list()[:4]
    [-2, -1, 0, 0]
    """

    __slots__ = ("_quality", "_root", "_field_symbols", "_output_symbols", "_output_aggregates", "_one_int")

    def __init__(self, quality: QualityFunction) -> None:
        if not isinstance(quality, QualityFunction):
            raise InvalidType(f"quality={describe(quality)} must be an expmech.spec.QualityFunction", parameter="quality", value=quality)
        self._quality = quality
        self._field_symbols = tuple(quality.schema.symbols)
        fields = list(quality.schema.items())
        #: ``(lo, hi)`` of a schema of one integer field (None for an open end): a record is its own code there
        self._one_int = (fields[0][2].lo, fields[0][2].hi) if len(fields) == 1 and isinstance(fields[0][2], IntRange) else None
        self._output_symbols = frozenset(quality.output_space.symbols)
        self._output_aggregates = any(
            node.free_symbols & self._output_symbols for node in quality.expr.atoms(Count, Total, Mean, OrderStatistic)
        )
        self._root = _compile(quality.expr, _Scope(frozenset(self._field_symbols), _LinearForms()))

    @property
    def quality(self) -> QualityFunction:
        """The quality function evaluated."""
        return self._quality

    # -- encoding ------------------------------------------------------------------

    def encode_outputs(self, outputs: Sequence[Any]) -> OutputBatch:
        """Validate and encode outputs of the quality's output space (errors as ``output_space.encode``)."""
        space = self._quality.output_space
        items = list(space.items())
        values = list(outputs)
        columns = _fast_output_columns(items, values)
        if columns is not None:
            return OutputBatch(columns, len(values))
        codes = space.encode_all(values)
        return self.output_codes(codes)

    def output_codes(self, codes: Sequence[Codes]) -> OutputBatch:
        """Outputs already encoded (one ``{symbol: code}`` per output)."""
        symbols = [symbol for _, symbol, _ in self._quality.output_space.items()]
        if isinstance(codes, EncodedOutputs) and list(codes.symbols) == symbols:
            columns = {symbol: RationalArray.of(list(column)) for symbol, column in zip(codes.symbols, codes.columns())}
            return OutputBatch(columns, len(codes), codes)
        columns = {symbol: RationalArray.of([c[symbol] for c in codes]) for symbol in symbols}
        return OutputBatch(columns, len(codes), list(codes))

    def records(self, codes: Sequence[Codes]) -> RecordBatch:
        """A batch of distinct encoded records (as from ``quality.encode_dataset``), in the given order."""
        columns = {symbol: RationalArray.of([c[symbol] for c in codes]) for symbol in self._field_symbols}
        return RecordBatch(columns, list(codes))

    def dataset(self, dataset: Any) -> tuple[RecordBatch, np.ndarray]:
        """One dataset, validated, as its distinct records and a ``1 × K`` count matrix."""
        return self.datasets([dataset])

    def datasets(self, datasets: Sequence[Any]) -> tuple[RecordBatch, np.ndarray]:
        """Datasets, each validated in turn, as the distinct records of them all (in order of first
        occurrence) and an ``M × K`` count matrix (a row per dataset)."""
        symbols = self._field_symbols
        if len(datasets) == 1:
            tally = self._int_tally(datasets[0])
            if tally is not None:  # one dataset of plain ints: its distinct values are the records' codes
                values = list(tally)
                return RecordBatch({symbols[0]: RationalArray.of(values)}, _OneFieldCodes(symbols[0], values)), np.array([list(tally.values())], dtype=np.int64)
        columns: dict[tuple[Any, ...], int] = {}
        tallies = []
        for dataset in datasets:
            tally = self._int_tally(dataset)
            if tally is not None:
                tallies.append(Counter({columns.setdefault((value,), len(columns)): copies for value, copies in tally.items()}))
                continue
            encoded = self._quality.encode_dataset(dataset)
            tallies.append(Counter(columns.setdefault(tuple(record[s] for s in symbols), len(columns)) for record in encoded))
        counts = np.zeros((len(tallies), len(columns)), dtype=np.int64)
        for row, tally in enumerate(tallies):
            for column, copies in tally.items():
                counts[row, column] = copies
        distinct = [dict(zip(symbols, key)) for key in columns]
        return self.records(distinct), counts

    def _int_tally(self, dataset: Any) -> Counter[int] | None:
        """The records of a list (or tuple) of plain ints in the one integer field's range, counted; None for any
        other dataset, which ``encode_dataset`` then validates record by record (and names the one it refuses).

        Every element's type is checked, not only the distinct values': ``True`` and ``1.0`` hash as ``1``."""
        bounds = self._one_int
        if bounds is None or type(dataset) not in (list, tuple) or not dataset:
            return None
        if set(map(type, dataset)) != {int}:
            return None
        tally = Counter(dataset)
        lo, hi = bounds
        if (lo is not None and min(tally) < lo) or (hi is not None and max(tally) > hi):
            return None
        return tally

    # -- evaluation ------------------------------------------------------------------

    def scores(self, dataset: Any, outputs: OutputBatch | Sequence[Any]) -> RationalArray:
        """``q(dataset, r)`` for every output, exactly, as a 1-D :class:`RationalArray`."""
        batch = outputs if isinstance(outputs, OutputBatch) else self.encode_outputs(outputs)
        records, counts = self.dataset(dataset)
        result = self.evaluate(records, counts, batch)
        return result[0]

    def scores_many(self, datasets: Sequence[Any], outputs: OutputBatch | Sequence[Any]) -> RationalArray:
        """``q(D_j, r_k)`` for every dataset and output, exactly, as an ``M × N`` :class:`RationalArray`
        (row ``j`` equals ``scores(datasets[j], outputs)``), evaluated in one batch."""
        batch = outputs if isinstance(outputs, OutputBatch) else self.encode_outputs(outputs)
        records, counts = self.datasets(datasets)
        return self.evaluate(records, counts, batch)

    def evaluate(self, records: RecordBatch, counts: np.ndarray, outputs: OutputBatch) -> RationalArray:
        """The exact matrix ``q(D_j, r_k)``, shape ``(M, N)``.

        ``counts`` is an ``M × K`` matrix of non-negative integers (``K`` =
        ``records.size``); a row of zeros is the empty dataset.
        """
        counts = np.asarray(counts)
        if counts.ndim != 2 or counts.shape[1] != records.size:
            raise ValueError(f"counts has shape {counts.shape}; expected (M, {records.size})")
        if counts.size and counts.min() < 0:
            raise ValueError("counts must be non-negative")
        if counts.dtype == object or (counts.size and int(counts.sum(axis=1).max()) >= (1 << 40)):
            raise ValueError("datasets of 2**40 records or more are not supported")
        counts = counts.astype(np.int64)
        m, k, n = counts.shape[0], records.size, outputs.size
        width = max(k if self._output_aggregates else 1, m, 1)
        step = max(1, CHUNK_ELEMENTS // width)
        if n <= step:
            return self._evaluate_chunk(records, counts, outputs)
        parts = [self._evaluate_chunk(records, counts, outputs.slice(start, start + step)) for start in range(0, n, step)]
        return concatenate(parts, axis=1)

    def _evaluate_chunk(self, records: RecordBatch, counts: np.ndarray, outputs: OutputBatch) -> RationalArray:
        m, n = counts.shape[0], outputs.size
        env = _Env(
            counts=counts,
            fields={s: _column(c, axis=0) for s, c in records.columns.items()},
            outputs={s: _column(c, axis=1) for s, c in outputs.columns.items()},
            sizes=RationalArray.integers(counts.sum(axis=1, keepdims=True)),
            size_bound=int(counts.sum(axis=1).max()) if counts.size else 0,
            shared=outputs.cache,
        )
        try:
            value = self._root(env)
            if not isinstance(value, RationalArray):  # pragma: no cover - the spec checks q is numeric
                raise _Fallback
            return value.broadcast_to((m, n))
        except (Undefined, _Fallback):
            return self._interpret(records, counts, outputs)

    def _interpret(self, records: RecordBatch, counts: np.ndarray, outputs: OutputBatch) -> RationalArray:
        """The spec interpreter on every (dataset, output): the reference, for batches the vectorised form leaves."""
        quality = self._quality
        codes = outputs.codes if outputs.codes is not None else _codes_of(outputs)
        rows = []
        for row in counts.tolist():
            data = [record for record, c in zip(records.codes, row) for _ in range(int(c))]
            values = quality.evaluate_many(data, codes)
            rows.append(values)
        return RationalArray.of([v for row in rows for v in row]).reshape(len(rows), outputs.size)


def _codes_of(outputs: OutputBatch) -> list[Codes]:
    columns = {s: c.to_list() for s, c in outputs.columns.items()}
    return [{s: column[i] for s, column in columns.items()} for i in range(outputs.size)]


def _column(array: RationalArray, *, axis: int) -> RationalArray:
    shape = (-1, 1) if axis == 0 else (1, -1)
    den = array.den.reshape(shape) if isinstance(array.den, np.ndarray) else array.den
    return RationalArray(array.num.reshape(shape), den, array.bound)


def _fast_output_columns(items: list[tuple[str, sympy.Symbol, Any]], values: list[Any]) -> dict[sympy.Symbol, RationalArray] | None:
    """Columns for outputs whose variables are all IntRange/Booleans given as plain ints, else None.

    The outputs are checked and converted all at once (one pass over their
    types, one numpy conversion), not value by value.
    """
    if not values or not all(isinstance(domain, IntRange | Booleans) for _, _, domain in items):
        return None
    if len(items) == 1:
        flat: Any = values
    elif all(type(r) is tuple and len(r) == len(items) for r in values):
        flat = itertools.chain.from_iterable(values)
    else:
        return None
    if set(map(type, flat)) != {int}:
        return None
    matrix = integer_array(values)
    if matrix.dtype == object:
        return None
    matrix = matrix.reshape(len(values), len(items))
    lows, highs = matrix.min(axis=0), matrix.max(axis=0)
    columns = {}
    for j, (_, symbol, domain) in enumerate(items):
        lo, hi = (0, 1) if isinstance(domain, Booleans) else (domain.lo, domain.hi)
        if (lo is not None and int(lows[j]) < lo) or (hi is not None and int(highs[j]) > hi):
            return None
        columns[symbol] = RationalArray(np.ascontiguousarray(matrix[:, j]), 1)
    return columns


# -- compilation ----------------------------------------------------------------------


def _compile(expr: sympy.Basic, scope: _Scope) -> Node:
    if isinstance(expr, sympy.Rational):  # Integer included
        constant = RationalArray.constant(Fraction(int(expr.p), int(expr.q)))
        return lambda env: constant
    if isinstance(expr, BooleanTrue | BooleanFalse):
        truth = np.array(bool(expr))
        return lambda env: truth
    if isinstance(expr, sympy.Symbol):
        if expr in scope.fields:
            return lambda env: env.fields[expr]
        return lambda env: env.outputs[expr]
    if isinstance(expr, Size):
        return lambda env: env.sizes
    if isinstance(expr, Count | Total | Mean):
        return _aggregate(expr, _compile(expr.args[0], scope))
    if isinstance(expr, OrderStatistic | sympy.floor):
        return _interpreted
    if isinstance(expr, sympy.Piecewise):
        return _piecewise([(_compile(pair.expr, scope), _compile(pair.cond, scope)) for pair in expr.args])
    if isinstance(expr, sympy.Add):
        linear = _linear_in_outputs(expr.args, scope)
        if linear is not None:
            return linear
    parts = [_compile(arg, scope) for arg in expr.args]
    if isinstance(expr, sympy.Add):
        return lambda env: _fold(parts, env, _plus)
    if isinstance(expr, sympy.Mul):
        return lambda env: _fold(parts, env, lambda a, b: _number(a) * _number(b))
    if isinstance(expr, sympy.Pow):
        exponent = int(expr.exp)
        base = parts[0]
        return lambda env: _number(base(env)).power(exponent)
    if isinstance(expr, sympy.Abs):
        return lambda env: abs(_number(parts[0](env)))
    if isinstance(expr, sympy.Max | sympy.Min):
        larger = isinstance(expr, sympy.Max)

        def extreme(a: Value, b: Value) -> Value:
            x, y = _number(a), _number(b)
            fast = _extreme_int64(x, y, larger)
            if fast is not None:
                return fast
            order = x.compare(y)
            return x.select(order >= 0 if larger else order <= 0, y)

        return lambda env: _fold(parts, env, extreme)
    relations: dict[type, Callable[[np.ndarray], np.ndarray]] = {
        sympy.Eq: lambda s: s == 0,
        sympy.Ne: lambda s: s != 0,
        sympy.Lt: lambda s: s < 0,
        sympy.Le: lambda s: s <= 0,
        sympy.Gt: lambda s: s > 0,
        sympy.Ge: lambda s: s >= 0,
    }
    for kind, test in relations.items():
        if isinstance(expr, kind):
            left, right = parts
            return lambda env: test(_number(left(env)).compare(_number(right(env))))
    if isinstance(expr, sympy.And):
        return lambda env: _fold(parts, env, lambda a, b: np.logical_and(_truth(a), _truth(b)))
    if isinstance(expr, sympy.Or):
        return lambda env: _fold(parts, env, lambda a, b: np.logical_or(_truth(a), _truth(b)))
    if isinstance(expr, sympy.Not):
        return lambda env: np.logical_not(_truth(parts[0](env)))
    raise _Unsupported(type(expr).__name__)  # pragma: no cover - QualityFunction admits nothing else


class _Unsupported(TypeError):
    pass


def _interpreted(env: _Env) -> Value:
    """An order statistic or a floor: the batch goes to the spec interpreter (exact, value by value)."""
    raise _Fallback


def _extreme_int64(x: RationalArray, y: RationalArray, larger: bool) -> RationalArray | None:
    """``max(x, y)`` (or ``min``) elementwise by one numpy call, when both share a scalar denominator after scaling
    to their lcm and every scaled numerator provably fits int64 (bounds below ``LIMIT``); else None."""
    a, b = x.den, y.den
    if type(a) is not int or type(b) is not int or x.num.dtype != np.int64 or y.num.dtype != np.int64:
        return None
    common = a * b // math.gcd(a, b)
    fa, fb = common // a, common // b
    bound_x, bound_y = x.bound * fa, y.bound * fb
    if bound_x >= LIMIT or bound_y >= LIMIT or fa >= LIMIT or fb >= LIMIT:  # a zero bound does not make a huge factor fit
        return None
    left = x.num if fa == 1 else x.num * np.int64(fa)
    right = y.num if fb == 1 else y.num * np.int64(fb)
    pick = np.maximum if larger else np.minimum
    return RationalArray(pick(left, right), common, max(bound_x, bound_y))._reduced()


def _plus(a: Value, b: Value) -> Value:
    return _number(a) + _number(b)


#: An Add with at least this many terms ``c·r`` (rational c, output variable r) evaluates them as one product.
_LINEAR_TERMS = 4


class _LinearForms:
    """The linear forms ``Σ a_i·r_i`` (integers ``a_i``, output variables ``r_i``) of one quality, evaluated together.

    Each form is a row of an integer weight matrix ``W``; on a batch, ``W`` times
    the stacked output columns (:meth:`_Env.output_matrix`) is one float64
    matrix product (in blocks of rows of at most ``_LINEAR_BLOCK`` elements).
    It is exact for every form whose ``Σ|a_i| · max|r|`` is below ``2^53``:
    each weight, each value and every partial sum is then an integer below
    ``2^53``, which float64 adds and multiplies exactly, in any order and with
    or without fused multiply–add.  Other forms get None (the caller adds
    their terms one by one).
    """

    __slots__ = ("weights", "totals")

    def __init__(self) -> None:
        self.weights: list[list[tuple[int, sympy.Symbol]]] = []
        self.totals: list[int] = []  # Σ|a_i| of each form

    def register(self, weights: list[tuple[int, sympy.Symbol]]) -> int:
        """Add a form; returns its row."""
        self.weights.append(weights)
        self.totals.append(sum(abs(a) for a, _ in weights))
        return len(self.weights) - 1

    def row(self, env: _Env, row: int) -> tuple[np.ndarray, int] | None:
        """Row ``row`` on this batch as exact int64 values of shape ``(1, N)`` and a bound on them, or None."""
        stacked = env.output_matrix()
        if stacked is None:
            return None
        matrix, index, largest = stacked
        total = self.totals[row]
        if total * max(largest, 1) >= _FLOAT_EXACT:
            return None
        height = max(1, _LINEAR_BLOCK // max(matrix.shape[1], 1))
        group = row // height
        key = (self, group)
        values = env.shared.get(key)
        if values is None:
            values = env.local.get(key)
        if values is None:
            values = self._group(group, height, matrix, index, largest)
            used = env.shared.get(_CACHE_BYTES, 0) + values.nbytes
            if used <= _CACHE_LIMIT:  # kept for the batch's next datasets
                env.shared[key] = values
                env.shared[_CACHE_BYTES] = used
            else:
                env.local[key] = values
        return values[row - group * height].astype(np.int64).reshape(1, -1), total * largest

    def _group(self, group: int, height: int, matrix: np.ndarray, index: dict[sympy.Symbol, int], largest: int) -> np.ndarray:
        """Rows ``group·height …`` of ``W`` times the output matrix, as integers (rows not exact in float64: zeros, never read)."""
        rows = range(group * height, min(len(self.weights), (group + 1) * height))
        block = np.zeros((len(rows), matrix.shape[0]))
        for i, r in enumerate(rows):
            for a, symbol in self.weights[r]:
                block[i, index[symbol]] += a
        bounds = [self.totals[r] * max(largest, 1) for r in rows]
        exact = np.array([b < _FLOAT_EXACT for b in bounds])
        top = max((b for b in bounds if b < _FLOAT_EXACT), default=0)
        dtype = np.int16 if top < (1 << 15) else np.int32 if top < (1 << 31) else np.int64
        products = block @ matrix
        if not exact.all():
            products[~exact] = 0
        values = products.astype(dtype)  # exact rows: integers below 2^53, so exact in float64 and in dtype
        values.flags.writeable = False
        return values


@dataclass(frozen=True)
class _Scope:
    """What compilation needs besides the expression: the record fields and the quality's linear forms."""

    fields: frozenset[sympy.Symbol]
    linear: _LinearForms


def _linear_in_outputs(args: tuple[sympy.Basic, ...], scope: _Scope) -> Node | None:
    """A node for an Add with many terms ``c·r`` (rational ``c``, output variable ``r``), else None.

    Those terms are ``(Σ a_i·r_i) / d`` over a common denominator ``d``, a row
    of the quality's :class:`_LinearForms`, computed with the other linear
    forms in one exact matrix product; where that product is not shown exact,
    they are added one by one as in any other Add.  The remaining terms are
    added to the result exactly.
    """
    terms: list[tuple[Fraction, sympy.Symbol]] = []
    linear_args: list[sympy.Basic] = []
    others: list[sympy.Basic] = []
    for arg in args:
        coefficient, rest = arg.as_coeff_Mul()
        if isinstance(rest, sympy.Symbol) and rest not in scope.fields and isinstance(coefficient, sympy.Rational):
            terms.append((Fraction(int(coefficient.p), int(coefficient.q)), rest))
            linear_args.append(arg)
        else:
            others.append(arg)
    if len(terms) < _LINEAR_TERMS:
        return None
    denominator = math.lcm(*[c.denominator for c, _ in terms])
    row = scope.linear.register([(int(c * denominator), symbol) for c, symbol in terms])
    one_by_one = [_compile(arg, scope) for arg in linear_args]
    rest_parts = [_compile(arg, scope) for arg in others]
    forms = scope.linear

    def linear(env: _Env) -> Value:
        computed = forms.row(env, row)
        value: Value
        if computed is None:
            value = _fold(one_by_one, env, _plus)
        else:
            value = RationalArray(computed[0], denominator, computed[1])
        for part in rest_parts:
            value = _plus(value, part(env))
        return value

    return linear


def _fold(parts: list[Node], env: _Env, op: Callable[[Value, Value], Value]) -> Value:
    value = parts[0](env)
    for part in parts[1:]:
        value = op(value, part(env))
    return value


def _number(value: Value) -> RationalArray:
    """A boolean used as a number is 0/1, as in the interpreter (Python's ``True == 1``)."""
    if isinstance(value, RationalArray):
        return value
    return RationalArray(np.asarray(value, dtype=np.int64), 1)


def _truth(value: Value) -> np.ndarray:
    if isinstance(value, RationalArray):
        return value.num != 0
    return np.asarray(value, dtype=bool)


def _aggregate(expr: sympy.Basic, body: Node) -> Node:
    is_count, is_mean = isinstance(expr, Count), isinstance(expr, Mean)

    def aggregate(env: _Env) -> Value:
        value = body(env)
        k = env.counts.shape[1]
        if is_count:
            truth = _truth(value)
            columns = truth.shape[1] if truth.ndim == 2 else 1
            matrix = np.broadcast_to(truth, (k, columns)).astype(np.int64)
            return RationalArray.integers(env.counts @ matrix, bound=env.size_bound)
        number = _number(value)
        shape = number.shape
        columns = shape[1] if len(shape) == 2 else 1
        total = number.broadcast_to((k, columns)).integer_matmul(env.counts)
        return total * env.sizes.reciprocal() if is_mean else total

    return aggregate


def _piecewise(branches: list[tuple[Node, Node]]) -> Node:
    def piecewise(env: _Env) -> Value:
        conditions = [_truth(cond(env)) for _, cond in branches]
        covered = np.logical_or.reduce(np.broadcast_arrays(*conditions)) if len(conditions) > 1 else conditions[0]
        if not np.all(covered):
            raise _Fallback  # the interpreter raises its "no branch applies" error
        taken = np.zeros(np.broadcast_shapes(*[c.shape for c in conditions]), dtype=bool)
        result: RationalArray | None = None
        for (value, _), condition in zip(branches, conditions):
            chosen = np.logical_and(condition, np.logical_not(taken))
            taken = np.logical_or(taken, chosen)
            if not np.any(chosen):
                continue
            branch = _number(value(env))
            result = branch if result is None else branch.select(chosen, result)
        if result is None:  # nothing to choose for: an empty batch (no records)
            return _number(branches[0][0](env))
        return result

    return piecewise
