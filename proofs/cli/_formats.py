"""The outputs of ``expmech verify``: text, JSON, SARIF 2.1.0 and JUnit XML.

SARIF results carry a physical location — the ``pyproject.toml`` line of the
entry, or the file and line where the catalogue entry or mechanism is
defined — relative to the current directory or the project root, so code
scanning can point at it.  JUnit class names are relative and stable: the
``pyproject.toml`` path or the dotted ``module.attr`` of the target.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from expmech.spec.internal import approximate, readable

from .._outcome import Status
from ..certificate.report._claims import recorded_pair
from ._verify import Verdict, exit_code

__all__ = ["render", "summary_line", "verdict_lines"]


def _last_line(error: str | None) -> str:
    return error.strip().splitlines()[-1] if error and error.strip() else ""


def verdict_lines(verdict: Verdict) -> list[str]:
    """The text lines of one verdict, as ``expmech verify`` prints them the moment it is decided."""
    return _lines(verdict)


def summary_line(verdicts: list[Verdict]) -> str:
    """The last line of the text report: the count of each status and the exit code."""
    counts: dict[str, int] = {}
    for v in verdicts:
        key = "ERROR" if v.status is None else str(v.status)
        counts[key] = counts.get(key, 0) + 1
    expected = sum(1 for v in verdicts if v.as_expected)
    also = f" ({expected} as expected)" if expected else ""
    return ", ".join(f"{count} {key}" for key, count in sorted(counts.items())) + also + f" — exit code {exit_code(verdicts)}"


def _lines(verdict: Verdict) -> list[str]:
    target = verdict.target
    if verdict.certificate is None:
        kind = {"usage": "usage error", "inconclusive": "inconclusive"}.get(verdict.failure or "", "internal error")
        return [f"ERROR    {target.name}: {kind}: {_last_line(verdict.error)}"]
    sensitivity = verdict.claim("sensitivity") or {}
    status = verdict.status
    head = f"{status!s:8} {target.name}  "
    relation = sensitivity.get("claimed") or sensitivity.get("bound")
    if status is Status.PROVED:
        tight = "tight" if sensitivity.get("tight") else "not shown tight"
        lines = [head + f"ε = {verdict.certificate.epsilon}  (Δq = {relation}, {tight}; {target.neighbours.value}, ε₀ = {readable(target.epsilon)})"]
    else:
        lines = [head + f"no ε-DP claim: {sensitivity.get('reason', '')}"]
    if target.expected is not None:
        lines.append(f"         {'as expected' if verdict.as_expected else 'NOT as expected'}: recorded as {target.expected}")
    traced = (verdict.certificate.statement["predicate"]["quality"].get("trace") if verdict.certificate is not None else None)
    if traced:
        lines.append(f"         traced from Python: the claims are about {traced['expression']} (equal to the function on {traced['datasets_tested']} datasets)")
    truthfulness = verdict.claim("truthfulness")
    if truthfulness is not None:
        approx = Fraction(truthfulness["utility_bound"]) * Fraction(math.expm1(float(Fraction(truthfulness["epsilon"]))))
        lines.append(
            f"         truthfulness {truthfulness['status']}: no report gains more than (e^ε − 1)·U = {truthfulness['bound']} ≈ {approximate(approx)}"
        )
    counterexample = recorded_pair(sensitivity, "counterexample")
    if counterexample is not None:
        lines.append(f"         counterexample: {counterexample}")
    return lines


def _text(verdicts: list[Verdict]) -> str:
    lines = [line for v in verdicts for line in _lines(v)]
    lines.append(summary_line(verdicts))
    return "\n".join(lines)


def _json(verdicts: list[Verdict]) -> str:
    items = []
    for v in verdicts:
        sensitivity = v.claim("sensitivity") or {}
        location = v.target.location
        items.append(
            {
                "name": v.target.name,
                "source": v.target.source,
                "location": None if location is None else {"uri": location.uri, "line": location.line},
                "status": None if v.status is None else str(v.status),
                "error": v.failure,
                "epsilon0": readable(v.target.epsilon),
                "epsilon": None if v.certificate is None else v.certificate.epsilon,
                "sensitivity": sensitivity.get("bound"),
                "claimed": sensitivity.get("claimed"),
                "tight": sensitivity.get("tight"),
                "counterexample": sensitivity.get("counterexample"),
                "reason": sensitivity.get("reason") if v.error is None else _last_line(v.error),
                "digest": None if v.certificate is None else v.certificate.digest,
                "expected": None if v.target.expected is None else str(v.target.expected),
                "as_expected": v.as_expected if v.target.expected is not None else None,
            }
        )
    return json.dumps({"exit_code": exit_code(verdicts), "mechanisms": items}, indent=2, ensure_ascii=False)


_RULES = [
    ("expmech/refuted", "A claimed sensitivity or ε-DP guarantee is violated by a concrete counterexample"),
    ("expmech/inconclusive", "No proof and no counterexample: no ε-DP claim is made"),
    ("expmech/proved", "ε-differential privacy proved"),
    ("expmech/as-expected", "The verdict the mechanism is recorded with (e.g. a published claim known to be wrong, refuted)"),
    ("expmech/usage-error", "The mechanism cannot be verified as configured"),
    ("expmech/internal-error", "The verifier failed on this mechanism"),
]
_LEVEL = {Status.UNKNOWN: "warning", Status.TESTED: "warning", Status.BOUNDED: "note"}


def _rule(verdict: Verdict) -> tuple[str, str]:
    status = verdict.status
    if status is None:
        return ("expmech/usage-error", "error") if verdict.failure == "usage" else (
            ("expmech/inconclusive", "warning") if verdict.failure == "inconclusive" else ("expmech/internal-error", "error")
        )
    if verdict.as_expected and status is not Status.PROVED:
        return "expmech/as-expected", "note"
    if verdict.unexpected and status is not Status.REFUTED:
        return "expmech/refuted", "error"
    if status is Status.REFUTED:
        return "expmech/refuted", "error"
    if status is Status.PROVED:
        return "expmech/proved", "none"
    return "expmech/inconclusive", _LEVEL[status]


def _location(verdict: Verdict) -> dict[str, Any]:
    target = verdict.target
    location: dict[str, Any] = {
        "logicalLocations": [{"name": target.name, "fullyQualifiedName": target.source, "kind": "function"}],
    }
    if target.location is not None:
        artifact: dict[str, Any] = {"uri": target.location.uri}
        if not target.location.uri.startswith("file:"):
            artifact["uriBaseId"] = "%SRCROOT%"
        location["physicalLocation"] = {"artifactLocation": artifact, "region": {"startLine": target.location.line}}
    return location


def _sarif(verdicts: list[Verdict], version: str) -> str:
    index = {rule: i for i, (rule, _) in enumerate(_RULES)}
    results = []
    for v in verdicts:
        rule, level = _rule(v)
        text = "; ".join(_lines(v)) if v.certificate is not None else f"{v.target.name}: {_last_line(v.error)}"
        results.append(
            {
                "ruleId": rule,
                "ruleIndex": index[rule],
                "level": level,
                "kind": "pass" if v.status is Status.PROVED or v.as_expected else "fail",
                "message": {"text": " ".join(text.split())},
                "locations": [_location(v)],
            }
        )
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "expmech",
                        "version": version,
                        "informationUri": "https://pypi.org/project/expmech/",
                        "rules": [{"id": rule, "shortDescription": {"text": text}} for rule, text in _RULES],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _junit(verdicts: list[Verdict]) -> str:
    failures = sum(1 for v in verdicts if (v.status is Status.REFUTED and not v.as_expected) or v.unexpected)
    errors = sum(1 for v in verdicts if v.status is None)
    skipped = sum(1 for v in verdicts if v.status is not None and not v.as_expected and not v.unexpected and v.status not in (Status.PROVED, Status.REFUTED))
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites><testsuite name="expmech verify" tests="{len(verdicts)}" failures="{failures}" errors="{errors}" skipped="{skipped}">',
    ]
    for v in verdicts:
        target = v.target
        where = "" if target.location is None or target.location.uri.startswith("file:") else (
            f" file={quoteattr(target.location.uri)} line={quoteattr(str(target.location.line))}"
        )
        lines.append(f"  <testcase classname={quoteattr(target.group)} name={quoteattr(target.name)}{where}>")
        text = escape("\n".join(_lines(v)))
        if v.as_expected:
            lines.append(f"    <system-out>{text}</system-out>")
        elif v.status is Status.REFUTED or v.unexpected:
            lines.append(f"    <failure message={quoteattr(str(v.status) if not v.unexpected else f'{v.status}, expected {v.target.expected}')}>{text}</failure>")
        elif v.status is None:
            lines.append(f"    <error message={quoteattr((v.failure or 'internal') + ' error')}>{escape(v.error or '')}</error>")
        elif v.status is not Status.PROVED:
            lines.append(f"    <skipped message={quoteattr(str(v.status) + ': no ε-DP claim')}/>")
        lines.append("  </testcase>")
    lines.append("</testsuite></testsuites>")
    return "\n".join(lines)


def render(verdicts: list[Verdict], fmt: str, *, version: str = "") -> str:
    """The report in ``text``, ``json``, ``sarif`` (2.1.0) or ``junit`` (XML)."""
    if fmt == "json":
        return _json(verdicts)
    if fmt == "sarif":
        return _sarif(verdicts, version)
    if fmt == "junit":
        return _junit(verdicts)
    return _text(verdicts)
