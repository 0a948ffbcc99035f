"""Work of ``check`` that does not rest on the re-derivation, shared with a second process while it runs.

The tasks of :data:`TASKS` read only the recorded statement and the rebuilt
inputs: the conformance check's privacy losses (which the re-derivation needs
half-way), the digest when the gate left it (:mod:`._digest`), the comparison
of the inputs with their re-rendering, the small-model check, the proof
kernel's verdicts on the recorded derivations, and the recorded queries
re-run on z3 and cvc5.  On a large certificate, :func:`start_ahead` forks a
child (the checker itself, on the same statement and inputs, with the same
code).  Each task is claimed once, in memory both processes share: the child
takes them from the front while the parent re-derives every claim, and the
parent from the back once it has (:meth:`Ahead.work_back`), so they meet in
the middle whatever each task costs.  The parent then runs the same checks,
in the same order and with the same messages, reading each result where
either process computed it, and computing it where it needs it otherwise.  So
the report is the sequential one; only the wall-clock time differs.

The child is used only where it can pay off and a fork is safe: ``jobs >= 2``
(by default, when the process may run on two or more CPUs), a platform with
``os.fork`` (Linux), a process with one thread (a fork copies only the
calling thread, so a lock another thread holds would stay locked in the
child: in a threaded program, such as a Dask worker, ``check`` stays in one
process), and a range of at least :data:`._fork.MIN_OUTPUTS` outputs (see
:mod:`._fork`).  A child that fails at a task, is killed or sends anything
unreadable leaves the parent to compute what it has not received, as it would
with ``jobs=1``.  The child's results are plain verdicts, reports, losses and
solver answers, never a decision by themselves.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import mmap
import os
import pickle
import signal
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..smallmodel import small_model_check
from . import _fork
from ._derive import conformance_pairs, measure_budget
from ._inputs import CertificateInputs
from ._kernel_check import prefetch_kernel
from ._run import DerivationCache, Staged, _Check, run_stage
from ._smt import normalise_smt2, run_cvc5, run_z3

__all__ = ["TASKS", "Ahead", "Failed", "start_ahead"]

#: The work the child offers, in the order it does it: the conformance check's privacy losses (the parent's
#: re-derivation needs them half-way), the staged checks the parent runs after the re-derivation (the digest, when
#: the gate left it, and the comparison of the inputs), then the small-model check, the kernel's verdicts and the
#: solver re-runs.  Whichever process claims a task first does it; the other reads or skips it.
TASKS = ("losses", "digest", "inputs", "small model", "kernel", "solvers")

_FREE, _CHILD, _PARENT = 0, 1, 2

#: The tasks that are staged checks of the report (done only when the check gives the stage).
_STAGED = ("digest", "inputs")


@dataclass(frozen=True)
class Failed:
    """A task the child claimed but could not do: the parent does it itself."""

    task: str


def _offered(stages: dict[str, Callable[[_Check], None]]) -> list[str]:
    """The :data:`TASKS` of this check: the staged ones only when they are given."""
    return [task for task in TASKS if task in stages or task not in _STAGED]


class _Claims:
    """Which process does each task: a byte per task in memory shared across the fork, changed under a POSIX record
    lock (``lockf``), which the system releases when its holder dies."""

    def __init__(self) -> None:
        self.memory = mmap.mmap(-1, len(TASKS))
        self.file = tempfile.TemporaryFile()

    def claim(self, task: str, who: int) -> bool:
        """Whether ``who`` now holds ``task`` (False: the other process holds it)."""
        index = TASKS.index(task)
        fcntl.lockf(self.file.fileno(), fcntl.LOCK_EX)
        try:
            if self.memory[index] == _FREE:
                self.memory[index] = who
            return self.memory[index] == who
        finally:
            fcntl.lockf(self.file.fileno(), fcntl.LOCK_UN)

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.memory.close()
        with contextlib.suppress(OSError):
            self.file.close()


class Ahead:
    """A running child: :meth:`take` claims a task or waits for the child's result of it, :meth:`cancel` ends the
    child.  A thread of the parent reads the child's messages as they come, so the child never waits on a full pipe."""

    def __init__(self, pid: int, fd: int, claims: _Claims, frozen: bool = False) -> None:
        self.pid = pid
        self.fd = fd
        self.claims = claims
        self.frozen = frozen
        self.done = False
        self.results: dict[str, Any] = {}
        self.mine: dict[str, Any] = {}
        self.ended = False
        self.ready = threading.Condition()
        self.reader = threading.Thread(target=self._read, name="expmech-check-ahead", daemon=True)
        self.reader.start()

    def _read(self) -> None:
        """Messages ``(task, result)`` into :attr:`results` until the pipe ends or holds anything unreadable."""
        try:
            while True:
                message = self._message()
                if not (isinstance(message, tuple) and len(message) == 2 and message[0] in TASKS):
                    break
                with self.ready:
                    self.results[message[0]] = message[1]
                    self.ready.notify_all()
        finally:
            with self.ready:
                self.ended = True
                self.ready.notify_all()

    def _message(self) -> Any:
        """The next message on the pipe (an 8-byte length, then a pickle); None at its end or on anything unreadable."""
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

    def work_back(
        self, run: _Check, statement: dict[str, Any], inputs: CertificateInputs, stages: dict[str, Callable[[_Check], None]], *, stages_only: bool = False
    ) -> None:
        """Do the tasks after the losses from the last one back, while the child (working forwards) has not claimed
        them: the two processes meet in the middle, whatever each task costs on this certificate.  ``stages_only``:
        only the staged checks (the re-derivation failed: the report needs nothing after them)."""
        for task in reversed(_offered(stages)):
            if task == "losses" or (stages_only and task not in stages):
                continue
            if self.done or not self.claims.claim(task, _PARENT):
                return
            self.mine[task] = _task(task, run, statement, inputs, stages)

    def take(self, task: str) -> tuple[bool, Any]:
        """``(True, result)`` when ``task`` is done, by :meth:`work_back` or by the child (waiting for the child if it
        is doing it); ``(False, None)`` when the parent is to do it where it is needed: it has claimed it now (the
        child will skip it), or the child failed at it or ended."""
        if task in self.mine:
            result = self.mine.pop(task)
            return (False, None) if isinstance(result, Failed) else (True, result)
        if self.done or self.claims.claim(task, _PARENT):
            return False, None
        with self.ready:
            while task not in self.results and not self.ended:
                self.ready.wait()
            result = self.results.pop(task, None) if task in self.results else Failed(task)
        return (False, None) if isinstance(result, Failed) else (True, result)

    def cancel(self) -> None:
        """End the child if it is still running, and reap it."""
        if self.done:
            return
        self.done = True
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(self.pid, 0)
        self.reader.join()
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self.claims.close()
        if self.frozen:
            gc.unfreeze()
            self.frozen = False


