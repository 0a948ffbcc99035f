"""Sampling and exact-distribution benchmarks on equal terms, every ratio printed by one run.

Run: ``pip install -e ".[bench]" && python tests/benchmarks/bench_sampling.py``
(``--quick`` for small sizes only).  Not collected by pytest.  Prints Markdown
tables of medians and ratios; ratios > 1 mean expmech is faster, except in
the exact-distribution table, where the ratio is expmech's time over float
numpy's (target: at most 3).

Equal terms:

* **The same law on both sides.** The exponential mechanism with weight
  ``e^{εq}`` (ε = 1/10): diffprivlib ``Exponential(epsilon=2ε, sensitivity=1)``
  (its weight is ``e^{ε'q/(2Δ)}``), OpenDP ``make_noisy_max`` with
  ``zero_concentrated_divergence`` and ``scale = 1/ε`` (Gumbel noise; the
  arg-max of Gumbel-noised scores is the exponential mechanism), numpy's
  Gumbel-max trick.  Permute-and-flip: expmech ``PermuteAndFlip`` against
  OpenDP ``make_noisy_max`` with ``max_divergence`` (exponential noise).  Before
  any timing, each OpenDP sampler is audited against both exact laws
  (``audit_sampler``), so the law it samples is measured, not assumed.
* **Generators.** "default": each library's default generator — expmech's
  ``secrets.SystemRandom``, diffprivlib's (``random_state=None`` is
  ``secrets.SystemRandom`` too), OpenDP's (the operating system's; it cannot
  be seeded), numpy's ``default_rng()`` (PCG64, unseeded).  "seeded": a seeded
  Mersenne Twister on both sides (``random.Random(1)`` / diffprivlib's
  ``random_state=1``) or numpy's ``default_rng(1)``.
* **Native input types.** The score vector is an int64 numpy array for expmech
  (a quality with a ``scores`` method returning it), OpenDP and numpy; a
  Python list for diffprivlib, which accepts nothing else.
* **Fresh draws** build everything from the score vector on every call: a new
  diffprivlib ``Exponential`` and its ``randomise()``; the OpenDP measurement
  (data-independent, built once, as in real use) called on the vector;
  expmech's ``mech.sample(scores)``.  **Repeated draws** reuse a table, whose
  build is timed separately.
* **Where the time goes.** For each competitor the share of a fresh call that
  is not sampling: diffprivlib's Python input check (run by the constructor
  and again by ``randomise``), OpenDP's hand-over of the vector (timed as
  ``make_count`` on the same vector: conversion plus one pass), numpy's
  Gumbel noise generation.  For expmech the share of the float-filtered CDF.
"""

from __future__ import annotations

import argparse
import gc
import random
import secrets
import statistics
import time
import tracemalloc
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.impl import ExponentialMechanism, PermuteAndFlip

EPSILON = Fraction(1, 10)
SIZES = [100, 1_000, 10_000, 100_000, 1_000_000]


class RankQuality:
    """``q(d, r) = −|#{x < r} − #{x > r}|`` (Δq = 2 under replace-one), batch-evaluated with numpy."""

    def __call__(self, data: Any, r: int) -> int:
        return -abs(sum(1 for x in data if x < r) - sum(1 for x in data if x > r))

    def scores(self, data: Any, outputs: Any) -> np.ndarray:
        ordered = np.sort(np.asarray(data, dtype=np.int64))
        points = np.arange(len(outputs), dtype=np.int64) if isinstance(outputs, range) and outputs.start == 0 and outputs.step == 1 else np.asarray(outputs, dtype=np.int64)
        below = np.searchsorted(ordered, points, side="left")
        above = len(ordered) - np.searchsorted(ordered, points, side="right")
        return -np.abs(below - above)


