"""The certificate format's version, and the refusal of a certificate written in an older one.

Imports nothing heavy: the gate of :mod:`..check._check` asks :func:`older_format`
before the JSON Schema, so that a certificate of an earlier format gets a
message saying what to do (re-certify) rather than a schema error.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PREDICATE_TYPE", "SCHEMA_VERSION", "older_format"]

#: Version 4: the quality's text and sha256 are the verifier's own, and every derivation records a proof of each side
#: condition its rules leave (``obligations``), checked by the verifier of :mod:`expmech.proofs.checker`.
SCHEMA_VERSION = "4"
PREDICATE_TYPE = f"urn:expmech:dp-certificate:v{SCHEMA_VERSION}"
_OLDER = {"1", "2", "3"}


def older_format(statement: Any) -> str | None:
    """Why ``statement`` is refused as a certificate of an older format (None when it claims no older one).

    A statement whose ``predicate.schema_version`` or ``predicateType`` names
    version 1, 2 or 3 was written before certificates carried proofs of their
    side conditions; the verifier of this version decides from those proofs, so
    it is refused with the remedy: certify the mechanism again.
    """
    if not isinstance(statement, dict):
        return None
    predicate = statement.get("predicate")
    version = predicate.get("schema_version") if isinstance(predicate, dict) else None
    kind = statement.get("predicateType")
    older = version if version in _OLDER else None
    if older is None and isinstance(kind, str) and kind.startswith("urn:expmech:dp-certificate:v") and kind.rsplit(":v", 1)[1] in _OLDER:
        older = kind.rsplit(":v", 1)[1]
    if older is None:
        return None
    return (
        f"schema_version={older!r}: this certificate is in format {older}, written by an earlier expmech, before claims "
        f"carried proofs of their side conditions for the verifier; this checker reads format {SCHEMA_VERSION} only. Re-certify the mechanism "
        f"(expmech certify TARGET -o DIR, or expmech.proofs.certify) and check the new certificate"
    )
