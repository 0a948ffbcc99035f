"""The exact law a sampler is audited against, and the named alternatives it is tested to catch.

:func:`reference_law` turns an expmech mechanism and a dataset into a
:class:`ReferenceLaw`: its outcomes, rigorous bounds ``lo <= π(x) <= hi`` of
every probability (expmech's exact laws, enclosed in ball arithmetic), float
approximations for display, an exact sampler, the exact privacy loss to the
law on another dataset, and the *named alternatives* — the same mechanism with
``ε`` scaled by 0.5, 0.7, 1.3 and 2, with max and min swapped, and the other
law (exponential mechanism ↔ permute-and-flip; for the quantile mechanism,
intervals chosen without their widths).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.impl import (
    ExponentialMechanism,
    ExponentialTopK,
    PermuteAndFlip,
    PermuteAndFlipTopK,
    QuantileMechanism,
)
from expmech.impl.internal import permute_and_flip_enclosures, resolve_rng, weight_enclosures
from expmech.impl import TopKDistribution
from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import describe

__all__ = ["Alternative", "ReferenceLaw", "plain", "reference_law"]

#: Largest outcome space enumerated (alternatives, power, chi-square, expected counts).
MAX_ENUMERATED = 50_000
_BITS = 40
_SCALES = (Fraction(1, 2), Fraction(7, 10), Fraction(13, 10), Fraction(2))


@dataclass(frozen=True)
class Alternative:
    """A named wrong law: ``probabilities`` over the reference's outcomes (floats summing to at most 1)."""

    name: str
    description: str
    probabilities: np.ndarray


def plain(value: Any) -> Any:
    """A sampler's draw as a plain hashable: numpy scalars unwrapped, lists and arrays made tuples."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return tuple(plain(v) for v in value.tolist())
    if isinstance(value, list | tuple):
        return tuple(plain(v) for v in value)
    return value


def _down(value: Fraction) -> float:
    result = float(value)
    return result if Fraction(result) <= value else math.nextafter(result, -math.inf)


def _up(value: Fraction) -> float:
    result = float(value)
    return result if Fraction(result) >= value else math.nextafter(result, math.inf)


def _normalised(values: np.ndarray) -> np.ndarray:
    """``values`` scaled so that their float sum is at most 1 (rounding included)."""
    values = np.clip(np.asarray(values, dtype=np.float64), 0.0, None)
    total = math.fsum(values.tolist())
    if total <= 0:
        return values
    result = values / total * (1 - 2.0**-40)
    while math.fsum(result.tolist()) > 1:
        result *= 1 - 2.0**-40
    return result


def _midpoints(bounds: Sequence[tuple[Fraction, Fraction]]) -> np.ndarray:
    return np.array([float((lo + hi) / 2) for lo, hi in bounds], dtype=np.float64)


class ReferenceLaw:
    """An exact law over finitely many outcomes, as the audit uses it.

    ``name`` describes it; ``outcome_count`` is ``K``; ``outcomes`` lists them
    when ``K`` is at most 50,000 (else ``None``: only the universal test
    components then, no alternatives, power or chi-square).  ``bounds(i)`` is a
    rigorous ``(lo, hi)`` around ``π(outcome i)``.
    """

    def __init__(
        self,
        *,
        name: str,
        kind: str,
        outcome_count: int,
        outcomes: tuple[Hashable, ...] | None,
        bounds: Callable[[Hashable], tuple[Fraction, Fraction]],
        is_outcome: Callable[[Hashable], bool],
        sampler: Callable[[random.Random], Hashable],
        law: Any,
        alternatives: Callable[[], list[Alternative]],
        all_bounds: Sequence[tuple[Fraction, Fraction]] | None = None,
    ) -> None:
        self.name, self.kind, self.outcome_count, self.outcomes = name, kind, outcome_count, outcomes
        self._bounds, self._is_outcome, self._sampler, self.law = bounds, is_outcome, sampler, law
        self._alternatives_factory = alternatives
        self._alternatives: list[Alternative] | None = None
        self._index: dict[Hashable, int] = {} if outcomes is None else {x: i for i, x in enumerate(outcomes)}
        self._keys: list[Hashable] = [] if outcomes is None else list(outcomes)
        self._cache: dict[int, tuple[Fraction, Fraction]] = {}
        self._float_cache: dict[int, tuple[float, float]] = {}
        if all_bounds is not None:
            self._cache = dict(enumerate(all_bounds))

    @property
    def enumerable(self) -> bool:
        """Whether the outcomes are listed (``K`` at most 50,000)."""
        return self.outcomes is not None

    def index(self, value: Any) -> int | None:
        """The index of the outcome ``value`` (after :func:`plain`), or ``None`` if it is not an outcome."""
        value = plain(value)
        try:
            known = self._index.get(value)
        except TypeError:
            return None
        if known is not None:
            return known
        if self.outcomes is not None or not self._is_outcome(value):
            return None
        self._index[value] = len(self._keys)
        self._keys.append(value)
        return self._index[value]

    def outcome(self, index: int) -> Hashable:
        """The outcome with this index."""
        return self._keys[index]

    def bounds(self, index: int) -> tuple[Fraction, Fraction]:
        """Rigorous rationals ``lo <= π <= hi`` for the outcome with this index."""
        if index not in self._cache:
            self._cache[index] = self._bounds(self._keys[index])
        return self._cache[index]

    def float_bounds(self, index: int) -> tuple[float, float]:
        """:meth:`bounds` rounded outwards to floats."""
        known = self._float_cache.get(index)
        if known is None:
            lo, hi = self.bounds(index)
            known = self._float_cache[index] = (_down(lo), _up(hi))
        return known

    def probabilities(self) -> np.ndarray:
        """Float midpoints of every outcome's bounds (enumerable laws only), for display and simulation."""
        self._need_enumeration()
        return _midpoints([self.bounds(i) for i in range(self.outcome_count)])

    def lower_upper(self) -> tuple[np.ndarray, np.ndarray]:
        """Float arrays of every outcome's outward-rounded bounds (enumerable laws only)."""
        self._need_enumeration()
        pairs = [self.float_bounds(i) for i in range(self.outcome_count)]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    def alternatives(self) -> list[Alternative]:
        """The named alternatives over the same outcomes (empty when not enumerable)."""
        if self.outcomes is None:
            return []
        if self._alternatives is None:
            self._alternatives = [
                Alternative(a.name, a.description, _normalised(a.probabilities)) for a in self._alternatives_factory()
            ]
        return self._alternatives

    def sample(self, rng: random.Random | None = None) -> Hashable:
        """One exact draw of the reference law itself."""
        return self._sampler(resolve_rng(rng))

    def _need_enumeration(self) -> None:
        if self.outcomes is None:
            raise InvalidArgument(
                f"the law has {self.outcome_count} outcomes, more than {MAX_ENUMERATED} to enumerate",
                parameter="reference",
                value=self.name,
            )


