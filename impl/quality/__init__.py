"""The quality room: a quality function evaluated exactly, validated, and cut into pieces.

Validation of a mechanism's parameters (``_inputs``), exact scores over a
finite range (``_scoring``, vectorised for spec qualities by ``_vectorised``),
and a spec quality over an interval as an exact piecewise-linear function of
the output (:class:`PiecewiseLinear`). Builds on ``exact`` only.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._piecewise": ("PiecewiseLinear",),
}

if _typing.TYPE_CHECKING:
    from ._piecewise import PiecewiseLinear
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "PiecewiseLinear",
]
