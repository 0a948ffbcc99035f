"""The small-model check of an auction certificate's ``truthfulness`` claim.

The claim (statement ``auctions``) says that with the posted-price rule —
every bid ``>= p`` buys at ``p``, utility ``u(v, b, p) = (v − p)·1[b >= p]`` —
no bidder gains by misreporting more than the certified ε allows:
``E[u | b] <= e^ε · E[u | v]`` and ``E[u | v] <= U``, so
``E[u | b] − E[u | v] <= (e^ε − 1)·U``.  Here it is evaluated on every profile
of at most two bidders (a bidder of value ``v`` and at most one other bid,
both from the auction's report grid) and every report ``b``, with the
mechanism's own law ``μ(p)·e^{ε₀ q(bids, p)}`` over its range, ``q`` computed
by the certificate's quality.  ``E[u | b] <= e^ε·E[u | v]`` is the sign of a
sum of exponentials with rational exponents, decided exactly
(:func:`~._exact.exp_sum_sign`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from expmech.spec import QualityFunction, rational_from_text

from ._exact import exp_sum_sign

__all__ = ["truthfulness_work", "check_truthfulness_claim"]


def _utility(value: Fraction, report: Fraction, price: Fraction) -> Fraction:
    return value - price if report >= price else Fraction(0)


def truthfulness_work(claim: dict[str, Any], outputs: int) -> int:
    """Terms the check sums: profiles × reports × outputs² (counted before any of it is done)."""
    reports = len(claim["auction"]["reports"])
    profiles = reports + reports * reports
    return profiles * reports * outputs * outputs


def check_truthfulness_claim(
    claim: dict[str, Any], quality: QualityFunction, epsilon0: Fraction, outputs: Sequence[Any], measure: Sequence[Fraction]
) -> tuple[list[Fraction], list[Fraction], str] | None:
    """The first profile on which the claim fails: ``(truthful bids, bids with the misreport, what fails)``; None if none.

    ``outputs`` and ``measure`` are the mechanism's prices and μ; ``epsilon0``
    its ε₀; ``quality`` its revenue, evaluated by the spec interpreter.
    """
    reports = [rational_from_text(b, name="report") for b in claim["auction"]["reports"]]
    epsilon = rational_from_text(claim["epsilon"], name="epsilon")
    bound = rational_from_text(claim["utility_bound"], name="utility_bound")
    prices = [Fraction(p) for p in outputs]
    (field,) = quality.schema.names
    (variable,) = quality.output_space.symbols
    codes = [{variable: quality.output_space.encode(p)[variable]} for p in outputs]
    scores: dict[tuple[Fraction, ...], list[Fraction]] = {}

    def q(bids: tuple[Fraction, ...]) -> list[Fraction]:
        key = tuple(sorted(bids))
        if key not in scores:
            records = [quality.schema.encode({field: b}) for b in key]
            scores[key] = quality.evaluate_many(records, codes)
        return scores[key]

    weights: dict[tuple[Fraction, ...], list[float] | None] = {}

    def weight(bids: tuple[Fraction, ...]) -> list[float] | None:
        """``μ(p)·e^{ε₀ q(bids, p)}`` in floats for the filter (None where an exponent is too large for floats)."""
        key = tuple(sorted(bids))
        if key not in weights:
            exponents = [epsilon0 * v for v in q(key)]
            weights[key] = None if max(abs(e) for e in exponents) > _FLOAT_EXPONENT else [float(mu) * math.exp(e) for mu, e in zip(measure, exponents)]
        return weights[key]

    gains = {(v, b): [float(_utility(v, b, p)) for p in prices] for v in reports for b in reports}
    for value in reports:
        for others in [()] + [(w,) for w in reports]:
            truthful = q((value, *others))
            for price, mu in zip(prices, measure):
                if mu > 0 and _utility(value, value, price) > bound:
                    return [value, *others], [value, *others], f"the truthful utility {_utility(value, value, price)} at p = {price} exceeds U = {bound}"
            for report in reports:
                if report == value:
                    continue
                decided = _filter(weight((value, *others)), weight((report, *others)), gains[value, value], gains[value, report], epsilon)
                if decided is None:
                    decided = _exact(truthful, q((report, *others)), prices, measure, value, report, epsilon, epsilon0) >= 0
                if not decided:
                    return [value, *others], [report, *others], f"a bidder of value {value} gains by reporting {report}: E[u | b] > e^ε·E[u | v] with ε = {epsilon}"
    return None


#: Exponents beyond this stay out of floats (e^709 overflows).
_FLOAT_EXPONENT = 600
#: The float filter decides only when the margin exceeds this share of the sum of absolute terms.
_MARGIN = 1e-9


def _filter(truthful: list[float] | None, lied: list[float] | None, gains_v: list[float], gains_b: list[float], epsilon: Fraction) -> bool | None:
    """``E[u | b] <= e^ε·E[u | v]`` decided in floats when the margin is far above their error, else None.

    Every float term carries a relative error below ``(|b| + 3)·2^-52 < 1e-12``
    for exponents ``|b| <= 600`` (a correctly rounded conversion and an ``exp``
    within one ulp), and ``math.fsum`` adds exactly rounded; so the computed
    difference is within ``1e-11`` of the sum of absolute terms of the exact
    one, and a margin of ``1e-9`` of it settles the sign.
    """
    if truthful is None or lied is None or abs(epsilon) > _FLOAT_EXPONENT:
        return None
    e = math.exp(epsilon)
    n_v = math.fsum(w * g for w, g in zip(truthful, gains_v))
    n_b = math.fsum(w * g for w, g in zip(lied, gains_b))
    abs_b = math.fsum(abs(w * g) for w, g in zip(lied, gains_b))
    z_v, z_b = math.fsum(truthful), math.fsum(lied)
    difference = e * n_v * z_b - n_b * z_v
    scale = e * n_v * z_b + abs_b * z_v
    if abs(difference) > _MARGIN * scale:
        return difference > 0
    return None


def _exact(truthful: list[Fraction], lied: list[Fraction], prices: list[Fraction], measure: Sequence[Fraction], value: Fraction,
           report: Fraction, epsilon: Fraction, epsilon0: Fraction) -> int:
    """The sign of ``e^ε·N_v·Z_b − N_b·Z_v`` (``N_x = Σ μ(p) e^{ε₀ q_x(p)} u(v, x, p)``, ``Z_x = Σ μ(p) e^{ε₀ q_x(p)}``), exactly."""
    terms: dict[Fraction, Fraction] = defaultdict(Fraction)
    for i, (p, mu) in enumerate(zip(prices, measure)):
        if mu == 0:
            continue
        gain_v, gain_b = _utility(value, value, p), _utility(value, report, p)
        for j, nu in enumerate(measure):
            if nu == 0:
                continue
            if gain_v:
                terms[epsilon + epsilon0 * (truthful[i] + lied[j])] += mu * nu * gain_v
            if gain_b:
                terms[epsilon0 * (lied[i] + truthful[j])] -= mu * nu * gain_b
    return exp_sum_sign(terms)
