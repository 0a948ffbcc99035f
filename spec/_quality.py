"""Quality functions in the spec language: validation, canonical form, exact evaluation.

A :class:`QualityFunction` is an expression of the language (see
``expmech.spec._language``) together with the record schema and the output
space it ranges over.  It checks its expression once, has a canonical text and
a sha256 over it, and evaluates exactly: ``q(dataset, r)`` returns a
``Fraction`` computed by an interpreter of the expression over rationals, so it
plugs straight into ``expmech.impl.ExponentialMechanism``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

import sympy
from sympy.logic.boolalg import ITE
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from ._booleans import boolean_error, is_constant_boolean, record_free_error
from ._columns import RELATIONS, ColumnEvaluator, Unsupported, compile_columns
from ._domains import Categories
from ._errors import InvalidArgument, InvalidType, QualityError, describe
from ._language import AGGREGATES, Count, Mean, OrderStatistic, OutputSpace, RecordSchema, Size, Total, constant_condition, order_index, refuse_booleans
from ._multiset import Multiset, WeightedRecords, record_count

__all__ = ["QualityFunction"]

CANONICAL_VERSION = "expmech-quality/1"

Env = dict[sympy.Symbol, Any]
Evaluator = Callable[[Env, Sequence[Env]], Any]


class _SpecFunction:
    """What every function of the spec over records and outputs shares.

    Validation of the record schema, the output space and the expression (a
    numeric sympy expression of the language, checked by :func:`_check` with
    record fields allowed only ``inside`` what the subclass says, and
    ``Categories`` variables only compared with ``==`` / ``!=``), the
    canonical text ``version / schema / outputs / label: srepr`` and its sha256,
    and equality by canonical text.
    """

    __slots__ = ("_expr", "_schema", "_outputs", "_name", "_canonical", "_canonical_parts", "_field_symbols", "_output_symbols")

    def _setup(self, expr: Any, schema: RecordSchema, outputs: OutputSpace, name: str | None, *, parameter: str, version: str, inside: str | None) -> None:
        if not isinstance(schema, RecordSchema):
            raise InvalidType(f"schema={describe(schema)} must be a RecordSchema", parameter="schema", value=schema)
        if not isinstance(outputs, OutputSpace):
            raise InvalidType(f"outputs={describe(outputs)} must be an OutputSpace", parameter="outputs", value=outputs)
        clash = set(schema.names) & set(outputs.names)
        if clash:
            raise InvalidArgument(
                f"{sorted(clash)[0]!r} names both a record field and an output variable", parameter="outputs", value=sorted(clash)
            )
        try:
            value = sympy.sympify(expr, strict=True)
        except (sympy.SympifyError, TypeError) as error:
            raise InvalidType(f"{parameter}={describe(expr)} is not a sympy expression: {error}", parameter=parameter, value=expr) from None
        if is_constant_boolean(value):
            raise boolean_error(value, where=type(self).__name__, parameter=parameter)
        if not isinstance(value, sympy.Expr):
            raise InvalidType(f"{parameter}={describe(expr)} must be numeric, not a predicate", parameter=parameter, value=expr)
        refuse_booleans(value, where=type(self).__name__, parameter=parameter)
        self._expr = value
        self._schema = schema
        self._outputs = outputs
        self._name = name
        self._field_symbols = frozenset(schema.symbols)
        self._output_symbols = frozenset(outputs.symbols)
        _check(value, self._field_symbols, self._output_symbols, inside=inside)
        categories = {sym: domain for space in (schema, outputs) for _, sym, domain in space.items() if isinstance(domain, Categories)}
        if categories:
            _check_categories(value, categories)
        self._canonical: str | None = None  # written out on first use: srepr of a large expression is not free
        self._canonical_parts = (version, parameter)

    def _canonical_text(self) -> str:
        if self._canonical is None:
            version, parameter = self._canonical_parts
            self._canonical = "\n".join(
                [
                    version,
                    f"schema: {self._schema.describe()}",
                    f"outputs: {self._outputs.describe()}",
                    f"{parameter}: {sympy.srepr(self._expr)}",
                ]
            )
        return self._canonical

    # -- description ----------------------------------------------------------

    @property
    def expr(self) -> sympy.Expr:
        """The expression."""
        return self._expr

    @property
    def schema(self) -> RecordSchema:
        """The record schema."""
        return self._schema

    @property
    def output_space(self) -> OutputSpace:
        """The output space."""
        return self._outputs

    @property
    def name(self) -> str | None:
        """A label (not part of the canonical form)."""
        return self._name

    @property
    def canonical_text(self) -> str:
        """Schema, outputs and ``srepr`` of the expression, one per line, versioned."""
        return self._canonical_text()

    @property
    def sha256(self) -> str:
        """The sha256 hex digest of :attr:`canonical_text`."""
        return hashlib.sha256(self._canonical_text().encode("utf-8")).hexdigest()

    def outputs(self) -> tuple[Hashable, ...]:
        """Every output of a finite output space (bare values for one variable, else tuples)."""
        return self._outputs.outputs()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and other._canonical_text() == self._canonical_text()

    def __hash__(self) -> int:
        return hash(self._canonical_text())


class QualityFunction(_SpecFunction):
    """A quality function ``q(d, r)`` of the spec language over a schema and an output space.

    ``expr`` is a numeric sympy expression; ``schema`` a :class:`RecordSchema`;
    ``outputs`` an :class:`OutputSpace`.  Record fields may appear only inside
    aggregates, every other symbol must be an output variable, numbers must be
    exact (no sympy ``Float``), powers must have integer exponents, and only
    the language's operations may occur; otherwise :class:`InvalidArgument`
    (or :class:`InvalidType`) names the offending part.

    A ``Categories`` variable is encoded by label position, so it may only
    be compared with ``==`` / ``!=`` to a variable over the same labels or to
    a label's code; arithmetic or ordering on it is refused (it would
    silently compute with positions).

    Calling ``q(dataset, r)`` validates every record and ``r`` against their
    domains and returns an exact ``Fraction``.  Datasets are sequences of
    records (or a :class:`~expmech.spec.Multiset`, records with counts of any
    size); the empty dataset is allowed, and ``q`` raises
    :class:`QualityError` where it is undefined there (a ``mean``, a division
    by ``size()``, an order statistic).

    ``trace`` is the provenance of a quality traced from a Python function by
    :func:`expmech.spec.trace` (its source, sha256, the traced expression and
    how many datasets the two were compared on), else None.  It is not part of
    the canonical form: the function is the expression.
    """

    __slots__ = ("_evaluate", "_shared", "_columns", "_trace")

    def __init__(self, expr: Any, *, schema: RecordSchema, outputs: OutputSpace, name: str | None = None) -> None:
        self._setup(expr, schema, outputs, name, parameter="expr", version=CANONICAL_VERSION, inside=None)
        self._evaluate = compile_expression(self._expr)
        self._shared: list[tuple[sympy.Basic, Evaluator]] | None = None
        self._columns: ColumnEvaluator | None = None
        self._trace: Any = None

    @property
    def trace(self) -> Any:
        """The :class:`~expmech.spec.TraceRecord` of a quality traced from Python, else None (provenance only)."""
        return self._trace

    # -- evaluation -------------------------------------------------------------

    def encode_dataset(self, dataset: Any) -> list[Env]:
        """The field codes of every record; errors name the record and the field.

        A :class:`~expmech.spec.Multiset` is encoded record by distinct record,
        into the counted form the interpreter reads (typed as a list for the callers).
        """
        if isinstance(dataset, Multiset):
            encoded = WeightedRecords(
                (self._schema.encode(record, name=f"dataset.items()[{i}]"), count) for i, (record, count) in enumerate(dataset.items())
            )
            return encoded  # type: ignore[return-value]  # read by the interpreter alone (evaluate_codes)
        if isinstance(dataset, str | bytes) or not isinstance(dataset, Sequence):
            raise InvalidType(
                f"dataset={describe(dataset)} must be a sequence of records", parameter="dataset", value=dataset
            )
        return [self._schema.encode(record, name=f"dataset[{i}]") for i, record in enumerate(dataset)]

    def evaluate_codes(self, records: Sequence[Env], output_codes: Env) -> Fraction:
        """``q`` on already-encoded records and output codes, exactly."""
        env: Env = dict(output_codes)
        try:
            value = self._evaluate(env, records)
        except ZeroDivisionError as error:
            raise QualityError(_undefined_text(self._label(), output_codes, error), output=output_codes) from None
        return Fraction(value)

    def evaluate_many(self, records: Sequence[Env], outputs_codes: Sequence[Env]) -> list[Fraction]:
        """``q`` on encoded records for each of several encoded outputs, exactly.

        Aggregates whose per-record body does not involve an output variable are
        computed once for all outputs.
        """
        if type(records) is WeightedRecords:  # counted records: the interpreter alone, output by output
            return [self.evaluate_codes(records, codes) for codes in outputs_codes]
        shared: Env = {}
        if self._shared is None:
            self._shared = [(node, compile_expression(node)) for node in self._output_free_aggregates()]
        for node, evaluate in self._shared:
            try:
                shared[node] = evaluate({}, records)
            except (ZeroDivisionError, QualityError):
                continue  # left to each output: the node may sit in a branch no output reaches
        if self._columns is None:
            self._columns = compile_columns(self._expr, compile_expression)
        try:
            return self._columns(shared, outputs_codes, records)  # every output at once: the same values
        except Unsupported:
            pass  # output by output, below, where errors get their messages
        results = []
        for codes in outputs_codes:
            env: Env = dict(shared)
            env.update(codes)
            try:
                results.append(Fraction(self._evaluate(env, records)))
            except ZeroDivisionError as error:
                raise QualityError(_undefined_text(self._label(), codes, error), output=codes) from None
        return results

    def _output_free_aggregates(self) -> list[sympy.Basic]:
        """The largest subexpressions that involve the data but no output variable."""
        found: list[sympy.Basic] = []

        def visit(node: sympy.Basic) -> None:
            if isinstance(node, sympy.functions.elementary.piecewise.ExprCondPair):
                visit(node.expr)
                visit(node.cond)
                return
            data = bool(node.atoms(*AGGREGATES)) or isinstance(node, Size)
            if data and not (node.free_symbols & self._output_symbols) and not isinstance(node, sympy.logic.boolalg.Boolean):
                found.append(node)
                return
            for arg in node.args:
                visit(arg)

        visit(self._expr)
        return sorted(set(found), key=sympy.default_sort_key)

    def __call__(self, dataset: Any, r: Any) -> Fraction:
        """``q(dataset, r)`` exactly, after validating every record and ``r``."""
        return self.evaluate_codes(self.encode_dataset(dataset), self._outputs.encode(r))

    def scores(self, dataset: Any, outputs: Sequence[Any]) -> list[Fraction]:
        """``q(dataset, r)`` for each ``r`` in ``outputs``, encoding the dataset once."""
        records = self.encode_dataset(dataset)
        return self.evaluate_many(records, [self._outputs.encode(r) for r in outputs])

    def _label(self) -> str:
        return self._name or "the quality function"

    def __repr__(self) -> str:
        label = f"{self._name}: " if self._name else ""
        return f"QualityFunction({label}{self._expr})"



def _why(error: ZeroDivisionError) -> str:
    return f" ({error})" if str(error) == _EMPTY_MEAN else ""


_EMPTY_MEAN = "mean of the empty dataset"


class Undefined(ZeroDivisionError):
    """The interpreter met a value that does not exist (an order statistic past the records): q is undefined there."""


def _undefined_text(label: str, codes: Env, error: ZeroDivisionError) -> str:
    if isinstance(error, Undefined):
        return f"{label} is undefined at {_show(codes)}: {error}"
    return f"division by zero evaluating {label} at {_show(codes)}{_why(error)}"


def _show(codes: Env) -> str:
    return ", ".join(f"{k}={v}" for k, v in codes.items())


# -- validation -------------------------------------------------------------------

_ALLOWED = (
    sympy.Add,
    sympy.Mul,
    sympy.Pow,
    sympy.Abs,
    sympy.floor,
    sympy.Max,
    sympy.Min,
    sympy.Piecewise,
    sympy.Eq,
    sympy.Ne,
    sympy.Lt,
    sympy.Le,
    sympy.Gt,
    sympy.Ge,
    sympy.And,
    sympy.Or,
    sympy.Not,
)


_REWRITES = {
    "count": "write Piecewise((size(), condition), (0, True))",
    "total": "write c*size() for c per record",
    "mean": "the mean of c is c (on a non-empty dataset)",
}


def _check(expr: sympy.Basic, fields: frozenset[sympy.Symbol], outputs: frozenset[sympy.Symbol], *, inside: str | None) -> None:
    """Raise InvalidArgument naming the first part of ``expr`` outside the language."""
    if isinstance(expr, sympy.Float):
        raise InvalidArgument(
            f"inexact number {expr} in the expression; write sympy.Rational for an exact value", parameter="expr", value=expr
        )
    if isinstance(expr, sympy.Symbol):
        if expr in fields:
            if inside is None:
                raise InvalidArgument(
                    f"record field {expr.name!r} is used outside an aggregate (count/total/mean)", parameter="expr", value=expr
                )
            return
        if expr in outputs:
            return
        raise InvalidArgument(
            f"unknown symbol {expr.name!r}: it is neither a record field nor an output variable", parameter="expr", value=expr
        )
    if isinstance(expr, sympy.Rational | BooleanTrue | BooleanFalse | sympy.core.numbers.NaN):
        if isinstance(expr, sympy.core.numbers.NaN):
            raise InvalidArgument("nan in the expression", parameter="expr", value=expr)
        return
    if isinstance(expr, sympy.Number):
        raise InvalidArgument(f"number {expr} is not a finite rational", parameter="expr", value=expr)
    if isinstance(expr, AGGREGATES):
        if isinstance(expr, Count):
            refused = constant_condition(expr.args[0], where=f"{expr}", parameter="predicate")
            if refused is not None:
                raise refused
        if inside is not None:
            raise InvalidArgument(
                f"aggregate {type(expr).__name__.lower()}() nested inside {inside}()", parameter="expr", value=expr
            )
        if isinstance(expr, OrderStatistic):
            order_index(expr.args[1])
            _check(expr.args[0], fields, outputs, inside="order_statistic")
            if not isinstance(expr.args[0], sympy.Expr):
                raise InvalidArgument(f"{expr} needs a numeric per-record expression", parameter="expr", value=expr)
            return
        if expr.args and expr.args[0].free_symbols and not (expr.args[0].free_symbols & fields):  # count/total/mean refuse a body without symbols
            what = type(expr).__name__.lower()
            raise record_free_error(
                what,
                expr.args[0],
                parameter="predicate" if isinstance(expr, Count) else "expr",
                rewrite=_REWRITES[what],
            )
        for arg in expr.args:
            _check(arg, fields, outputs, inside=type(expr).__name__.lower())
        return
    if isinstance(expr, sympy.Pow):
        exponent = expr.exp
        if not (isinstance(exponent, sympy.Integer)):
            raise InvalidArgument(f"power {expr} needs an integer exponent", parameter="expr", value=expr)
    elif not isinstance(expr, _ALLOWED):
        raise InvalidArgument(
            f"operation {type(expr).__name__} ({expr}) is not in the quality-function language", parameter="expr", value=expr
        )
    for arg in expr.args:
        if isinstance(arg, sympy.functions.elementary.piecewise.ExprCondPair):
            _check(arg.expr, fields, outputs, inside=inside)
            _check(arg.cond, fields, outputs, inside=inside)
        else:
            _check(arg, fields, outputs, inside=inside)


def _check_categories(expr: sympy.Basic, categories: dict[sympy.Symbol, Categories]) -> None:
    """Refuse arithmetic or ordering on a Categories variable: its codes are label positions."""

    def refuse(symbol: sympy.Symbol, parent: sympy.Basic) -> None:
        labels = categories[symbol].labels
        raise InvalidArgument(
            f"{symbol.name!r} ranges over Categories{labels!r}, encoded by label position; in {parent} it would "
            "silently compute with positions. Compare it with == / != to a variable over the same labels or to "
            "a label's code (Categories.code(label)), or give it a numeric domain (IntRange, Grid)",
            parameter="expr",
            value=parent,
        )

    def allowed(symbol: sympy.Symbol, parent: sympy.Basic) -> bool:
        if not isinstance(parent, sympy.Eq | sympy.Ne):
            return False
        other = parent.args[1] if parent.args[0] == symbol else parent.args[0]
        labels = categories[symbol].labels
        if isinstance(other, sympy.Symbol):
            return other in categories and categories[other].labels == labels
        numeric = any(isinstance(label, int | Fraction) and not isinstance(label, bool) for label in labels)
        return isinstance(other, sympy.Integer) and 0 <= int(other) < len(labels) and not numeric

    if expr in categories:
        refuse(expr, expr)
    stack = [expr]
    while stack:
        node = stack.pop()
        for arg in node.args:
            if arg in categories:
                if not allowed(arg, node):
                    refuse(arg, node)
            else:
                stack.append(arg)


# -- the interpreter ---------------------------------------------------------------


def compile_expression(expr: sympy.Basic) -> Evaluator:
    """A closure computing ``expr`` exactly from an environment and the records.

    A data-dependent subexpression first looks itself up in the environment, so
    :meth:`QualityFunction.evaluate_many` can precompute the parts that do not
    depend on the output once for all outputs.
    """
    inner = _compile_node(expr)
    if isinstance(expr, AGGREGATES) or not expr.atoms(*AGGREGATES):
        return inner

    def cached(env: Env, records: Sequence[Env]) -> Any:
        if expr in env:
            return env[expr]
        return inner(env, records)

    return cached


def _order_statistic(expr: sympy.Basic) -> Evaluator:
    """The interpreter of ``OrderStatistic(body, k)``: sort the body's values (with multiplicity) and take the k-th."""
    body = compile_expression(expr.args[0])
    a, b, c = order_index(expr.args[1])
    node = expr

    def order(env: Env, records: Sequence[Env]) -> Any:
        if node in env:  # precomputed by evaluate_many (it does not depend on the output)
            return env[node]
        size = record_count(records)
        k = (a * size + b) // c
        if not 0 <= k < size:
            raise Undefined(f"{node} asks for the value of rank {k} (0-based) among {size} record(s)")
        local = dict(env)
        values: list[tuple[Any, int]] = []
        pairs = records.pairs if type(records) is WeightedRecords else [(record, 1) for record in records]
        for record, weight in pairs:
            local.update(record)
            values.append((body(local, records), weight))
        values.sort(key=lambda item: item[0])
        seen = 0
        for value, weight in values:
            seen += weight
            if k < seen:
                return value
        raise AssertionError("unreachable: k < size")  # pragma: no cover

    return order


