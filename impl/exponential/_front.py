"""The front of the exponential mechanism: it imports every kind of range and registers it.

:class:`ExponentialMechanism` (``_finite``) picks its kind from the registry in
``_kinds`` — a finite list of outputs stays finite, a range goes to
:class:`CountableMechanism` or :class:`ContinuousMechanism` — so the kinds
must be registered before a range is passed. Importing this module does it;
``expmech.impl.ExponentialMechanism`` and ``expmech.impl.exponential``'s
names come from here, and code inside ``expmech.impl`` that may meet a range
imports the mechanism from here too. The kinds import ``_finite``,
``_ranges`` and ``_kinds``, never this module.
"""

from __future__ import annotations

from ._continuous import ContinuousDistribution, ContinuousMechanism
from ._countable import CountableDistribution, CountableMechanism
from ._finite import Distribution, ExponentialMechanism, PrivacyLoss
from ._kinds import register_kind
from ._ranges import RangePrivacyLoss

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

register_kind("continuous", ContinuousMechanism)
register_kind("countable", CountableMechanism)
