"""The exact-arithmetic room: exact reals and the numbers the mechanisms' laws are made of.

Sums of exponentials ``Σ cᵢ·e^{bᵢ}`` (:class:`ExpSum`, held as vectors by
``_expvector`` and on a lattice by ``_lattice``), their quotients and logarithms
(:class:`ExpRatio`, :class:`LogExpRatio`), sums of radicals, logarithms of
rationals, values known by enclosures (:class:`RefinedValue`); the ball
arithmetic that settles their signs, the float filters that decide first under a
rigorous error bound, and the exact rational arrays underneath. This room
imports no other room of ``expmech.impl``.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._exactreal": ("ExpRatio", "LogExpRatio"),
    "._expsum": ("DEFAULT_MAX_PRECISION", "ExpSum"),
    "._loglinear": ("LogLinear",),
    "._radical": ("LogRadicalRatio", "RadicalRatio", "RadicalSum"),
    "._refined": ("RefinedValue",),
}

if _typing.TYPE_CHECKING:
    from ._exactreal import ExpRatio, LogExpRatio
    from ._expsum import DEFAULT_MAX_PRECISION, ExpSum
    from ._loglinear import LogLinear
    from ._radical import LogRadicalRatio, RadicalRatio, RadicalSum
    from ._refined import RefinedValue
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "DEFAULT_MAX_PRECISION",
    "ExpRatio",
    "ExpSum",
    "LogExpRatio",
    "LogLinear",
    "LogRadicalRatio",
    "RadicalRatio",
    "RadicalSum",
    "RefinedValue",
]
