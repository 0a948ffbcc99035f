"""The exponential mechanism over a finite range, exactly.

``E_q^ε(d)`` returns ``r`` with probability
``μ(r) · e^{ε q(d, r)} / Σ_s μ(s) · e^{ε q(d, s)}`` (spec statement
``density``).  With rational ``ε``, ``q`` and ``μ`` every probability is an
:class:`ExpRatio` and every privacy loss a :class:`LogExpRatio`, so each
comparison the toolkit makes is decided exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.spec import ExpMechError, InvalidArgument
from expmech.spec.internal import describe, readable

from ..exact._exactreal import ExpRatio, LogExpRatio
from ..exact._expsum import DEFAULT_MAX_PRECISION, ExpSum
from ..quality._inputs import check_base_measure, check_epsilon, check_outputs, check_quality
from ..quality._scoring import ScoreFunction
from ..exact._floatfilter import float_coefficients
from ..sampling._inversion import InversionTable
from ..exact._loglinear import LogLinear
from ..exact._radical import LogRadicalRatio
from ..exact._rationals import RationalArray
from ..sampling._bits import bits_of
from ..sampling._knuth_yao import draw_levels, draw_scores
from ..sampling._random import resolve_rng
from ..exact._refined import RefinedValue
from ._kinds import range_class

__all__ = ["Distribution", "ExponentialMechanism", "PrivacyLoss"]


class ExponentialMechanism:
    """The exponential mechanism ``E_q^ε`` over a finite range with base measure ``μ``.

    ``quality`` is any callable ``q(dataset, r)`` returning an exact rational
    (int or Fraction; a float is taken as the exact rational it represents;
    NaN, infinities and non-numbers are refused).  An object with a
    ``scores(dataset, outputs)`` method is evaluated through it in one call
    (``outputs`` is the range as a tuple, or the ``range`` object itself when
    one was given).
    ``epsilon`` is a finite rational > 0.  ``outputs`` is a finite non-empty
    sequence of distinct hashable values.  ``base_measure`` is ``None``
    (counting measure), a mapping or a callable giving rationals >= 0, not all
    zero.  Every bad argument raises an :class:`~expmech.spec.InvalidArgument`
    (also a ``ValueError``; :class:`~expmech.spec.InvalidType` is also a
    ``TypeError``) naming the parameter and its value.

    >>> from fractions import Fraction
    >>> mech = ExponentialMechanism(lambda d, r: -abs(sum(d) - r), epsilon=Fraction(1, 2), outputs=range(4))
    >>> mech.distribution([1, 1]).probability(2) > mech.distribution([1, 1]).probability(3)
    True
    >>> mech.privacy_loss([1, 1], [1, 0]) <= 2 * Fraction(1, 2) * 1
    True
    """

    __slots__ = ("_quality", "_epsilon", "_outputs", "_base_measure", "_index", "_score_function", "_measure_vector", "_measure_floats")

    def __new__(cls, *args: Any, **kwargs: Any) -> ExponentialMechanism:
        """A range (an interval or an infinite set of integers) as ``outputs`` dispatches to its mechanism."""
        if cls is ExponentialMechanism:
            target = range_class(kwargs.get("outputs"))
            if target is not None:
                return object.__new__(target)
        return object.__new__(cls)

    def __init__(
        self,
        quality: Callable[[Any, Any], Any],
        *,
        epsilon: Any,
        outputs: Any,
        base_measure: Any = None,
    ) -> None:
        self._quality = check_quality(quality)
        self._epsilon = check_epsilon(epsilon)
        self._outputs = check_outputs(outputs)
        self._base_measure = check_base_measure(base_measure, self._outputs)
        self._index = {r: i for i, r in enumerate(self._outputs)}
        self._score_function = ScoreFunction(self._quality, self._outputs, given=outputs)
        measure = RationalArray.of(list(self._base_measure))
        # None stands for the counting measure: the common case, with nothing to multiply
        self._measure_vector: RationalArray | None = None if measure.den == 1 and bool(np.all(measure.num == 1)) else measure
        self._measure_floats = None if self._measure_vector is None else float_coefficients(measure.num, int(measure.den))

    @property
    def quality(self) -> Callable[[Any, Any], Any]:
        """The quality function ``q(dataset, r)``."""
        return self._quality

    @property
    def epsilon(self) -> Fraction:
        """The mechanism's ``ε`` (the weight is ``e^{ε q}``), exactly."""
        return self._epsilon

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The range ``R``, in the order given."""
        return self._outputs

    @property
    def base_measure(self) -> tuple[Fraction, ...]:
        """``μ(r)`` for each output, in output order."""
        return self._base_measure

    def scores(self, dataset: Any) -> tuple[int | Fraction, ...]:
        """``q(dataset, r)`` for each output, as exact rationals (``int`` or ``Fraction``)."""
        return tuple(self._score_function(dataset).to_list())

    def distribution(self, dataset: Any) -> Distribution:
        """The exact output distribution of ``E_q^ε(dataset)``."""
        return Distribution._build(self, self._score_function(dataset))

    def privacy_loss(self, dataset1: Any, dataset2: Any) -> PrivacyLoss:
        """The exact ``max_r |ln p1(r) − ln p2(r)|`` over outputs of positive measure.

        ``p1`` and ``p2`` are the distributions on ``dataset1`` and
        ``dataset2``.  The result compares exactly with rationals
        (``loss <= Fraction(2)`` is decided, never rounded) and names an output
        attaining the maximum.
        """
        return self.distribution(dataset1).privacy_loss(self.distribution(dataset2))

    def privacy_losses(self, pairs: Iterable[tuple[Any, Any]]) -> list[PrivacyLoss]:
        """``privacy_loss(dataset1, dataset2)`` of each pair, in order, equal to it pair by pair.

        The scores of a spec quality on all the datasets are computed in one
        vectorised batch (as fast as one dataset for a handful of them).  When
        the batch raises, the pairs are taken one by one, so the error is the
        one ``privacy_loss`` raises on the first pair that fails.
        """
        items = list(pairs)
        kind = type(self)
        if kind.distribution is not ExponentialMechanism.distribution or kind.privacy_loss is not ExponentialMechanism.privacy_loss:
            return [self.privacy_loss(first, second) for first, second in items]  # a range's own distributions
        try:
            rows = self._score_function.many([dataset for pair in items for dataset in pair])
        except ExpMechError:
            return [self.privacy_loss(first, second) for first, second in items]
        build = Distribution._build
        return [build(self, rows[2 * j]).privacy_loss(build(self, rows[2 * j + 1])) for j in range(len(items))]

    def expected_quality(self, dataset: Any) -> ExpRatio:
        """The exact ``E[q(dataset, E_q^ε(dataset))]``; use ``.enclose(bits)`` for rational bounds."""
        return self.distribution(dataset).expected_quality()

    def sample(self, dataset: Any, *, rng: random.Random | None = None) -> Hashable:
        """One exact draw of ``E_q^ε(dataset)``.

        ``rng`` is a :class:`random.Random` (``secrets.SystemRandom()`` when
        ``None``); only its integer random bits are used.  With the counting
        measure the draw is a Knuth–Yao walk over the levels of the scores
        (:mod:`expmech.impl.sampling._knuth_yao`): it reads fewer than ``H + 2``
        bits on average (``H`` the entropy of the law), and the bits it does
        not read stay buffered for the next draw with the same generator.  To
        draw many times from one dataset, ``distribution(dataset).sample``
        reuses a table.
        """
        generator = resolve_rng(rng)
        scores, top, bottom = self._score_function.with_extremes(dataset)
        if self._measure_vector is None:
            if top is not None and bottom is not None:  # an int64 vector over denominator 1, read on the way
                found = draw_levels(scores.num, top, bottom, self._epsilon, generator, bits_of(generator))
            else:
                found = draw_scores(scores, self._epsilon, generator, bits_of(generator))
            if found is not None:
                return self._outputs[found]
        index = InversionTable.draw(self._measure_vector, scores, self._epsilon, generator, measure_floats=self._measure_floats)
        return self._outputs[index]

    def __repr__(self) -> str:
        return (
            f"ExponentialMechanism(quality={self._quality!r}, epsilon={self._epsilon}, "
            f"outputs=<{len(self._outputs)} outputs>)"
        )


class Distribution:
    """The exact distribution ``p(r) = μ(r) e^{ε q(r)} / Z`` of one mechanism on one dataset.

    Built by :meth:`ExponentialMechanism.distribution`.  ``probability(r)``
    is an :class:`ExpRatio`; ``float()`` of it is for display only.  The
    scores are held as one exact vector; sums over outputs (the normaliser,
    masses, the expected quality) are vector :class:`ExpSum` values, decided by
    the float filter first and exactly where it cannot.
    """

    __slots__ = ("_mechanism", "_vector", "_exponent_vector", "_normaliser", "_table", "_score_tuple")

    _mechanism: ExponentialMechanism
    _vector: RationalArray
    _exponent_vector: RationalArray | None
    _normaliser: ExpSum | None
    _table: InversionTable | None
    _score_tuple: tuple[int | Fraction, ...] | None

    @classmethod
    def _build(cls, mechanism: ExponentialMechanism, scores: RationalArray | Sequence[int | Fraction]) -> Distribution:
        result = object.__new__(cls)
        result._mechanism = mechanism
        result._vector = scores if isinstance(scores, RationalArray) else RationalArray.of(list(scores))
        result._exponent_vector = None
        result._normaliser = None
        result._table = None
        result._score_tuple = None
        return result

    @property
    def mechanism(self) -> ExponentialMechanism:
        """The mechanism this is the distribution of."""
        return self._mechanism

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The range, in the mechanism's order."""
        return self._mechanism.outputs

    @property
    def scores(self) -> tuple[int | Fraction, ...]:
        """``q(dataset, r)`` per output, exactly."""
        if self._score_tuple is None:
            self._score_tuple = tuple(self._vector.to_list())
        return self._score_tuple

    def _exponents(self) -> RationalArray:
        if self._exponent_vector is None:
            self._exponent_vector = self._vector * RationalArray.constant(self._mechanism.epsilon)
        return self._exponent_vector

    @property
    def exponents(self) -> tuple[Fraction, ...]:
        """``ε · q(dataset, r)`` per output, exactly."""
        return tuple(Fraction(v) for v in self._exponents().to_list())

    @property
    def normaliser(self) -> ExpSum:
        """``Z = Σ_r μ(r) e^{ε q(r)}``, exactly."""
        if self._normaliser is None:
            self._normaliser = ExpSum.vector(self._mechanism._measure_vector, self._exponents(), nonnegative=True, positive=True)
        return self._normaliser

    def _position(self, r: Hashable) -> int:
        try:
            return self._mechanism._index[r]
        except (KeyError, TypeError):
            raise InvalidArgument(f"r={describe(r)} is not an output of this mechanism", parameter="r", value=r) from None

    def weight(self, r: Hashable) -> ExpSum:
        """The unnormalised weight ``μ(r) e^{ε q(r)}``."""
        i = self._position(r)
        return ExpSum.weighted_exps([(self._mechanism.base_measure[i], self._exponents().item(i))])

    def probability(self, r: Hashable) -> ExpRatio:
        """``p(r)`` exactly."""
        return ExpRatio._trusted(self.weight(r), self.normaliser)

    def mass(self, subset: Iterable[Hashable]) -> ExpRatio:
        """``p(subset)`` exactly; each element must be an output (repeats count once)."""
        positions = np.array(sorted({self._position(r) for r in subset}), dtype=np.int64)
        measure = self._mechanism._measure_vector
        numerator = ExpSum.vector(None if measure is None else measure[positions], self._exponents()[positions], nonnegative=True)
        return ExpRatio._trusted(numerator, self.normaliser)

    def enclose(self, r: Hashable, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` with ``lo <= p(r) <= hi``, relative width ``<= 2**-bits``."""
        return self.probability(r).enclose(bits, max_precision=max_precision)

    def expected_quality(self) -> ExpRatio:
        """``E[q]`` under this distribution, exactly."""
        measure = self._mechanism._measure_vector
        weights = self._vector if measure is None else self._vector * measure
        return ExpRatio._trusted(ExpSum.vector(weights, self._exponents()), self.normaliser)

    def approximate(self) -> dict[Hashable, float]:
        """``{r: p(r)}`` in floats, for display and plots only; nothing is decided on it."""
        probabilities = self._approximate()
        return dict(zip(self.outputs, probabilities.tolist()))

    def _approximate(self) -> np.ndarray:
        exponents = self._exponents()
        measure = self._mechanism._measure_vector
        shifted = exponents - RationalArray.constant(Fraction(int(exponents.num.max()), int(exponents.den))) if not isinstance(exponents.den, np.ndarray) else None
        if shifted is None or shifted.num.dtype == object or int(shifted.den).bit_length() > 1000:
            return np.array([float(self.probability(r)) for r in self.outputs])
        with np.errstate(under="ignore"):
            weights = np.exp(shifted.num.astype(np.float64) / float(shifted.den))
            if measure is not None:
                weights = weights * (measure.num.astype(np.float64) / float(measure.den))
        return weights / weights.sum()

    def privacy_loss(self, other: Distribution) -> PrivacyLoss:
        """The exact ``max_r |ln p_self(r) − ln p_other(r)|`` over outputs of positive measure.

        ``other`` must be a distribution of the same mechanism.  With
        ``Δ_r = q_self(r) − q_other(r)`` and ``C = ln(Z_other / Z_self)`` the
        log-ratio at ``r`` is ``ε Δ_r + C``, so the maximum is attained at the
        largest or the smallest ``Δ_r``; the two candidates are compared exactly.
        """
        if not isinstance(other, Distribution) or other._mechanism is not self._mechanism:
            raise InvalidArgument(
                f"other={describe(other)} must be a Distribution of the same mechanism",
                parameter="other",
                value=other,
            )
        differences = (self._vector - other._vector).shared()
        measure = self._mechanism._measure_vector
        nums = differences.num  # one shared denominator: order by numerators; outputs of measure 0 left out
        high_index = int(np.argmax(nums if measure is None else np.where(measure.num > 0, nums, nums.min() - 1)))
        low_index = int(np.argmin(nums if measure is None else np.where(measure.num > 0, nums, nums.max() + 1)))
        high, low = differences.item(high_index), differences.item(low_index)
        epsilon = self._mechanism.epsilon
        z_self, z_other = self.normaliser, other.normaliser
        # ln p_self − ln p_other at the largest Δ, and its negative at the smallest Δ
        upper = LogExpRatio._trusted(z_other.shift(epsilon * high), z_self)
        lower = LogExpRatio._trusted(z_self.shift(-epsilon * low), z_other)
        # upper >= lower  <=>  ε (high + low) / 2 + ln(Z_other / Z_self) >= 0
        if (z_other.shift(epsilon * (high + low) / 2) - z_self).sign() >= 0:
            return PrivacyLoss(value=upper, output=self.outputs[high_index], larger_on_first=True)
        return PrivacyLoss(value=lower, output=self.outputs[low_index], larger_on_first=False)

    def sample(self, *, rng: random.Random | None = None) -> Hashable:
        """One exact draw; the sampling table is built once and reused."""
        return self.outputs[self._sampling_table().sample(resolve_rng(rng))]

    def _sampling_table(self) -> InversionTable:
        if self._table is None:
            mechanism = self._mechanism
            self._table = InversionTable(mechanism._measure_vector, self._vector, mechanism.epsilon)
        return self._table

    def __repr__(self) -> str:
        return f"Distribution(<{len(self.outputs)} outputs>, epsilon={self._mechanism.epsilon})"


@dataclass(frozen=True, eq=False)
class PrivacyLoss:
    """The exact privacy loss ``max_r |ln p1(r) − ln p2(r)|`` between two distributions.

    ``value`` is a :class:`LogExpRatio` (the exponential mechanism), a
    :class:`LogLinear` (posterior sampling, possibly ``+∞``), a
    :class:`LogRadicalRatio` (a fractionally tempered posterior) or a
    :class:`RefinedValue` (laws known by enclosures: permute-and-flip, top-k;
    ``output`` then attains the maximum up to the enclosure's width);
    ``output`` an output attaining the maximum; ``larger_on_first`` whether
    ``p1(output) >= p2(output)`` there.  Compares exactly with rationals:
    ``loss <= Fraction(1, 2)`` (and, for a ``LogLinear``, with sympy numbers
    such as ``2*log(3)``).
    """

    value: LogExpRatio | LogLinear | LogRadicalRatio | RefinedValue
    output: Hashable
    larger_on_first: bool

    def __le__(self, other: object) -> bool:
        return self.value <= _unwrap(other)

    def __lt__(self, other: object) -> bool:
        return self.value < _unwrap(other)

    def __ge__(self, other: object) -> bool:
        return self.value >= _unwrap(other)

    def __gt__(self, other: object) -> bool:
        return self.value > _unwrap(other)

    def __eq__(self, other: object) -> bool:
        return self.value == _unwrap(other)

    __hash__ = None  # type: ignore[assignment]

    def enclose(self, bits: int = 53) -> tuple[Fraction, Fraction]:
        """Rationals ``(lo, hi)`` around the loss, relative width ``<= 2**-bits`` (``(0, 0)`` if zero)."""
        return self.value.enclose(bits)

    def __float__(self) -> float:
        """A float near the loss, for display only."""
        return float(self.value)

    def __str__(self) -> str:
        """The exact loss, its approximation and where it is attained: ``ln(…) ≈ 0.374 at r = 5``."""
        return f"{self.value} at r = {readable(self.output)}"

    def __repr__(self) -> str:
        return f"PrivacyLoss({self})"


def _unwrap(value: object) -> Any:
    return value.value if isinstance(value, PrivacyLoss) else value
