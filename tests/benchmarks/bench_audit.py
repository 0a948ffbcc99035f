"""Audit benchmarks, side by side in one run.

Run: ``pip install -e ".[test]" && python tests/benchmarks/bench_audit.py``.
Not collected by pytest.  Prints the figures and writes them as JSON
(``docs/benchmarks/results/data/audit.json``, for the generated benchmarks page), then two Markdown tables.

* generated deviations: random perturbations of random exact laws at TV
  0.005–0.05 on 4–50 outcomes; the e-process's 80th-percentile stopping time
  (at α/2, as in the verdict) over the N at which a Pearson chi-square at α
  has power 0.8 (target: at most 2);
* false alarms: the whole verdict (e-process at α/2 or the calibrated
  chi-square at the budget at α/2) over 1,000 seeded null runs at the default
  budget (detectable TV 1/50), and that budget's power against the least
  favourable shape at TV 0.02;
* campaign: the demonstration campaign's wall time on a LocalCluster of 1 and 2 workers;

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
from expmech.proofs.audit import demo_cases, run_campaign
from expmech.proofs.audit._detectable import budget_for, proportional, verdict_power
from expmech.proofs.audit._eprocess import first_crossings, pooled_cells
from expmech.proofs.audit._fixed_n import calibrate
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
        null_run = first_crossings(null, lo, hi, vectors, alpha=ALPHA / 2, max_draws=max_draws, replicates=replicates, seed=99)
        rows.append((label, "none (false-alarm rate)", math.inf, math.inf, math.inf, math.inf, float(np.mean(np.isfinite(null_run.first)))))
        for offset, alternative in enumerate(law.alternatives()):
            times_array = first_crossings(
                alternative.probabilities, lo, hi, vectors, alpha=ALPHA / 2, max_draws=max_draws, replicates=replicates, seed=offset
            ).first
            median = float(np.median(times_array))
            p80 = float(np.quantile(times_array, 0.8))
            power = float(np.mean(np.isfinite(times_array)))
            chi_half = smallest_n(null, alternative.probabilities, 0.5, replicates=2000, seed=offset)
            chi_80 = smallest_n(null, alternative.probabilities, 0.8, replicates=2000, seed=offset + 50)
            rows.append((label, alternative.name, median, p80, chi_half, chi_80, power))
    return rows


def _random_law(rng: np.random.Generator, size: int):
    scores = tuple(int(v) for v in rng.integers(0, 10, size))
    mechanism = ExponentialMechanism(table, epsilon=Fraction(1, 3), outputs=range(size))
    return reference_law(mechanism, scores)


def _perturbation(p: np.ndarray, tv: float, rng: np.random.Generator) -> np.ndarray:
    while True:
        g = rng.standard_normal(p.size)
        g -= g.mean()
        q = p + tv * 2 * g / np.abs(g).sum()
        if (q > 0).all():
            return q / q.sum()


def bench_generated(trials: int, replicates: int, seed: int = 1) -> list[dict]:
    """Generated deviations: e-process (at α/2, as in the verdict) 80% stopping time vs the chi-square's N at α, power 0.8."""
    rng = np.random.default_rng(seed)
    rows = []
    for trial in range(trials):
        size = int(rng.integers(4, 51))
        tv = float(np.exp(rng.uniform(math.log(0.005), math.log(0.05))))
        law = _random_law(rng, size)
        null = law.probabilities()
        lo, hi = law.lower_upper()
        q = _perturbation(null, tv, rng)
        chi_80 = smallest_n(null, q, 0.8, replicates=2000, seed=trial)
        cap = int(8 * chi_80)
        runs = first_crossings(
            q, lo, hi, [a.probabilities for a in law.alternatives()], alpha=ALPHA / 2, max_draws=cap,
            replicates=replicates, seed=trial, grid_draws=int(2 * chi_80),
        )
        p80 = float(np.quantile(runs.first, 0.8))
        rows.append({"outcomes": size, "tv": tv, "chi_square_draws_power_0.8": chi_80, "sequential_draws_80th_percentile": p80,
                     "ratio": p80 / chi_80})
        print(f"  generated {trial + 1}/{trials}: |R| = {size}, TV = {tv:.4f}, chi-square N = {chi_80}, sequential 80% = {p80:.0f}, "
              f"ratio {p80 / chi_80:.2f}", flush=True)
    return rows


