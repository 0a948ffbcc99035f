"""The ``bounded-range`` and ``zcdp`` claims of a certificate, derived from its inputs alone.

* ``bounded-range``: the mechanism ``μ(r)·e^{ε₀ q}`` is η-bounded-range with
  ``η = ε₀·Δ̂`` (Durfee–Rogers 2019): the privacy loss between neighbours is
  ``ε₀·d(y) − ln(Z_D/Z_D′)``, whose spread over outputs is ``ε₀ (max d − min d) <= ε₀ Δ̂``.
  Δ̂ is proved by :func:`~expmech.proofs.prove_range_sensitivity` (with the
  certificate's own Δq and monotonicity results), with its evidence.
* ``zcdp``: η-BR implies ρ-zCDP with ``ρ = η²/8`` (Cesar–Rogers 2021, Lemma 3.2).

Both are PROVED only on a PROVED range sensitivity none of whose queries is
unknown; otherwise UNKNOWN with η and ρ null.  ``check`` re-derives them with
the rest of the certificate.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from expmech.spec import QualityFunction, rational_text

from ..._outcome import Status
from ...prover._range_sensitivity import RangeSensitivityResult, RangeWitness, range_sensitivity_given
from ._claim_derivation import attach_derivation
from ._conclusion_derivations import attach_zcdp
from ..format._inputs import CertificateInputs, encode_value
from ..check._smt import z3_label

__all__ = ["bounded_range_claims", "zcdp_claim"]


def _pair(w: RangeWitness | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "dataset1": encode_value(list(w.dataset1)),
        "dataset2": encode_value(list(w.dataset2)),
        "output_high": encode_value(w.output_high),
        "output_low": encode_value(w.output_low),
        "spread": rational_text(w.spread),
        "size": w.size,
    }


def bounded_range_claims(
    inputs: CertificateInputs, sensitivity: Any, monotone: Any, record_queries: Any
) -> list[dict[str, Any]]:
    """The ``bounded-range`` and ``zcdp`` claims for a certificate of a :class:`QualityFunction`.

    ``sensitivity`` and ``monotone`` are the certificate's own results;
    ``record_queries`` turns prover queries into their recorded form.
    """
    quality = inputs.quality
    assert isinstance(quality, QualityFunction)
    result: RangeSensitivityResult = range_sensitivity_given(
        quality, neighbours=inputs.neighbours, sensitivity=sensitivity, monotone=monotone,
        rlimit=inputs.budget.rlimit, timeout_ms=inputs.budget.timeout_ms,
    )
    proved = result.status is Status.PROVED and result.bound is not None
    reason = result.reason
    if proved and any(q.result.status == "unknown" for q in result.queries):
        proved, reason = False, f"{reason}; but one of its queries was unknown, so nothing is claimed PROVED"
    eta: Fraction | None = inputs.epsilon0 * result.bound if proved and result.bound is not None else None
    status = "PROVED" if proved else "UNKNOWN"
    bounded = {
        "id": "bounded-range",
        "statement": "bounded-range",
        "status": status,
        "method": f"range sensitivity by {result.rule}; eta = epsilon0 * range_sensitivity (Durfee–Rogers 2019)",
        "range_sensitivity": rational_text(result.bound) if proved and result.bound is not None else None,
        "eta": None if eta is None else rational_text(eta),
        "tight": bool(proved and result.tight),
        "hypotheses": list(result.hypotheses),
        "reason": reason,
        "witness": _pair(result.witness) if proved else None,
        "evidence": {"solver": z3_label(), "queries": record_queries(result.queries)},
    }
    return attach_zcdp([attach_derivation(bounded, result), zcdp_claim(status, eta)], inputs)


def zcdp_claim(status: str, eta: Fraction | None) -> dict[str, Any]:
    """The ``zcdp`` claim of a mechanism whose ``bounded-range`` claim has this status and η: ρ = η²/8."""
    return {
        "id": "zcdp",
        "statement": "zcdp",
        "status": status,
        "method": "eta-bounded range implies eta^2/8-zCDP (Cesar–Rogers 2021)",
        "eta": None if eta is None else rational_text(eta),
        "rho": None if eta is None else rational_text(eta * eta / 8),
    }
