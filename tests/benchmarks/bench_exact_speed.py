"""Exact at float speed: fresh draws, exact laws, the statements and accounting, each beside its baseline.

Run: ``python tests/benchmarks/bench_exact_speed.py`` (``--quick`` for fewer rounds; ``--suite`` adds one
run of the default test suite).  Not collected by pytest.  Every comparison runs both sides in this one
process (or as alternating subprocesses), round after round, and prints the median of the per-round
ratios, so a shared machine's load shifts both sides alike; the load averages before and after each
section are printed with it.

* **Fresh draws** (issue 35, item 1): ``ExponentialMechanism(q, epsilon=1/10, outputs=range(R)).sample(x)``
  against numpy's per-call inverse CDF of the same law, ``w = exp(ε(s − max s)); c = cumsum(w);
  searchsorted(c, U·c[−1])``, both seeded (Mersenne Twister / ``default_rng(1)``).  The same work per call:
  from the score vector ``x = s`` (a quality whose ``scores`` returns it), and from the data (the rank
  quality's numpy ``scores`` of n records, on both sides).  Ratio = expmech draws/s over numpy's (target:
  at least 1 at |R| = 100 and 10⁴).  **Bits per draw**: the bits each exact draw read from its generator,
  averaged over 20,000 draws, beside the entropy H of the law and Knuth–Yao's exact expectation (target:
  within H + 2).
* **Exact law and privacy loss of two neighbours** (item 2): ``mech.privacy_loss(d1, d2)``, ``float`` of it
  and the exact decision ``loss <= 2·ε·Δq``, against the same loss in float numpy (log-softmax of both score
  vectors); ratio = expmech seconds over numpy's (target: at most 1.5 at |R| = 10⁵).
* **expmech spec and expmech verify** (item 3), each in a fresh process in the checkout (verify: the
  pyproject's catalogues), alternating; ratio = spec over verify wall seconds (target: at most 2).
* **expmech account at k = 1,000** (item 4): a catalogue certificate, ``--times 1000 --delta 1/1000000``,
  in a fresh process; the wall seconds beside the enclosure it prints (target: under 1 s, the enclosure
  width unchanged: relative 1e-9).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

from expmech.impl import ExponentialMechanism
from expmech.impl.sampling._bits import bits_of

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_sampling import GivenScores, RankQuality, make_data  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EPSILON = Fraction(1, 10)
EXPMECH = [sys.executable, "-m", "expmech.proofs.cli"]


def load() -> str:
    """The 1/5/15-minute load averages."""
    return "/".join(f"{value:.1f}" for value in os.getloadavg())


def rate(action: Callable[[], object], budget: float) -> float:
    """Calls per second of ``action`` over one batch of about ``budget`` seconds."""
    start = time.perf_counter()
    action()
    once = max(time.perf_counter() - start, 1e-7)
    batch = max(1, int(budget / once))
    start = time.perf_counter()
    for _ in range(batch):
        action()
    return batch / (time.perf_counter() - start)


def interleaved(first: Callable[[], float], second: Callable[[], float], rounds: int) -> tuple[float, float, float, float, float]:
    """``(median first, median second, median ratio, lowest ratio, highest ratio)`` over alternating rounds."""
    a, b, ratios = [], [], []
    for _ in range(rounds):
        x, y = first(), second()
        a.append(x)
        b.append(y)
        ratios.append(x / y)
    return statistics.median(a), statistics.median(b), statistics.median(ratios), min(ratios), max(ratios)


# -- item 1: fresh draws ---------------------------------------------------------------------


def inverse_cdf(scores_of: Callable[[], np.ndarray], generator: np.random.Generator) -> Callable[[], int]:
    """numpy's per-call inverse CDF of the exponential mechanism (ε = 1/10) on fresh scores."""
    rate_float = float(EPSILON)

    def draw() -> int:
        scores = scores_of()
        weights = np.exp((scores - scores.max()) * rate_float)
        cumulative = np.cumsum(weights)
        return int(np.searchsorted(cumulative, generator.random() * cumulative[-1], side="right"))

    return draw


