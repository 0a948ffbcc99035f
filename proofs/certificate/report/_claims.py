"""A certificate's recorded witnesses and counterexamples, decoded back into :class:`Witness` values for display."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import DATASET_SIZE, Multiset, rational_from_text

from ...prover._sensitivity import Witness
from ..format._inputs import decode_output as _output
from ..format._inputs import decode_dataset
from ..format._inputs import decode_value as _decode

__all__ = ["recorded_pair"]


def recorded_pair(claim: dict[str, Any], key: str) -> Witness | None:
    """The ``witness`` or ``counterexample`` recorded in a sensitivity claim, as a :class:`Witness` (claim attached
    to a counterexample), or None when there is none."""
    pair = claim.get(key)
    if not pair:
        return None
    claimed = claim.get("claimed") if key == "counterexample" else None
    first, second = decode_dataset(pair["dataset1"]), decode_dataset(pair["dataset2"])
    return Witness(
        first if isinstance(first, Multiset) else tuple(first),
        second if isinstance(second, Multiset) else tuple(second),
        _output(pair["output"]),
        rational_from_text(pair["difference"], name="difference") if isinstance(pair["difference"], str) else Fraction(pair["difference"]),
        int(_decode(pair["size"])),
        claimed=None if claimed is None else sympy.sympify(claimed, locals={"n": DATASET_SIZE}),
    )
