"""``expmech spec``: every statement of the source, then every proof-kernel rule, with its status, as text or JSON."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import RULE_STATEMENTS, STATEMENTS, Statement, StepCheck, StepStatus, check_step

from ..conformance._conformance import FAMILIES, DroppedHypothesis, Finding, StatementReport, check_statement, search_dropped_hypothesis

__all__ = ["LISTED", "SpecReport", "render_json", "render_text", "spec_reports"]

#: What ``expmech spec`` lists: the source's statements in source order, then the kernel's rules.
LISTED: tuple[Statement, ...] = STATEMENTS + RULE_STATEMENTS

#: Seconds each statement's instance check and its dropped-hypothesis searches (all of them) took once, in one
#: process on a loaded 2-core machine.  Only the order in which the work is handed to the processes depends on
#: them (the longest first), never a result.
_COSTS: dict[str, tuple[float, float]] = {
    "density": (2.5, 0.0),
    "accuracy": (0.2, 1.0),
    "synthetic-size": (0.15, 0.9),
    "privacy": (0.55, 0.15),
    "global-sensitivity": (0.8, 0.02),
    "auctions": (0.4, 0.15),
    "posterior-sampling": (0.3, 0.15),
    "accuracy-lemma": (0.2, 0.1),
    "synthetic-mechanism": (0.2, 0.2),
    "mechanism": (0.2, 0.01),
    "predicate-query": (0.02, 0.15),
    "uniform-convergence": (0.08, 0.08),
}

Task = tuple[str, int, int]  # ("step" | "instances" | "dropped", statement index, step or hypothesis index)


def _step_key(statement: Statement, index: int) -> str:
    """What a step's check reads, as text: rule, claim, premises, multipliers, log scale and the step it sums."""
    step = statement.steps[index]
    earlier = None
    if step.from_step is not None and 0 <= step.from_step < len(statement.steps):
        earlier = statement.steps[step.from_step].claim
    return sympy.srepr((step.rule, step.claim, step.premises, step.multipliers, step.log_scale, step.from_step is None, earlier))


def _run_task(task: Task, instances: int, attempts: int, seed: int) -> Any:
    kind, which, index = task
    statement = LISTED[which]
    if kind == "step":
        return check_step(statement.steps[index], statement.steps)
    if kind == "instances":
        return check_statement(statement.id, instances=instances, seed=seed)
    return search_dropped_hypothesis(statement.id, statement.hypotheses[index].id, attempts=attempts, seed=seed + index + 1)


def _cost(task: Task) -> float:
    kind, which, _ = task
    if kind == "step":
        return 0.05
    instances, dropped = _COSTS.get(LISTED[which].id, (0.1, 0.1))
    return instances if kind == "instances" else dropped / max(len(LISTED[which].hypotheses), 1)


def _fork_pool(jobs: int) -> concurrent.futures.ProcessPoolExecutor | None:
    """A pool of ``jobs`` forked processes, or None where the platform cannot fork (then the work runs here)."""
    if jobs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return None
    return concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"))


def spec_reports(
    *,
    instances: int = 200,
    attempts: int = 2000,
    seed: int = 0,
    progress: Callable[[str], None] | None = None,
    jobs: int | None = None,
) -> list[SpecReport]:
    """A :class:`SpecReport` for every statement of :data:`LISTED`, in order.

    Each statement's proof steps, its instance check and each dropped-hypothesis search are separate pieces
    of work, run in ``jobs`` processes (default: the machine's cores; 1: in this process).  Each piece has its
    own seed, so the reports are the same however the work is spread.  A step whose check reads the same
    content as an earlier one (the same rule, claim, premises, multipliers and summed step) is checked once,
    and its report names the step it was reused from.  ``progress`` is called with each statement's id as its
    work is done.
    """
    if jobs is None:
        jobs = os.cpu_count() or 1
    tasks: list[Task] = []
    first: dict[str, tuple[int, int]] = {}
    reused: dict[tuple[int, int], tuple[int, int]] = {}
    for which, statement in enumerate(LISTED):
        for index in range(len(statement.steps)):
            key = _step_key(statement, index)
            if key in first:
                reused[(which, index)] = first[key]
            else:
                first[key] = (which, index)
                tasks.append(("step", which, index))
        if statement.instantiable and statement.id in FAMILIES:
            tasks.append(("instances", which, 0))
            tasks.extend(("dropped", which, index) for index in range(len(statement.hypotheses)))
    results: dict[Task, Any] = {}
    remaining = {which: sum(1 for task in tasks if task[1] == which) for which in range(len(LISTED))}

    def done(task: Task, result: Any) -> None:
        results[task] = result
        remaining[task[1]] -= 1
        if remaining[task[1]] == 0 and progress is not None:
            progress(LISTED[task[1]].id)

    for which, count in remaining.items():
        if count == 0 and progress is not None:
            progress(LISTED[which].id)
    pool = _fork_pool(min(jobs, len(tasks)))
    if pool is None:
        for task in tasks:
            done(task, _run_task(task, instances, attempts, seed))
    else:
        with pool:
            futures = {pool.submit(_run_task, task, instances, attempts, seed): task for task in sorted(tasks, key=_cost, reverse=True)}
            for future in concurrent.futures.as_completed(futures):
                done(futures[future], future.result())
    return [_assemble(which, results, reused) for which in range(len(LISTED))]


