"""Prover benchmarks: the catalogue, and families whose time must grow smoothly with their size.

Run: ``python tests/benchmarks/bench_proofs.py`` (``--quick`` for small sizes,
``--plot FILE.png`` for the curves).  Not collected by pytest.  Prints Markdown
tables:

* per catalogue entry, the median seconds of ``prove_sensitivity`` over five
  runs, its verdict, bound and tightness; the whole catalogue's total; and,
  per deliberately wrong entry, how many examples the black-box falsifier
  evaluated before its first violation;
* **median over IntRange(0, N)**, every N in 1..1024 (each N's median over five
  passes through all N): the time at powers of two, and max / median over all N
  (target: < 3×);
* **nesting depth** 1..10 of ``Abs(Max(…))`` over counts and totals (target:
  depth 10 < 2 s);
* **max_over** with k indices: building the expression, ``prove_sensitivity``,
  ``certify`` and ``check_certificate`` of its certificate, wall and CPU
  (target: 200 indices proved and checked < 5 s; the whole path is shown too);
* **an output grid** of G points: ``prove_sensitivity`` (target: 10⁴ points
  < 5 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy

from expmech.impl import CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import certify, check_certificate, falsify, prove_sensitivity
from expmech.spec import (
    DATASET_SIZE,
    Grid,
    IntRange,
    OutputSpace,
    QualityFunction,
    RationalRange,
    RecordSchema,
    count,
    max_over,
    mean,
    size,
    total,
)


def median_family(top: int) -> QualityFunction:
    """−|#{x <= r} − n/2| with x, r in IntRange(0, top): Δq = 1 (replace-one)."""
    schema, outputs = RecordSchema(x=IntRange(0, top)), OutputSpace(r=IntRange(0, top))
    x, r = schema["x"], outputs["r"]
    return QualityFunction(-sympy.Abs(count(x <= r) - size() / 2), schema=schema, outputs=outputs, name=f"median-{top}")


def nesting_family(depth: int) -> QualityFunction:
    """``e ← |Max(e − Σ min(x, r)/2, #{x >= r} − i) − r|`` nested ``depth`` times, from ``#{x <= r}``."""
    schema, outputs = RecordSchema(x=IntRange(0, 5)), OutputSpace(r=IntRange(0, 5))
    x, r = schema["x"], outputs["r"]
    expr = count(x <= r)
    for i in range(depth):
        expr = sympy.Abs(sympy.Max(expr - total(sympy.Min(x, r)) / 2, count(x >= r) - i) - r)
    return QualityFunction(expr, schema=schema, outputs=outputs, name=f"nesting-{depth}")


def max_over_family(indices: int) -> QualityFunction:
    """``max_h |#{x = h} − r|`` over ``indices`` values of h: Δq = 1 (replace-one)."""
    schema, outputs = RecordSchema(x=IntRange(0, indices - 1)), OutputSpace(r=IntRange(0, 3))
    h = sympy.Symbol("h", integer=True)
    expr = max_over(sympy.Abs(count(sympy.Eq(schema["x"], h)) - outputs["r"]), h, range(indices))
    return QualityFunction(expr, schema=schema, outputs=outputs, name=f"max-over-{indices}")


def grid_family(points: int) -> QualityFunction:
    """−|mean(x) − a|, x in [0, 1], a on a grid of ``points`` points: Δq = 1/n (replace-one)."""
    schema = RecordSchema(x=RationalRange(0, 1))
    outputs = OutputSpace(a=Grid(tuple(Fraction(i, points - 1) for i in range(points))))
    return QualityFunction(-sympy.Abs(mean(schema["x"]) - outputs["a"]), schema=schema, outputs=outputs, name=f"grid-{points}")


def timed(call: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """The median wall time of ``repeat`` calls, and the last result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def catalogue() -> float:
    """The catalogue's table; returns the largest per-entry median (seconds)."""
    print("| entry | neighbours | claimed Δq | verdict | bound | tight | median s |")
    print("|---|---|---|---|---|---|---:|")
    total_start = time.perf_counter()
    medians = []
    for entry in CATALOGUE + WRONG_CATALOGUE:
        median, result = timed(lambda: prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity), 5)
        medians.append(median)
        print(
            f"| {entry.name} | {entry.neighbours.value} | {entry.claimed_sensitivity} | {result.status} | "
            f"{result.bound} | {'yes' if result.tight else 'no'} | {median:.3f} |"
        )
    whole = (time.perf_counter() - total_start) / 5
    print()
    print(f"whole catalogue, one pass: {whole:.2f} s; largest per-entry median {max(medians):.3f} s")
    print()
    print("| wrong entry | falsifier verdict | examples to first violation | seconds |")
    print("|---|---|---:|---:|")
    for entry in WRONG_CATALOGUE:
        q = entry.quality
        seconds, result = timed(lambda: falsify(q, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, outputs=q.outputs(), schema=q.schema))
        print(f"| {entry.name} | {result.status} | {result.found_at} | {seconds:.2f} |")
    return max(medians)


