"""The solver log of a derivation: every z3 call of the provers, recorded by ``certify`` and replayed by ``check``.

**Why a log.**  z3's resource count for one query depends on the history of the
process (its global caches and allocation order): the same query text costs
1977 units in one process and 2554 in another.  At a tight ``rlimit`` a call
decided by ``certify`` can therefore come back ``unknown`` in ``check`` (or the
other way round), and a model can differ, so a derivation cannot be repeated
call for call by running z3 again.  The certificate records each call's outcome
instead (``predicate.solver_calls``), and the checker replays it, confirming
everything it relies on:

* a recorded ``unknown`` is ``unknown`` again (with its recorded reason and
  count), without solving.  Sound: no prover draws a conclusion from
  ``unknown``, so claiming one only weakens what can be derived;
* a recorded ``sat`` carries its model (every constant of the query); the model
  is substituted into the query, which must simplify to true — exact
  evaluation, no search.  A model under which it simplifies to false is a false
  record.  One whose value cannot be told (z3's simplifier leaves a division by
  zero open) is not used: the query is solved again (``unsat`` then means the
  record is false, ``sat`` gives z3's own model);
* a recorded ``unsat`` is solved again with a generous budget
  (:func:`replay_budget`): it must be ``unsat``; ``sat`` means the record is
  false; ``unknown`` that the checker cannot confirm it here (inconclusive);
* z3 Optimize's answer: a bounded guess is replayed as recorded (the provers
  certify every guess with two plain checks, which are replayed as above);
  ``unbounded`` is optimised again and must be ``unbounded``;
* each call names the claim it serves and a fingerprint of its query (z3's
  structural hash of the conjunction): a call of another query, a missing call
  or a call left over means the log is not this derivation's.

The count each call records (``rlimit_used``) is replayed as is: the provers
spend their search budgets by it, so the replayed derivation takes the same
path.  It is the certifier's measurement, not a claim, and is not re-measured.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import z3

from expmech.spec import rational_text

from ...prover._z3bridge import (
    DEFAULT_RLIMIT,
    DEFAULT_TIMEOUT_MS,
    SOLVER_LOG,
    QueryResult,
    bool_val,
    context,
    declared_variables,
    int_val,
    optimise,
    query_text,
    solve,
    z3_version,
)

__all__ = ["ReplayProblem", "SolverLog", "confirm_model", "replay_budget", "solver_log"]

_INTEGER = re.compile(r"-?[0-9]+")
_RATIONAL = re.compile(r"-?[0-9]+(?:/[0-9]+)?")


def _rational(text: Any) -> Fraction | None:
    """``"p"`` or ``"p/q"`` (q > 0) as a Fraction, or None."""
    if not isinstance(text, str) or not _RATIONAL.fullmatch(text):
        return None
    numerator, _, denominator = text.partition("/")
    if denominator and int(denominator) == 0:
        return None
    return Fraction(int(numerator), int(denominator or 1))


def replay_budget(rlimit: int, timeout_ms: int) -> tuple[int, int]:
    """The rlimit and timeout a recorded ``unsat`` (or ``unbounded``) is confirmed with: 4× the call's, at least the defaults."""
    return max(4 * rlimit, DEFAULT_RLIMIT), max(4 * timeout_ms, DEFAULT_TIMEOUT_MS)


@dataclass(frozen=True)
class ReplayProblem:
    """Why a recorded solver log could not be replayed: the claim whose call failed, what failed, and whether it
    is only that this checker could not confirm a recorded answer (``inconclusive``) rather than a false record."""

    claim: str
    message: str
    inconclusive: bool = False


def _fingerprint(*terms: Any) -> str:
    """z3's structural hash of each term (the conjunction of assertions), 8 hex digits each."""
    return "".join(format(term.hash() & 0xFFFFFFFF, "08x") for term in terms)


def _conjunction(assertions: list[Any]) -> Any:
    return z3.And(*assertions) if assertions else bool_val(True)


def _model_json(model: dict[str, Any]) -> dict[str, Any]:
    return {name: value if isinstance(value, bool) else rational_text(Fraction(value)) for name, value in sorted(model.items())}


def _restricted(result: QueryResult, variables: list[Any]) -> QueryResult:
    """The result with its model cut to the query's own constants (what a replay can confirm)."""
    if result.model is None:
        return result
    names = {variable.decl().name() for variable in variables}
    return replace(result, model={name: value for name, value in result.model.items() if name in names})


