"""The sampling room: exact draws from random bits.

Uniform integers and Bernoulli(e^{−γ}) coins (``_random``), random bits
buffered per generator so that a draw consumes only what it reads (``_bits``),
Knuth–Yao walks over the levels of a score vector (``_knuth_yao``), lazy-bit
draws and the output grids of continuous ranges (``_lazy``), inversion against
exact cumulative weights (:class:`InversionTable`), and permute-and-flip's
coins (``_coins``). Builds on ``exact`` and ``quality``.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._inversion": ("InversionTable",),
    "._lazy": ("DEFAULT_GRID_BITS",),
    "._random": ("sample_bernoulli", "sample_bernoulli_exp"),
}

if _typing.TYPE_CHECKING:
    from ._inversion import InversionTable
    from ._lazy import DEFAULT_GRID_BITS
    from ._random import sample_bernoulli, sample_bernoulli_exp
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "DEFAULT_GRID_BITS",
    "InversionTable",
    "sample_bernoulli",
    "sample_bernoulli_exp",
]
