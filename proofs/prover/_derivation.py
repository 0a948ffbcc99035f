"""The derivation the prover records for a PROVED sensitivity bound, as the kernel reads it.

Each lifting rule the prover applies leaves a :class:`Step`: the rule's name,
the bound it concluded, its exact data (``"p/q"`` strings) and its premises,
each at a position *relative* to the step's subterm.  Steps are keyed by the
subterm, not its position, so a lift the prover caches is one step reused
wherever the subterm occurs; :func:`derivation_json` walks the steps from the
root, giving each node its absolute position (``term``), text and id, in the
format of :mod:`expmech.proofs.checker`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import InvalidArgument, Neighbours, QualityFunction, rational_text
from expmech.spec.internal import expression_to_json

from ._text import term_text

__all__ = ["Step", "derivation_json", "weakened"]


@dataclass(frozen=True, eq=False)
class Step:
    """One rule application: ``premises`` are ``(relative position, step)``; ``args`` marks a partial sum of an Add."""

    rule: str
    bound: sympy.Expr
    data: Mapping[str, Any] = field(default_factory=dict)
    premises: tuple[tuple[tuple[int, ...], Step], ...] = ()
    args: tuple[int, ...] | None = None


def number(value: Fraction) -> str:
    """A rational as the kernel's data reads it."""
    return rational_text(value)


def weakened(step: Step, bound: sympy.Expr) -> Step:
    """``step`` under a ``weaken`` node concluding ``bound`` (itself when the bound is the same expression)."""
    if bound == step.bound:
        return step
    return Step("weaken", bound, {}, (((), step),), step.args)


def derivation_json(quality: QualityFunction, neighbours: Neighbours, root: Step, *, start: int) -> dict[str, Any] | None:
    """The JSON derivation of ``root`` (about ``quality.expr``) for n >= ``start``; None if a bound cannot be written
    or a premise's position does not exist (a result without a derivation is not PROVED to a checker)."""
    counter = [0]

    def node(step: Step, path: tuple[int, ...], expr: sympy.Basic) -> dict[str, Any]:
        counter[0] += 1
        out: dict[str, Any] = {
            "id": str(counter[0]),
            "term": list(path),
            "text": term_text(expr, step.args),
            "case": {"from": start},
            "rule": step.rule,
            "bound": expression_to_json(step.bound),
            "data": dict(step.data),
        }
        if step.args is not None:
            out["args"] = list(step.args)
        premises = []
        for relative, premise in step.premises:
            child = expr
            for index in relative:
                if not 0 <= index < len(child.args):
                    raise InvalidArgument(f"a step's premise at {relative} is outside {child}", parameter="step", value=relative)
                child = child.args[index]
            premises.append(node(premise, path + relative, child))
        out["premises"] = premises
        return out

    try:
        root_json = node(root, (), quality.expr)
    except InvalidArgument:
        return None
    return {"format": 1, "claim": "sensitivity", "relation": neighbours.value, "start": start, "bound": root_json["bound"], "root": root_json}
