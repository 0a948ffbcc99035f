"""The certificate room: build, canonical form and digest, signing, independent re-check, reports."""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._build": ("PREDICATE_TYPE", "SCHEMA_VERSION", "Certificate", "certify", "sign"),
    "._check": ("CheckOutcome", "CheckReport", "DerivationCache", "certificate_schema", "check_certificate"),
    "._limits": ("CertificateLimits", "CertificateMalformed", "CertificateRefused"),
}

if _typing.TYPE_CHECKING:
    from ._build import PREDICATE_TYPE, SCHEMA_VERSION, Certificate, certify, sign
    from ._check import CheckOutcome, CheckReport, DerivationCache, certificate_schema, check_certificate
    from ._limits import CertificateLimits, CertificateMalformed, CertificateRefused
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "PREDICATE_TYPE",
    "SCHEMA_VERSION",
    "Certificate",
    "CertificateLimits",
    "CertificateMalformed",
    "CertificateRefused",
    "CheckOutcome",
    "CheckReport",
    "DerivationCache",
    "certificate_schema",
    "certify",
    "check_certificate",
    "sign",
]
