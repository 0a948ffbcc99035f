"""The certificate room: build, canonical form and digest, independent re-check, reports."""

from ._build import PREDICATE_TYPE, SCHEMA_VERSION, Certificate, certify
from ._check import CheckReport, certificate_schema, check_certificate

__all__ = [
    "PREDICATE_TYPE",
    "SCHEMA_VERSION",
    "Certificate",
    "CheckReport",
    "certificate_schema",
    "certify",
    "check_certificate",
]