def confirm_model(model: Any, assertions: list[Any]) -> dict[str, Any] | bool:
    """The recorded ``model`` as the provers read it, if it assigns every constant of the query a value of its sort
    and the query simplifies to true under it; False if the query simplifies to false under it (the model is
    not one); True if neither can be told (a value missing or of another sort, or a term z3's simplifier leaves
    open, such as a division by zero)."""
    variables = declared_variables(assertions)
    if not isinstance(model, dict) or set(model) != {variable.decl().name() for variable in variables}:
        return True
    values: dict[str, Any] = {}
    pairs = []
    for variable in variables:
        name, raw, sort = variable.decl().name(), model[variable.decl().name()], variable.sort().kind()
        if sort == z3.Z3_BOOL_SORT:
            if not isinstance(raw, bool):
                return True
            values[name], value = raw, bool_val(raw)
        elif sort == z3.Z3_INT_SORT:
            if not isinstance(raw, str) or not _INTEGER.fullmatch(raw):
                return True
            values[name] = int(raw)
            value = int_val(values[name])
        elif sort == z3.Z3_REAL_SORT:
            rational = _rational(raw)
            if rational is None:
                return True
            values[name] = rational
            value = z3.Q(values[name].numerator, values[name].denominator, ctx=context())
        else:  # pragma: no cover - declared_variables yields these three sorts only
            return True
        pairs.append((variable, value))
    body = _conjunction(assertions)
    if pairs:
        body = z3.substitute(body, *pairs)
    verdict = z3.simplify(body)
    if z3.is_true(verdict):
        return values
    return not z3.is_false(verdict)


def _malformed(entry: Any) -> str | None:
    """What makes a recorded entry one no certifier writes (the schema checks the types), or None."""
    if not isinstance(entry, dict):
        return "not an object"
    if entry.get("call") == "check":
        result, reason, model = entry.get("result"), entry.get("reason"), entry.get("model")
        if result != "unknown" and reason != "":
            return f"a {result} answer has no reason, yet {str(reason)[:40]!r} is recorded"
        if (result == "sat") != isinstance(model, dict):
            return "a sat answer, and only a sat answer, records its model"
    return None


