"""The audit room: third-party samplers tested against expmech's exact laws.

:func:`audit_sampler` runs an anytime-valid sequential test (a mixture
e-process, false-alarm rate at most α at any stopping time) of a sampler
against the exact law of an expmech mechanism, states its power against named
wrong laws, and bounds the sampler's privacy loss from below next to the exact
loss.  Library adapters live in :mod:`expmech.proofs.adapters`.
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._assert": ("SamplerMismatch", "assert_sampler_matches"),
    "._audit": ("audit_sampler",),
    "._campaign": ("case_seed", "run_campaign"),
    "._cases": ("AuditCase", "demo_cases", "demo_exact_cases"),
    "._reference": ("Alternative", "ReferenceLaw", "reference_law"),
    "._render": ("audit_json", "render_html", "render_json", "render_text", "verdict_line"),
    "._result": ("AuditResult", "AuditStatus", "CellEvidence", "ChiSquare", "Deviation", "EmpiricalPrivacy", "ExactFinding", "MissingDependency", "PowerStatement", "SamplerError", "SamplerFailed", "SamplerOutOfRange"),
}

if _typing.TYPE_CHECKING:
    from ._assert import SamplerMismatch, assert_sampler_matches
    from ._audit import audit_sampler
    from ._campaign import case_seed, run_campaign
    from ._cases import AuditCase, demo_cases, demo_exact_cases
    from ._reference import Alternative, ReferenceLaw, reference_law
    from ._render import audit_json, render_html, render_json, render_text, verdict_line
    from ._result import (
        AuditResult,
        AuditStatus,
        CellEvidence,
        ChiSquare,
        Deviation,
        EmpiricalPrivacy,
        ExactFinding,
        MissingDependency,
        PowerStatement,
        SamplerError,
        SamplerFailed,
        SamplerOutOfRange,
    )
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "Alternative",
    "AuditCase",
    "AuditResult",
    "AuditStatus",
    "CellEvidence",
    "ChiSquare",
    "Deviation",
    "EmpiricalPrivacy",
    "ExactFinding",
    "MissingDependency",
    "PowerStatement",
    "ReferenceLaw",
    "SamplerError",
    "SamplerFailed",
    "SamplerMismatch",
    "SamplerOutOfRange",
    "assert_sampler_matches",
    "audit_json",
    "audit_sampler",
    "case_seed",
    "demo_cases",
    "demo_exact_cases",
    "reference_law",
    "render_html",
    "render_json",
    "render_text",
    "run_campaign",
    "verdict_line",
]
