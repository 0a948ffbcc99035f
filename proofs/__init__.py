"""expmech.proofs: evidence — sensitivity proofs, falsifiers, conformance, sampler audits, the command."""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    ".certificate._build": ("Certificate", "certify"),
    ".certificate._check": ("CheckOutcome", "CheckReport", "check_certificate"),
    ".certificate._limits": ("CertificateLimits",),
    ".conformance._truthfulness": ("TruthfulnessReport", "check_truthfulness"),
    ".kernel._check": ("check_derivation",),
    ".kernel._verdict": ("KernelVerdict",),
    ".prover._falsify": ("FalsificationResult", "exhaustive_check", "falsify", "falsify_privacy"),
    ".prover._monotone": ("MonotonicityResult", "prove_monotone"),
    ".prover._range_sensitivity": ("RangeSensitivityResult", "RangeWitness", "prove_range_sensitivity"),
    "._outcome": ("Status",),
    ".prover._sensitivity": ("SensitivityResult", "Witness", "prove_sensitivity"),
    "._assertions": ("DPInconclusive", "DPViolation", "assert_dp", "assert_sensitivity"),
    ".smallmodel": ("InternalInconsistency", "SmallModelReport", "small_model_check"),
    ".audit": ("AuditCase", "AuditResult", "AuditStatus", "SamplerError", "SamplerMismatch", "assert_sampler_matches", "audit_sampler"),
}

if _typing.TYPE_CHECKING:
    from .certificate._build import Certificate, certify
    from .certificate._check import CheckOutcome, CheckReport, check_certificate
    from .certificate._limits import CertificateLimits
    from .conformance._truthfulness import TruthfulnessReport, check_truthfulness
    from .kernel._check import check_derivation
    from .kernel._verdict import KernelVerdict
    from .prover._falsify import FalsificationResult, exhaustive_check, falsify, falsify_privacy
    from .prover._monotone import MonotonicityResult, prove_monotone
    from .prover._range_sensitivity import RangeSensitivityResult, RangeWitness, prove_range_sensitivity
    from ._outcome import Status
    from .prover._sensitivity import SensitivityResult, Witness, prove_sensitivity
    from .smallmodel import InternalInconsistency, SmallModelReport, small_model_check
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
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

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
    "InternalInconsistency",
    "KernelVerdict",
    "MonotonicityResult",
    "RangeSensitivityResult",
    "RangeWitness",
    "SamplerError",
    "SamplerMismatch",
    "SensitivityResult",
    "SmallModelReport",
    "Status",
    "TruthfulnessReport",
    "Witness",
    "assert_dp",
    "assert_sensitivity",
    "assert_sampler_matches",
    "audit_sampler",
    "certify",
    "check_certificate",
    "check_derivation",
    "check_truthfulness",
    "exhaustive_check",
    "falsify",
    "falsify_privacy",
    "prove_monotone",
    "prove_range_sensitivity",
    "prove_sensitivity",
    "small_model_check",
]
