"""Top-k selection as exact laws over ordered k-tuples.

* :class:`ExponentialTopK` — *peeling*: k exponential mechanisms in turn, each
  over the outputs not yet chosen.  The ordered tuple ``(r_1, …, r_k)`` has
  probability ``Π_i w(r_i) / Σ_{s ∉ {r_1..r_{i−1}}} w(s)`` with
  ``w(s) = μ(s)·e^{ε q(s)}`` (the Plackett–Luce law).  One-shot Gumbel top-k —
  add i.i.d. Gumbel noise of scale ``1/ε`` to every ``ε q(s) + ln μ(s)`` and
  report the k largest in order — has the same law (spec statement
  ``gumbel-top-k``), which is how OpenDP's Gumbel top-k is audited.
* :class:`PermuteAndFlipTopK` — peeling permute-and-flip: k permute-and-flips
  in turn without replacement (OpenDP's ``make_noisy_top_k`` under
  ``MaxDivergence``).  Each factor is permute-and-flip's law on the remaining
  outputs (:mod:`expmech.impl.selection._pf_law`).

Both give exact probabilities (enclosures of any width, exact forms on
demand), exact privacy losses between two datasets over every tuple, and exact
samplers.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Iterator
from fractions import Fraction
from itertools import permutations
from typing import Any

from flint import arb, ctx

from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import describe

from ..exact._exactreal import ExpRatio
from ..exact._expsum import ExpSum, _check_bits, arb_from_fraction, ball_endpoints
from ..quality._inputs import check_base_measure, check_epsilon, check_outputs, check_quality, evaluate_scores
from ..sampling._inversion import InversionTable
from ._pf_law import _LevelCache, _Levels, log_ratio_loss
from ..sampling._coins import sample_permute_and_flip
from ..sampling._random import resolve_rng
from ..exponential._finite import PrivacyLoss
from ..exact._refined import RefinedValue

__all__ = ["ExponentialTopK", "PermuteAndFlipTopK", "TopKDistribution"]

#: Most tuples a full enumeration (privacy loss, approximate law) walks through.
MAX_ENUMERATED = 200_000


def _check_k(k: Any, size: int) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise InvalidType(f"k={describe(k)} must be an int", parameter="k", value=k)
    if not 1 <= k <= size:
        raise InvalidArgument(f"k={k} must be between 1 and the number of outputs, {size}", parameter="k", value=k)
    return k


class _TopK:
    __slots__ = ("_quality", "_epsilon", "_outputs", "_k", "_base_measure", "_index")

    _law = ""

    def __init__(self, quality: Callable[[Any, Any], Any], *, epsilon: Any, outputs: Any, k: Any, base_measure: Any = None) -> None:
        self._quality = check_quality(quality)
        self._epsilon = check_epsilon(epsilon)
        self._outputs = check_outputs(outputs)
        self._k = _check_k(k, len(self._outputs))
        self._base_measure = check_base_measure(base_measure, self._outputs)
        positive = sum(1 for m in self._base_measure if m > 0)
        if positive < self._k:
            raise InvalidArgument(
                f"k={self._k} exceeds the {positive} outputs of positive base measure", parameter="k", value=self._k
            )
        self._index = {r: i for i, r in enumerate(self._outputs)}

    @property
    def quality(self) -> Callable[[Any, Any], Any]:
        """The quality function ``q(dataset, r)``."""
        return self._quality

    @property
    def epsilon(self) -> Fraction:
        """``ε`` of each round (the weight is ``e^{ε q}``; permute-and-flip's coins ``e^{ε (q − q*)}``)."""
        return self._epsilon

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The range the tuples are drawn from."""
        return self._outputs

    @property
    def k(self) -> int:
        """How many outputs each draw returns, in order."""
        return self._k

    @property
    def base_measure(self) -> tuple[Fraction, ...]:
        """``μ(r)`` per output (counting measure for permute-and-flip)."""
        return self._base_measure

    def scores(self, dataset: Any) -> tuple[int | Fraction, ...]:
        """``q(dataset, r)`` for each output, exactly."""
        return evaluate_scores(self._quality, dataset, self._outputs)

    def distribution(self, dataset: Any) -> TopKDistribution:
        """The exact law over ordered k-tuples on ``dataset``."""
        return TopKDistribution(self, self.scores(dataset))

    def sample(self, dataset: Any, *, rng: random.Random | None = None) -> tuple[Hashable, ...]:
        """One exact draw: an ordered k-tuple of distinct outputs."""
        return self.distribution(dataset).sample(rng=rng)

    def privacy_loss(self, dataset1: Any, dataset2: Any) -> PrivacyLoss:
        """The exact ``max_t |ln P1(t) − ln P2(t)|`` over every ordered k-tuple ``t``."""
        return self.distribution(dataset1).privacy_loss(self.distribution(dataset2))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(epsilon={self._epsilon}, k={self._k}, outputs=<{len(self._outputs)} outputs>)"


class ExponentialTopK(_TopK):
    """Peeling top-k: k exponential mechanisms without replacement (≡ one-shot Gumbel top-k).

    Parameters as for :class:`ExponentialMechanism`, plus ``k`` (1 <= k <= |R|,
    and at most the number of outputs of positive base measure).
    """

    __slots__ = ()
    _law = "exponential"


class PermuteAndFlipTopK(_TopK):
    """Peeling permute-and-flip: k permute-and-flips without replacement (counting base measure).

    Parameters as for :class:`PermuteAndFlip`, plus ``k``.
    """

    __slots__ = ()
    _law = "permute-and-flip"

    def __init__(self, quality: Callable[[Any, Any], Any], *, epsilon: Any, outputs: Any, k: Any) -> None:
        super().__init__(quality, epsilon=epsilon, outputs=outputs, k=k)


class TopKDistribution:
    """The exact law of a top-k mechanism on one dataset, over ordered k-tuples of outputs.

    ``probability(t)`` is a :class:`RefinedValue`; ``enclose(t, bits)``
    rationals around it; ``exact_probability(t)`` an exact :class:`ExpRatio`.
    ``outcome_count`` is ``|R|!/(|R|−k)!``; :meth:`outcomes` walks them.
    """

    __slots__ = ("_mechanism", "_scores", "_pf_cache")

    def __init__(self, mechanism: _TopK, scores: tuple[int | Fraction, ...]) -> None:
        self._mechanism = mechanism
        self._scores = scores
        self._pf_cache: dict[tuple[int, ...], _LevelCache] = {}

    @property
    def mechanism(self) -> _TopK:
        """The mechanism this is the law of."""
        return self._mechanism

    @property
    def scores(self) -> tuple[int | Fraction, ...]:
        """``q(dataset, r)`` per output."""
        return self._scores

    @property
    def outcome_count(self) -> int:
        """The number of ordered k-tuples of distinct outputs."""
        size, k = len(self._mechanism.outputs), self._mechanism.k
        return math.perm(size, k)

    def outcomes(self) -> Iterator[tuple[Hashable, ...]]:
        """Every ordered k-tuple, in lexicographic order of output positions."""
        return permutations(self._mechanism.outputs, self._mechanism.k)

    def positions(self, outcome: Any) -> tuple[int, ...]:
        """The output positions of ``outcome``; :class:`InvalidArgument` unless it is k distinct outputs."""
        mechanism = self._mechanism
        try:
            items = tuple(outcome)
        except TypeError:
            raise InvalidArgument(
                f"outcome={describe(outcome)} is not a tuple of {mechanism.k} outputs", parameter="outcome", value=outcome
            ) from None
        try:
            positions = tuple(mechanism._index[r] for r in items)
        except (KeyError, TypeError):
            raise InvalidArgument(
                f"outcome={describe(outcome)} has an element that is not an output", parameter="outcome", value=outcome
            ) from None
        if len(positions) != mechanism.k or len(set(positions)) != mechanism.k:
            raise InvalidArgument(
                f"outcome={describe(outcome)} must be {mechanism.k} distinct outputs", parameter="outcome", value=outcome
            )
        return positions

    def is_outcome(self, outcome: Any) -> bool:
        """Whether ``outcome`` is an ordered k-tuple of distinct outputs."""
        try:
            self.positions(outcome)
        except InvalidArgument:
            return False
        return True

    # -- probabilities --------------------------------------------------------------

    def _weights_exact(self) -> list[ExpSum]:
        mechanism = self._mechanism
        return [
            ExpSum.weighted_exps([(m, mechanism.epsilon * s)]) for m, s in zip(mechanism.base_measure, self._scores)
        ]

    def exact_probability(self, outcome: Any) -> ExpRatio:
        """The exact probability of the ordered tuple ``outcome``."""
        positions = self.positions(outcome)
        if self._mechanism._law == "exponential":
            weights = self._weights_exact()
            remaining = set(range(len(weights)))
            numerator, denominator = ExpSum.rational(1), ExpSum.rational(1)
            for i in positions:
                total = ExpSum.weighted_exps(
                    (self._mechanism.base_measure[j], self._mechanism.epsilon * self._scores[j]) for j in sorted(remaining)
                )
                numerator, denominator = numerator * weights[i], denominator * total
                remaining.discard(i)
            return ExpRatio._trusted(numerator, denominator)
        product = ExpSum.rational(1)
        removed: tuple[int, ...] = ()
        for i in positions:
            cache, members = self._pf_level_cache(removed)
            product = product * cache.exact()[cache.levels.level_of[members.index(i)]]
            removed = tuple(sorted(removed + (i,)))
        return ExpRatio._trusted(product, ExpSum.rational(1))

    def _pf_level_cache(self, removed: tuple[int, ...]) -> tuple[_LevelCache, list[int]]:
        members = [j for j in range(len(self._scores)) if j not in removed]
        cache = self._pf_cache.get(removed)
        if cache is None:
            cache = _LevelCache(_Levels([self._scores[j] for j in members]), self._mechanism.epsilon)
            self._pf_cache[removed] = cache
        return cache, members

    def enclose(self, outcome: Any, bits: int = 53) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the probability of ``outcome``, relative width about ``2**-bits``."""
        positions = self.positions(outcome)
        bits = _check_bits(bits)
        k = len(positions)
        if self._mechanism._law == "exponential":
            return self._enclose_exponential(positions, bits)
        lo, hi = Fraction(1), Fraction(1)
        removed: tuple[int, ...] = ()
        for i in positions:
            cache, members = self._pf_level_cache(removed)
            factor_lo, factor_hi = cache.enclosures(bits + k.bit_length() + 1)[cache.levels.level_of[members.index(i)]]
            lo, hi = lo * factor_lo, hi * factor_hi
            removed = tuple(sorted(removed + (i,)))
        return lo, hi

    def _enclose_exponential(self, positions: tuple[int, ...], bits: int) -> tuple[Fraction, Fraction]:
        mechanism = self._mechanism
        if any(mechanism.base_measure[i] == 0 for i in positions):
            return (Fraction(0), Fraction(0))
        precision = bits + 64 + len(self._scores).bit_length()
        top = max(mechanism.epsilon * s for s in self._scores)
        while True:
            with ctx.workprec(precision):
                weights = [
                    arb_from_fraction(m) * arb_from_fraction(mechanism.epsilon * s - top).exp() if m else arb(0)
                    for m, s in zip(mechanism.base_measure, self._scores)
                ]
                remaining = set(range(len(weights)))
                value = arb(1)
                for i in positions:
                    value *= weights[i] / sum((weights[j] for j in sorted(remaining)), arb(0))
                    remaining.discard(i)
                lo, hi = ball_endpoints(value)
            if lo > 0 and hi - lo <= (lo / 2**bits):
                return lo, hi
            if precision > 1 << 16:
                exact = self.exact_probability(tuple(mechanism.outputs[i] for i in positions))
                return exact.enclose(bits)
            precision *= 2

    def probability(self, outcome: Any) -> RefinedValue:
        """The probability of the ordered tuple ``outcome``, exactly comparable."""
        items = tuple(self._mechanism.outputs[i] for i in self.positions(outcome))
        return RefinedValue(
            lambda bits: self.enclose(items, bits), exact=lambda: self.exact_probability(items), label=f"P[{items!r}]"
        )

    def approximate(self, *, limit: int = MAX_ENUMERATED) -> dict[tuple[Hashable, ...], float]:
        """``{t: float(P[t])}`` over every tuple, for display only (at most ``limit`` tuples)."""
        self._check_enumerable(limit)
        return {t: float(sum(self.enclose(t, 30)) / 2) for t in self.outcomes()}

    def _check_enumerable(self, limit: int) -> None:
        if self.outcome_count > limit:
            raise InvalidArgument(
                f"the law has {self.outcome_count} ordered tuples, over limit={limit}", parameter="limit", value=limit
            )

    # -- sampling and privacy ---------------------------------------------------------

    def sample(self, *, rng: random.Random | None = None) -> tuple[Hashable, ...]:
        """One exact draw of the ordered k-tuple."""
        generator = resolve_rng(rng)
        mechanism = self._mechanism
        remaining = list(range(len(self._scores)))
        chosen = []
        for _ in range(mechanism.k):
            scores = [self._scores[j] for j in remaining]
            if mechanism._law == "exponential":
                measure = [mechanism.base_measure[j] for j in remaining]
                pick = InversionTable(measure, scores, mechanism.epsilon).sample_once(generator)
            else:
                pick = sample_permute_and_flip(scores, mechanism.epsilon, generator)
            chosen.append(mechanism.outputs[remaining.pop(pick)])
        return tuple(chosen)

    def privacy_loss(self, other: TopKDistribution, *, limit: int = MAX_ENUMERATED) -> PrivacyLoss:
        """The exact ``max_t |ln P_self(t) − ln P_other(t)|`` over every ordered tuple (at most ``limit``)."""
        if not isinstance(other, TopKDistribution) or other._mechanism is not self._mechanism:
            raise InvalidArgument(
                f"other={describe(other)} must be a TopKDistribution of the same mechanism", parameter="other", value=other
            )
        self._check_enumerable(limit)
        tuples = list(self.outcomes())
        return log_ratio_loss(
            tuples,
            self.enclose,
            other.enclose,
            lambda: [(self.exact_probability(t), other.exact_probability(t)) for t in tuples],
        )

    def __repr__(self) -> str:
        mechanism = self._mechanism
        return f"TopKDistribution({type(mechanism).__name__}, k={mechanism.k}, <{len(mechanism.outputs)} outputs>)"
