"""A certificate's recorded witnesses and counterexamples, decoded back into :class:`Witness` values for display."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import DATASET_SIZE, rational_from_text

from ..prover._sensitivity import Witness
from ._inputs import decode_output as _output
from ._inputs import decode_value as _decode

__all__ = ["recorded_pair"]


def recorded_pair(claim: dict[str, Any], key: str) -> Witness | None:
    """The ``witness`` or ``counterexample`` recorded in a sensitivity claim, as a :class:`Witness` (claim attached
    to a counterexample), or None when there is none."""
    pair = claim.get(key)
    if not pair:
        return None
    claimed = claim.get("claimed") if key == "counterexample" else None
    return Witness(
        tuple(_decode(pair["dataset1"])),
        tuple(_decode(pair["dataset2"])),
        _output(pair["output"]),
        rational_from_text(pair["difference"], name="difference") if isinstance(pair["difference"], str) else Fraction(pair["difference"]),
        int(pair["size"]),
        claimed=None if claimed is None else sympy.sympify(claimed, locals={"n": DATASET_SIZE}),
    )
