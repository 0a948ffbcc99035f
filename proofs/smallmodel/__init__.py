"""The small-model room: every PROVED claim evaluated exhaustively on small datasets by the spec interpreter alone.

An independent net behind the prover (DESIGN, trust model): it imports
``expmech.spec``, sympy's parser for recorded bounds (never its simplifier),
sympy's polynomial coefficients for the breakpoints of a range, and
``fractions``; no prover, z3 or ``expmech.impl``.  ``certify`` runs it before a
certificate is issued and ``check`` on every certificate it re-derives; a
disagreement is :class:`InternalInconsistency` (exit 4 at the command line).
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._check": ("DEFAULT_MAX_EVALUATIONS", "InternalInconsistency", "SmallModelBudget", "SmallModelReport", "small_model_check"),
    "._exact": ("evaluate_at", "parse_bound"),
}

if _typing.TYPE_CHECKING:
    from ._check import DEFAULT_MAX_EVALUATIONS, InternalInconsistency, SmallModelBudget, SmallModelReport, small_model_check
    from ._exact import evaluate_at, parse_bound
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "DEFAULT_MAX_EVALUATIONS",
    "InternalInconsistency",
    "SmallModelBudget",
    "SmallModelReport",
    "evaluate_at",
    "parse_bound",
    "small_model_check",
]
