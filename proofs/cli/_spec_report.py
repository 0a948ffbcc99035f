"""``expmech spec``: every statement of the source, then every proof-kernel rule, with its status, as text or JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from expmech.spec import RULE_STATEMENTS, STATEMENTS, Statement

from ..conformance._conformance import DroppedHypothesis, Finding, StatementReport, report_statement

__all__ = ["LISTED", "render_json", "render_text", "spec_reports"]

#: What ``expmech spec`` lists: the source's statements in source order, then the kernel's rules.
LISTED: tuple[Statement, ...] = STATEMENTS + RULE_STATEMENTS


def spec_reports(
    *, instances: int = 200, attempts: int = 2000, seed: int = 0, progress: Callable[[str], None] | None = None
) -> list[StatementReport]:
    """A :class:`StatementReport` for every statement of :data:`LISTED`, in order.

    ``progress`` is called with each statement's id as its checks start.
    """
    reports = []
    for statement in LISTED:
        if progress is not None:
            progress(statement.id)
        reports.append(report_statement(statement.id, instances=instances, attempts=attempts, seed=seed))
    return reports


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


def render_text(reports: list[StatementReport]) -> str:
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
            lines.append(f"  proof steps: {report.steps_verified}/{len(s.steps)} verified symbolically")
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


def render_json(reports: list[StatementReport]) -> str:
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
                "steps": {"total": len(s.steps), "verified": report.steps_verified, "failed": list(report.steps_failed)},
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
