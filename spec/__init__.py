"""expmech.spec: what must be true.

The quality-function language and the statements of the source, in sympy.
This layer imports nothing from ``expmech.impl`` or ``expmech.proofs``.
"""

from ._domains import Booleans, Categories, Domain, Grid, IntRange, RationalRange
from ._errors import (
    ExpMechError,
    InvalidArgument,
    InvalidType,
    PrecisionExhausted,
    QualityError,
)
from ._language import (
    Count,
    Mean,
    OutputSpace,
    RecordSchema,
    Size,
    Total,
    count,
    max_over,
    mean,
    min_over,
    size,
    total,
)
from ._neighbours import Neighbours
from ._quality import QualityFunction

__all__ = [
    "Booleans",
    "Categories",
    "Count",
    "Domain",
    "ExpMechError",
    "Grid",
    "IntRange",
    "InvalidArgument",
    "InvalidType",
    "Mean",
    "Neighbours",
    "OutputSpace",
    "PrecisionExhausted",
    "QualityError",
    "QualityFunction",
    "RationalRange",
    "RecordSchema",
    "Size",
    "Total",
    "count",
    "max_over",
    "mean",
    "min_over",
    "size",
    "total",
]
