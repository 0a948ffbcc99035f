"""The two failures of :func:`~expmech.proofs.assert_dp`, in a module of their own so that the pytest plugin, which
every pytest run of an environment with expmech loads, can name them without loading the prover."""

from __future__ import annotations

__all__ = ["DPInconclusive", "DPViolation"]


class DPViolation(AssertionError):
    """The claim is refuted; the message carries the counterexample."""


class DPInconclusive(AssertionError):
    """Neither proved nor refuted (BOUNDED, TESTED or UNKNOWN): no ε-DP claim can be made."""
