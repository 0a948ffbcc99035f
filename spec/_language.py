"""The quality-function language: record schemas, output spaces, aggregates.

A quality function is a sympy expression over *aggregates* of per-record
expressions and over *output variables*:

* ``count(pred)`` — the number of records satisfying ``pred``;
* ``total(expr)`` — the sum of ``expr`` over the records;
* ``size()`` — the number of records ``n``;
* ``mean(expr)`` — ``total(expr) / size()`` (undefined on the empty dataset);

* ``order_statistic(expr, k)`` — the ``k``-th smallest value of ``expr`` over the
  records (0-based: ``k = 0`` the least, ``k = size() − 1`` the largest), where
  ``k`` is ``a·size() + b`` or ``floor((a·size() + b)/c)`` with integers ``a``,
  ``b``, ``c > 0`` (a median index ``floor(size()/2)``); undefined unless
  ``0 <= k < size()``, so on the empty dataset;

composed with ``+ − ·``, integer powers (so division by an aggregate),
``floor``, ``Abs``, ``Max``, ``Min``, ``Piecewise``, comparisons and
``And/Or/Not``, plus :func:`max_over` / :func:`min_over` a finite index set
(a class of queries ``h ∈ H``).  Record fields may appear only inside
aggregates.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

import sympy

from ._booleans import RefusesBooleans, boolean_error, boolean_in_value_position, is_constant_boolean, record_free_error
from ._domains import LARGEST_LISTED, Domain, IntRange, refuse_listing
from ._errors import InvalidArgument, InvalidType, describe

__all__ = [
    "DATASET_SIZE",
    "Count",
    "EncodedOutputs",
    "Mean",
    "OrderStatistic",
    "OutputSpace",
    "RecordSchema",
    "Size",
    "Total",
    "count",
    "max_over",
    "mean",
    "min_over",
    "order_index",
    "order_statistic",
    "size",
    "total",
]


class Count(RefusesBooleans, sympy.Function):
    """``count(pred)``: the number of records satisfying the per-record predicate."""

    nargs = 1
    is_integer = True
    is_nonnegative = True
    is_number = False  # depends on the data even when its body is constant
    is_comparable = False


class Total(RefusesBooleans, sympy.Function):
    """``total(expr)``: the sum of a per-record expression over the records."""

    nargs = 1
    is_real = True
    is_number = False  # depends on the data even when its body is constant
    is_comparable = False


class Mean(RefusesBooleans, sympy.Function):
    """``mean(expr)``: ``total(expr) / size()``."""

    nargs = 1
    is_real = True
    is_number = False  # depends on the data even when its body is constant
    is_comparable = False


class Size(RefusesBooleans, sympy.Function):
    """``size()``: the number of records (0 for the empty dataset, which add-remove neighbours include)."""

    nargs = 0
    is_integer = True
    is_nonnegative = True
    is_number = False  # no arguments, yet not a constant: keeps Max/Min from evaluating it
    is_comparable = False


class OrderStatistic(sympy.Function):
    """``order_statistic(expr, k)``: the ``k``-th smallest (0-based) value of a per-record expression over the records.

    ``k`` is an expression of ``size()`` (see :func:`order_index`); the value is
    undefined unless ``0 <= k < size()``.  Ties count with their multiplicity:
    over ``[3, 1, 3]`` the values for ``k = 0, 1, 2`` are ``1, 3, 3``.
    """

    nargs = 2
    is_real = True
    is_number = False  # depends on the data even when its body is constant
    is_comparable = False


AGGREGATES = (Count, Total, Mean, Size, OrderStatistic)

#: The number of records ``n``, the symbol in which sensitivities of normalised
#: queries are stated: under replace-one the size of both datasets (n >= 1),
#: under add-remove the size of the smaller one (n >= 0: the empty dataset is a
#: dataset).  A *nonnegative* integer, so that sympy never drops the n = 0 case
#: (with a positive n, ``Max(1, 2*n)`` would become ``2*n``).
DATASET_SIZE = sympy.Symbol("n", integer=True, nonnegative=True)


def _sympify(expr: Any, *, name: str) -> sympy.Basic:
    try:
        return sympy.sympify(expr, strict=True)
    except (sympy.SympifyError, TypeError) as error:
        raise InvalidType(f"{name}={describe(expr)} is not a sympy expression: {error}", parameter=name, value=expr) from None


def constant_condition(value: Any, *, where: str, parameter: str) -> InvalidType | None:
    """The error for a Python ``bool`` (or sympy's ``true``/``false``) given where a condition on the data belongs, else None.

    Python's ``==`` and ``!=`` on sympy symbols compare the expressions
    themselves, not their values: ``x == r`` is ``False`` and ``x != r`` is
    ``True`` before expmech sees them, so ``count(x == r)`` would silently be
    ``count(False)``, the constant 0.  A constant condition is refused with a
    message naming it and pointing to ``sympy.Eq`` / ``sympy.Ne``.
    """
    if not is_constant_boolean(value):
        return None
    return boolean_error(value, where=where, parameter=parameter, instead="for every record use size(), for none 0")


def refuse_booleans(value: sympy.Basic, *, where: str, parameter: str) -> None:
    """Raise :class:`InvalidType` for a constant boolean anywhere a number belongs in ``value`` (see :mod:`._booleans`)."""
    found = boolean_in_value_position(value)
    if found is not None:
        raise boolean_error(found[0], where=where, parameter=parameter, inside=found[1])


def count(predicate: Any) -> sympy.Expr:
    """``count(predicate)``; a bare symbol means ``symbol == 1`` (a true boolean field).

    A Python ``bool`` or sympy's ``true``/``false`` — what ``x == r`` and ``x != r``
    give — raises :class:`InvalidType` naming it (write ``sympy.Eq`` / ``sympy.Ne``),
    here and anywhere inside the predicate where a number belongs; so does a
    predicate with no symbol at all (it is the same for every record).
    """
    refused = constant_condition(predicate, where="count()", parameter="predicate")
    if refused is not None:
        raise refused
    pred = _sympify(predicate, name="predicate")
    refused = constant_condition(pred, where="count()", parameter="predicate")
    if refused is not None:
        raise refused
    if isinstance(pred, sympy.Symbol):
        pred = sympy.Eq(pred, 1)
    if not isinstance(pred, sympy.logic.boolalg.Boolean) or isinstance(pred, sympy.Expr):
        raise InvalidType(
            f"count(predicate={describe(predicate)}) needs a predicate (a comparison or And/Or/Not of them)",
            parameter="predicate",
            value=predicate,
        )
    refuse_booleans(pred, where="count()", parameter="predicate")
    if not pred.free_symbols:
        raise record_free_error("count", pred, parameter="predicate", rewrite="write Piecewise((size(), condition), (0, True))")
    return Count(pred)


def order_index(index: Any) -> tuple[int, int, int]:
    """``(a, b, c)`` with ``index = floor((a·size() + b)/c)``, ``c > 0``, for an admissible order-statistic index.

    Admissible: an integer, ``a·size() + b`` with integers ``a``, ``b``, or
    ``floor((a·size() + b)/c)`` with rationals folded into integers ``a, b, c``.
    Anything else raises :class:`InvalidArgument` naming it.
    """
    try:
        value = sympy.sympify(index, strict=True)
    except (sympy.SympifyError, TypeError):
        raise InvalidType(f"index={describe(index)} is not an expression of size()", parameter="index", value=index) from None
    shift = 0
    if isinstance(value, sympy.Add):  # sympy writes floor((n + 3)/3) as floor(n/3) + 1: fold the integer back in
        floors = [arg for arg in value.args if isinstance(arg, sympy.floor)]
        rest = [arg for arg in value.args if not isinstance(arg, sympy.floor)]
        if len(floors) == 1 and all(arg.is_Integer for arg in rest):
            shift = int(sum(rest))
            value = floors[0]
    floor = isinstance(value, sympy.floor)
    inner = value.args[0] if floor else value
    marker = sympy.Dummy("n")
    linear = inner.xreplace({Size(): marker}) if isinstance(inner, sympy.Basic) else inner
    problem = f"index={describe(index)} must be an integer, a·size() + b or floor((a·size() + b)/c) with integers a, b, c"
    if not isinstance(linear, sympy.Expr) or linear.free_symbols - {marker} or linear.atoms(sympy.Function):
        raise InvalidArgument(problem, parameter="index", value=index)
    try:
        poly = sympy.Poly(linear, marker)
    except sympy.PolynomialError:
        raise InvalidArgument(problem, parameter="index", value=index) from None
    if poly.degree() > 1 or not all(c.is_Rational for c in poly.all_coeffs()):
        raise InvalidArgument(problem, parameter="index", value=index)
    a = poly.coeff_monomial(marker)
    b = poly.coeff_monomial(1)
    if not floor:
        if not (a.is_Integer and b.is_Integer):
            raise InvalidArgument(problem + " (write floor(...) to round)", parameter="index", value=index)
        return int(a), int(b), 1
    c = sympy.ilcm(int(a.q), int(b.q))
    return int(a * c), int(b * c) + shift * int(c), int(c)


def order_statistic(expr: Any, index: Any) -> sympy.Expr:
    """``order_statistic(expr, k)``: the ``k``-th smallest value of ``expr`` over the records (see :class:`OrderStatistic`).

    ``index`` is an int or an expression of ``size()`` (:func:`order_index`):
    ``order_statistic(x, 0)`` the least, ``order_statistic(x, size() - 1)`` the
    largest, ``order_statistic(x, sympy.floor(size() / 2))`` the upper median.
    """
    body = _numeric(expr, "order_statistic", rewrite="an order statistic of a constant c is c (where 0 <= k < size())")
    order_index(index)
    return OrderStatistic(body, sympy.sympify(index, strict=True))


def total(expr: Any) -> sympy.Expr:
    """``total(expr)``: the sum of a per-record numeric expression.

    A constant boolean anywhere in ``expr`` (what Python's ``x == r`` gives),
    or a body with no symbol at all (``total(Piecewise((1, x == r), (0, True)))``
    is ``total(0)`` once sympy drops the ``False`` condition), raises
    :class:`InvalidType` naming it; write ``c*size()`` for a constant ``c`` per record.
    """
    return Total(_numeric(expr, "total", rewrite="write c*size() for c per record"))


def mean(expr: Any) -> sympy.Expr:
    """``mean(expr)``: ``total(expr) / size()``; refused as :func:`total` refuses."""
    return Mean(_numeric(expr, "mean", rewrite="the mean of a constant c is c (on a non-empty dataset)"))


def size() -> sympy.Expr:
    """``size()``: the number of records."""
    return Size()


def _numeric(expr: Any, what: str, *, rewrite: str) -> sympy.Expr:
    refused = constant_condition(expr, where=f"{what}()", parameter="expr")
    if refused is not None:
        raise refused
    value = _sympify(expr, name="expr")
    if not isinstance(value, sympy.Expr):
        raise InvalidType(
            f"{what}(expr={describe(expr)}) needs a numeric expression; use count() for a predicate",
            parameter="expr",
            value=expr,
        )
    refuse_booleans(value, where=f"{what}()", parameter="expr")
    if not value.free_symbols:
        raise record_free_error(what, value, parameter="expr", rewrite=rewrite)
    return value


def max_over(expr: Any, index: sympy.Symbol, values: Iterable[Any]) -> sympy.Expr:
    """``max_{index ∈ values} expr``: ``Max`` of the substituted copies, in canonical form.

    The copies are flattened (a ``Max`` inside is opened), de-duplicated, the
    numbers among them reduced to the largest, and put in sympy's canonical
    argument order — without sympy's pairwise comparison of every two
    arguments, so building it is linear in the number of values.
    """
    return _over(sympy.Max, expr, index, values, "max_over")


def min_over(expr: Any, index: sympy.Symbol, values: Iterable[Any]) -> sympy.Expr:
    """``min_{index ∈ values} expr``: ``Min`` of the substituted copies, in canonical form (see :func:`max_over`)."""
    return _over(sympy.Min, expr, index, values, "min_over")


def extremum(op: Any, args: Iterable[sympy.Basic]) -> sympy.Expr:
    """``op(*args)`` for ``op`` = ``sympy.Max`` or ``sympy.Min``, canonical and built in linear time.

    Nested ``op`` arguments are opened, duplicates dropped, numbers reduced to
    their extreme, and the rest ordered as sympy orders them; a single
    argument is returned as it is.
    """
    flat: list[sympy.Basic] = []
    stack = list(args)
    while stack:
        arg = stack.pop()
        if isinstance(arg, op):
            stack.extend(arg.args)
        else:
            flat.append(arg)
    numbers = [a for a in flat if a.is_Rational]
    unique = {a for a in flat if not a.is_Rational}
    if numbers:
        unique.add(max(numbers) if op is sympy.Max else min(numbers))
    if len(unique) == 1:
        return unique.pop()
    return op(*unique, evaluate=False)


def _over(op: Any, expr: Any, index: sympy.Symbol, values: Iterable[Any], name: str) -> sympy.Expr:
    if not isinstance(index, sympy.Symbol):
        raise InvalidType(f"{name}: index={describe(index)} must be a sympy Symbol", parameter="index", value=index)
    if is_constant_boolean(expr):
        raise boolean_error(expr, where=f"{name}()", parameter="expr")
    body = _sympify(expr, name="expr")
    refuse_booleans(body, where=f"{name}()", parameter="expr")
    points = list(values)
    if not points:
        raise InvalidArgument(f"{name}: values must not be empty", parameter="values", value=points)
    for point in points:
        if is_constant_boolean(point):
            raise boolean_error(point, where=f"{name}()", parameter="values")
    return extremum(op, [body.xreplace({index: _sympify(v, name="values")}) for v in points])


class _Space:
    """Named symbols, each with a domain; shared by record schemas and output spaces."""

    _kind = "field"

    def __init__(self, domains: Mapping[str, Domain] | None = None, /, **named: Domain) -> None:
        entries = dict(domains or {})
        overlap = set(entries) & set(named)
        if overlap:
            raise InvalidArgument(f"{self._kind} {sorted(overlap)[0]!r} given twice", parameter="domains", value=sorted(overlap))
        entries.update(named)
        if not entries:
            raise InvalidArgument(f"a {type(self).__name__} needs at least one {self._kind}", parameter="domains", value=entries)
        self._domains: dict[str, Domain] = {}
        self._symbols: dict[str, sympy.Symbol] = {}
        for name, domain in entries.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise InvalidArgument(f"{self._kind} name {name!r} must be an identifier", parameter="name", value=name)
            if not isinstance(domain, Domain):
                raise InvalidType(
                    f"{self._kind} {name!r} has domain {describe(domain)}; expected a Domain such as IntRange(0, 10)",
                    parameter=name,
                    value=domain,
                )
            if domain.sort == "int":
                symbol = sympy.Symbol(name, integer=True)
            else:
                symbol = sympy.Symbol(name, rational=True)
            self._domains[name] = domain
            self._symbols[name] = symbol

    @property
    def names(self) -> tuple[str, ...]:
        """Names in declaration order."""
        return tuple(self._domains)

    @property
    def symbols(self) -> tuple[sympy.Symbol, ...]:
        """The sympy symbols, in declaration order."""
        return tuple(self._symbols.values())

    def domain(self, name: str) -> Domain:
        """The domain of ``name``."""
        try:
            return self._domains[name]
        except KeyError:
            raise InvalidArgument(f"no {self._kind} named {name!r}", parameter="name", value=name) from None

    def __getitem__(self, name: str) -> sympy.Symbol:
        try:
            return self._symbols[name]
        except KeyError:
            raise InvalidArgument(f"no {self._kind} named {name!r}", parameter="name", value=name) from None

    def items(self) -> Iterable[tuple[str, sympy.Symbol, Domain]]:
        """``(name, symbol, domain)`` in declaration order."""
        for name, domain in self._domains.items():
            yield name, self._symbols[name], domain

    @property
    def size(self) -> int | None:
        """The number of combinations of values (records or outputs), without listing them; None if infinite."""
        total = 1
        for domain in self._domains.values():
            count = domain.size
            if count is None:
                return None
            total *= count
        return total

    def describe(self) -> str:
        """Canonical text: ``name:Domain`` pairs in declaration order."""
        return "; ".join(f"{name}:{domain.describe()}" for name, domain in self._domains.items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.describe()})"


class RecordSchema(_Space):
    """The fields of a record, each with a domain: ``RecordSchema(x=IntRange(0, 10))``.

    ``schema["x"]`` is the field's sympy symbol.  A record is a mapping from
    field names to values; with a single field a bare value is accepted too.
    """

    _kind = "field"

    def encode(self, record: Any, *, name: str = "record") -> dict[sympy.Symbol, Any]:
        """The codes of one record's fields; errors name the record and the field."""
        if not isinstance(record, Mapping):
            if len(self._domains) == 1:
                (field,) = self._domains
                return {self._symbols[field]: self._domains[field].encode(record, name=name)}
            raise InvalidType(
                f"{name}={describe(record)} must be a mapping with fields {list(self._domains)}",
                parameter=name,
                value=record,
            )
        unknown = [key for key in record if key not in self._domains]
        if unknown:
            raise InvalidArgument(f"{name} has unknown field {unknown[0]!r}", parameter=name, value=record)
        codes = {}
        for field, domain in self._domains.items():
            if field not in record:
                raise InvalidArgument(f"{name} is missing field {field!r}", parameter=name, value=record)
            codes[self._symbols[field]] = domain.encode(record[field], name=f"{name}[{field!r}]")
        return codes


class OutputSpace(_Space):
    """The output variables ``r`` and their domains: ``OutputSpace(r=IntRange(0, 10))``.

    With one variable an output is a bare value; with several it is a tuple in
    declaration order (or a mapping by name).
    """

    _kind = "output variable"

    @property
    def is_finite(self) -> bool:
        """Whether every variable's domain is finite, so the outputs can be listed."""
        return all(domain.is_finite for domain in self._domains.values())

    def outputs(self) -> tuple[Any, ...]:
        """Every output, in lexicographic order of the declared domains."""
        if self.is_finite and (self.size or 0) > LARGEST_LISTED:
            raise refuse_listing(f"the output space {self.describe()}", self.size)
        values = [domain.values() for domain in self._domains.values()]
        if len(values) == 1:
            return tuple(values[0])
        return tuple(itertools.product(*values))

    def encode_all(self, outputs: Iterable[Any], *, name: str = "r") -> EncodedOutputs:
        """The codes of every output, as ``[self.encode(r, name=name) for r in outputs]`` would give them.

        Same codes, same errors; the result is an :class:`EncodedOutputs`, a
        sequence of those dicts held as rows of codes.  Where every variable is
        an ``IntRange`` and the outputs are plain ints (or tuples of them), the
        outputs are checked in a few passes over all of them at once and no
        dict is built until one is asked for.
        """
        values = list(outputs)
        symbols = tuple(self._symbols[v] for v in self._domains)
        domains = list(self._domains.values())
        if values and all(type(domain) is IntRange for domain in domains):
            if len(domains) == 1:
                rows: list[tuple[Any, ...]] | None = [(r,) for r in values] if _ints_within(values, domains) else None
            elif all(type(r) is tuple and len(r) == len(domains) for r in values):
                rows = values if _ints_within(values, domains) else None
            else:
                rows = None
            if rows is not None:
                return EncodedOutputs(symbols, rows)
        codes = [self.encode(r, name=name) for r in values]
        return EncodedOutputs(symbols, [tuple(code[s] for s in symbols) for code in codes])

    def encode(self, r: Any, *, name: str = "r") -> dict[sympy.Symbol, Any]:
        """The codes of output ``r``; errors name it and the variable."""
        names = list(self._domains)
        if len(names) == 1 and not isinstance(r, Mapping):
            return {self._symbols[names[0]]: self._domains[names[0]].encode(r, name=name)}
        if isinstance(r, Mapping):
            missing = [v for v in names if v not in r]
            if missing:
                raise InvalidArgument(f"{name}={describe(r)} is missing output variable {missing[0]!r}", parameter=name, value=r)
            parts = [r[v] for v in names]
        else:
            try:
                parts = list(r)
            except TypeError:
                raise InvalidType(f"{name}={describe(r)} must be a tuple of {len(names)} values", parameter=name, value=r) from None
            if len(parts) != len(names):
                raise InvalidArgument(
                    f"{name}={describe(r)} has {len(parts)} values; expected {len(names)} ({', '.join(names)})",
                    parameter=name,
                    value=r,
                )
        return {
            self._symbols[v]: self._domains[v].encode(value, name=f"{name}.{v}") for v, value in zip(names, parts)
        }


class EncodedOutputs(Sequence[dict[sympy.Symbol, Any]]):
    """Encoded outputs held as rows of codes: item ``i`` is ``dict(zip(symbols, rows[i]))``, built on demand.

    ``codes in encoded`` is a set look-up and :meth:`columns` gives each
    variable's codes in output order (what a vectorised evaluator needs), so a
    range of 10⁵ outputs is never turned into 10⁵ dicts.
    """

    __slots__ = ("symbols", "rows", "_keys")

    def __init__(self, symbols: tuple[sympy.Symbol, ...], rows: list[tuple[Any, ...]]) -> None:
        self.symbols = symbols
        self.rows = rows
        self._keys: set[tuple[Any, ...]] | None = None

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, index: int) -> dict[sympy.Symbol, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> EncodedOutputs: ...

    def __getitem__(self, index: int | slice) -> dict[sympy.Symbol, Any] | EncodedOutputs:
        if isinstance(index, slice):
            return EncodedOutputs(self.symbols, self.rows[index])
        return dict(zip(self.symbols, self.rows[index]))

    def __iter__(self) -> Iterator[dict[sympy.Symbol, Any]]:
        symbols = self.symbols
        for row in self.rows:
            yield dict(zip(symbols, row))

    def __contains__(self, codes: object) -> bool:
        if not isinstance(codes, Mapping) or len(codes) != len(self.symbols) or any(s not in codes for s in self.symbols):
            return False
        if self._keys is None:
            self._keys = set(self.rows)
        return tuple(codes[s] for s in self.symbols) in self._keys

    def columns(self) -> list[tuple[Any, ...]]:
        """Each variable's codes, in output order."""
        if not self.rows:
            return [() for _ in self.symbols]
        return list(zip(*self.rows))


def _ints_within(values: list[Any], domains: list[Domain]) -> bool:
    """Every value a plain int inside its ``IntRange`` (what ``IntRange.encode`` returns unchanged).

    ``values`` are bare values (one domain) or tuples of one value per domain.
    """
    single = len(domains) == 1
    flat: Iterable[Any] = values if single else itertools.chain.from_iterable(values)
    if set(map(type, flat)) != {int} or not all(isinstance(d, IntRange) for d in domains):
        return False
    ranges = [(d.lo, d.hi) for d in domains if isinstance(d, IntRange)]
    if single:
        extremes = [(min(values), max(values))]
    elif len(set(ranges)) == 1:  # one range for every variable: check all values at once
        extremes = [(min(map(min, values)), max(map(max, values)))] * len(ranges)
    else:
        extremes = [(min(column), max(column)) for column in zip(*values)]
    return all((lo is None or low >= lo) and (hi is None or high <= hi) for (lo, hi), (low, high) in zip(ranges, extremes))
