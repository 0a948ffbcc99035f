"""expmech.impl: exact computation.

The exponential mechanism over a finite range, its exact distribution and
privacy loss, exact samplers; the exact laws of the other selection
mechanisms in common use (permute-and-flip, top-k, the quantile mechanism).
Rationals in, decisions out: no float ever decides a comparison.
"""

from ._auction import DigitalGoodsAuction, Incentive, posted_price_utility
from ._catalogue import CATALOGUE, POSTERIOR_CATALOGUE, WRONG_CATALOGUE, CatalogueEntry, catalogue_entry
from ._exactreal import ExpRatio, LogExpRatio
from ._expsum import DEFAULT_MAX_PRECISION, ExpSum
from ._inversion import InversionTable
from ._loglinear import LogLinear
from ._mechanism import Distribution, ExponentialMechanism, PrivacyLoss
from ._permute_flip import PermuteAndFlip
from ._pf_law import PermuteAndFlipDistribution
from ._quantile import QuantileMechanism
from ._posterior import PosteriorDistribution, PosteriorSampling
from ._radical import LogRadicalRatio, RadicalRatio, RadicalSum
from ._random import sample_bernoulli, sample_bernoulli_exp
from ._refined import RefinedValue
from ._topk import ExponentialTopK, PermuteAndFlipTopK, TopKDistribution

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
    "ExponentialTopK",
    "Incentive",
    "InversionTable",
    "LogExpRatio",
    "LogLinear",
    "LogRadicalRatio",
    "PermuteAndFlip",
    "PermuteAndFlipDistribution",
    "PermuteAndFlipTopK",
    "PosteriorDistribution",
    "PosteriorSampling",
    "PrivacyLoss",
    "QuantileMechanism",
    "RadicalRatio",
    "RadicalSum",
    "RefinedValue",
    "TopKDistribution",
    "catalogue_entry",
    "posted_price_utility",
    "sample_bernoulli",
    "sample_bernoulli_exp",
]
