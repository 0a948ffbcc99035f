"""The ordered verdicts of an audit, apart from the result type so that the renderer can read them."""

from __future__ import annotations

import enum

__all__ = ["AuditStatus"]


class AuditStatus(enum.Enum):
    """The verdict of a sequential audit.

    ``REJECTED``: the sampler does not sample the exact law — the e-process
    crossed ``2/α``, or the fixed-N chi-square at ``max_draws`` rejected at
    ``α/2`` (false-alarm rate of the verdict at most α).  ``VIOLATION``: an
    exact check found that the law the library uses breaks the ε it promises
    (whatever the sampler test says; the result's ``rejected`` tells that
    too).  ``CONSISTENT``: neither; the detectable deviation says what the
    run would have caught.
    """

    CONSISTENT = "consistent"
    REJECTED = "rejected"
    VIOLATION = "violation"

    def __str__(self) -> str:
        return self.name
