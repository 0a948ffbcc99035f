"""Posterior sampling with a continuous parameter θ ∈ [a, b], exactly: polynomial densities, rational integrals.

With a likelihood ``ℓ(x, θ)`` that is a polynomial in θ for each record value
(Bernoulli: ``θ`` or ``1 − θ``), a :class:`~expmech.spec.BetaPrior` with
integer parameters and an integer tempering factor ε₀, the (tempered)
posterior density is ``P_d(θ) / Z_d`` with the polynomial
``P_d(θ) = θ^{α−1}(1−θ)^{β−1}·Π_{x ∈ d} ℓ(x, θ)^{ε₀}`` and
``Z_d = ∫_a^b P_d`` — a rational.  So the density at a rational point, the CDF
``F(t) = ∫_a^t P_d / Z_d`` and every cell mass are rationals (python-flint
``fmpq_poly``), and nothing is decided on floats.

A draw is released on a grid of step ``h`` (``2^{−grid_bits}``, default
``2^{−20}``, or ``grid``): the cell ``[i·h, (i+1)·h)`` holding the draw is
released as its left end, or as ``a`` for a partial first cell.  Rounding is
a function of the draw, so the released value is exactly as private as the
draw (post-processing), and its law is the exact mass of each cell.  The draw
is the inverse CDF of a uniform U whose bits are revealed lazily: a cell is
chosen only when every U the revealed bits allow falls in it.

The privacy loss ``sup_θ |ln p_d(θ) − ln p_{d'}(θ)|`` is attained at an end
of [a, b] when the likelihood ratio of the two datasets is monotone on it
(always so for Bernoulli data: ``(θ/(1−θ))^{±ε₀}``); that is checked exactly
(no root of the ratio's derivative inside), and the loss is then the
logarithm of a rational.  A ratio with an interior extremum is refused with an
error saying so rather than answered approximately.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from typing import Any

import sympy
from flint import fmpq, fmpq_poly

from expmech.spec import BetaPrior, InvalidArgument, LogLikelihood, RationalRange
from expmech.spec.internal import describe

from ..sampling._lazy import cell_span, draw_lazily, grid_step, locate_exactly, released_cell, released_value, released_values
from ..exact._loglinear import LogLinear
from ..exponential._finite import PrivacyLoss
from ..sampling._random import resolve_rng

__all__ = ["ContinuousPosterior", "ContinuousPosteriorDistribution"]

_MAX_CELLS = 1 << 16


def _q(value: Fraction) -> fmpq:
    return fmpq(value.numerator, value.denominator)


def _f(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _poly(expr: sympy.Expr, theta: sympy.Symbol, what: str) -> fmpq_poly:
    try:
        poly = sympy.Poly(sympy.expand(expr), theta, domain="QQ")
    except (sympy.PolynomialError, sympy.polys.polyerrors.GeneratorsNeeded, sympy.CoercionFailed):
        raise InvalidArgument(
            f"{what} = {expr} is not a polynomial in {theta} with rational coefficients; a continuous posterior needs one",
            parameter="quality",
            value=expr,
        ) from None
    return fmpq_poly([fmpq(int(c.p), int(c.q)) for c in reversed(poly.all_coeffs())])


class ContinuousPosterior:
    """The (tempered) posterior of one continuous parameter θ on ``[a, b]``: exact polynomial law.

    Built by :class:`~expmech.impl.PosteriorSampling` when its outputs are a
    :class:`~expmech.spec.RationalRange`; ``prior`` is a
    :class:`~expmech.spec.BetaPrior` (``None``: uniform), ``epsilon`` an integer.
    """

    __slots__ = ("quality", "epsilon", "interval", "prior", "_theta", "_prior_poly", "_factors")

    def __init__(self, quality: LogLikelihood, *, epsilon: Fraction, interval: RationalRange, prior: Any) -> None:
        if epsilon.denominator != 1:
            raise InvalidArgument(
                f"epsilon={describe(epsilon)} must be an integer tempering factor for a continuous parameter: "
                "θ^(a/b) has no rational integral (on a finite grid of parameters fractional factors are exact)",
                parameter="epsilon",
                value=epsilon,
            )
        lo, hi = interval.bounds()
        if lo is None or hi is None or not lo < hi:
            raise InvalidArgument(f"outputs={interval.describe()} must be a bounded interval a < b", parameter="outputs", value=interval)
        names = list(quality.output_space.names)
        if len(names) != 1:
            raise InvalidArgument(f"a continuous posterior needs one parameter, not {names}", parameter="quality", value=quality)
        if prior is not None and not isinstance(prior, BetaPrior):
            raise InvalidArgument(
                f"base_measure={describe(prior)} must be a BetaPrior (or None: uniform) for a continuous parameter",
                parameter="base_measure",
                value=prior,
            )
        self.quality, self.epsilon, self.interval, self.prior = quality, epsilon, (lo, hi), prior
        self._theta = quality.output_space[names[0]]
        alpha, beta = (1, 1) if prior is None else (prior.alpha, prior.beta)
        self._prior_poly = fmpq_poly([0, 1]) ** (alpha - 1) * fmpq_poly([1, -1]) ** (beta - 1)
        self._factors: dict[tuple[Any, ...], fmpq_poly] = {}

    def _record_factor(self, record: dict[sympy.Symbol, Any]) -> fmpq_poly:
        key = tuple(sorted((s.name, v) for s, v in record.items()))
        if key not in self._factors:
            body = self.quality.expr.subs({s: sympy.Rational(Fraction(v).numerator, Fraction(v).denominator) for s, v in record.items()})
            factor = _poly(body, self._theta, f"the likelihood of record {dict(key)}")
            lo, hi = self.interval
            if not _nonnegative_on(factor, lo, hi):
                raise InvalidArgument(
                    f"the likelihood of record {dict(key)} is negative somewhere on [{lo}, {hi}]: not a likelihood", parameter="quality", value=body
                )
            self._factors[key] = factor
        return self._factors[key]

    def counts(self, dataset: Any) -> Counter[tuple[Any, ...]]:
        """How many records of each kind (encoded) the dataset holds."""
        records = self.quality._encode_dataset(dataset)
        return Counter(tuple(sorted((s.name, v) for s, v in record.items())) for record in records)

    def polynomial(self, dataset: Any) -> fmpq_poly:
        """``P_d(θ) = prior(θ)·Π ℓ(x, θ)^{ε₀}``, the unnormalised posterior density."""
        power = int(self.epsilon)
        result = self._prior_poly
        schema = self.quality.schema
        for key, count in self.counts(dataset).items():
            record = {schema[name]: value for name, value in key}
            result = result * self._record_factor(record) ** (power * count)
        return result

    def distribution(self, dataset: Any) -> ContinuousPosteriorDistribution:
        """The exact law on ``dataset``; refuses a dataset whose posterior vanishes on [a, b]."""
        density = self.polynomial(dataset)
        lo, hi = self.interval
        antiderivative = density.integral()
        total = _f(antiderivative(_q(hi)) - antiderivative(_q(lo)))
        if total <= 0:
            raise InvalidArgument(
                f"the posterior has no mass on [{lo}, {hi}] (∫ P = {total}): is the likelihood >= 0 there?", parameter="dataset", value=dataset
            )
        for probe in (lo, hi, (lo + hi) / 2):
            if _f(density(_q(probe))) < 0:
                raise InvalidArgument(f"the posterior density is negative at θ = {probe}: the likelihood is not >= 0", parameter="quality", value=probe)
        return ContinuousPosteriorDistribution(self, dataset, density, antiderivative, total)


class ContinuousPosteriorDistribution:
    """The exact law of a posterior sample of θ ∈ [a, b] on one dataset (see the module docstring)."""

    __slots__ = ("_posterior", "_dataset", "_density", "_antiderivative", "_total", "_base")

    def __init__(self, posterior: ContinuousPosterior, dataset: Any, density: fmpq_poly, antiderivative: fmpq_poly, total: Fraction) -> None:
        self._posterior, self._dataset = posterior, dataset
        self._density, self._antiderivative, self._total = density, antiderivative, total
        self._base = _f(antiderivative(_q(posterior.interval[0])))

    @property
    def interval(self) -> tuple[Fraction, Fraction]:
        """``(a, b)``."""
        return self._posterior.interval

    def _point(self, theta: Any, name: str = "theta") -> Fraction:
        value = self._posterior.quality.output_space.domain(self._posterior._theta.name).encode(theta, name=name)
        lo, hi = self.interval
        if not lo <= value <= hi:
            raise InvalidArgument(f"{name}={describe(theta)} is outside [{lo}, {hi}]", parameter=name, value=theta)
        return Fraction(value)

    def density(self, theta: Any) -> Fraction:
        """The posterior density at θ, exactly."""
        return _f(self._density(_q(self._point(theta)))) / self._total

    def cdf(self, t: Any) -> Fraction:
        """``P[θ <= t]`` exactly (``t`` clipped to [a, b])."""
        lo, hi = self.interval
        value = min(max(_rational(t), lo), hi)
        return (_f(self._antiderivative(_q(value))) - self._base) / self._total

    def mass(self, start: Any, end: Any) -> Fraction:
        """``P[start <= θ < end]`` exactly."""
        return self.cdf(end) - self.cdf(start)

    def cell(self, value: Any, *, grid_bits: Any = None, grid: Any = None) -> tuple[Fraction, Fraction]:
        """The interval of draws released as ``value`` (a grid multiple in [a, b], or ``a``; see ``expmech.impl.sampling._lazy``)."""
        step = grid_step(grid_bits, grid)
        lo, hi = self.interval
        found = released_cell(self._point(value, "value"), step, lo, hi)
        if found is None:
            raise InvalidArgument(f"value={describe(value)} is not released on the grid of step {step} in [{lo}, {hi}]", parameter="value", value=value)
        start, end = found
        assert end is not None
        return start, end

    def cell_probability(self, value: Any, *, grid_bits: Any = None, grid: Any = None) -> Fraction:
        """The exact probability that a draw rounded to the grid is released as ``value``."""
        start, end = self.cell(value, grid_bits=grid_bits, grid=grid)
        return self.mass(start, end)

    def cells(self, *, grid_bits: Any = None, grid: Any = None) -> dict[Fraction, Fraction]:
        """Every released value with its exact probability (at most 65536 cells)."""
        lo, hi = self.interval
        starts = released_values(lo, hi, grid_step(grid_bits, grid), limit=_MAX_CELLS)
        bounds = starts + [hi]
        return {start: self.mass(start, end) for start, end in zip(bounds, bounds[1:])}

    def sample(self, *, rng: random.Random | None = None, grid_bits: Any = None, grid: Any = None) -> Fraction:
        """One exact draw, released on the grid (see the module docstring)."""
        generator = resolve_rng(rng)
        step = grid_step(grid_bits, grid)
        lo, hi = self.interval
        first, last = cell_span(lo, hi, step)

        def side(j: int, offset: int, u: int, k: int) -> int:
            """The exact sign of (u + offset)/2^k − F(end of cell first + j)."""
            difference = Fraction(u + offset, 1 << k) - self.cdf(min((first + j + 1) * step, hi))
            return (difference > 0) - (difference < 0)

        def locate(u: int, k: int) -> Fraction | None:
            found = locate_exactly(last - first, lambda j, offset: side(j, offset, u, k))
            return None if found is None else released_value(first + found, step, lo)

        return draw_lazily(locate, generator)

    def privacy_loss(self, other: ContinuousPosteriorDistribution) -> PrivacyLoss:
        """``sup_θ |ln p_self(θ) − ln p_other(θ)|`` exactly, when the likelihood ratio is monotone on [a, b]."""
        if not isinstance(other, ContinuousPosteriorDistribution) or other._posterior is not self._posterior:
            raise InvalidArgument(f"other={describe(other)} must be a distribution of the same mechanism", parameter="other", value=other)
        posterior = self._posterior
        mine, theirs = posterior.counts(self._dataset), posterior.counts(other._dataset)
        top, bottom = fmpq_poly([1]), fmpq_poly([1])
        schema = posterior.quality.schema
        for key in set(mine) | set(theirs):
            difference = mine.get(key, 0) - theirs.get(key, 0)
            factor = posterior._record_factor({schema[name]: value for name, value in key}) ** (int(posterior.epsilon) * abs(difference))
            if difference > 0:
                top = top * factor
            elif difference < 0:
                bottom = bottom * factor
        lo, hi = self.interval
        derivative = top.derivative() * bottom - top * bottom.derivative()
        if not derivative.is_zero():
            theta = sympy.Symbol("t")
            numerator = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(derivative.coeffs())], theta).sqf_part()
            interior = numerator.count_roots(lo, hi) - sum(1 for x in (lo, hi) if numerator.eval(sympy.Rational(x.numerator, x.denominator)) == 0)
            if interior:
                raise InvalidArgument(
                    "the likelihood ratio of the two datasets has an extremum inside the interval: its supremum is not "
                    "at an end, and expmech does not answer it approximately",
                    parameter="other",
                    value=other,
                )
        candidates = []
        for theta in (lo, hi):
            t, b = _f(top(_q(theta))), _f(bottom(_q(theta)))
            if t == 0 or b == 0:
                return PrivacyLoss(LogLinear.infinity(), theta, t > 0)
            # p_self/p_other = (top/bottom)(θ) · Z_other/Z_self
            ratio = (t / b) * (other._total / self._total)
            candidates += [(ratio, theta, True), (1 / ratio, theta, False)]
        value, where, first = max(candidates, key=lambda c: c[0])
        return PrivacyLoss(LogLinear.log(value), where, first)

    def __repr__(self) -> str:
        lo, hi = self.interval
        return f"ContinuousPosteriorDistribution(θ ∈ [{lo}, {hi}], epsilon={self._posterior.epsilon})"


def _nonnegative_on(poly: fmpq_poly, lo: Fraction, hi: Fraction) -> bool:
    """Whether the polynomial is >= 0 on [lo, hi], exactly.

    Its real roots in [lo, hi] are isolated in disjoint rational intervals
    (sympy); every root-free region between them contains one of the points
    tested (the ends, the intervals' ends and the midpoints between them), so
    the sign there is the sign found.
    """
    if poly.is_zero():
        return True
    theta = sympy.Symbol("t")
    exact = sympy.Poly([sympy.Rational(int(c.p), int(c.q)) for c in reversed(poly.coeffs())], theta)
    points = {lo, hi}
    if exact.degree() > 0:
        for (left, right), _ in exact.sqf_part().intervals(inf=sympy.Rational(lo.numerator, lo.denominator), sup=sympy.Rational(hi.numerator, hi.denominator)):
            points.update(Fraction(int(sympy.numer(v)), int(sympy.denom(v))) for v in (left, right))
    ordered = sorted(p for p in points if lo <= p <= hi)
    ordered += [(a + b) / 2 for a, b in zip(ordered, ordered[1:])]
    return all(_f(poly(_q(p))) >= 0 for p in ordered)


def _rational(value: Any) -> Fraction:
    from expmech.spec.internal import as_rational

    return as_rational(value, name="value")