# -- building one per kind of mechanism ------------------------------------------------------


def reference_law(reference: Any, dataset: Any) -> ReferenceLaw:
    """The exact law of ``reference`` (an expmech mechanism) on ``dataset``.

    Accepted: :class:`ExponentialMechanism`, :class:`PermuteAndFlip`,
    :class:`ExponentialTopK`, :class:`PermuteAndFlipTopK`,
    :class:`QuantileMechanism` (the chosen interval's index).  Anything else
    raises :class:`InvalidType` naming ``reference``.
    """
    if isinstance(reference, ExponentialMechanism):
        return _exponential(reference, dataset)
    if isinstance(reference, PermuteAndFlip):
        return _permute_and_flip(reference, dataset)
    if isinstance(reference, ExponentialTopK | PermuteAndFlipTopK):
        return _top_k(reference, dataset)
    if isinstance(reference, QuantileMechanism):
        return _exponential(reference.mechanism(dataset), dataset, quantile=reference)
    raise InvalidType(
        f"reference={describe(reference)} must be an expmech mechanism (ExponentialMechanism, PermuteAndFlip, "
        "ExponentialTopK, PermuteAndFlipTopK or QuantileMechanism)",
        parameter="reference",
        value=reference,
    )


def _listed(
    name: str, kind: str, outputs: Sequence[Hashable], bounds: Sequence[tuple[Fraction, Fraction]], law: Any,
    alternatives: Callable[[], list[Alternative]],
) -> ReferenceLaw:
    """A law over a mechanism's outputs whose every bound is computed up front."""
    index = {r: i for i, r in enumerate(outputs)}
    return ReferenceLaw(
        name=name,
        kind=kind,
        outcome_count=len(outputs),
        outcomes=tuple(outputs),
        bounds=lambda r: bounds[index[r]],
        is_outcome=lambda r: r in index,
        sampler=lambda rng: law.sample(rng=rng),
        law=law,
        alternatives=alternatives,
        all_bounds=bounds,
    )


def _em_bounds(measure: Sequence[Fraction], scores: Sequence[Fraction], epsilon: Fraction) -> tuple[tuple[Fraction, Fraction], ...]:
    return weight_enclosures(measure, [epsilon * s for s in scores], _BITS)


def _exponential(mechanism: ExponentialMechanism, dataset: Any, *, quantile: QuantileMechanism | None = None) -> ReferenceLaw:
    distribution = mechanism.distribution(dataset)
    scores, measure, eps = distribution.scores, mechanism.base_measure, mechanism.epsilon
    bounds = _em_bounds(measure, scores, eps)

    def alternatives() -> list[Alternative]:
        found = [
            Alternative(f"epsilon×{float(c):g}", f"the same law at ε·{c}", _midpoints(_em_bounds(measure, scores, eps * c)))
            for c in _SCALES
        ]
        found.append(
            Alternative("max↔min", "the minimum favoured instead of the maximum (quality negated)",
                        _midpoints(_em_bounds(measure, [-s for s in scores], eps)))
        )
        if quantile is not None:
            found.append(
                Alternative("no widths", "intervals chosen with counting measure instead of their widths",
                            _midpoints(_em_bounds([Fraction(1)] * len(scores), scores, eps)))
            )
        elif len(set(measure)) == 1:
            found.append(
                Alternative("permute-and-flip", "permute-and-flip at the same ε (the other law)",
                            _midpoints(permute_and_flip_enclosures(scores, eps, bits=30)))
            )
        return found

    if quantile is not None:
        name = (
            f"quantile mechanism (interval choice), quantile = {quantile.quantile}, ε = {eps}, "
            f"{len(mechanism.outputs)} intervals"
        )
        kind = "quantile-interval"
    else:
        name = f"exponential mechanism, ε = {eps}, |R| = {len(mechanism.outputs)}"
        if len(set(measure)) > 1:
            name += ", with base measure"
        kind = "exponential"
    return _listed(name, kind, mechanism.outputs, bounds, distribution, alternatives)


