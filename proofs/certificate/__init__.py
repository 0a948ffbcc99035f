"""The certificate room: build, canonical form and digest, signing, independent re-check, reports."""

from ._build import PREDICATE_TYPE, SCHEMA_VERSION, Certificate, certify, sign
from ._check import CheckOutcome, CheckReport, DerivationCache, certificate_schema, check_certificate
from ._limits import CertificateLimits, CertificateMalformed, CertificateRefused

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
