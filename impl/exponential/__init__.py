"""The exponential-mechanism room: one module per kind of range, behind one front.

As ``sympy.stats`` splits ``frv`` / ``drv`` / ``crv``: ``_finite`` holds the
mechanism over a finite range (the base every kind extends), ``_ranges`` what
the infinite and continuous ranges share, ``_countable`` the integers,
``_continuous`` the intervals of the reals. ``_front`` imports the kinds and
registers them, so that ``ExponentialMechanism(…, outputs=range)`` picks the
right one; no kind imports the front.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._front": (
        "ContinuousDistribution",
        "ContinuousMechanism",
        "CountableDistribution",
        "CountableMechanism",
        "Distribution",
        "ExponentialMechanism",
        "PrivacyLoss",
        "RangePrivacyLoss",
    ),
}

if _typing.TYPE_CHECKING:
    from ._front import (
        ContinuousDistribution,
        ContinuousMechanism,
        CountableDistribution,
        CountableMechanism,
        Distribution,
        ExponentialMechanism,
        PrivacyLoss,
        RangePrivacyLoss,
    )
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "ContinuousDistribution",
    "ContinuousMechanism",
    "CountableDistribution",
    "CountableMechanism",
    "Distribution",
    "ExponentialMechanism",
    "PrivacyLoss",
    "RangePrivacyLoss",
]
