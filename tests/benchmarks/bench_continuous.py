"""The exact DP median over an interval against diffprivlib's float quantile, side by side in one run.

Run: ``pip install -e ".[bench]" && python tests/benchmarks/bench_continuous.py``.
Not collected by pytest.  Prints a Markdown table of medians over repeats.

The mechanism is the catalogue's ``median-interval`` (Smith 2011):
``q = −|#{x <= r} − n/2|`` over r in [0, 100] with Lebesgue μ and ε₀ = 1/2,
which is diffprivlib's ``quantile(x, 0.5, epsilon=1, bounds=(0, 100))`` (its
ε is ``2·ε₀·Δq``).  Data: n floats uniform on [0, 100] (exact dyadic
rationals to expmech); the neighbour replaces one record.

* diffprivlib: one call of ``tools.quantile`` (sort, float weights, one draw);
* exact distribution: ``distribution(D)`` — the pieces, the exact normaliser;
* + privacy loss: ``distribution(D')`` and the exact ``privacy_loss``, decided
  ``<= 1`` (= ε) exactly;
* one exact draw: ``distribution(D).sample(grid_bits=20)`` from scratch.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.impl import ExponentialMechanism, catalogue_entry

EPSILON0 = Fraction(1, 2)


def _median_seconds(run: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def data(n: int, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """n uniform floats on [0, 100] and a neighbour with one record replaced."""
    values = np.random.default_rng(seed).uniform(0, 100, n)
    other = values.copy()
    other[0] = 99.75
    return values, other


def mechanism() -> Any:
    quality = catalogue_entry("median-interval").quality
    return ExponentialMechanism(quality, epsilon=EPSILON0, outputs=quality.output_space)


def bench_exact(n: int, repeats: int = 5) -> dict[str, float]:
    """Seconds (medians) for the exact distribution, the loss on a neighbour, and one draw; and the loss."""
    mech = mechanism()
    values, other = data(n)
    mech.distribution(values[:100])  # warm caches and imports
    holder: dict[str, Any] = {}

    def distribution() -> None:
        holder["d1"] = mech.distribution(values)

    def loss() -> None:
        d2 = mech.distribution(other)
        holder["loss"] = holder["d1"].privacy_loss(d2)
        holder["decided"] = holder["loss"] <= 2 * EPSILON0

    def draw() -> None:
        mech.distribution(values).sample(rng=random.Random(1), grid_bits=20)

    result = {
        "distribution": _median_seconds(distribution, repeats),
        "loss": _median_seconds(loss, repeats),
        "draw": _median_seconds(draw, repeats),
    }
    assert holder["decided"], "the exact loss must be <= ε"
    result["loss value"] = float(holder["loss"])
    return result


def bench_diffprivlib(n: int, repeats: int = 5) -> float | None:
    """Seconds (median) of one diffprivlib quantile call, or None when diffprivlib is not installed."""
    try:
        import warnings

        warnings.filterwarnings("ignore")
        from diffprivlib.tools import quantile
    except ImportError:
        return None
    values, _ = data(n)
    state = np.random.RandomState(0)
    quantile(values[:100], 0.5, epsilon=1.0, bounds=(0, 100), random_state=state)
    return _median_seconds(lambda: quantile(values, 0.5, epsilon=1.0, bounds=(0, 100), random_state=state), repeats)


def main(argv: list[str] | None = None) -> None:
    """Print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="*", default=[10**4, 10**5])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print("| n | diffprivlib quantile s | exact distribution s | + neighbour & exact loss s | distribution + loss s | (distribution + loss) / diffprivlib | one exact draw s | exact loss |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.sizes:
        floats = bench_diffprivlib(n, args.repeats)
        exact = bench_exact(n, args.repeats)
        total = exact["distribution"] + exact["loss"]
        ratio = "—" if floats is None else f"{total / floats:.2f}×"
        shown = "not installed" if floats is None else f"{floats:.3f}"
        print(
            f"| {n:,} | {shown} | {exact['distribution']:.3f} | {exact['loss']:.3f} | {total:.3f} | {ratio} | "
            f"{exact['draw']:.3f} | {exact['loss value']:.4f} <= 1 |"
        )


if __name__ == "__main__":
    main()