def law_figures(scores: np.ndarray) -> tuple[float, float]:
    """``(H, Knuth–Yao's expected bits)`` of the law ∝ e^{ε s}, at 60 digits."""
    with mpmath.workdps(60):
        top = int(scores.max())
        values, counts = np.unique(scores, return_counts=True)
        lam = mpmath.mpf(EPSILON.numerator) / EPSILON.denominator
        weights = [(int(c), mpmath.exp(lam * (int(v) - top))) for v, c in zip(values, counts)]
        total = mpmath.fsum(c * w for c, w in weights)
        entropy = mpmath.mpf(0)
        expected = mpmath.mpf(0)
        for count, weight in weights:
            p = weight / total
            if p == 0:
                continue
            entropy -= count * p * mpmath.log(p, 2)
            bits = mpmath.mpf(0)
            scaled = p
            for k in range(1, 160):
                scaled *= 2
                if int(mpmath.floor(scaled)) % 2:
                    bits += k * mpmath.mpf(2) ** -k
            expected += count * bits
        return float(entropy), float(expected)


def measured_bits(mech: ExponentialMechanism, argument: Any, draws: int) -> float:
    """The bits per draw read from a fresh generator over ``draws`` draws."""
    rng = random.Random(12345)
    for _ in range(draws):
        mech.sample(argument, rng=rng)
    return bits_of(rng).consumed / draws


def bench_draws(sizes: list[int], records: list[int], rounds: int, budget: float, bit_draws: int) -> list[dict[str, Any]]:
    """One row per (|R|, n, input): draws/s of both sides, the median ratio, bits per draw and the law's H."""
    rows = []
    for size in sizes:
        for n in records:
            data = make_data(n, size)
            quality = RankQuality()
            outputs = range(size)
            scores = quality.scores(data, outputs)
            entropy, knuth_yao = law_figures(scores)
            for source in ("scores", "data"):
                if source == "scores":
                    mech = ExponentialMechanism(GivenScores(), epsilon=EPSILON, outputs=outputs)
                    argument: Any = scores
                    scores_of: Callable[[], np.ndarray] = lambda: scores  # noqa: E731
                else:
                    mech = ExponentialMechanism(quality, epsilon=EPSILON, outputs=outputs)
                    argument = data
                    scores_of = lambda: quality.scores(data, outputs)  # noqa: E731
                rng = random.Random(1)
                exact = lambda: mech.sample(argument, rng=rng)  # noqa: E731
                floats = inverse_cdf(scores_of, np.random.default_rng(1))
                before = load()
                a, b, ratio, low, high = interleaved(lambda: rate(exact, budget), lambda: rate(floats, budget), rounds)
                bits = measured_bits(mech, argument, bit_draws) if source == "scores" else None
                rows.append({
                    "R": size, "n": n, "from": source, "expmech": a, "numpy": b, "ratio": ratio, "low": low, "high": high,
                    "bits": bits, "H": entropy, "KY": knuth_yao, "load": f"{before} → {load()}",
                })
    return rows


# -- item 2: exact law and privacy loss --------------------------------------------------------


def bench_loss(cases: list[tuple[int, int]], rounds: int) -> list[dict[str, Any]]:
    """Seconds of the exact privacy loss of two neighbours and of float numpy's, median ratio over rounds."""
    rows = []
    for size, n in cases:
        data = make_data(n, size)
        neighbour = data.copy()
        neighbour[0] = size - 1 - neighbour[0]
        quality = RankQuality()
        mech = ExponentialMechanism(quality, epsilon=EPSILON, outputs=range(size))
        rate_float = float(EPSILON)

        def exact() -> tuple[float, bool]:
            loss = mech.privacy_loss(data, neighbour)
            return float(loss), bool(loss <= 2 * EPSILON * 2)

        def floats() -> float:
            points = range(size)

            def log_probabilities(scores: np.ndarray) -> np.ndarray:
                exponents = (scores - scores.max()) * rate_float
                return exponents - np.log(np.exp(exponents).sum())

            return float(np.max(np.abs(log_probabilities(quality.scores(data, points)) - log_probabilities(quality.scores(neighbour, points)))))

        def seconds(action: Callable[[], object]) -> Callable[[], float]:
            def timed() -> float:
                best = math.inf
                for _ in range(3):
                    start = time.perf_counter()
                    action()
                    best = min(best, time.perf_counter() - start)
                return best

            return timed

        loss, decided = exact()
        before = load()
        a, b, ratio, low, high = interleaved(seconds(exact), seconds(floats), rounds)
        rows.append({"R": size, "n": n, "expmech s": a, "numpy s": b, "ratio": ratio, "low": low, "high": high,
                     "loss": loss, "float loss": floats(), "decided": decided, "load": f"{before} → {load()}"})
    return rows


