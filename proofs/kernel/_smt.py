"""The kernel's only door to z3: one context per check, budgeted calls, and side conditions discharged in batches.

A side condition is an :class:`Obligation`: a formula whose satisfiability
would be a *violation* (a change above a bound, a bound below its premises),
built by the kernel from the quality function and the derivation's numbers.
It holds only when z3 answers ``unsat``; ``sat`` and ``unknown`` both reject
("could not confirm").  Obligations over the dataset size ``n`` are first
asked over a real ``n`` (a superset of the integers, so ``unsat`` there is
``unsat`` over the integers), then at the first sizes exactly and over a
real ``n`` beyond them, and last over an integer ``n``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import z3

from expmech.spec import Booleans, Categories, Domain, Grid, IntRange, RationalRange

from ._verdict import Rejected

__all__ = ["Obligation", "Session", "Unsupported"]

#: Grids of at most this many points are written as a disjunction of equalities (larger: arithmetic runs).
GRID_POINTS = 64


class Unsupported(Exception):
    """A construct the kernel does not encode (a rejection, never a guess)."""


@dataclass(frozen=True)
class Obligation:
    """A side condition of ``node``: ``violation(n, n_high)`` must be unsatisfiable for every ``start <= n <= stop``.

    ``violation`` receives a real-sorted term for ``n``; ``uses_n`` is False
    when the formula does not mention it.  ``what`` words the condition.
    """

    node: str
    what: str
    violation: Callable[[Any], Any]
    start: int
    stop: int | None
    uses_n: bool


class Session:
    """One check's z3 context, budget, variables, solver-call count and pending obligations."""

    def __init__(self, rlimit: int, timeout_ms: int) -> None:
        self.ctx = z3.Context()
        self.rlimit = rlimit
        self.timeout_ms = timeout_ms
        self.queries = 0
        self.pending: list[Obligation] = []
        self._keys: set[Any] = set()
        self.background: list[Any] = []  # domain constraints of every variable made
        self._fresh = 0

    # -- terms -------------------------------------------------------------------------
    def real(self, name: str) -> Any:
        """A real variable."""
        return z3.Real(name, self.ctx)

    def integer(self, name: str) -> Any:
        """An integer variable."""
        return z3.Int(name, self.ctx)

    def num(self, value: Fraction | int) -> Any:
        """An exact numeral (an integer stays an Int)."""
        value = Fraction(value)
        if value.denominator == 1:
            return z3.IntVal(value.numerator, self.ctx)
        return z3.RealVal(f"{value.numerator}/{value.denominator}", self.ctx)

    def boolean(self, value: bool) -> Any:
        """``True`` or ``False``."""
        return z3.BoolVal(value, self.ctx)

    def variable(self, name: str, domain: Domain) -> Any:
        """A variable ranging over exactly the codes of ``domain`` (its constraint joins every query)."""
        var = self.real(name) if domain.sort == "real" else self.integer(name)
        self.background.append(self._constraint(var, domain))
        return var

    def _constraint(self, var: Any, domain: Domain) -> Any:
        if isinstance(domain, Grid):
            points = [Fraction(p) for p in domain.points]
            if len(points) <= GRID_POINTS:
                return z3.Or(*[var == self.num(p) for p in points])
            return z3.Or(*self._runs(var, points))
        if isinstance(domain, Booleans):
            return z3.And(var >= 0, var <= 1)
        if isinstance(domain, Categories):
            return z3.And(var >= 0, var <= len(domain.labels) - 1)
        if not isinstance(domain, IntRange | RationalRange):
            raise Unsupported(f"a domain of kind {type(domain).__name__}")
        lo, hi = domain.bounds()
        parts = [var >= self.num(lo)] if lo is not None else []
        parts += [var <= self.num(hi)] if hi is not None else []
        return z3.And(*parts) if parts else self.boolean(True)

    def _runs(self, var: Any, points: list[Fraction]) -> list[Any]:
        """Sorted points as arithmetic runs ``start + step·k``, ``0 <= k < count``."""
        parts, i = [], 0
        while i < len(points):
            j = i + 1
            while j + 1 < len(points) and points[j + 1] - points[j] == points[i + 1] - points[i]:
                j += 1
            if j >= len(points) or j - i < 2:
                parts.append(var == self.num(points[i]))
                i += 1
                continue
            self._fresh += 1
            k = self.integer(f"grid_k{self._fresh}")
            parts.append(z3.And(var == self.num(points[i]) + self.num(points[i + 1] - points[i]) * k, k >= 0, k <= j - i))
            i = j + 1
        return parts

    # -- solving -----------------------------------------------------------------------
    def solve(self, assertions: Sequence[Any]) -> str:
        """``"sat"``, ``"unsat"`` or ``"unknown"`` for the assertions with every domain constraint."""
        self.queries += 1
        solver = z3.Solver(ctx=self.ctx)
        solver.set("rlimit", self.rlimit)
        solver.set("timeout", self.timeout_ms)
        solver.add(*self.background, *assertions)
        try:
            answer = solver.check()
        except z3.Z3Exception:
            return "unknown"
        return "unsat" if answer == z3.unsat else "sat" if answer == z3.sat else "unknown"

    def require(self, obligation: Obligation, key: Any = None) -> None:
        """Queue a side condition (once per ``key``)."""
        if key is not None:
            if key in self._keys:
                return
            self._keys.add(key)
        self.pending.append(obligation)

    def _over(self, obligation: Obligation, n: Any, start: int, stop: int | None) -> Any:
        parts = [obligation.violation(n)]
        if obligation.uses_n:
            parts = [n >= start, *([n <= stop] if stop is not None else []), *parts]
        return z3.And(*parts)

    def discharge(self) -> None:
        """Confirm every pending obligation (one batched query, then one by one); raise :class:`Rejected` at the first failure."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        n = self.real("n")
        if self.solve([z3.Or(*[self._over(o, n, o.start, o.stop) for o in pending])]) == "unsat":
            return
        for obligation in pending:
            self._one(obligation)

    def _one(self, o: Obligation) -> None:
        n = self.real("n")
        answer = self.solve([self._over(o, n, o.start, o.stop)])
        if answer != "unsat" and o.uses_n:
            sizes = [k for k in range(o.start, o.start + 3) if o.stop is None or k <= o.stop]
            exact = [self.solve([self._over(o, z3.RealVal(k, self.ctx), k, k)]) for k in sizes]
            if "sat" in exact:
                raise Rejected(o.node, f"{o.what}: fails at n = {sizes[exact.index('sat')]}")
            beyond = o.start + 3
            if all(a == "unsat" for a in exact):
                answer = "unsat" if o.stop is not None and o.stop < beyond else self.solve([self._over(o, n, beyond, o.stop)])
            if answer != "unsat":
                whole = self.integer("n_int")
                answer = self.solve([self._over(o, z3.ToReal(whole), o.start, o.stop)])
        if answer == "sat":
            raise Rejected(o.node, f"{o.what}: z3 finds a case where it fails")
        if answer != "unsat":
            raise Rejected(o.node, f"could not confirm {o.what} (z3 answered unknown within its budget)")
