"""Adapters: third-party DP libraries' selection mechanisms, mapped onto expmech's exact laws.

Each adapter builds an :class:`~expmech.proofs.audit.AuditCase` — the
library's sampler, the exact expmech reference its conventions define, the
mapping written down, and every privacy question the library decides with
floats decided again exactly.  The libraries are optional
(``pip install 'expmech[adapters]'``); without one, its adapters raise
:class:`~expmech.proofs.audit.MissingDependency` naming the extra.

``library_cases()`` is the audit of the installed diffprivlib and OpenDP
releases the README reports: ``expmech audit expmech.proofs.adapters:library_cases``.
"""

from __future__ import annotations

from ..audit._cases import AuditCase as _AuditCase
from ._diffprivlib import (
    diffprivlib_exponential,
    diffprivlib_exponential_categorical,
    diffprivlib_median,
    diffprivlib_permute_and_flip,
    diffprivlib_quantile,
)
from ._common import UnsupportedVersion
from ._opendp import opendp_noisy_max, opendp_noisy_top_k, opendp_report_noisy_max_gumbel
from ._opendp import supported as _supported

__all__ = [
    "UnsupportedVersion",
    "diffprivlib_cases",
    "diffprivlib_exponential",
    "diffprivlib_exponential_categorical",
    "diffprivlib_median",
    "diffprivlib_permute_and_flip",
    "diffprivlib_quantile",
    "library_cases",
    "opendp_cases",
    "opendp_noisy_max",
    "opendp_noisy_top_k",
    "opendp_report_noisy_max_gumbel",
]

_SCORES = (3, 1, 4, 1, 5, 9, 2, 6)
_NEIGHBOUR = (3, 2, 4, 1, 5, 8, 2, 6)  # L∞ distance 1
_MONOTONE_NEIGHBOUR = (3, 1, 4, 1, 5, 8, 2, 5)  # every score moves down or not at all
_MEASURE = (1, 2, 1, 1, 3, 1, 2, 1)
_HIERARCHY = [
    ("A", "B", 1), ("A", "C", 2), ("A", "D", 2),
    ("B", "C", 2), ("B", "D", 2), ("C", "D", 1),
]
#: Within numpy.isclose of balanced, but not balanced: the library drops the factor 2.
_NEAR_BALANCED = [("a", "b", 1.0), ("a", "c", 1.0 - 2.0**-14), ("b", "c", 1.0)]
_DATA = (12, 35, 41, 47, 50, 52, 58, 63, 71, 88)
_DATA_NEIGHBOUR = (12, 35, 41, 47, 50, 52, 58, 63, 71, 97)


def diffprivlib_cases(seed: int = 0) -> list[_AuditCase]:
    """diffprivlib's Exponential (plain, with measure, monotonic), PermuteAndFlip, ExponentialCategorical, quantile, median."""
    return [
        diffprivlib_exponential(_SCORES, epsilon=1.0, sensitivity=1, neighbour=_NEIGHBOUR, seed=seed),
        diffprivlib_exponential(_SCORES, epsilon=1.0, sensitivity=1, measure=_MEASURE, neighbour=_NEIGHBOUR, seed=seed + 1),
        diffprivlib_exponential(_SCORES, epsilon=1.0, sensitivity=1, monotonic=True, neighbour=_MONOTONE_NEIGHBOUR, seed=seed + 2),
        diffprivlib_permute_and_flip(_SCORES, epsilon=1.0, sensitivity=1, neighbour=_NEIGHBOUR, seed=seed + 3),
        diffprivlib_exponential_categorical(_HIERARCHY, epsilon=1.0, value="A", seed=seed + 4),
        diffprivlib_exponential_categorical(_NEAR_BALANCED, epsilon=1.0, value="a", seed=seed + 5),
        diffprivlib_quantile(_DATA, 0.25, epsilon=1.0, bounds=(0, 100), neighbour=_DATA_NEIGHBOUR, seed=seed + 6),
        diffprivlib_median(_DATA, epsilon=1.0, bounds=(0, 100), neighbour=_DATA_NEIGHBOUR, seed=seed + 7),
    ]


def opendp_cases() -> list[_AuditCase]:
    """OpenDP's make_noisy_max (both measures, and negated), make_noisy_top_k (both), make_report_noisy_max_gumbel (max, min).

    Only the measurements the installed release has (``make_noisy_max`` and
    ``make_noisy_top_k`` from 0.14); calling their adapters on an older
    release raises :class:`UnsupportedVersion`.
    """
    cases = []
    if _supported("make_noisy_max"):
        cases += [
            opendp_noisy_max(_SCORES, scale=1.0, neighbour=_NEIGHBOUR),
            opendp_noisy_max(_SCORES, scale=1.0, negate=True, neighbour=_NEIGHBOUR),
            opendp_noisy_max(_SCORES, scale=1.0, output_measure="zero_concentrated_divergence", neighbour=_NEIGHBOUR),
        ]
    if _supported("make_noisy_top_k"):
        cases += [
            opendp_noisy_top_k(_SCORES, k=2, scale=1.0, neighbour=_NEIGHBOUR),
            opendp_noisy_top_k(_SCORES, k=2, scale=1.0, output_measure="zero_concentrated_divergence", neighbour=_NEIGHBOUR),
        ]
    if _supported("make_report_noisy_max_gumbel"):
        cases += [
            opendp_report_noisy_max_gumbel(_SCORES, scale=1.0, optimize="max", neighbour=_NEIGHBOUR),
            opendp_report_noisy_max_gumbel(_SCORES, scale=1.0, optimize="min", neighbour=_NEIGHBOUR),
        ]
    return cases


def library_cases(seed: int = 0) -> list[_AuditCase]:
    """Every adapter on fixed instances: :func:`diffprivlib_cases` then :func:`opendp_cases`."""
    return diffprivlib_cases(seed) + opendp_cases()
