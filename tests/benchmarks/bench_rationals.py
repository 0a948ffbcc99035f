"""The hot paths of the exact rational arrays, timed through the public API.

Run: ``python tests/benchmarks/bench_rationals.py [--repeats 5]``.  Not collected by pytest.
Prints one line per path with the least CPU seconds (``time.process_time``) over
repeats: on a shared machine the least CPU time is the figure that load disturbs
least.  Run it on two commits (same machine, alternately) to compare
implementations side by side.

* ``piecewise``: the pieces in r of the interval median's quality on n dyadic floats;
* ``continuous``: the exact law of the interval median on n dyadic floats
  (the piecewise evaluation of the quality, its cuts and the exact normaliser);
* ``vectorised``: ``q(D_j, r)`` for many small datasets and every output of the
  finite median (the vectorised interpreter);
* ``finite``: the exact law and privacy loss of a finite mechanism over 5·10^4
  outputs with rational scores (the score vector, its exponents and sums);
* ``big``: the same finite law with scores over a denominator past 2**63.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.impl import ExponentialMechanism, catalogue_entry
from expmech.impl.internal import VectorisedQuality
from expmech.impl.quality._piecewise import analyse


def _cpu_seconds(run: Callable[[], Any], repeats: int) -> float:
    run()  # warm caches and imports
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def paths() -> dict[str, Callable[[], Any]]:
    """The timed paths by name."""
    interval = catalogue_entry("median-interval").quality
    continuous = ExponentialMechanism(interval, epsilon=Fraction(1, 2), outputs=interval.output_space)
    values = np.random.default_rng(11).uniform(0, 100, 100_000)

    median = catalogue_entry("median").quality
    vectorised = VectorisedQuality(median)
    rng = random.Random(3)
    datasets = [[rng.randint(0, 15) for _ in range(rng.randint(0, 12))] for _ in range(3000)]
    outputs = median.outputs()

    count = 50_000
    scores = [Fraction(rng.randint(-1000, 0), rng.randint(1, 12)) for _ in range(count)]
    neighbour = [s - Fraction(rng.randint(0, 1)) for s in scores]
    finite = ExponentialMechanism(lambda d, r: d[r], epsilon=Fraction(1, 3), outputs=range(count))
    huge = 2**70 + 1
    big_scores = [Fraction(rng.randint(-(2**72), 0), huge) for _ in range(count)]

    def finite_law(first: list[Fraction], second: list[Fraction]) -> Any:
        return finite.distribution(first).privacy_loss(finite.distribution(second)) <= Fraction(2, 3)

    return {
        "piecewise": lambda: analyse(interval, values, lo=Fraction(0), hi=Fraction(100), integer=False),
        "continuous": lambda: continuous.distribution(values).privacy_loss(continuous.distribution(values[::-1])),
        "vectorised": lambda: vectorised.scores_many(datasets, outputs),
        "finite": lambda: finite_law(scores, neighbour),
        "big": lambda: finite_law(big_scores, neighbour),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    for name, run in paths().items():
        print(f"{name:12} {_cpu_seconds(run, args.repeats):.4f} s")


if __name__ == "__main__":
    main()
