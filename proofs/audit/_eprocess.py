"""An anytime-valid sequential test of a categorical sampler against an exact law.

The statistic is a *mixture likelihood ratio* ``E_t = Σ_c w_c E_{c,t}`` with
``E_{c,t} = Π_{s<=t} q_{c,s}(x_s) / π̄(x_s)``, where ``π̄(x) >= π(x)`` is a
rigorous upper bound of the exact null probability and each ``q_{c,s}`` is a
sub-probability vector fixed before draw ``s`` (it may depend on the earlier
draws).  Under the null each ``E_{c,t}`` is a non-negative supermartingale
with ``E_{c,0} = 1`` (``E[q(X)/π̄(X)] <= Σ_x q(x) <= 1``), so is their
weighted average, and by Ville's inequality
``P[∃t: E_t >= 1/α] <= α`` — the false-alarm rate holds however long the run
goes on, and the run may stop the moment ``E_t`` crosses ``1/α``.

Components (weights: half on the two universal ones, half shared by the named
alternatives when there are any):

* ``uniform`` — the Krichevsky–Trofimov predictor ``(N_t(x) + 1/2)/(t + K/2)``
  (the Dirichlet(1/2) mixture): consistent against every alternative, and an
  outcome far rarer than ``1/K`` under the null is evidence at its first draw.
* ``centred`` — ``(N_t(x) + π_lo(x))/(t + 1)``, a Dirichlet mixture centred on
  the null (``π_lo <= π`` keeps it a sub-probability): adapts in a few draws
  whatever ``K`` is.
* one per named alternative ``q_A`` (the same mechanism at ``ε·0.5, 0.7, 1.3,
  2``, with max and min swapped, the other law): a sequential probability
  ratio test that is near-optimal against that bug.

The float evaluation of ``log E`` carries a rounding margin that is subtracted
before it is compared with ``ln(1/α)``, so rounding can only delay a rejection.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["EProcess", "SimulatedPower", "first_crossings", "simulate_power"]

_UNIFORM_PRIOR = 0.5
_CENTRED_CONCENTRATION = 1.0


def _weights(alternatives: int) -> np.ndarray:
    if alternatives == 0:
        return np.array([0.5, 0.5])
    return np.array([0.25, 0.25] + [0.5 / alternatives] * alternatives)


def _margin(draws: int) -> float:
    """An upper bound on the rounding error of a float log-likelihood sum over ``draws`` terms."""
    return 1e-9 + 1e-12 * draws


class EProcess:
    """The mixture e-process above, updated one draw at a time.

    ``outcomes`` is ``K``; ``alternatives`` are sub-probability vectors over
    outcome indices (``None`` when the outcomes cannot be enumerated: only the
    two universal components are used then).
    """

    def __init__(self, outcomes: int, alternatives: Sequence[np.ndarray]) -> None:
        self.outcomes = outcomes
        self.alternatives = [np.asarray(a, dtype=np.float64) for a in alternatives]
        self.log_weights = [math.log(w) for w in _weights(len(self.alternatives))]
        self.components = [0.0] * (2 + len(self.alternatives))
        self.counts: dict[int, int] = {}
        self.draws = 0
        self.largest = 0.0
        self._log_e = 0.0

    @property
    def log_e(self) -> float:
        """``ln E_t`` (``inf`` after a draw the null gives probability 0)."""
        return self._log_e

    def update(self, index: int, null_lo: float, null_hi: float) -> float:
        """Account for one draw of outcome ``index`` with ``null_lo <= π(x) <= null_hi``; return ``ln E_t``."""
        t = self.draws
        seen = self.counts.get(index, 0)
        components = self.components
        if null_hi <= 0.0:
            components[:] = [math.inf] * len(components)
        else:
            log_null = math.log(null_hi)
            predictions = [
                (seen + _UNIFORM_PRIOR) / (t + _UNIFORM_PRIOR * self.outcomes),
                (seen + _CENTRED_CONCENTRATION * null_lo) / (t + _CENTRED_CONCENTRATION),
            ]
            predictions.extend(float(a[index]) for a in self.alternatives)
            for c, p in enumerate(predictions):
                components[c] += (math.log(p) if p > 0 else -math.inf) - log_null
        self.counts[index] = seen + 1
        self.draws = t + 1
        self._log_e = _logsumexp([w + c for w, c in zip(self.log_weights, components)])
        self.largest = max(self.largest, self._log_e)
        return self._log_e

    def rejects(self, alpha: float) -> bool:
        """Whether ``E_t`` has crossed ``1/α`` (after the rounding margin)."""
        return self._log_e - _margin(self.draws) >= -math.log(alpha)


def _logsumexp(values: Sequence[float]) -> float:
    top = max(values)
    if math.isinf(top):
        return top
    return top + math.log(math.fsum(math.exp(v - top) for v in values))


@dataclass(frozen=True)
class SimulatedPower:
    """Rejections within the budget over seeded replicate runs under one alternative."""

    power: float
    median_draws: float  # inf when at most half the runs reject
    replicates: int


def simulate_power(
    sampling: np.ndarray,
    null_lo: np.ndarray,
    null_hi: np.ndarray,
    alternatives: Sequence[np.ndarray],
    *,
    alpha: float,
    max_draws: int,
    replicates: int,
    seed: int,
) -> SimulatedPower:
    """Run the e-process ``replicates`` times on draws from ``sampling``; the fraction that rejects by ``max_draws``.

    Vectorised over replicates and draws: the count of earlier equal draws at
    each position comes from one stable sort.  Floats throughout: this is an
    estimate of power, stated as such, never a verdict.
    """
    first = first_crossings(
        sampling, null_lo, null_hi, alternatives, alpha=alpha, max_draws=max_draws, replicates=replicates, seed=seed
    )
    return SimulatedPower(power=float(np.mean(np.isfinite(first))), median_draws=float(np.median(first)), replicates=replicates)


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
) -> np.ndarray:
    """The draw at which each of ``replicates`` seeded simulated runs rejects (``inf``: not by ``max_draws``)."""
    rng = np.random.default_rng(seed)
    outcomes = sampling.size
    probabilities = np.clip(sampling, 0.0, None)
    probabilities = probabilities / probabilities.sum()
    threshold = -math.log(alpha)
    weights = np.log(_weights(len(alternatives)))
    first = np.full(replicates, np.inf)
    active = np.arange(replicates)  # the runs that have not rejected yet
    counts = np.zeros((replicates, outcomes), dtype=np.int64)
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
        steps = start + np.arange(width)[None, :]
        logs = [
            np.log((before + _UNIFORM_PRIOR) / (steps + _UNIFORM_PRIOR * outcomes)),
            np.log((before + _CENTRED_CONCENTRATION * null_lo[draws]) / (steps + _CENTRED_CONCENTRATION)),
        ]
        with np.errstate(divide="ignore"):
            logs.extend(np.log(a[draws]) for a in alternatives)
        base = totals[active]
        paths = np.stack([base[:, c, None] + np.cumsum(v - log_null[draws], axis=1) for c, v in enumerate(logs)])
        top = np.max(paths, axis=0)
        finite = np.isfinite(top)
        safe_top = np.where(finite, top, 0.0)
        with np.errstate(invalid="ignore"):
            mixture = np.where(
                finite, safe_top + np.log(np.sum(np.exp(paths + weights[:, None, None] - safe_top), axis=0)), top
            )
        crossed = mixture - (1e-9 + 1e-12 * (steps + 1)) >= threshold
        hit = crossed.any(axis=1)
        first[active[hit]] = crossed[hit].argmax(axis=1) + start + 1
        totals[active] = paths[:, :, -1].T
        counts[active] = live_counts + np.bincount(
            (draws + rows * outcomes).ravel(), minlength=size * outcomes
        ).reshape(size, outcomes)
        active = active[~hit]
        start += width
        chunk = min(2 * chunk, 4096)
    return first


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
