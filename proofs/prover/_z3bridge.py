"""The one place that talks to z3: sympy → z3 translation, checks, optimisation, SMT-LIB2 export.

Every call is budgeted with a deterministic resource limit (``rlimit``), and a
wall-clock timeout only as a safety net; the rlimit count used and the z3
version are recorded.  z3's ``unknown`` — from a resource limit, a timeout or
incompleteness — is returned as ``"unknown"`` with z3's reason, and no caller
may read it as sat or unsat.  Queries stay in linear integer/real arithmetic
where the quality function allows it (no ``exp``, no pseudo-Boolean
encodings) so that another solver can parse the exported text.

z3 terms are DAGs: a subformula shared by several parents (the branches of a
nested ``Max``, an aggregate used twice) is translated once — the translator
memoises on the sympy node — and nothing walks z3 terms in Python: the logic
is classified by z3's probes and a model's variables are read from the
solver's declarations.
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
import z3
from sympy.logic.boolalg import ITE

from expmech.spec import Count, InvalidArgument, Mean, OrderStatistic, Size, Total

from .._interrupts import reraise_interrupt

__all__ = [
    "DEFAULT_RLIMIT",
    "DEFAULT_TIMEOUT_MS",
    "MAX_POWER",
    "SOLVER_LOG",
    "Query",
    "QueryResult",
    "Translator",
    "as_bool",
    "as_real",
    "as_number",
    "bool_val",
    "check",
    "context",
    "declared_variables",
    "fresh_context",
    "int_val",
    "int_var",
    "is_nonlinear",
    "maximise",
    "optimise",
    "partial_nodes",
    "q",
    "query_text",
    "real_val",
    "real_var",
    "solve",
    "z3_version",
]

DEFAULT_RLIMIT = 5_000_000
#: Optimize only guesses a bound (two plain checks certify it), so it gets a larger budget.
OPTIMISE_RLIMIT_FACTOR = 20
DEFAULT_TIMEOUT_MS = 20_000
#: The largest |exponent| of a power the translator expands into a product.
MAX_POWER = 64


def z3_version() -> str:
    """The z3 version string."""
    return z3.get_version_string()


@dataclass(frozen=True)
class QueryResult:
    """The outcome of one solver call: ``"sat"``, ``"unsat"`` or ``"unknown"`` (with z3's reason)."""

    status: str
    model: dict[str, Fraction | int | bool] | None
    reason: str
    smt2: str
    rlimit_used: int
    solver: str


@dataclass(frozen=True)
class Query:
    """A recorded query: what it asked, and what came back."""

    purpose: str
    expected: str
    result: QueryResult


_CONTEXTS: list[z3.Context] = []


@contextlib.contextmanager
def fresh_context() -> Iterator[z3.Context]:
    """A new z3 context for the terms and solvers of one proof.

    z3's heuristics follow the identifiers its terms get, which depend on every
    term created before in the same context; a proof in its own context asks
    the same questions and gets the same answers in any process, so a checker
    that re-runs it regenerates the same queries and the same verdict.
    """
    context = z3.Context()
    _CONTEXTS.append(context)
    try:
        yield context
    finally:
        _CONTEXTS.pop()


def context() -> z3.Context | None:
    """The context of the proof under way (None: z3's main context)."""
    return _CONTEXTS[-1] if _CONTEXTS else None


def int_var(name: str) -> Any:
    """An integer variable in the current context."""
    return z3.Int(name, ctx=context())


def real_var(name: str) -> Any:
    """A real variable in the current context."""
    return z3.Real(name, ctx=context())


def int_val(value: int) -> Any:
    """An integer numeral in the current context."""
    return z3.IntVal(value, ctx=context())


def real_val(value: int) -> Any:
    """A real numeral in the current context."""
    return z3.RealVal(value, ctx=context())


def bool_val(value: bool) -> Any:
    """``True`` or ``False`` in the current context."""
    return z3.BoolVal(value, ctx=context())


def q(value: Fraction | int) -> Any:
    """An exact numeral: a Python ``int`` for an integer (z3 gives it the sort of the term it meets), else ``z3.Q``."""
    value = Fraction(value)
    return z3.Q(value.numerator, value.denominator, ctx=context()) if value.denominator != 1 else value.numerator


def _value(v: Any) -> Fraction | int | bool:
    if z3.is_true(v):
        return True
    if z3.is_false(v):
        return False
    if z3.is_int_value(v):
        return v.as_long()
    if z3.is_rational_value(v):
        f = v.as_fraction()
        return Fraction(f.numerator, f.denominator)
    if z3.is_algebraic_value(v):
        raise InvalidArgument(f"irrational model value {v}", parameter="model", value=str(v))
    raise InvalidArgument(f"unexpected model value {v}", parameter="model", value=str(v))


def _model(model: z3.ModelRef, variables: list[z3.ExprRef]) -> dict[str, Fraction | int | bool]:
    """A value for every variable of the query (z3 may leave eliminated ones out: they are completed)."""
    values: dict[str, Fraction | int | bool] = {}
    for decl in model.decls():
        if decl.arity() == 0:
            try:
                values[decl.name()] = _value(model[decl])
            except InvalidArgument:
                continue  # an irrational value of a nonlinear query: left out, never read as a witness
    for variable in variables:
        name = variable.decl().name()
        if name not in values:
            try:
                values[name] = _value(model.eval(variable, model_completion=True))
            except InvalidArgument:
                continue
    return values


_RLIMIT_SEEN: weakref.WeakKeyDictionary[z3.Context, int] = weakref.WeakKeyDictionary()


def _rlimit_delta(statistics: Any) -> int:
    """The resource count one call used: z3 reports a running total for the context, so the last total is kept per context."""
    if "rlimit count" not in statistics.keys():
        return 0
    current = context() or z3.main_ctx()
    total = int(statistics.get_key_value("rlimit count"))
    used = max(0, total - _RLIMIT_SEEN.get(current, 0))
    _RLIMIT_SEEN[current] = total
    return used


def _smt2(assertions: Iterable[z3.BoolRef], logic: str) -> str:
    solver = z3.Solver(ctx=context())
    solver.add(*assertions)
    body = solver.to_smt2()
    body = body.replace("; benchmark generated from python API\n", "")
    return f"(set-logic {logic})\n{body}"


_LOGICS = (("is-qflia", "QF_LIA"), ("is-qflra", "QF_LRA"), ("is-qflira", "QF_LIRA"), ("is-qfnia", "QF_NIA"), ("is-qfnra", "QF_NRA"))


def query_text(assertions: list[z3.BoolRef]) -> str:
    """The SMT-LIB2 text :func:`check` exports for ``assertions``: an explicit ``set-logic``, then z3's ``to_smt2``."""
    return _smt2(assertions, _logic(assertions))


def _logic(assertions: list[z3.BoolRef]) -> str:
    """The SMT-LIB logic of the assertions, classified by z3's own probes (a walk in C, not in Python)."""
    goal = z3.Goal(ctx=context())
    goal.add(*assertions)
    for probe, logic in _LOGICS:
        if z3.Probe(probe, ctx=context())(goal):
            return logic
    return "QF_NIRA"


def is_nonlinear(assertions: list[Any]) -> bool:
    """Whether the assertions leave linear arithmetic (by z3's probes)."""
    return _logic(assertions).startswith("QF_N")


def _declared(text: str) -> list[z3.ExprRef]:
    """Every constant declared in SMT-LIB text (the solver's own declarations: no walk in Python)."""
    found = []
    for line in text.splitlines():
        if line.startswith("(declare-fun ") and line.endswith(")"):
            parts = line[len("(declare-fun ") : -1].split(" ")
            if len(parts) == 3 and parts[1] == "()" and parts[2] in ("Int", "Real", "Bool"):
                maker = {"Int": z3.Int, "Real": z3.Real, "Bool": z3.Bool}[parts[2]]
                found.append(maker(parts[0], ctx=context()))
    return found


def declared_variables(assertions: list[z3.BoolRef]) -> list[z3.ExprRef]:
    """Every Int, Real and Bool constant of ``assertions``, in the order of their SMT-LIB declarations."""
    solver = z3.Solver(ctx=context())
    solver.add(*assertions)
    return _declared(solver.sexpr())


#: The solver log of the derivation under way (see :mod:`expmech.proofs.certificate.check._replay`): when set,
#: :func:`check` and :func:`maximise` go through it, to record each call or to replay a recorded one.
SOLVER_LOG: ContextVar[Any] = ContextVar("expmech_solver_log", default=None)


def check(
    assertions: list[z3.BoolRef],
    *,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    export: bool = True,
) -> QueryResult:
    """Check satisfiability of ``assertions`` with a fresh solver, within ``rlimit``.

    ``export=False`` skips the SMT-LIB2 text (``smt2`` is empty) for a query
    that is a search, never evidence.  Within a solver log (:data:`SOLVER_LOG`)
    the call is recorded, or replayed from a certificate.
    """
    log = SOLVER_LOG.get()
    if log is not None:
        result: QueryResult = log.check(assertions, rlimit=rlimit, timeout_ms=timeout_ms, export=export)
        return result
    return solve(assertions, rlimit=rlimit, timeout_ms=timeout_ms, export=export)


def solve(
    assertions: list[z3.BoolRef],
    *,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    export: bool = True,
) -> QueryResult:
    """:func:`check` itself, outside any solver log: one z3 call within ``rlimit``.

    The text is exported before solving: z3's printer shares (``let``) the
    subterms other objects refer to, so a text printed while a solver holds the
    query would depend on that solver's state.
    """
    smt2 = query_text(assertions) if export else ""
    solver = z3.Solver(ctx=context())
    solver.set("rlimit", rlimit)
    solver.set("timeout", timeout_ms)
    solver.add(*assertions)
    try:
        answer = solver.check()
    except z3.Z3Exception as error:  # e.g. an interrupted nonlinear search
        reraise_interrupt(str(error))
        return QueryResult("unknown", None, f"z3 error: {error}", smt2, 0, f"z3 {z3_version()}")
    used = _rlimit_delta(solver.statistics())
    if answer == z3.sat:
        declared = _declared(smt2 if export else solver.sexpr())
        return QueryResult("sat", _model(solver.model(), declared), "", smt2, used, f"z3 {z3_version()}")
    if answer == z3.unsat:
        return QueryResult("unsat", None, "", smt2, used, f"z3 {z3_version()}")
    reason = solver.reason_unknown()
    reraise_interrupt(reason)
    return QueryResult("unknown", None, reason, smt2, used, f"z3 {z3_version()}")


def maximise(
    objective: z3.ArithRef,
    assertions: list[z3.BoolRef],
    *,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> tuple[str, Fraction | None]:
    """z3 Optimize's *guess* of ``sup objective``.

    Returns ``("bounded", value)`` for an attained maximum, ``("supremum",
    value)`` for a supremum that is not attained (z3 answers ``v − ε``),
    ``("unbounded", None)`` or ``("unknown", None)``.  A guess only: callers
    certify it with plain :func:`check` calls, so it runs with ``rlimit ×
    OPTIMISE_RLIMIT_FACTOR``.  Within a solver log (:data:`SOLVER_LOG`) the
    call is recorded, or replayed from a certificate.
    """
    log = SOLVER_LOG.get()
    if log is not None:
        answer: tuple[str, Fraction | None] = log.maximise(objective, assertions, rlimit=rlimit, timeout_ms=timeout_ms)
        return answer
    return optimise(objective, assertions, rlimit=rlimit, timeout_ms=timeout_ms)


def optimise(
    objective: z3.ArithRef,
    assertions: list[z3.BoolRef],
    *,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> tuple[str, Fraction | None]:
    """:func:`maximise` itself, outside any solver log."""
    optimiser = z3.Optimize(ctx=context())
    optimiser.set("rlimit", rlimit * OPTIMISE_RLIMIT_FACTOR)
    optimiser.set("timeout", timeout_ms)
    optimiser.add(*assertions)
    handle = optimiser.maximize(objective)
    try:
        answer = optimiser.check()
    except z3.Z3Exception as error:
        reraise_interrupt(str(error))
        return ("unknown", None)
    _rlimit_delta(optimiser.statistics())  # keep the per-call accounting of later checks honest
    if answer != z3.sat:
        if answer == z3.unknown:
            reraise_interrupt(optimiser.reason_unknown())
        return ("unknown", None)
    kind = "bounded"
    try:
        upper = handle.upper_values()
        infinite, value, epsilon = (z3.simplify(upper[i]) for i in range(3))
    except (z3.Z3Exception, IndexError):
        return ("unknown", None)
    if not (z3.is_rational_value(infinite) or z3.is_int_value(infinite)) or _value(infinite) != 0:
        return ("unbounded", None) if str(infinite) != "0" and _is_positive(infinite) else ("unknown", None)
    if not (z3.is_rational_value(epsilon) or z3.is_int_value(epsilon)):
        return ("unknown", None)
    if _value(epsilon) != 0:
        kind = "supremum"
    if z3.is_rational_value(value) or z3.is_int_value(value):
        result = _value(value)
        assert not isinstance(result, bool)
        return (kind, Fraction(result))
    return ("unknown", None)


def _is_positive(value: Any) -> bool:
    try:
        v = _value(value)
    except InvalidArgument:
        return False
    return not isinstance(v, bool) and v > 0


def as_number(term: Any) -> Any:
    """A z3 Boolean as 0/1 (the evaluator's reading of ``True``/``False`` in arithmetic); numbers unchanged."""
    if z3.is_bool(term):
        return z3.If(term, int_val(1), int_val(0))
    return term


def as_real(term: Any) -> Any:
    """An arithmetic z3 term as a Real: an Int (or a 0/1 Boolean) converted, a Real unchanged (``z3.ToReal`` of a
    Real raises "Z3 integer expression expected", so no caller converts a term whose sort it has not checked)."""
    term = as_number(term)
    return z3.ToReal(term) if z3.is_int(term) else term


def as_bool(term: Any) -> Any:
    """A number as a condition (non-zero is true, as in the evaluator); Booleans unchanged."""
    if z3.is_bool(term):
        return term
    return term != 0


_AGGREGATES = (Count, Total, Mean, Size, OrderStatistic)


class Translator:
    """sympy → z3 for the quality-function language, over a given symbol environment.

    ``env`` maps sympy symbols (record fields, output variables) and
    aggregate nodes to z3 terms.  Numbers become exact z3 numerals.  Each
    distinct sympy node is translated once (shared subexpressions stay shared
    in the z3 DAG).  A Boolean used as a number is 0/1, and a number used as a
    condition is ``!= 0`` — exactly how the exact evaluator reads them.

    :meth:`undefined` builds the condition under which evaluating an
    expression divides by zero, following the evaluator's order (``Piecewise``
    and ``And``/``Or`` are lazy, everything else is eager); ``aggregate_undefined``
    says when an aggregate itself is undefined (its body on some record, a
    mean of no records).
    """

    def __init__(
        self,
        env: Mapping[sympy.Basic, z3.ExprRef],
        *,
        aggregate_undefined: Callable[[sympy.Basic], Any] | None = None,
    ) -> None:
        self.env = dict(env)
        self._memo: dict[sympy.Basic, Any] = {}
        self._undefined: dict[sympy.Basic, Any] = {}
        self._aggregate_undefined = aggregate_undefined

    def __call__(self, expr: sympy.Basic) -> Any:
        return self._go(expr)

    def number(self, expr: sympy.Basic) -> Any:
        """``expr`` as a z3 arithmetic term."""
        return as_number(self._go(expr))

    def condition(self, expr: sympy.Basic) -> Any:
        """``expr`` as a z3 Boolean."""
        return as_bool(self._go(expr))

    def _go(self, e: sympy.Basic) -> Any:
        if e in self.env:
            return self.env[e]
        cached = self._memo.get(e)
        if cached is None:
            cached = self._translate(e)
            self._memo[e] = cached
        return cached

    def _translate(self, e: sympy.Basic) -> Any:
        if isinstance(e, sympy.Integer):
            return int_val(int(e))
        if isinstance(e, sympy.Rational):
            return z3.Q(int(e.p), int(e.q), ctx=context())
        if e is sympy.true:
            return bool_val(True)
        if e is sympy.false:
            return bool_val(False)
        if isinstance(e, sympy.Symbol):
            raise InvalidArgument(f"symbol {e} has no solver variable", parameter="expr", value=e)
        if isinstance(e, _AGGREGATES):
            raise InvalidArgument(f"aggregate {e} has no solver variable", parameter="expr", value=e)
        if isinstance(e, sympy.Piecewise):
            branches = [(self.number(p.expr), self.condition(p.cond)) for p in e.args]
            # without a default branch the last value stands for "no branch applies", which undefined() covers
            result = branches[-1][0]
            for value, cond in reversed(branches[:-1]):
                result = z3.If(cond, value, result)
            return result
        if isinstance(e, ITE):  # sympy writes some Piecewise conditions as ITE(c, a, b): a if c else b
            test, then, other = (self.condition(a) for a in e.args)
            return z3.If(test, then, other)
        if isinstance(e, sympy.And | sympy.Or | sympy.Not):
            parts = [self.condition(a) for a in e.args]
            if isinstance(e, sympy.Not):
                return z3.Not(parts[0])
            return z3.And(*parts) if isinstance(e, sympy.And) else z3.Or(*parts)
        if isinstance(e, sympy.Eq | sympy.Ne):
            left, right = self._go(e.args[0]), self._go(e.args[1])
            if z3.is_bool(left) != z3.is_bool(right):
                left, right = as_number(left), as_number(right)
            return left == right if isinstance(e, sympy.Eq) else left != right
        args = [self.number(a) for a in e.args]
        if isinstance(e, sympy.Add):
            return z3.Sum(*args)
        if isinstance(e, sympy.Mul):
            return z3.Product(*args)
        if isinstance(e, sympy.Pow):
            exponent = int(e.exp)
            base = args[0]
            if abs(exponent) > MAX_POWER:
                raise InvalidArgument(
                    f"power {e} has an exponent beyond ±{MAX_POWER}, which the solver does not expand",
                    parameter="expr",
                    value=e,
                )
            if exponent == 0:
                return int_val(1)
            product = z3.Product(*([base] * abs(exponent))) if abs(exponent) > 1 else base
            if exponent > 0:
                return product
            return 1 / (z3.ToReal(product) if z3.is_int(product) else product)
        if isinstance(e, sympy.Abs):
            return z3.If(args[0] >= 0, args[0], -args[0])
        if isinstance(e, sympy.floor):
            return args[0] if z3.is_int(args[0]) else z3.ToInt(args[0])
        if isinstance(e, sympy.Max | sympy.Min):
            result = args[0]
            for other in args[1:]:
                result = z3.If(other > result, other, result) if isinstance(e, sympy.Max) else z3.If(other < result, other, result)
            return result
        if isinstance(e, sympy.StrictLessThan):
            return args[0] < args[1]
        if isinstance(e, sympy.LessThan):
            return args[0] <= args[1]
        if isinstance(e, sympy.StrictGreaterThan):
            return args[0] > args[1]
        if isinstance(e, sympy.GreaterThan):
            return args[0] >= args[1]
        raise InvalidArgument(f"cannot translate {type(e).__name__} to the solver", parameter="expr", value=e)

    # -- partiality -----------------------------------------------------------------------

    def undefined(self, e: sympy.Basic) -> Any:
        """A z3 Boolean: evaluating ``e`` divides by zero (following the evaluator's evaluation order)."""
        if not _may_fail(e, self._aggregate_undefined is not None):
            return bool_val(False)
        cached = self._undefined.get(e)
        if cached is None:
            cached = z3.simplify(self._undefined_of(e))
            self._undefined[e] = cached
        return cached

    def _undefined_of(self, e: sympy.Basic) -> Any:
        false = bool_val(False)
        if not e.args:
            return false
        if isinstance(e, _AGGREGATES):
            return self._aggregate_undefined(e) if self._aggregate_undefined is not None else false
        if isinstance(e, sympy.Piecewise):
            result = false if e.args[-1].cond is sympy.true else bool_val(True)
            for pair in reversed(e.args):
                cond = self.condition(pair.cond)
                result = z3.Or(self.undefined(pair.cond), z3.If(cond, self.undefined(pair.expr), result))
            return result
        if isinstance(e, ITE):  # only the branch taken is evaluated
            test, then, other = e.args
            return z3.Or(self.undefined(test), z3.If(self.condition(test), self.undefined(then), self.undefined(other)))
        if isinstance(e, sympy.And | sympy.Or):
            result = false
            for arg in reversed(e.args):
                value = self.condition(arg)
                stop = z3.Not(value) if isinstance(e, sympy.And) else value
                result = z3.Or(self.undefined(arg), z3.And(z3.Not(stop), result))
            return result
        parts = [self.undefined(a) for a in e.args]
        if isinstance(e, sympy.Pow) and int(e.exp) < 0:
            parts.append(self.number(e.base) == 0)
        return z3.Or(*parts) if len(parts) > 1 else parts[0]


@functools.lru_cache(maxsize=8192)
def _may_fail(expr: sympy.Basic, aggregates: bool) -> bool:
    """Whether evaluating ``expr`` can fail at all (a division, a Piecewise without default, an aggregate's body)."""
    if isinstance(expr, sympy.Pow) and expr.exp.is_negative and not (expr.base.is_Rational and expr.base != 0):
        return True
    if isinstance(expr, sympy.Piecewise) and expr.args[-1].cond is not sympy.true:
        return True
    if aggregates and isinstance(expr, _AGGREGATES):
        return True
    return any(_may_fail(arg, aggregates) for arg in expr.args)


def partial_nodes(expr: sympy.Basic) -> list[sympy.Basic]:
    """Where evaluating ``expr`` may fail: negative powers of a base other than a non-zero number or ``size()``
    (a division by zero), each ``Piecewise`` without a default branch (no branch may apply), and each order
    statistic (its rank may not be one of the records')."""
    found: set[sympy.Basic] = set()
    stack = [expr]
    seen: set[sympy.Basic] = set()
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if isinstance(node, sympy.Pow) and node.exp.is_negative:
            if not (node.base.is_Rational and node.base != 0) and not isinstance(node.base, Size):
                found.add(node)
        if isinstance(node, sympy.Piecewise) and node.args[-1].cond is not sympy.true:
            found.add(node)
        if isinstance(node, OrderStatistic):  # undefined where its rank is not one of the records'
            found.add(node)
        stack.extend(node.args)
    return sorted(found, key=sympy.default_sort_key)
