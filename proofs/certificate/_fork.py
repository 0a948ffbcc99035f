"""Whether ``check`` may work in a second, forked process (see :mod:`._ahead`).

Light on purpose: the gate of :mod:`._check` asks it, before sympy and the
prover are imported, to decide whether the digest of a large certificate is
left to the second process.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any

__all__ = ["MIN_OUTPUTS", "available_cpus", "can_fork", "large_finite_range", "threads", "worth_forking"]

#: The fewest outputs of a finite range for which ``check`` computes ahead in a second process (smaller certificates
#: check in well under a second of this work, less than a fork and a transfer cost).
MIN_OUTPUTS = 5_000


def available_cpus() -> int:
    """The CPUs this process may run on (the scheduler's affinity where the platform has one)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        with contextlib.suppress(OSError):
            return len(affinity(0))
    return os.cpu_count() or 1


def threads() -> int:
    """The threads of this process that are alive."""
    return threading.active_count()


def can_fork(jobs: int | None) -> bool:
    """Whether ``jobs`` (None: two when this process may use two CPUs) allows a second process and a fork is safe here:
    Linux, and a process with one thread (a fork copies only the calling thread: a lock another thread holds would
    stay locked in the child)."""
    if jobs is None:
        jobs = min(available_cpus(), 2)
    if jobs < 2 or not hasattr(os, "fork") or not sys.platform.startswith("linux"):
        return False
    return threads() <= 1


def large_finite_range(statement: Any) -> bool:
    """Whether a statement (of any shape: it is read before the schema) records a finite range of at least
    :data:`MIN_OUTPUTS` outputs."""
    predicate = statement.get("predicate") if isinstance(statement, dict) else None
    mechanism = predicate.get("mechanism") if isinstance(predicate, dict) else None
    recorded = mechanism.get("range") if isinstance(mechanism, dict) else None
    if not isinstance(recorded, dict) or recorded.get("kind") != "finite":
        return False
    outputs = recorded.get("outputs")
    return isinstance(outputs, list) and len(outputs) >= MIN_OUTPUTS


def worth_forking(jobs: int | None, statement: Any) -> bool:
    """Whether ``check`` works on ``statement`` with a second process: :func:`can_fork` and :func:`large_finite_range`
    (the gate's decision to leave the digest to it and the fork itself ask this one question)."""
    return can_fork(jobs) and large_finite_range(statement)
