"""expmech.spec: what must be true.

The quality-function language and the statements of the source, in sympy.
This layer imports nothing from ``expmech.impl`` or ``expmech.proofs``.
"""

from ._errors import (
    ExpMechError,
    InvalidArgument,
    InvalidType,
    PrecisionExhausted,
    QualityError,
)

__all__ = [
    "ExpMechError",
    "InvalidArgument",
    "InvalidType",
    "PrecisionExhausted",
    "QualityError",
]