def steadiness(times: dict[int, float]) -> float:
    """max / median of the times over all sizes."""
    return max(times.values()) / statistics.median(times.values())


def targets(measured: list[tuple[str, str, bool]]) -> None:
    """The issue's targets against this run's figures."""
    print("| target | measured | met |")
    print("|---|---|---|")
    for target, figure, met in measured:
        print(f"| {target} | {figure} | {'yes' if met else 'NO'} |")


def medians(sizes: list[int], passes: int = 5) -> dict[int, float]:
    """Each size's median over ``passes`` passes through all sizes (a burst of load hits one pass, not one size).

    The steadiness ratio is taken on this process's CPU time (z3 runs in it), which other
    processes' load does not inflate; wall-clock medians are printed beside it.
    """
    qualities = {top: median_family(top) for top in sizes}
    wall: dict[int, list[float]] = {top: [] for top in sizes}
    cpu: dict[int, list[float]] = {top: [] for top in sizes}
    for _ in range(passes):
        for top in sizes:
            start, started = time.perf_counter(), time.process_time()
            result = prove_sensitivity(qualities[top], neighbours="replace-one", claimed=1)
            cpu[top].append(time.process_time() - started)
            wall[top].append(time.perf_counter() - start)
            assert str(result.status) == "PROVED" and result.tight, (top, result.reason)
    times = {top: statistics.median(values) for top, values in cpu.items()}
    walls = {top: statistics.median(values) for top, values in wall.items()}
    shown = [t for t in sizes if t & (t - 1) == 0] or sizes
    print("| N (IntRange(0, N)) | " + " | ".join(str(t) for t in shown) + " |")
    print("|---|" + "---:|" * len(shown))
    print("| prove, CPU s | " + " | ".join(f"{times[t]:.3f}" for t in shown) + " |")
    print("| prove, wall s | " + " | ".join(f"{walls[t]:.3f}" for t in shown) + " |")
    for label, values in (("CPU", times), ("wall", walls)):
        middle = statistics.median(values.values())
        slowest = max(values, key=lambda t: values[t])
        print()
        print(
            f"{label}, every N in {sizes[0]}..{sizes[-1]}: median {middle:.3f} s, max {values[slowest]:.3f} s (N = {slowest}), "
            f"max/median {values[slowest] / middle:.2f}× (target < 3×)"
        )
    return times


def nestings(depths: list[int]) -> dict[int, float]:
    times = {}
    print("| depth | verdict | bound | tight | prove s |")
    print("|---:|---|---|---|---:|")
    for depth in depths:
        q = nesting_family(depth)
        seconds, result = timed(lambda: prove_sensitivity(q, neighbours="replace-one"), 3)
        times[depth] = seconds
        print(f"| {depth} | {result.status} | {result.bound} | {'yes' if result.tight else 'no'} | {seconds:.3f} |")
    return times


