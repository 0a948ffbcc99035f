"""Audit cases — a sampler with its exact reference — and a demonstration set of broken samplers."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.impl import ExponentialMechanism, PermuteAndFlip

from ._audit import audit_sampler
from ._result import AuditResult, ExactFinding

__all__ = ["AuditCase", "demo_cases", "demo_exact_cases"]


@dataclass(frozen=True)
class AuditCase:
    """A sampler to audit: ``sampler(dataset)`` against ``reference``'s exact law on ``dataset``.

    ``neighbour``, if given, is a neighbouring dataset for the empirical
    privacy bound.  ``mapping`` records how a library's parameters map onto the
    reference; ``findings`` are its float decisions re-decided exactly; both
    are carried into the result.  ``expected`` is the verdict a demonstration
    case is built to get (``None`` for a real audit).
    """

    name: str
    sampler: Callable[[Any], Any]
    reference: Any
    dataset: Any
    neighbour: Any = None
    mapping: Mapping[str, str] = field(default_factory=dict)
    findings: tuple[ExactFinding, ...] = ()
    notes: tuple[str, ...] = ()
    expected: str | None = None

    def run(self, **options: Any) -> AuditResult:
        """:func:`~expmech.proofs.audit_sampler` on this case (``options`` as there)."""
        return audit_sampler(
            self.sampler,
            self.reference,
            self.dataset,
            neighbour=self.neighbour,
            name=self.name,
            mapping=self.mapping,
            findings=self.findings,
            notes=self.notes,
            **options,
        )


# -- the demonstration: one mechanism, one correct and three broken samplers -------------------

_OUTPUTS = tuple(range(6))
_DATA = (0, 1, 1, 2, 2, 2, 3, 5)
_NEIGHBOUR = (0, 1, 1, 2, 2, 3, 3, 5)
_EPSILON = Fraction(1, 2)


def _mode(dataset: Any, r: int) -> int:
    """The mode's quality: how many records equal ``r`` (Δq = 1 under replace-one)."""
    return sum(1 for x in dataset if x == r)


def _softmax_sampler(factor: float, sign: int, seed: int) -> Callable[[Any], Any]:
    """A float sampler of weights e^{sign·factor·ε·q} — correct for factor 1, sign 1."""
    rng = np.random.default_rng(seed)

    def sample(dataset: Any) -> Any:
        scores = np.array([_mode(dataset, r) for r in _OUTPUTS], dtype=np.float64)
        logits = sign * factor * float(_EPSILON) * scores
        weights = np.exp(logits - logits.max())
        return rng.choice(_OUTPUTS, size=100, p=weights / weights.sum())  # a batch of 100 draws

    return sample


def _exact_sampler(mechanism: Any, seed: int) -> Callable[[Any], Any]:
    """expmech's exact sampler; the exponential mechanism reuses its table per dataset."""
    rng = random.Random(seed)
    tables: dict[Any, Any] = {}

    def sample(dataset: Any) -> Any:
        if isinstance(mechanism, ExponentialMechanism):
            if dataset not in tables:
                tables[dataset] = mechanism.distribution(dataset)
            return tables[dataset].sample(rng=rng)
        return mechanism.sample(dataset, rng=rng)

    return sample


def demo_exact_cases(seed: int = 0) -> list[AuditCase]:
    """Two correct samplers of the mode's exponential mechanism (expmech's exact one, and float softmax)."""
    mechanism = ExponentialMechanism(_mode, epsilon=_EPSILON, outputs=_OUTPUTS)
    return [
        AuditCase("exact sampler (expmech)", _exact_sampler(mechanism, seed), mechanism, _DATA, _NEIGHBOUR, expected="CONSISTENT"),
        AuditCase("float softmax", _softmax_sampler(1.0, 1, seed), mechanism, _DATA, _NEIGHBOUR, expected="CONSISTENT"),
    ]


def demo_cases(seed: int = 0) -> list[AuditCase]:
    """:func:`demo_exact_cases` plus three deliberately broken samplers, each built to be REJECTED.

    The broken ones: max and min swapped (the quality's sign flipped), the
    wrong ε scale (``2ε``: a mechanism written for the ``ε/(2Δq)`` convention
    fed ``ε/Δq``), and the other law (permute-and-flip where the exponential
    mechanism is promised).
    """
    mechanism = ExponentialMechanism(_mode, epsilon=_EPSILON, outputs=_OUTPUTS)
    other = PermuteAndFlip(_mode, epsilon=_EPSILON, outputs=_OUTPUTS)
    return demo_exact_cases(seed) + [
        AuditCase("broken: max and min swapped", _softmax_sampler(1.0, -1, seed), mechanism, _DATA, expected="REJECTED"),
        AuditCase("broken: 2ε instead of ε", _softmax_sampler(2.0, 1, seed), mechanism, _DATA, expected="REJECTED"),
        AuditCase("broken: permute-and-flip for the exponential mechanism", _exact_sampler(other, seed), mechanism, _DATA, expected="REJECTED"),
    ]
