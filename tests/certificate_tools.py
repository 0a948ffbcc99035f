"""Shared helpers for the certificate tests: cached catalogue certificates, tampering and resealing."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

from expmech.impl import catalogue_entry
from expmech.proofs import Certificate, certify
from expmech.proofs.certificate.make._build import seal


@functools.lru_cache(maxsize=None)
def catalogue_certificate(name: str, **options: Any) -> Certificate:
    """The certificate of the catalogue entry ``name`` (either catalogue), built once per test session."""
    entry = catalogue_entry(name)
    extra = {"base_measure": entry.base_measure} if entry.base_measure is not None else {}
    if entry.auction is not None:
        extra["auction"] = entry.auction
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **extra, **options)


def resealed(data: dict[str, Any], mutate: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """Tamper with a copy of the statement and recompute the digest, as anyone can: only re-derivation can catch it."""
    statement = copy.deepcopy(data["certificate"])
    mutate(statement)
    return seal(statement)


def claim(statement: dict[str, Any], claim_id: str) -> dict[str, Any]:
    """The (first) claim with this id."""
    return next(c for c in statement["predicate"]["claims"] if c["id"] == claim_id)