class SolverLog:
    """Record (``recorded=None``) or replay (``recorded`` = a certificate's ``solver_calls``) the solver calls of one
    derivation; see the module docstring.  ``calls`` is the log as written; ``problem`` the first replay failure."""

    def __init__(self, recorded: list[dict[str, Any]] | None = None) -> None:
        self.recorded = recorded
        self.calls: list[dict[str, Any]] = []
        self.problem: ReplayProblem | None = None
        self.current = "derivation"

    @contextmanager
    def claim(self, name: str) -> Iterator[None]:
        """Attribute the calls made in the body to the claim ``name``."""
        previous, self.current = self.current, name
        try:
            yield
        finally:
            self.current = previous

    def _fail(self, message: str, *, inconclusive: bool = False) -> None:
        if self.problem is None:
            self.problem = ReplayProblem(self.current, f"solver call {len(self.calls) + 1}: {message}", inconclusive)

    def _entry(self, call: str, fingerprint: str) -> dict[str, Any] | None:
        """The recorded entry for the next call, if it is this call; else the replay fails (None)."""
        assert self.recorded is not None
        index = len(self.calls)
        if index >= len(self.recorded):
            self._fail(f"the derivation makes a {call} call for claim {self.current} that is not recorded ({len(self.recorded)} calls are)")
            return None
        entry = self.recorded[index]
        problem = _malformed(entry)
        if problem is not None:
            self._fail(problem)
            return None
        if (entry.get("claim"), entry.get("call"), entry.get("query")) != (self.current, call, fingerprint):
            self._fail(
                f"recorded as a {entry.get('call')} call for claim {entry.get('claim')} of query {str(entry.get('query'))[:16]}; "
                f"the derivation makes a {call} call for claim {self.current} of query {fingerprint}"
            )
            return None
        return entry

    def finish(self) -> None:
        """After the derivation: every recorded call must have been made."""
        if self.recorded is not None and self.problem is None and len(self.calls) < len(self.recorded):
            leftover = self.recorded[len(self.calls)]
            self.current = str(leftover.get("claim"))
            self._fail(f"recorded ({leftover.get('call')} of query {str(leftover.get('query'))[:16]}), but the derivation never makes it")

    def _log_check(self, fingerprint: str, result: QueryResult) -> None:
        self.calls.append(
            {
                "claim": self.current,
                "call": "check",
                "query": fingerprint,
                "result": result.status,
                "reason": result.reason if result.status == "unknown" else "",
                "rlimit_used": result.rlimit_used,
                "model": _model_json(result.model) if result.status == "sat" and result.model is not None else None,
            }
        )

    def check(self, assertions: list[Any], *, rlimit: int, timeout_ms: int, export: bool) -> QueryResult:
        """One plain solver call (the hook of :func:`~expmech.proofs.prover._z3bridge.check`)."""
        fingerprint = _fingerprint(_conjunction(assertions))
        if self.recorded is None:
            result = _restricted(solve(assertions, rlimit=rlimit, timeout_ms=timeout_ms, export=export), declared_variables(assertions))
            self._log_check(fingerprint, result)
            return result
        entry = None if self.problem is not None else self._entry("check", fingerprint)
        if entry is None:
            text = query_text(assertions) if export else ""
            return QueryResult("unknown", None, "the solver log could not be replayed", text, 0, f"z3 {z3_version()}")
        result = self._replay_check(entry, assertions, rlimit=rlimit, timeout_ms=timeout_ms, export=export)
        self._log_check(fingerprint, result)
        return result

    def _replay_check(self, entry: dict[str, Any], assertions: list[Any], *, rlimit: int, timeout_ms: int, export: bool) -> QueryResult:
        used = entry["rlimit_used"]
        text = query_text(assertions) if export else ""  # first, as solve() does: the printer's sharing depends on live references
        label = f"z3 {z3_version()}"
        if entry["result"] == "unknown":
            return QueryResult("unknown", None, entry["reason"], text, used, label)
        if entry["result"] == "sat":
            model = confirm_model(entry["model"], assertions)
            if isinstance(model, dict):
                return QueryResult("sat", model, "", text, used, label)
            if model is False:
                self._fail("recorded sat, but its recorded model does not satisfy the query")
                return QueryResult("unknown", None, "contradicts the solver log", text, used, label)
        budget, timeout = replay_budget(rlimit, timeout_ms)
        fresh = _restricted(solve(assertions, rlimit=budget, timeout_ms=timeout, export=False), declared_variables(assertions))
        if fresh.status == "unknown":
            self._fail(f"recorded {entry['result']}, but z3 cannot decide it here within rlimit {budget} ({fresh.reason})", inconclusive=True)
            return replace(fresh, smt2=text, rlimit_used=used)
        if fresh.status != entry["result"]:
            what = "its recorded model cannot be confirmed, and " if entry["result"] == "sat" else ""
            self._fail(f"recorded {entry['result']}, but {what}z3 finds it {fresh.status}")
            return replace(fresh, status="unknown", model=None, reason="contradicts the solver log", smt2=text, rlimit_used=used)
        return replace(fresh, smt2=text, rlimit_used=used)

    def maximise(self, objective: Any, assertions: list[Any], *, rlimit: int, timeout_ms: int) -> tuple[str, Fraction | None]:
        """z3 Optimize's guess (the hook of :func:`~expmech.proofs.prover._z3bridge.maximise`)."""
        fingerprint = _fingerprint(_conjunction(assertions), objective)
        if self.recorded is None:
            kind, value = optimise(objective, assertions, rlimit=rlimit, timeout_ms=timeout_ms)
        else:
            entry = None if self.problem is not None else self._entry("maximise", fingerprint)
            if entry is None:
                return ("unknown", None)
            kind, value = self._replay_maximise(entry, objective, assertions, rlimit=rlimit, timeout_ms=timeout_ms)
        self.calls.append(
            {"claim": self.current, "call": "maximise", "query": fingerprint, "result": kind, "value": None if value is None else rational_text(value)}
        )
        return kind, value

    def _replay_maximise(self, entry: dict[str, Any], objective: Any, assertions: list[Any], *, rlimit: int, timeout_ms: int) -> tuple[str, Fraction | None]:
        kind, recorded = entry["result"], entry["value"]
        if kind in ("bounded", "supremum"):
            guess = _rational(recorded)
            if guess is None:
                self._fail(f"a {kind} guess needs a rational value, not {str(recorded)[:40]!r}")
                return ("unknown", None)
            return (kind, guess)
        if recorded is not None:
            self._fail(f"an {kind} answer has no value, yet {recorded!r} is recorded")
            return ("unknown", None)
        if kind == "unknown":
            return ("unknown", None)
        budget, timeout = replay_budget(rlimit, timeout_ms)
        fresh, _ = optimise(objective, assertions, rlimit=budget, timeout_ms=timeout)
        if fresh == "unknown":
            self._fail(f"recorded {kind}, but z3 cannot decide it here", inconclusive=True)
            return ("unknown", None)
        if fresh != kind:
            self._fail(f"recorded {kind}, but z3 finds the objective {fresh}")
            return ("unknown", None)
        return (kind, None)


@contextmanager
def solver_log(log: SolverLog) -> Iterator[SolverLog]:
    """Route every z3 call of the provers made in the body through ``log``."""
    token = SOLVER_LOG.set(log)
    try:
        yield log
    finally:
        SOLVER_LOG.reset(token)
