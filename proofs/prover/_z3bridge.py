"""The one place that talks to z3: sympy → z3 translation, checks, optimisation, SMT-LIB2 export.

Every call is budgeted with a deterministic resource limit (``rlimit``), and a
wall-clock timeout only as a safety net; the rlimit count used and the z3
version are recorded.  z3's ``unknown`` — from a resource limit, a timeout or
incompleteness — is returned as ``"unknown"`` with z3's reason, and no caller
may read it as sat or unsat.  Queries stay in linear integer/real arithmetic
(no ``exp``, no pseudo-Boolean encodings) so that another solver can parse the
exported text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.spec import Count, InvalidArgument, Mean, Size, Total

__all__ = [
    "DEFAULT_RLIMIT",
    "DEFAULT_TIMEOUT_MS",
    "Query",
    "QueryResult",
    "Translator",
    "check",
    "maximise",
    "z3_version",
]

DEFAULT_RLIMIT = 5_000_000
#: Optimize only guesses a bound (two plain checks certify it), so it gets a larger budget.
OPTIMISE_RLIMIT_FACTOR = 20
DEFAULT_TIMEOUT_MS = 20_000


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
    if z3.is_algebraic_value(v):  # pragma: no cover - LRA/LIA never produce these
        raise InvalidArgument(f"irrational model value {v}", parameter="model", value=str(v))
    raise InvalidArgument(f"unexpected model value {v}", parameter="model", value=str(v))  # pragma: no cover


def _model(model: z3.ModelRef, assertions: list[z3.BoolRef]) -> dict[str, Fraction | int | bool]:
    """A value for every variable of the query (z3 may leave eliminated ones out: they are completed)."""
    values = {d.name(): _value(model[d]) for d in model.decls() if d.arity() == 0}
    for assertion in assertions:
        for variable in _variables(assertion):
            name = variable.decl().name()
            if name not in values:
                values[name] = _value(model.eval(variable, model_completion=True))
    return values


_RLIMIT_SEEN = [0]


def _rlimit_delta(statistics: Any) -> int:
    """The resource count one call used: z3 reports a running total for the context."""
    if "rlimit count" not in statistics.keys():
        return 0
    total = int(statistics.get_key_value("rlimit count"))
    used = max(0, total - _RLIMIT_SEEN[0])
    _RLIMIT_SEEN[0] = total
    return used


def _smt2(assertions: Iterable[z3.BoolRef], logic: str) -> str:
    solver = z3.Solver()
    solver.add(*assertions)
    body = solver.to_smt2()
    body = body.replace("; benchmark generated from python API\n", "")
    return f"(set-logic {logic})\n{body}"


def _logic(assertions: list[z3.BoolRef]) -> str:
    sorts: set[str] = set()
    seen: set[int] = set()
    nonlinear = False
    stack: list[z3.ExprRef] = list(assertions)
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        sorts.add(str(e.sort()))
        children = e.children()
        if z3.is_app(e) and e.decl().kind() in (z3.Z3_OP_MUL, z3.Z3_OP_DIV, z3.Z3_OP_IDIV):
            if sum(1 for c in children if not (z3.is_int_value(c) or z3.is_rational_value(c))) >= 2:
                nonlinear = True
        stack.extend(children)
    arithmetic = "N" if nonlinear else "L"
    if "Int" in sorts and "Real" in sorts:
        return f"QF_{arithmetic}IRA"
    return f"QF_{arithmetic}RA" if "Real" in sorts else f"QF_{arithmetic}IA"


def _variables(expr: z3.ExprRef) -> set[z3.ExprRef]:
    found: set[z3.ExprRef] = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if z3.is_const(e) and e.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found.add(e)
        else:
            stack.extend(e.children())
    return found


def check(
    assertions: list[z3.BoolRef],
    *,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> QueryResult:
    """Check satisfiability of ``assertions`` with a fresh solver, within ``rlimit``."""
    solver = z3.Solver()
    solver.set("rlimit", rlimit)
    solver.set("timeout", timeout_ms)
    solver.add(*assertions)
    answer = solver.check()
    used = _rlimit_delta(solver.statistics())
    smt2 = _smt2(assertions, _logic(assertions))
    if answer == z3.sat:
        return QueryResult("sat", _model(solver.model(), assertions), "", smt2, used, f"z3 {z3_version()}")
    if answer == z3.unsat:
        return QueryResult("unsat", None, "", smt2, used, f"z3 {z3_version()}")
    return QueryResult("unknown", None, solver.reason_unknown(), smt2, used, f"z3 {z3_version()}")


def maximise(
    objective: z3.ArithRef,
    assertions: list[z3.BoolRef],
    *,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> tuple[str, Fraction | None]:
    """z3 Optimize's *guess* of ``max objective``: ``("bounded", value)``, ``("unbounded", None)`` or ``("unknown", None)``.

    A guess only: callers certify it with two plain :func:`check` calls, so it
    runs with ``rlimit × OPTIMISE_RLIMIT_FACTOR``.  A supremum that is not
    attained (z3 answers ``v − ε``) is ``("unknown", None)``.
    """
    optimiser = z3.Optimize()
    optimiser.set("rlimit", rlimit * OPTIMISE_RLIMIT_FACTOR)
    optimiser.set("timeout", timeout_ms)
    optimiser.add(*assertions)
    handle = optimiser.maximize(objective)
    answer = optimiser.check()
    _rlimit_delta(optimiser.statistics())  # keep the per-call accounting of later checks honest
    if answer != z3.sat:
        return ("unknown", None)
    upper = handle.upper()
    text = str(upper)
    if text == "oo":
        return ("unbounded", None)
    if "epsilon" in text or "oo" in text:
        return ("unknown", None)
    value = z3.simplify(upper)
    if z3.is_rational_value(value) or z3.is_int_value(value):
        result = _value(value)
        assert not isinstance(result, bool)
        return ("bounded", Fraction(result))
    return ("unknown", None)


class Translator:
    """sympy → z3 for the quality-function language, over a given symbol environment.

    ``env`` maps sympy symbols (record fields, output variables, the size ``n``)
    and aggregate nodes to z3 terms.  Numbers become exact z3 numerals.
    """

    def __init__(self, env: Mapping[sympy.Basic, z3.ExprRef]) -> None:
        self.env = dict(env)

    def __call__(self, expr: sympy.Basic) -> Any:
        return self._go(expr)

    def _go(self, e: sympy.Basic) -> Any:
        if e in self.env:
            return self.env[e]
        if isinstance(e, sympy.Integer):
            return z3.IntVal(int(e))
        if isinstance(e, sympy.Rational):
            return z3.Q(int(e.p), int(e.q))
        if e is sympy.true:
            return z3.BoolVal(True)
        if e is sympy.false:
            return z3.BoolVal(False)
        if isinstance(e, sympy.Symbol):
            raise InvalidArgument(f"symbol {e} has no solver variable", parameter="expr", value=e)
        if isinstance(e, Count | Total | Mean | Size):
            raise InvalidArgument(f"aggregate {e} has no solver variable", parameter="expr", value=e)
        args = [self._go(a) for a in e.args] if not isinstance(e, sympy.Piecewise) else []
        if isinstance(e, sympy.Add):
            return z3.Sum(*args)
        if isinstance(e, sympy.Mul):
            return z3.Product(*args)
        if isinstance(e, sympy.Pow):
            exponent = int(e.exp)
            base = args[0]
            if exponent >= 0:
                return z3.Product(*([base] * exponent)) if exponent else z3.IntVal(1)
            return 1 / z3.ToReal(z3.Product(*([base] * -exponent))) if z3.is_int(base) else 1 / z3.Product(*([base] * -exponent))
        if isinstance(e, sympy.Abs):
            return z3.If(args[0] >= 0, args[0], -args[0])
        if isinstance(e, sympy.Max | sympy.Min):
            result = args[0]
            for other in args[1:]:
                result = z3.If(other > result, other, result) if isinstance(e, sympy.Max) else z3.If(other < result, other, result)
            return result
        if isinstance(e, sympy.Piecewise):
            if e.args[-1].cond is not sympy.true:
                raise InvalidArgument(
                    f"Piecewise {e} has no default branch (expr, True); the prover needs q defined everywhere",
                    parameter="expr",
                    value=e,
                )
            branches = [(self._go(p.expr), self._go(p.cond)) for p in e.args]
            result = branches[-1][0]
            for value, cond in reversed(branches[:-1]):
                result = z3.If(cond, value, result)
            return result
        if isinstance(e, sympy.Eq):
            return args[0] == args[1]
        if isinstance(e, sympy.Ne):
            return args[0] != args[1]
        if isinstance(e, sympy.StrictLessThan):
            return args[0] < args[1]
        if isinstance(e, sympy.LessThan):
            return args[0] <= args[1]
        if isinstance(e, sympy.StrictGreaterThan):
            return args[0] > args[1]
        if isinstance(e, sympy.GreaterThan):
            return args[0] >= args[1]
        if isinstance(e, sympy.And):
            return z3.And(*args)
        if isinstance(e, sympy.Or):
            return z3.Or(*args)
        if isinstance(e, sympy.Not):
            return z3.Not(args[0])
        raise InvalidArgument(f"cannot translate {type(e).__name__} to the solver", parameter="expr", value=e)