def bench_false_alarms(runs: int) -> list[dict]:
    """The whole verdict's false-alarm rate at the default budget (detectable 1/50), over ``runs`` seeded null runs."""
    rows = []
    rng = np.random.default_rng(5)
    for label, law in (("demo: mode, |R| = 6", reference_law(demo_cases()[0].reference, demo_cases()[0].dataset)),
                       ("random law, |R| = 30", _random_law(rng, 30)),
                       ("random law, |R| = 200 (pooled cells)", _random_law(rng, 200))):
        null = law.probabilities()
        lo, hi = law.lower_upper()
        budget = budget_for(null, 0.02, ALPHA / 2)
        fixed = calibrate(lo, hi, draws=budget, level=ALPHA / 2, seed=3)
        rate, _ = verdict_power(
            null, lo, hi, [a.probabilities for a in law.alternatives()], sequential_alpha=ALPHA / 2, fixed=fixed,
            max_draws=budget, replicates=runs, seed=11, cells=pooled_cells(lo, hi),
        )
        shifted = proportional(null, 0.02, fixed.groups if fixed else None)
        power, median = verdict_power(
            shifted, lo, hi, [a.probabilities for a in law.alternatives()], sequential_alpha=ALPHA / 2, fixed=fixed,
            max_draws=budget, replicates=runs, seed=12, cells=pooled_cells(lo, hi),
        )
        rows.append({"law": label, "default_budget": budget, "null_runs": runs, "false_alarm_rate": rate,
                     "power_at_tv_0.02_least_favourable": power, "median_draws_to_reject": median})
        print(f"  {label}: budget {budget}, false alarms {rate:.4f} over {runs}, power at TV 0.02 {power:.3f}", flush=True)
    return rows


def bench_campaign(repeats: int = 1) -> list[dict]:
    """Wall time of the demonstration campaign (5 cases) on a LocalCluster of 1 and of 2 worker processes."""
    rows = []
    options = {"max_draws": 5_000, "power_replicates": 20, "privacy_draws": 500}
    for workers in (1, 2):
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            run_campaign(demo_cases(seed=1), options=options, cluster="local", workers=workers)
            times.append(time.perf_counter() - start)
        rows.append({"workers": workers, "cases": 5, "seconds": statistics.median(times), "options": options})
        print(f"  campaign on {workers} worker(s): {statistics.median(times):.1f} s", flush=True)
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
    parser.add_argument("--trials", type=int, default=16, help="generated deviations")
    parser.add_argument("--null-runs", type=int, default=1000)
    parser.add_argument("--json", default="docs/benchmarks/results/data/audit.json", help="write the figures here")
    parser.add_argument("--skip-campaign", action="store_true")
    args = parser.parse_args()
    figures: dict = {"alpha": ALPHA, "machine_cores": __import__("os").cpu_count()}
    print("generated deviations (random perturbations, TV 0.005–0.05, |R| 4–50):")
    figures["generated"] = bench_generated(args.trials, min(args.replicates, 200))
    ratios = [row["ratio"] for row in figures["generated"]]
    figures["generated_ratio_max"], figures["generated_ratio_median"] = max(ratios), statistics.median(ratios)
    print(f"  ratio max {max(ratios):.2f}, median {statistics.median(ratios):.2f}")
    print("false alarms and the default budget's power:")
    figures["default_budget"] = bench_false_alarms(args.null_runs)
    if not args.skip_campaign:
        print("campaign wall time:")
        figures["campaign"] = bench_campaign()
    path = __import__("pathlib").Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(__import__("json").dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"figures written to {path}")
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
