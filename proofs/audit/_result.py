"""What an audit returns: frozen data, with its evidence."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from expmech.spec import ExpMechError

from ._render import render_text
from ._status import AuditStatus

__all__ = [
    "AuditResult",
    "AuditStatus",
    "CellEvidence",
    "ChiSquare",
    "Deviation",
    "EmpiricalPrivacy",
    "ExactFinding",
    "MissingDependency",
    "PowerStatement",
    "SamplerError",
    "SamplerFailed",
    "SamplerOutOfRange",
]


class MissingDependency(ExpMechError, ImportError):
    """An optional dependency is not installed; the message names the extra that installs it."""


def require(module: str, extra: str) -> object:
    """Import ``module``, or raise :class:`MissingDependency` naming ``pip install expmech[extra]``."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise MissingDependency(
            f"{module} is needed here but cannot be imported ({error}); install it with: pip install 'expmech[{extra}]'"
        ) from None


class SamplerError(ExpMechError):
    """The sampler could not be audited: it raised, or returned something that is not an outcome."""

    def __init__(self, message: str, *, draw: int, value: Any = None) -> None:
        super().__init__(message)
        self.draw = draw
        self.value = value


class SamplerFailed(SamplerError, RuntimeError):
    """The sampler raised an exception (``draw`` is the 1-based draw at which it did)."""


class SamplerOutOfRange(SamplerError, ValueError):
    """The sampler returned a value outside the reference law's outcomes."""


@dataclass(frozen=True)
class PowerStatement:
    """How often the audit, as configured, rejects a named wrong law.

    ``power`` is the fraction of ``replicates`` seeded simulated runs (draws
    from the alternative, the same α and ``max_draws``) that rejected;
    ``median_draws`` the median number of draws they needed (``inf`` if at most
    half rejected).  ``divergence`` is ``KL(alternative ‖ exact)`` in nats per
    draw (float, for display).
    """

    alternative: str
    description: str
    power: float
    median_draws: float
    max_draws: int
    replicates: int
    divergence: float


@dataclass(frozen=True)
class CellEvidence:
    """One outcome: how often it was drawn against the exact law (``lo <= π <= hi``)."""

    outcome: Hashable
    count: int
    expected: float
    lo: Fraction
    hi: Fraction


@dataclass(frozen=True)
class ChiSquare:
    """A Pearson chi-square on the draws used (cells pooled to expected >= 5).

    With ``decides`` (the run reached ``max_draws``, an N fixed in advance) it
    is part of the verdict: ``pvalue`` is the Monte Carlo rank p-value against
    ``replicates`` simulated null statistics, compared with ``level`` (α/2).
    Without (the e-process stopped the run early) it is the asymptotic
    p-value on the draws used, for comparison only.
    """

    statistic: float
    dof: int
    pvalue: float
    cells: int
    decides: bool = False
    level: float | None = None
    replicates: int = 0


@dataclass(frozen=True)
class Deviation:
    """The smallest deviation of a stated shape this configuration catches with simulated power >= 0.8.

    ``size`` is a TV distance (or a privacy-loss excess in nats, by
    ``shape``), ``inf`` if no size up to the largest tried reached 0.8;
    ``power`` the simulated power at ``size`` over ``replicates`` seeded runs.
    """

    size: float
    power: float
    replicates: int
    shape: str


@dataclass(frozen=True)
class EmpiricalPrivacy:
    """A lower confidence bound on the sampler's privacy loss between two datasets, beside the exact loss.

    With probability at least ``confidence`` over the draws,
    ``ln P_sampler[d](outcome) − ln P_sampler[d'](outcome) >= lower_bound``
    (Clopper–Pearson on each side, ``α/2`` each); ``outcome`` and its direction
    were chosen from the exact laws before any draw.  ``exact_loss`` is the
    reference's exact ``max |ln π_d − ln π_{d'}|`` (float for display; the
    comparison ``exceeds_exact`` is decided exactly).
    """

    outcome: Hashable
    larger_on_first: bool
    draws: int
    counts: tuple[int, int]
    lower_bound: float
    confidence: float
    exact_loss: float
    exact_loss_at_outcome: float
    exceeds_exact: bool


@dataclass(frozen=True)
class ExactFinding:
    """A privacy question a library decides with floats, decided again exactly.

    ``question`` says what was decided; ``library`` what the library concluded;
    ``exact`` the exact answer; ``violation`` is True when the exact privacy
    loss exceeds the ε the library promises.
    """

    question: str
    library: str
    exact: str
    violation: bool


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`~expmech.proofs.audit_sampler`.

    ``status`` is the verdict; ``draws`` the number of draws the test used
    (it stops at the first crossing); ``e_value`` / ``log_e_value`` the
    mixture likelihood ratio after them (``statistic`` names it);
    ``p_value = min(1, 1 / max_t E_t)`` is an anytime-valid p-value;
    ``alpha`` the stated false-alarm rate; ``power`` what the run would catch;
    ``closest`` the named alternative the data favour most (or
    ``"nonparametric"``); ``evidence`` counts next to the exact law;
    ``trajectory`` ``ln E_t`` after each draw; ``rejected_by`` the part of the
    verdict that rejected (``"e-process"`` or ``"fixed-N chi-square"``);
    ``sequential_alpha`` the share of α the e-process had (α/2 when the
    chi-square takes the other half); ``detectable`` the smallest TV deviation
    the run would have caught with power >= 0.8, ``detectable_excess`` the
    privacy-loss excess likewise (with a neighbour); ``seed`` the seed of the
    run's simulations and calibration (a campaign gives each case its own).  ``mapping`` and ``findings``
    come from library adapters: how the library's parameters map onto the exact
    reference, and float decisions re-decided exactly.
    """

    name: str
    reference: str
    status: AuditStatus
    draws: int
    max_draws: int
    alpha: Fraction
    e_value: float
    log_e_value: float
    p_value: float
    closest: str
    power: tuple[PowerStatement, ...]
    evidence: tuple[CellEvidence, ...]
    trajectory: tuple[float, ...]
    chi_square: ChiSquare | None
    privacy: EmpiricalPrivacy | None
    mapping: Mapping[str, str] = field(default_factory=dict)
    findings: tuple[ExactFinding, ...] = ()
    notes: tuple[str, ...] = ()
    statistic: str = "ln of a mixture likelihood ratio (e-process) against the exact law"
    rejected_by: str | None = None
    sequential_alpha: Fraction | None = None
    detectable: Deviation | None = None
    detectable_excess: Deviation | None = None
    seed: int | None = None

    @property
    def rejected(self) -> bool:
        """Whether the sampler test rejected (``rejected_by`` names the part that did), whatever the status."""
        return self.rejected_by is not None or self.status is AuditStatus.REJECTED

    @property
    def violations(self) -> tuple[ExactFinding, ...]:
        """The findings where the exact privacy loss exceeds the promised ε."""
        return tuple(f for f in self.findings if f.violation)

    def __str__(self) -> str:
        return render_text([self])
