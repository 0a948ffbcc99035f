"""expmech.impl: exact computation.

The exponential mechanism over a finite range, its exact distribution and
privacy loss, exact samplers.  Rationals in, decisions out: no float ever
decides a comparison.
"""

from ._exactreal import ExpRatio, LogExpRatio
from ._expsum import DEFAULT_MAX_PRECISION, ExpSum
from ._inversion import InversionTable
from ._mechanism import Distribution, ExponentialMechanism, PrivacyLoss
from ._permute_flip import PermuteAndFlip
from ._random import sample_bernoulli, sample_bernoulli_exp

__all__ = [
    "DEFAULT_MAX_PRECISION",
    "Distribution",
    "ExpRatio",
    "ExpSum",
    "ExponentialMechanism",
    "InversionTable",
    "LogExpRatio",
    "PermuteAndFlip",
    "PrivacyLoss",
    "sample_bernoulli",
    "sample_bernoulli_exp",
]