class GivenScores:
    """A quality whose 'dataset' is its own int64 score vector (so every sampler starts from the same vector)."""

    def __call__(self, scores: np.ndarray, r: int) -> int:
        return int(scores[r])

    def scores(self, scores: np.ndarray, outputs: Any) -> np.ndarray:
        return scores


def make_data(size: int, outputs: int, seed: int = 7) -> np.ndarray:
    """``size`` records around the middle of ``range(outputs)`` (a normal, clipped)."""
    generator = np.random.default_rng(seed)
    return np.clip(generator.normal(outputs / 2, outputs / 8, size).astype(np.int64), 0, outputs - 1)


def score_vector(outputs: int, n: int = 10_000) -> np.ndarray:
    """The rank scores of ``n`` records at every output: the vector every sampler is given."""
    return RankQuality().scores(make_data(n, outputs), range(outputs))


def per_second(action: Callable[[], object], *, budget: float = 0.3, repeats: int = 5) -> float:
    """Median rate (calls/s) of ``action`` over ``repeats`` timed batches of about ``budget`` s."""
    start = time.perf_counter()
    action()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, int(budget / once))
    rates = []
    for _ in range(repeats if once < 1 else 3):
        start = time.perf_counter()
        for _ in range(batch):
            action()
        rates.append(batch / (time.perf_counter() - start))
    return statistics.median(rates)


def seconds(action: Callable[[], object], *, repeats: int = 5) -> float:
    """Median wall-clock seconds of ``action`` over ``repeats`` batches (calls batched to about 0.1 s when fast)."""
    start = time.perf_counter()
    action()
    batch = max(1, int(0.1 / max(time.perf_counter() - start, 1e-7)))
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(batch):
            action()
        times.append((time.perf_counter() - start) / batch)
    return statistics.median(times)


# -- the competitors ------------------------------------------------------------------


