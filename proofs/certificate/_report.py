"""Human reports for certificates: Markdown and HTML, with plots when matplotlib is installed.

The plots show the exact output distribution of the mechanism on the
sensitivity witness ``D`` and its neighbour ``D'``, and the privacy loss
``|ln p_D(r) − ln p_{D'}(r)|`` per output against the certified ε.  Values are
converted to floats for drawing only.
"""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path
from typing import Any

import sympy

from expmech.impl import ExponentialMechanism
from expmech.spec import DATASET_SIZE, quality_from_json
from expmech.spec._serial import rational_from_text

from ._build import Certificate
from ._check import _decode

__all__ = ["write_report"]


def _series(certificate: Certificate) -> dict[str, Any] | None:
    predicate = certificate.statement["predicate"]
    claim = next((c for c in predicate["claims"] if c["id"] == "sensitivity"), None)
    pair = claim and (claim.get("witness") or claim.get("counterexample"))
    if not pair:
        return None
    if "range" in predicate["mechanism"]:
        from ._ranges import range_series

        return range_series(predicate, _decode(pair["dataset1"]), _decode(pair["dataset2"]))
    quality = quality_from_json(predicate["quality"])
    outputs = quality.outputs()
    measure = dict(zip(outputs, (rational_from_text(m) for m in predicate["mechanism"]["base_measure"])))
    mech = ExponentialMechanism(quality, epsilon=rational_from_text(predicate["mechanism"]["epsilon0"]), outputs=outputs, base_measure=measure)
    d1, d2 = _decode(pair["dataset1"]), _decode(pair["dataset2"])
    p1, p2 = mech.distribution(d1), mech.distribution(d2)
    losses = []
    for r in outputs:
        if measure[r] == 0:
            losses.append(0.0)
            continue
        a, b = p1.probability(r).log(), p2.probability(r).log()
        losses.append(abs(float(a) - float(b)))
    epsilon = predicate["epsilon"]
    bound = None
    if epsilon is not None:
        value = sympy.sympify(epsilon, locals={"n": DATASET_SIZE}).subs(DATASET_SIZE, len(d1))
        bound = float(value)
    return {
        "labels": [str(r) for r in outputs],
        "p1": [float(p1.probability(r)) for r in outputs],
        "p2": [float(p2.probability(r)) for r in outputs],
        "loss": losses,
        "bound": bound,
        "d1": d1,
        "d2": d2,
    }


def _plot(series: dict[str, Any]) -> bytes | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), constrained_layout=True)
    positions = range(len(series["labels"]))
    width = 0.4
    top.bar([p - width / 2 for p in positions], series["p1"], width, label="p_D(r)")
    top.bar([p + width / 2 for p in positions], series["p2"], width, label="p_D'(r)")
    top.set_title("exact output distribution on the witness D and its neighbour D'")
    top.legend()
    bottom.bar(list(positions), series["loss"], color="tab:green", label="|ln p_D(r) − ln p_D'(r)|")
    if series["bound"] is not None:
        bottom.axhline(series["bound"], color="tab:red", linestyle="--", label=f"certified ε = {series['bound']:.4g}")
    bottom.set_title("privacy loss per output")
    bottom.legend()
    for axis in (top, bottom):
        axis.set_xticks(list(positions))
        axis.set_xticklabels(series["labels"], rotation=60, fontsize=7)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return buffer.getvalue()


def write_report(certificate: Certificate, directory: Path, stem: str) -> tuple[Path, Path]:
    """Write ``stem.md`` and ``stem.html`` (plus ``stem.png`` when matplotlib is installed); return both report paths."""
    predicate = certificate.statement["predicate"]
    series = _series(certificate)
    png = _plot(series) if series else None
    if png:
        (directory / f"{stem}.png").write_bytes(png)
    lines = [
        f"# expmech certificate: {predicate['quality']['name'] or 'unnamed'}",
        "",
        f"- status: **{predicate['status']}**",
        f"- ε: **{predicate['epsilon']}**" if predicate["dp_claim"] else "- ε: no ε-DP claim is made",
        f"- ε₀ = {predicate['mechanism']['epsilon0']}, neighbours: {predicate['mechanism']['neighbours']}",
        f"- quality sha256: `{predicate['quality']['sha256']}`",
        f"- certificate digest: `{certificate.digest}`",
        "",
        "| claim | status | method | detail |",
        "|---|---|---|---|",
    ]
    for claim in predicate["claims"]:
        detail = claim.get("reason") or claim.get("epsilon") or claim.get("largest_loss_upper_bound") or ""
        lines.append(f"| {claim['id']} | {claim['status']} | {claim['method']} | {detail} |")
    for note in predicate["notes"]:
        lines += ["", f"> {note}"]
    if series:
        lines += ["", f"Witness D = {series['d1']}, D' = {series['d2']}."]
    if png:
        lines += ["", f"![distribution and privacy loss]({stem}.png)"]
    elif series:
        lines += ["", "(install matplotlib for plots: pip install matplotlib)"]
    markdown = "\n".join(lines) + "\n"
    md_path = directory / f"{stem}.md"
    md_path.write_text(markdown, encoding="utf-8")
    body = "".join(f"<p>{html.escape(line)}</p>" for line in lines if not line.startswith("![") and not line.startswith("|"))
    rows = "".join(
        f"<tr><td>{html.escape(c['id'])}</td><td>{html.escape(c['status'])}</td><td>{html.escape(c['method'])}</td></tr>" for c in predicate["claims"]
    )
    image = f'<img alt="distribution and privacy loss" src="data:image/png;base64,{base64.b64encode(png).decode()}">' if png else ""
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>expmech certificate</title></head><body>"
        f"{body}<table border='1'><tr><th>claim</th><th>status</th><th>method</th></tr>{rows}</table>{image}</body></html>\n"
    )
    html_path = directory / f"{stem}.html"
    html_path.write_text(page, encoding="utf-8")
    return md_path, html_path
