"""Instances of the noise identities (``expmech.spec.IDENTITIES``), checked against the noise itself.

Each instance draws a small score vector and ε, integrates the noisy-max
probability straight from the noise's definition with python-flint's rigorous
numerical integration (``acb.integral`` on a window, with explicit tail bounds),
and requires the exact law expmech uses — the exponential mechanism, the
permute-and-flip law (both its polynomial-time exact route and the
enumeration), the peeled top-k law — to lie inside that enclosure, decided
exactly.  A wrong identity, or a wrong exact law, fails here.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from flint import acb, arb, ctx

from expmech.impl import ExponentialMechanism, ExponentialTopK, PermuteAndFlip
from expmech.impl.internal import arb_from_fraction, ball_endpoints

from ._family_base import Evaluation, InstanceFamily

__all__ = ["IDENTITY_FAMILIES"]

_PRECISION = 96
_TAIL = 60  # windows end where the integrand is below e^{-60}


def _scores(rng: random.Random, size: int) -> list[Fraction]:
    return [Fraction(rng.randint(-6, 6), rng.randint(1, 3)) for _ in range(size)]


def _index_quality(dataset: Any, r: int) -> Fraction:
    return dataset[r]


def _integral(integrand: Callable[[acb], acb], low: arb, high: arb) -> arb:
    value = acb.integral(lambda x, analytic: integrand(x), low, high)
    return value.real


def _contains(enclosure: tuple[Fraction, Fraction], value: Any) -> bool:
    lo, hi = enclosure
    return bool(value >= lo) and bool(value <= hi)


def _interval(ball: arb, tail: arb) -> tuple[Fraction, Fraction]:
    lo, _ = ball_endpoints(ball)
    _, hi = ball_endpoints(ball + tail)
    return max(lo, Fraction(0)), hi


class RnmGumbelFamily(InstanceFamily):
    """argmax of ε q + ln μ + Gumbel noise, integrated, against the exponential mechanism's exact law."""

    statement_id = "rnm-gumbel"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        size = rng.randint(1, 4)
        return {
            "scores": _scores(rng, size),
            "measure": [Fraction(rng.randint(1, 4), rng.randint(1, 2)) for _ in range(size)],
            "epsilon": Fraction(rng.randint(1, 6), rng.randint(1, 3)),
        }

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        scores, measure, eps = instance["scores"], instance["measure"], instance["epsilon"]
        hypotheses = {"finite-range": True, "gumbel-noise": True}
        mech = ExponentialMechanism(
            _index_quality, epsilon=eps, outputs=range(len(scores)), base_measure=dict(enumerate(measure))
        )
        dist = mech.distribution(scores)
        with ctx.workprec(_PRECISION):
            shifts = [arb_from_fraction(eps * q) + arb_from_fraction(m).log() for q, m in zip(scores, measure)]
            total = sum((s.exp() for s in shifts), arb(0))
            low = total.log() - arb(200).log()  # below it, e^{−z}·W >= 200
            high = max(shifts, key=lambda s: s.mid()) + _TAIL
            for r, shift in enumerate(shifts):

                def integrand(z: acb, shift: arb = shift) -> acb:
                    return (shift - z).exp() * (-(-z).exp() * total).exp()

                body = _integral(integrand, low, high)
                # ∫_{−∞}^{low} <= e^{a_r} e^{−W e^{−low}} / W (u = e^{−z}); ∫_{high}^{∞} <= e^{a_r − high}
                tail = shift.exp() * (-(-low).exp() * total).exp() / total + (shift - high).exp()
                if not _contains(_interval(body, tail), dist.probability(r)):
                    return Evaluation(hypotheses, False, f"P[{r}] = {float(dist.probability(r)):.6g} outside {body}")
        return Evaluation(hypotheses, True)


class RnmExponentialFamily(InstanceFamily):
    """argmax of q + exponential noise (mean 1/ε), integrated, against permute-and-flip's exact law."""

    statement_id = "rnm-exponential"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        return {"scores": _scores(rng, rng.randint(1, 5)), "epsilon": Fraction(rng.randint(1, 6), rng.randint(1, 3))}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        scores, eps = instance["scores"], instance["epsilon"]
        hypotheses = {"finite-range": True, "exponential-noise": True}
        mech = PermuteAndFlip(_index_quality, epsilon=eps, outputs=range(len(scores)))
        law = mech.distribution(scores)
        enumerated = mech.probabilities(scores)
        best = max(scores)
        with ctx.workprec(_PRECISION):
            rate = arb_from_fraction(eps)
            values = [arb_from_fraction(q) for q in scores]
            low = arb_from_fraction(best)
            high = low + arb(_TAIL) / rate
            for r, value in enumerate(values):
                others = [v for j, v in enumerate(values) if j != r]

                def integrand(z: acb, value: arb = value, others: list[arb] = others) -> acb:
                    result = rate * (-rate * (z - value)).exp()
                    for other in others:
                        result *= 1 - (-rate * (z - other)).exp()
                    return result

                body = _integral(integrand, low, high)
                tail = (-rate * (high - value)).exp()  # P[q_r + E_r > high]
                enclosure = _interval(body, tail)
                exact = law.exact_probability(r)
                if not (_contains(enclosure, exact) and exact == enumerated[r]):
                    return Evaluation(hypotheses, False, f"P[{r}] = {float(exact):.6g} outside {body} or ≠ enumeration")
                lo, hi = law.enclose(r, 30)
                if not lo <= exact <= hi:
                    return Evaluation(hypotheses, False, f"the enclosure of P[{r}] misses the exact value")
        return Evaluation(hypotheses, True)


class GumbelTopKFamily(InstanceFamily):
    """The first two places of ε q + Gumbel noise, integrated, against the peeled exact law."""

    statement_id = "gumbel-top-k"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        return {"scores": _scores(rng, rng.randint(2, 4)), "epsilon": Fraction(rng.randint(1, 6), rng.randint(1, 3))}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        scores, eps = instance["scores"], instance["epsilon"]
        hypotheses = {"finite-range": True, "gumbel-noise": True}
        law = ExponentialTopK(_index_quality, epsilon=eps, outputs=range(len(scores)), k=2).distribution(scores)
        with ctx.workprec(_PRECISION):
            shifts = [arb_from_fraction(eps * q) for q in scores]
            total = sum((s.exp() for s in shifts), arb(0))
            low = total.log() - arb(200).log()
            high = max(shifts, key=lambda s: s.mid()) + _TAIL
            for first, second in law.outcomes():
                rest = total - shifts[first].exp()  # the second place's inner integral is e^{a_2} e^{−e^{−z} W_2} / W_2

                def integrand(z: acb, a1: arb = shifts[first], a2: arb = shifts[second], rest: arb = rest) -> acb:
                    winner = (a1 - z).exp() * (-(a1 - z).exp()).exp()
                    return winner * a2.exp() * (-(-z).exp() * rest).exp() / rest

                body = _integral(integrand, low, high)
                tail = shifts[first].exp() * (-(-low).exp() * total).exp() / total + (shifts[first] - high).exp()
                exact = law.exact_probability((first, second))
                if not _contains(_interval(body, tail), exact):
                    return Evaluation(hypotheses, False, f"P[{(first, second)}] = {float(exact):.6g} outside {body}")
        return Evaluation(hypotheses, True)


IDENTITY_FAMILIES: dict[str, InstanceFamily] = {
    family.statement_id: family for family in (RnmGumbelFamily(), RnmExponentialFamily(), GumbelTopKFamily())
}
