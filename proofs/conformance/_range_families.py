"""Instances of the source's statements over continuous and countable ranges.

The source states the mechanism, its density, its privacy and its accuracy for
*any* range with a base measure μ, and requires ``∫ e^{ε q(d, r)} μ(r) dr`` to
be finite.  On finite ranges that hypothesis can never fail, so its
dropped-hypothesis search had nothing to find.  Here instances are drawn over
the line and over the integers, with qualities whose tails may or may not
decay, so ``finite-normaliser`` is decided on each instance exactly and
independently of the implementation (from the slopes of q at ±∞ and the ratios
of μ), and the search finds a divergent instance on which the mechanism is
undefined.

The ``density`` statement is also checked on continuous instances against an
independent numerical integral: mpmath's ``quad`` at 40 digits of the
interpreter's own q (a numerical cross-check of the exact path, reported as
such).  The accuracy lemma and theorem are checked with μ(S_t) and μ(S̄_2t)
computed exactly on continuous sets.

:func:`with_ranges` mixes these instances into the finite families of
``._families`` (the same hypotheses, so each search sees both kinds).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

import mpmath
import sympy

from expmech.impl import ExponentialMechanism, ExpSum
from expmech.spec import (
    DivergentNormaliser,
    Geometric,
    IntRange,
    OutputSpace,
    PiecewiseDensity,
    QualityFunction,
    RationalRange,
    RecordSchema,
    Total,
)

from ._families import FAMILIES
from ._families import _t_condition as finite_t_condition
from ._family_base import Evaluation, Hypotheses, InstanceFamily

__all__ = ["RANGE_SHARE", "with_ranges"]

T = TypeVar("T")

#: The share of instances drawn over a range.
RANGE_SHARE = 0.3
_SCHEMA = RecordSchema(x=IntRange(0, 3))


def _pick(rng: random.Random, values: Any) -> Any:
    return values[rng.randrange(len(values))]


def _small(rng: random.Random, top: int = 3) -> Fraction:
    return Fraction(rng.randint(-2 * top, 2 * top), _pick(rng, (1, 2)))


def _profile(rng: random.Random) -> dict[str, Any]:
    """q(r) = Σ_j a_j |r − c_j| + b·r + d, data-free, on the line or the integers, bounded or not."""
    kind = _pick(rng, ("line", "line", "integers", "interval"))
    terms = [(_small(rng, 2), Fraction(rng.randint(-4, 4))) for _ in range(rng.randint(1, 3))]
    return {
        "kind": kind,
        "terms": terms,
        "slope": _small(rng, 2),
        "offset": _small(rng, 2),
        "measure": _pick(rng, ("neutral", "neutral", "step")),
        "epsilon": _pick(rng, (Fraction(1, 2), Fraction(1), Fraction(2))),
    }


def _space(kind: str) -> OutputSpace:
    if kind == "integers":
        return OutputSpace(r=IntRange(None, None))
    if kind == "interval":
        return OutputSpace(r=RationalRange(-4, 4))
    return OutputSpace(r=RationalRange(None, None))


def _expression(profile: dict[str, Any], r: sympy.Symbol, data_term: sympy.Expr = sympy.Integer(0)) -> sympy.Expr:
    rational = lambda v: sympy.Rational(v.numerator, v.denominator)  # noqa: E731
    expr = rational(profile["slope"]) * r + rational(profile["offset"]) + data_term
    for a, c in profile["terms"]:
        expr += rational(a) * sympy.Abs(r - rational(c))
    return expr


def _profile_value(profile: dict[str, Any], r: Fraction) -> Fraction:
    """q(r) of :func:`_expression` (no data term), exactly."""
    return profile["slope"] * r + profile["offset"] + sum((a * abs(r - c) for a, c in profile["terms"]), Fraction(0))


def _measure(profile: dict[str, Any]) -> Any:
    if profile["kind"] == "integers":
        return Geometric(Fraction(1, 2)) if profile["measure"] == "step" else None
    return PiecewiseDensity((0,), (Fraction(1, 2), 2)) if profile["measure"] == "step" else None


def _tail_slopes(profile: dict[str, Any]) -> tuple[Fraction, Fraction]:
    """The slopes of q towards +∞ and towards −∞ (as q's change per unit step outwards)."""
    a_sum = sum((a for a, _ in profile["terms"]), Fraction(0))
    return a_sum + profile["slope"], a_sum - profile["slope"]


def finite_normaliser(profile: dict[str, Any]) -> bool:
    """Exactly whether ∫ e^{ε q} μ (or Σ) is finite, from q's tail slopes and μ alone (not from the impl)."""
    if profile["kind"] == "interval":
        return True
    up, down = _tail_slopes(profile)
    eps = profile["epsilon"]
    if profile["kind"] == "line":  # a density bounded away from 0 at both ends: e^{ε q} must decay
        return up < 0 and down < 0
    rho = Fraction(1, 2) if profile["measure"] == "step" else Fraction(1)
    # terms change by the factor ρ e^{ε·slope} per step outwards; both must be < 1
    return all(ExpSum.weighted_exps([(rho, eps * slope)]) < 1 for slope in (up, down))


def _mechanism(profile: dict[str, Any], data_term: sympy.Expr = sympy.Integer(0)) -> tuple[Any, QualityFunction]:
    space = _space(profile["kind"])
    quality = QualityFunction(_expression(profile, space["r"], data_term), schema=_SCHEMA, outputs=space)
    return ExponentialMechanism(quality, epsilon=profile["epsilon"], outputs=space, base_measure=_measure(profile)), quality


class _RangeMechanism(InstanceFamily):
    statement_id = "mechanism"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        return {"range": _profile(rng)}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        profile = instance["range"]
        hypotheses = {"finite-normaliser": finite_normaliser(profile), "base-measure": True}

        def conclude() -> tuple[bool | None, str]:
            mech, _ = _mechanism(profile)
            try:
                dist = mech.distribution([0])
            except DivergentNormaliser as error:
                return None, f"undefined: {str(error).split(':')[0]}"
            space = mech.outputs
            whole = dist.mass((None, None))
            points = [0, 1] if isinstance(space, IntRange) else [Fraction(1, 3), Fraction(5, 2)]
            at = dist.probability if isinstance(space, IntRange) else dist.density
            weight = [ExpSum.weighted_exps([(_mu(mech, p), profile["epsilon"] * dist.quality(p))]) for p in points]
            first, second = at(points[0]), at(points[1])
            proportional = (first.numerator * second.denominator * weight[1] - second.numerator * first.denominator * weight[0]).is_zero()
            return whole == 1 and proportional, "p(R) = 1 and p ∝ μ e^{εq} over the range"

        return Evaluation(hypotheses, conclude)


def _mu(mech: Any, point: Any) -> Fraction:
    measure = mech.base_measure
    return measure.value(point) if isinstance(mech.outputs, IntRange) else measure.density(point)


class _RangeDensity(InstanceFamily):
    statement_id = "density"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        profile = _profile(rng)
        profile["kind"] = _pick(rng, ("line", "interval"))
        return {"range": profile, "points": [Fraction(rng.randint(-30, 30), 8) for _ in range(2)]}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        profile = instance["range"]
        hypotheses = {"finite-normaliser": finite_normaliser(profile)}

        def conclude() -> tuple[bool | None, str]:
            mech, quality = _mechanism(profile)
            try:
                dist = mech.distribution([0])
            except DivergentNormaliser as error:
                return None, f"undefined: {str(error).split(':')[0]}"
            lo, hi = mech.outputs.bounds()
            eps = profile["epsilon"]
            top = dist.optimum()
            # q is data-free here: its spec expression, evaluated by mpmath itself (not the impl, not a float);
            # μ is a piecewise-constant density, so the integral is split at its breakpoints too and μ read once
            # per piece (exactly, at the piece's midpoint)
            q_of = sympy.lambdify(quality.output_space["r"], quality.expr, modules="mpmath")
            measure = mech.base_measure
            with mpmath.workdps(40):
                scale, shift = _mp(eps), _mp(top)

                def integrand(t: Any) -> Any:
                    return mpmath.exp(scale * (q_of(t) - shift))

                breaks = sorted({c for _, c in profile["terms"]} | {Fraction(0)} | set(getattr(measure, "breakpoints", ())))
                inner = [b for b in breaks if (lo is None or b > lo) and (hi is None or b < hi)]
                bounds: list[Fraction | None] = [lo, *inner, hi]
                normaliser = mpmath.mpf(0)
                for left, right in zip(bounds, bounds[1:]):
                    middle = _midpoint(left, right)
                    weight = _mu(mech, middle)
                    if weight:
                        ends = [mpmath.ninf if left is None else _mp(left), mpmath.inf if right is None else _mp(right)]
                        normaliser += _mp(weight) * mpmath.quad(integrand, ends)
                worst = mpmath.mpf(0)
                for point in instance["points"]:
                    if (lo is not None and point < lo) or (hi is not None and point > hi):
                        continue
                    formula = _mp(_mu(mech, point)) * mpmath.exp(_mp(eps * (quality([0], point) - top))) / normaliser
                    low, high = dist.density(point).enclose(120)
                    exact = (_mp(low) + _mp(high)) / 2
                    if formula:
                        worst = max(worst, abs(exact - formula) / formula)
                ok = worst <= mpmath.mpf(10) ** -25
            return bool(ok), f"density against mpmath quad (40 digits): relative gap {mpmath.nstr(worst, 3)}"

        return Evaluation(hypotheses, conclude)


def _midpoint(left: Fraction | None, right: Fraction | None) -> Fraction:
    """A point inside the piece ``(left, right)`` (either end may be infinite)."""
    if left is None and right is None:
        return Fraction(0)
    if left is None:
        assert right is not None
        return right - 1
    if right is None:
        return left + 1
    return (left + right) / 2


def _once(make: Callable[[], T]) -> Callable[[], T]:
    """``make()``, called on first use and kept."""
    kept: list[T] = []

    def value() -> T:
        if not kept:
            kept.append(make())
        return kept[0]

    return value


def _mp(value: Fraction) -> Any:
    return mpmath.mpf(value.numerator) / value.denominator


def _exact(value: Any) -> Fraction:
    sign, mantissa, exponent, _ = value._mpf_
    result = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    return -result if sign else result


class _RangePrivacy(InstanceFamily):
    """q(d, r) = profile(r) − |r − Σ_x v_x|: Δq is the spread of v (replace-one)."""

    statement_id = "privacy"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        profile = _profile(rng)
        profile["kind"] = _pick(rng, ("line", "integers", "interval"))
        values = [Fraction(rng.randint(-4, 4)) for _ in range(4)]
        data = tuple(rng.randrange(4) for _ in range(rng.randint(1, 3)))
        other = list(data)
        if rng.random() < 0.8:
            other[rng.randrange(len(other))] = rng.randrange(4)
        else:
            other = [rng.randrange(4) for _ in data]
        truth = max(values) - min(values)
        claimed = truth if rng.random() < 0.75 else truth * Fraction(rng.randint(0, 3), 4)
        return {"range": profile, "values": values, "d1": data, "d2": tuple(other), "delta": claimed}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        profile, values = instance["range"], instance["values"]
        d1, d2 = instance["d1"], instance["d2"]
        x = _SCHEMA["x"]
        body = sympy.Piecewise(*[(sympy.Rational(v.numerator, v.denominator), sympy.Eq(x, i)) for i, v in enumerate(values[:-1])], (sympy.Rational(values[-1].numerator, values[-1].denominator), True))
        space = _space(profile["kind"])
        data_term = -sympy.Abs(space["r"] - Total(body))  # the class: with every value equal the body is a constant, and total() refuses one
        hypotheses = {
            "neighbours": len(d1) == len(d2) and sum(1 for a, b in zip(d1, d2) if a != b) == 1,
            "sensitivity": instance["delta"] >= max(values) - min(values),
            "finite-normaliser": _finite_with_data(profile),
            "epsilon-positive": True,
        }

        def conclude() -> tuple[bool | None, str]:
            mech, _ = _mechanism(profile, data_term)
            try:
                loss = mech.privacy_loss(list(d1), list(d2))
            except DivergentNormaliser as error:
                return None, f"undefined: {str(error).split(':')[0]}"
            bound = 2 * profile["epsilon"] * instance["delta"]
            return (not loss.infinite) and loss <= bound, f"loss ≈ {float(loss):.4g}, 2εΔq = {bound}"

        return Evaluation(hypotheses, conclude)


def _finite_with_data(profile: dict[str, Any]) -> bool:
    """The data term −|r − Σ v| adds slope −1 at both ends."""
    shifted = dict(profile)
    shifted["terms"] = list(profile["terms"]) + [(Fraction(-1), Fraction(0))]
    return finite_normaliser(shifted)


class _RangeAccuracyLemma(InstanceFamily):
    statement_id = "accuracy-lemma"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        profile = _profile(rng)
        profile["kind"] = "interval"
        profile["measure"] = "step"
        return {"range": profile, "t": _pick(rng, (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4))), "scale": _pick(rng, (Fraction(1, 16), Fraction(1, 4), Fraction(1)))}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        profile, t = instance["range"], instance["t"]
        law = _once(lambda: _scaled(profile, instance["scale"]).distribution([0]))

        def mu_bad() -> Fraction:
            dist = law()
            return dist.measure_at_most(dist.optimum() - 2 * t)

        hypotheses = Hypotheses({"t-positive": t > 0, "epsilon-positive": True, "mu-bar-le-1": lambda: mu_bad() <= 1})

        def conclude() -> tuple[bool | None, str]:
            dist = law()
            best = dist.optimum()
            mu_good = dist.level_measure(best - t)
            if mu_good == 0:
                return None, "undefined: μ(S_t) = 0"
            bound = ExpSum.exp(-profile["epsilon"] * t).scale(1 / mu_good)
            return dist.mass_at_most(best - 2 * t) <= bound, f"μ(S_t) = {mu_good}, μ(S̄_2t) = {mu_bad()} (continuous sets)"

        return Evaluation(hypotheses, conclude)


