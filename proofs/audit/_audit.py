"""``audit_sampler``: a sequential, anytime-valid test of any sampler against expmech's exact law."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.impl import QuantileMechanism
from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import as_rational, describe

from ._detectable import budget_for, detectable_excess, detectable_tv, verdict_power
from ._eprocess import EProcess, component_names, pooled_cells
from ._fixed_n import calibrate
from ._reference import ReferenceLaw, reference_law
from ._result import (
    AuditResult,
    AuditStatus,
    CellEvidence,
    ChiSquare,
    Deviation,
    EmpiricalPrivacy,
    ExactFinding,
    PowerStatement,
    SamplerFailed,
    SamplerOutOfRange,
    require,
)

__all__ = ["audit_sampler"]

_EVIDENCE_ROWS = 20
_MAX_BUDGET = 10**7


def _count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidType(f"{name}={describe(value)} must be an int", parameter=name, value=value)
    if value < minimum:
        raise InvalidArgument(f"{name}={value} must be >= {minimum}", parameter=name, value=value)
    return value


def _alpha(value: Any) -> Fraction:
    alpha = as_rational(value, name="alpha")
    if not 0 < alpha < 1:
        raise InvalidArgument(f"alpha={describe(value)} must be in (0, 1)", parameter="alpha", value=value)
    return alpha


class _Draws:
    """Calls the sampler, splits batches, and turns each draw into an outcome index (or a clear error)."""

    def __init__(self, sampler: Callable[[Any], Any], law: ReferenceLaw, dataset: Any, role: str) -> None:
        self.sampler, self.law, self.dataset, self.role = sampler, law, dataset, role
        self.calls = 0
        self.batched = False
        self.unused = 0

    def take(self, drawn: int) -> list[int]:
        self.calls += 1
        try:
            raw = self.sampler(self.dataset)
        except Exception as error:  # noqa: BLE001 - a sampler's failure is reported, never a verdict
            raise SamplerFailed(
                f"the sampler raised {type(error).__name__}: {error} (draw {drawn + 1} on the {self.role} dataset)",
                draw=drawn + 1,
            ) from error
        single = self.law.index(raw)
        if single is not None:
            return [single]
        items = _as_batch(raw)
        if items is not None:
            indices = [self.law.index(v) for v in items]
            if items and all(i is not None for i in indices):
                self.batched = True
                return [i for i in indices if i is not None]
        raise SamplerOutOfRange(
            f"the sampler returned {describe(raw)} at draw {drawn + 1} on the {self.role} dataset: "
            f"not an outcome of the {self.law.name} (nor a non-empty batch of outcomes)",
            draw=drawn + 1,
            value=raw,
        )

    def counts(self, draws: int) -> Counter[int]:
        counts: Counter[int] = Counter()
        taken = 0
        while taken < draws:
            batch = self.take(taken)
            used = batch[: draws - taken]
            counts.update(used)
            taken += len(used)
        return counts


def _as_batch(raw: Any) -> list[Any] | None:
    if isinstance(raw, np.ndarray):
        return list(raw) if raw.ndim >= 1 else None
    if isinstance(raw, list | tuple):
        return list(raw)
    return None


def _target(value: Any) -> float:
    target = as_rational(value, name="detectable")
    if not 0 < target < Fraction(1, 2):
        raise InvalidArgument(f"detectable={describe(value)} must be a TV distance in (0, 1/2)", parameter="detectable", value=value)
    return float(target)


def audit_sampler(
    sampler: Callable[[Any], Any],
    reference: Any,
    dataset: Any,
    *,
    alpha: Any = Fraction(1, 100),
    max_draws: int | None = None,
    detectable: Any = Fraction(1, 50),
    neighbour: Any = None,
    privacy_draws: int = 2_000,
    power_replicates: int = 200,
    seed: int = 0,
    name: str | None = None,
    mapping: Mapping[str, str] | None = None,
    findings: Iterable[ExactFinding] = (),
    notes: Iterable[str] = (),
) -> AuditResult:
    """Test whether ``sampler`` samples the exact law of ``reference`` on ``dataset``.

    ``sampler(dataset)`` returns one draw (an output; a tuple of k outputs for
    a top-k reference; an interval index for a :class:`QuantileMechanism`) or
    a batch of draws (a list, tuple or array of them).  ``reference`` is an
    expmech mechanism: :class:`ExponentialMechanism`, :class:`PermuteAndFlip`,
    :class:`ExponentialTopK`, :class:`PermuteAndFlipTopK` or
    :class:`QuantileMechanism`.

    The verdict has two parts, α split between them (Bonferroni):

    * the mixture e-process of :mod:`expmech.proofs.audit._eprocess`, at
      ``α/2``: draws are taken one at a time until ``E_t >= 2/α``;
    * if the run reaches ``max_draws`` (an N fixed in advance), the Pearson
      chi-square on those draws, calibrated by simulation of the exact law
      (:mod:`expmech.proofs.audit._fixed_n`), at ``α/2``.

    Either rejecting gives ``REJECTED``; under the null — the sampler samples
    the exact law — ``P[REJECTED] <= α/2 + α/2 = α`` (Ville's inequality for
    the first, the rank test for the second).  When the chi-square cannot be
    formed (a law too large to enumerate, or fewer than two cells) the
    e-process has all of α.  A library finding (``findings``) that the exact
    law breaks the promised ε makes the status ``VIOLATION``.

    ``max_draws`` defaults to the draws at which the verdict has power 0.8
    against every law at TV distance ``detectable`` (asymptotically, from the
    chi-square part alone).  ``power_replicates`` seeded simulated runs of this
    very configuration state its power against each named alternative and the
    smallest TV deviation it catches with power >= 0.8 (and, with
    ``neighbour``, the smallest privacy-loss excess); 0 skips them.  With
    ``neighbour``, ``privacy_draws`` more draws on each dataset give a lower
    confidence bound (level ``1 − alpha``) on the sampler's privacy loss,
    beside the exact loss.

    Raises :class:`SamplerFailed` if the sampler raises,
    :class:`SamplerOutOfRange` if it returns something that is not an
    outcome, and :class:`InvalidArgument` / :class:`InvalidType` for bad
    options (a ``detectable`` whose budget exceeds 10**7 draws included) —
    never a verdict on a sampler that could not be audited.
    """
    if not callable(sampler):
        raise InvalidType(f"sampler={describe(sampler)} must be callable as sampler(dataset)", parameter="sampler", value=sampler)
    level = _alpha(alpha)
    target = _target(detectable)
    privacy_draws = _count(privacy_draws, "privacy_draws", 1)
    power_replicates = _count(power_replicates, "power_replicates", 0)
    seed = _count(seed, "seed", 0)
    law = reference_law(reference, dataset)
    null = law.probabilities() if law.enumerable else None
    if max_draws is None:
        max_draws = budget_for(null, target, float(level) / 2)
        if max_draws > _MAX_BUDGET:
            raise InvalidArgument(
                f"detectable={describe(detectable)} needs {max_draws} draws, more than {_MAX_BUDGET}; "
                "ask for a larger detectable deviation or set max_draws",
                parameter="detectable",
                value=detectable,
            )
    max_draws = _count(max_draws, "max_draws", 1)
    alternatives = law.alternatives()
    lo_hi = law.lower_upper() if law.enumerable else None
    cells = pooled_cells(*lo_hi) if lo_hi is not None else None
    fixed = calibrate(*lo_hi, draws=max_draws, level=float(level) / 2, seed=seed) if lo_hi is not None else None
    sequential = level / 2 if fixed is not None else level
    if fixed is None and lo_hi is not None:
        notes = (*notes, "no fixed-N chi-square (fewer than two cells of expected count >= 5, or α too small to "
                 "calibrate by simulation): the e-process has all of α")
    process = EProcess(law.outcome_count, [a.probabilities for a in alternatives], max_draws=max_draws, cells=cells)
    source = _Draws(sampler, law, dataset, "audited")
    counts: Counter[int] = Counter()
    trajectory: list[float] = []
    rejected = False
    while process.draws < max_draws and not rejected:
        batch = source.take(process.draws)
        for position, index in enumerate(batch):
            lo, hi = law.float_bounds(index)
            trajectory.append(process.update(index, lo, hi))
            counts[index] += 1
            if process.rejects(float(sequential)) or process.draws >= max_draws:
                rejected = process.rejects(float(sequential))
                source.unused += len(batch) - position - 1
                break
    rejected_by = "e-process" if rejected else None
    if rejected or fixed is None:
        chi_square = _chi_square(law, counts, process.draws)
    else:
        observed = np.array([counts.get(i, 0) for i in range(law.outcome_count)], dtype=np.int64)
        statistic = float(fixed.statistics(observed)[0])
        chi_square = ChiSquare(
            statistic, fixed.cells - 1, fixed.pvalue(statistic), fixed.cells,
            decides=True, level=fixed.level, replicates=fixed.replicates,
        )
        if bool(fixed.rejects(np.array([statistic]))[0]):
            rejected_by = "fixed-N chi-square"
    names = component_names(max_draws, [a.name for a in alternatives])
    closest = names[int(np.argmax(process.components))]
    notes_out = list(notes)
    if source.batched:
        notes_out.append(f"the sampler returned batches; {source.unused} drawn values after the stopping draw were not used")
    simulation = _Simulation(law, alternatives, lo_hi, cells, fixed, float(sequential), max_draws, power_replicates, seed)
    power = simulation.named() if power_replicates and law.enumerable else ()
    deviation = simulation.tv() if power_replicates and law.enumerable else None
    if power_replicates and not law.enumerable:
        notes_out.append(f"power not simulated: {law.outcome_count} outcomes are too many to enumerate")
    privacy, excess = None, None
    if neighbour is not None:
        privacy, privacy_notes, witness = _privacy(sampler, reference, dataset, neighbour, law, level, privacy_draws)
        notes_out.extend(privacy_notes)
        if witness is not None and power_replicates and law.enumerable:
            excess = simulation.excess(*witness)
    found = tuple(findings)
    if any(f.violation for f in found):
        status = AuditStatus.VIOLATION
    else:
        status = AuditStatus.REJECTED if rejected_by else AuditStatus.CONSISTENT
    log_e = process.log_e
    return AuditResult(
        name=name or law.name,
        reference=law.name,
        status=status,
        draws=process.draws,
        max_draws=max_draws,
        alpha=level,
        e_value=math.exp(log_e) if log_e < 700 else math.inf,
        log_e_value=log_e,
        p_value=min(1.0, math.exp(-process.largest)) if process.largest > -700 else 1.0,
        closest=closest,
        power=power,
        evidence=_evidence(law, counts, process.draws),
        trajectory=tuple(trajectory),
        chi_square=chi_square,
        privacy=privacy,
        mapping=dict(mapping or {}),
        findings=found,
        notes=tuple(notes_out),
        rejected_by=rejected_by,
        sequential_alpha=sequential,
        detectable=deviation,
        detectable_excess=excess,
        seed=seed,
    )


class _Simulation:
    """Seeded simulations of this very configuration: named alternatives, detectable TV and loss excess."""

    def __init__(
        self,
        law: ReferenceLaw,
        alternatives: list[Any],
        lo_hi: tuple[np.ndarray, np.ndarray] | None,
        cells: Any,
        fixed: Any,
        sequential: float,
        max_draws: int,
        replicates: int,
        seed: int,
    ) -> None:
        self.law, self.alternatives, self.lo_hi, self.cells, self.fixed = law, alternatives, lo_hi, cells, fixed
        self.sequential, self.max_draws, self.replicates, self.seed = sequential, max_draws, replicates, seed
        self.vectors = [a.probabilities for a in alternatives]

    def _common(self) -> dict[str, Any]:
        return {
            "sequential_alpha": self.sequential, "fixed": self.fixed, "max_draws": self.max_draws,
            "replicates": self.replicates, "cells": self.cells,
        }

    def named(self) -> tuple[PowerStatement, ...]:
        assert self.lo_hi is not None
        null = self.law.probabilities()
        statements = []
        for offset, alternative in enumerate(self.alternatives):
            power, median = verdict_power(
                alternative.probabilities, *self.lo_hi, self.vectors, seed=self.seed + offset, **self._common()
            )
            statements.append(
                PowerStatement(
                    alternative=alternative.name,
                    description=alternative.description,
                    power=power,
                    median_draws=median,
                    max_draws=self.max_draws,
                    replicates=self.replicates,
                    divergence=_kl(alternative.probabilities, null),
                )
            )
        return tuple(statements)

    def tv(self) -> Deviation:
        assert self.lo_hi is not None
        return detectable_tv(self.law.probabilities(), *self.lo_hi, self.vectors, seed=self.seed + 101, **self._common())

    def excess(self, witness: int, raise_it: bool) -> Deviation:
        assert self.lo_hi is not None
        return detectable_excess(
            self.law.probabilities(), *self.lo_hi, self.vectors, witness=witness, raise_it=raise_it,
            seed=self.seed + 202, **self._common(),
        )


def _evidence(law: ReferenceLaw, counts: Counter[int], draws: int) -> tuple[CellEvidence, ...]:
    if law.enumerable:
        indices: Iterable[int] = range(law.outcome_count)
    else:
        indices = sorted(counts)
    rows = []
    for i in indices:
        lo, hi = law.bounds(i)
        expected = draws * float((lo + hi) / 2)
        rows.append(CellEvidence(law.outcome(i), counts.get(i, 0), expected, lo, hi))

    def surprise(cell: CellEvidence) -> float:
        if cell.hi == 0:
            return math.inf if cell.count else 0.0
        return abs(cell.count - cell.expected) / math.sqrt(max(cell.expected, 1e-300))

    if len(rows) > _EVIDENCE_ROWS:
        rows = sorted(rows, key=surprise, reverse=True)[:_EVIDENCE_ROWS]
    return tuple(rows)


def _chi_square(law: ReferenceLaw, counts: Counter[int], draws: int) -> ChiSquare | None:
    """Pearson's chi-square on the draws used, cells with expected < 5 pooled (scipy.stats.chisquare)."""
    if not law.enumerable or draws < 2:
        return None
    probabilities = law.probabilities()
    observed = np.array([counts.get(i, 0) for i in range(law.outcome_count)], dtype=np.float64)
    impossible = probabilities <= 0
    if np.any(observed[impossible] > 0):
        return ChiSquare(statistic=math.inf, dof=max(1, int(np.sum(~impossible)) - 1), pvalue=0.0, cells=law.outcome_count)
    expected = draws * probabilities[~impossible] / probabilities[~impossible].sum()
    observed = observed[~impossible]
    order = np.argsort(expected)
    pooled_obs, pooled_exp = [], []
    acc_o = acc_e = 0.0
    for i in order:
        acc_o += observed[i]
        acc_e += expected[i]
        if acc_e >= 5:
            pooled_obs.append(acc_o)
            pooled_exp.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0 and pooled_exp:
        pooled_obs[-1] += acc_o
        pooled_exp[-1] += acc_e
    if len(pooled_exp) < 2:
        return None
    stats: Any = require("scipy.stats", "audit")
    result = stats.chisquare(pooled_obs, pooled_exp)
    return ChiSquare(float(result.statistic), len(pooled_exp) - 1, float(result.pvalue), len(pooled_exp))


