"""What a run of the audit would have caught: power of the whole verdict, detectable deviations, default budget.

The verdict rejects when the e-process crosses ``2/α`` at any draw, or when
the run reaches ``max_draws`` and the calibrated fixed-N chi-square rejects at
level ``α/2`` (Bonferroni: false-alarm rate at most ``α/2 + α/2 = α``).  Power
is estimated by seeded simulation of exactly that procedure — the same
e-process components, the same critical value — on draws from a deviating law.

**The least-favourable shape.**  For any law ``q`` at total-variation distance
``δ`` from ``π``, Cauchy–Schwarz gives ``χ²(q‖π) >= 4δ²``, with equality when
``q − π`` is proportional to ``π`` with opposite signs on two halves of equal
exact mass.  The power of Pearson's statistic depends (asymptotically) on the
deviation through ``N·χ²`` alone, so that *proportional* shape is the hardest
one at a given TV for the chi-square part of the verdict; :func:`proportional`
builds it (halves of near-equal mass, each pooled cell kept whole).  The
detectable deviation is the smallest ``δ`` on a grid of ratio 1.15 at which
the simulated power against that shape is at least 0.8.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ._eprocess import Cells, first_crossings
from ._fixed_n import FixedNTest
from ._result import Deviation, require

__all__ = [
    "budget_for",
    "detectable_excess",
    "detectable_tv",
    "noncentrality",
    "one_cell",
    "proportional",
    "verdict_power",
]

_TARGET = 0.8
_STEP = 1.15
#: The asymptotic budget is raised by this factor: at small N the calibrated test is a little more conservative.
_SAFETY = 1.1


def verdict_power(
    sampling: np.ndarray,
    null_lo: np.ndarray,
    null_hi: np.ndarray,
    alternatives: Sequence[np.ndarray],
    *,
    sequential_alpha: float,
    fixed: FixedNTest | None,
    max_draws: int,
    replicates: int,
    seed: int,
    cells: Cells | None,
) -> tuple[float, float]:
    """(power, median draws to reject) of the whole verdict on draws from ``sampling``; median ``inf`` if <= half reject."""
    runs = first_crossings(
        sampling, null_lo, null_hi, alternatives, alpha=sequential_alpha, max_draws=max_draws,
        replicates=replicates, seed=seed, cells=cells,
    )
    draws = runs.first.copy()
    if fixed is not None:
        pending = ~np.isfinite(draws)
        if pending.any():
            late = fixed.rejects(fixed.statistics(runs.final[pending]))
            index = np.flatnonzero(pending)[late]
            draws[index] = max_draws
    return float(np.mean(np.isfinite(draws))), float(np.median(draws))


def proportional(probabilities: np.ndarray, delta: float, groups: np.ndarray | None = None) -> np.ndarray | None:
    """The law at TV ``delta`` from ``probabilities`` with ``q − π ∝ ±π`` on two halves of near-equal mass.

    ``groups`` (pooled cells) are kept whole on one side.  ``None`` if
    ``delta`` is more than the lighter half can lose.
    """
    labels = np.arange(probabilities.size) if groups is None else np.where(groups >= 0, groups, -1)
    masses: dict[int, float] = {}
    for label, p in zip(labels.tolist(), probabilities.tolist()):
        masses[label] = masses.get(label, 0.0) + p
    up_labels: set[int] = set()
    up = down = 0.0
    for label, mass in sorted(masses.items(), key=lambda item: -item[1]):
        if up <= down:
            up_labels.add(label)
            up += mass
        else:
            down += mass
    if min(up, down) <= 0 or delta >= min(up, down):
        return None
    side = np.array([label in up_labels for label in labels.tolist()])
    q = np.where(side, probabilities * (1 + delta / up), probabilities * (1 - delta / down))
    return np.asarray(q / q.sum())


def one_cell(probabilities: np.ndarray, index: int, eta: float, *, raise_it: bool) -> np.ndarray | None:
    """``π`` with outcome ``index`` multiplied by ``e^{±eta}`` and the others rescaled (``None`` if impossible)."""
    q = probabilities.copy()
    target = q[index] * math.exp(eta if raise_it else -eta)
    rest = 1 - q[index]
    if target >= 1 or rest <= 0:
        return None
    q = q * ((1 - target) / rest)
    q[index] = target
    return q


def noncentrality(dof: int, level: float, power: float = _TARGET) -> float:
    """The noncentrality at which a chi-square test on ``dof`` degrees of freedom at ``level`` has ``power``."""
    stats: Any = require("scipy.stats", "audit")
    optimize: Any = require("scipy.optimize", "audit")
    critical = stats.chi2.isf(level, dof)
    return float(optimize.brentq(lambda lam: stats.ncx2.sf(critical, dof, lam) - power, 1e-9, 1e7))


def _pooled_cells(probabilities: np.ndarray, draws: int) -> int:
    expected = np.sort(probabilities[probabilities > 0]) * draws
    cells, acc = 0, 0.0
    for e in expected.tolist():
        acc += e
        if acc >= 5:
            cells, acc = cells + 1, 0.0
    return max(cells, 1)


def budget_for(probabilities: np.ndarray | None, tv: float, level: float) -> int:
    """The draws at which a chi-square at ``level`` has asymptotic power 0.8 against every law at TV >= ``tv``.

    Worst case ``χ² = 4·tv²`` (see the module docstring); degrees of freedom
    from the cells pooled at that N (one cell per outcome, 49 at most when
    ``probabilities`` is ``None``: a law too large to enumerate), raised by 10%
    (the calibrated test at small N is a little more conservative than the
    asymptote) and rounded up to a multiple of 100.
    """
    if probabilities is None:
        draws = noncentrality(49, level) / (4 * tv * tv)
    else:
        draws = noncentrality(max(1, int(np.sum(probabilities > 0)) - 1), level) / (4 * tv * tv)
        for _ in range(3):
            dof = max(1, _pooled_cells(probabilities, math.ceil(draws)) - 1)
            draws = noncentrality(dof, level) / (4 * tv * tv)
    return int(math.ceil(draws * _SAFETY / 100) * 100)


def _power_against(
    deviant: Callable[[float], np.ndarray | None],
    null_lo: np.ndarray,
    null_hi: np.ndarray,
    alternatives: Sequence[np.ndarray],
    **options: Any,
) -> Callable[[float], float]:
    """``size ↦`` the verdict's power (:func:`verdict_power`) on draws from ``deviant(size)``; 0 where there is no such law."""

    def power_at(size: float) -> float:
        q = deviant(size)
        return 0.0 if q is None else verdict_power(q, null_lo, null_hi, alternatives, **options)[0]

    return power_at


