"""Shared pieces of the library adapters: score-table qualities, versions, exact comparisons of promises."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from importlib import metadata
from typing import Any

from expmech.spec.internal import as_rational

from ..audit._result import ExactFinding, MissingDependency, require

__all__ = ["ScoreTable", "UnsupportedVersion", "exact_vector", "finding", "library_version", "load", "rational_text"]


class UnsupportedVersion(MissingDependency):
    """The installed release of a library lacks the API an adapter needs; the message names both versions."""


class ScoreTable:
    """The quality ``q(scores, r) = sign · scores[position of r]``: the dataset *is* the score vector.

    Libraries take a utility vector and return an index (or a label); the
    adapters audit them on that vector, so the neighbouring dataset is another
    vector.  ``scores(dataset, outputs)`` is the batch path.
    """

    def __init__(self, outputs: Sequence[Hashable], *, sign: int = 1) -> None:
        self.positions = {r: i for i, r in enumerate(outputs)}
        self.sign = sign

    def __call__(self, dataset: Sequence[Any], r: Hashable) -> Fraction:
        return self.sign * as_rational(dataset[self.positions[r]], name="score")

    def scores(self, dataset: Sequence[Any], outputs: Sequence[Hashable]) -> list[Fraction]:
        return [self(dataset, r) for r in outputs]

    def __repr__(self) -> str:
        return "scores (negated)" if self.sign < 0 else "scores"


def exact_vector(values: Sequence[Any], name: str) -> tuple[Fraction, ...]:
    """Each value as the exact rational it represents (floats exactly), for messages and references."""
    return tuple(as_rational(v, name=f"{name}[{i}]") for i, v in enumerate(values))


def rational_text(value: Fraction) -> str:
    """``p/q`` (or ``p``), with a float beside it when it is not a short decimal."""
    text = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
    if len(text) > 12:
        return f"{float(value):.17g} (exactly {text[:40]}{'…' if len(text) > 40 else ''})"
    return text


def library_version(distribution: str) -> str:
    """The installed version of a distribution, or ``"not installed"``."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def load(module: str) -> Any:
    """Import a library module, or raise :class:`~expmech.proofs.audit.MissingDependency` naming the extra."""
    return require(module, "adapters")


def finding(question: str, library: str, exact: str, *, violation: bool) -> ExactFinding:
    """An :class:`ExactFinding` (shorthand)."""
    return ExactFinding(question=question, library=library, exact=exact, violation=violation)
