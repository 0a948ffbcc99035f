"""What a check established: the outcome with its exit code, and the report ``expmech check`` prints."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CheckOutcome", "CheckReport"]


class CheckOutcome(enum.Enum):
    """What a check established, with the exit code ``expmech check`` gives it."""

    CERTIFIES_DP = "valid: certifies ε-DP"
    NO_DP_CLAIM = "valid, but certifies no ε-DP"
    INVALID = "INVALID: forged, tampered or inconsistent"
    REFUSED = "refused: over a limit or unreadable"
    INCONCLUSIVE = "inconclusive: could not be checked here"

    @property
    def exit_code(self) -> int:
        """0 CERTIFIES_DP, 1 INVALID, 2 REFUSED, 3 NO_DP_CLAIM, 4 INCONCLUSIVE."""
        return {"CERTIFIES_DP": 0, "INVALID": 1, "REFUSED": 2, "NO_DP_CLAIM": 3, "INCONCLUSIVE": 4}[self.name]


@dataclass(frozen=True)
class CheckReport:
    """The outcome of a check: ``ok`` for a valid certificate (certifying ε-DP or not: ``outcome`` says), the checks
    ``(name, passed, detail)`` run to the first failure (``failed``, ``problems``), notes, the ``max_epsilon`` a valid
    ε was not shown within, each claim's verdict, and the side conditions checked (``obligations``; ``solver`` of them
    by a solver)."""

    ok: bool
    status: str | None
    epsilon: str | None
    checks: tuple[tuple[str, bool, str], ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())
    outcome: CheckOutcome = CheckOutcome.INVALID
    failed: str | None = None
    above_max_epsilon: str | None = None
    claims: tuple[dict[str, Any], ...] = ()
    obligations: int = 0
    solver: int = 0

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
            return f"{self.outcome.value}: ε = {self.epsilon} (status {self.status}), every claim accepted"
        if self.above_max_epsilon is not None:
            return f"valid (status {self.status}): {self.notes[0]}"
        reason = self.notes[0].removeprefix(f"{self.outcome.value}: ") if self.notes else "no ε-DP claim"
        return f"{self.outcome.value} (status {self.status}): {reason}"

    def to_json(self, certificate: str) -> dict[str, Any]:
        """The report as JSON data (``expmech check --format json``, one object per certificate)."""
        return {
            "certificate": certificate, "outcome": self.outcome.name, "exit_code": self.exit_code, "ok": self.ok, "status": self.status,
            "epsilon": self.epsilon, "summary": self.summary, "failed": self.failed, "problems": list(self.problems), "notes": list(self.notes),
            "above_max_epsilon": self.above_max_epsilon, "obligations": {"total": self.obligations, "solver": self.solver},
            "checks": [{"name": name, "passed": passed, "detail": detail} for name, passed, detail in self.checks],
            "claims": [dict(row) for row in self.claims],
        }
