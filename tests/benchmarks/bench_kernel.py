"""The proof kernel's cost: certify and check of the catalogues with and without the kernel, side by side in one run.

Run: ``python tests/benchmarks/bench_kernel.py [--runs K] [--only NAME,NAME]``.  Not collected by pytest.
For each catalogue entry (all four catalogues), in one process and interleaved so that the machine's load falls
on both sides alike, the median CPU seconds of the process (of K runs, default 1; z3 and cvc5 run in-process, and
CPU time is far less sensitive than wall-clock time to the other jobs of a shared machine) of:

* ``certify`` — the certificate as issued (its derivations recorded by the prover); and *certify + kernel*: the
  same, followed by the kernel's acceptance of every derivation it carries (what an issuer runs to see, before
  issuing, what ``check`` will run);
* ``check_certificate`` without the kernel (``_kernel_check.enabled = False``: the re-derivation, the small-model
  check, the independent checks) and with it (the default).  Each check is a full re-derivation (no cache).

The last line sums every column over the catalogue and gives the ratios; the target is a kernel adding under 50 %
to ``check``.  Also: the kernel's own solver calls, and its seconds per derivation node.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import certify, check_certificate
from expmech.proofs.certificate import _kernel_check
from expmech.proofs.certificate._inputs import inputs_from_json
from expmech.proofs.kernel import check_derivation


def _certify(entry: Any) -> Any:
    extra: dict[str, Any] = {"base_measure": entry.base_measure} if entry.base_measure is not None else {}
    if entry.auction is not None:
        extra["auction"] = entry.auction
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **extra)


def _timed(function: Any) -> tuple[float, Any]:
    """CPU seconds of this process (z3 and cvc5 run in it) and the result: on a shared machine, wall-clock time
    measures the load more than the work."""
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def _kernel_on(certificate: Any) -> tuple[int, int, int]:
    """The kernel on every derivation of ``certificate``: (derivations, nodes, kernel queries); raises if one is rejected."""
    statement = certificate.statement
    inputs = inputs_from_json(statement["predicate"])
    quality = inputs.quality
    count = nodes = queries = 0
    premises: dict[str, Any] = {}  # the accepted derivations the later claims (privacy, zcdp, …) rest on
    for claim in statement["predicate"]["claims"]:
        derivation = claim.get("derivation")
        if derivation is None:
            continue
        verdict = check_derivation(quality, inputs.neighbours, derivation, premises=premises)
        if not verdict.accepted:
            raise AssertionError(f"{claim['id']}: the kernel rejects node {verdict.node}: {verdict.reason}")
        premises[derivation["claim"]] = derivation
        count += 1
        nodes += sum(1 for _ in _kernel_check._nodes(derivation["root"]))
        queries += verdict.queries
    return count, nodes, queries


def main(argv: list[str]) -> int:
    runs = int(argv[argv.index("--runs") + 1]) if "--runs" in argv else 1
    only = set(argv[argv.index("--only") + 1].split(",")) if "--only" in argv else None
    entries = [e for e in CATALOGUE + WRONG_CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE if only is None or e.name in only]
    print(f"CPU seconds of the process (z3 and cvc5 run in it), median of {runs} run(s) per cell; interleaved in one process.")
    print()
    print("| entry | status | derivations (nodes) | kernel queries | certify | certify + kernel | check, no kernel | check | check ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    totals = [0.0, 0.0, 0.0, 0.0]
    kernel_seconds = 0.0
    all_nodes = 0
    for entry in entries:
        cells: list[list[float]] = [[], [], [], []]
        info = (0, 0, 0)
        certificate = None
        for run in range(runs):
            made, certificate = _timed(lambda: _certify(entry))
            kernel, info = _timed(lambda: _kernel_on(certificate))
            checks = {}
            for with_kernel in (run % 2 == 1, run % 2 == 0):  # alternate which goes first: warm caches favour neither
                _kernel_check.enabled = with_kernel
                try:
                    checks[with_kernel], report = _timed(lambda: check_certificate(certificate.data))
                finally:
                    _kernel_check.enabled = True
                assert report.ok, report.problems
            plain, full = checks[False], checks[True]
            for cell, value in zip(cells, (made, made + kernel, plain, full)):
                cell.append(value)
        medians = [statistics.median(cell) for cell in cells]
        totals = [t + m for t, m in zip(totals, medians)]
        kernel_seconds += medians[1] - medians[0]
        all_nodes += info[1]
        derivations, nodes, queries = info
        print(
            f"| {entry.name} | {certificate.status} | {derivations} ({nodes}) | {queries} | {medians[0]:.2f} | {medians[1]:.2f} | "
            f"{medians[2]:.2f} | {medians[3]:.2f} | {medians[3] / medians[2]:.2f} |"
        )
        sys.stdout.flush()
    print(
        f"| **total** | | | | {totals[0]:.1f} | {totals[1]:.1f} | {totals[2]:.1f} | {totals[3]:.1f} | **{totals[3] / totals[2]:.2f}** |"
    )
    print()
    print(
        f"Over the catalogue: check with the kernel / without = {totals[3] / totals[2]:.2f} "
        f"(the kernel adds {100 * (totals[3] / totals[2] - 1):.0f} % to check; target < 50 %); "
        f"the kernel's own share: {kernel_seconds:.2f} s, {100 * kernel_seconds / totals[2]:.1f} % of check without it; "
        f"certify + kernel / certify = {totals[1] / totals[0]:.2f}; "
        f"{all_nodes} derivation nodes in all"
        + (f" ({1000 * kernel_seconds / all_nodes:.1f} ms of kernel a node)." if all_nodes else ".")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
