"""A REFUTED claim's counterexample, re-evaluated: a sensitivity's change above the claimed Δq at its size, or
monotonicity's q rising at one output and falling at another.  Loaded for a certificate with a refuted claim only.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ._context import Rejected
from ._evidence import pair_of, quality_at, read_size
from ._terms import evaluate

__all__ = ["counterexample"]


def counterexample(run: Any, claim: dict[str, Any]) -> None:
    """Rejected unless the claim's counterexample re-evaluates to what refutes it (see the module docstring)."""
    quality, found = run.statement.quality, claim.get("counterexample")
    if not isinstance(found, dict):
        raise Rejected(None, "REFUTED without a counterexample")
    first, second = pair_of(quality, found, "counterexample", run.replace)
    if claim["id"] == "sensitivity":
        output = quality.output(found.get("output"), "counterexample.output")
        q1, q2, claimed = quality_at(quality, first, output), quality_at(quality, second, output), run.claimed(claim)
        limit = evaluate(run.value(claimed, "claimed"), {"n": Fraction(first.total())}) if claimed is not None else None
        if q1 is None or q2 is None or limit is None or not abs(q1 - q2) > limit or read_size(found.get("size"), "counterexample.size") != first.total():  # type: ignore[operator]
            raise Rejected(None, "the counterexample does not re-evaluate to a change above the claim at its size")
        return
    up, down = quality.output(found.get("rises_at"), "rises_at"), quality.output(found.get("falls_at"), "falls_at")
    values = [quality_at(quality, d, r) for d in (first, second) for r in (up, down)]
    if None in values or not (values[2] > values[0] and values[3] < values[1]):  # type: ignore[operator]
        raise Rejected(None, "the counterexample does not re-evaluate to q rising at one output and falling at the other")