# -- items 3 and 4: commands in fresh processes ----------------------------------------------------


def command(arguments: list[str], cwd: Path) -> tuple[float, float, str]:
    """``(wall s, CPU s of the process and its children, stdout)`` of one ``expmech`` run (exit 0 required)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(EXPMECH + arguments, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"expmech {' '.join(arguments)} exited {done.returncode}: {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def bench_spec(rounds: int) -> dict[str, Any]:
    """``expmech spec`` and ``expmech verify`` alternating in fresh processes: wall, CPU, median ratio."""
    spec, verify, ratios, spec_cpu, verify_cpu = [], [], [], [], []
    before = load()
    output = ""
    for _ in range(rounds):
        s_wall, s_cpu, output = command(["spec"], ROOT)
        v_wall, v_cpu, _ = command(["verify"], ROOT)
        spec.append(s_wall)
        verify.append(v_wall)
        spec_cpu.append(s_cpu)
        verify_cpu.append(v_cpu)
        ratios.append(s_wall / v_wall)
    reused = [line.strip() for line in output.splitlines() if "reused from" in line]
    return {
        "spec s": statistics.median(spec), "verify s": statistics.median(verify), "ratio": statistics.median(ratios),
        "low": min(ratios), "high": max(ratios), "spec cpu": statistics.median(spec_cpu), "verify cpu": statistics.median(verify_cpu),
        "reused": len(reused), "load": f"{before} → {load()}",
    }


def bench_account(rounds: int, times: int) -> dict[str, Any]:
    """``expmech account`` of the median's certificate at k = ``times``: wall and CPU, and the enclosure printed."""
    with tempfile.TemporaryDirectory() as folder:
        command(["certify", "expmech.impl:CATALOGUE", "-o", folder], ROOT)
        certificate = str(Path(folder) / "median.cert.json")
        arguments = ["account", certificate, "--times", str(times), "--delta", "1/1000000", "--format", "json"]
        before = load()
        runs = [command(arguments, ROOT) for _ in range(rounds)]
        answer = json.loads(runs[-1][2])
        epsilon = answer["epsilon"]
        lower, upper = Fraction(epsilon["lower"]), Fraction(epsilon["upper"])
        from expmech.proofs.cli._account import _component, _load, compose

        component = _component(_load(certificate), "median")
        composed = []
        for _ in range(rounds):
            start = time.perf_counter()
            compose([component], [times], epsilon=None, delta=Fraction(1, 10**6), adaptive=False)
            composed.append(time.perf_counter() - start)
        checks = []
        from expmech.proofs import check_certificate

        data = json.loads(Path(certificate).read_text(encoding="utf-8"))
        for _ in range(rounds):
            start = time.perf_counter()
            check_certificate(data)
            checks.append(time.perf_counter() - start)
        startup = [command(["--help"], ROOT)[0] for _ in range(rounds)]
    return {
        "wall s": statistics.median(r[0] for r in runs), "cpu s": statistics.median(r[1] for r in runs),
        "compose s": statistics.median(composed), "check s (warm)": statistics.median(checks), "startup s": statistics.median(startup),
        "epsilon": f"[{float(lower):.10g}, {float(upper):.10g}]", "relative width": float((upper - lower) / lower),
        "witness": answer.get("witness_lower_bound", {}).get("epsilon"), "load": f"{before} → {load()}",
    }


