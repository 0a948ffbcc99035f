"""Sampling and exact-distribution benchmarks, side by side in one run.

Run: ``pip install -e ".[bench]" && python tests/benchmarks/bench_sampling.py``.
Not collected by pytest.  Prints a Markdown table of medians and ratios.

* repeated: many draws from one dataset — expmech's reusable table against
  diffprivlib's float ``Exponential.randomise`` (it, too, precomputes).
* fresh: one draw per call from a score vector — expmech's exact single-draw
  path against OpenDP's ``make_noisy_max`` (exact, in Rust), and an exact
  rejection sampler from μ (the alternative design, for the record).
* exact: ``distribution`` of two neighbouring datasets plus ``privacy_loss``
  at |R| = n = 10^4.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from expmech.impl import ExponentialMechanism, sample_bernoulli_exp

EPSILON = Fraction(1, 10)


class RankQuality:
    """``q(d, r) = −|#{x < r} − #{x > r}|`` (Δq = 2 under replace-one), batch-evaluated with numpy."""

    def __call__(self, data, r):
        return -abs(sum(1 for x in data if x < r) - sum(1 for x in data if x > r))

    def scores(self, data, outputs):
        ordered = np.sort(np.asarray(data, dtype=np.int64))
        points = np.asarray(outputs, dtype=np.int64)
        below = np.searchsorted(ordered, points, side="left")
        above = len(ordered) - np.searchsorted(ordered, points, side="right")
        return -np.abs(below - above)


class FixedScores:
    """A quality whose scores are given (so every sampler starts from the same vector)."""

    def __init__(self, scores: list[int]) -> None:
        self.values = scores

    def __call__(self, data, r):
        return self.values[r]

    def scores(self, data, outputs):
        return self.values


def make_data(size: int, outputs: int, seed: int = 7) -> list[int]:
    rng = random.Random(seed)
    return [min(outputs - 1, max(0, int(rng.gauss(outputs / 2, outputs / 8)))) for _ in range(size)]


def per_second(action: Callable[[], object], *, budget: float = 0.4, repeats: int = 5) -> float:
    """Median rate (calls/s) of ``action`` over ``repeats`` timed batches of about ``budget`` s."""
    start = time.perf_counter()
    action()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, int(budget / once))
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch):
            action()
        rates.append(batch / (time.perf_counter() - start))
    return statistics.median(rates)


def rejection_sampler(scores: list[int], epsilon: Fraction, rng: random.Random) -> Callable[[], int]:
    """Exact rejection from the uniform μ with a CKS coin e^{-ε(q* − q)}."""
    top = max(scores)

    def draw() -> int:
        while True:
            r = rng.randrange(len(scores))
            if sample_bernoulli_exp(epsilon * (top - scores[r]), rng=rng):
                return r

    return draw


def bench(outputs_sizes: list[int], n: int) -> list[tuple[str, str, float, str, float]]:
    rows = []
    for size in outputs_sizes:
        data = make_data(n, size)
        scores = [int(v) for v in RankQuality().scores(data, range(size))]
        rng = random.Random(1)
        mech = ExponentialMechanism(FixedScores(scores), epsilon=EPSILON, outputs=range(size))
        dist = mech.distribution(None)
        ours_repeated = per_second(lambda: dist.sample(rng=rng))
        try:
            from diffprivlib.mechanisms import Exponential

            dpl = Exponential(epsilon=2 * float(EPSILON), sensitivity=1.0, utility=[float(s) for s in scores], random_state=1)
            theirs = per_second(dpl.randomise)
            rows.append((f"repeated, |R|={size}", "expmech table", ours_repeated, "diffprivlib Exponential", theirs))
        except ImportError:
            rows.append((f"repeated, |R|={size}", "expmech table", ours_repeated, "diffprivlib (not installed)", float("nan")))
        ours_fresh = per_second(lambda: mech.sample(None, rng=rng), budget=0.6)
        try:
            import opendp.prelude as dp

            dp.enable_features("contrib")
            noisy_max = dp.m.make_noisy_max(
                dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.linf_distance(T=dp.i64), dp.max_divergence(), scale=float(1 / EPSILON)
            )
            theirs = per_second(lambda: noisy_max(scores), budget=0.6)
            rows.append((f"fresh, |R|={size}", "expmech single draw", ours_fresh, "OpenDP make_noisy_max", theirs))
        except ImportError:
            rows.append((f"fresh, |R|={size}", "expmech single draw", ours_fresh, "OpenDP (not installed)", float("nan")))
        reject = rejection_sampler(scores, EPSILON, rng)
        rows.append((f"fresh, |R|={size}", "expmech single draw", ours_fresh, "exact rejection from μ", per_second(reject, budget=0.6)))
    return rows


def bench_exact(size: int, n: int) -> tuple[float, float]:
    """Seconds for distribution(d1) + distribution(d2) + privacy_loss, and for one sample."""
    data = make_data(n, size)
    neighbour = list(data)
    neighbour[0] = size - 1 - neighbour[0]
    mech = ExponentialMechanism(RankQuality(), epsilon=EPSILON, outputs=range(size))
    times = []
    for _ in range(3):
        start = time.perf_counter()
        loss = mech.privacy_loss(data, neighbour)
        decided = loss <= 2 * EPSILON * 2  # Δq = 2: one replaced record moves from below r to above it
        times.append(time.perf_counter() - start)
        assert decided
    return statistics.median(times), float(loss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000, help="dataset size")
    args = parser.parse_args()
    rows = bench([100, 10_000], args.n)
    print("| case | expmech | samples/s | other | samples/s | expmech / other |")
    print("|---|---|---:|---|---:|---:|")
    for case, ours_name, ours, theirs_name, theirs in rows:
        ratio = ours / theirs if theirs == theirs else float("nan")
        print(f"| {case} | {ours_name} | {ours:,.0f} | {theirs_name} | {theirs:,.0f} | {ratio:.2f}× |")
    seconds, loss = bench_exact(10_000, args.n)
    print()
    print(f"exact distribution ×2 + privacy_loss at |R| = 10^4, n = {args.n}: {seconds:.3f} s (loss ≈ {loss:.6f}, decided <= 2·ε·Δq = 4ε exactly)")


if __name__ == "__main__":
    main()
