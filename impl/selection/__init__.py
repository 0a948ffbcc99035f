"""The selection room: exact laws of the other selection mechanisms in common use.

Permute-and-flip (its sampler and its exact law in polynomial time), top-k by
peeling and by permute-and-flip, and the exponential-mechanism quantile.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._permute_flip": ("PermuteAndFlip",),
    "._pf_law": ("PermuteAndFlipDistribution",),
    "._quantile": ("QuantileMechanism",),
    "._topk": ("ExponentialTopK", "PermuteAndFlipTopK", "TopKDistribution"),
}

if _typing.TYPE_CHECKING:
    from ._permute_flip import PermuteAndFlip
    from ._pf_law import PermuteAndFlipDistribution
    from ._quantile import QuantileMechanism
    from ._topk import ExponentialTopK, PermuteAndFlipTopK, TopKDistribution
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "ExponentialTopK",
    "PermuteAndFlip",
    "PermuteAndFlipDistribution",
    "PermuteAndFlipTopK",
    "QuantileMechanism",
    "TopKDistribution",
]
