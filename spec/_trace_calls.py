"""The calls, attributes and numpy operations the tracer knows, each written exactly in the language.

A function is recognised by its module and name (``numpy.sum``,
``builtins.len``, ``math.floor``) — the spec never imports numpy — and each
has a handler that builds the language's aggregate or operation from the
traced arguments:

* over the records: ``len`` (``size()``, a ``count`` when filtered),
  ``sum`` / ``np.sum`` (a ``total``, a ``count`` of conditions),
  ``np.mean`` / ``statistics.mean`` (a ``mean``), ``np.count_nonzero``,
  ``any`` / ``all``, ``min`` / ``max`` / ``np.min`` / ``np.max`` (an order
  statistic), ``sorted`` / ``np.sort`` then an index (an order statistic),
  ``np.median`` / ``statistics.median`` (the mean of the two middle order
  statistics), ``bisect`` / ``np.searchsorted`` on sorted records (a count),
  ``list.count``;
* elementwise on numpy arrays: arithmetic, comparisons, ``np.abs``,
  ``np.clip``, ``np.minimum`` / ``np.maximum``, ``np.where``, ``np.floor``,
  boolean masks;
* on numbers: ``abs``, ``min`` / ``max`` of several, ``int`` (truncation),
  ``float`` (the exact value), ``math.floor`` / ``math.ceil``,
  ``Fraction(a, b)`` (exact);
* a plain Python function the quality calls is traced in place (inlined);
  calling it again from inside itself is refused (recursion).

Anything else — randomness, I/O, logarithms, ``round``, ``enumerate``,
``zip`` — is :class:`Refused` with its name.
"""

from __future__ import annotations

import ast
import math
import types
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy

