"""Posterior sampling over a finite parameter grid, exactly.

Statement ``posterior-sampling``: drawing θ with probability proportional to
``π(θ)·L(d | θ)^{ε₀}`` is the exponential mechanism with base measure
``π`` and quality ``q = ln L``.  For a :class:`~expmech.spec.LogLikelihood`
over a finite grid, ``L(d | θ)`` is a rational, so:

* with an *integer* tempering factor ``ε₀`` every weight, probability and
  likelihood ratio is a rational: the law is exact with ``Fraction`` alone, a
  draw needs only one uniform random integer, and the privacy loss
  ``max_θ |ln p_d(θ) − ln p_{d'}(θ)|`` is the logarithm of a rational, compared
  exactly with ``ε = 2·ε₀·ln ρ`` as a :class:`LogLinear`;
* with a *fractional* tempering factor ``ε₀ = a/b`` the weights
  ``π(θ)·(L^a)^{1/b}`` are real ``b``-th roots of rationals: probabilities are
  :class:`RadicalRatio` values, the privacy loss a :class:`LogRadicalRatio`,
  each comparison the exact sign of a sum of radicals (``expmech.impl.exact._radical``),
  and a draw inverts the CDF against rigorous ball enclosures, revealing the
  uniform variable's bits lazily, so it is exact too.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Hashable, Iterable
from fractions import Fraction
from typing import Any

from flint import arb, ctx

from expmech.spec import InvalidArgument, InvalidType, LogLikelihood, OutputSpace, RationalRange
from expmech.spec.internal import describe

from ..quality._inputs import check_base_measure, check_epsilon, check_outputs
from ..exact._expsum import DEFAULT_MAX_PRECISION
from ..sampling._lazy import draw_lazily, locate_in_table
from ..exact._loglinear import LogLinear
from ..exponential._finite import PrivacyLoss
from ..exact._radical import LogRadicalRatio, RadicalRatio, RadicalSum
from ._posterior_continuous import ContinuousPosterior
from ..sampling._random import resolve_rng

__all__ = ["PosteriorDistribution", "PosteriorSampling"]


class PosteriorSampling:
    """One (tempered) posterior sample: the exponential mechanism with ``q = ln L`` and ``μ = prior``.

    ``quality`` is a :class:`~expmech.spec.LogLikelihood`; ``epsilon`` the
    tempering factor ε₀, a rational > 0 (1: the posterior itself; see the
    module docstring for integer and fractional factors);
    ``outputs`` the parameter grid (default: every parameter of the quality's
    finite output space); ``base_measure`` the prior (``None``: uniform; a
    mapping or callable of rationals >= 0, not all zero).  Bad arguments raise
    :class:`~expmech.spec.InvalidArgument` naming the parameter and its value.

    >>> import sympy
    >>> from expmech.spec import Booleans, Grid, OutputSpace, RecordSchema
    >>> schema = RecordSchema(x=Booleans())
    >>> outputs = OutputSpace(theta=Grid((Fraction(1, 4), Fraction(1, 2), Fraction(3, 4))))
    >>> x, theta = schema["x"], outputs["theta"]
    >>> ell = LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs)
    >>> posterior = PosteriorSampling(ell, epsilon=1)
    >>> posterior.distribution([True, True, False]).probability(Fraction(3, 4))
    Fraction(9, 20)
    """

    __slots__ = ("_quality", "_epsilon", "_outputs", "_base_measure", "_index", "_continuous")

    def __init__(self, quality: Any, *, epsilon: Any = 1, outputs: Any = None, base_measure: Any = None) -> None:
        if not isinstance(quality, LogLikelihood):
            raise InvalidType(
                f"quality={describe(quality)} must be an expmech.spec.LogLikelihood", parameter="quality", value=quality
            )
        self._quality = quality
        self._epsilon = check_epsilon(epsilon)
        self._continuous: ContinuousPosterior | None = None
        interval = posterior_interval(quality, outputs)
        if interval is not None:
            self._continuous = ContinuousPosterior(quality, epsilon=self._epsilon, interval=interval, prior=base_measure)
            self._outputs: tuple[Hashable, ...] = ()
            self._base_measure: tuple[Fraction, ...] = ()
            self._index: dict[Hashable, int] = {}
            return
        if outputs is None:
            if not quality.output_space.is_finite:
                raise InvalidArgument(
                    "the parameter space is not finite: give outputs= (a finite grid of parameters)", parameter="outputs", value=None
                )
            outputs = quality.outputs()
        self._outputs = check_outputs(outputs)
        for i, theta in enumerate(self._outputs):
            quality.output_space.encode(theta, name=f"outputs[{i}]")
        self._base_measure = check_base_measure(base_measure, self._outputs)
        self._index = {theta: i for i, theta in enumerate(self._outputs)}

    @property
    def quality(self) -> LogLikelihood:
        """The log-likelihood quality."""
        return self._quality

    @property
    def epsilon(self) -> Fraction:
        """The tempering factor ε₀."""
        return self._epsilon

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The parameter grid, in the order given."""
        return self._outputs

    @property
    def base_measure(self) -> tuple[Fraction, ...]:
        """The prior ``π(θ)`` of each parameter, in output order."""
        return self._base_measure

    def weights(self, dataset: Any) -> tuple[Fraction, ...] | tuple[RadicalSum, ...]:
        """``π(θ)·L(d | θ)^{ε₀}`` for each θ of a grid, exactly: Fractions for an integer ε₀, else :class:`RadicalSum` values."""
        if self._continuous is not None:
            raise InvalidArgument("θ ranges over an interval: use distribution(dataset).density(θ)", parameter="outputs", value=self._continuous.interval)
        a, b = self._epsilon.numerator, self._epsilon.denominator
        likelihoods = self._quality.likelihoods(dataset, self._outputs)
        if b == 1:
            return tuple(m * lik**a for m, lik in zip(self._base_measure, likelihoods))
        return tuple(
            RadicalSum.root(lik**a, b, m) if m and lik else RadicalSum() for m, lik in zip(self._base_measure, likelihoods)
        )

    @property
    def continuous(self) -> ContinuousPosterior | None:
        """The polynomial law's machinery when θ ranges over an interval, else None."""
        return self._continuous

    def distribution(self, dataset: Any) -> Any:
        """The exact law of the (tempered) posterior sample on ``dataset``.

        A :class:`PosteriorDistribution` on a finite grid, a
        :class:`ContinuousPosteriorDistribution` when θ ranges over an interval.
        Raises :class:`InvalidArgument` when every weight is 0 (the prior puts no
        mass where the data have positive likelihood).
        """
        if self._continuous is not None:
            return self._continuous.distribution(dataset)
        weights = self.weights(dataset)
        if all(w == 0 for w in weights):
            raise InvalidArgument(
                "every parameter has posterior weight 0: the prior gives no mass where the data have positive likelihood",
                parameter="dataset",
                value=dataset,
            )
        return PosteriorDistribution(self, weights)

    def privacy_loss(self, dataset1: Any, dataset2: Any) -> PrivacyLoss:
        """The exact ``max_θ |ln p1(θ) − ln p2(θ)|`` over parameters either law can draw (``+∞`` if only one can)."""
        return self.distribution(dataset1).privacy_loss(self.distribution(dataset2))

    def sample(self, dataset: Any, *, rng: random.Random | None = None, **grid: Any) -> Hashable:
        """One exact draw of the (tempered) posterior on ``dataset``.

        For θ on an interval the draw is released on a grid: ``grid_bits=`` (a
        step of 2^-bits, default 20) or ``grid=`` (a rational step).
        """
        if grid and self._continuous is None:
            raise InvalidArgument(f"{sorted(grid)[0]}= applies to a continuous parameter only", parameter=sorted(grid)[0], value=grid)
        return self.distribution(dataset).sample(rng=rng, **grid)

    def __repr__(self) -> str:
        return f"PosteriorSampling({self._quality!r}, epsilon={self._epsilon}, outputs=<{len(self._outputs)} parameters>)"


