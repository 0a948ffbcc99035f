"""expmech.proofs: evidence — sensitivity proofs, falsifiers, conformance, sampler audits, the command."""

from .certificate._build import Certificate, certify
from .certificate._check import CheckOutcome, CheckReport, check_certificate
from .certificate._limits import CertificateLimits
from .conformance._truthfulness import TruthfulnessReport, check_truthfulness
from .prover._falsify import FalsificationResult, exhaustive_check, falsify, falsify_privacy
from .prover._monotone import MonotonicityResult, prove_monotone
from ._outcome import Status
from .prover._sensitivity import SensitivityResult, Witness, prove_sensitivity
from ._assertions import DPInconclusive, DPViolation, assert_dp, assert_sensitivity
from .audit import (
    AuditCase,
    AuditResult,
    AuditStatus,
    SamplerError,
    SamplerMismatch,
    assert_sampler_matches,
    audit_sampler,
)

__all__ = [
    "AuditCase",
    "AuditResult",
    "AuditStatus",
    "Certificate",
    "CertificateLimits",
    "CheckOutcome",
    "CheckReport",
    "DPInconclusive",
    "DPViolation",
    "FalsificationResult",
    "MonotonicityResult",
    "SamplerError",
    "SamplerMismatch",
    "SensitivityResult",
    "Status",
    "TruthfulnessReport",
    "Witness",
    "assert_dp",
    "assert_sensitivity",
    "assert_sampler_matches",
    "audit_sampler",
    "certify",
    "check_certificate",
    "check_truthfulness",
    "exhaustive_check",
    "falsify",
    "falsify_privacy",
    "prove_monotone",
    "prove_sensitivity",
]
