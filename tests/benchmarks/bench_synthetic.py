"""Synthetic-data mechanism: the release alone and the release with its certificate, at growing (k, m).

Run: ``python tests/benchmarks/bench_synthetic.py`` (``--quick``: up to (4, 4)).
Not collected by pytest.  For each (k, m), on n = 50 random k-bit records
(halfspaces, ε = 1, α = 1/4, δ = 1/10):

* ``expmech synth bits.csv --m M --epsilon 1 --alpha 1/4 --delta 1/10 --seed 1``,
  timed end to end as a user runs it (a fresh process: start-up and imports
  included), without and with ``--certificate cert.json``;
* inside one process, the exact release (q-levels, exact usefulness, one
  draw) and ``certify(...)`` alone (the certificate generation, part of the
  second command: z3 proof of GS_q <= 1/n, monotonicity, exact conformance,
  canonical digest).

Each figure is the median of three runs (one for the largest sizes).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from math import comb
from pathlib import Path

from expmech.impl._synthetic import SyntheticDataMechanism, halfspaces
from expmech.proofs import certify
from expmech.spec import DATASET_SIZE

SIZES = [(3, 4), (3, 6), (4, 4), (4, 6), (5, 4), (5, 5)]
ARGS = ["--epsilon", "1", "--alpha", "1/4", "--delta", "1/10", "--seed", "1"]


def records(k: int, n: int = 50, seed: int = 1) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.randint(0, 1) for _ in range(k)) for _ in range(n)]


def command_seconds(k: int, m: int, *, certificate: bool, repeats: int) -> float:
    """Median wall-clock seconds of the ``expmech synth`` command on a fresh CSV (exit code 0 required)."""
    with tempfile.TemporaryDirectory() as folder:
        csv = Path(folder) / "bits.csv"
        csv.write_text("\n".join(",".join(map(str, r)) for r in records(k)) + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "expmech.proofs.cli", "synth", str(csv), "--m", str(m), *ARGS]
        if certificate:
            command += ["--certificate", str(Path(folder) / "cert.json")]
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True)
            times.append(time.perf_counter() - start)
        return statistics.median(times)


def in_process(k: int, m: int, *, repeats: int) -> tuple[int, float, float]:
    """Levels kept, seconds of the exact release, seconds of ``certify`` alone (medians)."""
    data = records(k)
    release, certificate, levels = [], [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        mech = SyntheticDataMechanism(data, k=k, m=m, epsilon=1, queries=halfspaces(k))
        levels = len(mech.levels())
        float(mech.probability_error_at_least("1/4"))
        mech.sample(rng=random.Random(1))
        release.append(time.perf_counter() - start)
        start = time.perf_counter()
        cert = certify(mech.quality_function(), epsilon=mech.exponent_scale, neighbours="replace-one", claimed=1 / DATASET_SIZE,
                       outputs=mech.output_list(), base_measure=mech.base_measure(), pairs=2, search_budget=20_000)
        certificate.append(time.perf_counter() - start)
        assert cert.epsilon is not None
    return levels, statistics.median(release), statistics.median(certificate)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to (4, 4) only")
    args = parser.parse_args()
    sizes = [s for s in SIZES if not args.quick or s <= (4, 4)]
    print("| k | m | multisets | q-levels kept | `expmech synth` s | `expmech synth --certificate` s | exact release s (in process) | certify s (in process) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, m in sizes:
        multisets = comb(2**k + m - 1, m)
        repeats = 3 if multisets < 100_000 else 1
        alone = command_seconds(k, m, certificate=False, repeats=repeats)
        with_certificate = command_seconds(k, m, certificate=True, repeats=repeats)
        levels, release, certificate = in_process(k, m, repeats=repeats)
        print(f"| {k} | {m} | {multisets:,} | {levels} | {alone:.2f} | {with_certificate:.2f} | {release:.2f} | {certificate:.2f} |")


if __name__ == "__main__":
    main()
