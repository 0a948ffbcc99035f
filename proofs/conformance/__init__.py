"""The conformance room: the source's statements checked on exact instances."""

from ._conformance import DroppedHypothesis, Finding, StatementReport, check_statement, report_statement, search_dropped_hypothesis
from ._families import FAMILIES

__all__ = [
    "FAMILIES",
    "DroppedHypothesis",
    "Finding",
    "StatementReport",
    "check_statement",
    "report_statement",
    "search_dropped_hypothesis",
]
