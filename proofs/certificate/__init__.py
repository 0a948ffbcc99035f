"""The certificate room: build, canonical form and digest, signing, independent re-check, reports.

Four sub-rooms: ``format/`` (what a certificate file is), ``make/`` (``certify``), ``check/``
(``check_certificate`` and ``--reproduce``) and ``report/`` (human reports); this front exports their public
names lazily.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    ".make._build": ("PREDICATE_TYPE", "SCHEMA_VERSION", "Certificate", "certify", "sign"),
    ".check._check": ("CheckOutcome", "CheckReport", "DerivationCache", "certificate_schema", "check_certificate"),
    ".format._limits": ("CertificateLimits", "CertificateMalformed", "CertificateRefused"),
}

if _typing.TYPE_CHECKING:
    from .make._build import PREDICATE_TYPE, SCHEMA_VERSION, Certificate, certify, sign
    from .check._check import CheckOutcome, CheckReport, DerivationCache, certificate_schema, check_certificate
    from .format._limits import CertificateLimits, CertificateMalformed, CertificateRefused
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
