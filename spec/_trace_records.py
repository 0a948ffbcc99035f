"""What the tracer builds from collections of records: aggregates, order statistics, numpy's elementwise arrays.

:class:`~._trace_values.Records` stands for the records, or a per-record value over them; these functions turn
an operation on them into the language: ``len`` a ``size()`` or a ``count``, ``sum`` a ``total`` or a ``count``,
``mean``, ``min``/``max`` and an index into sorted records an order statistic (an index of ``len()``, Python's
negative indices counted from the end), ``bisect``/``searchsorted`` a count, and an operation on numpy arrays
the same operation on one record (:func:`elementwise`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import sympy

from ._language import AGGREGATES, Mean, OrderStatistic, Size, order_index
from ._trace_values import Cond, Const, Num, Record, Records, Refused, Value, as_expr, piecewise, sympy_constant

if TYPE_CHECKING:  # pragma: no cover
    from ._trace_exec import Tracer

__all__ = [
    "body_expr",
    "clipped",
    "elementwise",
    "index_records",
    "order_position",
    "records_extreme",
    "records_length",
    "records_mean",
    "records_median",
    "records_of",
    "records_sum",
    "scalar_or_array",
    "sorted_count",
]


# -- collections of records ---------------------------------------------------------------------------


def records_of(value: Value, what: str) -> Records:
    if not isinstance(value, Records):
        raise Refused(f"{what} of a {value.kind}", "it expects the records (the dataset, a comprehension or an array of it)")
    return value


def body_expr(tracer: Tracer, records: Records, what: str) -> sympy.Expr:
    body = records.body
    if isinstance(body, Record):
        raise Refused(f"{what} of records of several fields", "take a field first: [rec['x'] for rec in data]")
    expr = as_expr(body)
    tracer.check_per_record(expr, None, what)
    return expr


def records_length(tracer: Tracer, records: Records) -> sympy.Expr:
    if records.form == "generator":
        raise Refused("len() of a generator", "Python refuses it")
    return tracer.count(records.cond, None)


def records_sum(tracer: Tracer, records: Records) -> sympy.Expr:
    body = records.body
    if isinstance(body, Record):
        raise Refused("sum() of records of several fields", "take a field first")
    if isinstance(body, Cond):
        return tracer.count(sympy.And(records.cond, body.expr), None)
    expr = as_expr(body)
    if records.cond is not sympy.true:
        if not (expr.free_symbols & tracer.field_symbols) and not expr.atoms(*AGGREGATES):
            return expr * tracer.count(records.cond, None)  # sum(c for x in data if p): c·count(p)
        expr = piecewise((expr, records.cond), (sympy.Integer(0), True))
    return tracer.total(expr, None)


def records_mean(tracer: Tracer, records: Records) -> sympy.Expr:
    body = records.body
    if records.cond is sympy.true and isinstance(body, Num):
        expr = body_expr(tracer, records, "a mean")
        if not (expr.free_symbols & tracer.field_symbols):
            return expr * Size() * Size() ** -1  # a constant's mean: still undefined on the empty dataset
        return Mean(expr)
    return records_sum(tracer, records) * records_length(tracer, Records(body, records.cond, "list")) ** -1


def records_extreme(tracer: Tracer, records: Records, largest: bool, default: Value | None = None) -> Value:
    if records.cond is not sympy.true:
        raise Refused(f"{'max' if largest else 'min'} over some of the records", "a min or max over a filter is not an order statistic of the records")
    expr = body_expr(tracer, records, "max" if largest else "min")
    statistic = OrderStatistic(expr, Size() - 1 if largest else sympy.Integer(0))
    if default is None:
        return Num(statistic)
    return Num(piecewise((as_expr(default), sympy.Eq(Size(), 0)), (statistic, True)))


def records_median(tracer: Tracer, records: Records) -> Value:
    if records.cond is not sympy.true:
        raise Refused("a median over some of the records", "not an order statistic of the records")
    expr = body_expr(tracer, records, "a median")
    low = OrderStatistic(expr, sympy.floor((Size() - 1) / 2))
    high = OrderStatistic(expr, sympy.floor(Size() / 2))
    return Num((low + high) / 2)


def order_position(index: Value) -> sympy.Expr:
    """The order-statistic index of ``sorted(...)[index]``: Python's negative indices counted from the end."""
    if isinstance(index, Const):
        if not isinstance(index.value, int) or isinstance(index.value, bool):
            raise Refused(f"the index {index.value!r}")
        return sympy.Integer(index.value) if index.value >= 0 else Size() + index.value
    if not isinstance(index, Num):
        raise Refused(f"an index that is a {index.kind}")
    expr = index.expr
    if expr.free_symbols or expr.atoms(*AGGREGATES) - {Size()}:
        raise Refused(f"the index {expr}", "an index into sorted records depends on len() alone (a median index len(xs) // 2)")
    try:
        a, b, c = order_index(expr)
    except ValueError as error:
        raise Refused(f"the index {expr}", str(error)) from None
    if a < 0 or (a + b) // c < 0:
        raise Refused(f"the index {expr}", "it may be negative for some dataset sizes, where Python counts from the end")
    return expr