def max_overs(sizes: list[int]) -> dict[int, float]:
    """Per size: each step of the whole path (build, prove, certify, check) in wall and process CPU seconds."""
    times = {}
    print("| indices | build s | prove s | certify s | check s | prove + check s (CPU) | whole path s (CPU) |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for indices in sizes:
        (build, build_cpu), q = timed_both(lambda: max_over_family(indices))
        (prove, prove_cpu), result = timed_both(lambda: prove_sensitivity(q, neighbours="replace-one", claimed=1))
        assert str(result.status) == "PROVED" and result.tight, result.reason
        (made, made_cpu), certificate = timed_both(lambda: certify(q, epsilon=1, neighbours="replace-one", claimed=1))
        (checked, checked_cpu), report = timed_both(lambda: check_certificate(certificate.data))
        assert report.ok, report.problems
        times[indices] = prove + checked
        whole, whole_cpu = build + prove + made + checked, build_cpu + prove_cpu + made_cpu + checked_cpu
        _WHOLE_PATH[indices] = (whole, whole_cpu)
        print(
            f"| {indices} | {build:.2f} | {prove:.2f} | {made:.2f} | {checked:.2f} | {prove + checked:.2f} ({prove_cpu + checked_cpu:.2f}) | "
            f"{whole:.2f} ({whole_cpu:.2f}) |"
        )
    return times


_WHOLE_PATH: dict[int, tuple[float, float]] = {}  # indices -> (wall, CPU) of build + prove + certify + check

_COMMAND_TARGET = """
import sympy
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, max_over
schema, outputs = RecordSchema(x=IntRange(0, {top})), OutputSpace(r=IntRange(0, 3))
h = sympy.Symbol("h", integer=True)
expr = max_over(sympy.Abs(count(sympy.Eq(schema["x"], h)) - outputs["r"]), h, range({indices}))
entry = {{"quality": QualityFunction(expr, schema=schema, outputs=outputs, name="max-over-{indices}"),
          "epsilon": 1, "neighbours": "replace-one", "claimed": 1}}
"""


def command_path(indices: int) -> tuple[float, float]:
    """Wall seconds of ``expmech certify bench_max_over:entry -o DIR`` and of ``expmech check DIR/…cert.json``, each
    a fresh process (start-up, imports, the module's build and the reports included)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "bench_max_over.py").write_text(_COMMAND_TARGET.format(top=indices - 1, indices=indices), encoding="utf-8")
        command = [sys.executable, "-m", "expmech.proofs.cli"]
        start = time.perf_counter()
        subprocess.run([*command, "certify", "bench_max_over:entry", "-o", str(root / "out")], cwd=root, check=True, capture_output=True)
        certified = time.perf_counter() - start
        (path,) = (root / "out").glob("*.cert.json")
        start = time.perf_counter()
        subprocess.run([*command, "check", str(path)], cwd=root, check=True, capture_output=True)
        return certified, time.perf_counter() - start


def timed_both(call: Callable[[], Any]) -> tuple[tuple[float, float], Any]:
    """One call's wall and process CPU seconds, and its result."""
    start, started = time.perf_counter(), time.process_time()
    result = call()
    return (time.perf_counter() - start, time.process_time() - started), result


def grids(sizes: list[int]) -> dict[int, float]:
    times = {}
    print("| grid points | build s | prove s |")
    print("|---:|---:|---:|")
    for points in sizes:
        build, q = timed(lambda: grid_family(points))
        prove, result = timed(lambda: prove_sensitivity(q, neighbours="replace-one", claimed=1 / DATASET_SIZE), 3)
        assert str(result.status) == "PROVED" and result.tight, result.reason
        times[points] = prove
        print(f"| {points} | {build:.2f} | {prove:.3f} |")
    return times


def plot(curves: dict[str, dict[int, float]], path: str) -> None:
    """One panel per family: seconds against size."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(curves), figsize=(4 * len(curves), 3.2))
    for axis, (name, times) in zip(axes, curves.items()):
        sizes = sorted(times)
        axis.plot(sizes, [times[s] for s in sizes], marker="." if len(sizes) < 50 else None, linewidth=1)
        axis.set_title(name, fontsize=10)
        axis.set_xlabel("size")
        axis.set_ylabel("seconds")
        axis.set_ylim(bottom=0)
        if name.startswith("median") or name.startswith("grid"):
            axis.set_xscale("log")
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (a smoke run)")
    parser.add_argument("--plot", metavar="FILE.png", help="write the families' curves to a PNG")
    args = parser.parse_args()
    quick = args.quick
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min; {os.cpu_count()} cores)")
    print()
    slowest: float | None = None
    if not quick:
        slowest = catalogue()
        print()
    curves = {
        "median over IntRange(0, N)": medians(list(range(1, 17)) if quick else list(range(1, 1025))),
    }
    print()
    curves["nesting depth"] = nestings([1, 2, 3] if quick else list(range(1, 11)))
    print()
    curves["max_over: prove + check"] = max_overs([5, 10] if quick else [10, 25, 50, 100, 200])
    print()
    curves["output grid points"] = grids([10, 100] if quick else [10, 100, 1000, 10_000])
    print()
    median_times, nesting_times = curves["median over IntRange(0, N)"], curves["nesting depth"]
    max_over_times, grid_times = curves["max_over: prove + check"], curves["output grid points"]
    deepest, widest, largest = max(nesting_times), max(max_over_times), max(grid_times)
    measured = [] if slowest is None else [("every catalogue entry < 1 s", f"slowest median {slowest:.3f} s", slowest < 1)]
    measured += [
        (f"median over IntRange(0, N), N = 1..{max(median_times)}: max/median < 3×", f"{steadiness(median_times):.2f}× (CPU)", steadiness(median_times) < 3),
        (f"nesting depth {deepest} < 2 s", f"{nesting_times[deepest]:.3f} s", nesting_times[deepest] < 2),
        (f"max_over with {widest} indices proved and checked < 5 s", f"{max_over_times[widest]:.2f} s", max_over_times[widest] < 5),
        (f"an output grid of {largest} points < 5 s", f"{grid_times[largest]:.3f} s", grid_times[largest] < 5),
    ]
    whole, whole_cpu = _WHOLE_PATH[widest]
    measured.append((f"max_over with {widest} indices, the whole path (build, prove, certify, check) < 5 s", f"{whole:.2f} s (CPU {whole_cpu:.2f} s)", whole < 5))
    if not quick:
        certified, checked = command_path(widest)
        print(f"max_over with {widest} indices as a user runs it, each a fresh process: `expmech certify` {certified:.2f} s, `expmech check` {checked:.2f} s")
        print()
    targets(measured)
    print()
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (1, 5, 15 min)")
    if args.plot:
        plot(curves, args.plot)
        print(f"\ncurves written to {args.plot}")


if __name__ == "__main__":
    main()
