"""Synthetic-data mechanism: the release alone and the release with its certificate, at growing (k, m).

Run: ``python tests/benchmarks/bench_synthetic.py`` (``--quick``: up to (4, 4); ``--size 5,4``: that size only).
Not collected by pytest.  For each (k, m), on n = 50 random k-bit records
(halfspaces, ε = 1, α = 1/4, δ = 1/10):

* ``expmech synth bits.csv --m M --epsilon 1 --alpha 1/4 --delta 1/10 --seed 1``,
  timed end to end as a user runs it (a fresh process: start-up and imports
  included), without and with ``--certificate cert.json``;
* ``expmech check cert.json`` on the certificate the second command wrote
  (exit 0 required; with the ``--max-bytes``/``--limit`` flags a certificate
  past the default input limits needs), up to 100,000 multisets;
* inside one process, the exact release (q-levels, exact usefulness, one
  draw) and ``certify(...)`` alone (the certificate generation, part of the
  second command: z3 proof of GS_q <= 1/n, monotonicity, exact conformance,
  canonical digest).

The ``check / make`` column is the ratio of the two commands' times (wall-clock, then CPU): the three commands
(make, check, check ``--reproduce``) run in turn, round after round, and the column is the median of the rounds' ratios:
``expmech check`` (the verifier alone) on the certificate over ``expmech synth … --certificate`` that made it.
``expmech check --reproduce`` (the prover run again on the inputs) is timed beside it.

Each figure is the median of three runs (five rounds of make and check from 10,000 multisets; one run for the
largest sizes); a command (and
``certify``, with its process CPU time) is
shown as wall-clock seconds with its CPU seconds (user + system) in brackets.  The
process start-up (``expmech --version``) is timed beside them.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from math import comb
from pathlib import Path
from typing import NamedTuple

from expmech.impl.applications._synthetic import SyntheticDataMechanism, halfspaces
from expmech.proofs import certify
from expmech.spec import DATASET_SIZE

SIZES = [(3, 4), (3, 6), (4, 4), (4, 6), (5, 4), (5, 5)]
ARGS = ["--epsilon", "1", "--alpha", "1/4", "--delta", "1/10", "--seed", "1"]


def records(k: int, n: int = 50, seed: int = 1) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.randint(0, 1) for _ in range(k)) for _ in range(n)]


#: ``expmech check`` flags admitting synth certificates past the default input limits (a (5, 4) one is 6 MB).
CHECK_FLAGS = ["--max-bytes", "100000000", "--limit", "max_expression_nodes=1000000", "--limit", "max_outputs=1000000"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _median_seconds(command: list[str], repeats: int) -> Timing:
    """Median wall-clock seconds of ``command`` (exit code 0 required) and the CPU seconds (user + system) of that run."""
    runs = []
    for _ in range(repeats):
        cpu, start = _children_cpu(), time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        runs.append(Timing(time.perf_counter() - start, _children_cpu() - cpu))
    return sorted(runs, key=lambda t: t.wall)[len(runs) // 2]


class Timing(NamedTuple):
    """Wall-clock and CPU seconds of one command (the CPU time is what an idle machine's wall clock would roughly show)."""

    wall: float
    cpu: float

    def __str__(self) -> str:
        return f"{self.wall:.2f} ({self.cpu:.2f})"


def command_seconds(k: int, m: int, *, certificate: bool, repeats: int, check: bool = False) -> tuple[Timing, Timing | None, Timing | None, Ratios | None]:
    """Median wall-clock seconds of the ``expmech synth`` command on a fresh CSV (exit code 0 required) and, with
    ``check``, of ``expmech check`` on the certificate it wrote, as a user runs it, and with ``--reproduce`` (exit code
    0 required).  With ``check`` the three commands run in turn in each round (a machine that
    slows down or speeds up between rounds affects all three alike), and the ratios are the medians of each round's."""
    with tempfile.TemporaryDirectory() as folder:
        csv = Path(folder) / "bits.csv"
        csv.write_text("\n".join(",".join(map(str, r)) for r in records(k)) + "\n", encoding="utf-8")
        command = [sys.executable, "-m", "expmech.proofs.cli", "synth", str(csv), "--m", str(m), *ARGS]
        cert = Path(folder) / "cert.json"
        if not (certificate and check):
            return _median_seconds(command + (["--certificate", str(cert)] if certificate else []), repeats), None, None, None
        command += ["--certificate", str(cert)]
        checking = [sys.executable, "-m", "expmech.proofs.cli", "check", str(cert), *CHECK_FLAGS]
        rounds = [tuple(_median_seconds(c, 1) for c in (command, checking, checking + ["--reproduce"])) for _ in range(repeats)]
        made, checked, alone = (sorted((r[i] for r in rounds), key=lambda t: t.wall)[len(rounds) // 2] for i in range(3))
        return made, checked, alone, Ratios(*(Timing(statistics.median(r[i].wall / r[0].wall for r in rounds), statistics.median(r[i].cpu / r[0].cpu for r in rounds)) for i in (1, 2)))


class Ratios(NamedTuple):
    """``check`` and ``check --reproduce`` over the ``synth --certificate`` that made it: the medians of each round's
    wall-clock and CPU ratios."""

    checked: Timing
    alone: Timing


def in_process(k: int, m: int, *, repeats: int) -> tuple[int, float, Timing]:
    """Levels kept, seconds of the exact release, seconds of ``certify`` alone (medians; certify with its process CPU seconds)."""
    data = records(k)
    release, certificate, levels = [], [], 0
    for _ in range(repeats):
        start = time.perf_counter()
        mech = SyntheticDataMechanism(data, k=k, m=m, epsilon=1, queries=halfspaces(k))
        levels = len(mech.levels())
        float(mech.probability_error_at_least("1/4"))
        mech.sample(rng=random.Random(1))
        release.append(time.perf_counter() - start)
        cpu, start = time.process_time(), time.perf_counter()
        cert = certify(mech.quality_function(), epsilon=mech.exponent_scale, neighbours="replace-one", claimed=1 / DATASET_SIZE,
                       outputs=mech.output_list(), base_measure=mech.base_measure(), pairs=2, search_budget=20_000)
        certificate.append(Timing(time.perf_counter() - start, time.process_time() - cpu))
        assert cert.epsilon is not None
    return levels, statistics.median(release), sorted(certificate, key=lambda t: t.wall)[len(certificate) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to (4, 4) only")
    parser.add_argument("--size", action="append", default=None, metavar="K,M", help="only this (k, m); repeatable (default: every size)")
    args = parser.parse_args()
    chosen = [tuple(int(v) for v in text.split(",")) for text in args.size] if args.size else SIZES
    sizes = [s for s in chosen if not args.quick or s <= (4, 4)]
    startup = _median_seconds([sys.executable, "-m", "expmech.proofs.cli", "--version"], 3)
    print(f"start-up (`expmech --version`): {startup} s; commands: wall-clock s (CPU s, user + system)")
    print("| k | m | multisets | q-levels kept | `expmech synth` s | `expmech synth --certificate` s | `expmech check` s "
          "| check / make | `expmech check --reproduce` s | check --reproduce / make | exact release s (in process) | certify s (in process) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for k, m in sizes:
        multisets = comb(2**k + m - 1, m)
        repeats = 3 if multisets < 100_000 else 1
        alone, _, _, _ = command_seconds(k, m, certificate=False, repeats=repeats)
        with_certificate, checked, one, ratios = command_seconds(k, m, certificate=True, repeats=5 if multisets >= 10_000 else repeats, check=multisets < 100_000)
        levels, release, certificate = in_process(k, m, repeats=repeats)
        columns = []
        for timing, ratio in ((checked, ratios.checked if ratios else None), (one, ratios.alone if ratios else None)):
            columns.append("—" if timing is None else str(timing))
            columns.append("—" if ratio is None else f"{ratio.wall:.2f} ({ratio.cpu:.2f})")
        print(f"| {k} | {m} | {multisets:,} | {levels} | {alone} | {with_certificate} | {' | '.join(columns)} | {release:.2f} | {certificate} |")


if __name__ == "__main__":
    main()
