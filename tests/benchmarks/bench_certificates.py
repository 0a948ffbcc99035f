"""Certificate benchmarks: certify and check on both catalogues, and how fast hostile input is refused.

Run: ``python tests/benchmarks/bench_certificates.py``.  Not collected by pytest.
Prints, per catalogue entry, the median wall-clock seconds of ``certify`` and of
``check_certificate`` (a full re-derivation, no cache; z3 and cvc5) over three
runs and their ratio; then, per kind of hostile certificate, the median seconds
(of five) until ``check_certificate`` refuses it, and the peak of Python
allocations during one refusal.
"""

from __future__ import annotations

import copy
import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from expmech.impl import CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import CheckOutcome, certify, check_certificate
from expmech.proofs.certificate._build import seal


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
    }


def main() -> None:
    print("| entry | status | certify s | check s | check / certify |")
    print("|---|---|---:|---:|---:|")
    median_data = None
    for entry in CATALOGUE + WRONG_CATALOGUE:
        made, certificate = _median_seconds(
            lambda: certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity), 3
        )
        checked, report = _median_seconds(lambda: check_certificate(certificate.data), 3)
        assert report.ok, report.problems
        if entry.name == "median":
            median_data = certificate.data
        print(f"| {entry.name} | {certificate.status} | {made:.2f} | {checked:.2f} | {checked / made:.2f} |")
    sys.stdout.flush()
    print()
    print("| hostile certificate | outcome | refused after s | peak Python memory MB |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as scratch:
        for label, source in _hostile(median_data, Path(scratch)).items():
            seconds, report = _median_seconds(lambda: check_certificate(source), 5)
            assert report.outcome in (CheckOutcome.REFUSED, CheckOutcome.INVALID)
            tracemalloc.start()
            check_certificate(source)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            print(f"| {label} | {report.outcome.name} (exit {report.exit_code}) | {seconds:.3f} | {peak / 2**20:.1f} |")


if __name__ == "__main__":
    main()
