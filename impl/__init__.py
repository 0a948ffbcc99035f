"""expmech.impl: exact computation.

The exponential mechanism over a finite range, an interval of the reals or an
infinite set of integers, its exact distribution and privacy loss, exact
samplers; the exact laws of the other selection mechanisms in common use
(permute-and-flip, top-k, the quantile mechanism).
"""

import typing as _typing

from expmech.spec._exports import lazy_exports as _lazy_exports

_EXPORTS = {
    "._auction": ("DigitalGoodsAuction", "Incentive", "posted_price_utility"),
    "._catalogue": ("CATALOGUE", "POSTERIOR_CATALOGUE", "RANGE_CATALOGUE", "WRONG_CATALOGUE", "CatalogueEntry", "catalogue_entry"),
    "._continuous": ("ContinuousDistribution", "ContinuousMechanism"),
    "._countable": ("CountableDistribution", "CountableMechanism"),
    "._exactreal": ("ExpRatio", "LogExpRatio"),
    "._expsum": ("DEFAULT_MAX_PRECISION", "ExpSum"),
    "._inversion": ("InversionTable",),
    "._lazy": ("DEFAULT_GRID_BITS",),
    "._loglinear": ("LogLinear",),
    "._mechanism": ("Distribution", "ExponentialMechanism", "PrivacyLoss"),
    "._permute_flip": ("PermuteAndFlip",),
    "._pf_law": ("PermuteAndFlipDistribution",),
    "._piecewise": ("PiecewiseLinear",),
    "._quantile": ("QuantileMechanism",),
    "._posterior": ("PosteriorDistribution", "PosteriorSampling"),
    "._radical": ("LogRadicalRatio", "RadicalRatio", "RadicalSum"),
    "._ranges": ("RangePrivacyLoss",),
    "._random": ("sample_bernoulli", "sample_bernoulli_exp"),
    "._refined": ("RefinedValue",),
    "._topk": ("ExponentialTopK", "PermuteAndFlipTopK", "TopKDistribution"),
}

if _typing.TYPE_CHECKING:
    from ._auction import DigitalGoodsAuction, Incentive, posted_price_utility
    from ._catalogue import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE, CatalogueEntry, catalogue_entry
    from ._continuous import ContinuousDistribution, ContinuousMechanism
    from ._countable import CountableDistribution, CountableMechanism
    from ._exactreal import ExpRatio, LogExpRatio
    from ._expsum import DEFAULT_MAX_PRECISION, ExpSum
    from ._inversion import InversionTable
    from ._lazy import DEFAULT_GRID_BITS
    from ._loglinear import LogLinear
    from ._mechanism import Distribution, ExponentialMechanism, PrivacyLoss
    from ._permute_flip import PermuteAndFlip
    from ._pf_law import PermuteAndFlipDistribution
    from ._piecewise import PiecewiseLinear
    from ._quantile import QuantileMechanism
    from ._posterior import PosteriorDistribution, PosteriorSampling
    from ._radical import LogRadicalRatio, RadicalRatio, RadicalSum
    from ._ranges import RangePrivacyLoss
    from ._random import sample_bernoulli, sample_bernoulli_exp
    from ._refined import RefinedValue
    from ._topk import ExponentialTopK, PermuteAndFlipTopK, TopKDistribution
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "CATALOGUE",
    "DEFAULT_GRID_BITS",
    "DEFAULT_MAX_PRECISION",
    "POSTERIOR_CATALOGUE",
    "RANGE_CATALOGUE",
    "WRONG_CATALOGUE",
    "CatalogueEntry",
    "ContinuousDistribution",
    "ContinuousMechanism",
    "CountableDistribution",
    "CountableMechanism",
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
    "PiecewiseLinear",
    "PosteriorDistribution",
    "PosteriorSampling",
    "PrivacyLoss",
    "QuantileMechanism",
    "RadicalRatio",
    "RadicalSum",
    "RangePrivacyLoss",
    "RefinedValue",
    "TopKDistribution",
    "catalogue_entry",
    "posted_price_utility",
    "sample_bernoulli",
    "sample_bernoulli_exp",
]
