"""`expmech synth` end to end, per command path: the release alone, and the release with its certificate.

Run: ``python tests/benchmarks/bench_synth_command.py``.  Not collected by pytest.
For each (k, m) the whole command is timed as a user runs it (CSV read, cost
estimate, exact q-levels, exact usefulness, one exact draw; and with
``--certificate c.json``: the proof of GS_q <= 1/n, the exact conformance and
witness search, and the certificate written), on n = 50 random k-bit records,
halfspaces, ε = 1, α = 1/2, δ = 1/10, median of ``--repeats`` runs.  A run
above the default ``--budget`` gets ``--budget`` raised to its estimate.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import statistics
import tempfile
import time
from pathlib import Path

from expmech.proofs.cli import main
from expmech.proofs.cli._synth_cost import DEFAULT_BUDGET, estimate_cost

SIZES = [(3, 4), (3, 6), (4, 4), (4, 6), (5, 4), (5, 5)]


def run_once(csv: Path, k: int, m: int, certificate: Path | None) -> float:
    """Seconds for one ``expmech synth`` run (its exit code must be 0)."""
    cost = estimate_cost(k=k, m=m, queries="halfspaces", prefixes=0, certificate=certificate is not None)
    argv = ["synth", str(csv), "--m", str(m), "--seed", "1"]
    if certificate is not None:
        argv += ["--certificate", str(certificate)]
    if cost.units is not None and cost.units > DEFAULT_BUDGET:
        argv += ["--budget", str(cost.units)]
    sink = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        code = main(argv)
    seconds = time.perf_counter() - start
    if code != 0:
        raise RuntimeError(f"expmech {' '.join(argv)} exited {code}: {sink.getvalue()[-500:]}")
    return seconds


def main_bench(repeats: int, certificate_limit: float) -> None:
    """Print the README table: release alone and release with certificate, per (k, m)."""
    rng = random.Random(1)
    print("| k | m | multisets | `expmech synth data.csv --m M` s | `… --certificate c.json` s |")
    print("|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for k, m in SIZES:
            csv = Path(folder) / f"bits-{k}.csv"
            csv.write_text("\n".join(",".join(str(rng.randint(0, 1)) for _ in range(k)) for _ in range(50)) + "\n")
            release = statistics.median(run_once(csv, k, m, None) for _ in range(repeats))
            cost = estimate_cost(k=k, m=m, queries="halfspaces", prefixes=0, certificate=True)
            with_certificate = "—"
            if cost.multisets is not None and cost.multisets <= certificate_limit:
                with_certificate = f"{statistics.median(run_once(csv, k, m, Path(folder) / 'c.json') for _ in range(repeats)):.2f}"
            print(f"| {k} | {m} | {cost.multisets:,} | {release:.2f} | {with_certificate} |", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--certificate-limit", type=float, default=400_000, help="largest number of multisets to certify")
    options = parser.parse_args()
    main_bench(options.repeats, options.certificate_limit)
