"""The conformance room: the source's statements, and the noise identities, checked on exact instances."""

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
