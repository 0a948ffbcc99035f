"""The applications room: mechanisms the source builds from the exponential mechanism.

Posterior sampling over a finite grid and over an interval of θ, the
digital-goods auction with exact expected utilities, and the Blum–Ligett–Roth
synthetic-data mechanism.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._auction": ("DigitalGoodsAuction", "Incentive", "posted_price_utility"),
    "._posterior": ("PosteriorDistribution", "PosteriorSampling"),
}

if _typing.TYPE_CHECKING:
    from ._auction import DigitalGoodsAuction, Incentive, posted_price_utility
    from ._posterior import PosteriorDistribution, PosteriorSampling
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "DigitalGoodsAuction",
    "Incentive",
    "PosteriorDistribution",
    "PosteriorSampling",
    "posted_price_utility",
]
