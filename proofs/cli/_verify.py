"""``expmech verify``: certify each target, and aggregate one exit code.

Exit codes: 0 every mechanism certified; 1 a violation (REFUTED); 2 usage or
configuration error; 3 inconclusive (BOUNDED, TESTED or UNKNOWN); 4 internal
error.  With mixed results a violation wins, then an internal error, then a
usage error, then an inconclusive result.  A mechanism recorded with an
``expected`` verdict (a library's published claim known to be wrong) counts as
verified when its verdict is that one — the verdict itself is unchanged and
shown — and as a violation when it is decided otherwise (PROVED, REFUTED or
BOUNDED where another verdict was recorded).  Targets are validated before any
work (see :mod:`._targets`); an :class:`~expmech.spec.InvalidArgument` met
while certifying (a quality that raises on some dataset, say) is a usage
error, a precision cap reached is inconclusive, and only an unexpected
exception is internal.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from expmech.spec import ExpMechError, InvalidArgument

from ..certificate.make._build import Certificate, certify
from ..smallmodel import InternalInconsistency
from ..certificate.check._cost import DEFAULT_BUDGET_MB
from .._outcome import Status
from ._budget import check_budget
from ._targets import Target

__all__ = [
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "EXIT_VERIFIED",
    "EXIT_VIOLATION",
    "Verdict",
    "exit_code",
    "verify_targets",
]

EXIT_VERIFIED, EXIT_VIOLATION, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Verdict:
    """The outcome for one target: its certificate, or the error that stopped it.

    ``failure`` is ``None`` with a certificate, else ``"usage"`` (exit 2),
    ``"inconclusive"`` (exit 3) or ``"internal"`` (exit 4).
    """

    target: Target
    certificate: Certificate | None
    error: str | None = None
    failure: str | None = None

    @property
    def status(self) -> Status | None:
        """The certificate's status (None after an error)."""
        return None if self.certificate is None else self.certificate.status

    @property
    def as_expected(self) -> bool:
        """The target states an expected verdict and this is it."""
        return self.target.expected is not None and self.status is self.target.expected

    @property
    def unexpected(self) -> bool:
        """The target states an expected verdict and this one decides otherwise (PROVED, REFUTED or BOUNDED)."""
        expected = self.target.expected
        return expected is not None and self.status is not None and self.status is not expected and self.status in (Status.PROVED, Status.REFUTED, Status.BOUNDED)

    def claim(self, claim_id: str) -> dict[str, Any] | None:
        """The certificate's claim with this id."""
        if self.certificate is None:
            return None
        for claim in self.certificate.statement["predicate"]["claims"]:
            if claim["id"] == claim_id:
                return claim
        return None


def verify_targets(
    targets: list[Target],
    *,
    progress: Callable[[str], None] | None = None,
    on_verdict: Callable[[Verdict], None] | None = None,
    budget: int = DEFAULT_BUDGET_MB,
    command: str = "verify",
    **prover_options: Any,
) -> list[Verdict]:
    """Certify each target; an error becomes a verdict (usage, inconclusive or internal), never a crash.

    ``progress`` is called with each target's name as its work starts, and
    ``on_verdict`` with each verdict as soon as it is decided (so a command can
    print it, or write its certificate, before the next target starts).  Each
    target's work is estimated first and refused (a usage error naming
    ``--budget``) above ``budget`` MB (:mod:`._budget`).  A ``KeyboardInterrupt``
    is never caught: the verdicts already passed to ``on_verdict`` stand.
    """
    verdicts: list[Verdict] = []
    for target in targets:
        if progress is not None:
            progress(target.name)
        verdicts.append(_verdict(target, budget, command, prover_options))
        if on_verdict is not None:
            on_verdict(verdicts[-1])
    return verdicts


def _verdict(target: Target, budget: int, command: str, prover_options: dict[str, Any]) -> Verdict:
    """The verdict on one target (see :func:`verify_targets`)."""
    try:
        check_budget(target, budget, command=command)
        certificate = certify(
            target.quality,
            epsilon=target.epsilon,
            neighbours=target.neighbours,
            claimed=target.claimed,
            base_measure=target.base_measure,
            **({"auction": target.auction} if target.auction is not None else {}),
            **prover_options,
        )
        return Verdict(target, certificate)
    except InvalidArgument as error:
        return Verdict(target, None, f"{type(error).__name__}: {error}", "usage")
    except InternalInconsistency as error:  # the small-model check contradicts a PROVED claim: exit 4, with the pair
        return Verdict(target, None, f"{type(error).__name__}: {' '.join(str(error).split())}", "internal")
    except ExpMechError as error:
        return Verdict(target, None, f"{type(error).__name__}: {error}", "inconclusive")
    except MemoryError:  # the estimate fell short: refused as over budget, never an internal error
        return Verdict(target, None, f"BudgetExceeded: mechanism {target.name!r} ran out of memory although its estimated work fit the budget; nothing is certified", "usage")
    except Exception:  # noqa: BLE001 - reported as exit code 4 with the traceback
        return Verdict(target, None, traceback.format_exc(limit=3), "internal")


def exit_code(verdicts: list[Verdict]) -> int:
    """1 any REFUTED (or a verdict other than the one expected); else 4 any internal error; else 2 any usage error;
    else 3 anything inconclusive; else 0.  A verdict equal to its target's ``expected`` counts as verified."""
    if any(v.unexpected or (v.status is Status.REFUTED and not v.as_expected) for v in verdicts):
        return EXIT_VIOLATION
    if any(v.failure == "internal" for v in verdicts):
        return EXIT_INTERNAL
    if any(v.failure == "usage" for v in verdicts):
        return EXIT_USAGE
    if any(v.status is not Status.PROVED and not v.as_expected for v in verdicts):
        return EXIT_INCONCLUSIVE
    return EXIT_VERIFIED
