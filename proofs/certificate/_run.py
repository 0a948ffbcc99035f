"""One run of the certificate checker: its outcome, its report, and the state both stages share.

The gate (:mod:`._check`) and the re-derivation (:mod:`._rederive`) record
their checks on one :class:`_Check`; it lives here, apart from both, so that
the re-derivation needs nothing of the gate's module and the gate imports the
re-derivation (and so sympy, z3 and the prover) only once hostile input has
been refused. Imports nothing heavy.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._limits import CertificateLimits

if TYPE_CHECKING:
    from ._derive import Derivation
    from ._smt import SolverRun

__all__ = ["CheckOutcome", "CheckReport", "DerivationCache", "PendingDigest", "Staged", "run_stage"]


class CheckOutcome(enum.Enum):
    """What a check established, with the exit code ``expmech check`` gives it."""

    CERTIFIES_DP = "valid: certifies ε-DP"
    NO_DP_CLAIM = "valid, but certifies no ε-DP"
    INVALID = "INVALID: forged, tampered or inconsistent"
    REFUSED = "refused: over a limit or unreadable"
    INCONCLUSIVE = "inconclusive: could not be re-derived here"

    @property
    def exit_code(self) -> int:
        """0 CERTIFIES_DP, 1 INVALID, 2 REFUSED, 3 NO_DP_CLAIM, 4 INCONCLUSIVE."""
        return {"CERTIFIES_DP": 0, "INVALID": 1, "REFUSED": 2, "NO_DP_CLAIM": 3, "INCONCLUSIVE": 4}[self.name]


@dataclass(frozen=True)
class CheckReport:
    """The outcome of :func:`check_certificate`.

    ``ok`` is True when the certificate is valid — every recorded member equals
    its re-derivation and every independent check passed — whether or not it
    certifies ε-DP; ``outcome`` says which (see :class:`CheckOutcome`).
    ``checks`` lists ``(name, passed, detail)`` in the order run, ending at the
    first failure; ``failed`` names it (``"claim sensitivity"``, ``"digest"``, …)
    and ``problems`` holds its message.  ``notes`` are worth knowing but are
    not failures (cvc5 missing, another z3 version, a changed implementation).
    ``above_max_epsilon`` is the ``max_epsilon`` (as text) that a valid
    certificate of ε-DP was held to and not proved within; the outcome is then
    ``NO_DP_CLAIM`` (exit 3) although the certificate does certify its ε.
    ``kernel`` holds the proof kernel's verdict on each PROVED claim it has
    rules for: ``{"claim", "kind", "accepted", "node", "rule", "reason",
    "queries", "nodes"}`` (node and rule of the first failing node).
    """

    ok: bool
    status: str | None
    epsilon: str | None
    checks: tuple[tuple[str, bool, str], ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())
    outcome: CheckOutcome = CheckOutcome.INVALID
    failed: str | None = None
    above_max_epsilon: str | None = None
    kernel: tuple[dict[str, Any], ...] = ()

    @property
    def exit_code(self) -> int:
        """The exit code of ``expmech check`` for this certificate."""
        return self.outcome.exit_code

    @property
    def certifies_dp(self) -> bool:
        """Whether this is a valid certificate of ε-DP (within ``max_epsilon`` when one was given)."""
        return self.outcome is CheckOutcome.CERTIFIES_DP

    @property
    def summary(self) -> str:
        """One line: the outcome and, for a failure, the first failing check and why."""
        if self.failed is not None:
            return f"{self.outcome.value} — {self.problems[0] if self.problems else self.failed}"
        if self.outcome is CheckOutcome.CERTIFIES_DP:
            return f"{self.outcome.value}: ε = {self.epsilon} (status {self.status}), every claim re-derived"
        if self.above_max_epsilon is not None:
            return f"valid (status {self.status}): {self.notes[0]}"
        reason = self.notes[0].removeprefix(f"{self.outcome.value}: ") if self.notes else "no ε-DP claim"
        return f"{self.outcome.value} (status {self.status}): {reason}"


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
        self.kernel_verdicts: dict[bytes, Any] = {}


class _Stop(Exception):
    pass


_PROVENANCE = ("tools", "implementation_sha256")


class _Check:
    """One run of the checker: the checks so far, the notes, and the outcome."""

    def __init__(self, solvers: tuple[str, ...], limits: CertificateLimits, cache: DerivationCache | None, jobs: int | None = None) -> None:
        self.solvers = solvers
        self.jobs = jobs
        self.limits = limits
        self.cache = cache
        self.checks: list[tuple[str, bool, str]] = []
        self.notes: list[str] = []
        self.outcome = CheckOutcome.INVALID
        self.failed: str | None = None
        self.status: str | None = None
        self.epsilon: str | None = None
        self.above_max_epsilon: str | None = None
        self.kernel_rows: list[dict[str, Any]] = []
        self.z3_runs: dict[tuple[str, int, int], SolverRun] = cache.z3_runs if cache is not None else {}
        #: results this checker computed ahead, in a second process, while it re-derived (see :mod:`._ahead`)
        self.ahead = DerivationCache()
        #: the small-model check's report, or the error it raised, computed ahead (None: not computed)
        self.ahead_small_model: Any = None
        #: the digest of a large certificate, left to the second process by the gate (see :mod:`._digest`)
        self.pending_digest: PendingDigest | None = None

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
            self.above_max_epsilon if ok else None, tuple(self.kernel_rows),
        )


@dataclass(frozen=True)
class PendingDigest:
    """A digest the gate has not compared yet: the statement, the value the file records, and where its check goes in
    the report (the checks and notes recorded before it)."""

    statement: Any
    recorded: str
    mark: int
    notes: int


@dataclass
class Staged:
    """What a stage recorded on a scratch run: its checks, and its failure (None when it passed) with the outcome."""

    checks: list[tuple[str, bool, str]]
    failed: str | None
    outcome: Any


def run_stage(run: _Check, stage: Callable[[_Check], None]) -> Staged:
    """``stage`` run on a scratch copy of ``run``'s settings: what it recorded, without touching ``run``."""
    scratch = _Check(run.solvers, run.limits, None)
    try:
        stage(scratch)
    except _Stop:
        pass
    return Staged(scratch.checks, scratch.failed, scratch.outcome)
