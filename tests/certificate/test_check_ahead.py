"""``check`` with a second process (``jobs=2``): the report is the one-process report, whatever the certificate.

The small-model check, the kernel's verdicts and the solver re-runs are
computed ahead in a forked child while the parent re-derives.  Here the size
threshold is lowered so that small catalogue certificates take that path, and
each case is checked both ways: valid certificates, generated resealed
mutants (which stop at every stage), wrong provers that only the kernel or the
small-model check catches, solvers that disagree, and a child that fails.
"""

from __future__ import annotations

import copy
import os
import random
import signal
import subprocess
import sys
from typing import Any

import pytest

from certificate_mutants import mutants, path_class, resealed_statement
from certificate_tools import catalogue_certificate, claim, resealed, seal
from expmech.impl import catalogue_entry
from expmech.proofs import CertificateLimits, CheckOutcome, certify, check_certificate
from expmech.proofs.certificate import _ahead, _fork, _rederive, _smallmodel
from expmech.proofs.certificate._smt import SolverRun
from expmech.spec import InvalidArgument

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or not sys.platform.startswith("linux"), reason="the second process is forked (Linux)")


@pytest.fixture(autouse=True)
def _small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small certificates take the two-process path; and the idle threads another test of this worker may have left
    (a Dask cluster's) do not turn it off: they hold no lock the child needs."""
    monkeypatch.setattr(_fork, "MIN_OUTPUTS", 1)
    monkeypatch.setattr(_fork, "threads", lambda: 1)


def _both(data: Any, **options: Any) -> Any:
    """The report with one process, after asserting that the report with two is the same."""
    alone = check_certificate(data, jobs=1, **options)
    ahead = check_certificate(data, jobs=2, **options)
    assert ahead == alone, (alone.failed, alone.problems, ahead.failed, ahead.problems)
    return alone


def _fresh(name: str) -> dict[str, Any]:
    entry = catalogue_entry(name)
    extra: dict[str, Any] = {"base_measure": entry.base_measure} if entry.base_measure is not None else {}
    if entry.auction is not None:
        extra["auction"] = entry.auction
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **extra).data


@pytest.mark.parametrize("name", ["median", "mode-add-remove", "posterior-bernoulli", "auction-price", "median-half"])
def test_a_certificate_gets_the_same_report_with_two_processes(name):
    report = _both(catalogue_certificate(name).data)
    assert report.outcome in (CheckOutcome.CERTIFIES_DP, CheckOutcome.NO_DP_CLAIM)


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The parent's own small-model checks, solver runs and conformance losses, as they happen."""
    from expmech.impl.exponential import _finite

    calls: list[str] = []
    places = ((_smallmodel, "small_model_check"), (_rederive, "run_z3"), (_rederive, "run_cvc5"))
    for module, name in (*places, (_ahead, "small_model_check"), (_ahead, "run_z3"), (_ahead, "run_cvc5")):
        honest = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _f=honest, _n=name, **k: calls.append(_n) or _f(*a, **k))
    honest_losses = _finite.ExponentialMechanism.privacy_losses
    monkeypatch.setattr(_finite.ExponentialMechanism, "privacy_losses", lambda self, pairs: calls.append("losses") or honest_losses(self, pairs))
    return calls


