"""The README's median over ``IntRange(0, N)``: ``verify``, ``certify`` and ``check`` at N = 15, 10³, 10⁶ and 10⁹.

Run: ``python tests/benchmarks/bench_domains.py [--runs R] [--json PATH]``.  Not collected by pytest.

Each command runs as a user runs it: the installed ``expmech`` console script
in a fresh interpreter, in a temporary project whose ``pyproject.toml`` lists
the median in ``[tool.expmech]`` (quality ``-Abs(count(x <= r) - size()/2)``
over ``RecordSchema(x=IntRange(0, N))`` and ``OutputSpace(r=IntRange(0, N))``,
ε₀ = 1/2, replace-one, claimed Δq = 1).  Each run is timed by its wall clock
and by the child's own CPU seconds (user + system), and its peak resident
memory is the child's own ``ru_maxrss`` (all from ``os.wait4``); the table
gives the median of ``--runs`` runs (default 3) per command and N, side by
side, with verify's ratios to N = 15 (time: wall clock and CPU; a shared
machine inflates the wall clock, not the CPU time).  The results are written as JSON
(default ``docs/benchmarks/results/data/domains.json``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SIZES = (15, 10**3, 10**6, 10**9)
MODULE = """\
import sympy
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, size

schema, outputs = RecordSchema(x=IntRange(0, {n})), OutputSpace(r=IntRange(0, {n}))
x, r = schema["x"], outputs["r"]
median = QualityFunction(-sympy.Abs(count(x <= r) - size() / 2), schema=schema, outputs=outputs, name="median")
"""
PYPROJECT = """\
[tool.expmech]
mechanisms = [{ quality = "medq:median", epsilon = "1/2", neighbours = "replace-one", claimed = 1 }]
"""


def _command() -> list[str]:
    script = Path(sys.executable).with_name("expmech")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "expmech.proofs.cli"]


def run(args: list[str], cwd: Path) -> tuple[int, float, float, float]:
    """``expmech ARGS`` in a fresh process: exit code, wall seconds, the child's own peak resident MB and CPU seconds."""
    with open(cwd / "stdout.txt", "w") as out, open(cwd / "stderr.txt", "w") as err:
        start = time.perf_counter()
        process = subprocess.Popen([*_command(), *args], cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def project(folder: Path, n: int) -> Path:
    """A temporary project listing the median over IntRange(0, n) in its [tool.expmech] table."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "medq.py").write_text(MODULE.format(n=n))
    (folder / "pyproject.toml").write_text(PYPROJECT)
    return folder


def bench(sizes: tuple[int, ...], runs: int) -> list[dict[str, Any]]:
    """Median wall seconds and peak MB of verify, certify and check per N, runs interleaved over N."""
    samples: dict[tuple[int, str], list[tuple[int, float, float, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for attempt in range(runs):
            for n in sizes:
                folder = project(Path(tmp) / f"n{n}", n)
                commands = {
                    "verify": ["verify"],
                    "certify": ["certify", "pyproject.toml", "-o", f"out{attempt}"],
                    "check": ["check", f"out{attempt}/median.cert.json"],
                }
                for name, args in commands.items():
                    result = run(args, folder)
                    samples.setdefault((n, name), []).append(result)
                    print(f"run {attempt + 1}/{runs} N={n:,} {name}: exit {result[0]}, {result[1]:.2f} s ({result[3]:.2f} CPU s), {result[2]:.0f} MB", file=sys.stderr)
    rows = []
    for n in sizes:
        row: dict[str, Any] = {"N": n}
        for name in ("verify", "certify", "check"):
            got = samples[(n, name)]
            row[f"{name} exit"] = sorted({code for code, _, _, _ in got})
            row[f"{name} s"] = round(statistics.median(wall for _, wall, _, _ in got), 3)
            row[f"{name} CPU s"] = round(statistics.median(cpu for _, _, _, cpu in got), 3)
            row[f"{name} MB"] = round(statistics.median(peak for _, _, peak, _ in got), 1)
        rows.append(row)
    base = rows[0]
    for row in rows:
        row["verify time ratio"] = round(row["verify s"] / base["verify s"], 2)
        row["verify CPU ratio"] = round(row["verify CPU s"] / base["verify CPU s"], 2)
        row["verify memory ratio"] = round(row["verify MB"] / base["verify MB"], 2)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| N | verify s (CPU s) | verify MB | certify s (CPU s) | certify MB | check s (CPU s) | check MB "
        "| verify time / N=15 (CPU) | verify memory / N=15 | exits |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        exits = "/".join(",".join(map(str, row[f"{name} exit"])) for name in ("verify", "certify", "check"))
        timed = {name: f"{row[f'{name} s']:.2f} ({row[f'{name} CPU s']:.2f})" for name in ("verify", "certify", "check")}
        lines.append(
            f"| {row['N']:,} | {timed['verify']} | {row['verify MB']:.0f} | {timed['certify']} | {row['certify MB']:.0f} | "
            f"{timed['check']} | {row['check MB']:.0f} | {row['verify time ratio']:.2f}× ({row['verify CPU ratio']:.2f}×) | "
            f"{row['verify memory ratio']:.2f}× | {exits} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", default=str(REPO / "docs" / "benchmarks" / "results" / "data" / "domains.json"))
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)), help="comma-separated N (default 15,1000,1000000,1000000000)")
    args = parser.parse_args()
    sizes = tuple(int(text) for text in args.sizes.split(","))
    before = "/".join(f"{value:.1f}" for value in os.getloadavg())
    rows = bench(sizes, args.runs)
    print(table(rows))
    result = {
        "table": table(rows),
        "benchmark": "tests/benchmarks/bench_domains.py",
        "what": "the README's median over IntRange(0, N): verify, certify, check as fresh processes through the expmech console script",
        "runs": args.runs,
        "statistic": "median wall seconds; median of each child's CPU seconds and peak resident MB (os.wait4 ru_utime + ru_stime, ru_maxrss)",
        "recorded": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "load": f"1/5/15-minute load averages {before} before, " + "/".join(f"{value:.1f}" for value in os.getloadavg()) + " after",
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
        "rows": rows,
    }
    path = Path(args.json)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