def _scaled(profile: dict[str, Any], scale: Fraction) -> Any:
    space = _space(profile["kind"])
    quality = QualityFunction(_expression(profile, space["r"]), schema=_SCHEMA, outputs=space)
    measure = PiecewiseDensity((0,), (scale / 2, scale * 2))
    return ExponentialMechanism(quality, epsilon=profile["epsilon"], outputs=space, base_measure=measure)


class _RangeAccuracy(InstanceFamily):
    statement_id = "accuracy"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        profile = _profile(rng)
        profile["kind"] = "interval"
        if rng.random() < 0.6:  # q >= 0 on [-4, 4]: lift by a large offset
            profile["offset"] = Fraction(rng.randint(40, 80))
        return {"range": profile, "t": _pick(rng, (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5))), "scale": _pick(rng, (Fraction(1, 16), Fraction(1, 8)))}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        profile, t = instance["range"], instance["t"]
        eps = profile["epsilon"]
        law = _once(lambda: _scaled(profile, instance["scale"]).distribution([0]))

        def t_condition() -> bool:
            dist = law()
            best = dist.optimum()
            return _t_condition(best, t, dist.level_measure(best - t), eps)

        # q is piecewise linear on [−4, 4] with kinks at the c_j: its least value is at an end or a kink; μ has
        # density scale/2 left of 0 and 2·scale right of it, so μ([−4, 4]) = 10·scale (both read off the instance,
        # not the impl)
        points = [Fraction(-4), Fraction(4), *(c for _, c in profile["terms"] if -4 < c < 4)]
        hypotheses = Hypotheses(
            {
                "t-positive": t > 0,
                "epsilon-positive": True,
                "mu-normalised": 10 * instance["scale"] <= 1,
                "q-nonnegative": min(_profile_value(profile, r) for r in points) >= 0,
                "t-condition": t_condition,
            }
        )

        def conclude() -> tuple[bool | None, str]:
            dist = law()
            best = dist.optimum()
            expected = dist.expected_quality()
            return expected >= best - 3 * t, f"E[q] ≈ {float(expected):.4g}, OPT − 3t = {best - 3 * t} (continuous)"

        return Evaluation(hypotheses, conclude)


