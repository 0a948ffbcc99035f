"""expmech.proofs: evidence — sensitivity proofs, falsifiers, conformance, sampler audits, the command."""

import importlib as _importlib
import typing as _typing

_EXPORTS = {
    ".certificate.make._build": ("Certificate", "certify"),
    ".certificate.check._check": ("CheckOutcome", "CheckReport", "check_certificate"),
    ".certificate.format._limits": ("CertificateLimits",),
    ".conformance._truthfulness": ("TruthfulnessReport", "check_truthfulness"),
    ".prover._falsify": ("FalsificationResult", "exhaustive_check", "falsify", "falsify_privacy"),
    ".prover._monotone": ("MonotonicityResult", "prove_monotone"),
    ".prover._range_sensitivity": ("RangeSensitivityResult", "RangeWitness", "prove_range_sensitivity"),
    "._outcome": ("Status",),
    ".prover._sensitivity": ("SensitivityResult", "Witness", "prove_sensitivity"),
    "._assertions": ("DPInconclusive", "DPViolation", "assert_dp", "assert_sensitivity"),
    ".smallmodel": ("InternalInconsistency", "SmallModelReport", "small_model_check"),
    ".audit": ("AuditCase", "AuditResult", "AuditStatus", "SamplerError", "SamplerMismatch", "assert_sampler_matches", "audit_sampler"),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)  # one list: what runs (_EXPORTS), what type checkers see (below) is tested to be the same

if _typing.TYPE_CHECKING:
    from .certificate.make._build import Certificate, certify
    from .certificate.check._check import CheckOutcome, CheckReport, check_certificate
    from .certificate.format._limits import CertificateLimits
    from .conformance._truthfulness import TruthfulnessReport, check_truthfulness
    from .prover._falsify import FalsificationResult, exhaustive_check, falsify, falsify_privacy
    from .prover._monotone import MonotonicityResult, prove_monotone
    from .prover._range_sensitivity import RangeSensitivityResult, RangeWitness, prove_range_sensitivity
    from ._outcome import Status
    from .prover._sensitivity import SensitivityResult, Witness, prove_sensitivity
    from .smallmodel import InternalInconsistency, SmallModelReport, small_model_check
    from ._assertions import DPInconclusive, DPViolation, assert_dp, assert_sensitivity
    from .audit import AuditCase, AuditResult, AuditStatus, SamplerError, SamplerMismatch, assert_sampler_matches, audit_sampler
else:
    # The same lazy exports as expmech.spec.internal.lazy_exports, written here so that importing this package (the
    # verifier's and the command's root) imports no other layer: ``expmech check`` loads the verifier alone.
    def __getattr__(name: str) -> _typing.Any:
        if name in _WHERE:
            value = globals()[name] = getattr(_importlib.import_module(_WHERE[name], __name__), name)
            return value
        if not name.startswith("__") and _importlib.util.find_spec(f"{__name__}.{name}") is not None:
            return _importlib.import_module(f"{__name__}.{name}")
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(_WHERE))