def opendp_measurements() -> tuple[Any, Any, Any] | None:
    """OpenDP's Gumbel (zCDP) and exponential-noise (pure DP) noisy max at scale 1/ε, and make_count; None if absent."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")
    domain, metric = dp.vector_domain(dp.atom_domain(T=dp.i64)), dp.linf_distance(T=dp.i64)
    scale = float(1 / EPSILON)
    gumbel = dp.m.make_noisy_max(domain, metric, dp.zero_concentrated_divergence(), scale=scale)
    exponential = dp.m.make_noisy_max(domain, metric, dp.max_divergence(), scale=scale)
    count = dp.t.make_count(domain, dp.symmetric_distance())
    return gumbel, exponential, count


def audit_opendp_laws(draws: int = 20_000) -> list[str]:
    """Which exact law each OpenDP noisy max samples, by audit against both (lines to print)."""
    try:
        from expmech.proofs import adapters, audit_sampler
    except ImportError:  # pragma: no cover
        return []
    scores = (3, 1, 4, 1, 5, 9, 2, 6)
    lines = []
    alpha = Fraction(1, 10**6)
    for measure, claimed in (("zero_concentrated_divergence", "exponential mechanism"), ("max_divergence", "permute-and-flip")):
        try:
            case = adapters.opendp_noisy_max(scores, scale=1.0, output_measure=measure)
        except ImportError:
            return []
        reference = case.reference
        other = (
            PermuteAndFlip(reference.quality, epsilon=reference.epsilon, outputs=reference.outputs)
            if measure == "zero_concentrated_divergence"
            else ExponentialMechanism(reference.quality, epsilon=reference.epsilon, outputs=reference.outputs)
        )
        same = audit_sampler(case.sampler, reference, scores, max_draws=draws, power_replicates=0, alpha=alpha)
        against = audit_sampler(case.sampler, other, scores, max_draws=draws, power_replicates=0, alpha=alpha)
        lines.append(
            f"OpenDP make_noisy_max({measure}): {same.status.name} with the {claimed} after {same.draws:,} draws; "
            f"{against.status.name} against the other law after {against.draws:,} (α = 10⁻⁶)"
        )
    return lines


def diffprivlib_exponential() -> Any:
    try:
        from diffprivlib.mechanisms import Exponential
    except ImportError:
        return None
    return Exponential


# -- fresh draws ------------------------------------------------------------------------


def bench_fresh(size: int, *, with_diffprivlib: bool = True) -> dict[str, float]:
    """Draws/s of one fresh draw from the score vector, per sampler and generator, and the time shares."""
    scores = score_vector(size)
    listed = scores.tolist()
    mech = ExponentialMechanism(GivenScores(), epsilon=EPSILON, outputs=range(size))
    pf = PermuteAndFlip(GivenScores(), epsilon=EPSILON, outputs=range(size))
    system, twister = secrets.SystemRandom(), random.Random(1)
    out: dict[str, float] = {}
    out["expmech default"] = per_second(lambda: mech.sample(scores, rng=system))
    out["expmech seeded"] = per_second(lambda: mech.sample(scores, rng=twister))
    out["expmech pf default"] = per_second(lambda: pf.sample(scores, rng=system))
    from expmech.impl.exact._floatfilter import prefix_sums

    rate = float(EPSILON)
    shifted = (scores - scores.max()) * rate
    out["expmech share float CDF"] = out["expmech default"] / per_second(lambda: prefix_sums(None, 0.0, shifted))
    exponential = diffprivlib_exponential()
    if exponential is not None and with_diffprivlib:
        epsilon = 2 * float(EPSILON)
        out["diffprivlib default"] = per_second(lambda: exponential(epsilon=epsilon, sensitivity=1.0, utility=listed).randomise())
        out["diffprivlib seeded"] = per_second(lambda: exponential(epsilon=epsilon, sensitivity=1.0, utility=listed, random_state=1).randomise())
        check = 2 / per_second(lambda: exponential._check_utility_candidates_measure(listed, None, None))
        probabilities = 1 / per_second(lambda: exponential._find_probabilities(epsilon, 1.0, listed, False, None))
        out["diffprivlib share check"] = check * out["diffprivlib default"]
        out["diffprivlib share probabilities"] = probabilities * out["diffprivlib default"]
    measurements = opendp_measurements()
    if measurements is not None:
        gumbel, exponential_noise, count = measurements
        out["opendp zcdp"] = per_second(lambda: gumbel(scores))
        out["opendp pf"] = per_second(lambda: exponential_noise(scores))
        out["opendp share input"] = out["opendp zcdp"] / per_second(lambda: count(scores))
    default, seeded = np.random.default_rng(), np.random.default_rng(1)
    out["numpy default"] = per_second(lambda: int(np.argmax(scores * rate + default.gumbel(size=size))))
    out["numpy seeded"] = per_second(lambda: int(np.argmax(scores * rate + seeded.gumbel(size=size))))
    out["numpy share noise"] = out["numpy default"] / per_second(lambda: default.gumbel(size=size))
    return out


# -- repeated draws and table builds ------------------------------------------------------


def bench_repeated(size: int) -> dict[str, float]:
    """Table builds (s) and repeated draws/s from one score vector."""
    scores = score_vector(size)
    listed = scores.tolist()
    mech = ExponentialMechanism(GivenScores(), epsilon=EPSILON, outputs=range(size))
    out: dict[str, float] = {}

    def build_expmech() -> Any:
        dist = mech.distribution(scores)
        dist._sampling_table()._bounds()
        return dist

    out["expmech build"] = seconds(build_expmech)
    dist = build_expmech()
    system, twister = secrets.SystemRandom(), random.Random(1)
    out["expmech default"] = per_second(lambda: dist.sample(rng=system))
    out["expmech seeded"] = per_second(lambda: dist.sample(rng=twister))
    exponential = diffprivlib_exponential()
    if exponential is not None:
        epsilon = 2 * float(EPSILON)
        out["diffprivlib build"] = seconds(lambda: exponential(epsilon=epsilon, sensitivity=1.0, utility=listed))
        default = exponential(epsilon=epsilon, sensitivity=1.0, utility=listed)
        seeded = exponential(epsilon=epsilon, sensitivity=1.0, utility=listed, random_state=1)
        out["diffprivlib default"] = per_second(default.randomise)
        out["diffprivlib seeded"] = per_second(seeded.randomise)
    rate = float(EPSILON)

    def build_numpy() -> np.ndarray:
        weights = np.exp((scores - scores.max()) * rate)
        return np.cumsum(weights / weights.sum())

    out["numpy build"] = seconds(build_numpy)
    cdf = build_numpy()
    generator = np.random.default_rng(1)
    out["numpy seeded"] = per_second(lambda: int(np.searchsorted(cdf, generator.random(), side="right")))
    return out


# -- exact distribution and privacy loss ----------------------------------------------------


def _peak(action: Callable[[], Any]) -> tuple[Any, int]:
    """``action()`` and the peak of memory it allocated (tracemalloc: Python and numpy allocations)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = action()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak


