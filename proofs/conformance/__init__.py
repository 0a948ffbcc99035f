"""The conformance room: the source's statements, and the noise identities, checked on exact instances."""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._conformance": ("FAMILIES", "DroppedHypothesis", "Finding", "StatementReport", "check_statement", "report_statement", "search_dropped_hypothesis"),
    "._truthfulness": ("BidderTruthfulness", "TruthfulnessReport", "check_truthfulness"),
}

if _typing.TYPE_CHECKING:
    from ._conformance import (
        FAMILIES,
        DroppedHypothesis,
        Finding,
        StatementReport,
        check_statement,
        report_statement,
        search_dropped_hypothesis,
    )
    from ._truthfulness import BidderTruthfulness, TruthfulnessReport, check_truthfulness
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "FAMILIES",
    "BidderTruthfulness",
    "DroppedHypothesis",
    "Finding",
    "StatementReport",
    "TruthfulnessReport",
    "check_statement",
    "check_truthfulness",
    "report_statement",
    "search_dropped_hypothesis",
]
