"""The check report as JSON data: what ``expmech check --format json`` prints, one object per certificate.

Imports nothing heavy (the report is already made).
"""

from __future__ import annotations

import json
from typing import Any

from ._run import CheckReport

__all__ = ["json_text", "kernel_lines", "report_json"]


def report_json(report: CheckReport, certificate: str) -> dict[str, Any]:
    """``report`` for the certificate file ``certificate`` as JSON data.

    Keys: ``certificate``, ``outcome`` (the :class:`~._run.CheckOutcome` name),
    ``exit_code``, ``ok``, ``status``, ``epsilon``, ``summary``, ``failed``,
    ``problems``, ``notes``, ``above_max_epsilon``, ``checks`` (each
    ``{"name", "passed", "detail"}``, in the order run) and ``kernel`` (the
    proof kernel's verdict on each PROVED claim it has rules for: ``claim``,
    ``kind``, ``accepted``, ``node``, ``rule``, ``reason``, ``queries``,
    ``nodes``).
    """
    return {
        "certificate": certificate,
        "outcome": report.outcome.name,
        "exit_code": report.exit_code,
        "ok": report.ok,
        "status": report.status,
        "epsilon": report.epsilon,
        "summary": report.summary,
        "failed": report.failed,
        "problems": list(report.problems),
        "notes": list(report.notes),
        "above_max_epsilon": report.above_max_epsilon,
        "checks": [{"name": name, "passed": passed, "detail": detail} for name, passed, detail in report.checks],
        "kernel": [dict(row) for row in report.kernel],
    }


def kernel_lines(report: CheckReport) -> list[str]:
    """One line per kernel verdict of ``report``, for the text output of ``expmech check``."""
    lines = []
    for row in report.kernel:
        if row["accepted"]:
            lines.append(f"claim {row['claim']}: accepted ({row['nodes']} nodes, {row['queries']} queries of the kernel's own)")
        else:
            where = f"node {row['node']}" + (f" (rule {row['rule']})" if row.get("rule") else "") if row.get("node") is not None else "the derivation"
            lines.append(f"claim {row['claim']}: REJECTED at {where}: {row['reason']}")
    return lines


def json_text(documents: list[dict[str, Any]]) -> str:
    """The JSON document ``expmech check --format json`` prints: ``{"certificates": [...]}``."""
    return json.dumps({"certificates": documents}, indent=2, ensure_ascii=False)
