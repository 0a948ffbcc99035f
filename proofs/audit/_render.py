"""Audit reports: text for a terminal, JSON for machines, an HTML page with plots for people."""

from __future__ import annotations

import base64
import html
import io
import json
import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ._status import AuditStatus

if TYPE_CHECKING:
    from ._result import AuditResult, CellEvidence, Deviation

__all__ = ["audit_json", "render_html", "render_json", "render_text", "verdict_line"]


def _number(value: float) -> str:
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.4g}"


def _rational(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _outcome(value: Any) -> str:
    return repr(value)


def _precise(value: float) -> str:
    """A loss to enough digits that an excess over ε shows (1.0000085, not 1)."""
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return f"{value:.10g}"


def verdict_line(result: AuditResult) -> str:
    """One line: the status and what decided it (used by the reports and the CLI's progress lines)."""
    if result.status is AuditStatus.VIOLATION:
        reason = f"the library's promised ε is exceeded exactly: {result.violations[0].exact}"
        if result.rejected:
            reason += f"; the sampler test also rejected ({result.rejected_by})"
    elif result.rejected:
        reason = f"rejected by the {result.rejected_by} after {result.draws} draws"
    else:
        reason = f"neither test rejected in {result.draws} draws"
        if result.detectable is not None and math.isfinite(result.detectable.size):
            reason += f"; detectable TV deviation {result.detectable.size:.3g}"
    return f"{result.status!s:10} {result.name} ({reason})"


def _sequential_alpha(result: AuditResult) -> Fraction:
    return result.sequential_alpha if result.sequential_alpha is not None else result.alpha


def render_text(results: Sequence[AuditResult]) -> str:
    """A plain-text report of each result: verdict, statistic, power, evidence, privacy, adapter findings."""
    blocks = []
    for result in results:
        threshold = 1 / _sequential_alpha(result)
        lines = [verdict_line(result), f"  reference: {result.reference}"]
        if result.seed is not None:
            lines.append(f"  seed: {result.seed} (simulated power, detectable deviation and the chi-square's calibration)")
        lines.append(
            f"  draws: {result.draws} of at most {result.max_draws}; e-value {_number(result.e_value)} "
            f"(ln {_number(result.log_e_value)}) against {_rational(threshold)}; "
            f"anytime-valid p-value {_number(result.p_value)}"
        )
        if result.sequential_alpha is not None and result.sequential_alpha != result.alpha:
            lines.append(
                f"  false-alarm rate of the verdict <= α = {_rational(result.alpha)}: the e-process at "
                f"α/2 at any stopping time (Ville's inequality) and the fixed-N chi-square at max_draws at α/2 (Bonferroni)"
            )
        else:
            lines.append(f"  false-alarm rate <= α = {_rational(result.alpha)} at any stopping time (Ville's inequality)")
        for line in _detectable_lines(result):
            lines.append(line)
        lines.append(f"  the data favour: {result.closest}")
        if result.power:
            first = result.power[0]
            lines.append(
                f"  power within {first.max_draws} draws ({first.replicates} simulated runs each, same α):"
            )
            for p in result.power:
                median = "—" if math.isinf(p.median_draws) else f"{p.median_draws:.0f}"
                lines.append(
                    f"    {p.alternative:28} {p.power:5.2f}  median draws {median:>6}  KL {_number(p.divergence)} nats/draw"
                )
        if result.evidence:
            lines.append("  evidence (outcome: drawn / expected under the exact law, exact P in [lo, hi]):")
            for cell in result.evidence:
                lines.append(
                    f"    {_outcome(cell.outcome):>16}: {cell.count:>7} / {cell.expected:10.2f}   "
                    f"P ∈ [{float(cell.lo):.6g}, {float(cell.hi):.6g}]"
                )
        if result.chi_square is not None:
            c = result.chi_square
            if c.decides:
                lines.append(
                    f"  fixed-N chi-square at max_draws: {c.statistic:.4g} on {c.dof} dof, Monte Carlo p = {c.pvalue:.3g} "
                    f"({c.replicates} null runs of the exact law) against α/2 = {c.level:.3g}"
                )
            else:
                lines.append(
                    f"  for comparison, asymptotic chi-square on the draws used: {c.statistic:.4g} on {c.dof} dof, "
                    f"p = {c.pvalue:.3g}"
                )
        if result.privacy is not None:
            q = result.privacy
            direction = "first/neighbour" if q.larger_on_first else "neighbour/first"
            lines.append(
                f"  privacy loss: >= {_number(q.lower_bound)} at confidence {q.confidence:.4g} "
                f"(outcome {_outcome(q.outcome)}, {direction}, counts {q.counts[0]}/{q.counts[1]} of {q.draws} each); "
                f"exact loss {_precise(q.exact_loss)} (at that outcome {_precise(q.exact_loss_at_outcome)})"
                + ("; EXCEEDS the exact loss" if q.exceeds_exact else "")
            )
        for key, value in result.mapping.items():
            lines.append(f"  mapping: {key}: {value}")
        for finding in result.findings:
            mark = "VIOLATION" if finding.violation else "ok"
            lines.append(f"  exact check [{mark}]: {finding.question}: library {finding.library}; exactly {finding.exact}")
        for note in result.notes:
            lines.append(f"  note: {note}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _detectable_lines(result: AuditResult) -> list[str]:
    lines = []
    for label, deviation, unit in (
        ("TV deviation", result.detectable, ""),
        ("privacy-loss excess", result.detectable_excess, " nats"),
    ):
        if deviation is None:
            continue
        if math.isfinite(deviation.size):
            lines.append(
                f"  detectable {label}: >= {deviation.size:.3g}{unit} caught with power {deviation.power:.2f} "
                f"({deviation.replicates} simulated runs of this configuration; {deviation.shape})"
            )
        else:
            lines.append(f"  detectable {label}: none reached power 0.8 within {result.max_draws} draws ({deviation.shape})")
    return lines


def _deviation_json(deviation: Deviation | None) -> dict[str, Any] | None:
    if deviation is None:
        return None
    return {"size": _float(deviation.size), "power": deviation.power, "replicates": deviation.replicates, "shape": deviation.shape}


def _cell_json(cell: CellEvidence) -> dict[str, Any]:
    return {
        "outcome": _jsonable(cell.outcome),
        "count": cell.count,
        "expected": cell.expected,
        "probability": {"lo": _rational(cell.lo), "hi": _rational(cell.hi), "approx": float((cell.lo + cell.hi) / 2)},
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, Fraction):
        return _rational(value)
    if isinstance(value, int | float | str | bool) or value is None:
        return value
    return repr(value)


def _float(value: float) -> float | str:
    return value if math.isfinite(value) else ("inf" if value > 0 else "-inf")


def audit_json(result: AuditResult) -> dict[str, Any]:
    """One result as a JSON-ready dict (rationals as ``"p/q"`` strings, infinities as ``"inf"``)."""
    return {
        "name": result.name,
        "reference": result.reference,
        "status": result.status.name,
        "verdict": verdict_line(result),
        "rejected": result.rejected,
        "rejected_by": result.rejected_by,
        "violation": bool(result.violations),
        "seed": result.seed,
        "draws": result.draws,
        "max_draws": result.max_draws,
        "alpha": _rational(result.alpha),
        "sequential_alpha": _rational(_sequential_alpha(result)),
        "detectable_tv": _deviation_json(result.detectable),
        "detectable_privacy_excess": _deviation_json(result.detectable_excess),
        "statistic": {"name": result.statistic, "log_e_value": _float(result.log_e_value)},
        "e_value": _float(result.e_value),
        "p_value": result.p_value,
        "closest": result.closest,
        "power": [
            {
                "alternative": p.alternative,
                "description": p.description,
                "power": p.power,
                "median_draws": _float(p.median_draws),
                "max_draws": p.max_draws,
                "replicates": p.replicates,
                "kl_nats_per_draw": _float(p.divergence),
            }
            for p in result.power
        ],
        "evidence": [_cell_json(c) for c in result.evidence],
        "chi_square": None
        if result.chi_square is None
        else {
            "statistic": _float(result.chi_square.statistic),
            "dof": result.chi_square.dof,
            "p_value": result.chi_square.pvalue,
            "cells": result.chi_square.cells,
            "decides": result.chi_square.decides,
            "level": result.chi_square.level,
            "replicates": result.chi_square.replicates,
        },
        "privacy": None
        if result.privacy is None
        else {
            "outcome": _jsonable(result.privacy.outcome),
            "larger_on_first": result.privacy.larger_on_first,
            "draws": result.privacy.draws,
            "counts": list(result.privacy.counts),
            "lower_bound": _float(result.privacy.lower_bound),
            "confidence": result.privacy.confidence,
            "exact_loss": _float(result.privacy.exact_loss),
            "exact_loss_text": _precise(result.privacy.exact_loss),
            "exact_loss_at_outcome": _float(result.privacy.exact_loss_at_outcome),
            "exceeds_exact": result.privacy.exceeds_exact,
        },
        "mapping": dict(result.mapping),
        "findings": [
            {"question": f.question, "library": f.library, "exact": f.exact, "violation": f.violation} for f in result.findings
        ],
        "notes": list(result.notes),
        "trajectory": [_float(v) for v in result.trajectory],
    }


def render_json(results: Sequence[AuditResult]) -> str:
    """All results as one JSON document ``{"audits": [...]}``."""
    return json.dumps({"audits": [audit_json(r) for r in results]}, indent=2, ensure_ascii=False)


def _plots(result: AuditResult) -> str | None:
    """A base64 PNG: empirical vs exact probabilities, and ln E_t over the draws against ln(1/α)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    cells = sorted(result.evidence, key=lambda c: float(c.hi), reverse=True)
    labels = [_outcome(c.outcome) for c in cells]
    positions = range(len(cells))
    draws = max(result.draws, 1)
    left.bar([p - 0.2 for p in positions], [float((c.lo + c.hi) / 2) for c in cells], width=0.4, label="exact")
    left.bar([p + 0.2 for p in positions], [c.count / draws for c in cells], width=0.4, label=f"empirical ({result.draws} draws)")
    left.set_xticks(list(positions), labels, rotation=60, fontsize=7)
    left.set_ylabel("probability")
    left.set_title("empirical vs exact")
    left.legend(fontsize=8)
    trajectory = [v if math.isfinite(v) else float("nan") for v in result.trajectory]
    right.plot(range(1, len(trajectory) + 1), trajectory, label="ln E_t")
    threshold = math.log(1 / float(_sequential_alpha(result)))
    right.axhline(threshold, color="red", linestyle="--", label="ln(2/α): reject above" if result.sequential_alpha != result.alpha else "ln(1/α): reject above")
    finite = [v for v in trajectory if math.isfinite(v)]
    low = min(finite + [0.0])
    high = max(finite + [threshold])
    right.set_ylim(low - 1, high + 1)
    right.set_xlabel("draw")
    right.set_title("sequential statistic")
    right.legend(fontsize=8)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def render_html(results: Sequence[AuditResult]) -> str:
    """A self-contained HTML page: each result's text report and its two plots (inline PNG)."""
    sections = []
    for result in results:
        image = _plots(result)
        picture = (
            f'<img alt="empirical vs exact probabilities and the sequential statistic" src="data:image/png;base64,{image}">'
            if image
            else "<p>(plots need matplotlib: pip install expmech[report])</p>"
        )
        colour = "#b00" if result.rejected or result.violations else "#070"
        sections.append(
            f'<section><h2 style="color:{colour}">{html.escape(result.status.name)} — {html.escape(result.name)}</h2>'
            f"<p>{html.escape(verdict_line(result))}</p>"
            f"{picture}<pre>{html.escape(render_text([result]))}</pre></section>"
        )
    body = "\n".join(sections)
    return (
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>expmech audit</title>"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:auto} pre{background:#f6f6f6;padding:8px;"
        "overflow-x:auto}</style></head>"
        f"<body><h1>expmech audit</h1>{body}</body></html>\n"
    )
