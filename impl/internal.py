"""expmech.impl.internal: what ``expmech.proofs`` uses of the implementation beyond its public API.

The prover, the certificates, the audits and the command import the public
names from :mod:`expmech.impl` and everything else they need of it from here,
never from a private ``_module`` of a room: validation and exact evaluation of
a quality (``quality``), ball conversions and enclosures (``exact``), the kinds
of range (``exponential``), the exact random source (``sampling``), the
enclosures of permute-and-flip's law (``selection``), the synthetic-data
mechanism and the auction's utility (``applications``). These names are
internal — they may change with ``expmech.proofs`` — but they are named, so
that a change to one is a change to this list. Lazy (PEP 562), as the layers
are. ``tests/project/test_layering.py`` keeps private names from crossing layers.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "expmech.impl.applications._auction": ("utility_rule", "utility_value"),
    "expmech.impl.applications._posterior": ("posterior_interval",),
    "expmech.impl.applications._synthetic": ("SyntheticDataMechanism", "conjunctions", "halfspaces"),
    "expmech.impl.exact._balls": ("arb_from_fraction", "ball_endpoints"),
    "expmech.impl.exact._enclosures": ("weight_enclosures",),
    "expmech.impl.exponential._kinds": ("is_range",),
    "expmech.impl.exponential._ranges": ("resolve_range",),
    "expmech.impl.quality._inputs": ("check_base_measure", "check_outputs", "evaluate_scores"),
    "expmech.impl.quality._piecewise": ("analyse",),
    "expmech.impl.quality._vectorised": ("VectorisedQuality",),
    "expmech.impl.sampling._random": ("resolve_rng",),
    "expmech.impl.selection._pf_law": ("permute_and_flip_enclosures",),
}

if _typing.TYPE_CHECKING:
    from expmech.impl.applications._auction import utility_rule, utility_value
    from expmech.impl.applications._posterior import posterior_interval
    from expmech.impl.applications._synthetic import SyntheticDataMechanism, conjunctions, halfspaces
    from expmech.impl.exact._balls import arb_from_fraction, ball_endpoints
    from expmech.impl.exact._enclosures import weight_enclosures
    from expmech.impl.exponential._kinds import is_range
    from expmech.impl.exponential._ranges import resolve_range
    from expmech.impl.quality._inputs import check_base_measure, check_outputs, evaluate_scores
    from expmech.impl.quality._piecewise import analyse
    from expmech.impl.quality._vectorised import VectorisedQuality
    from expmech.impl.sampling._random import resolve_rng
    from expmech.impl.selection._pf_law import permute_and_flip_enclosures
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "SyntheticDataMechanism",
    "VectorisedQuality",
    "analyse",
    "arb_from_fraction",
    "ball_endpoints",
    "check_base_measure",
    "check_outputs",
    "conjunctions",
    "evaluate_scores",
    "halfspaces",
    "is_range",
    "permute_and_flip_enclosures",
    "posterior_interval",
    "resolve_range",
    "resolve_rng",
    "utility_rule",
    "utility_value",
    "weight_enclosures",
]
