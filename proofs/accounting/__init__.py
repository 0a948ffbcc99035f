"""The accounting room: composition of certified mechanisms as exact enclosures.

Bounded range (Durfee–Rogers 2019), the optimal non-adaptive composition of
η-BR mechanisms (Dong–Durfee–Rogers 2020), a sound adaptive bound, zCDP
(Cesar–Rogers 2021; Bun–Steinke 2016; Canonne–Kamath–Steinke 2020), and the
exact composed privacy-loss distribution of a witness pair as a lower bound.
Every answer is an :class:`Enclosure` ``[lower, upper]`` of rationals; the
upper end is the sound value.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._balls": ("Enclosure",),
    "._curves": ("AdaptiveComposition", "OptimalComposition", "ZCDPComposition", "peeling_top_k"),
    "._witness": ("WitnessComposition",),
}

if _typing.TYPE_CHECKING:
    from ._balls import Enclosure
    from ._curves import AdaptiveComposition, OptimalComposition, ZCDPComposition, peeling_top_k
    from ._witness import WitnessComposition
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "AdaptiveComposition",
    "Enclosure",
    "OptimalComposition",
    "WitnessComposition",
    "ZCDPComposition",
    "peeling_top_k",
]
