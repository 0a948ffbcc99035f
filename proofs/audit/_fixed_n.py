"""The fixed-N Pearson chi-square at ``max_draws``, calibrated by simulation of the exact law.

Its ``N`` (``max_draws``) is fixed before the first draw, so the test is valid
when the run reaches it.  Cells of expected count below 5 are pooled (in order
of exact probability, a grouping fixed in advance from the exact law).  The
critical value is not the asymptotic chi-square quantile: it is the Monte
Carlo rank test against ``B`` statistics of ``N`` draws from the null, so that
``P[p <= a] <= a`` holds for the rank p-value ``(1 + #{T_b >= T}) / (B + 1)``
at any ``N`` and any expected counts, not only asymptotically.

The null draws of the calibration come from numpy's multinomial sampler on
float probabilities within ``tv`` (a rigorous bound, from the exact law's
enclosures) of the exact law in total variation; ``B`` null statistics of ``N``
draws each are then within ``B·N·tv`` of draws from the exact law, and the
level used is ``level − B·N·tv`` so that the stated level holds (numpy's
sampler is taken as exact given its float probabilities).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["FixedNTest", "calibrate"]

_MIN_EXPECTED = 5.0
#: The most null cell counts a calibration simulates (B × cells); above it (a tiny α) there is no fixed-N test.
_MAX_WORK = 50_000_000


@dataclass(frozen=True)
class FixedNTest:
    """A calibrated Pearson chi-square at ``draws`` draws, level ``level``.

    ``groups[x]`` is the pooled cell of outcome ``x`` (``-1``: impossible under
    the null, a draw of it gives an infinite statistic); ``expected`` the
    expected count of each cell; ``null_statistics`` the ``B`` sorted
    simulated statistics; ``slack`` the level given up for float sampling.
    """

    groups: np.ndarray
    expected: np.ndarray
    draws: int
    level: float
    null_statistics: np.ndarray
    slack: float

    @property
    def replicates(self) -> int:
        """``B``, the number of simulated null statistics."""
        return int(self.null_statistics.size)

    @property
    def cells(self) -> int:
        """The number of pooled cells."""
        return int(self.expected.size)

    def statistics(self, counts: np.ndarray) -> np.ndarray:
        """Pearson's statistic of each row of outcome ``counts`` (``inf`` where an impossible outcome was drawn)."""
        counts = np.atleast_2d(counts)
        possible = self.groups >= 0
        order = np.argsort(self.groups[possible], kind="stable")
        columns = counts[:, possible][:, order].astype(np.float64)
        starts = np.r_[0, np.flatnonzero(np.diff(self.groups[possible][order])) + 1]
        pooled = np.add.reduceat(columns, starts, axis=1)
        result = _pearson(pooled, self.expected)
        if not possible.all():
            result = np.where(counts[:, ~possible].sum(axis=1) > 0, np.inf, result)
        return result

    def pvalue(self, statistic: float) -> float:
        """The Monte Carlo rank p-value ``(1 + #{T_b >= T}) / (B + 1)``."""
        above = self.replicates - int(np.searchsorted(self.null_statistics, statistic, side="left"))
        return (1 + above) / (self.replicates + 1)

    def rejects(self, statistics: np.ndarray) -> np.ndarray:
        """Whether each statistic's p-value is at most ``level − slack``."""
        allowed = math.floor((self.level - self.slack) * (self.replicates + 1) + 1e-9) - 1  # largest #{T_b >= T}
        if allowed < 0:
            return np.zeros(np.shape(statistics), dtype=bool)
        above = self.replicates - np.searchsorted(self.null_statistics, statistics, side="left")
        return np.asarray(above <= allowed)


def _pearson(pooled: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return np.asarray((((pooled - expected) ** 2) / expected).sum(axis=1))


def calibrate(
    null_lo: np.ndarray, null_hi: np.ndarray, *, draws: int, level: float, seed: int, replicates: int | None = None
) -> FixedNTest | None:
    """The chi-square at ``draws`` draws and ``level``, calibrated on ``replicates`` simulated null runs.

    ``null_lo``/``null_hi`` are rigorous float bounds of the exact law.  The
    default ``replicates`` gives at least 20 simulated statistics beyond the
    critical value.  ``None`` when fewer than two cells remain after pooling,
    or when ``B × cells`` would exceed 5·10⁷ (a tiny level): the caller then
    gives the e-process all of α.
    """
    mid = (null_lo + null_hi) / 2
    probabilities = mid / mid.sum()
    possible = np.flatnonzero(null_hi > 0)
    expected_all = draws * probabilities
    order = possible[np.argsort(expected_all[possible], kind="stable")]
    groups = np.full(null_lo.size, -1, dtype=np.int64)
    cell, acc = 0, 0.0
    for i in order:
        groups[i] = cell
        acc += expected_all[i]
        if acc >= _MIN_EXPECTED:
            cell, acc = cell + 1, 0.0
    cells = cell if acc == 0 else cell + 1
    if acc and cell:
        groups[groups == cell] = cell - 1  # the last, too small cell joins the one before
        cells = cell
    if cells < 2:
        return None
    possible_mask = groups >= 0
    cell_probabilities = np.bincount(groups[possible_mask], weights=probabilities[possible_mask], minlength=cells)
    expected = draws * cell_probabilities / cell_probabilities.sum()
    tv = 2 * float(np.sum(null_hi - null_lo)) + abs(math.fsum(probabilities.tolist()) - 1) + null_lo.size * 2.0**-50
    count = replicates or max(999, math.ceil(20 / level) - 1)
    if count * cells > _MAX_WORK:
        return None
    rng = np.random.default_rng(seed)
    simulated = []
    batch = max(1, 2_000_000 // max(cells, 1))
    for start in range(0, count, batch):
        size = min(batch, count - start)
        pooled = rng.multinomial(draws, cell_probabilities / cell_probabilities.sum(), size=size).astype(np.float64)
        simulated.append(_pearson(pooled, expected))
    null_statistics = np.sort(np.concatenate(simulated))
    return FixedNTest(
        groups=groups,
        expected=expected,
        draws=draws,
        level=level,
        null_statistics=null_statistics,
        slack=count * draws * tv,
    )