def _permute_and_flip(mechanism: PermuteAndFlip, dataset: Any) -> ReferenceLaw:
    distribution = mechanism.distribution(dataset)
    scores, eps = distribution.scores, mechanism.epsilon
    bounds = distribution.enclosures(_BITS)
    ones = [Fraction(1)] * len(scores)

    def alternatives() -> list[Alternative]:
        found = [
            Alternative(f"epsilon×{float(c):g}", f"the same law at ε·{c}",
                        _midpoints(permute_and_flip_enclosures(scores, eps * c, bits=30)))
            for c in _SCALES
        ]
        found.append(
            Alternative("max↔min", "the minimum favoured instead of the maximum (quality negated)",
                        _midpoints(permute_and_flip_enclosures([-s for s in scores], eps, bits=30)))
        )
        found.append(
            Alternative("exponential mechanism", "the exponential mechanism at the same ε (the other law)",
                        _midpoints(_em_bounds(ones, scores, eps)))
        )
        return found

    name = f"permute-and-flip, ε = {eps}, |R| = {len(mechanism.outputs)}"
    return _listed(name, "permute-and-flip", mechanism.outputs, bounds, distribution, alternatives)


class _FixedScores:
    """A quality returning the score of each output from a table (the dataset is ignored)."""

    def __init__(self, outputs: Sequence[Hashable], scores: Sequence[Fraction]) -> None:
        self.table = dict(zip(outputs, scores))

    def __call__(self, dataset: Any, r: Hashable) -> Fraction:
        return self.table[r]


def _top_k(mechanism: ExponentialTopK | PermuteAndFlipTopK, dataset: Any) -> ReferenceLaw:
    distribution = mechanism.distribution(dataset)
    count = distribution.outcome_count
    outcomes = tuple(distribution.outcomes()) if count <= MAX_ENUMERATED else None
    scores, eps, outputs = distribution.scores, mechanism.epsilon, mechanism.outputs
    peeling_em = isinstance(mechanism, ExponentialTopK)

    def law_of(kind: type, factor: Fraction, sign: int) -> TopKDistribution:
        quality = _FixedScores(outputs, [sign * s for s in scores])
        if kind is ExponentialTopK:
            measure = dict(zip(outputs, mechanism.base_measure))
            return ExponentialTopK(quality, epsilon=eps * factor, outputs=outputs, k=mechanism.k, base_measure=measure).distribution(None)
        return PermuteAndFlipTopK(quality, epsilon=eps * factor, outputs=outputs, k=mechanism.k).distribution(None)

    def floats(law: TopKDistribution) -> np.ndarray:
        assert outcomes is not None
        return np.array([float(sum(law.enclose(t, 24)) / 2) for t in outcomes])

    own = type(mechanism)

    def alternatives() -> list[Alternative]:
        found = [Alternative(f"epsilon×{float(c):g}", f"the same law at ε·{c}", floats(law_of(own, c, 1))) for c in _SCALES]
        found.append(Alternative("max↔min", "the bottom k instead of the top k (quality negated)", floats(law_of(own, Fraction(1), -1))))
        uniform = len(set(mechanism.base_measure)) == 1
        if peeling_em and uniform:
            found.append(Alternative("peeling permute-and-flip", "k permute-and-flips without replacement (the other law)",
                                     floats(law_of(PermuteAndFlipTopK, Fraction(1), 1))))
        elif not peeling_em:
            found.append(Alternative("peeling exponential mechanism", "k exponential mechanisms without replacement (the other law)",
                                     floats(law_of(ExponentialTopK, Fraction(1), 1))))
        return found

    law_name = "peeling exponential mechanism (= one-shot Gumbel top-k)" if peeling_em else "peeling permute-and-flip"
    return ReferenceLaw(
        name=f"top-{mechanism.k} {law_name}, ε = {eps} per round, |R| = {len(outputs)}",
        kind="exponential-top-k" if peeling_em else "permute-and-flip-top-k",
        outcome_count=count,
        outcomes=outcomes,
        bounds=lambda t: distribution.enclose(t, _BITS),
        is_outcome=distribution.is_outcome,
        sampler=lambda rng: distribution.sample(rng=rng),
        law=distribution,
        alternatives=alternatives,
    )
