"""The prover room: z3-backed sensitivity and monotonicity, exact search, black-box falsifiers."""

from ._falsify import FalsificationResult, exhaustive_check, falsify, falsify_privacy
from ._monotone import MonotonicityResult, prove_monotone
from ._sensitivity import SensitivityResult, Witness, prove_sensitivity

__all__ = [
    "FalsificationResult",
    "MonotonicityResult",
    "SensitivityResult",
    "Witness",
    "exhaustive_check",
    "falsify",
    "falsify_privacy",
    "prove_monotone",
    "prove_sensitivity",
]