def bench_exact(size: int, n: int, *, repeats: int = 3) -> dict[str, Any]:
    """Seconds and peak memory for the exact distributions of two neighbours plus their privacy loss, against float numpy.

    expmech: ``mech.privacy_loss(d1, d2)`` (two exact distributions and the
    exact maximum) and the decision ``loss <= 2·ε·Δq`` (Δq = 2).  numpy: the
    same two score vectors, log-softmax in float64 and ``max |Δ log p|``.
    """
    data = make_data(n, size)
    neighbour = data.copy()
    neighbour[0] = size - 1 - neighbour[0]
    quality = RankQuality()
    mech = ExponentialMechanism(quality, epsilon=EPSILON, outputs=range(size))

    def exact() -> tuple[float, bool]:
        loss = mech.privacy_loss(data, neighbour)
        return float(loss), bool(loss <= 2 * EPSILON * 2)

    rate = float(EPSILON)

    def floats() -> float:
        points = range(size)

        def log_probabilities(scores: np.ndarray) -> np.ndarray:
            exponents = (scores - scores.max()) * rate
            return exponents - np.log(np.exp(exponents).sum())

        return float(np.max(np.abs(log_probabilities(quality.scores(data, points)) - log_probabilities(quality.scores(neighbour, points)))))

    (loss, decided), exact_memory = _peak(exact)
    float_loss, float_memory = _peak(floats)
    return {
        "exact s": seconds(exact, repeats=repeats),
        "float s": seconds(floats, repeats=repeats),
        "exact peak MB": exact_memory / 2**20,
        "float peak MB": float_memory / 2**20,
        "loss": loss,
        "float loss": float_loss,
        "decided": decided,
    }


# -- printing -------------------------------------------------------------------------


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}×" if a and b else "—"


