"""``expmech spec`` spread over processes says what one process says, and a reused step check is the same check.

The statements' steps, instance checks and dropped-hypothesis searches run as separate pieces in forked
processes; each piece has its own seed, so the report must not depend on how the pieces are spread.  A step
whose check reads the same content as an earlier step is checked once: re-checking it on its own must give the
same status, so reuse never stands in for a different check.
"""

from __future__ import annotations

import json

import pytest

from expmech.proofs.cli._spec_report import LISTED, SpecReport, render_json, render_text, spec_reports
from expmech.spec import StepStatus, check_step


@pytest.fixture(scope="module")
def reports() -> list[SpecReport]:
    """One report made in this process, with few instances and draws per check."""
    return spec_reports(instances=3, attempts=20, seed=3, jobs=1)


def test_two_processes_report_what_one_process_reports(reports: list[SpecReport]) -> None:
    """The JSON and text reports with --jobs 2 equal those with --jobs 1 (few instances and draws, same seed)."""
    one = reports
    two = spec_reports(instances=3, attempts=20, seed=3, jobs=2)
    assert render_json(one) == render_json(two)
    assert render_text(one) == render_text(two)
    assert [r.statement.id for r in two] == [s.id for s in LISTED]


def test_every_reused_step_checks_the_same_on_its_own(reports: list[SpecReport]) -> None:
    """Each step reported as reused gets, checked afresh in its own statement, the status of the step it reuses."""
    reused = [(report, number, source, at) for report in reports for number, source, at in report.reused_steps]
    assert reused, "the catalogue of statements has repeated steps; none was reused"
    by_id = {s.id: s for s in LISTED}
    for report, number, source, at in reused:
        statement = report.statement
        fresh = check_step(statement.steps[number - 1], statement.steps)
        original = check_step(by_id[source].steps[at - 1], by_id[source].steps)
        assert fresh.status is original.status is StepStatus.VERIFIED
        assert statement.steps[number - 1].claim == by_id[source].steps[at - 1].claim


def test_the_reports_name_the_reused_steps(reports: list[SpecReport]) -> None:
    """Text and JSON say which step was reused from where."""
    report = next(r for r in reports if r.reused_steps)
    number, source, at = report.reused_steps[0]
    assert f"step {number} reused from {source} step {at}" in render_text(reports)
    item = next(i for i in json.loads(render_json(reports))["statements"] if i["id"] == report.statement.id)
    assert {"step": number, "from": source, "from_step": at} in item["steps"]["reused"]
