"""expmech.proofs: evidence — sensitivity proofs, falsifiers, conformance, the command."""

from ._certificate import Certificate, certify
from ._check import CheckReport, check_certificate
from ._falsify import FalsificationResult, exhaustive_check, falsify, falsify_privacy
from ._monotone import MonotonicityResult, prove_monotone
from ._outcome import Status
from ._sensitivity import SensitivityResult, Witness, prove_sensitivity
from ._assertions import DPInconclusive, DPViolation, assert_dp, assert_sensitivity

__all__ = [
    "Certificate",
    "CheckReport",
    "DPInconclusive",
    "DPViolation",
    "FalsificationResult",
    "MonotonicityResult",
    "SensitivityResult",
    "Status",
    "Witness",
    "assert_dp",
    "assert_sensitivity",
    "certify",
    "check_certificate",
    "exhaustive_check",
    "falsify",
    "falsify_privacy",
    "prove_monotone",
    "prove_sensitivity",
]
