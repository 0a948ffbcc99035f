"""The report's plot: the exact output distribution on the witness pair, and the privacy loss per output.

The distribution of the mechanism on the sensitivity witness ``D`` (or the
counterexample) and its neighbour ``D'`` is computed exactly from the
certificate's own inputs, over the certificate's outputs and base measure;
values become floats for drawing only.  The certified ε drawn on the loss
panel is the one the report states, evaluated at the pair's size ``n`` when it
depends on ``n``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from expmech.impl import ExponentialMechanism
from expmech.spec import ExpMechError, quality_from_json, rational_from_text

from ..make._build import Certificate
from ..format._inputs import decode_output as _output
from ..format._inputs import decode_value as _decode

__all__ = ["Series", "plot_png", "witness_series"]

_MAX_TICK_LABELS = 40
_MAX_BARS = 200  # more outputs are drawn as steps
_EXACT_POINTS = 64  # more outputs get their floats in one vectorised pass


@dataclass(frozen=True)
class Series:
    """What the plot draws: output labels, both exact distributions (as floats), the loss per output, and ε at n."""

    labels: list[str]
    p1: list[float]
    p2: list[float]
    loss: list[float]
    epsilon_at_n: float | None
    epsilon_label: str | None
    unit: str = "outputs"


def witness_series(certificate: Certificate, *, epsilon_label: str | None, epsilon_at_n: float | None) -> Series | None:
    """The series for a certificate whose sensitivity claim records a witness or counterexample pair, else None.

    Only quality functions of the spec language (not log-likelihoods) are drawn.
    """
    predicate = certificate.statement["predicate"]
    claim = next((c for c in predicate["claims"] if c["id"] == "sensitivity"), None)
    pair = claim and (claim.get("witness") or claim.get("counterexample"))
    if not pair or predicate["quality"].get("kind") not in (None, "quality"):
        return None
    try:
        if predicate["mechanism"]["range"]["kind"] in ("RationalRange", "IntRange"):
            from ..make._ranges import range_series

            data = range_series(predicate, _decode(pair["dataset1"]), _decode(pair["dataset2"]))
            return Series(data["labels"], data["p1"], data["p2"], data["loss"], epsilon_at_n, epsilon_label, "cells of the range")
        quality = quality_from_json(predicate["quality"], check_sha256=False)
        outputs = [_output(r) for r in predicate["mechanism"]["range"]["outputs"]]
        measure = dict(zip(outputs, (rational_from_text(m) for m in predicate["mechanism"]["range"]["base_measure"])))
        mech = ExponentialMechanism(
            quality, epsilon=rational_from_text(predicate["mechanism"]["epsilon0"]), outputs=outputs, base_measure=measure
        )
        d1, d2 = _decode(pair["dataset1"]), _decode(pair["dataset2"])
        p1, p2 = mech.distribution(d1), mech.distribution(d2)
    except (ExpMechError, KeyError, TypeError, ValueError):
        return None
    if len(outputs) > _EXACT_POINTS:
        return _many(outputs, measure, p1, p2, epsilon_label=epsilon_label, epsilon_at_n=epsilon_at_n)
    losses = [0.0 if measure[r] == 0 else abs(float(p1.probability(r).log()) - float(p2.probability(r).log())) for r in outputs]
    return Series(
        labels=[str(r) for r in outputs],
        p1=[float(p1.probability(r)) for r in outputs],
        p2=[float(p2.probability(r)) for r in outputs],
        loss=losses,
        epsilon_at_n=epsilon_at_n,
        epsilon_label=epsilon_label,
    )


def _many(outputs: list[Any], measure: dict[Any, Any], p1: Any, p2: Any, *, epsilon_label: str | None, epsilon_at_n: float | None) -> Series:
    """The series of many outputs in one vectorised pass (floats for drawing only).

    ``ln p1(r) − ln p2(r) = (e1(r) − e2(r)) − (ln Z1 − ln Z2)`` with ``e = ε·q``: the
    normalisers' part is read once, exactly, at one output of positive measure.
    """
    first, second = p1.approximate(), p2.approximate()
    e1, e2 = p1.exponents, p2.exponents
    reference = next(i for i, r in enumerate(outputs) if measure[r] != 0)
    r0 = outputs[reference]
    shift = float(e1[reference] - e2[reference]) - (float(p1.probability(r0).log()) - float(p2.probability(r0).log()))
    losses = [0.0 if measure[r] == 0 else abs(float(e1[i] - e2[i]) - shift) for i, r in enumerate(outputs)]
    return Series([str(r) for r in outputs], [first[r] for r in outputs], [second[r] for r in outputs], losses, epsilon_at_n, epsilon_label)


#: Tick labels longer than this are shortened to their ends (a 300-digit output would squeeze the axes to nothing).
_MAX_TICK_CHARS = 15


def _tick(label: str) -> str:
    """``label`` as an axis tick: as it is up to :data:`_MAX_TICK_CHARS` characters, else its first and last 7 around "…"."""
    return label if len(label) <= _MAX_TICK_CHARS else f"{label[:7]}…{label[-7:]}"


def plot_png(series: Series) -> bytes | None:
    """The two-panel PNG (None when matplotlib is not installed)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    figure, (top, bottom) = plt.subplots(2, 1, figsize=(8, 6), constrained_layout=True)
    positions = list(range(len(series.labels)))
    width = 0.4
    many = len(positions) > _MAX_BARS  # thousands of bars take matplotlib a minute: steps draw the same at once
    if many:
        top.step(positions, series.p1, where="mid", label="p_D(r)")
        top.step(positions, series.p2, where="mid", label="p_D'(r)")
    else:
        top.bar([p - width / 2 for p in positions], series.p1, width, label="p_D(r)")
        top.bar([p + width / 2 for p in positions], series.p2, width, label="p_D'(r)")
    top.set_title("exact output distribution on D and its neighbour D'" + ("" if series.unit == "outputs" else f" ({series.unit})"))
    top.legend(loc="upper right" if many else "best")
    if many:
        bottom.step(positions, series.loss, where="mid", color="tab:green", label="|ln p_D(r) − ln p_D'(r)|")
    else:
        bottom.bar(positions, series.loss, color="tab:green", label="|ln p_D(r) − ln p_D'(r)|")
    if series.epsilon_at_n is not None and series.epsilon_label is not None:
        bottom.axhline(series.epsilon_at_n, color="tab:red", linestyle="--", label=series.epsilon_label)
    bottom.set_title("privacy loss per output")
    bottom.legend(loc="upper right" if many else "best")
    for axis in (top, bottom):
        if len(positions) <= _MAX_TICK_LABELS:
            axis.set_xticks(positions)
            axis.set_xticklabels([_tick(label) for label in series.labels], rotation=60, fontsize=7)
        else:
            axis.set_xlabel(f"{len(positions)} {series.unit}")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return buffer.getvalue()
