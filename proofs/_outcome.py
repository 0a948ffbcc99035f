"""Ordered statuses shared by every check in ``expmech.proofs``."""

from __future__ import annotations

import enum

__all__ = ["Status"]


class Status(enum.IntEnum):
    """How strong the evidence for a claim is, from worst to best.

    ``PROVED > BOUNDED`` (holds for every dataset up to a stated size or
    domain) ``> TESTED`` (no violation found) ``> UNKNOWN > REFUTED`` (a
    concrete counterexample).  Only PROVED supports an ε-DP claim.
    """

    REFUTED = 0
    UNKNOWN = 1
    TESTED = 2
    BOUNDED = 3
    PROVED = 4

    def __str__(self) -> str:
        return self.name
