"""expmech.spec: what must be true.

The quality-function language and the statements of the source, in sympy.
This layer imports nothing from ``expmech.impl`` or ``expmech.proofs``.
"""

import typing as _typing

from ._exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "._domains": ("LARGEST_LISTED", "SMALL_DOMAIN", "Booleans", "Categories", "Domain", "Grid", "IntRange", "RationalRange"),
    "._errors": ("BudgetExceeded", "DivergentNormaliser", "ExpMechError", "InexactFloatWarning", "InvalidArgument", "InvalidType", "PrecisionExhausted", "QualityError", "TraceError"),
    "._identities": ("IDENTITIES",),
    "._language": ("DATASET_SIZE", "Count", "Mean", "OrderStatistic", "OutputSpace", "RecordSchema", "Size", "Total", "count", "max_over", "mean", "min_over", "order_statistic", "size", "total"),
    "._multiset": ("Multiset",),
    "._likelihood": ("BetaPrior", "LogLikelihood", "likelihood_from_json", "likelihood_to_json"),
    "._neighbours": ("Neighbours",),
    "._privacy": ("derive_epsilon",),
    "._quality": ("QualityFunction",),
    "._ranges": ("BaseMeasure", "Counting", "Geometric", "Lebesgue", "PiecewiseDensity", "PiecewiseGeometric", "measure_from_json", "measure_to_json"),
    "._serial": ("quality_from_json", "quality_to_json", "rational_from_text", "rational_text"),
    "._rule_statements": ("RULE_STATEMENTS", "rule_statement"),
    "._source": ("STATEMENTS", "statement"),
    "._statements": ("Hypothesis", "ProofStep", "Statement", "StepCheck", "StepStatus", "check_step", "check_steps"),
    "._trace": ("TraceRecord", "trace"),
}

if _typing.TYPE_CHECKING:
    from ._domains import LARGEST_LISTED, SMALL_DOMAIN, Booleans, Categories, Domain, Grid, IntRange, RationalRange
    from ._errors import (
        BudgetExceeded,
        DivergentNormaliser,
        ExpMechError,
        InexactFloatWarning,
        InvalidArgument,
        InvalidType,
        PrecisionExhausted,
        QualityError,
        TraceError,
    )
    from ._identities import IDENTITIES
    from ._language import (
        DATASET_SIZE,
        Count,
        Mean,
        OrderStatistic,
        OutputSpace,
        RecordSchema,
        Size,
        Total,
        count,
        max_over,
        mean,
        min_over,
        order_statistic,
        size,
        total,
    )
    from ._multiset import Multiset
    from ._likelihood import BetaPrior, LogLikelihood, likelihood_from_json, likelihood_to_json
    from ._neighbours import Neighbours
    from ._privacy import derive_epsilon
    from ._quality import QualityFunction
    from ._ranges import (
        BaseMeasure,
        Counting,
        Geometric,
        Lebesgue,
        PiecewiseDensity,
        PiecewiseGeometric,
        measure_from_json,
        measure_to_json,
    )
    from ._serial import quality_from_json, quality_to_json, rational_from_text, rational_text
    from ._rule_statements import RULE_STATEMENTS, rule_statement
    from ._source import STATEMENTS, statement
    from ._statements import Hypothesis, ProofStep, Statement, StepCheck, StepStatus, check_step, check_steps
    from ._trace import TraceRecord, trace
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "LARGEST_LISTED",
    "SMALL_DOMAIN",
    "BetaPrior",
    "BudgetExceeded",
    "DATASET_SIZE",
    "IDENTITIES",
    "RULE_STATEMENTS",
    "STATEMENTS",
    "BaseMeasure",
    "Booleans",
    "Categories",
    "Count",
    "Counting",
    "DivergentNormaliser",
    "Domain",
    "ExpMechError",
    "Geometric",
    "Grid",
    "Hypothesis",
    "InexactFloatWarning",
    "IntRange",
    "InvalidArgument",
    "Lebesgue",
    "InvalidType",
    "LogLikelihood",
    "Mean",
    "Multiset",
    "Neighbours",
    "OrderStatistic",
    "OutputSpace",
    "PiecewiseDensity",
    "PiecewiseGeometric",
    "PrecisionExhausted",
    "ProofStep",
    "QualityError",
    "QualityFunction",
    "RationalRange",
    "RecordSchema",
    "Size",
    "Statement",
    "StepCheck",
    "StepStatus",
    "Total",
    "TraceError",
    "TraceRecord",
    "check_step",
    "check_steps",
    "count",
    "derive_epsilon",
    "likelihood_from_json",
    "likelihood_to_json",
    "max_over",
    "mean",
    "measure_from_json",
    "measure_to_json",
    "min_over",
    "order_statistic",
    "quality_from_json",
    "quality_to_json",
    "rational_from_text",
    "rational_text",
    "rule_statement",
    "size",
    "statement",
    "total",
    "trace",
]