def bench_suite() -> dict[str, Any]:
    """One run of the default suite (``CI=true pytest``, the ``pytest`` command) in the checkout: wall seconds and the tail of its summary."""
    before = load()
    start = time.perf_counter()
    runner = Path(sys.executable).with_name("pytest")  # the README's command, not python -m pytest
    done = subprocess.run([str(runner) if runner.exists() else "pytest", "-q", "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "CI": "true"})
    wall = time.perf_counter() - start
    lines = done.stdout.strip().splitlines()
    summary = (lines or [""])[-1]
    failed = [line.split()[1] for line in lines if line.startswith("FAILED ")]
    return {"wall s": wall, "summary": summary, "exit": done.returncode, "failed": failed, "load": f"{before} → {load()}"}


# -- printing ------------------------------------------------------------------------------


def _rate_text(value: float) -> str:
    return f"{value:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds and smaller cases")
    parser.add_argument("--suite", action="store_true", help="also run the default test suite once")
    args = parser.parse_args()
    rounds = 5 if args.quick else 15
    print(f"Machine: {os.cpu_count()} cores, shared; load averages (1/5/15 min) at the start {load()}. Medians of {rounds} "
          "interleaved rounds (each side timed in turn, round after round), ratio = the median of the per-round ratios, "
          "its lowest and highest in brackets.\n")

    print("### Fresh draws against numpy's per-call inverse CDF (item 1)\n")
    print("| \\|R\\| | n records | from | expmech draws/s | numpy draws/s | expmech / numpy [range] | bits per draw | Knuth–Yao expectation | H | H + 2 | load |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
    draws = bench_draws([100, 10_000], [10_000, 100], rounds, 0.05 if args.quick else 0.1, 5_000 if args.quick else 20_000)
    for row in draws:
        bits = "" if row["bits"] is None else f"{row['bits']:.3f}"
        figures = f"{row['KY']:.3f} | {row['H']:.3f} | {row['H'] + 2:.3f}" if row["bits"] is not None else "| |"
        print(f"| {row['R']:,} | {row['n']:,} | the {row['from']} | {_rate_text(row['expmech'])} | {_rate_text(row['numpy'])} "
              f"| {row['ratio']:.2f}× [{row['low']:.2f}–{row['high']:.2f}] | {bits} | {figures} | {row['load']} |")
    worst = max((row["bits"] - row["H"] for row in draws if row["bits"] is not None), default=float("nan"))
    print(f"\nBits per draw: at most H + {worst:.3f} over these laws (Knuth–Yao's bound: below H + 2; a law with H near 0 "
          "needs about 2 bits whatever the sampler).\n")

    print("### Exact law and privacy loss of two neighbours against float numpy (item 2)\n")
    print("| \\|R\\| | n records | expmech s | numpy s | expmech / numpy [range] | exact loss | float loss | decided <= 2·ε·Δq | load |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|---|")
    for row in bench_loss([(100_000, 10_000), (100_000, 1_000_000)] if not args.quick else [(100_000, 10_000)], rounds):
        print(f"| {row['R']:,} | {row['n']:,} | {row['expmech s']:.4f} | {row['numpy s']:.4f} | {row['ratio']:.2f}× [{row['low']:.2f}–{row['high']:.2f}] "
              f"| {row['loss']:.9f} | {row['float loss']:.9f} | {'yes' if row['decided'] else 'no'} | {row['load']} |")

    print("\n### expmech spec against expmech verify (item 3)\n")
    spec = bench_spec(3 if args.quick else 5)
    print("| command | wall s | CPU s |\n|---|---:|---:|")
    print(f"| `expmech spec` | {spec['spec s']:.2f} | {spec['spec cpu']:.2f} |")
    print(f"| `expmech verify` (the pyproject's catalogues) | {spec['verify s']:.2f} | {spec['verify cpu']:.2f} |")
    print(f"\nspec / verify: {spec['ratio']:.2f}× [{spec['low']:.2f}–{spec['high']:.2f}] (wall, median of the rounds); "
          f"{spec['reused']} statements report a reused step check; load {spec['load']}.\n")

    print("### expmech account at k = 1,000 (item 4)\n")
    account = bench_account(3 if args.quick else 5, 1000)
    print("| part | s |\n|---|---:|")
    print(f"| `expmech account median.cert.json --times 1000 --delta 1/1000000` (fresh process, wall) | {account['wall s']:.3f} |")
    print(f"| its CPU | {account['cpu s']:.3f} |")
    print(f"| of which: process start and `--help` | {account['startup s']:.3f} |")
    print(f"| of which: the certificate's re-check (warm, in process) | {account['check s (warm)']:.3f} |")
    print(f"| of which: the composition (optimal curve, zCDP, witness PLD; in process) | {account['compose s']:.3f} |")
    print(f"\nε(δ = 10⁻⁶) enclosure {account['epsilon']}, relative width {account['relative width']:.2e}; witness lower bound "
          f"{account['witness']}; load {account['load']}.")

    if args.suite:
        suite = bench_suite()
        print("\n### The default test suite (item 5)\n")
        print(f"`CI=true pytest` in the checkout: {suite['wall s']:.0f} s wall (exit {suite['exit']}; {suite['summary']}); load {suite['load']}.")
        for name in suite["failed"]:
            print(f"- failed: `{name}`")


if __name__ == "__main__":
    main()
