"""Audit benchmarks, side by side in one run.

Run: ``pip install -e ".[test]" && python tests/benchmarks/bench_audit.py``.
Not collected by pytest.  Prints two Markdown tables.

* draws: for each named alternative of two references (the mode's exponential
  mechanism over 6 outputs, permute-and-flip over 20), the draws the
  sequential test needs to reject — median and 80th percentile of its stopping
  time over seeded simulated runs — against the smallest fixed N at which a
  Pearson chi-square (cells pooled to expected >= 5, ``scipy.stats``) at the
  same false-alarm rate α rejects with probability 1/2 and 0.8.  Ratios > 1
  mean the sequential test needs more draws: the price of being allowed to
  stop at any time.  The sequential test's own false-alarm rate is measured
  too.
* permute-and-flip: the exact law of every output (30-bit rigorous
  enclosures) at |R| = 10², 10³, 10⁴, against the enumeration of
  ``PermuteAndFlip.probabilities`` where it can run.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from fractions import Fraction

import numpy as np
from scipy import stats

from expmech.impl import ExponentialMechanism, PermuteAndFlip
from expmech.proofs.audit._eprocess import first_crossings, simulate_power
from expmech.proofs.audit._reference import reference_law

ALPHA = 0.01


def table(dataset, r):
    return dataset[r]


def chi_square_power(null, alternative, draws, *, replicates, rng):
    """Power of the pooled Pearson chi-square at level ALPHA with ``draws`` draws from ``alternative``."""
    expected = draws * null
    order = np.argsort(expected)
    groups, current, total = [], [], 0.0
    for i in order:
        current.append(i)
        total += expected[i]
        if total >= 5:
            groups.append(current)
            current, total = [], 0.0
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    if len(groups) < 2:
        return 0.0
    counts = rng.multinomial(draws, alternative / alternative.sum(), size=replicates)
    observed = np.stack([counts[:, g].sum(axis=1) for g in groups], axis=1)
    pooled = np.array([expected[g].sum() for g in groups])
    statistic = ((observed - pooled) ** 2 / pooled).sum(axis=1)
    pvalues = stats.chi2.sf(statistic, len(groups) - 1)
    return float(np.mean(pvalues <= ALPHA))


def smallest_n(null, alternative, target, *, replicates, seed, cap=200_000):
    """The smallest N (to 5%) at which the chi-square reaches power ``target``."""
    rng = np.random.default_rng(seed)
    low, high = 1, 8
    while chi_square_power(null, alternative, high, replicates=replicates, rng=rng) < target:
        low, high = high, high * 2
        if high > cap:
            return math.inf
    while high - low > max(1, low // 20):
        middle = (low + high) // 2
        if chi_square_power(null, alternative, middle, replicates=replicates, rng=rng) >= target:
            high = middle
        else:
            low = middle
    return high


def bench_draws(replicates: int, max_draws: int) -> list[tuple[str, str, float, float, float, float, float]]:
    """Rows (reference, alternative, seq median, seq p80, chi N at 1/2, chi N at 0.8, seq power)."""
    mode = ExponentialMechanism(lambda d, r: sum(1 for x in d if x == r), epsilon=Fraction(1, 2), outputs=range(6))
    rank_scores = tuple((7 * i) % 20 - abs(i - 10) for i in range(20))
    permute = PermuteAndFlip(table, epsilon=Fraction(1, 2), outputs=range(20))
    references = [
        ("exponential mechanism, |R| = 6", mode, (0, 1, 1, 2, 2, 2, 3, 5)),
        ("permute-and-flip, |R| = 20", permute, rank_scores),
    ]
    rows = []
    for label, mechanism, dataset in references:
        law = reference_law(mechanism, dataset)
        null = law.probabilities()
        lo, hi = law.lower_upper()
        vectors = [a.probabilities for a in law.alternatives()]
        null_run = simulate_power(null, lo, hi, vectors, alpha=ALPHA, max_draws=max_draws, replicates=replicates, seed=99)
        rows.append((label, "none (false-alarm rate)", math.inf, math.inf, math.inf, math.inf, null_run.power))
        for offset, alternative in enumerate(law.alternatives()):
            times_array = first_crossings(
                alternative.probabilities, lo, hi, vectors, alpha=ALPHA, max_draws=max_draws, replicates=replicates, seed=offset
            )
            median = float(np.median(times_array))
            p80 = float(np.quantile(times_array, 0.8))
            power = float(np.mean(np.isfinite(times_array)))
            chi_half = smallest_n(null, alternative.probabilities, 0.5, replicates=2000, seed=offset)
            chi_80 = smallest_n(null, alternative.probabilities, 0.8, replicates=2000, seed=offset + 50)
            rows.append((label, alternative.name, median, p80, chi_half, chi_80, power))
    return rows


def bench_permute_and_flip(repeats: int) -> list[tuple[int, float, float | None]]:
    """(|R|, median seconds for every output's 30-bit enclosure, median seconds of the enumeration or None)."""
    rows = []
    for size in (100, 1000, 10_000):
        scores = [-abs((37 * i) % size - size // 2) for i in range(size)]
        mech = PermuteAndFlip(table, epsilon=Fraction(1, 10), outputs=range(size))
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            mech.distribution(scores).enclosures(30)
            seconds.append(time.perf_counter() - start)
        rows.append((size, statistics.median(seconds), None))
    for size in (12, 16):
        scores = [-abs((37 * i) % size - size // 2) for i in range(size)]
        mech = PermuteAndFlip(table, epsilon=Fraction(1, 10), outputs=range(size))
        start = time.perf_counter()
        mech.probabilities(scores)
        enumeration = time.perf_counter() - start
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            mech.distribution(scores).enclosures(30)
            seconds.append(time.perf_counter() - start)
        rows.append((size, statistics.median(seconds), enumeration))
    return rows


def _number(value: float) -> str:
    return "—" if math.isinf(value) else f"{value:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replicates", type=int, default=400)
    parser.add_argument("--max-draws", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"α = {ALPHA}; sequential: {args.replicates} seeded runs per row, at most {args.max_draws} draws")
    print()
    print("| reference | alternative | sequential median | sequential 80% | chi-square N, power 1/2 | chi-square N, power 0.8 | median ratio | 80% ratio | sequential power |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, name, median, p80, chi_half, chi_80, power in bench_draws(args.replicates, args.max_draws):
        ratio_half = median / chi_half if math.isfinite(median) and math.isfinite(chi_half) else math.inf
        ratio_80 = p80 / chi_80 if math.isfinite(p80) and math.isfinite(chi_80) else math.inf
        print(
            f"| {label} | {name} | {_number(median)} | {_number(p80)} | {_number(chi_half)} | {_number(chi_80)} | "
            f"{'—' if math.isinf(ratio_half) else f'{ratio_half:.2f}'} | {'—' if math.isinf(ratio_80) else f'{ratio_80:.2f}'} | {power:.3f} |"
        )
    print()
    print("| \\|R\\| | every output, 30-bit enclosures (s) | enumeration (s) | enumeration / polynomial |")
    print("|---:|---:|---:|---:|")
    for size, seconds, enumeration in bench_permute_and_flip(args.repeats):
        if enumeration is None:
            print(f"| {size:,} | {seconds:.4f} | — | — |")
        else:
            print(f"| {size:,} | {seconds:.4f} | {enumeration:.3f} | {enumeration / seconds:,.0f}× |")


if __name__ == "__main__":
    main()
