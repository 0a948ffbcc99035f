"""Instances of statement ``posterior-sampling``: Bernoulli posteriors on small grids, losses decided exactly.

An instance is a grid of rational parameters θ (or, one time in five, a
clipped interval [a, b] with a Beta prior: the polynomial law), a prior on it, a tempering
factor ε₀ (an integer, or 1/2 or 3/2: a law of sums of radicals), two neighbouring datasets of bits and the ρ that ε is
computed from (``ε = 2·ε₀·ln ρ``).  The generator now and then breaks one
hypothesis: a grid reaching θ = 0 or 1 (not clipped: a record can rule a
parameter out, so the loss is infinite), a prior that is zero everywhere, a ρ
below the largest likelihood ratio ``max(θ/(1 − θ), (1 − θ)/θ)`` over the
grid's interior, or a non-positive tempering factor.  The exact law comes
from ``expmech.impl.PosteriorSampling`` (for ε₀ > 0) and the loss is compared
with ε as a :class:`~expmech.impl.LogLinear`, never on floats.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import sympy

from expmech.impl import LogLinear, PosteriorSampling
from expmech.spec import BetaPrior, Booleans, Grid, InvalidArgument, LogLikelihood, OutputSpace, RationalRange, RecordSchema

from ._family_base import Evaluation, InstanceFamily, _pick

__all__ = ["PosteriorSamplingFamily", "bernoulli_likelihood"]


def bernoulli_likelihood(grid: tuple[Fraction, ...]) -> LogLikelihood:
    """``ℓ(x, θ) = θ`` for ``x = 1``, ``1 − θ`` for ``x = 0``, θ on ``grid``."""
    schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=Grid(grid))
    x, theta = schema["x"], outputs["theta"]
    return LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs)


def _weights(grid: tuple[Fraction, ...], prior: list[Fraction], data: list[int], eps0: int) -> list[Fraction] | None:
    """π(θ)·L(d|θ)^{ε₀} by direct arithmetic (ε₀ may be <= 0 here); None where L = 0 and ε₀ <= 0."""
    weights = []
    for theta, m in zip(grid, prior):
        likelihood = Fraction(1)
        for x in data:
            likelihood *= theta if x else 1 - theta
        if likelihood == 0 and eps0 <= 0:
            return None
        weights.append(m * likelihood**eps0)
    return weights


class PosteriorSamplingFamily(InstanceFamily):
    """The exact privacy loss of a Bernoulli posterior sample against 2·ε₀·ln ρ."""

    statement_id: str = "posterior-sampling"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        if rng.random() < 0.2:
            return self._interval_instance(rng)
        tenths = list(range(1, 10)) if rng.random() < 0.8 else list(range(0, 11))
        grid = sorted(rng.sample(tenths, rng.randint(2, min(5, len(tenths)))))
        if rng.random() < 0.1 and 0 in tenths:
            grid = sorted(set(grid) | {_pick(rng, (0, 10))})
        prior = [Fraction(rng.randint(0 if rng.random() < 0.2 else 1, 4)) for _ in grid]
        if rng.random() < 0.08:
            prior = [Fraction(0)] * len(grid)
        data = [rng.randint(0, 1) for _ in range(rng.randint(1, 5))]
        other = list(data)
        other[rng.randrange(len(other))] = rng.randint(0, 1)
        roll = rng.random()
        eps0 = rng.randint(1, 3) if roll < 0.7 else (_pick(rng, (Fraction(1, 2), Fraction(3, 2))) if roll < 0.9 else _pick(rng, (0, -1)))
        interior = [Fraction(t, 10) for t in grid if 0 < t < 10]
        true_rho = max((max(t / (1 - t), (1 - t) / t) for t in interior), default=Fraction(1))
        rho = true_rho if rng.random() < 0.8 else max(Fraction(1), true_rho * _pick(rng, (Fraction(1, 2), Fraction(9, 10))))
        return {"grid": [Fraction(t, 10) for t in grid], "prior": prior, "d1": data, "d2": other, "epsilon0": eps0, "rho": rho}

    def _interval_instance(self, rng: random.Random) -> dict[str, Any]:
        """θ continuous on a clipped [a, b] with a Beta prior (the polynomial law)."""
        a = rng.randint(1, 8)
        b = rng.randint(a + 1, 9)
        lo, hi = Fraction(a, 10), Fraction(b, 10)
        data = [rng.randint(0, 1) for _ in range(rng.randint(1, 5))]
        other = list(data)
        other[rng.randrange(len(other))] = rng.randint(0, 1)
        true_rho = max(hi / (1 - hi), (1 - lo) / lo, Fraction(1))
        rho = true_rho if rng.random() < 0.8 else max(Fraction(1), true_rho * Fraction(1, 2))
        return {"interval": [lo, hi], "alpha": rng.randint(1, 3), "beta": rng.randint(1, 3), "d1": data, "d2": other, "epsilon0": rng.randint(1, 2), "rho": rho}

    def _evaluate_interval(self, instance: dict[str, Any]) -> Evaluation:
        lo, hi = instance["interval"]
        rho, eps0 = instance["rho"], instance["epsilon0"]
        hypotheses = {
            "prior": True,
            "clipped": 0 < lo and hi < 1,
            "sensitivity": rho >= max(hi / (1 - hi), (1 - lo) / lo, Fraction(1)),
            "epsilon-positive": eps0 > 0,
        }
        schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=RationalRange(lo, hi))
        x, theta = schema["x"], outputs["theta"]
        ell = LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs)
        mech = PosteriorSampling(ell, epsilon=eps0, base_measure=BetaPrior(instance["alpha"], instance["beta"]))
        loss = mech.privacy_loss(instance["d1"], instance["d2"])
        bound = LogLinear.log(rho) * (2 * eps0)
        detail = f"θ ∈ [{lo}, {hi}]: loss {float(loss.value):.4g} at θ = {loss.output} vs ε = 2·{eps0}·ln({rho}) ≈ {float(bound):.4g}"
        return Evaluation(hypotheses, loss.value <= bound, detail)

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        if "interval" in instance:
            return self._evaluate_interval(instance)
        grid, prior = tuple(instance["grid"]), list(instance["prior"])
        d1, d2, eps0, rho = instance["d1"], instance["d2"], instance["epsilon0"], instance["rho"]
        interior = [t for t in grid if 0 < t < 1]
        largest = max((max(t / (1 - t), (1 - t) / t) for t in interior), default=Fraction(1))
        hypotheses = {
            "prior": all(m >= 0 for m in prior) and any(m > 0 for m in prior),
            "clipped": all(0 < t < 1 for t in grid),
            "sensitivity": rho >= largest,
            "epsilon-positive": eps0 > 0,
        }
        bound = LogLinear.log(rho) * (2 * eps0)
        if eps0 > 0:
            try:
                mech = PosteriorSampling(bernoulli_likelihood(grid), epsilon=eps0, base_measure=dict(zip(grid, prior)))
                loss = mech.privacy_loss(d1, d2)
            except InvalidArgument as error:
                return Evaluation(hypotheses, None, f"undefined: {error}")
            value, where = loss.value, loss.output
        else:
            w1, w2 = _weights(grid, prior, d1, eps0), _weights(grid, prior, d2, eps0)
            if w1 is None or w2 is None or not sum(w1) or not sum(w2):
                return Evaluation(hypotheses, None, "undefined: a weight L^{ε₀} with L = 0 and ε₀ <= 0, or no posterior mass")
            z1, z2 = sum(w1), sum(w2)
            top, where = max((max(r, 1 / r), t) for t, r in ((t, (a / z1) / (b / z2)) for t, a, b in zip(grid, w1, w2) if a and b))
            value = LogLinear.log(top)
        shown = "∞" if value.infinite else f"{float(value):.4g}"
        detail = f"loss {shown} at θ = {where} vs ε = 2·{eps0}·ln({rho}) ≈ {float(bound) if eps0 else 0:.4g}"
        return Evaluation(hypotheses, value <= bound, detail)
