"""The verifier's one door to a solver: an obligation written as SMT-LIB 2 by the verifier itself, asked of z3.

Only obligations a certificate names ``solver`` come here.  The formula and every variable's
range are the verifier's own; z3 (imported here, and only when such an obligation exists)
must answer ``unsat`` within ``rlimit``: ``sat``, ``unknown`` or an error is a rejection.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ._formula import Obligation

__all__ = ["TIMEOUT_MS", "smt2", "solve"]

TIMEOUT_MS = 20_000  # a wall-clock safety net per call; rlimit decides


def _num(q: Fraction) -> str:
    text = f"{abs(q.numerator)}.0" if q.denominator == 1 else f"(/ {abs(q.numerator)}.0 {q.denominator}.0)"
    return f"(- {text})" if q < 0 else text


def _term(t: Any) -> str:
    tag = t[0]
    if tag == "k":
        return _num(t[1])
    if tag == "v":
        return f"|{t[1]}|"
    if tag == "ite":
        return f"(ite {_cond(t[1])} {_term(t[2])} {_term(t[3])})"
    if tag == "inv":
        return f"(/ 1.0 {_term(t[1])})"
    return f"({tag} {' '.join(_term(p) for p in t[1:])})"


def _cond(c: Any) -> str:
    tag = c[0]
    if tag in ("and", "or"):
        return f"({tag} {' '.join(_cond(p) for p in c[1:])})" if len(c) > 1 else ("true" if tag == "and" else "false")
    if tag == "not":
        return f"(not {_cond(c[1])})"
    return f"({tag} {_term(c[1])} {_term(c[2])})"


def smt2(obligation: Obligation) -> str:
    """The obligation as an SMT-LIB 2 script (reals; an integer variable carries ``to_int`` equality)."""
    lines = ["(set-logic ALL)"]
    for v in obligation.variables:
        lines.append(f"(declare-const |{v.name}| Real)")
        if v.integer:
            lines.append(f"(assert (is_int |{v.name}|))")
        if v.lo is not None:
            lines.append(f"(assert (<= {_num(v.lo)} |{v.name}|))")
        if v.hi is not None:
            lines.append(f"(assert (<= |{v.name}| {_num(v.hi)}))")
        if v.values is not None:
            lines.append(f"(assert (or {' '.join(f'(= |{v.name}| {_num(p)})' for p in v.values)}))")
    lines += [f"(assert {_cond(obligation.formula)})", "(check-sat)"]
    return "\n".join(lines) + "\n"


def solve(obligation: Obligation, rlimit: int) -> str | None:
    """None when z3 answers ``unsat`` within ``rlimit``; else why not."""
    try:
        import z3
    except ImportError:
        return "z3 is not installed"
    solver = z3.Solver(ctx=z3.Context())
    solver.set("rlimit", rlimit)
    solver.set("timeout", TIMEOUT_MS)
    from .._interrupts import reraise_interrupt

    try:
        solver.from_string(smt2(obligation))
        answer = solver.check()
    except z3.Z3Exception as error:
        reraise_interrupt(str(error))
        return f"z3: {str(error)[:120]}"
    if answer == z3.unknown:
        reraise_interrupt(solver.reason_unknown())
    return None if answer == z3.unsat else "z3 finds a case where it fails" if answer == z3.sat else "z3 answered unknown within its budget"
