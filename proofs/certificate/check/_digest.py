"""The digest check of ``check --reproduce``'s gate: sha256 over the RFC 8785 canonical statement."""

from __future__ import annotations

from typing import Any

from expmech.spec import InvalidArgument

from ..format._canonical import sha256_hex
from ._run import _Check

__all__ = ["check_digest", "compare_digest"]


def compare_digest(run: _Check, digest: str, recorded: Any) -> None:
    """Record the digest check of ``digest`` against the value the file records; raise ``_Stop`` when they differ."""
    if digest != recorded:
        raise run.fail("digest", f"sha256 over the RFC 8785 canonical statement is {digest}, the file records {str(recorded)[:64]}")
    run.passed("digest", "sha256 over the RFC 8785 canonical statement")


def check_digest(run: _Check, statement: Any, recorded: Any) -> None:
    """Record the digest check of an unsigned certificate's statement; raise ``_Stop`` when it fails."""
    try:
        digest = sha256_hex(statement)
    except InvalidArgument as error:
        raise run.fail("digest", f"the statement cannot be canonicalised: {error}") from None
    compare_digest(run, digest, recorded)
