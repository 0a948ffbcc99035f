"""Prover and falsifier benchmarks on the built-in catalogue.

Run: ``python tests/benchmarks/bench_proofs.py``.  Not collected by pytest.
Prints, per catalogue entry, the median seconds of ``prove_sensitivity`` over
five runs and its verdict; the whole catalogue's total; and, per deliberately
wrong entry, how many examples the black-box falsifier evaluated before its
first violation.
"""

from __future__ import annotations

import statistics
import time

from expmech.impl import CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import falsify, prove_sensitivity


def main() -> None:
    print("| entry | neighbours | claimed Δq | verdict | bound | tight | median s |")
    print("|---|---|---|---|---|---|---:|")
    total_start = time.perf_counter()
    medians = []
    for entry in CATALOGUE + WRONG_CATALOGUE:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            result = prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
            times.append(time.perf_counter() - start)
        median = statistics.median(times)
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
        start = time.perf_counter()
        result = falsify(q, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, outputs=q.outputs(), schema=q.schema)
        print(f"| {entry.name} | {result.status} | {result.found_at} | {time.perf_counter() - start:.2f} |")


if __name__ == "__main__":
    main()
