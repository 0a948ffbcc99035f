"""The digest check of ``check``: sha256 over the RFC 8785 canonical statement, now or left to the second process.

On a large certificate (see :mod:`._fork`) the canonical form costs a third
of a second and more; the gate then leaves the comparison to the second
process of :mod:`._ahead` and goes on with the content limits, the schema
and the re-derivation.  The digest stays the report's first check: whenever
the check stops, and before it reports, :func:`settle_digest` takes the
second process's verdict (or computes it here) and puts it in its place; a
digest that does not match replaces everything recorded after it, so the
report is the one the check makes in one process.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from expmech.spec import InvalidArgument

from ._canonical import sha256_hex
from ._run import PendingDigest, Staged, _Check, _Stop, run_stage

__all__ = ["check_digest", "compare_digest", "defer_digest", "digest_stage", "settle_digest"]


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


def defer_digest(run: _Check, statement: Any, recorded: str) -> None:
    """Leave the digest check of ``statement`` for later (:func:`settle_digest`), at this place in the report."""
    run.pending_digest = PendingDigest(statement, recorded, len(run.checks), len(run.notes))


def digest_stage(pending: PendingDigest) -> Callable[[_Check], None]:
    """The pending digest check as a stage (run on a scratch run here, or in the second process)."""
    return functools.partial(check_digest, statement=pending.statement, recorded=pending.recorded)


def settle_digest(run: _Check, staged: Staged | None = None) -> None:
    """Put a pending digest check in its place: ``staged`` (the second process's records of :func:`check_digest`) or,
    when that is None, the check run here.  A failure replaces everything recorded after its place and raises
    ``_Stop``; nothing pending, nothing done."""
    pending = run.pending_digest
    if pending is None:
        return
    run.pending_digest = None
    if staged is None:
        staged = run_stage(run, digest_stage(pending))
    if staged.failed is None:
        run.checks[pending.mark : pending.mark] = staged.checks
        return
    del run.checks[pending.mark :], run.notes[pending.notes :]
    run.kernel_rows.clear()
    run.status = run.epsilon = run.above_max_epsilon = None
    run.checks.extend(staged.checks)
    run.failed, run.outcome = staged.failed, staged.outcome
    raise _Stop()