def _smallest(power_at: Any, start: float, largest: float) -> tuple[float, float]:
    """The smallest size on the grid ``start·1.15^k`` (<= ``largest``) with power >= 0.8, and that power."""
    size, power = start, power_at(start)
    steps = 0
    while power < _TARGET:
        steps += 1
        size *= _STEP
        if size > largest or steps > 16:
            return math.inf, power
        power = power_at(size)
    for _ in range(8):
        smaller = size / _STEP
        trial = power_at(smaller)
        if trial < _TARGET:
            break
        size, power = smaller, trial
    return size, power


def detectable_tv(
    probabilities: np.ndarray,
    null_lo: np.ndarray,
    null_hi: np.ndarray,
    alternatives: Sequence[np.ndarray],
    *,
    sequential_alpha: float,
    fixed: FixedNTest | None,
    max_draws: int,
    replicates: int,
    seed: int,
    cells: Cells | None,
) -> Deviation:
    """The smallest TV deviation of the least-favourable (proportional) shape this configuration catches with power >= 0.8."""
    groups = None if fixed is None else fixed.groups
    dof = max(1, (fixed.cells if fixed is not None else probabilities.size) - 1)
    level = fixed.level if fixed is not None else sequential_alpha
    start = math.sqrt(noncentrality(dof, level) / (4 * max_draws))

    power_at = _power_against(
        lambda delta: proportional(probabilities, delta, groups), null_lo, null_hi, alternatives,
        sequential_alpha=sequential_alpha, fixed=fixed, max_draws=max_draws, replicates=replicates, seed=seed, cells=cells,
    )
    size, power = _smallest(power_at, start, 0.5)
    return Deviation(
        size=size,
        power=power,
        replicates=replicates,
        shape="q − π proportional to ±π on two halves of equal exact mass (the least favourable shape at a given TV)",
    )


def detectable_excess(
    probabilities: np.ndarray,
    null_lo: np.ndarray,
    null_hi: np.ndarray,
    alternatives: Sequence[np.ndarray],
    *,
    witness: int,
    raise_it: bool,
    sequential_alpha: float,
    fixed: FixedNTest | None,
    max_draws: int,
    replicates: int,
    seed: int,
    cells: Cells | None,
) -> Deviation:
    """The smallest privacy-loss excess ``η`` caught with power >= 0.8 when the sampler scales ``π(witness)`` by ``e^{±η}``.

    ``witness`` is the outcome where the exact privacy loss to the neighbour
    is attained; scaling its probability on the audited dataset up (if it is
    the more likely side) or down (otherwise) by ``e^η`` raises the sampler's
    loss there by exactly ``η`` above the exact loss.
    """
    p = float(probabilities[witness])
    dof = max(1, (fixed.cells if fixed is not None else probabilities.size) - 1)
    level = fixed.level if fixed is not None else sequential_alpha
    needed = math.sqrt(noncentrality(dof, level) * (1 - p) / (max_draws * max(p, 1e-300)))
    start = math.log1p(needed) if raise_it else (-math.log1p(-needed) if needed < 1 else 1.0)

    power_at = _power_against(
        lambda eta: one_cell(probabilities, witness, eta, raise_it=raise_it), null_lo, null_hi, alternatives,
        sequential_alpha=sequential_alpha, fixed=fixed, max_draws=max_draws, replicates=replicates, seed=seed, cells=cells,
    )
    size, power = _smallest(power_at, max(start, 1e-6), 50.0)
    direction = "raises" if raise_it else "lowers"
    return Deviation(
        size=size,
        power=power,
        replicates=replicates,
        shape=f"a sampler that {direction} the probability of the exact loss's witness outcome by the factor e^η",
    )
