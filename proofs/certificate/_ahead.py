"""Work of ``check`` that does not rest on the re-derivation, done ahead in a second process while it runs.

The checks of :mod:`._rederive` that read only the recorded statement and
the rebuilt inputs are the digest, when the gate left it (:mod:`._digest`),
the comparison of the inputs with their re-rendering, the small-model check,
the proof kernel's verdicts on the recorded derivations, and the recorded
queries re-run on z3 and cvc5.  On a
large certificate, :func:`start_ahead` forks a child process that computes
them (the child is the checker itself, on the same statement and inputs, with
the same code) while the parent re-derives every claim.  The parent then
runs the same checks, in the same order and with the same messages, reading
each result from :class:`AheadResults` where the child computed it and
computing it itself where it did not.  So the report is the sequential one;
only the wall-clock time differs.

The child is used only where it can pay off and a fork is safe: ``jobs >= 2``
(by default, when the process may run on two or more CPUs), a platform with
``os.fork`` (Linux), a process with one thread (a fork copies only the
calling thread, so a lock another thread holds would stay locked in the
child: in a threaded program, such as a Dask worker, ``check`` stays in one
process), and a range of at least :data:`._fork.MIN_OUTPUTS` outputs (see :mod:`._fork`).  A child that
fails, is killed or sends anything unreadable leaves the parent to compute
everything itself, as it would with ``jobs=1``.  The child's results are
plain verdicts, reports and solver answers, never a decision by themselves.
"""

from __future__ import annotations

import contextlib
import gc
import os
import pickle
import signal
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..smallmodel import small_model_check
from . import _fork
from ._derive import measure_budget
from ._inputs import CertificateInputs, FiniteRange
from ._kernel_check import prefetch_kernel
from ._run import DerivationCache, Staged, _Check, run_stage
from ._smt import normalise_smt2, run_cvc5, run_z3

__all__ = ["Ahead", "AheadResults", "start_ahead"]


@dataclass
class AheadResults:
    """What the child computed: the small-model check's report or the error it raised (None when it did not run or
    its error could not be sent), and solver runs and kernel verdicts in a :class:`DerivationCache`'s shape."""

    small_model: Any = None
    cache: DerivationCache = field(default_factory=DerivationCache)


def _worth_it(inputs: CertificateInputs, jobs: int | None) -> bool:
    if not _fork.can_fork(jobs):
        return False
    return isinstance(inputs.range, FiniteRange) and len(inputs.range.outputs) >= _fork.MIN_OUTPUTS


class Ahead:
    """A running child: :meth:`next_stage` waits for its next stage, :meth:`collect` for its results, :meth:`cancel` ends
    it (the last two reap it)."""

    def __init__(self, pid: int, fd: int, frozen: bool = False) -> None:
        self.pid = pid
        self.fd = fd
        self.frozen = frozen
        self.done = False

    def _message(self) -> Any:
        """The next message on the pipe (an 8-byte length, then a pickle); None at its end or on anything unreadable."""
        if self.done:
            return None
        try:
            head = self._exactly(8)
            body = self._exactly(int.from_bytes(head, "big")) if head is not None else None
            return pickle.loads(body) if body is not None else None
        except Exception:  # noqa: BLE001 - a child that died mid-write: the parent computes it itself
            return None

    def _exactly(self, size: int) -> bytes | None:
        chunks, left = [], size
        while left:
            chunk = os.read(self.fd, min(left, 1 << 20))
            if not chunk:
                return None
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def next_stage(self) -> Staged | None:
        """The next stage's records, as the child ran it; None when it did not send them."""
        message = self._message()
        return message if isinstance(message, Staged) else None

    def collect(self) -> AheadResults | None:
        """The child's results, waiting for them (after every stage); None when it failed or sent nothing readable."""
        message = self._message()
        self._reap()
        return message if isinstance(message, AheadResults) else None

    def cancel(self) -> None:
        """End the child if it is still running (the parent stopped early, or collected already)."""
        if not self.done:
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            self._reap()

    def _reap(self) -> None:
        self.done = True
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        with contextlib.suppress(OSError):
            os.close(self.fd)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)


def start_ahead(
    run: _Check, statement: dict[str, Any], inputs: CertificateInputs, jobs: int | None, stages: Sequence[Callable[[_Check], None]]
) -> Ahead | None:
    """Fork the child when it can pay off (see the module docstring), None when the parent is to do all the work itself.

    The child runs ``stages`` in order (stages of the check recorded on a run, which the parent would have run next)
    and sends the :class:`Staged` records of each, then computes and sends :class:`AheadResults` for ``statement``."""
    if not _worth_it(inputs, jobs):
        return None
    try:
        read, write = os.pipe()
    except OSError:
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    # the objects that exist now are shared copy-on-write: keep the cycle collector off them on both sides, so that
    # a collection does not write to (and so copy) every page of the heap
    freeze = gc.get_freeze_count() == 0  # a caller's own frozen objects stay frozen
    if freeze:
        gc.freeze()
    try:
        pid = os.fork()
    except OSError:
        if freeze:
            gc.unfreeze()
        os.close(read)
        os.close(write)
        return None
    if pid == 0:  # the child: compute, send, and leave without running the parent's exit handlers
        code = 1
        try:
            gc.disable()
            os.close(read)
            for stage in stages:
                _send(write, run_stage(run, stage))
            _send(write, _compute(run, statement, inputs))
            code = 0
        except BaseException:  # noqa: BLE001 - whatever happens here, the parent computes it itself
            pass
        finally:
            os._exit(code)
    os.close(write)
    return Ahead(pid, read, freeze)


def _send(fd: int, value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(payload).to_bytes(8, "big") + payload)
    while view:
        view = view[os.write(fd, view) :]


def _compute(run: _Check, statement: dict[str, Any], inputs: CertificateInputs) -> AheadResults:
    results = AheadResults()
    try:
        results.small_model = small_model_check(statement["predicate"], inputs.quality, max_evaluations=run.limits.max_small_model_evaluations)
    except Exception as error:  # noqa: BLE001 - the parent raises it where the sequential check would
        results.small_model = error if _picklable(error) else None
    prefetch_kernel(statement, inputs, results.cache)
    _prefetch_solvers(run, statement, inputs, results.cache)
    return results


def _picklable(value: Any) -> bool:
    try:
        pickle.loads(pickle.dumps(value))
    except Exception:  # noqa: BLE001 - not sendable: the parent recomputes it
        return False
    return True


def _prefetch_solvers(run: _Check, statement: dict[str, Any], inputs: CertificateInputs, cache: DerivationCache) -> None:
    """Every recorded query run as :func:`._rederive._solvers` runs it, keyed as it looks them up."""
    budget = measure_budget(inputs.budget.rlimit)
    timeout = inputs.budget.timeout_ms
    for claim in statement["predicate"]["claims"]:
        for query in claim.get("evidence", {}).get("queries", []):
            try:
                text = normalise_smt2(query["smt2"])
            except Exception:  # noqa: BLE001 - the parent names the malformed query
                continue
            if "z3" in run.solvers and (text, budget, timeout) not in cache.z3_runs:
                cache.z3_runs[(text, budget, timeout)] = run_z3(text, rlimit=budget, timeout_ms=timeout)
            if "cvc5" in run.solvers and query.get("result") != "unknown" and (text, timeout) not in cache.cvc5_runs:
                cache.cvc5_runs[(text, timeout)] = run_cvc5(text, timeout_ms=timeout)
