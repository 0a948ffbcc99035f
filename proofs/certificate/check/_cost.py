"""The work of ``verify``, ``certify`` and ``check``, estimated before any of it is done.

What grows with a mechanism's size is the list of outputs a finite range is
certified over: the exact law is held for every output on each conformance
pair, and the certificate writes each output.  Everything else is independent
of the domains' sizes — record domains and a single integer output variable
are never listed (:data:`~expmech.spec.SMALL_DOMAIN`), z3 reasons about them
symbolically.  So the estimate is a function of the outputs listed one by one,
the output variables and the conformance pairs:

* peak memory ``BASE_MB`` (the interpreter with sympy, z3, numpy and
  python-flint loaded: 410 MB of address space measured) plus
  ``BYTES_PER_OUTPUT`` per listed output and ``BYTES_PER_VARIABLE`` per
  output variable of each (measured: 0.95 KB per output at 400,000 outputs of
  two variables, 516 MB resident in all; the constants leave twice that);
* exact evaluations: each listed output on both datasets of each pair, and
  twice more for the provers' searches.

A run is refused when its estimated peak memory exceeds the budget in MB
(``--budget``; ``[tool.expmech] budget``; default :data:`DEFAULT_BUDGET_MB`,
a third of a 24 GB machine), or the address space the process may still
allocate under ``RLIMIT_AS`` when that is lower.  This module imports nothing
heavy: ``check`` uses it before the gate.
"""

from __future__ import annotations

import resource
from dataclasses import dataclass

__all__ = ["BASE_MB", "BYTES_PER_OUTPUT", "BYTES_PER_VARIABLE", "DEFAULT_BUDGET_MB", "WorkEstimate", "address_space_mb", "effective_budget", "estimate_work"]

DEFAULT_BUDGET_MB = 8192
BASE_MB = 420
BYTES_PER_OUTPUT = 2048
BYTES_PER_VARIABLE = 256
_MB = 2**20


@dataclass(frozen=True)
class WorkEstimate:
    """The estimated work of one mechanism: outputs listed one by one, peak memory in MB and exact evaluations."""

    listed_outputs: int
    variables: int
    pairs: int
    memory_mb: int
    evaluations: int

    def text(self) -> str:
        """``1,000,000 outputs listed one by one (20 pairs): about 2,700 MB at peak, 42,000,000 exact evaluations``."""
        if self.listed_outputs == 0:
            return f"no output listed (the ranges are symbolic): about {self.memory_mb:,} MB at peak"
        outputs = f"{self.listed_outputs:,}" if self.listed_outputs < 10**15 else f"about 10^{len(str(self.listed_outputs)) - 1}"
        memory = f"{self.memory_mb:,}" if self.memory_mb < 10**15 else f"about 10^{len(str(self.memory_mb)) - 1}"
        evaluations = f"{self.evaluations:,}" if self.evaluations < 10**15 else f"about 10^{len(str(self.evaluations)) - 1}"
        return f"{outputs} outputs listed one by one ({self.pairs} pairs): about {memory} MB at peak, {evaluations} exact evaluations"


def estimate_work(*, listed_outputs: int, variables: int, pairs: int) -> WorkEstimate:
    """The estimate for ``listed_outputs`` outputs (0: a symbolic range) of ``variables`` variables and ``pairs`` conformance pairs.

    Exact integer arithmetic, so an astronomically large output space gives an
    astronomically large (never overflowing) estimate.
    """
    per_output = BYTES_PER_OUTPUT + BYTES_PER_VARIABLE * max(variables, 1)
    memory = BASE_MB + -(-listed_outputs * per_output // _MB)
    evaluations = listed_outputs * (2 * pairs + 2)
    return WorkEstimate(listed_outputs, variables, pairs, memory, evaluations)


def address_space_mb() -> int | None:
    """The address space this process may still allocate under ``RLIMIT_AS``, in MB (None: no limit)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = 0
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            used = int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        pass
    # every estimate counts BASE_MB, the libraries' share, whether or not they are mapped yet
    return max(0, soft - max(used, BASE_MB * _MB)) // _MB + BASE_MB


def effective_budget(budget_mb: int) -> tuple[int, str]:
    """The budget a run is held to — ``budget_mb``, or the address space left under ``RLIMIT_AS`` if lower — and what sets it."""
    room = address_space_mb()
    if room is not None and room < budget_mb:
        return room, f"the address space left under the process's RLIMIT_AS ({room:,} MB, below the budget {budget_mb:,} MB)"
    return budget_mb, f"the budget {budget_mb:,} MB"
