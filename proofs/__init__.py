"""expmech.proofs: evidence — sensitivity proofs, falsifiers, conformance, the command."""

from ._outcome import Status
from ._sensitivity import SensitivityResult, Witness, prove_sensitivity

__all__ = ["SensitivityResult", "Status", "Witness", "prove_sensitivity"]
