"""Certificate benchmarks: certify and check on both catalogues, and how fast hostile input is refused.

Run: ``python tests/benchmarks/bench_certificates.py`` (``--hostile-only``: the second table alone).  Not collected by pytest.
Prints, per catalogue entry (all four catalogues), the median wall-clock seconds
of ``certify`` and of ``check_certificate`` (a full re-derivation replaying the
solver log, no cache; z3 and cvc5) over three runs and their ratio; then, per
kind of hostile certificate, the median seconds (of five) until
``check_certificate`` refuses it, the peak of Python allocations during one
refusal, and the wall-clock seconds of a whole ``expmech check FILE`` process
(interpreter start-up and imports included).
"""

from __future__ import annotations

import copy
import json
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import CheckOutcome, certify, check_certificate
from expmech.proofs.certificate.make._build import seal


def _certify(entry: Any) -> Any:
    extra: dict[str, Any] = {"base_measure": entry.base_measure} if entry.base_measure is not None else {}
    if entry.auction is not None:
        extra["auction"] = entry.auction
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **extra)


def _median_seconds(function, runs):
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def _hostile(data, directory):
    statement = data["certificate"]

    def resealed(edit):
        copied = copy.deepcopy(statement)
        edit(copied)
        return seal(copied)

    sensitivity = lambda s: s["predicate"]["claims"][0]  # noqa: E731
    text = json.dumps(data)
    cut = text.index('"dataset1": [') + len('"dataset1": [')
    big = directory / "big.json"
    big.write_text(text[:cut] + "7, " * (12 * 2**20) + text[cut:])
    wide = {"node": "Add", "args": [{"rational": str(i)} for i in range(20_000)]}
    tower = {"symbol": "r"}
    for _ in range(3):
        tower = {"node": "Pow", "args": [tower, {"rational": "64"}]}
    memory = copy.deepcopy(data)
    sensitivity(memory["certificate"])["witness"]["dataset1"] = [7] * (12 * 10**6)
    deep = {"symbol": "r"}
    for _ in range(70):
        deep = {"node": "Abs", "args": [deep]}
    return {
        "36 MB witness (file)": big,
        "JSON nested 100,000 deep": ("[" * 100_000 + "]" * 100_000).encode(),
        "integer of 200,000 digits": ('{"certificate": ' + "9" * 200_000 + "}").encode(),
        'bound "9**9**9**9" (resealed)': resealed(lambda s: sensitivity(s).__setitem__("bound", "9**9**9**9")),
        "expression Pow(3, 10**14) (resealed)": resealed(lambda s: s["predicate"]["quality"].__setitem__("expression", {"node": "Pow", "args": [{"rational": "3"}, {"rational": str(10**14)}]})),
        "expression of 20,000 nodes (resealed)": resealed(lambda s: s["predicate"]["quality"].__setitem__("expression", wide)),
        "expression 70 deep (resealed)": resealed(lambda s: s["predicate"]["quality"].__setitem__("expression", deep)),
        "ε₀ with 5,000 digits (resealed)": resealed(lambda s: s["predicate"]["mechanism"].__setitem__("epsilon0", "1/" + "9" * 5000)),
        "witness of 5,000 records (resealed)": resealed(lambda s: sensitivity(s)["witness"].__setitem__("dataset1", list(range(5000)))),
        "rlimit 10**12 (resealed)": resealed(lambda s: s["predicate"]["options"].__setitem__("rlimit", 10**12)),
        "model value of 5,000 digits (resealed)": resealed(lambda s: s["predicate"]["solver_calls"][-1]["model"].__setitem__("out_r", "7" * 5000)),
        "duplicate JSON key": (text[:-1] + ', "digest": ' + json.dumps(data["digest"]) + "}").encode(),
        "expression ((r^64)^64)^64 (resealed)": resealed(lambda s: s["predicate"]["quality"].__setitem__("expression", tower)),
        "36 MB witness (a dict in memory)": memory,
    }


def main() -> None:
    hostile_only = "--hostile-only" in sys.argv[1:]
    if not hostile_only:
        print("| entry | status | certify s | check s | check / certify |")
        print("|---|---|---:|---:|---:|")
    median_data = _certify(next(entry for entry in CATALOGUE if entry.name == "median")).data if hostile_only else None
    for entry in [] if hostile_only else CATALOGUE + WRONG_CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE:
        made, certificate = _median_seconds(lambda: _certify(entry), 3)
        checked, report = _median_seconds(lambda: check_certificate(certificate.data), 3)
        assert report.ok, report.problems
        if entry.name == "median":
            median_data = certificate.data
        print(f"| {entry.name} | {certificate.status} | {made:.2f} | {checked:.2f} | {checked / made:.2f} |")
    sys.stdout.flush()
    print()
    print("| hostile certificate | outcome | check_certificate refuses after s | peak Python memory MB | `expmech check FILE` process s |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for index, (label, source) in enumerate(_hostile(median_data, Path(scratch)).items()):
            seconds, report = _median_seconds(lambda: check_certificate(source), 5)
            assert report.outcome in (CheckOutcome.REFUSED, CheckOutcome.INVALID)
            tracemalloc.start()
            check_certificate(source)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            process = "—"  # a dict in memory has no file to check
            if "in memory" not in label:
                path = source if isinstance(source, Path) else Path(scratch) / f"hostile-{index}.json"
                if not isinstance(source, Path):
                    path.write_bytes(source if isinstance(source, bytes) else json.dumps(source).encode())
                started = time.perf_counter()
                done = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "check", str(path)], capture_output=True, timeout=120)
                process = f"{time.perf_counter() - started:.2f}"
                assert done.returncode == report.exit_code, (label, done.returncode, report.exit_code)
            print(f"| {label} | {report.outcome.name} (exit {report.exit_code}) | {seconds:.3f} | {peak / 2**20:.1f} | {process} |")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import expmech.proofs.cli"], check=True)
    print(f"\n(interpreter start-up and `import expmech.proofs.cli` alone: {time.perf_counter() - started:.2f} s)")


if __name__ == "__main__":
    main()
