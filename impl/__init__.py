"""expmech.impl: exact computation.

The exponential mechanism over a finite range, its exact distribution and
privacy loss, exact samplers.  Rationals in, decisions out: no float ever
decides a comparison.
"""

from ._auction import DigitalGoodsAuction, Incentive, posted_price_utility
from ._catalogue import CATALOGUE, POSTERIOR_CATALOGUE, WRONG_CATALOGUE, CatalogueEntry, catalogue_entry
from ._exactreal import ExpRatio, LogExpRatio
from ._expsum import DEFAULT_MAX_PRECISION, ExpSum
from ._inversion import InversionTable
from ._loglinear import LogLinear
from ._mechanism import Distribution, ExponentialMechanism, PrivacyLoss
from ._permute_flip import PermuteAndFlip
from ._posterior import PosteriorDistribution, PosteriorSampling
from ._radical import LogRadicalRatio, RadicalRatio, RadicalSum
from ._random import sample_bernoulli, sample_bernoulli_exp

__all__ = [
    "CATALOGUE",
    "DEFAULT_MAX_PRECISION",
    "POSTERIOR_CATALOGUE",
    "WRONG_CATALOGUE",
    "CatalogueEntry",
    "DigitalGoodsAuction",
    "Distribution",
    "ExpRatio",
    "ExpSum",
    "ExponentialMechanism",
    "Incentive",
    "InversionTable",
    "LogExpRatio",
    "LogLinear",
    "LogRadicalRatio",
    "PermuteAndFlip",
    "PosteriorDistribution",
    "PosteriorSampling",
    "PrivacyLoss",
    "RadicalRatio",
    "RadicalSum",
    "catalogue_entry",
    "posted_price_utility",
    "sample_bernoulli",
    "sample_bernoulli_exp",
]