from ._language import OrderStatistic, Size
from ._trace_records import (
    body_expr,
    clipped,
    records_extreme,
    records_length,
    records_mean,
    records_median,
    records_of,
    records_sum,
    scalar_or_array,
    sorted_count,
)
from ._trace_source import Frame, python_value, source_of
from ._trace_values import (
    Callable_,
    Cond,
    Const,
    Items,
    Module,
    Num,
    Output,
    Record,
    Records,
    Refused,
    Undefined,
    Value,
    as_condition,
    as_expr,
    constants,
    piecewise,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._trace_exec import Tracer

__all__ = ["HANDLERS", "METHODS", "attribute", "call", "qualified_name"]

Handler = Callable[["Tracer", list[Value], dict[str, Value]], Value]

#: Modules (by their first name) whose functions draw random numbers or touch the outside world.
_RANDOM = ("random", "secrets", "numpy.random")
_OUTSIDE = ("os", "sys", "time", "io", "builtins.print", "builtins.open", "builtins.input")


def qualified_name(target: Any) -> str:
    """``module.name`` of a function or class (numpy's ufuncs included), for the handler table."""
    if type(target).__name__ == "ufunc":
        return f"numpy.{target.__name__}"
    module = getattr(target, "__module__", None) or ""
    if not module and hasattr(target, "__self__"):  # a bound method of a builtin object (random.random of random's Random)
        module = type(target.__self__).__module__ or ""
    name = getattr(target, "__name__", None) or type(target).__name__
    if module.startswith("numpy"):
        module = "numpy.random" if module.startswith("numpy.random") else "numpy"
    if module == "_bisect":
        module = "bisect"
    return f"{module}.{name}"


# -- the handler table ----------------------------------------------------------------------------------


def _length(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "len")
    if isinstance(value, Records):
        return Num(records_length(tracer, value))
    if isinstance(value, Items):
        return Const(len(value.items))
    if isinstance(value, Const) and isinstance(value.value, tuple | str | range | frozenset):
        return Const(len(value.value))
    raise Refused(f"len() of a {value.kind}")


def _sum(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    if "start" in kwargs:
        args = args + [kwargs.pop("start")]
    if kwargs or not 1 <= len(args) <= 2:
        raise Refused("sum() with these arguments")
    start = args[1] if len(args) == 2 else Const(0)
    value = args[0]
    if isinstance(value, Records):
        return Num(as_expr(start) + records_sum(tracer, value))
    items = _items_of(value, "sum()")
    total: Value = start
    for item in items:
        total = tracer.binary(ast.Add(), total, item, tracer.node or ast.Constant(0))
    return total


def _numpy_sum(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "np.sum")
    if isinstance(value, Records):
        if not value.is_array and not value.form == "list":
            raise Refused("np.sum() of a generator", "numpy does not sum generators")
        return Num(records_sum(tracer, value))
    return _sum(tracer, [value], {})


def _mean(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "mean")
    return Num(records_mean(tracer, records_of(value, "a mean")))


def _count_nonzero(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "np.count_nonzero")
    records = records_of(value, "np.count_nonzero")
    return Num(tracer.count(sympy.And(records.cond, as_condition(records.body)), None))


def _extreme(largest: bool) -> Handler:
    def handler(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
        default = kwargs.pop("default", None)
        if kwargs:
            raise Refused(f"{'max' if largest else 'min'}() with {', '.join(kwargs)}=", "outside the traceable subset")
        if len(args) == 1:
            value = args[0]
            if isinstance(value, Records):
                return records_extreme(tracer, value, largest, default)
            items = _items_of(value, "max()" if largest else "min()")
            if not items:
                if default is not None:
                    return default
                raise Refused(f"{'max' if largest else 'min'}() of an empty sequence", "the function always raises here")
            args = list(items)
        elif default is not None:
            raise Refused("default= with several arguments", "Python refuses it")
        if not args:
            raise Refused("max() of nothing")
        if all(isinstance(a, Const) for a in args):
            return Const((max if largest else min)(constants(args)))
        if any(isinstance(a, Records) for a in args):
            raise Refused("max()/min() of arrays among several arguments", "use np.maximum / np.minimum")
        exprs = [as_expr(a) for a in args]
        return Num(sympy.Max(*exprs) if largest else sympy.Min(*exprs))

    return handler


def _numpy_extreme(largest: bool) -> Handler:
    def handler(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
        (value,) = _positional(args, kwargs, 1, "np.max" if largest else "np.min")
        if isinstance(value, Records):
            return records_extreme(tracer, value, largest)
        return _extreme(largest)(tracer, [value], {})

    return handler


def _median(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "median")
    return records_median(tracer, records_of(value, "a median"))


def _order_low_high(high: bool) -> Handler:
    def handler(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
        (value,) = _positional(args, kwargs, 1, "statistics.median_high" if high else "statistics.median_low")
        records = records_of(value, "a median")
        if records.cond is not sympy.true:
            raise Refused("a median over some of the records")
        expr = body_expr(tracer, records, "a median")
        return Num(OrderStatistic(expr, sympy.floor(Size() / 2) if high else sympy.floor((Size() - 1) / 2)))

    return handler


def _sorted(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    reverse = kwargs.pop("reverse", Const(False))
    if kwargs or len(args) != 1:
        raise Refused(f"sorted() with {', '.join(kwargs) or 'these arguments'}", "only sorted(values) and sorted(values, reverse=False)")
    if not (isinstance(reverse, Const) and reverse.value is False):
        raise Refused("sorted(..., reverse=True)", "sort ascending and index from the end")
    value = args[0]
    if isinstance(value, Records):
        if value.cond is not sympy.true:
            raise Refused("sorting some of the records", "an index into them is not an order statistic of the records")
        return Records(value.body, value.cond, "sorted")
    if isinstance(value, Items | Const) and all(isinstance(i, Const) for i in _items_of(value, "sorted()")):
        return Const(tuple(sorted(constants(_items_of(value, "sorted()")))))
    raise Refused(f"sorted() of a {value.kind}")


def _numpy_sort(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "np.sort")
    records = records_of(value, "np.sort")
    if records.cond is not sympy.true:
        raise Refused("sorting some of the records", "an index into them is not an order statistic of the records")
    return Records(records.body, records.cond, "sorted-array")


def _as_list(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "list")
    if isinstance(value, Records):
        return Records(value.body, value.cond, "sorted" if value.is_sorted else "list")
    return Items(_items_of(value, "list()"), "list")


def _as_tuple(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "tuple")
    if isinstance(value, Records):
        return Records(value.body, value.cond, "sorted" if value.is_sorted else "list")
    items = _items_of(value, "tuple()")
    if all(isinstance(i, Const) for i in items):
        return Const(tuple(constants(items)))
    return Items(items, "tuple")


def _asarray(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    dtype = kwargs.pop("dtype", Const(None))
    if not (isinstance(dtype, Const) and dtype.value is None):
        raise Refused("np.asarray(..., dtype=...)", "the dtype may round or wrap the values")
    (value,) = _positional(args, kwargs, 1, "np.asarray")
    if isinstance(value, Records):
        if isinstance(value.body, Record):
            raise Refused("an array of records of several fields", "take a field first: np.asarray([rec['x'] for rec in data])")
        body = Cond(value.body.expr, True) if isinstance(value.body, Cond) else value.body
        return Records(body, value.cond, "sorted-array" if value.is_sorted else "array")
    raise Refused(f"np.asarray() of a {value.kind}", "only of the records")


def _abs(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "abs")
    if isinstance(value, Const):
        return Const(abs(value.value))
    return scalar_or_array(tracer, [value], lambda v: sympy.Abs(as_expr(v)), "abs")


def _clip(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    values = _positional(args, kwargs, 3, "np.clip", names=("a", "a_min", "a_max"))
    for bound in values[1:]:
        if isinstance(bound, Const) and bound.value is None:
            raise Refused("np.clip with a None bound", "give both bounds")
    return scalar_or_array(tracer, values, lambda v, lo, hi: clipped(tracer, as_expr(v), as_expr(lo), as_expr(hi)), "np.clip")


def _ravel(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "np.ravel")
    if isinstance(value, Records):
        return _asarray(tracer, [value], {})
    raise Refused(f"np.ravel() of a {value.kind}", "only of the records")


def _pairwise(largest: bool) -> Handler:
    def handler(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
        values = _positional(args, kwargs, 2, "np.maximum" if largest else "np.minimum")
        pick = sympy.Max if largest else sympy.Min
        return scalar_or_array(tracer, values, lambda a, b: pick(as_expr(a), as_expr(b)), "np.maximum" if largest else "np.minimum")

    return handler


def _where(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    values = _positional(args, kwargs, 3, "np.where")
    return scalar_or_array(tracer, values, lambda c, a, b: piecewise((as_expr(a), as_condition(c)), (as_expr(b), True)), "np.where")


def _floor(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "floor")
    if isinstance(value, Const):
        return Const(math.floor(value.value))
    return scalar_or_array(tracer, [value], lambda v: sympy.floor(as_expr(v)), "floor")


def _ceil(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "ceil")
    if isinstance(value, Const):
        return Const(math.ceil(value.value))
    return scalar_or_array(tracer, [value], lambda v: -sympy.floor(-as_expr(v)), "ceil")


def _logical(kind: str) -> Handler:
    def handler(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
        count = 1 if kind == "not" else 2
        values = _positional(args, kwargs, count, f"np.logical_{kind}")
        if kind == "not":
            return scalar_or_array(tracer, values, lambda a: sympy.Not(as_condition(a)), "np.logical_not", boolean=True)
        join = sympy.And if kind == "and" else sympy.Or
        return scalar_or_array(tracer, values, lambda a, b: join(as_condition(a), as_condition(b)), f"np.logical_{kind}", boolean=True)

    return handler


def _any_all(every: bool) -> Handler:
    def handler(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
        (value,) = _positional(args, kwargs, 1, "all" if every else "any")
        if isinstance(value, Records):
            truth = as_condition(value.body) if not isinstance(value.body, Record) else sympy.true
            if every:
                return Cond(sympy.Eq(tracer.count(sympy.And(value.cond, sympy.Not(truth)), None), 0))
            return Cond(sympy.Ge(tracer.count(sympy.And(value.cond, truth), None), 1))
        conditions = [as_condition(i) for i in _items_of(value, "all()" if every else "any()")]
        joined = sympy.And(*conditions) if every else sympy.Or(*conditions)
        return Const(bool(joined)) if joined in (sympy.true, sympy.false) else Cond(joined)

    return handler


def _to_int(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "int")
    if isinstance(value, Const):
        if isinstance(value.value, str):
            raise Refused("int() of text")
        return Const(int(value.value))
    expr = as_expr(value)
    return Num(piecewise((sympy.floor(expr), expr >= 0), (-sympy.floor(-expr), True)))


def _to_float(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "float")
    if isinstance(value, Const):
        if isinstance(value.value, str):
            raise Refused("float() of text")
        return Const(Fraction(value.value))
    return Num(as_expr(value))  # the exact value the float rounds


def _to_bool(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    (value,) = _positional(args, kwargs, 1, "bool")
    cond = as_condition(value)
    return Const(bool(cond)) if cond in (sympy.true, sympy.false) else Cond(cond)


def _fraction(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    if kwargs or not 1 <= len(args) <= 2:
        raise Refused("Fraction() with these arguments")
    if all(isinstance(a, Const) for a in args):
        try:
            return Const(Fraction(*constants(args)))
        except (ValueError, TypeError, ZeroDivisionError) as error:
            raise Refused(f"Fraction{tuple(constants(args))}", str(error)) from None
    numerator = as_expr(args[0])
    if len(args) == 2:
        denominator = as_expr(args[1])
        if denominator == 0:
            raise Refused("Fraction(..., 0)", "the function always raises here")
        return Num(numerator / denominator)
    return Num(numerator)


def _range(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    if kwargs or not all(isinstance(a, Const) and isinstance(a.value, int) for a in args):
        raise Refused("range() of values that are not integer constants", "a loop over range(len(data)) depends on the order of the records")
    return Const(range(*constants(args)))


def _power(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    base, exponent = _positional(args, kwargs, 2, "pow")
    return tracer.binary(ast.Pow(), base, exponent, tracer.node or ast.Constant(0))


def _bisect(strict: bool) -> Handler:
    def handler(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
        if kwargs or len(args) != 2:
            raise Refused("bisect with lo=, hi= or key=", "only bisect(sorted_values, x)")
        return sorted_count(tracer, records_of(args[0], "bisect"), args[1], strict, "bisect")

    return handler


def _searchsorted(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    side = kwargs.pop("side", Const("left"))
    if kwargs or len(args) != 2 or not isinstance(side, Const) or side.value not in ("left", "right"):
        raise Refused("np.searchsorted with these arguments", "only np.searchsorted(sorted_array, v, side='left' or 'right')")
    return sorted_count(tracer, records_of(args[0], "np.searchsorted"), args[1], side.value == "left", "np.searchsorted")


def _list_count(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    records, value = _positional(args, kwargs, 2, "list.count")
    if not isinstance(records, Records) or records.is_array:
        raise Refused("count() of something that is not a list of the records")
    equal = tracer.relation(ast.Eq(), records.body, value)
    return Num(tracer.count(sympy.And(records.cond, as_condition(equal)), None))


def _astype(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> Value:
    records, dtype = _positional(args, kwargs, 2, "astype")
    assert isinstance(records, Records)
    if not (isinstance(dtype, Callable_) and qualified_name(dtype.target) in ("builtins.int", "builtins.float")):
        raise Refused("astype() to a type other than int or float", "it may round or wrap the values")
    body = records.body
    if isinstance(body, Cond):
        return Records(Num(as_expr(body)), records.cond, records.form)
    if isinstance(body, Num) and qualified_name(dtype.target) == "builtins.int":
        expr = body.expr
        return Records(Num(piecewise((sympy.floor(expr), expr >= 0), (-sympy.floor(-expr), True))), records.cond, records.form)
    return records


HANDLERS: dict[str, Handler] = {
    "builtins.len": _length,
    "builtins.sum": _sum,
    "builtins.min": _extreme(False),
    "builtins.max": _extreme(True),
    "builtins.abs": _abs,
    "builtins.sorted": _sorted,
    "builtins.list": _as_list,
    "builtins.tuple": _as_tuple,
    "builtins.int": _to_int,
    "builtins.float": _to_float,
    "builtins.bool": _to_bool,
    "builtins.any": _any_all(False),
    "builtins.all": _any_all(True),
    "builtins.range": _range,
    "builtins.pow": _power,
    "fractions.Fraction": _fraction,
    "math.floor": _floor,
    "math.ceil": _ceil,
    "math.fabs": _abs,
    "math.trunc": _to_int,
    "bisect.bisect_left": _bisect(True),
    "bisect.bisect_right": _bisect(False),
    "bisect.bisect": _bisect(False),
    "statistics.mean": _mean,
    "statistics.fmean": _mean,
    "statistics.median": _median,
    "statistics.median_low": _order_low_high(False),
    "statistics.median_high": _order_low_high(True),
    "numpy.asarray": _asarray,
    "numpy.array": _asarray,
    "numpy.ravel": _ravel,
    "numpy.sum": _numpy_sum,
    "numpy.mean": _mean,
    "numpy.average": _mean,
    "numpy.count_nonzero": _count_nonzero,
    "numpy.min": _numpy_extreme(False),
    "numpy.amin": _numpy_extreme(False),
    "numpy.max": _numpy_extreme(True),
    "numpy.amax": _numpy_extreme(True),
    "numpy.median": _median,
    "numpy.sort": _numpy_sort,
    "numpy.clip": _clip,
    "numpy.abs": _abs,
    "numpy.absolute": _abs,
    "numpy.fabs": _abs,
    "numpy.minimum": _pairwise(False),
    "numpy.maximum": _pairwise(True),
    "numpy.where": _where,
    "numpy.floor": _floor,
    "numpy.ceil": _ceil,
    "numpy.logical_and": _logical("and"),
    "numpy.logical_or": _logical("or"),
    "numpy.logical_not": _logical("not"),
    "numpy.searchsorted": _searchsorted,
    "numpy.any": _any_all(False),
    "numpy.all": _any_all(True),
}

#: Methods of traced records: name -> (forms it applies to, handler taking the records first).
METHODS: dict[str, tuple[tuple[str, ...], Handler]] = {
    "sum": (("array", "sorted-array"), _numpy_sum),
    "mean": (("array", "sorted-array"), _mean),
    "min": (("array", "sorted-array"), _numpy_extreme(False)),
    "max": (("array", "sorted-array"), _numpy_extreme(True)),
    "clip": (("array", "sorted-array"), _clip),
    "any": (("array", "sorted-array"), _any_all(False)),
    "all": (("array", "sorted-array"), _any_all(True)),
    "astype": (("array", "sorted-array"), _astype),
    "count": (("list", "sorted"), _list_count),
}

_REFUSED: dict[str, str] = {
    "math.log": "a logarithm", "math.log2": "a logarithm", "math.log10": "a logarithm", "math.log1p": "a logarithm",
    "numpy.log": "a logarithm", "numpy.log2": "a logarithm", "numpy.log10": "a logarithm", "numpy.log1p": "a logarithm",
    "math.exp": "an exponential", "numpy.exp": "an exponential", "math.sqrt": "a square root", "numpy.sqrt": "a square root",
    "builtins.round": "round()", "numpy.round": "round()", "numpy.around": "round()", "builtins.enumerate": "enumerate()",
    "builtins.zip": "zip()", "builtins.map": "map()", "builtins.filter": "filter()", "builtins.reversed": "reversed()",
    "builtins.iter": "iter()", "builtins.next": "next()", "builtins.isinstance": "isinstance()", "builtins.getattr": "getattr()",
    "builtins.eval": "eval()", "builtins.exec": "exec()", "numpy.percentile": "np.percentile", "numpy.quantile": "np.quantile",
}

_WHY: dict[str, str] = {
    "a logarithm": "the language is exact rational arithmetic; a logarithm has no rational value (rewrite the score without it)",
    "an exponential": "the language is exact rational arithmetic",
    "a square root": "the language is exact rational arithmetic",
    "enumerate()": "a record's position depends on the order of the records",
    "zip()": "pairing records by position depends on their order",
    "np.percentile": "its interpolation is not traced; index sorted records instead",
    "np.quantile": "its interpolation is not traced; index sorted records instead",
}


def call(tracer: Tracer, function: Value, args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    """``function(*args, **kwargs)`` on traced values."""
    if isinstance(function, Callable_) and function.bound:
        args = list(function.bound) + args
    if not isinstance(function, Callable_):
        raise Refused(f"a call of a {function.kind}")
    target = function.target
    if isinstance(target, str):  # a method of traced records
        forms, method = METHODS[target]
        _consume(tracer, args, kwargs)
        return method(tracer, args, dict(kwargs))
    name = qualified_name(target)
    if any(name == prefix or name.startswith(prefix + ".") for prefix in _RANDOM):
        raise Refused(f"randomness ({name})", "a quality is a function of the data and the output; draw randomness outside it")
    if any(name == prefix or name.startswith(prefix + ".") for prefix in _OUTSIDE):
        raise Refused(f"{name}()", "I/O and the environment have no place in a quality")
    if name in _REFUSED:
        what = _REFUSED[name]
        raise Refused(f"{what} ({name})", _WHY.get(what, "outside the traceable subset"))
    handler = HANDLERS.get(name)
    if handler is not None:
        _consume(tracer, args, kwargs)
        return handler(tracer, list(args), dict(kwargs))
    if isinstance(target, types.FunctionType) and not (target.__module__ or "").split(".")[0] in ("numpy", "math", "statistics", "bisect", "fractions"):
        return inline(tracer, target, args, kwargs, node)
    raise Refused(f"the call {name}()", "outside the traceable subset")


def _consume(tracer: Tracer, args: list[Value], kwargs: dict[str, Value]) -> None:
    """A builtin iterates the generators it is given (an inlined function iterates them itself, if it does)."""
    for argument in [*args, *kwargs.values()]:
        tracer.consume(argument)


def inline(tracer: Tracer, function: types.FunctionType, args: list[Value], kwargs: dict[str, Value], node: ast.AST) -> Value:
    """A call of a plain Python function, traced in place with its arguments bound."""
    if function in tracer.stack:
        raise Refused(f"recursion ({function.__qualname__} calls itself)", "a traced function runs once per call; recursion has no bound")
    if len(tracer.stack) >= 20:
        raise Refused("calls nested more than 20 deep")
    source = source_of(function)
    tree = source.tree
    params = tree.args
    if params.vararg or params.kwarg:
        raise Refused(f"a call of {function.__qualname__}(*args, **kwargs)")
    names = [a.arg for a in params.posonlyargs + params.args]
    bound: dict[str, Value] = {}
    if len(args) > len(names):
        raise Refused(f"{function.__qualname__}() given {len(args)} arguments", f"it takes {len(names)}")
    for name, value in zip(names, args):
        bound[name] = value
    kwonly = [a.arg for a in params.kwonlyargs]
    for key, value in kwargs.items():
        if key not in names and key not in kwonly:
            raise Refused(f"{function.__qualname__}() given {key}=")
        if key in bound:
            raise Refused(f"{function.__qualname__}() given {key} twice")
        bound[key] = value
    defaults = function.__defaults__ or ()
    for name, default in zip(names[len(names) - len(defaults) :], defaults):
        bound.setdefault(name, python_value(default, name))
    for name, default in (function.__kwdefaults__ or {}).items():
        bound.setdefault(name, python_value(default, name))
    missing = [n for n in names + kwonly if n not in bound]
    if missing:
        raise Refused(f"{function.__qualname__}() without {missing[0]}")
    caller = tracer.frame
    tracer.stack.append(function)
    tracer.frame = Frame(source, bound)
    try:
        result = tracer.run_body(source.body())
    finally:
        tracer.frame = caller
        tracer.stack.pop()
    if isinstance(result, Const) and result.value is None:
        raise Refused(f"{function.__qualname__}() returning None on some path")
    if isinstance(result, Undefined):
        raise Refused(f"{function.__qualname__}() always raising")
    return result


def attribute(tracer: Tracer, value: Value, name: str) -> Value:
    """``value.name``: a module's function, a record's field, an output variable, a method of the records."""
    if isinstance(value, Module):
        try:
            found = getattr(value.module, name)
        except AttributeError:
            raise Refused(f"{value.name}.{name}", "no such attribute") from None
        return python_value(found, f"{value.name}.{name}")
    if isinstance(value, Record):
        return value.field(name)
    if isinstance(value, Output):
        return value.variable(name)
    if isinstance(value, Records):
        if name in METHODS and value.form in METHODS[name][0]:
            return Callable_(name, f"{name}()", (value,))
        if name == "size" and value.is_array:
            return Num(records_length(tracer, value))
        raise Refused(f"the attribute .{name} of the records", "outside the traceable subset")
    if isinstance(value, Const) and isinstance(value.value, Fraction) and name in ("numerator", "denominator"):
        return Const(getattr(value.value, name))
    if isinstance(value, Callable_) and qualified_name(value.target).startswith("numpy") and name in ("reduce", "accumulate", "outer", "at"):
        raise Refused(f"the ufunc method .{name}")
    raise Refused(f"the attribute .{name} of a {value.kind}")


def _positional(args: list[Value], kwargs: dict[str, Value], count: int, what: str, names: tuple[str, ...] = ()) -> list[Value]:
    values = list(args)
    for index, name in enumerate(names):
        if name in kwargs and index >= len(values):
            values.append(kwargs.pop(name))
    if kwargs:
        raise Refused(f"{what}() with {', '.join(f'{k}=' for k in kwargs)}", "outside the traceable subset")
    if len(values) != count:
        raise Refused(f"{what}() with {len(values)} arguments", f"it is traced with {count}")
    return values


def _items_of(value: Value, what: str) -> tuple[Value, ...]:
    if isinstance(value, Items):
        return value.items
    if isinstance(value, Const) and isinstance(value.value, tuple | range | frozenset):
        return tuple(Const(v) for v in value.value)
    raise Refused(f"{what} of a {value.kind}")