def _compile_node(expr: sympy.Basic) -> Evaluator:
    if isinstance(expr, sympy.Integer):
        constant: Any = int(expr)
        return lambda env, records: constant
    if isinstance(expr, sympy.Rational):
        fraction = Fraction(int(expr.p), int(expr.q))
        return lambda env, records: fraction
    if isinstance(expr, BooleanTrue):
        return lambda env, records: True
    if isinstance(expr, BooleanFalse):
        return lambda env, records: False
    if isinstance(expr, sympy.Symbol):
        return lambda env, records: env[expr]
    if isinstance(expr, Size):
        return lambda env, records: env[expr] if expr in env else record_count(records)
    if isinstance(expr, OrderStatistic):
        return _order_statistic(expr)
    if isinstance(expr, sympy.floor):
        argument = compile_expression(expr.args[0])
        return lambda env, records: math.floor(argument(env, records))
    if isinstance(expr, Count | Total | Mean):
        body = compile_expression(expr.args[0])
        is_count = isinstance(expr, Count)
        is_mean = isinstance(expr, Mean)
        node = expr

        def aggregate(env: Env, records: Sequence[Env]) -> Any:
            if node in env:  # precomputed by evaluate_many (it does not depend on the output)
                return env[node]
            local = dict(env)
            acc: Any = 0
            if type(records) is WeightedRecords:  # a Multiset: each distinct record times its count
                for record, weight in records.pairs:
                    local.update(record)
                    value = body(local, records)
                    acc += weight * ((1 if value else 0) if is_count else value)
                size = records.size
            else:
                for record in records:
                    local.update(record)
                    value = body(local, records)
                    acc += (1 if value else 0) if is_count else value
                size = len(records)
            if is_mean:
                if not size:
                    raise ZeroDivisionError(_EMPTY_MEAN)
                return Fraction(acc) / size
            return acc

        return aggregate
    parts = [compile_expression(arg) for arg in expr.args] if not isinstance(expr, sympy.Piecewise) else []
    if isinstance(expr, sympy.Add):
        return lambda env, records: sum(p(env, records) for p in parts)
    if isinstance(expr, sympy.Mul):

        def product(env: Env, records: Sequence[Env]) -> Any:
            acc: Any = 1
            for p in parts:
                acc = acc * p(env, records)
            return acc

        return product
    if isinstance(expr, sympy.Pow):
        base = parts[0]
        exponent = int(expr.exp)
        if exponent >= 0:
            return lambda env, records: base(env, records) ** exponent
        return lambda env, records: Fraction(1) / Fraction(base(env, records)) ** (-exponent)
    if isinstance(expr, sympy.Abs):
        return lambda env, records: abs(parts[0](env, records))
    if isinstance(expr, sympy.Max):
        return lambda env, records: max(p(env, records) for p in parts)
    if isinstance(expr, sympy.Min):
        return lambda env, records: min(p(env, records) for p in parts)
    if isinstance(expr, sympy.Piecewise):
        branches = [(compile_expression(pair.expr), compile_expression(pair.cond)) for pair in expr.args]
        text = str(expr)

        def piecewise(env: Env, records: Sequence[Env]) -> Any:
            for value, cond in branches:
                if cond(env, records):
                    return value(env, records)
            raise QualityError(f"Piecewise {text} has no branch that applies", value=text)

        return piecewise
    for kind, test in RELATIONS.items():
        if isinstance(expr, kind):
            left, right = parts
            return lambda env, records: test(left(env, records), right(env, records))
    if isinstance(expr, sympy.And):
        return lambda env, records: all(p(env, records) for p in parts)
    if isinstance(expr, sympy.Or):
        return lambda env, records: any(p(env, records) for p in parts)
    if isinstance(expr, sympy.Not):
        return lambda env, records: not parts[0](env, records)
    if isinstance(expr, ITE):  # sympy's rewriting of some conditions: the taken branch alone is evaluated
        test, then, other = parts
        return lambda env, records: then(env, records) if test(env, records) else other(env, records)
    raise InvalidArgument(f"cannot evaluate {type(expr).__name__}", parameter="expr", value=expr)  # pragma: no cover
