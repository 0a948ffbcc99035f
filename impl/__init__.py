"""expmech.impl: exact computation.

The exponential mechanism over a finite range, an interval of the reals or an
infinite set of integers, its exact distribution and privacy loss, exact
samplers; the exact laws of the other selection mechanisms in common use
(permute-and-flip, top-k, the quantile mechanism).
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    ".applications._auction": ("DigitalGoodsAuction", "Incentive", "posted_price_utility"),
    ".catalogue._catalogue": ("CATALOGUE", "POSTERIOR_CATALOGUE", "RANGE_CATALOGUE", "WRONG_CATALOGUE", "CatalogueEntry", "catalogue_entry"),
    ".catalogue._library": ("LIBRARY_CATALOGUE", "LibraryScore"),
    ".exponential._front": ("ContinuousDistribution", "ContinuousMechanism", "CountableDistribution", "CountableMechanism", "Distribution", "ExponentialMechanism", "PrivacyLoss", "RangePrivacyLoss"),
    ".exact._exactreal": ("ExpRatio", "LogExpRatio"),
    ".exact._expsum": ("DEFAULT_MAX_PRECISION", "ExpSum"),
    ".sampling._inversion": ("InversionTable",),
    ".sampling._lazy": ("DEFAULT_GRID_BITS",),
    ".exact._loglinear": ("LogLinear",),
    ".selection._permute_flip": ("PermuteAndFlip",),
    ".selection._pf_law": ("PermuteAndFlipDistribution",),
    ".quality._piecewise": ("PiecewiseLinear",),
    ".selection._quantile": ("QuantileMechanism",),
    ".applications._posterior": ("PosteriorDistribution", "PosteriorSampling"),
    ".exact._radical": ("LogRadicalRatio", "RadicalRatio", "RadicalSum"),
    ".sampling._random": ("sample_bernoulli", "sample_bernoulli_exp"),
    ".exact._refined": ("RefinedValue",),
    ".selection._topk": ("ExponentialTopK", "PermuteAndFlipTopK", "TopKDistribution"),
}

if _typing.TYPE_CHECKING:
    from .applications._auction import DigitalGoodsAuction, Incentive, posted_price_utility
    from .catalogue._catalogue import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE, CatalogueEntry, catalogue_entry
    from .catalogue._library import LIBRARY_CATALOGUE, LibraryScore
    from .exponential._front import ContinuousDistribution, ContinuousMechanism, CountableDistribution, CountableMechanism, Distribution, ExponentialMechanism, PrivacyLoss, RangePrivacyLoss
    from .exact._exactreal import ExpRatio, LogExpRatio
    from .exact._expsum import DEFAULT_MAX_PRECISION, ExpSum
    from .sampling._inversion import InversionTable
    from .sampling._lazy import DEFAULT_GRID_BITS
    from .exact._loglinear import LogLinear
    from .selection._permute_flip import PermuteAndFlip
    from .selection._pf_law import PermuteAndFlipDistribution
    from .quality._piecewise import PiecewiseLinear
    from .selection._quantile import QuantileMechanism
    from .applications._posterior import PosteriorDistribution, PosteriorSampling
    from .exact._radical import LogRadicalRatio, RadicalRatio, RadicalSum
    from .sampling._random import sample_bernoulli, sample_bernoulli_exp
    from .exact._refined import RefinedValue
    from .selection._topk import ExponentialTopK, PermuteAndFlipTopK, TopKDistribution
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "CATALOGUE",
    "DEFAULT_GRID_BITS",
    "DEFAULT_MAX_PRECISION",
    "LIBRARY_CATALOGUE",
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
    "LibraryScore",
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