def posterior_interval(quality: LogLikelihood, outputs: Any) -> RationalRange | None:
    """The interval θ ranges over, if the outputs are one (a RationalRange, or the quality's one RationalRange variable)."""
    if isinstance(outputs, RationalRange):
        domains = [domain for _, _, domain in quality.output_space.items()]
        own = domains[0].bounds() if len(domains) == 1 and isinstance(domains[0], RationalRange) else (None, None)
        lo, hi = outputs.bounds()
        if (own[0] is not None and (lo is None or lo < own[0])) or (own[1] is not None and (hi is None or hi > own[1])):
            raise InvalidArgument(
                f"outputs={outputs.describe()} is not inside the likelihood's domain {domains[0].describe()}: ℓ is defined only there",
                parameter="outputs",
                value=outputs,
            )
        return outputs
    if isinstance(outputs, OutputSpace):
        outputs = None if outputs == quality.output_space else outputs
    if outputs is None:
        domains = [domain for _, _, domain in quality.output_space.items()]
        if len(domains) == 1 and isinstance(domains[0], RationalRange):
            return domains[0]
    return None


class PosteriorDistribution:
    """The exact law ``p(θ) = w(θ) / Σ w`` of one posterior sample, ``w(θ) = π(θ)·L(d | θ)^{ε₀}``.

    Probabilities are ``Fraction`` values for an integer ε₀ and
    :class:`RadicalRatio` values for a fractional one; both compare exactly.
    """

    __slots__ = ("_mechanism", "_weights", "_total", "_table")

    def __init__(self, mechanism: PosteriorSampling, weights: tuple[Fraction, ...] | tuple[RadicalSum, ...]) -> None:
        self._mechanism = mechanism
        self._weights: tuple[Any, ...] = weights
        self._total: Any = sum(weights[1:], weights[0])
        self._table: Any = None

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The parameter grid."""
        return self._mechanism.outputs

    @property
    def weights(self) -> tuple[Fraction, ...] | tuple[RadicalSum, ...]:
        """The unnormalised weights, in output order."""
        return self._weights

    @property
    def exact_rational(self) -> bool:
        """Whether the law is rational (an integer tempering factor)."""
        return self._mechanism.epsilon.denominator == 1

    def _position(self, theta: Hashable) -> int:
        try:
            return self._mechanism._index[theta]
        except (KeyError, TypeError):
            raise InvalidArgument(f"theta={describe(theta)} is not one of the mechanism's outputs", parameter="theta", value=theta) from None

    def probability(self, theta: Hashable) -> Fraction | RadicalRatio:
        """``p(θ)`` exactly: a Fraction (integer ε₀) or a :class:`RadicalRatio` (fractional ε₀)."""
        weight = self._weights[self._position(theta)]
        if self.exact_rational:
            return Fraction(weight / self._total)
        return RadicalRatio(weight, self._total)

    def mass(self, subset: Iterable[Hashable]) -> Fraction | RadicalRatio:
        """``P[θ ∈ subset]`` exactly."""
        positions = sorted({self._position(theta) for theta in subset})
        if self.exact_rational:
            return sum((self._weights[i] for i in positions), Fraction(0)) / self._total
        return RadicalRatio(sum((self._weights[i] for i in positions), RadicalSum()), self._total)

    def privacy_loss(self, other: PosteriorDistribution) -> PrivacyLoss:
        """The exact ``max_θ |ln p_self(θ) − ln p_other(θ)|`` (``+∞`` where exactly one of them is 0).

        ``ln p_self − ln p_other = ε₀·ln(L_self/L_other) + ln(Z_other/Z_self)``
        at each θ, so the maximum is at the largest or the smallest likelihood
        ratio; the two candidates are compared exactly.
        """
        if not isinstance(other, PosteriorDistribution) or other._mechanism is not self._mechanism:
            raise InvalidArgument(f"other={describe(other)} must be a distribution of the same mechanism", parameter="other", value=other)
        if self.exact_rational:
            return self._rational_loss(other)
        ratios = []
        for theta, w1, w2 in zip(self.outputs, self._weights, other._weights):
            if w1 == 0 and w2 == 0:
                continue
            if w1 == 0 or w2 == 0:
                return PrivacyLoss(LogLinear.infinity(), theta, w1 != 0)
            ratios.append((RadicalRatio(w1, w2), theta))
        high, high_theta = ratios[0]
        low, low_theta = ratios[0]
        for ratio, theta in ratios[1:]:
            if ratio > high:
                high, high_theta = ratio, theta
            if ratio < low:
                low, low_theta = ratio, theta
        # ln p1/p2 at the largest weight ratio, and ln p2/p1 at the smallest
        upper = LogRadicalRatio(high.numerator * other._total, high.denominator * self._total)
        lower = LogRadicalRatio(low.denominator * self._total, low.numerator * other._total)
        if upper >= lower:
            return PrivacyLoss(upper, high_theta, True)
        return PrivacyLoss(lower, low_theta, False)

    def _rational_loss(self, other: PosteriorDistribution) -> PrivacyLoss:
        best: Fraction | None = None
        best_theta: Hashable = None
        first = True
        for theta, w1, w2 in zip(self.outputs, self._weights, other._weights):
            if w1 == 0 and w2 == 0:
                continue
            if w1 == 0 or w2 == 0:
                return PrivacyLoss(LogLinear.infinity(), theta, w1 > 0)
            ratio = (w1 / self._total) / (w2 / other._total)
            for value, larger_on_first in ((ratio, True), (1 / ratio, False)):
                if best is None or value > best:
                    best, best_theta, first = value, theta, larger_on_first
        assert best is not None  # both totals are positive, so some θ has positive weight on both or on one side
        return PrivacyLoss(LogLinear.log(best), best_theta, first)

    def sample(self, *, rng: random.Random | None = None) -> Hashable:
        """One exact draw (the table is built once and reused).

        Integer ε₀: a uniform integer below the common-denominator total, located
        by bisection.  Fractional ε₀: the uniform U's bits are revealed lazily and
        U is compared with ball enclosures of the cumulative probabilities; a
        parameter is chosen only when every U the revealed bits allow falls in
        its cell, so the draw is exactly the inverse CDF of U.
        """
        generator = resolve_rng(rng)
        if self.exact_rational:
            return self.outputs[self._rational_draw(generator)]
        return self.outputs[_lazy_inverse(self._weights, generator)]

    def _rational_draw(self, rng: random.Random) -> int:
        if self._table is None:
            denominator = 1
            for w in self._weights:
                denominator = denominator * w.denominator // math.gcd(denominator, w.denominator)
            cumulative, running = [], 0
            for w in self._weights:
                running += w.numerator * (denominator // w.denominator)
                cumulative.append(running)
            self._table = (cumulative, running)
        cumulative, total = self._table
        return bisect.bisect_right(cumulative, rng.randrange(total))

    def __repr__(self) -> str:
        return f"PosteriorDistribution(<{len(self._weights)} parameters>, epsilon={self._mechanism.epsilon})"


def _lazy_inverse(weights: tuple[Any, ...], rng: random.Random) -> int:
    """The index ``j`` with ``S_{j-1} <= U·Z < S_j`` for a uniform U revealed 64 bits at a time.

    The cumulative weights are enclosed in balls at a precision that grows with
    the bits revealed; a cell is chosen only when the balls separate it from
    the U interval.  ``U·Z = S_j`` has probability 0, so the draw ends with
    probability 1.
    """
    tables: dict[int, list[arb]] = {}

    def prefix(precision: int) -> list[arb]:
        if precision not in tables:
            with ctx.workprec(precision):
                running, out = arb(0), []
                for w in weights:
                    running = running + (w._ball(precision) if not w.is_zero() else arb(0))
                    out.append(running)
            tables[precision] = out
        return tables[precision]

    def locate(u: int, k: int) -> int | None:
        precision = min(max(128, 2 * k), DEFAULT_MAX_PRECISION)
        return locate_in_table(prefix(precision), precision, u, k)

    return draw_lazily(locate, rng)