def start_ahead(
    run: _Check, statement: dict[str, Any], inputs: CertificateInputs, jobs: int | None, stages: dict[str, Callable[[_Check], None]]
) -> Ahead | None:
    """Fork the child when it can pay off (see the module docstring), None when the parent is to do all the work itself.

    The child does the :data:`TASKS` it claims first, in their order, and sends each result: ``stages`` maps the
    names of staged checks (``"digest"``, ``"inputs"``) to the stage, run on a scratch copy of ``run`` (their
    :class:`Staged` records are sent); a stage not given is skipped."""
    if not _fork.worth_forking(jobs, statement):
        return None
    try:
        claims = _Claims()
    except (OSError, ValueError):
        return None
    try:
        read, write = os.pipe()
    except OSError:
        claims.close()
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
        claims.close()
        return None
    if pid == 0:  # the child: compute, send, and leave without running the parent's exit handlers
        code = 1
        try:
            gc.disable()
            os.close(read)
            for task in _offered(stages):
                if claims.claim(task, _CHILD):
                    result = _task(task, run, statement, inputs, stages)
                    _send(write, (task, result if _picklable(result) else Failed(task)))
            code = 0
        except BaseException:  # noqa: BLE001 - whatever happens here, the parent computes it itself
            pass
        finally:
            os._exit(code)
    os.close(write)
    return Ahead(pid, read, claims, freeze)


def _send(fd: int, value: Any) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(payload).to_bytes(8, "big") + payload)
    while view:
        view = view[os.write(fd, view) :]


def _task(task: str, run: _Check, statement: dict[str, Any], inputs: CertificateInputs, stages: dict[str, Callable[[_Check], None]]) -> Any:
    """The result of ``task`` (see :data:`TASKS`), in either process, or :class:`Failed` when it cannot be had."""
    try:
        if task in stages:
            return run_stage(run, stages[task])
        if task == "losses":
            pairs = conformance_pairs(inputs)
            return pairs, inputs.range.mechanism(inputs.quality, inputs.epsilon0).privacy_losses(pairs)
        if task == "small model":
            try:
                found: Any = small_model_check(statement["predicate"], inputs.quality, max_evaluations=run.limits.max_small_model_evaluations)
            except Exception as error:  # noqa: BLE001 - the parent raises it where the sequential check would
                found = error
            return found
        cache = DerivationCache()
        if task == "kernel":
            prefetch_kernel(statement, inputs, cache)
            return cache.kernel_verdicts
        _prefetch_solvers(run, statement, inputs, cache)
        return cache.z3_runs, cache.cvc5_runs
    except Exception:  # noqa: BLE001 - the parent does it itself
        return Failed(task)


def _picklable(value: Any) -> bool:
    """Whether ``value`` survives a pickle round trip (what the parent can read back; anything else it computes)."""
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
