"""The exponential-mechanism quantile (Smith, 2011), exactly.

Clip the ``n`` data points to ``bounds = (a, b)``, sort them and add the
bounds: ``a = x_0 <= x_1 <= … <= x_n <= x_{n+1} = b``.  Interval ``i``
(``[x_i, x_{i+1}]``, ``i = 0 … n``) holds ``i`` points below it; the mechanism
picks interval ``i`` with probability ``∝ (x_{i+1} − x_i) · e^{ε u_i}``,
``u_i = −|i − quantile·n|``, then a uniform point in it.  So the choice of
interval is an exponential mechanism over ``{0, …, n}`` with the widths as base
measure (an :class:`~expmech.impl.ExponentialMechanism` built per dataset), and
the released value has the piecewise-constant density
``f_D(y) = e^{ε u_{i_D(y)}} / Z_D``, ``Z_D = Σ_i w_i e^{ε u_i}``.

``u`` changes by at most 1 between neighbouring datasets, so the released value
is ``2ε``-DP; :meth:`QuantileMechanism.privacy_loss` gives the exact loss of
the *released value* between two datasets (the density ratio, maximised over
the cells cut by both datasets' points), which is what a neighbouring pair can
reveal.  No continuous machinery is needed: the intervals are finitely many
and their widths rational.
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import as_rational, describe

from ..exact._exactreal import LogExpRatio
from ..exact._expsum import ExpSum
from ..quality._inputs import check_epsilon
from ..exponential._front import Distribution, ExponentialMechanism, PrivacyLoss

__all__ = ["QuantileMechanism"]


class _IntervalUtility:
    """``u_i = −|i − quantile·n|`` (the dataset argument is ignored: it is fixed per mechanism)."""

    __slots__ = ("target",)

    def __init__(self, target: Fraction) -> None:
        self.target = target

    def __call__(self, dataset: Any, i: int) -> Fraction:
        return -abs(i - self.target)

    def scores(self, dataset: Any, outputs: Sequence[int]) -> list[Fraction]:
        return [-abs(i - self.target) for i in outputs]


class QuantileMechanism:
    """Smith's quantile mechanism: the interval between sorted data points, with width as base measure.

    ``quantile`` is a rational in [0, 1]; ``epsilon`` the weight's ``ε``
    (probability ``∝ width · e^{ε u}``; the released value is ``2ε``-DP);
    ``bounds`` a pair ``(a, b)`` of rationals with ``a < b``.  A dataset is a
    sequence of numbers (floats are taken exactly).
    """

    __slots__ = ("_quantile", "_epsilon", "_bounds")

    def __init__(self, *, quantile: Any, epsilon: Any, bounds: Any) -> None:
        value = as_rational(quantile, name="quantile")
        if not 0 <= value <= 1:
            raise InvalidArgument(f"quantile={describe(quantile)} must be in [0, 1]", parameter="quantile", value=quantile)
        self._quantile = value
        self._epsilon = check_epsilon(epsilon)
        try:
            low, high = bounds
        except (TypeError, ValueError):
            raise InvalidType(f"bounds={describe(bounds)} must be a pair (a, b)", parameter="bounds", value=bounds) from None
        low_value, high_value = as_rational(low, name="bounds[0]"), as_rational(high, name="bounds[1]")
        if not low_value < high_value:
            raise InvalidArgument(f"bounds={describe(bounds)} must have a < b", parameter="bounds", value=bounds)
        self._bounds = (low_value, high_value)

    @property
    def quantile(self) -> Fraction:
        """The quantile sought, exactly."""
        return self._quantile

    @property
    def epsilon(self) -> Fraction:
        """``ε`` of the weight ``e^{ε u}``."""
        return self._epsilon

    @property
    def bounds(self) -> tuple[Fraction, Fraction]:
        """``(a, b)``: data are clipped to it and it closes the first and last interval."""
        return self._bounds

    def points(self, dataset: Any) -> tuple[Fraction, ...]:
        """``x_0 = a, x_1 … x_n`` (the clipped, sorted data), ``x_{n+1} = b``."""
        try:
            items = list(dataset)
        except TypeError:
            raise InvalidType(f"dataset={describe(dataset)} must be a sequence of numbers", parameter="dataset", value=dataset) from None
        low, high = self._bounds
        values = sorted(min(max(as_rational(x, name=f"dataset[{i}]"), low), high) for i, x in enumerate(items))
        return (low, *values, high)

    def widths(self, dataset: Any) -> tuple[Fraction, ...]:
        """The width of each interval ``i = 0 … n``."""
        points = self.points(dataset)
        return tuple(b - a for a, b in zip(points, points[1:]))

    def mechanism(self, dataset: Any) -> ExponentialMechanism:
        """The exponential mechanism choosing the interval on ``dataset`` (outputs ``0 … n``, widths as ``μ``)."""
        widths = self.widths(dataset)
        size = len(widths) - 1
        return ExponentialMechanism(
            _IntervalUtility(self._quantile * size),
            epsilon=self._epsilon,
            outputs=range(size + 1),
            base_measure=dict(enumerate(widths)),
        )

    def distribution(self, dataset: Any) -> Distribution:
        """The exact law of the chosen interval's index on ``dataset``."""
        return self.mechanism(dataset).distribution(dataset)

    def interval_of(self, dataset: Any, value: Any) -> int:
        """The index of the interval of positive width holding ``value`` (the lower one on a shared end).

        :class:`InvalidArgument` if ``value`` is outside the bounds.
        """
        y = as_rational(value, name="value")
        points = self.points(dataset)
        if not points[0] <= y <= points[-1]:
            raise InvalidArgument(f"value={describe(value)} is outside bounds {self._bounds}", parameter="value", value=value)
        index = max(0, min(bisect_left(points, y) - 1, len(points) - 2))
        while index < len(points) - 2 and points[index + 1] == points[index]:
            index += 1  # a zero-width interval has probability 0: step to the next one
        return index

    def sample_interval(self, dataset: Any, *, rng: random.Random | None = None) -> int:
        """One exact draw of the chosen interval's index."""
        return int(self.distribution(dataset).sample(rng=rng))  # type: ignore[call-overload]

    def privacy_loss(self, dataset1: Any, dataset2: Any) -> PrivacyLoss:
        """The exact ``sup_y |ln f_1(y) − ln f_2(y)|`` of the released value's densities on two datasets.

        ``output`` is a cell ``(lo, hi)`` of the bounds, cut by both datasets'
        points, on which the supremum is attained.
        """
        points1, points2 = self.points(dataset1), self.points(dataset2)
        n1, n2 = len(points1) - 2, len(points2) - 2
        eps = self._epsilon
        cuts = sorted(set(points1) | set(points2))
        cells = []
        for lo, hi in zip(cuts, cuts[1:]):
            index1 = bisect_right(points1, lo) - 1
            index2 = bisect_right(points2, lo) - 1
            u1 = -abs(index1 - self._quantile * n1)
            u2 = -abs(index2 - self._quantile * n2)
            cells.append((u1 - u2, (lo, hi)))
        z1 = _normaliser(points1, self._quantile, eps)
        z2 = _normaliser(points2, self._quantile, eps)
        high, high_cell = max(cells, key=lambda cell: cell[0])
        low, low_cell = min(cells, key=lambda cell: cell[0])
        upper = LogExpRatio._trusted(z2.shift(eps * high), z1)
        lower = LogExpRatio._trusted(z1.shift(-eps * low), z2)
        if (z2.shift(eps * (high + low) / 2) - z1).sign() >= 0:
            return PrivacyLoss(value=upper, output=high_cell, larger_on_first=True)
        return PrivacyLoss(value=lower, output=low_cell, larger_on_first=False)

    def __repr__(self) -> str:
        return f"QuantileMechanism(quantile={self._quantile}, epsilon={self._epsilon}, bounds={self._bounds})"


def _normaliser(points: Sequence[Fraction], quantile: Fraction, epsilon: Fraction) -> ExpSum:
    n = len(points) - 2
    return ExpSum.weighted_exps(
        (points[i + 1] - points[i], -epsilon * abs(i - quantile * n)) for i in range(n + 1)
    )
