"""One run of the certificate checker: its outcome, its report, and the state both stages share.

The gate (:mod:`._check`) and the re-derivation (:mod:`._rederive`) record
their checks on one :class:`_Check`; it lives here, apart from both, so that
the re-derivation needs nothing of the gate's module and the gate imports the
re-derivation (and so sympy, z3 and the prover) only once hostile input has
been refused. Imports nothing heavy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...checker import CheckOutcome, CheckReport

from ..format._limits import CertificateLimits

if TYPE_CHECKING:
    from ..make._derive import Derivation
    from ._smt import SolverRun

__all__ = ["CheckOutcome", "CheckReport", "DerivationCache"]


class DerivationCache:
    """A cache of fresh derivations by their inputs and solver log, and of solver runs by query text, for checking
    many certificates.

    Sound because a derivation is a deterministic function of what it is keyed
    by (the inputs, the recorded solver log it replays, the installed z3), and
    holds only what the checker itself derived or confirmed.
    """

    def __init__(self) -> None:
        self.derivations: dict[bytes, Derivation] = {}
        self.z3_runs: dict[tuple[str, int, int], SolverRun] = {}
        self.cvc5_runs: dict[tuple[str, int], SolverRun | None] = {}


class _Stop(Exception):
    pass


_PROVENANCE = ("tools", "implementation_sha256")


class _Check:
    """One run of the checker: the checks so far, the notes, and the outcome."""

    def __init__(self, solvers: tuple[str, ...], limits: CertificateLimits, cache: DerivationCache | None) -> None:
        self.solvers = solvers
        self.limits = limits
        self.cache = cache
        self.checks: list[tuple[str, bool, str]] = []
        self.notes: list[str] = []
        self.outcome = CheckOutcome.INVALID
        self.failed: str | None = None
        self.status: str | None = None
        self.epsilon: str | None = None
        self.above_max_epsilon: str | None = None
        self.z3_runs: dict[tuple[str, int, int], SolverRun] = cache.z3_runs if cache is not None else {}

    def passed(self, name: str, detail: str = "") -> None:
        self.checks.append((name, True, detail))

    def fail(self, name: str, detail: str, outcome: CheckOutcome = CheckOutcome.INVALID) -> _Stop:
        self.checks.append((name, False, detail))
        self.failed = name
        self.outcome = outcome
        return _Stop()

    def report(self) -> CheckReport:
        problems = tuple(f"{name}: {detail}" if detail else name for name, passed, detail in self.checks if not passed)
        ok = self.failed is None and self.outcome in (CheckOutcome.CERTIFIES_DP, CheckOutcome.NO_DP_CLAIM)
        return CheckReport(
            ok, self.status, self.epsilon if ok else None, tuple(self.checks), problems, tuple(self.notes), self.outcome, self.failed,
            self.above_max_epsilon if ok else None,
        )
