"""The interpreter of :mod:`._quality`, one output column at a time: ``q(D, r)`` for many outputs ``r`` at once.

:meth:`QualityFunction.evaluate_many` computes ``q`` on one dataset for many
outputs.  Evaluated output by output, a large expression costs a ``Fraction``
operation (a gcd, an object) per node and output.  Here each node is evaluated
once for all the outputs, as a column of integer numerators over one common
positive denominator (not reduced between nodes: exact), and each value is
made a ``Fraction`` once at the end.  A node this module does not take in bulk
(a ``Piecewise``, an ``ITE``, an aggregate that reads an output variable) is
evaluated output by output with the interpreter's own closure for that node.

The contract is equality with the interpreter: the values are the same
rationals.  Where bulk evaluation meets an arithmetic error (a division by
zero, possibly in a part the interpreter would not reach) or a value it does
not represent, it raises :class:`Unsupported`, and the caller evaluates output
by output as before, so errors keep their messages.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import sympy
from sympy.logic.boolalg import ITE, BooleanFalse, BooleanTrue

from ._errors import QualityError
from ._language import AGGREGATES, Count, Mean, OrderStatistic, Size, Total

__all__ = ["RELATIONS", "ColumnEvaluator", "Unsupported", "compile_columns"]

Env = dict[sympy.Symbol, Any]
#: numerators and their positive common denominator (a numeric column), or truth values (denominator None)
Column = tuple[list[int], int | None]
Row = Callable[[sympy.Basic], Callable[[Env, Sequence[Env]], Any]]


class Unsupported(Exception):
    """Bulk evaluation does not apply here: evaluate output by output."""


class _Inputs:
    __slots__ = ("shared", "codes", "records", "size")

    def __init__(self, shared: Env, codes: Sequence[Env], records: Sequence[Env]) -> None:
        self.shared, self.codes, self.records, self.size = shared, codes, records, len(codes)


Node = Callable[[_Inputs], Column]


#: each relation of the language and its test on exact values (the interpreter's and the columns')
RELATIONS: dict[type, Callable[[Any, Any], bool]] = {
    sympy.Eq: operator.eq,
    sympy.Ne: operator.ne,
    sympy.Lt: operator.lt,
    sympy.Le: operator.le,
    sympy.Gt: operator.gt,
    sympy.Ge: operator.ge,
}


def _values(values: Sequence[Any]) -> Column:
    """A numeric column from exact values (int, bool, Fraction); Unsupported for anything else."""
    if all(type(value) is int for value in values):
        return list(values), 1
    common = 1
    for value in values:
        if isinstance(value, Fraction):
            common = math.lcm(common, value.denominator)
        elif not isinstance(value, int):
            raise Unsupported(type(value).__name__)
    if common == 1:
        return [int(value) if isinstance(value, Fraction) else value + 0 for value in values], 1
    return [v.numerator * (common // v.denominator) if isinstance(v, Fraction) else v * common for v in values], common


def _numeric(column: Column) -> tuple[list[int], int]:
    nums, den = column
    return (nums, den) if den is not None else ([1 if v else 0 for v in nums], 1)


def _truth(column: Column) -> list[bool]:
    nums, den = column
    return [bool(v) for v in nums] if den is not None else nums  # type: ignore[return-value]


def _reduced(nums: list[int], den: int) -> Column:
    common = math.gcd(den, *nums)
    return ([v // common for v in nums], den // common) if common > 1 else (nums, den)


def _common(columns: list[Column]) -> tuple[list[list[int]], int]:
    """The columns over their least common denominator."""
    numeric = [_numeric(c) for c in columns]
    den = math.lcm(*(d for _, d in numeric))
    return [nums if d == den else [v * (den // d) for v in nums] for nums, d in numeric], den


class ColumnEvaluator:
    """``expr`` compiled for bulk evaluation; ``row`` is the interpreter's compiler for one node (the fallback)."""

    def __init__(self, expr: sympy.Basic, row: Row) -> None:
        self._row = row
        self._node = self._compile(expr)

    def __call__(self, shared: Env, codes: Sequence[Env], records: Sequence[Env]) -> list[Fraction]:
        """``expr`` for each output of ``codes``, on ``records``, with the output-free ``shared`` values; or Unsupported."""
        if not codes:
            return []
        try:
            nums, den = _numeric(self._node(_Inputs(shared, codes, records)))
        except (ArithmeticError, QualityError) as error:
            raise Unsupported(str(error)) from None
        return [Fraction(v, den) for v in nums] if den != 1 else [Fraction(v) for v in nums]

    def _by_output(self, expr: sympy.Basic) -> Node:
        evaluate = self._row(expr)

        def each(given: _Inputs) -> Column:
            values = []
            for codes in given.codes:
                env = dict(given.shared)
                env.update(codes)
                values.append(evaluate(env, given.records))
            if values and all(isinstance(v, bool) for v in values):
                return values, None  # type: ignore[return-value]
            return _values(values)

        return each

    def _compile(self, expr: sympy.Basic) -> Node:
        node = self._compile_node(expr)
        if isinstance(expr, Size) or (isinstance(expr, sympy.Expr) and expr.has(*AGGREGATES)):

            def shared_first(given: _Inputs) -> Column:
                if expr in given.shared:  # precomputed by evaluate_many (it does not depend on the output)
                    value = given.shared[expr]
                    if type(value) is int:
                        return [value] * given.size, 1
                    if type(value) is Fraction:
                        return [value.numerator] * given.size, value.denominator
                    return _values([value] * given.size)
                return node(given)

            return shared_first
        return node

    def _compile_node(self, expr: sympy.Basic) -> Node:  # noqa: C901 - one branch per node kind, as in the interpreter
        if isinstance(expr, sympy.Rational):
            p, q = int(expr.p), int(expr.q)
            return lambda given: ([p] * given.size, q)
        if isinstance(expr, BooleanTrue | BooleanFalse):
            truth = isinstance(expr, BooleanTrue)
            return lambda given: ([truth] * given.size, None)  # type: ignore[list-item]
        if isinstance(expr, sympy.Symbol):
            symbol = expr

            def read(given: _Inputs) -> Column:
                try:
                    values = [codes[symbol] for codes in given.codes]
                except KeyError:
                    raise Unsupported(f"no value for {symbol}") from None
                if all(type(v) is int for v in values):
                    return values, 1
                if all(isinstance(v, bool) for v in values):
                    return values, None  # type: ignore[return-value]
                return _values(values)

            return read
        if isinstance(expr, Size):
            return lambda given: ([len(given.records)] * given.size, 1)
        if isinstance(expr, Count | Total | Mean | OrderStatistic | sympy.floor | sympy.Piecewise | ITE):
            return self._by_output(expr)
        parts = [self._compile(arg) for arg in expr.args]
        if isinstance(expr, sympy.Add):

            def add(given: _Inputs) -> Column:
                columns, den = _common([p(given) for p in parts])
                return [sum(values) for values in zip(*columns)], den

            return add
        if isinstance(expr, sympy.Mul):

            def mul(given: _Inputs) -> Column:
                nums, den = _numeric(parts[0](given))
                for part in parts[1:]:
                    other, other_den = _numeric(part(given))
                    nums, den = [a * b for a, b in zip(nums, other)], den * other_den
                return _reduced(nums, den)

            return mul
        if isinstance(expr, sympy.Pow):
            exponent = int(expr.exp)
            base = parts[0]
            if exponent >= 0:
                return lambda given: _reduced(*(lambda c: ([v**exponent for v in c[0]], c[1] ** exponent))(_numeric(base(given))))

            def inverse(given: _Inputs) -> Column:
                nums, den = _numeric(base(given))
                if any(v == 0 for v in nums):
                    raise Unsupported("division by zero")
                return _values([Fraction(den, v) ** -exponent for v in nums])

            return inverse
        if isinstance(expr, sympy.Abs):
            return lambda given: (lambda c: ([abs(v) for v in c[0]], c[1]))(_numeric(parts[0](given)))
        if isinstance(expr, sympy.Max | sympy.Min):
            pick = max if isinstance(expr, sympy.Max) else min

            def lattice(given: _Inputs) -> Column:
                columns, den = _common([p(given) for p in parts])
                return [pick(values) for values in zip(*columns)], den

            return lattice
        for kind, test in RELATIONS.items():
            if isinstance(expr, kind):
                left, right = parts

                def relation(given: _Inputs, test: Callable[[int, int], bool] = test) -> Column:
                    (a, b), _ = _common([left(given), right(given)])
                    return [test(x, y) for x, y in zip(a, b)], None  # type: ignore[return-value]

                return relation
        if isinstance(expr, sympy.And | sympy.Or):
            join = all if isinstance(expr, sympy.And) else any
            return lambda given: ([join(values) for values in zip(*(_truth(p(given)) for p in parts))], None)  # type: ignore[return-value]
        if isinstance(expr, sympy.Not):
            return lambda given: ([not v for v in _truth(parts[0](given))], None)  # type: ignore[return-value]
        return self._by_output(expr)


def compile_columns(expr: sympy.Basic, row: Row) -> ColumnEvaluator:
    """``expr`` compiled for :meth:`ColumnEvaluator.__call__`: the same exact values as ``row(expr)`` on each output.

    ``row`` compiles one node for the interpreter (``compile_expression``); it
    evaluates the nodes not taken in bulk.  Raises nothing itself: a node kind
    the interpreter refuses is refused by ``row`` at its own compile.
    """
    return ColumnEvaluator(expr, row)