def test_the_second_process_does_the_work(monkeypatch):
    """Not vacuous: with jobs=2, once the child has done its tasks, the parent computes no conformance loss, runs no
    small-model check and no solver itself (the parent here waits for the child to end before taking a task)."""
    calls = _counting(monkeypatch)
    data = catalogue_certificate("median").data
    check_certificate(data, jobs=1)
    assert {"small_model_check", "run_z3", "losses"} <= set(calls)
    calls.clear()
    honest_take, honest_back = _ahead.Ahead.take, _ahead.Ahead.work_back

    def take_when_done(self: Any, task: str) -> Any:
        self.reader.join()  # the child has sent everything it claimed
        return honest_take(self, task)

    def back_when_done(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.reader.join()
        return honest_back(self, *args, **kwargs)

    monkeypatch.setattr(_ahead.Ahead, "take", take_when_done)
    monkeypatch.setattr(_ahead.Ahead, "work_back", back_when_done)
    assert check_certificate(data, jobs=2).exit_code == 0
    assert calls == []


def test_a_slow_second_process_leaves_the_rest_to_the_first(monkeypatch):
    """A child still busy with the comparison of the inputs when the parent has re-derived: the parent does the tasks
    after it itself, from the last one back (the child skips them); the report is the one-process report, and the
    losses the child computed are not computed again."""
    import time

    calls = _counting(monkeypatch)
    honest_task = _ahead._task

    def slow(task: str, *args: Any) -> Any:
        if task == "inputs" and os.getpid() != parent:
            time.sleep(4)
        return honest_task(task, *args)

    parent = os.getpid()

    monkeypatch.setattr(_ahead, "_task", slow)
    report = _both(catalogue_certificate("median").data)
    assert report.exit_code == 0
    calls.clear()
    assert check_certificate(catalogue_certificate("median").data, jobs=2) == report
    assert "small_model_check" in calls and "run_z3" in calls and "losses" not in calls


@pytest.mark.parametrize("name", ["median", "posterior-bernoulli"])
def test_resealed_mutants_get_the_same_report(name):
    """One generated mutant per path class (a seeded sample of 12): each stops at the same check, with the same message."""
    statement = catalogue_certificate(name).data["certificate"]
    by_class: dict[str, Any] = {}
    for path, operator, build in mutants(statement):
        by_class.setdefault(f"{path_class(path)} {operator}", build)
    chosen = random.Random(f"ahead {name}").sample(sorted(by_class), 12)
    outcomes = set()
    for key in chosen:
        report = _both(resealed_statement(by_class[key]()))
        outcomes.add(report.failed)
    assert len(outcomes) > 1


def test_a_wrong_epsilon_is_caught_by_the_kernel_both_ways(monkeypatch):
    from expmech.proofs.certificate import _derive

    honest = _derive.derive_epsilon
    monkeypatch.setattr(_derive, "derive_epsilon", lambda e0, delta, **kw: honest(e0, delta, **kw) / 2)
    report = _both(_fresh("median"))
    assert report.exit_code == 1 and report.failed == "claim privacy: kernel"


def test_a_small_model_disagreement_is_reported_both_ways(monkeypatch):
    from expmech.proofs.smallmodel import InternalInconsistency

    def inconsistent(*args: Any, **kwargs: Any) -> Any:
        raise InternalInconsistency("sensitivity: a pair differs by 2 > 1", claim="sensitivity")

    monkeypatch.setattr(_smallmodel, "small_model_check", inconsistent)
    monkeypatch.setattr(_ahead, "small_model_check", inconsistent)
    report = _both(catalogue_certificate("median").data)
    assert report.outcome is CheckOutcome.INCONCLUSIVE and report.failed == "small-model check"


def test_a_small_model_budget_is_refused_both_ways():
    from expmech.proofs.certificate import CertificateLimits

    report = _both(catalogue_certificate("median").data, limits=CertificateLimits(max_small_model_evaluations=10))
    assert report.outcome is CheckOutcome.REFUSED and report.failed == "small-model check"


@pytest.mark.parametrize("answer", ["sat", "unknown"])
def test_a_disagreeing_second_solver_is_reported_both_ways(monkeypatch, answer):
    disagreeing = lambda text, *, timeout_ms: SolverRun(answer, "stubbed", None)  # noqa: E731
    monkeypatch.setattr(_rederive, "run_cvc5", disagreeing)
    monkeypatch.setattr(_ahead, "run_cvc5", disagreeing)
    report = _both(catalogue_certificate("median").data)
    assert (report.exit_code == 1) is (answer == "sat")


def test_a_resealed_query_answer_is_caught_both_ways():
    def flip(statement: dict[str, Any]) -> None:
        query = claim(statement, "sensitivity")["evidence"]["queries"][0]
        query["result"] = "sat" if query["result"] == "unsat" else "unsat"

    report = _both(resealed(catalogue_certificate("median").data, flip))
    assert report.exit_code == 1


@pytest.mark.parametrize("section", ["quality", "mechanism"])
def test_a_respelled_input_fails_first_both_ways(section):
    """The comparison of the inputs with their re-rendering runs in the second process beside the re-derivation; its
    failure is still the one reported (and first), as with one process."""

    def respell(statement: dict[str, Any]) -> None:
        target = statement["predicate"][section]
        if section == "mechanism":
            target["epsilon0"] = "2/4"  # the same ε₀, not in lowest terms
        else:
            target["name"] = target["name"] + " "  # the subject names the quality: it differs too

    report = _both(resealed(catalogue_certificate("median").data, respell))
    assert report.exit_code == 1 and report.failed in ("quality", "mechanism", "subject", "inputs"), report.failed


def _unsealed(data: dict[str, Any], statement: dict[str, Any]) -> dict[str, Any]:
    """A tampered statement under the file's old digest (not resealed): the digest check fails first."""
    return {"certificate": statement, "digest": data["digest"]}


@pytest.mark.parametrize("name", ["median", "mode-add-remove"])
def test_the_digest_is_left_to_the_second_process(monkeypatch, name):
    """Not vacuous: with jobs=2 the parent computes no digest of a large statement (the child does), with jobs=1 it does."""
    from expmech.proofs.certificate import _digest

    calls: list[int] = []
    honest = _digest.sha256_hex
    monkeypatch.setattr(_digest, "sha256_hex", lambda value: calls.append(1) or honest(value))
    data = catalogue_certificate(name).data
    assert check_certificate(data, jobs=1).exit_code == 0 and calls == [1]
    calls.clear()
    report = check_certificate(data, jobs=2)
    assert report.exit_code == 0 and calls == [] and report.checks[0][:2] == ("digest", True)


@pytest.mark.parametrize("name", ["median", "posterior-bernoulli"])
def test_unsealed_mutants_fail_the_digest_first_both_ways(name):
    """Mutants under the old digest, whatever else is wrong with them (a seeded sample of 12 path classes, each of which
    fails a later stage once resealed): the report is the digest's failure, alone, with one process or two."""
    from expmech.proofs.certificate._canonical import sha256_hex

    data = catalogue_certificate(name).data
    by_class: dict[str, Any] = {}
    for path, operator, build in mutants(data["certificate"]):
        if sha256_hex(build()) != data["digest"]["value"]:  # not a mere reordering of keys
            by_class.setdefault(f"{path_class(path)} {operator}", build)
    for key in random.Random(f"unsealed {name}").sample(sorted(by_class), 12):
        report = _both(_unsealed(data, by_class[key]()))
        assert report.failed == "digest" and len(report.checks) == 1 and report.status is None, (key, report.checks)


@pytest.mark.parametrize("stage", ["content limits", "schema", "inputs", "quality", "claim sensitivity", "small-model check"])
def test_a_wrong_digest_is_reported_before_any_later_failure(monkeypatch, stage):
    """A statement that fails a later stage (once sealed), under a digest that does not match: the digest's failure is
    the report, alone, with one process or two, and with a child that dies."""
    data = catalogue_certificate("median").data
    statement = copy.deepcopy(data["certificate"])
    predicate = statement["predicate"]
    limits = None
    if stage == "content limits":
        limits = CertificateLimits(max_expression_nodes=3)
    elif stage == "schema":
        predicate["stray"] = 1
    elif stage == "inputs":
        predicate["quality"]["sha256"] = "0" * 64
    elif stage == "quality":
        predicate["quality"]["name"] += " "
    elif stage == "claim sensitivity":
        claim(statement, "sensitivity")["bound"] = "1/3"
    else:
        limits = CertificateLimits(max_small_model_evaluations=10)
    options = {"limits": limits} if limits is not None else {}
    sealed = _both(seal(statement), **options)
    assert sealed.failed is not None and sealed.failed != "digest"
    wrong = {"certificate": statement, "digest": {**data["digest"], "value": "0" * 64}}
    report = _both(wrong, **options)
    assert report.failed == "digest" and len(report.checks) == 1 and report.status is None
    monkeypatch.setattr(_ahead, "_send", lambda *a: os.kill(os.getpid(), signal.SIGKILL))
    assert check_certificate(wrong, jobs=2, **options) == report


@pytest.mark.parametrize("failure", ["nothing sent", "raises", "killed", "garbage"])
@pytest.mark.parametrize("when", ["first task", "every task"])
def test_a_failing_second_process_leaves_the_work_to_the_first(monkeypatch, failure, when):
    """The child (only the child: the parent does tasks with the same function) fails at its first task it sends, or at
    every one: killed, raising, sending nothing or sending garbage.  The parent does the rest; the report is the same."""
    parent = os.getpid()
    name = "_send" if failure == "nothing sent" else "_task"
    honest = getattr(_ahead, name)
    seen: list[int] = []

    def broken(*args: Any, **kwargs: Any) -> Any:
        if os.getpid() == parent or (when == "first task" and seen):
            return honest(*args, **kwargs)
        seen.append(1)
        if failure == "killed":
            os.kill(os.getpid(), signal.SIGKILL)
        if failure == "garbage":
            return "not results"  # sent and unpickled, but no task's result
        raise RuntimeError("the child fails")

    monkeypatch.setattr(_ahead, name, broken)
    report = _both(catalogue_certificate("median").data)
    assert report.exit_code == 0


def test_jobs_is_checked():
    data = catalogue_certificate("median").data
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(InvalidArgument, match="jobs="):
            check_certificate(data, jobs=bad)


def test_the_jobs_flag_is_checked(tmp_path):
    path = tmp_path / "c.cert.json"
    path.write_bytes(b"{}")
    done = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "check", str(path), "--jobs", "3"], capture_output=True, text=True)
    assert done.returncode == 2 and "--jobs" in done.stderr and "'3'" in done.stderr



def test_a_threaded_caller_is_checked_in_one_process(monkeypatch):
    """With another thread running, check never forks (the child could inherit a lock that thread holds)."""
    import threading

    forks: list[int] = []
    honest = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or honest())
    data = catalogue_certificate("median").data
    assert check_certificate(data, jobs=2).exit_code == 0 and forks == [1]
    monkeypatch.setattr(_fork, "threads", threading.active_count)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert check_certificate(data, jobs=2).exit_code == 0 and forks == [1]
    finally:
        stop.set()
        other.join()
