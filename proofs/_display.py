"""Mathematical text for proof outcomes: witnesses, counterexamples and results.

``print(result.counterexample)`` reads ``|q(D, r) − q(D', r)| = 1 > 1/2 at
D = [0, 0], D' = [0, 1], r = 0``: rationals as ``1/2``, never ``Fraction(1, 2)``.
Display only; nothing here decides anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sympy

from expmech.spec import DATASET_SIZE, Multiset
from expmech.spec.internal import readable

if TYPE_CHECKING:  # pragma: no cover
    from .prover._falsify import FalsificationResult
    from .prover._monotone import MonotonicityResult
    from .prover._sensitivity import SensitivityResult, Witness

__all__ = ["falsification_text", "monotone_text", "sensitivity_text", "witness_text"]


def _claim_at(claimed: Any, size: int) -> str:
    """The claim's value at dataset size ``size``, with the claim itself when it depends on n."""
    if isinstance(claimed, sympy.Basic) and DATASET_SIZE in claimed.free_symbols:
        return f"{claimed.subs(DATASET_SIZE, size)} (claimed {claimed} at n = {size})"
    return readable(claimed)


def witness_text(witness: Witness) -> str:
    """``|q(D, r) − q(D', r)| = d [> claim] at D = …, D' = …, r = …``."""
    text = witness.quantity.format(value=readable(witness.difference))
    if witness.claimed is not None:
        text += f" > {_claim_at(witness.claimed, witness.size)}"
    return f"{text} at D = {_dataset(witness.dataset1)}, D' = {_dataset(witness.dataset2)}, r = {readable(witness.output)}"


def _dataset(data: Any) -> str:
    """A dataset as a list, or — held by counts — as ``[5 ×4611686018427387903, 0]`` with its size."""
    if isinstance(data, Multiset):
        return f"{data} (n = {data.size})"
    return readable(list(data))


def sensitivity_text(result: SensitivityResult) -> str:
    """The verdict on Δq, then the witness or counterexample and the reason, one per line."""
    relation = result.neighbours.value
    if result.status.name == "PROVED":
        shown = result.proved_bound
        head = f"PROVED: Δq = {shown} under {relation}" + (", tight" if result.tight else ", not shown tight")
        if result.claimed is not None and result.bound is not None and result.claimed != result.bound:
            head += f" (proved bound {result.bound})"
    elif result.status.name == "REFUTED":
        head = f"REFUTED: Δq = {result.claimed} under {relation} is false"
    else:
        claim = "" if result.claimed is None else f" claimed Δq = {result.claimed}"
        head = f"{result.status.name}:{claim} under {relation}, no proof"
        if result.bounded_size is not None:
            head += f" (checked for every dataset of at most {result.bounded_size} records)"
    lines = [head]
    if result.witness is not None:
        lines.append(f"  witness: {result.witness}")
    if result.counterexample is not None:
        lines.append(f"  counterexample: {result.counterexample}")
    lines.append(f"  reason: {result.reason}")
    trace = getattr(result, "trace", None)
    if trace is not None:
        lines.append(
            f"  traced: about the expression traced from {trace.function or 'the function'}() (equal to it on {trace.datasets_tested} "
            f"generated datasets): {trace.expression}"
        )
    return "\n".join(lines)


def monotone_text(result: MonotonicityResult) -> str:
    """The verdict on monotonicity, with the counterexample when refuted."""
    head = f"{result.status.name}: monotone under {result.neighbours.value}"
    if result.direction:
        head += f" ({result.direction})"
    lines = [head]
    if result.counterexample is not None:
        d1, d2, up, down = result.counterexample
        lines.append(
            f"  counterexample: from D = {readable(list(d1))} to D' = {readable(list(d2))}, "
            f"q rises at r = {readable(up)} and falls at r = {readable(down)}"
        )
    lines.append(f"  reason: {result.reason}")
    return "\n".join(lines)


def falsification_text(result: FalsificationResult) -> str:
    """The falsifier's verdict, what it tried, and the counterexample when it found one."""
    lines = [f"{result.status.name} ({result.method}, {result.examples} examples): {result.reason}"]
    if result.counterexample is not None:
        lines.append(f"  counterexample: {result.counterexample}")
    return "\n".join(lines)