def _t_condition(best: Fraction, t: Fraction, mu_good: Fraction, eps: Fraction) -> bool:
    return bool(finite_t_condition(best, t, mu_good, eps))


class _Mixed(InstanceFamily):
    """Draws from a finite family, and with probability RANGE_SHARE from a range family."""

    def __init__(self, finite: InstanceFamily, ranged: InstanceFamily) -> None:
        self.finite, self.ranged = finite, ranged
        self.statement_id = finite.statement_id

    def generate(self, rng: random.Random) -> dict[str, Any]:
        if rng.random() < RANGE_SHARE:
            return self.ranged.generate(rng)
        return self.finite.generate(rng)

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        return (self.ranged if "range" in instance else self.finite).evaluate(instance)


_RANGED: dict[str, InstanceFamily] = {
    family.statement_id: family for family in (_RangeMechanism(), _RangeDensity(), _RangePrivacy(), _RangeAccuracyLemma(), _RangeAccuracy())
}


def with_ranges(families: dict[str, InstanceFamily]) -> dict[str, InstanceFamily]:
    """``families`` with the range instances mixed into the statements that hold for any range."""
    return {key: _Mixed(family, _RANGED[key]) if key in _RANGED else family for key, family in families.items()}


FAMILIES_WITH_RANGES = with_ranges(FAMILIES)
