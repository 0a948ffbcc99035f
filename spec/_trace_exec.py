"""Running a quality function's code on traced values: statements and expressions, from its ``ast``.

The tracer reads the function's source (:mod:`._trace_source`) and walks its
syntax tree with the values of :mod:`._trace_values` in place of data:

* **statements** — a sequence runs in order; an ``if`` on a condition of the
  data or the output runs both branches, each with the rest of the function,
  and joins their results in a ``Piecewise`` (so a ``return`` in a branch is
  exact); ``raise`` makes the quality undefined on its path; a ``for`` loop
  over the records runs its body once on a symbolic record, and every variable
  it updates must be an *accumulation* — ``c += e`` (a ``total``, a ``count``),
  ``m = max(m, e)`` or ``if e > m: m = e`` (an order statistic) — under
  conditions on the record; a loop over constants is unrolled;
* **expressions** — arithmetic (``/`` exact, ``//`` a ``floor``), comparisons
  (always sympy relations: ``x == r`` is ``Eq(x, r)``, never Python's
  ``bool``), ``and``/``or``/``not`` with Python's meaning, conditional
  expressions, comprehensions and generators over the records, subscripts,
  calls (:mod:`._trace_calls`).

Whatever has no exact counterpart raises :class:`Refused`, turned here into a
:class:`~._errors.TraceError` naming the construct, the file and the line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import sympy

from ._domains import Booleans, Categories, IntRange
from ._errors import TraceError
from ._language import AGGREGATES, Count, OrderStatistic, OutputSpace, RecordSchema, Size, Total
from ._trace_calls import attribute, call
from ._trace_ops import (
    COMPARE,
    OPERATOR_NAMES,
    RELATIONS,
    assigned_names,
    constant_value,
    exits,
    expression_name,
    extremum,
    fold_constants,
    guarded,
    guarded_value,
    is_bool,
    is_numpy,
    items_of,
    sorts_in_place,
    statement_name,
)
from ._trace_records import elementwise, index_records
from ._trace_source import Frame, FunctionSource, python_value
from ._trace_values import (
    UNDEFINED,
    Cond,
    Const,
    Items,
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
    lift_condition,
    piecewise,
    sympy_constant,
)

__all__ = ["Tracer"]

#: The most statements one trace may run (each ``if`` on the data runs the rest of the function twice).
MAX_WORK = 20_000
#: The most iterations of an unrolled loop over constants, and the most nested inlined calls.
MAX_UNROLL = 1_000
MAX_DEPTH = 20


@dataclass
class Unbound(Value):
    """A variable without a value here: set on one branch only, or inside a loop over the records."""

    why: str
    kind = "unbound"


class _Fallthrough(Exception):
    """Internal: statements ended without a return (the function returns None)."""


class Tracer:
    """Trace one quality function over a schema and an output space (see the module docstring)."""

    def __init__(self, schema: RecordSchema, outputs: OutputSpace) -> None:
        self.schema = schema
        self.outputs = outputs
        self.fields = {name: sym for name, sym, _ in schema.items()}
        self.field_symbols = frozenset(self.fields.values())
        self.categories = {sym: domain for space in (schema, outputs) for _, sym, domain in space.items() if isinstance(domain, Categories)}
        self.booleans = {sym for _, sym, domain in schema.items() if isinstance(domain, Booleans)}
        self.work = 0
        self.stack: list[Any] = []
        self.markers: set[sympy.Symbol] = set()
        self.consumed: list[Records] = []  # generators already iterated (Python's are exhausted after one pass)
        self.frame: Frame | None = None
        self.node: ast.AST | None = None

    # -- errors ---------------------------------------------------------------------------

    def error(self, node: ast.AST | None, construct: str, why: str) -> TraceError:
        """A TraceError at ``node`` of the function being traced."""
        frame = self.frame
        if frame is None:  # pragma: no cover - errors are raised while a frame runs
            return TraceError(f"{construct}: {why}", construct=construct, filename="<unknown>", lineno=0)
        line = frame.source.line(node)
        where = f"{frame.source.filename}:{line}"
        text = f"{where}: cannot trace {construct} in {frame.source.name}(): {why}" if why else f"{where}: cannot trace {construct} in {frame.source.name}()"
        return TraceError(text, construct=construct, filename=frame.source.filename, lineno=line)

    # -- entry ------------------------------------------------------------------------------

    def trace(self, source: FunctionSource) -> sympy.Expr:
        """The quality's expression: ``fn(data, r)`` run on the dataset and the output variables."""
        params = source.parameters()
        data, output = params
        self.frame = Frame(source, {data: self.dataset(), output: self.output()})
        result = self.run_body(source.body())
        return self.result_expr(result, source.tree)

    def dataset(self) -> Records:
        """The records as the function's ``data`` sees them: a list of values, or of mappings for several fields."""
        return Records(self.record(), sympy.true, "list")

    def record(self) -> Value:
        """One record: its value for a one-field schema, else a :class:`Record` of its fields."""
        values = [(name, self.field_value(sym)) for name, sym in self.fields.items()]
        return values[0][1] if len(values) == 1 else Record(tuple(values))

    def field_value(self, sym: sympy.Symbol) -> Value:
        return Cond(sympy.Eq(sym, 1)) if sym in self.booleans else Num(sym)

    def output(self) -> Value:
        values = [(name, Num(sym)) for name, sym, _ in self.outputs.items()]
        return values[0][1] if len(values) == 1 else Output(tuple(values))

    def result_expr(self, result: Value, node: ast.AST) -> sympy.Expr:
        if isinstance(result, Const) and result.value is None:
            raise self.error(node, "a path that returns None", "every path of the function must return a number")
        if isinstance(result, Undefined):
            raise self.error(node, "a function that always raises", "there is no value to trace")
        try:
            expr = as_expr(result)
        except Refused as refused:
            raise self.error(node, f"a return value that is a {result.kind}", "a quality returns one number") from None
        return expr

    # -- statements -------------------------------------------------------------------------

    def tick(self, node: ast.AST) -> None:
        self.work += 1
        if self.work > MAX_WORK:
            raise self.error(node, "a function with too many paths", f"tracing ran more than {MAX_WORK} statements (each if on the data runs the rest twice)")

    def run_body(self, stmts: list[ast.stmt]) -> Value:
        """Run a function body: its result, joined over the branches of every ``if`` on the data."""
        frame = self.frame
        assert frame is not None
        try:
            return self.run(stmts, frame.env)
        except _Fallthrough:
            return Const(None)

    def run(self, stmts: list[ast.stmt], env: dict[str, Value]) -> Value:
        for index, stmt in enumerate(stmts):
            self.tick(stmt)
            rest = stmts[index + 1 :]
            if isinstance(stmt, ast.Return):
                return Const(None) if stmt.value is None else self.eval(stmt.value, env)
            if isinstance(stmt, ast.Raise):
                return UNDEFINED
            if isinstance(stmt, ast.If):
                test = self.truth(stmt.test, env)
                if isinstance(test, bool):
                    return self.run((stmt.body if test else stmt.orelse) + rest, env)
                if not exits(stmt.body + stmt.orelse):
                    self.merge_if(stmt, test, env)
                    continue
                first = self.run(stmt.body + rest, dict(env))
                second = self.run(stmt.orelse + rest, dict(env))
                return self.join(stmt, test, first, second)
            self.statement(stmt, env, loop=False)
        raise _Fallthrough()

    def statement(self, stmt: ast.stmt, env: dict[str, Value], *, loop: bool) -> None:
        """A statement that does not end the function: an assignment, a loop, an ``if`` without exits, ``pass``."""
        self.tick(stmt)
        if isinstance(stmt, ast.Assign):
            value = self.eval(stmt.value, env)
            for target in stmt.targets:
                self.assign(target, value, env)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                self.assign(stmt.target, self.eval(stmt.value, env), env)
        elif isinstance(stmt, ast.AugAssign):
            if not isinstance(stmt.target, ast.Name):
                raise self.error(stmt, "an augmented assignment to a subscript or attribute", "only to a variable")
            current = self.lookup(stmt.target.id, env, stmt.target)
            self.node = stmt
            env[stmt.target.id] = self.binary(stmt.op, current, self.eval(stmt.value, env), stmt)
        elif isinstance(stmt, ast.If):
            test = self.truth(stmt.test, env)
            if isinstance(test, bool):
                for inner in stmt.body if test else stmt.orelse:
                    self.statement(inner, env, loop=loop)
            else:
                if exits(stmt.body + stmt.orelse):
                    raise self.error(stmt, "a return, raise, break or continue inside a loop", "a loop over the records must run to its end")
                self.merge_if(stmt, test, env)
        elif isinstance(stmt, ast.For):
            self.loop(stmt, env)
        elif isinstance(stmt, ast.Pass):
            pass
        elif isinstance(stmt, ast.Expr):
            if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
                return  # a docstring
            if sorts_in_place(stmt.value):  # values.sort(): the variable now holds its records sorted
                name = stmt.value.func.value.id  # type: ignore[attr-defined]
                current = self.lookup(name, env, stmt)
                if not isinstance(current, Records) or current.cond is not sympy.true:
                    raise self.error(stmt, f"{name}.sort() of a {current.kind}", "only the records (unfiltered) are sorted in place")
                env[name] = Records(current.body, current.cond, "sorted-array" if current.is_array else "sorted")
                return
            raise self.error(stmt, "an expression statement", "a bare expression (a call for its effect) has no place in a quality")
        elif isinstance(stmt, ast.Return | ast.Raise):
            raise self.error(stmt, f"a {type(stmt).__name__.lower()} inside a loop", "a loop over the records must run to its end")
        else:
            raise self.error(stmt, statement_name(stmt), "outside the traceable subset")

    def merge_if(self, stmt: ast.If, test: Any, env: dict[str, Value]) -> None:
        """Both branches on copies of ``env``, then every variable joined on ``test``."""
        first, second = dict(env), dict(env)
        for inner in stmt.body:
            self.statement(inner, first, loop=True)
        for inner in stmt.orelse:
            self.statement(inner, second, loop=True)
        for name in set(first) | set(second):
            a, b = first.get(name), second.get(name)
            if a is b:
                env[name] = a  # type: ignore[assignment]
            elif a is None or b is None:
                env[name] = Unbound(f"{name!r} is set on one branch of the if at line {self.frame.source.line(stmt) if self.frame else 0} only")
            else:
                env[name] = self.join(stmt, test, a, b)

    def join(self, node: ast.AST, test: Any, first: Value, second: Value) -> Value:
        """The value that is ``first`` where ``test`` holds, else ``second``."""
        if first == second:
            return first
        if isinstance(first, Unbound) or isinstance(second, Unbound):
            return first if isinstance(first, Unbound) else second
        if isinstance(first, Undefined) and isinstance(second, Undefined):
            return UNDEFINED
        if isinstance(first, Undefined):
            return Num(piecewise((self.number(second, node), sympy.Not(test))))
        if isinstance(second, Undefined):
            return Num(piecewise((self.number(first, node), test)))
        if isinstance(first, Const) and isinstance(second, Const) and (first.value is None or second.value is None):
            return Const(None) if first.value is None and second.value is None else Unbound("a path returns None")
        kinds = (Const, Num, Cond)
        if not isinstance(first, kinds) or not isinstance(second, kinds):
            raise self.error(node, f"a {first.kind if not isinstance(first, kinds) else second.kind} that depends on a condition", "only numbers and conditions can differ between branches")
        if isinstance(first, Cond | Const) and isinstance(second, Cond | Const) and is_bool(first) and is_bool(second):
            a, b = as_condition(first), as_condition(second)
            return Cond(sympy.Or(sympy.And(test, a), sympy.And(sympy.Not(test), b)), getattr(first, "numpy", False) and getattr(second, "numpy", False))
        return Num(piecewise((self.number(first, node), test), (self.number(second, node), True)))

    # -- loops ---------------------------------------------------------------------------------

    def loop(self, stmt: ast.For, env: dict[str, Value]) -> None:
        if stmt.orelse:
            raise self.error(stmt, "a for ... else", "outside the traceable subset")
        iterable = self.eval(stmt.iter, env)
        self.consume(iterable)
        if isinstance(iterable, Records):
            self.loop_records(stmt, iterable, env)
            return
        items = self.constant_items(iterable, stmt.iter)
        for item in items:
            self.assign(stmt.target, item, env)
            for inner in stmt.body:
                if isinstance(inner, ast.Break | ast.Continue):
                    raise self.error(inner, f"a {type(inner).__name__.lower()}", "outside the traceable subset")
                self.statement(inner, env, loop=True)

    def constant_items(self, value: Value, node: ast.AST) -> list[Value]:
        """The items of a collection of known length (a tuple, ``range(k)``, a list of values)."""
        if isinstance(value, Items):
            items = list(value.items)
        elif isinstance(value, Const) and isinstance(value.value, tuple | range | str | frozenset):
            items = [Const(v) for v in (sorted(value.value) if isinstance(value.value, frozenset) else value.value)]
        else:
            raise self.error(node, f"a loop over a {value.kind}", "loops go over the records or over constants")
        if len(items) > MAX_UNROLL:
            raise self.error(node, "a loop over more than 1000 constants", "it is unrolled, one copy per item")
        return items

    def loop_records(self, stmt: ast.For, records: Records, env: dict[str, Value]) -> None:
        """A loop over the records: its body once, on a symbolic record; each updated variable an accumulation."""
        assigned = assigned_names(stmt.body) | assigned_names([ast.Assign(targets=[stmt.target], value=ast.Constant(0))])
        inner_env = dict(env)
        markers: dict[str, sympy.Symbol] = {}
        for name in assigned:
            current = env.get(name)
            if isinstance(current, Const | Num | Cond) and not (isinstance(current, Const) and current.value is None):
                marker = sympy.Dummy(f"{name}_before", real=True)
                markers[name] = marker
                self.markers.add(marker)
                inner_env[name] = Num(marker)
        self.assign(stmt.target, records.body, inner_env)
        body_env = dict(inner_env)
        for inner in stmt.body:
            if isinstance(inner, ast.Break | ast.Continue):
                raise self.error(inner, f"a {type(inner).__name__.lower()} in a loop over the records", "a loop over the records must run to its end")
            self.statement(inner, body_env, loop=True)
        guard = records.cond
        for name in assigned:
            after = body_env.get(name)
            if name not in markers:
                env[name] = Unbound(f"{name!r} is set inside the loop over the records at line {self.frame.source.line(stmt) if self.frame else 0}: after it, it would hold the last record's value")
                continue
            marker = markers[name]
            before = env[name]
            if after is None or isinstance(after, Unbound):
                raise self.error(stmt, f"the variable {name!r} in a loop over the records", after.why if isinstance(after, Unbound) else "it has no value after the loop body")
            env[name] = self.accumulated(stmt, name, before, marker, after, guard)
            self.markers.discard(marker)

    def accumulated(self, stmt: ast.For, name: str, before: Value, marker: sympy.Symbol, after: Value, guard: Any) -> Value:
        """The value of an accumulation after the loop, from its value before and one iteration's update."""
        expr = self.number(after, stmt)
        if marker not in expr.free_symbols:
            raise self.error(stmt, f"the assignment of {name!r} in a loop over the records", "after the loop it would hold the last record's value; accumulate with += or max/min")
        step = expr - marker
        if not step.atoms(*AGGREGATES):  # sympy's folding would move a record's condition out of an aggregate
            step = sympy.piecewise_fold(step)
        start = self.number(before, stmt)
        if marker not in step.free_symbols:
            step = guarded(step, guard)
            return Num(start + self.total(step, stmt))
        extreme = extremum(expr, marker)
        if extreme is not None:
            kind, body = extreme
            body = guarded_value(body, guard)
            if body is None:
                raise self.error(stmt, f"a max/min accumulation of {name!r} under a condition", "a max or min over some of the records is not an order statistic")
            self.check_per_record(body, stmt, f"the max/min accumulation of {name!r}")
            index = sympy.Integer(0) if kind is sympy.Min else Size() - 1
            statistic = OrderStatistic(body, index)
            return Num(piecewise((start, sympy.Eq(Size(), 0)), (kind(start, statistic), True)))
        raise self.error(stmt, f"the update of {name!r} in a loop over the records", "only accumulations c += e, c -= e, m = max(m, e), m = min(m, e) are traced")

    # -- assignment and names -------------------------------------------------------------------

    def assign(self, target: ast.expr, value: Value, env: dict[str, Value]) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
            return
        if isinstance(target, ast.Tuple | ast.List):
            if isinstance(value, Output):
                parts: list[Value] = [v for _, v in value.variables]
            elif isinstance(value, Items):
                parts = list(value.items)
            elif isinstance(value, Const) and isinstance(value.value, tuple):
                parts = [Const(v) for v in value.value]
            else:
                raise self.error(target, f"unpacking a {value.kind}", "only an output of several variables or a tuple of known length unpack")
            if len(parts) != len(target.elts) or any(isinstance(t, ast.Starred) for t in target.elts):
                raise self.error(target, "an unpacking of the wrong length", f"{len(parts)} values into {len(target.elts)} names")
            for sub, part in zip(target.elts, parts):
                self.assign(sub, part, env)
            return
        raise self.error(target, f"an assignment to a {type(target).__name__.lower()}", "only to variables (the data is never changed)")

    def lookup(self, name: str, env: dict[str, Value], node: ast.AST) -> Value:
        if name in env:
            value = env[name]
            if isinstance(value, Unbound):
                raise self.error(node, f"the variable {name!r}", value.why)
            return value
        frame = self.frame
        assert frame is not None
        try:
            found = frame.source.resolve(name)
        except LookupError:
            raise self.error(node, f"the name {name!r}", "it is not defined") from None
        try:
            return python_value(found, name)
        except Refused as refused:
            raise self.error(node, refused.construct, refused.why) from None

    # -- expressions ----------------------------------------------------------------------------

    def truth(self, node: ast.expr, env: dict[str, Value]) -> Any:
        """A condition: a Python ``bool`` when it is a constant, else a sympy condition."""
        value = self.eval(node, env)
        try:
            if isinstance(value, Records):
                if value.is_array:
                    raise Refused("the truth of a numpy array", "numpy refuses it (use .any() or .all())")
                return self.nonempty(value)
            if isinstance(value, Items):
                return bool(value.items)
            cond = as_condition(value)
        except Refused as refused:
            raise self.error(node, refused.construct, refused.why) from None
        if cond is sympy.true or cond is sympy.false:
            return bool(cond)
        return cond

    def consume(self, value: Any) -> None:
        """A generator is iterated: refused the second time (Python's would be exhausted and yield nothing)."""
        if isinstance(value, Records) and value.form == "generator":
            if any(seen is value for seen in self.consumed):
                raise Refused("a generator used twice", "a Python generator is exhausted after its first use; use a list comprehension")
            self.consumed.append(value)

    def nonempty(self, records: Records) -> Any:
        count = self.count(records.cond, None)
        return sympy.Ne(count, 0)

    def eval(self, node: ast.expr, env: dict[str, Value]) -> Value:
        self.node = node
        try:
            return self._eval(node, env)
        except Refused as refused:
            raise self.error(node, refused.construct, refused.why) from None
        except (TypeError, ValueError, ArithmeticError) as error:  # sympy refusing to build a term: never a crash
            if isinstance(error, TraceError):
                raise
            raise self.error(node, expression_name(node).removeprefix("a ").removesuffix(" expression") + " expression", f"sympy cannot build it ({' '.join(str(error).split())[:160]})") from None

    def _eval(self, node: ast.expr, env: dict[str, Value]) -> Value:  # noqa: C901 - one branch per kind of node
        if isinstance(node, ast.Constant):
            return constant_value(node.value)
        if isinstance(node, ast.Name):
            return self.lookup(node.id, env, node)
        if isinstance(node, ast.BinOp):
            return self.binary(node.op, self.eval(node.left, env), self.eval(node.right, env), node)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node.op, self.eval(node.operand, env))
        if isinstance(node, ast.BoolOp):
            return self.boolean(node, env)
        if isinstance(node, ast.Compare):
            return self.compare(node, env)
        if isinstance(node, ast.IfExp):
            test = self.truth(node.test, env)
            if isinstance(test, bool):
                return self.eval(node.body if test else node.orelse, env)
            return self.join(node, test, self.eval(node.body, env), self.eval(node.orelse, env))
        if isinstance(node, ast.Call):
            function = self.eval(node.func, env)
            if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
                raise Refused("a call with *args or **kwargs")
            args = [self.eval(a, env) for a in node.args]
            kwargs = {k.arg: self.eval(k.value, env) for k in node.keywords if k.arg is not None}
            self.node = node
            return call(self, function, args, kwargs, node)
        if isinstance(node, ast.Attribute):
            return attribute(self, self.eval(node.value, env), node.attr)
        if isinstance(node, ast.Subscript):
            return self.subscript(self.eval(node.value, env), node.slice, env)
        if isinstance(node, ast.Tuple | ast.List):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                raise Refused("a starred item")
            items = tuple(self.eval(e, env) for e in node.elts)
            if all(isinstance(i, Const) for i in items) and isinstance(node, ast.Tuple):
                return Const(tuple(constants(items)))
            return Items(items, "tuple" if isinstance(node, ast.Tuple) else "list")
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            return self.comprehension(node, env)
        if isinstance(node, ast.JoinedStr):
            raise Refused("an f-string", "text has no place in a quality")
        raise Refused(expression_name(node), "outside the traceable subset")

    def number(self, value: Value, node: ast.AST | None = None) -> sympy.Expr:
        """``value`` as a number (a condition as 0/1); a TraceError otherwise."""
        try:
            return as_expr(value)
        except Refused as refused:
            raise self.error(node or self.node, refused.construct, refused.why) from None

    # -- operators --------------------------------------------------------------------------------

    def binary(self, op: ast.operator, left: Value, right: Value, node: ast.AST) -> Value:
        if isinstance(left, Records) or isinstance(right, Records):
            return elementwise(self, lambda a, b: self.binary(op, a, b, node), left, right, OPERATOR_NAMES.get(type(op), "an operator"))
        if isinstance(left, Const) and isinstance(right, Const):
            return fold_constants(op, left.value, right.value)
        if isinstance(left, Items) or isinstance(right, Items):
            first, second = items_of(left), items_of(right)
            if isinstance(op, ast.Add) and first is not None and second is not None:
                return Items(first + second, "list")
            raise Refused(f"{OPERATOR_NAMES.get(type(op), 'an operator')} on a list or tuple", "Python would repeat or concatenate it")
        if not isinstance(left, Const | Num | Cond) or not isinstance(right, Const | Num | Cond):
            odd = left if not isinstance(left, Const | Num | Cond) else right
            raise Refused(f"{OPERATOR_NAMES.get(type(op), 'an operator')} on a {odd.kind}")
        if isinstance(op, ast.BitAnd | ast.BitOr | ast.BitXor):
            if is_bool(left) and is_bool(right):
                a, b = as_condition(left), as_condition(right)
                joined = sympy.And(a, b) if isinstance(op, ast.BitAnd) else sympy.Or(a, b) if isinstance(op, ast.BitOr) else sympy.Xor(a, b)
                if isinstance(op, ast.BitXor):
                    joined = sympy.Or(sympy.And(a, sympy.Not(b)), sympy.And(sympy.Not(a), b))
                return Cond(joined, is_numpy(left) or is_numpy(right))
            raise Refused("a bitwise operator on numbers", "only on conditions (&, |, ^ as and, or, xor)")
        if is_numpy(left) and is_numpy(right) and isinstance(left, Cond) and isinstance(right, Cond):
            if isinstance(op, ast.Add):
                return Cond(sympy.Or(left.expr, right.expr), True)
            if isinstance(op, ast.Mult):
                return Cond(sympy.And(left.expr, right.expr), True)
            raise Refused("arithmetic between two numpy booleans", "numpy's + is or, * is and, - is refused; write | and & or convert with .astype(int)")
        a, b = as_expr(left), as_expr(right)
        if isinstance(op, ast.Add):
            return Num(a + b)
        if isinstance(op, ast.Sub):
            return Num(a - b)
        if isinstance(op, ast.Mult):
            return Num(a * b)
        if isinstance(op, ast.Div | ast.FloorDiv | ast.Mod):
            if b == 0:
                raise Refused("a division by zero", "the function always raises here")
            if isinstance(op, ast.Div):
                return Num(a / b)
            quotient = sympy.floor(a / b)
            return Num(quotient if isinstance(op, ast.FloorDiv) else a - b * quotient)
        if isinstance(op, ast.Pow):
            if not (isinstance(right, Const) and isinstance(right.value, int) and not isinstance(right.value, bool)):
                raise Refused("a power with an exponent that is not an integer constant")
            if abs(right.value) > 64:
                raise Refused("a power above 64")
            if right.value < 0 and a == 0:
                raise Refused("a division by zero")
            return Num(a**right.value)
        raise Refused(OPERATOR_NAMES.get(type(op), type(op).__name__), "outside the traceable subset")

    def unary(self, op: ast.unaryop, operand: Value) -> Value:
        if isinstance(operand, Records):
            return elementwise(self, lambda a, _b: self.unary(op, a), operand, None, OPERATOR_NAMES.get(type(op), "an operator"))
        if isinstance(op, ast.Not):
            if isinstance(operand, Items):
                return Const(not operand.items)
            cond = as_condition(operand)
            return Cond(sympy.Not(cond)) if cond not in (sympy.true, sympy.false) else Const(cond is sympy.false)
        if isinstance(operand, Const):
            if isinstance(op, ast.USub):
                return Const(-operand.value)
            if isinstance(op, ast.UAdd):
                return Const(+operand.value)
            if isinstance(op, ast.Invert) and isinstance(operand.value, int) and not isinstance(operand.value, bool):
                return Const(~operand.value)
            raise Refused(f"{OPERATOR_NAMES.get(type(op), 'an operator')} on {operand.value!r}")
        if isinstance(op, ast.Invert):
            if isinstance(operand, Cond) and operand.numpy:
                return Cond(sympy.Not(operand.expr), True)
            raise Refused("~ on a Python number or bool", "it is the bitwise complement (~True is -2)")
        expr = as_expr(operand)
        if isinstance(op, ast.USub):
            return Num(-expr)
        if isinstance(op, ast.UAdd):
            return Num(expr)
        raise Refused(OPERATOR_NAMES.get(type(op), type(op).__name__))

    def boolean(self, node: ast.BoolOp, env: dict[str, Value]) -> Value:
        """``a and b`` / ``a or b`` with Python's meaning: the deciding operand, not a bool."""
        values = [self.eval(v, env) for v in node.values]
        result = values[-1]
        for value in reversed(values[:-1]):
            if isinstance(value, Items | Records) or isinstance(result, Items | Records):
                raise Refused(f"{'and' if isinstance(node.op, ast.And) else 'or'} on a list or array")
            cond = as_condition(value)
            if cond is sympy.true or cond is sympy.false:
                keep = bool(cond)
                result = (result if keep else value) if isinstance(node.op, ast.And) else (value if keep else result)
                continue
            if is_bool(value) and is_bool(result):
                other = as_condition(result)
                result = Cond(sympy.And(cond, other) if isinstance(node.op, ast.And) else sympy.Or(cond, other))
            elif isinstance(node.op, ast.And):
                result = self.join(node, cond, result, value)
            else:
                result = self.join(node, cond, value, result)
        return result

    def compare(self, node: ast.Compare, env: dict[str, Value]) -> Value:
        left = self.eval(node.left, env)
        parts: list[Value] = []
        for op, right_node in zip(node.ops, node.comparators):
            right = self.eval(right_node, env)
            parts.append(self.relation(op, left, right))
            left = right
        if len(parts) == 1:
            return parts[0]
        result = parts[0]
        for part in parts[1:]:
            if isinstance(result, Records) or isinstance(part, Records):
                raise Refused("a chained comparison of numpy arrays", "numpy refuses its truth value")
            result = Const(bool(result.value) and bool(part.value)) if isinstance(result, Const) and isinstance(part, Const) else Cond(sympy.And(as_condition(result), as_condition(part)))
        return result

    def relation(self, op: ast.cmpop, left: Value, right: Value) -> Value:
        if isinstance(op, ast.In | ast.NotIn):
            found = self.contains(right, left)
            return found if isinstance(op, ast.In) else (Const(not found.value) if isinstance(found, Const) else Cond(sympy.Not(as_condition(found))))
        if isinstance(op, ast.Is | ast.IsNot):
            if isinstance(left, Const) and isinstance(right, Const):
                same = left.value is right.value
                return Const(same if isinstance(op, ast.Is) else not same)
            raise Refused("is / is not", "identity has no meaning on traced values")
        if isinstance(left, Records) or isinstance(right, Records):
            return elementwise(self, lambda a, b: self.relation(op, a, b), left, right, "a comparison")
        if isinstance(left, Const) and isinstance(right, Const):
            try:
                return Const(bool(COMPARE[type(op)](left.value, right.value)))
            except TypeError:
                raise Refused(f"a comparison of {left.value!r} and {right.value!r}") from None
        if not isinstance(left, Const | Num | Cond) or not isinstance(right, Const | Num | Cond):
            odd = left if not isinstance(left, Const | Num | Cond) else right
            raise Refused(f"a comparison with a {odd.kind}")
        numpy = is_numpy(left) or is_numpy(right)
        if isinstance(op, ast.Eq | ast.NotEq):
            if is_bool(left) and is_bool(right) and (isinstance(left, Cond) or isinstance(right, Cond)):
                a, b = as_condition(left), as_condition(right)
                same = sympy.Or(sympy.And(a, b), sympy.And(sympy.Not(a), sympy.Not(b)))
                return Cond(same if isinstance(op, ast.Eq) else sympy.Not(same), numpy)
            a, b = self.comparable(left, right), self.comparable(right, left)
            return Cond(sympy.Eq(a, b) if isinstance(op, ast.Eq) else sympy.Ne(a, b), numpy)
        a, b = as_expr(left), as_expr(right)
        for side in (a, b):
            if side in self.categories:
                raise Refused(f"an ordering of the category {side}", "categories compare only with == and !=")
        return Cond(RELATIONS[type(op)](a, b), numpy)

    def comparable(self, value: Value, other: Value) -> sympy.Expr:
        """``value`` for ``==`` with ``other``: a category label becomes its code when ``other`` is a category variable."""
        if isinstance(value, Const) and isinstance(value.value, str):
            if isinstance(other, Num) and other.expr in self.categories:
                domain = self.categories[other.expr]
                if value.value not in domain.labels:
                    return sympy.Integer(-1)  # a label outside the domain equals no value
                return sympy.Integer(domain.code(value.value))
            raise Refused(f"a comparison with the text {value.value!r}", "text compares only with a Categories variable")
        return as_expr(value)

    def contains(self, container: Value, item: Value) -> Value:
        """``item in container``."""
        if isinstance(container, Records):
            if container.cond is not sympy.true or container.is_array:
                raise Refused("in on a filtered list or an array")
            equal = self.relation(ast.Eq(), container.body, item)
            return Cond(sympy.Ge(self.count(as_condition(equal), None), 1))
        elements = items_of(container) if isinstance(container, Items | Const) else None
        if elements is None:
            raise Refused(f"in on a {container.kind}")
        result: Value = Const(False)
        for element in elements:
            equal = self.relation(ast.Eq(), item, element)
            result = equal if isinstance(result, Const) and not result.value else (Const(True) if isinstance(equal, Const) and equal.value else Cond(sympy.Or(as_condition(result), as_condition(equal))))
            if isinstance(result, Const) and result.value:
                return result
        return result

    def subscript(self, value: Value, index_node: ast.expr, env: dict[str, Value]) -> Value:
        if isinstance(index_node, ast.Slice):
            raise Refused("a slice", "slicing the records depends on their order")
        index = self.eval(index_node, env)
        if isinstance(value, Record):
            if isinstance(index, Const):
                return value.field(index.value)
            raise Refused("a record field chosen by a computed key")
        if isinstance(value, Output):
            if isinstance(index, Const):
                return value.variable(index.value)
            raise Refused("an output variable chosen by a computed key")
        if isinstance(value, Records):
            return index_records(self, value, index)
        if isinstance(value, Items | Const):
            elements = items_of(value)
            if elements is None:
                raise Refused(f"a subscript of a {value.kind}")
            if isinstance(index, Const):
                if not isinstance(index.value, int) or isinstance(index.value, bool):
                    raise Refused(f"an index {index.value!r}")
                if not -len(elements) <= index.value < len(elements):
                    raise Refused("an index past the end", "the function always raises IndexError here")
                return elements[index.value]
            return self.choose(elements, index)
        raise Refused(f"a subscript of a {value.kind}")

    def choose(self, elements: tuple[Value, ...], index: Value) -> Value:
        """``elements[i]`` for an ``i`` of the outputs: a Piecewise over the positions (IndexError: undefined).

        Indexed by an output variable whose integer domain lies within the positions, the last position of
        the domain is the default branch (no output reaches past it)."""
        expr = as_expr(index)
        if expr.free_symbols & self.field_symbols or expr.atoms(*AGGREGATES):
            raise Refused("a constant list indexed by the data", "only by the output")
        positions = range(-len(elements), len(elements))
        domain = self.outputs.domain(expr.name) if expr in self.outputs.symbols else None
        if isinstance(domain, IntRange) and domain.lo is not None and domain.hi is not None and -len(elements) <= domain.lo <= domain.hi < len(elements):
            positions = range(domain.lo, domain.hi + 1)
        branches = []
        for position in positions:
            element = elements[position]
            if not isinstance(element, Const | Num | Cond):
                raise Refused(f"a list of {element.kind} indexed by the output")
            branches.append((as_expr(element), sympy.Eq(expr, position)))
        if positions != range(-len(elements), len(elements)):
            branches[-1] = (branches[-1][0], sympy.true)
        return Num(piecewise(*branches))

    # -- comprehensions ------------------------------------------------------------------------------

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, env: dict[str, Value]) -> Value:
        form = "list" if isinstance(node, ast.ListComp) else "generator"
        if len(node.generators) != 1:
            raise Refused("a comprehension with several for clauses", "it would range over pairs of records")
        generator = node.generators[0]
        if generator.is_async:
            raise Refused("an async comprehension")
        iterable = self.eval(generator.iter, env)
        self.consume(iterable)
        inner = dict(env)
        if isinstance(iterable, Records):
            self.assign(generator.target, iterable.body, inner)
            cond = iterable.cond
            for test in generator.ifs:
                cond = sympy.And(cond, as_condition(self.eval(test, inner)))
            element = self.eval(node.elt, inner)
            if not isinstance(element, Const | Num | Cond | Record):
                raise Refused(f"a comprehension over the records whose items are {element.kind}s")
            if isinstance(element, Const):
                element = Num(sympy_constant(element.value)) if not isinstance(element.value, bool) else Cond(sympy.true if element.value else sympy.false)
            numpy_items = iterable.is_array and isinstance(element, Cond) and element.numpy
            return Records(element if not numpy_items else element, cond, form)
        items: list[Value] = []
        for item in self.constant_items(iterable, generator.iter):
            self.assign(generator.target, item, inner)
            keep = True
            for test in generator.ifs:
                truth = self.truth(test, inner)
                if not isinstance(truth, bool):
                    raise Refused("a filter on the data in a comprehension over constants")
                keep = keep and truth
            if keep:
                items.append(self.eval(node.elt, inner))
        return Items(tuple(items), form)

    # -- aggregates ------------------------------------------------------------------------------------

    def check_per_record(self, expr: Any, node: ast.AST | None, what: str) -> None:
        if expr.atoms(*AGGREGATES) if isinstance(expr, sympy.Basic) else False:
            raise self.error(node or self.node, f"an aggregate inside {what}", "a per-record value cannot depend on the whole dataset (a nested aggregate)")
        if isinstance(expr, sympy.Basic) and expr.free_symbols & self.markers:
            raise self.error(node or self.node, f"an accumulator read inside {what}", "an accumulation may only be updated, not read, in the loop")

    def count(self, cond: Any, node: ast.AST | None) -> sympy.Expr:
        """``count(cond)``: ``size()`` for a condition that always holds."""
        if cond is sympy.true:
            return Size()
        if cond is sympy.false:
            return sympy.Integer(0)
        self.check_per_record(cond, node, "a condition on the records")
        if not (cond.free_symbols & self.field_symbols):  # a condition on r alone: every record or none
            return sympy.Piecewise((Size(), lift_condition(cond)), (0, True))
        return Count(lift_condition(cond))

    def total(self, body: sympy.Expr, node: ast.AST | None) -> sympy.Expr:
        """``Σ body`` over the records: data-free factors (outputs, aggregates) taken out, indicators as counts."""
        if body == 0:
            return sympy.Integer(0)
        if not body.atoms(*AGGREGATES) and not (body.free_symbols & self.markers):
            return self._total_term(body, node)
        result = sympy.Integer(0)
        for term in sympy.Add.make_args(sympy.expand(body, power_base=False, power_exp=False, log=False, multinomial=True)):
            factors = sympy.Mul.make_args(term)
            outside = [f for f in factors if not (f.free_symbols & self.field_symbols)]
            inside = [f for f in factors if f.free_symbols & self.field_symbols]
            result += sympy.Mul(*outside) * self._total_term(sympy.Mul(*inside), node)
        return result

    def _total_term(self, body: sympy.Expr, node: ast.AST | None) -> sympy.Expr:
        self.check_per_record(body, node, "a sum over the records")
        if not (body.free_symbols & self.field_symbols):
            return body * Size()
        if isinstance(body, sympy.Piecewise) and all(not (pair.expr.free_symbols & self.field_symbols) for pair in body.args):
            # a term that takes constant values by cases: each value times the count of its case
            result: sympy.Expr = sympy.Integer(0)
            earlier: list[Any] = []
            for pair in body.args:
                if pair.expr != 0:
                    result += pair.expr * self.count(sympy.And(*[sympy.Not(c) for c in earlier], pair.cond), node)
                earlier.append(pair.cond)
            if body.args[-1].cond is not sympy.true:  # undefined where no case applies: keep the term as it is
                return Total(body)
            return result
        if isinstance(body, sympy.Mul):
            constants = [f for f in body.args if f.is_Rational]
            rest = [f for f in body.args if not f.is_Rational]
            if constants and len(rest) == 1 and isinstance(rest[0], sympy.Piecewise):
                return sympy.Mul(*constants) * self._total_term(rest[0], node)
        return Total(body)