@dataclass(frozen=True)
class SpecReport(StatementReport):
    """A :class:`StatementReport` with, for each step whose check was reused, where from (``(statement id, step number)``)."""

    reused_steps: tuple[tuple[int, str, int], ...] = ()  # (step number, statement id, its step number), 1-based


def _assemble(which: int, results: dict[Task, Any], reused: dict[tuple[int, int], tuple[int, int]]) -> SpecReport:
    statement = LISTED[which]
    checks: list[StepCheck] = []
    reuses = []
    for index, step in enumerate(statement.steps):
        source = reused.get((which, index))
        if source is None:
            checks.append(results[("step", which, index)])
            continue
        found = results[("step", *source)]
        checks.append(StepCheck(found.status, step, found.reason))
        reuses.append((index + 1, LISTED[source[0]].id, source[1] + 1))
    failed = tuple(f"step {i + 1}: {c.reason}" for i, c in enumerate(checks) if c.status is not StepStatus.VERIFIED)
    conformance = results.get(("instances", which, 0))
    dropped = tuple(results[("dropped", which, index)] for index in range(len(statement.hypotheses)) if ("dropped", which, index) in results)
    return SpecReport(statement, len(checks) - len(failed), failed, conformance, dropped, tuple(reuses))


def _plain(value: Any) -> Any:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return str(value)


def _dropped_line(d: DroppedHypothesis) -> str:
    if d.finding is Finding.NEEDED:
        return f"needed — counterexample at draw {d.attempts}: {d.detail}; instance {_plain(d.counterexample)}"
    if d.finding is Finding.NOT_FOUND:
        return f"no counterexample in {d.attempts} draws ({d.candidates} violated only this hypothesis)"
    return f"{d.finding.value} ({d.detail}, {d.attempts} draws)"


def render_text(reports: Sequence[StatementReport]) -> str:
    """The human-readable report."""
    lines = []
    for report in reports:
        s = report.statement
        checked = bool(s.steps) or report.conformance is not None
        status = "FAILS" if not report.holds else ("HOLDS" if checked else "NOT CHECKED")
        first, last = s.source_lines
        where = "not in the source" if first == last == 0 else f"source line {first}" if first == last else f"source lines {first}–{last}"
        lines.append(f"{s.id} [{s.kind}] {status} — {s.title} ({where})")
        if s.hypotheses:
            parts = [h.id + ("" if h.in_source else " (implicit in the source)") for h in s.hypotheses]
            lines.append("  hypotheses: " + "; ".join(parts))
        lines.append(f"  conclusion: {s.conclusion_text}")
        if s.steps:
            reuses = getattr(report, "reused_steps", ())
            told = "; ".join(f"step {n} reused from {source} step {m}" for n, source, m in reuses)
            lines.append(f"  proof steps: {report.steps_verified}/{len(s.steps)} verified symbolically" + (f" ({told}: the same check)" if told else ""))
            lines.extend(f"    FAILED {failure}" for failure in report.steps_failed)
        if report.conformance is not None:
            c = report.conformance
            lines.append(
                f"  instances: {c.satisfying} of {c.drawn} drawn satisfy every hypothesis; {len(c.violations)} violations"
            )
            for violation in c.violations[:3]:
                lines.append(f"    VIOLATION {_plain(violation)}")
        else:
            lines.append(f"  instances: none — {s.note or 'no finite instance family'}")
        for d in report.dropped:
            lines.append(f"  without {d.hypothesis_id}: {_dropped_line(d)}")
        if s.note and report.conformance is not None:
            lines.append(f"  note: {s.note}")
    failed = [r.statement.id for r in reports if not r.holds]
    unchecked = [r.statement.id for r in reports if r.holds and not (r.statement.steps or r.conformance)]
    lines.append(
        f"{len(reports) - len(failed) - len(unchecked)} statements hold under their stated hypotheses, "
        f"{len(failed)} fail{(': ' + ', '.join(failed)) if failed else ''}, "
        f"{len(unchecked)} not checkable ({', '.join(unchecked)})"
    )
    return "\n".join(lines)


def render_json(reports: Sequence[StatementReport]) -> str:
    """The machine-readable report (one object per statement)."""
    items = []
    for report in reports:
        s = report.statement
        c = report.conformance
        items.append(
            {
                "id": s.id,
                "kind": s.kind,
                "title": s.title,
                "source_lines": list(s.source_lines),
                "holds": report.holds,
                "checked": bool(s.steps) or c is not None,
                "hypotheses": [{"id": h.id, "text": h.text, "in_source": h.in_source} for h in s.hypotheses],
                "steps": {
                    "total": len(s.steps),
                    "verified": report.steps_verified,
                    "failed": list(report.steps_failed),
                    "reused": [{"step": n, "from": source, "from_step": m} for n, source, m in getattr(report, "reused_steps", ())],
                },
                "instances": None
                if c is None
                else {"drawn": c.drawn, "satisfying": c.satisfying, "violations": _plain(list(c.violations)), "seed": c.seed},
                "dropped_hypotheses": [
                    {
                        "hypothesis": d.hypothesis_id,
                        "finding": d.finding.value,
                        "attempts": d.attempts,
                        "candidates": d.candidates,
                        "counterexample": _plain(d.counterexample),
                        "detail": d.detail,
                    }
                    for d in report.dropped
                ],
                "note": s.note,
            }
        )
    return json.dumps({"statements": items}, indent=2, ensure_ascii=False)