def _kl(q: np.ndarray, p: np.ndarray) -> float:
    mask = q > 0
    if np.any(p[mask] <= 0):
        return math.inf
    q_mass = q[mask] / q.sum()
    return float(np.sum(q_mass * np.log(q_mass / p[mask])))


def _clopper_pearson(count: int, draws: int, alpha: float) -> tuple[float, float]:
    """Clopper–Pearson bounds, each one-sided at level ``alpha / 2`` (scipy.stats.beta)."""
    stats: Any = require("scipy.stats", "audit")
    lower = 0.0 if count == 0 else float(stats.beta.ppf(alpha / 2, count, draws - count + 1))
    upper = 1.0 if count == draws else float(stats.beta.ppf(1 - alpha / 2, count + 1, draws - count))
    return lower, upper


def _planned_bound(p1: float, p2: float, draws: int, alpha: float) -> float:
    """The lower bound ln(lo1 / hi2) the test would give if the counts were their expectations."""
    lo1, _ = _clopper_pearson(round(p1 * draws), draws, alpha)
    _, hi2 = _clopper_pearson(round(p2 * draws), draws, alpha)
    return math.log(lo1 / hi2) if lo1 > 0 else -math.inf


def _privacy(
    sampler: Callable[[Any], Any],
    reference: Any,
    dataset: Any,
    neighbour: Any,
    law: ReferenceLaw,
    alpha: Fraction,
    draws: int,
) -> tuple[EmpiricalPrivacy | None, list[str], tuple[int, bool] | None]:
    """The empirical privacy bound, notes, and the exact loss's witness (outcome index, larger on the audited side)."""
    if isinstance(reference, QuantileMechanism):
        loss = reference.privacy_loss(dataset, neighbour)
        return None, [
            f"exact privacy loss of the released value between the two datasets: {float(loss):.6g} "
            f"(on the cell {tuple(float(x) for x in loss.output)}); no empirical bound: interval indices of two "
            "datasets are different events"
        ], None
    other = reference_law(reference, neighbour)
    loss = law.law.privacy_loss(other.law)
    witness_index = law.index(loss.output)
    witness = None if witness_index is None else (witness_index, bool(loss.larger_on_first))
    level = float(alpha)
    if law.enumerable:
        mids1, mids2 = law.probabilities(), other.probabilities()
        candidates = [(i, True) for i in range(law.outcome_count)] + [(i, False) for i in range(law.outcome_count)]
        index, first = max(
            candidates,
            key=lambda c: _planned_bound(mids1[c[0]], mids2[c[0]], draws, level)
            if c[1]
            else _planned_bound(mids2[c[0]], mids1[c[0]], draws, level),
        )
    else:
        assert witness_index is not None
        index, first = witness_index, loss.larger_on_first
    outcome = law.outcome(index)
    other_index = other.index(outcome)
    assert other_index is not None
    counts1 = _Draws(sampler, law, dataset, "first").counts(draws).get(index, 0)
    counts2 = _Draws(sampler, other, neighbour, "neighbouring").counts(draws).get(other_index, 0)
    big, small = (counts1, counts2) if first else (counts2, counts1)
    lo_big, _ = _clopper_pearson(big, draws, level)
    _, hi_small = _clopper_pearson(small, draws, level)
    bound = math.log(lo_big / hi_small) if lo_big > 0 else -math.inf
    exceeds = math.isfinite(bound) and bool(loss < Fraction(bound))
    lo1, hi1 = law.bounds(index)
    lo2, hi2 = other.bounds(other_index)
    at_outcome = abs(math.log(float((lo1 + hi1) / 2)) - math.log(float((lo2 + hi2) / 2))) if lo1 > 0 and lo2 > 0 else math.inf
    privacy = EmpiricalPrivacy(
        outcome=outcome,
        larger_on_first=first,
        draws=draws,
        counts=(counts1, counts2),
        lower_bound=bound,
        confidence=1 - level,
        exact_loss=float(loss),
        exact_loss_at_outcome=at_outcome,
        exceeds_exact=exceeds,
    )
    return privacy, [], witness
