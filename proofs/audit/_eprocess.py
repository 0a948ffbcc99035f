"""An anytime-valid sequential test of a categorical sampler against an exact law.

The statistic is a *mixture likelihood ratio* ``E_t = Σ_c w_c E_{c,t}`` with
``E_{c,t} = Π_{s<=t} q_{c,s}(x_s) / π̄(x_s)``, where ``π̄(x) >= π(x)`` is a
rigorous upper bound of the exact null probability (from expmech's exact law,
enclosed in ball arithmetic and rounded outward) and each ``q_{c,s}`` is a
sub-probability vector fixed before draw ``s`` (it may depend on the earlier
draws).

**Validity.**  Under the null — the draws are i.i.d. from the exact law ``π`` —
``E[q_{c,s}(X_s)/π̄(X_s) | past] <= Σ_x q_{c,s}(x) <= 1``, so each
``E_{c,t}`` (a product of predictive probabilities over the null probability)
is a non-negative supermartingale with ``E_{c,0} = 1``.  A convex mixture
(``Σ_c w_c <= 1``, weights fixed in advance) of such test supermartingales is
one again, and Ville's inequality gives ``P[∃t: E_t >= 1/α] <= α``: the
false-alarm rate holds however long the run goes on, and the run may stop the
moment ``E_t`` crosses ``1/α``.

**Components** (weights fixed before the first draw):

* ``centred c`` for each concentration ``c`` on a grid ``1, 4, 16, …`` up to
  ``4·max_draws`` — the Dirichlet–multinomial predictive
  ``(N_t(x) + c·π_lo(x)) / (t + c)`` of a Dirichlet prior centred on the null
  (``π_lo <= π`` keeps it a sub-probability).  Each is the Bayes factor of a
  prior over *every* law on the range, so each has power against every
  alternative; the grid of concentrations adapts to the size of the
  deviation: against a deviation at χ²-divergence ``D``, the component with
  ``c`` near the stopping time behaves like a Pearson statistic, which is why
  the mixture stops within a small factor (measured ~1.5–1.8×) of a fixed-N
  chi-square's draws.  For an enumerable law of more than ``POOLED_CELLS``
  outcomes, these components predict *cells* of outcomes pooled by their exact
  probabilities (near-equal exact mass), and an outcome inside a cell gets
  ``Q(cell)·π_lo(x)/Σ_{y∈cell} π_hi(y)``.
* ``uniform`` — the Krichevsky–Trofimov predictor ``(N_t(x) + 1/2)/(t + K/2)``
  (Dirichlet(1/2) over the outcomes themselves): consistent against every
  alternative even inside pooled cells, and an outcome far rarer than ``1/K``
  under the null is evidence at its first draw.
* one per named alternative ``q_A`` (the same mechanism at ``ε·0.5, 0.7, 1.3,
  2``, max and min swapped, the other law): a sequential probability ratio test
  that stops within a handful of draws against that bug.

**Rounding.**  Floats never decide a verdict unsafely.  The null bound
``π̄`` comes from the exact law, rounded up; the predictive numerators use
``π_lo`` rounded down.  :class:`EProcess` carries, per component, a bound on the
accumulated rounding error of its float ``ln E_{c,t}`` (each of the few float
operations of a step is within 4 units in the last place of its result, a
generous allowance for correctly-rounded ``+ − × ÷`` and a ``log`` within one
ulp), and :meth:`EProcess.rejects` compares a *lower bound* of ``ln E_t`` —
every component lowered by its error bound, a further absolute margin for the
mixture's own sum — with ``ln(1/α)``.  Rounding can therefore only delay a
rejection, never cause one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "POOLED_CELLS",
    "Cells",
    "EProcess",
    "SimulatedRuns",
    "component_names",
    "concentrations",
    "first_crossings",
    "pooled_cells",
]

#: Enumerable laws with more outcomes than this get their centred components over pooled cells.
POOLED_CELLS = 64
_UNIFORM_PRIOR = 0.5
_ULP = 2.0**-52
_NAMED_WEIGHT = 0.25
_UNIFORM_WEIGHT = 0.125


def concentrations(max_draws: int) -> tuple[float, ...]:
    """The concentrations ``1, 4, 16, …, <= 4·max_draws`` of the centred Dirichlet components."""
    grid = [1.0]
    while grid[-1] * 4 <= 4 * max(max_draws, 1):
        grid.append(grid[-1] * 4)
    return tuple(grid)


def component_names(max_draws: int, alternatives: Sequence[str]) -> list[str]:
    """The names of the components, in the order of :attr:`EProcess.components`."""
    return (
        ["nonparametric (Krichevsky–Trofimov, uniform prior)"]
        + [f"nonparametric (Dirichlet centred on the exact law, concentration {c:g})" for c in concentrations(max_draws)]
        + list(alternatives)
    )


def _weights(grid: int, alternatives: int) -> np.ndarray:
    """Mixture weights, summing to at most 1: 1/8 uniform, 1/4 shared by named alternatives, the rest by the grid."""
    named = _NAMED_WEIGHT if alternatives else 0.0
    centred = 1.0 - _UNIFORM_WEIGHT - named
    weights = [_UNIFORM_WEIGHT] + [centred / grid] * grid + ([named / alternatives] * alternatives if alternatives else [])
    return np.array(weights) * (1 - 2.0**-40)  # rounding of the float weights can only lower them


@dataclass(frozen=True)
class Cells:
    """Outcomes pooled into cells: ``of[x]`` is the cell of outcome ``x``; ``lo``/``hi`` bound each cell's exact mass.

    ``within[x] = π_lo(x) / hi[of[x]]`` (rounded down) shares a cell's predicted
    mass among its outcomes so that the total stays at most 1.
    """

    of: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    within: np.ndarray


def pooled_cells(null_lo: np.ndarray, null_hi: np.ndarray, *, cells: int = POOLED_CELLS) -> Cells | None:
    """Cells of near-equal exact mass for ``len(null_lo) > cells`` outcomes (``None``: every outcome is its own cell).

    Outcomes are sorted by their probability and cut into ``cells`` runs of
    about equal mass, so a deviation that moves mass between likely and
    unlikely outcomes shows between cells.  The bounds are sums of the rigorous
    per-outcome bounds, widened by a relative 2⁻⁴⁰ for float summation.
    """
    count = null_lo.size
    if count <= cells:
        return None
    order = np.argsort(null_hi, kind="stable")
    cumulative = np.cumsum(null_hi[order])
    cuts = np.minimum((cumulative / cumulative[-1] * cells).astype(np.int64), cells - 1)
    of = np.empty(count, dtype=np.int64)
    of[order] = cuts
    used = np.unique(of)
    of = np.searchsorted(used, of)
    lo = np.bincount(of, weights=null_lo) * (1 - 2.0**-40)
    hi = np.bincount(of, weights=null_hi) * (1 + 2.0**-40)
    within = null_lo / hi[of] * (1 - 2.0**-40)
    return Cells(of=of, lo=lo, hi=hi, within=within)


class EProcess:
    """The mixture e-process above, updated one draw at a time.

    ``outcomes`` is ``K``; ``alternatives`` are sub-probability vectors over
    outcome indices (empty when the outcomes cannot be enumerated);
    ``max_draws`` fixes the grid of concentrations; ``cells`` pools outcomes
    for the centred components (``None``: each outcome its own cell).
    """

    def __init__(
        self, outcomes: int, alternatives: Sequence[np.ndarray], *, max_draws: int, cells: Cells | None = None
    ) -> None:
        self.outcomes = outcomes
        self.alternatives = [np.asarray(a, dtype=np.float64) for a in alternatives]
        self.grid = concentrations(max_draws)
        self.cells = cells
        self.log_weights = [math.log(w) for w in _weights(len(self.grid), len(self.alternatives))]
        size = 1 + len(self.grid) + len(self.alternatives)
        self.components = [0.0] * size
        self.errors = [0.0] * size
        self.counts: dict[int, int] = {}
        self.cell_counts: dict[int, int] = {}
        self.draws = 0
        self.largest = 0.0
        self._log_e = 0.0
        self._lower = 0.0

    @property
    def log_e(self) -> float:
        """``ln E_t`` in floats (``inf`` after a draw the null gives probability 0)."""
        return self._log_e

    @property
    def log_e_lower(self) -> float:
        """A rigorous lower bound of ``ln E_t``: what :meth:`rejects` compares."""
        return self._lower

    def _predictions(self, index: int, seen: int, null_lo: float) -> list[float]:
        t = self.draws
        predictions = [(seen + _UNIFORM_PRIOR) / (t + _UNIFORM_PRIOR * self.outcomes)]
        if self.cells is None:
            predictions.extend((seen + c * null_lo) / (t + c) for c in self.grid)
        else:
            cell = int(self.cells.of[index])
            in_cell = self.cell_counts.get(cell, 0)
            cell_lo, within = float(self.cells.lo[cell]), float(self.cells.within[index])
            predictions.extend((in_cell + c * cell_lo) / (t + c) * within for c in self.grid)
        predictions.extend(float(a[index]) for a in self.alternatives)
        return predictions

    def update(self, index: int, null_lo: float, null_hi: float) -> float:
        """Account for one draw of outcome ``index`` with ``null_lo <= π(x) <= null_hi``; return ``ln E_t``."""
        seen = self.counts.get(index, 0)
        components, errors = self.components, self.errors
        if null_hi <= 0.0:
            components[:] = [math.inf] * len(components)
        else:
            log_null = math.log(null_hi)
            for c, p in enumerate(self._predictions(index, seen, null_lo)):
                if p <= 0 or math.isinf(components[c]):
                    components[c] = -math.inf if p <= 0 and not math.isinf(components[c]) else components[c]
                    continue
                log_p = math.log(p)
                total = components[c] + (log_p - log_null)
                # p carries <= 8 ulp relative error (a few exact-rounded ops): ln p is off by <= 8 ulp + 4 ulp·|ln p|;
                # ln π̄ by 4 ulp·|ln π̄|; the difference and the running sum by 4 ulp of their magnitudes each.
                errors[c] += _ULP * (8 + 4 * abs(log_p) + 4 * abs(log_null) + 4 * abs(log_p - log_null) + 4 * abs(total))
                components[c] = total
        self.counts[index] = seen + 1
        if self.cells is not None:
            cell = int(self.cells.of[index])
            self.cell_counts[cell] = self.cell_counts.get(cell, 0) + 1
        self.draws += 1
        terms = [w + c for w, c in zip(self.log_weights, components)]
        self._log_e = _logsumexp(terms)
        lowered = [w + c - e for w, c, e in zip(self.log_weights, components, errors)]
        lower = _logsumexp(lowered)
        # the mixture's own float sum: <= (k + 4) ulp relative on Σ, plus 4 ulp of |ln| for exp/log
        self._lower = lower - _ULP * (len(terms) + 8) * (1 + abs(lower)) if math.isfinite(lower) else lower
        self.largest = max(self.largest, self._log_e)
        return self._log_e

    def rejects(self, alpha: float) -> bool:
        """Whether a rigorous lower bound of ``ln E_t`` has reached ``ln(1/α)`` (``α`` rounded down first)."""
        return self._lower >= -math.log(math.nextafter(alpha, 0.0)) + 1e-12


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    if math.isinf(top):
        return top
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


@dataclass(frozen=True)
class SimulatedRuns:
    """Seeded simulated runs of the e-process: where each first crossed, and the counts of those that never did.

    ``first[r]`` is the 1-based draw at which run ``r`` crossed (``inf``: not by
    ``max_draws``); ``final[r]`` the outcome counts after ``max_draws`` draws for
    runs that did not cross (zeros for those that did).
    """

    first: np.ndarray
    final: np.ndarray


def first_crossings(
    sampling: np.ndarray,
    null_lo: np.ndarray,
    null_hi: np.ndarray,
    alternatives: Sequence[np.ndarray],
    *,
    alpha: float,
    max_draws: int,
    replicates: int,
    seed: int,
    cells: Cells | None = None,
    grid_draws: int | None = None,
) -> SimulatedRuns:
    """Simulate ``replicates`` seeded runs of the e-process on draws from ``sampling``.

    Vectorised over replicates and draws: the count of earlier equal draws at
    each position comes from one stable sort.  Floats throughout: this is an
    estimate of power, stated as such, never a verdict.  ``grid_draws`` is the
    ``max_draws`` that fixed the concentrations (default ``max_draws``).
    """
    rng = np.random.default_rng(seed)
    outcomes = sampling.size
    probabilities = np.clip(sampling, 0.0, None)
    probabilities = probabilities / probabilities.sum()
    threshold = -math.log(alpha)
    grid = concentrations(grid_draws or max_draws)
    weights = np.log(_weights(len(grid), len(alternatives)))
    first = np.full(replicates, np.inf)
    active = np.arange(replicates)  # the runs that have not rejected yet
    counts = np.zeros((replicates, outcomes), dtype=np.int64)
    cell_of = np.arange(outcomes) if cells is None else cells.of
    cell_count = outcomes if cells is None else cells.lo.size
    cell_counts = counts if cells is None else np.zeros((replicates, cell_count), dtype=np.int64)
    cell_lo = null_lo if cells is None else cells.lo
    within = np.ones(outcomes) if cells is None else cells.within
    totals = np.zeros((replicates, len(weights)))
    log_null = np.log(np.where(null_hi > 0, null_hi, np.inf))
    chunk, start = 64, 0
    while start < max_draws and active.size:
        width = min(chunk, max_draws - start)
        size = active.size
        rows = np.arange(size)[:, None]
        draws = rng.choice(outcomes, size=(size, width), p=probabilities)
        live_counts = counts[active]
        before = live_counts[rows, draws] + _earlier_equal(draws)
        drawn_cells = cell_of[draws]
        live_cells = live_counts if cells is None else cell_counts[active]
        cell_before = before if cells is None else live_cells[rows, drawn_cells] + _earlier_equal(drawn_cells)
        steps = start + np.arange(width)[None, :]
        logs = [np.log((before + _UNIFORM_PRIOR) / (steps + _UNIFORM_PRIOR * outcomes))]
        logs.extend(np.log((cell_before + c * cell_lo[drawn_cells]) / (steps + c) * within[draws]) for c in grid)
        with np.errstate(divide="ignore"):
            logs.extend(np.log(a[draws]) for a in alternatives)
        base = totals[active]
        paths = np.stack([base[:, c, None] + np.cumsum(v - log_null[draws], axis=1) for c, v in enumerate(logs)])
        with np.errstate(invalid="ignore"):
            mixture = np.logaddexp.reduce(paths + weights[:, None, None], axis=0)
        crossed = mixture - (1e-9 + 1e-12 * (steps + 1)) >= threshold
        hit = crossed.any(axis=1)
        first[active[hit]] = crossed[hit].argmax(axis=1) + start + 1
        totals[active] = paths[:, :, -1].T
        counts[active] = live_counts + np.bincount(
            (draws + rows * outcomes).ravel(), minlength=size * outcomes
        ).reshape(size, outcomes)
        if cells is not None:
            cell_counts[active] = live_cells + np.bincount(
                (drawn_cells + rows * cell_count).ravel(), minlength=size * cell_count
            ).reshape(size, cell_count)
        active = active[~hit]
        start += width
        chunk = min(2 * chunk, 1024)
    final = counts
    final[np.isfinite(first)] = 0
    return SimulatedRuns(first=first, final=final)


def _earlier_equal(draws: np.ndarray) -> np.ndarray:
    """For each position of each row, how many earlier positions of that row hold the same value."""
    replicates, width = draws.shape
    keys = draws + (np.arange(replicates)[:, None] * (int(draws.max()) + 1))
    flat = keys.ravel()
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = np.r_[True, ordered[1:] != ordered[:-1]]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(flat.size), 0))
    ranks = np.empty(flat.size, dtype=np.int64)
    ranks[order] = np.arange(flat.size) - group_start
    return ranks.reshape(replicates, width)