def index_records(tracer: Tracer, records: Records, index: Value) -> Value:
    """``records[index]``: a boolean mask of an array, or a position in sorted records (an order statistic)."""
    if isinstance(index, Records):
        if not (records.is_array and index.is_array) or not isinstance(index.body, Cond):
            raise Refused("indexing by a list", "only a numpy array by a boolean mask of it")
        if index.cond != records.cond:
            raise Refused("a mask of another length", "numpy refuses it")
        return Records(records.body, sympy.And(records.cond, index.body.expr), records.form)
    if not records.is_sorted:
        raise Refused("indexing the records by position", "it depends on the order of the records; sort them first (sorted(data)[k])")
    expr = body_expr(tracer, records, "an order statistic")
    return Num(OrderStatistic(expr, order_position(index)))


def sorted_count(tracer: Tracer, records: Records, value: Value, strict: bool, what: str) -> Value:
    if not records.is_sorted or records.cond is not sympy.true:
        raise Refused(f"{what} on records that are not sorted", "sort the records first")
    expr = body_expr(tracer, records, what)
    point = as_expr(value)
    if point.free_symbols & tracer.field_symbols or point.atoms(*AGGREGATES):
        raise Refused(f"{what} of a value that depends on the data")
    return Num(tracer.count(sympy.Lt(expr, point) if strict else sympy.Le(expr, point), None))


# -- elementwise ----------------------------------------------------------------------------------------


def elementwise(tracer: Tracer, op: Callable[[Value, Value], Value], left: Value, right: Value | None, what: str) -> Value:
    """A numpy operation on arrays of the records (and scalars), one record at a time."""
    sides = [v for v in (left, right) if v is not None]
    arrays = [v for v in sides if isinstance(v, Records)]
    for array in arrays:
        if not array.is_array:
            raise Refused(f"{what} on a Python list of the records", "Python would compare, repeat or concatenate the list; use np.asarray")
        if isinstance(array.body, Record):
            raise Refused(f"{what} on an array of records of several fields")
    conds = {array.cond for array in arrays}
    if len(conds) > 1:
        raise Refused(f"{what} on arrays of different lengths", "numpy refuses it")
    for side in sides:
        if not isinstance(side, Records):
            if not isinstance(side, Const | Num | Cond):
                raise Refused(f"{what} of an array and a {side.kind}")
            if isinstance(side, Num | Cond) and as_expr(side).free_symbols & tracer.field_symbols:
                raise Refused(f"{what} of an array and a record of a loop", "it would compare every record with every record")
    values = [v.body if isinstance(v, Records) else v for v in sides]
    result = op(values[0], values[1] if right is not None else Const(None))
    if isinstance(result, Cond):
        result = Cond(result.expr, True)
    if not isinstance(result, Num | Cond | Const):
        raise Refused(f"{what} giving a {result.kind} per record")
    if isinstance(result, Const):
        result = Num(sympy_constant(result.value)) if not isinstance(result.value, bool) else Cond(sympy.true if result.value else sympy.false, True)
    first = arrays[0]
    return Records(result, first.cond, "array")


def scalar_or_array(tracer: Tracer, args: list[Value], op: Callable[..., sympy.Expr], what: str, boolean: bool = False) -> Value:
    """A numpy function of scalars or arrays, elementwise."""
    if any(isinstance(a, Records) for a in args):
        arrays = [a for a in args if isinstance(a, Records)]
        template = arrays[0]

        def each(*values: Value) -> Value:
            return scalar_result(op(*values), boolean)

        if len(args) == 1:
            return elementwise(tracer, lambda a, _b: each(a), args[0], None, what)
        if len(args) == 2:
            return elementwise(tracer, lambda a, b: each(a, b), args[0], args[1], what)
        # three arguments (np.clip, np.where): combine the scalars into the elementwise operation
        if len(arrays) != 1 or args.index(template) != 0:
            raise Refused(f"{what} with several arrays")
        rest = args[1:]
        return elementwise(tracer, lambda a, _b: each(a, *rest), template, None, what)
    return scalar_result(op(*args), boolean)


def scalar_result(expr: Any, boolean: bool) -> Value:
    if isinstance(expr, Value):
        return expr
    return Cond(expr, True) if boolean else Num(expr)


def clipped(tracer: Tracer, value: sympy.Expr, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    """``min(max(value, lo), hi)``; a field whose whole domain lies in ``[lo, hi]`` is its own clip (every record's value is)."""
    if value in tracer.field_symbols and lo.is_Rational and hi.is_Rational and lo <= hi:
        low, high = tracer.schema.domain(value.name).bounds()
        if low is not None and high is not None and lo <= low and high <= hi:
            return value
    return sympy.Min(sympy.Max(value, lo), hi)
