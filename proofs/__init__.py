"""expmech.proofs: evidence — sensitivity proofs, falsifiers, conformance, the command."""

from ._falsify import FalsificationResult, exhaustive_check, falsify, falsify_privacy
from ._monotone import MonotonicityResult, prove_monotone
from ._outcome import Status
from ._sensitivity import SensitivityResult, Witness, prove_sensitivity

__all__ = [
    "FalsificationResult",
    "MonotonicityResult",
    "SensitivityResult",
    "Status",
    "Witness",
    "exhaustive_check",
    "falsify",
    "falsify_privacy",
    "prove_monotone",
    "prove_sensitivity",
]
