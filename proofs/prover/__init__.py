"""The prover room: z3-backed sensitivity and monotonicity, exact search, black-box falsifiers."""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._falsify": ("FalsificationResult", "exhaustive_check", "falsify", "falsify_privacy"),
    "._monotone": ("MonotonicityResult", "prove_monotone"),
    "._range_sensitivity": ("RangeSensitivityResult", "RangeWitness", "prove_range_sensitivity"),
    "._sensitivity": ("SensitivityResult", "Witness", "prove_sensitivity"),
}

if _typing.TYPE_CHECKING:
    from ._falsify import FalsificationResult, exhaustive_check, falsify, falsify_privacy
    from ._monotone import MonotonicityResult, prove_monotone
    from ._range_sensitivity import RangeSensitivityResult, RangeWitness, prove_range_sensitivity
    from ._sensitivity import SensitivityResult, Witness, prove_sensitivity
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "FalsificationResult",
    "MonotonicityResult",
    "RangeSensitivityResult",
    "RangeWitness",
    "SensitivityResult",
    "Witness",
    "exhaustive_check",
    "falsify",
    "falsify_privacy",
    "prove_monotone",
    "prove_range_sensitivity",
    "prove_sensitivity",
]
