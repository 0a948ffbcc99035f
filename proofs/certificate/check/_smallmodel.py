"""Where ``certify`` and ``check`` call the small-model check (:mod:`expmech.proofs.smallmodel`).

``certify`` runs it on the statement it is about to seal: a disagreement
raises :class:`~expmech.proofs.smallmodel.InternalInconsistency` and no
certificate is issued.  ``check`` runs it on the recorded statement once it
equals its re-derivation: a disagreement is an internal inconsistency
(``INCONCLUSIVE``, exit 4), a model over the budget is refused (exit 2).
"""

from __future__ import annotations

from typing import Any

from expmech.spec import InvalidType
from expmech.spec.internal import describe

from ...prover._range_sensitivity import INCONSISTENT
from ...smallmodel import InternalInconsistency, SmallModelBudget, SmallModelReport, small_model_check
from ._run import CheckOutcome, _Check
from ..format._limits import CertificateLimits

__all__ = ["check_small_model", "certify_small_model"]


def certify_small_model(statement: dict[str, Any], quality: Any, limits: CertificateLimits | None) -> SmallModelReport:
    """The small-model check of a statement ``certify`` is about to issue; raises on a disagreement or over the budget."""
    limits = CertificateLimits() if limits is None else limits
    if not isinstance(limits, CertificateLimits):
        raise InvalidType(f"limits={describe(limits)} must be a CertificateLimits", parameter="limits", value=limits)
    report = small_model_check(statement["predicate"], quality, max_evaluations=limits.max_small_model_evaluations)
    _contradicted_range(statement)
    return report


def _contradicted_range(statement: dict[str, Any]) -> None:
    """Raise :class:`InternalInconsistency` where the derivation found a concrete pair contradicting a proved range
    sensitivity (:func:`~expmech.proofs.prover.range_sensitivity_given` leaves the claim UNKNOWN with that reason)."""
    for claim in statement["predicate"].get("claims", ()):
        reason = claim.get("reason") if isinstance(claim, dict) else None
        if claim.get("id") == "bounded-range" and isinstance(reason, str) and reason.startswith(INCONSISTENT):
            raise InternalInconsistency(f"bounded-range: {reason}", claim="range sensitivity")


def check_small_model(run: _Check, statement: dict[str, Any], quality: Any) -> None:
    """The small-model check inside ``check --reproduce``, recorded in ``run`` (raises its stop on a failure)."""
    try:
        report = small_model_check(statement["predicate"], quality, max_evaluations=run.limits.max_small_model_evaluations)
    except SmallModelBudget as error:
        raise run.fail("small-model check", str(error), CheckOutcome.REFUSED) from None
    except InternalInconsistency as error:
        raise run.fail("small-model check", f"internal inconsistency: {error}", CheckOutcome.INCONCLUSIVE) from None
    try:
        _contradicted_range(statement)
    except InternalInconsistency as error:
        raise run.fail("small-model check", str(error), CheckOutcome.INCONCLUSIVE) from None
    if report.claims:
        scope = {"exhaustive": "every finite field domain listed", "representative": "representative records"}.get(report.level, "corner records")
        outputs = f"{report.outputs} outputs"
        if report.range_outputs:
            outputs = f"{report.outputs:,} of {report.range_outputs:,} outputs ({report.output_scope})"
        run.passed(
            "small-model check",
            f"{', '.join(report.claims)} on {report.pairs} neighbouring pairs of {report.datasets} datasets of <= 2 records "
            f"({report.records} records, {scope}) at {outputs}: {report.evaluations} exact evaluations",
        )