def _rate(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 10^4 only")
    args = parser.parse_args()
    sizes = [s for s in SIZES if not args.quick or s <= 10_000]

    print("Which law OpenDP samples (audited before timing):")
    for line in audit_opendp_laws(2_000 if args.quick else 20_000):
        print(f"- {line}")

    print("\nFresh draws (draws/s; each call starts from the int64 score vector; ratio = expmech / other):\n")
    print("| \\|R\\| | expmech default | expmech seeded | diffprivlib default | diffprivlib seeded | OpenDP zCDP (OS) | numpy Gumbel-max default | numpy Gumbel-max seeded "
          "| vs diffprivlib default | vs diffprivlib seeded | vs OpenDP | vs numpy default | vs numpy seeded |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    fresh = {size: bench_fresh(size) for size in sizes}
    for size, row in fresh.items():
        g = row.get
        print(f"| {size:,} | {_rate(g('expmech default'))} | {_rate(g('expmech seeded'))} | {_rate(g('diffprivlib default'))} | {_rate(g('diffprivlib seeded'))} "
              f"| {_rate(g('opendp zcdp'))} | {_rate(g('numpy default'))} | {_rate(g('numpy seeded'))} "
              f"| {_ratio(g('expmech default'), g('diffprivlib default'))} | {_ratio(g('expmech seeded'), g('diffprivlib seeded'))} "
              f"| {_ratio(g('expmech default'), g('opendp zcdp'))} | {_ratio(g('expmech default'), g('numpy default'))} | {_ratio(g('expmech seeded'), g('numpy seeded'))} |")

    print("\nWhere a fresh call's time goes (share of one call):\n")
    print("| \\|R\\| | diffprivlib: input check | diffprivlib: probabilities | OpenDP: vector hand-over | numpy: Gumbel noise | expmech: float CDF |")
    print("|---:|---:|---:|---:|---:|---:|")
    for size, row in fresh.items():
        g = row.get
        cells = [g("diffprivlib share check"), g("diffprivlib share probabilities"), g("opendp share input"), g("numpy share noise"), g("expmech share float CDF")]
        print(f"| {size:,} | " + " | ".join("—" if c is None else f"{100 * c:.0f} %" for c in cells) + " |")

    print("\nPermute-and-flip, fresh draws (draws/s, default generators; OpenDP max_divergence):\n")
    print("| \\|R\\| | expmech PermuteAndFlip | OpenDP make_noisy_max (max_divergence) | expmech / OpenDP |")
    print("|---:|---:|---:|---:|")
    for size, row in fresh.items():
        print(f"| {size:,} | {_rate(row.get('expmech pf default'))} | {_rate(row.get('opendp pf'))} | {_ratio(row.get('expmech pf default'), row.get('opendp pf'))} |")

    print("\nRepeated draws from one table (draws/s) and the table build (ms):\n")
    print("| \\|R\\| | expmech build ms | diffprivlib build ms | numpy build ms | expmech default | expmech seeded | diffprivlib default | diffprivlib seeded | numpy seeded "
          "| build expmech / numpy | vs diffprivlib default | vs diffprivlib seeded | vs numpy seeded |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in [s for s in (100, 10_000, 1_000_000) if s in sizes]:
        row = bench_repeated(size)
        g = row.get
        ms = lambda key: "—" if g(key) is None else f"{1000 * g(key):.2f}"  # noqa: E731
        print(f"| {size:,} | {ms('expmech build')} | {ms('diffprivlib build')} | {ms('numpy build')} | {_rate(g('expmech default'))} | {_rate(g('expmech seeded'))} "
              f"| {_rate(g('diffprivlib default'))} | {_rate(g('diffprivlib seeded'))} | {_rate(g('numpy seeded'))} "
              f"| {g('expmech build') / g('numpy build'):.1f}× | {_ratio(g('expmech default'), g('diffprivlib default'))} "
              f"| {_ratio(g('expmech seeded'), g('diffprivlib seeded'))} | {_ratio(g('expmech seeded'), g('numpy seeded'))} |")

    print("\nExact distributions of two neighbouring datasets + privacy loss, against float numpy (medians of 3 batches; ratio = expmech / numpy):\n")
    print("| \\|R\\| | n | expmech exact s | float numpy s | ratio | expmech peak MB | numpy peak MB | exact loss | decided <= 2·ε·Δq |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    cases = [(10_000, 10_000), (100_000, 1_000_000), (1_000_000, 1_000_000)] if not args.quick else [(10_000, 10_000)]
    for size, n in cases:
        row = bench_exact(size, n)
        print(f"| {size:,} | {n:,} | {row['exact s']:.3f} | {row['float s']:.3f} | {row['exact s'] / row['float s']:.2f}× "
              f"| {row['exact peak MB']:.1f} | {row['float peak MB']:.1f} | {row['loss']:.6f} | {'yes' if row['decided'] else 'no'} |")


if __name__ == "__main__":
    main()
