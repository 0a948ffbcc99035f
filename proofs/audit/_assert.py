"""``assert_sampler_matches``: put a sampler audit in your own test suite."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from ._audit import audit_sampler
from ._result import AuditResult

__all__ = ["SamplerMismatch", "assert_sampler_matches"]


class SamplerMismatch(AssertionError):
    """The sampler was REJECTED; the message gives the draws next to the exact expectations.

    ``result`` holds the full :class:`AuditResult`.
    """

    def __init__(self, message: str, result: AuditResult) -> None:
        super().__init__(message)
        self.result = result


def assert_sampler_matches(
    sampler: Callable[[Any], Any],
    reference: Any,
    dataset: Any,
    *,
    alpha: Any = Fraction(1, 1000),
    max_draws: int = 5_000,
    power_replicates: int = 0,
    **options: Any,
) -> AuditResult:
    """Assert that ``sampler(dataset)`` samples the exact law of ``reference``; return the audit.

    Runs :func:`~expmech.proofs.audit_sampler` (same arguments; a stricter
    default ``alpha`` so a correct sampler fails a suite at most once in a
    thousand runs, and no power simulation unless ``power_replicates`` is
    given).  On ``REJECTED`` raises :class:`SamplerMismatch` (an
    ``AssertionError``) whose message lists, for the most surprising outcomes,
    how often each was drawn next to its exact expected count and probability.
    A sampler that raises or returns a non-outcome raises
    :class:`~expmech.proofs.SamplerError` instead.
    """
    result = audit_sampler(
        sampler, reference, dataset, alpha=alpha, max_draws=max_draws, power_replicates=power_replicates, **options
    )
    if result.rejected:
        rows = [f"{'outcome':>16} {'drawn':>8} {'expected':>10}  exact probability"]
        for cell in result.evidence:
            rows.append(
                f"{cell.outcome!r:>16} {cell.count:>8} {cell.expected:>10.2f}  "
                f"[{float(cell.lo):.6g}, {float(cell.hi):.6g}]"
            )
        message = (
            f"sampler does not match the {result.reference}: REJECTED after {result.draws} draws "
            f"(e-value {result.e_value:.3g} >= 1/α = {1 / result.alpha}; the data favour {result.closest})\n"
            + "\n".join(rows)
        )
        raise SamplerMismatch(message, result)
    return result
