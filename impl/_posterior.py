"""Posterior sampling over a finite parameter grid, exactly, with rationals alone.

Statement ``posterior-sampling``: drawing θ with probability proportional to
``π(θ)·L(d | θ)^{ε₀}`` is the exponential mechanism with base measure
``π`` and quality ``q = ln L``.  For a :class:`~expmech.spec.LogLikelihood`
over a finite grid, ``L(d | θ)`` is a rational, so with an *integer*
tempering factor ``ε₀ >= 1`` every weight, every probability and every
likelihood ratio is a rational: the law is exact with ``Fraction`` alone, a
draw needs only a uniform random integer, and the privacy loss
``max_θ |ln p_d(θ) − ln p_{d'}(θ)|`` is the logarithm of a rational, compared
exactly with ``ε = 2·ε₀·ln ρ`` as a :class:`LogLinear`.

A non-integer tempering factor ``ε₀ = a/b`` makes the weights ``L^{a/b}``
algebraic, not rational; it is refused here with an error that says so (the
privacy certificate, which needs only ``ε = 2·ε₀·ln ρ``, is still available
from ``expmech.proofs.certify``).
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Hashable, Iterable
from fractions import Fraction
from typing import Any

from expmech.spec import LogLikelihood
from expmech.spec._errors import InvalidArgument, InvalidType, describe

from ._inputs import check_base_measure, check_epsilon, check_outputs
from ._loglinear import LogLinear
from ._mechanism import PrivacyLoss
from ._random import resolve_rng

__all__ = ["PosteriorDistribution", "PosteriorSampling"]


class PosteriorSampling:
    """One (tempered) posterior sample: the exponential mechanism with ``q = ln L`` and ``μ = prior``.

    ``quality`` is a :class:`~expmech.spec.LogLikelihood`; ``epsilon`` the
    tempering factor ε₀, an integer >= 1 (1: the posterior itself);
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

    __slots__ = ("_quality", "_epsilon", "_outputs", "_base_measure", "_index")

    def __init__(self, quality: Any, *, epsilon: Any = 1, outputs: Any = None, base_measure: Any = None) -> None:
        if not isinstance(quality, LogLikelihood):
            raise InvalidType(
                f"quality={describe(quality)} must be an expmech.spec.LogLikelihood", parameter="quality", value=quality
            )
        self._quality = quality
        self._epsilon = check_epsilon(epsilon)
        if self._epsilon.denominator != 1:
            raise InvalidArgument(
                f"epsilon={describe(epsilon)} must be an integer tempering factor >= 1 for the exact rational law "
                "(a fractional power of a likelihood is algebraic, not rational); the ε-DP certificate of a fractional "
                "tempering factor is available from expmech.proofs.certify",
                parameter="epsilon",
                value=epsilon,
            )
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
        """The tempering factor ε₀ (an integer)."""
        return self._epsilon

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The parameter grid, in the order given."""
        return self._outputs

    @property
    def base_measure(self) -> tuple[Fraction, ...]:
        """The prior ``π(θ)`` of each parameter, in output order."""
        return self._base_measure

    def weights(self, dataset: Any) -> tuple[Fraction, ...]:
        """``π(θ)·L(d | θ)^{ε₀}`` for each θ, exactly."""
        power = int(self._epsilon)
        likelihoods = self._quality.likelihoods(dataset, self._outputs)
        return tuple(m * lik**power for m, lik in zip(self._base_measure, likelihoods))

    def distribution(self, dataset: Any) -> PosteriorDistribution:
        """The exact law of the (tempered) posterior sample on ``dataset``.

        Raises :class:`InvalidArgument` when every weight is 0 (the prior puts no
        mass where the data have positive likelihood).
        """
        weights = self.weights(dataset)
        total = sum(weights, Fraction(0))
        if total == 0:
            raise InvalidArgument(
                "every parameter has posterior weight 0: the prior gives no mass where the data have positive likelihood",
                parameter="dataset",
                value=dataset,
            )
        return PosteriorDistribution(self, weights, total)

    def privacy_loss(self, dataset1: Any, dataset2: Any) -> PrivacyLoss:
        """The exact ``max_θ |ln p1(θ) − ln p2(θ)|`` over parameters either law can draw (``+∞`` if only one can)."""
        return self.distribution(dataset1).privacy_loss(self.distribution(dataset2))

    def sample(self, dataset: Any, *, rng: random.Random | None = None) -> Hashable:
        """One exact draw of the (tempered) posterior on ``dataset`` (a uniform random integer, nothing else)."""
        return self.distribution(dataset).sample(rng=rng)

    def __repr__(self) -> str:
        return f"PosteriorSampling({self._quality!r}, epsilon={self._epsilon}, outputs=<{len(self._outputs)} parameters>)"


class PosteriorDistribution:
    """The exact law ``p(θ) = w(θ) / Σ w`` of one posterior sample, ``w(θ) = π(θ)·L(d | θ)^{ε₀}``."""

    __slots__ = ("_mechanism", "_weights", "_total", "_table")

    def __init__(self, mechanism: PosteriorSampling, weights: tuple[Fraction, ...], total: Fraction) -> None:
        self._mechanism = mechanism
        self._weights = weights
        self._total = total
        self._table: tuple[list[int], int] | None = None

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The parameter grid."""
        return self._mechanism.outputs

    @property
    def weights(self) -> tuple[Fraction, ...]:
        """The unnormalised weights, in output order."""
        return self._weights

    def probability(self, theta: Hashable) -> Fraction:
        """``p(θ)``, an exact rational."""
        try:
            position = self._mechanism._index[theta]
        except (KeyError, TypeError):
            raise InvalidArgument(f"theta={describe(theta)} is not one of the mechanism's outputs", parameter="theta", value=theta) from None
        return self._weights[position] / self._total

    def mass(self, subset: Iterable[Hashable]) -> Fraction:
        """``P[θ ∈ subset]`` exactly."""
        return sum((self.probability(theta) for theta in set(subset)), Fraction(0))

    def privacy_loss(self, other: PosteriorDistribution) -> PrivacyLoss:
        """The exact ``max_θ |ln p_self(θ) − ln p_other(θ)|`` (``+∞`` where exactly one of them is 0)."""
        if not isinstance(other, PosteriorDistribution) or other._mechanism is not self._mechanism:
            raise InvalidArgument(f"other={describe(other)} must be a distribution of the same mechanism", parameter="other", value=other)
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
        """One exact draw: a uniform integer below the common-denominator total, located by bisection."""
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
        u = resolve_rng(rng).randrange(total)
        return self.outputs[bisect.bisect_right(cumulative, u)]

    def __repr__(self) -> str:
        return f"PosteriorDistribution(<{len(self._weights)} parameters>, epsilon={self._mechanism.epsilon})"


