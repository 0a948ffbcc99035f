"""Finite instances of the source's statements, evaluated exactly with ``expmech.impl``.

For every instantiable statement an :class:`InstanceFamily` draws concrete
instances (small quality tables, base measures, ε, t, datasets …) and
evaluates, exactly, which of the statement's hypotheses hold on the instance
and whether its conclusion does (``None`` where the conclusion is undefined,
e.g. a division by ``μ(S_t) = 0``).  Generators deliberately violate each
hypothesis now and then, so that the dropped-hypothesis search has material.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from math import factorial
from typing import Any

import sympy

from expmech.impl import ExponentialMechanism, ExpRatio, ExpSum
from expmech.spec import InvalidArgument, statement

from ._auction_family import AuctionsFamily
from ._family_base import Evaluation, Hypotheses, InstanceFamily, _pick
from ._posterior_family import PosteriorSamplingFamily

__all__ = ["FAMILIES", "Evaluation", "InstanceFamily"]


# -- shared helpers -------------------------------------------------------------------


class _Scores:
    """A quality that returns a fixed score per output index (dataset ignored)."""

    def __init__(self, scores: Sequence[Fraction]) -> None:
        self.values = list(scores)

    def __call__(self, dataset: Any, r: int) -> Fraction:
        return self.values[r]


def _distribution(scores: Sequence[Fraction], measure: Sequence[Fraction], epsilon: Fraction) -> Any:
    """The exact distribution ∝ μ(r) e^{ε q(r)} for any rational ε (the mechanism needs ε > 0)."""
    if epsilon > 0:
        quality, eps = _Scores(scores), epsilon
    elif epsilon < 0:
        quality, eps = _Scores([-s for s in scores]), -epsilon
    else:
        quality, eps = _Scores([Fraction(0)] * len(scores)), Fraction(1)
    mech = ExponentialMechanism(quality, epsilon=eps, outputs=range(len(scores)), base_measure=dict(enumerate(measure)))
    return mech.distribution(None)


def _hamming_one(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and sum(1 for x, y in zip(a, b) if x != y) == 1


def _replace_one(rng: random.Random, data: tuple[int, ...], records: int) -> tuple[int, ...]:
    position = rng.randrange(len(data))
    choices = [v for v in range(records) if v != data[position]] or [data[position]]
    return data[:position] + (_pick(rng, choices),) + data[position + 1 :]


def _table_sensitivity(table: Sequence[Sequence[Fraction]]) -> Fraction:
    """Replace-one Δ of q(d, r) = Σ_{x ∈ d} table[x][r]: the largest column spread."""
    return max(max(column) - min(column) for column in zip(*table))


def _table_quality(table: Sequence[Sequence[Fraction]]) -> Callable[[Sequence[int], int], Fraction]:
    def quality(dataset: Sequence[int], r: int) -> Fraction:
        return sum((table[x][r] for x in dataset), Fraction(0))

    return quality


def _random_table(rng: random.Random, records: int, outputs: int) -> list[list[Fraction]]:
    return [[Fraction(rng.randint(-6, 6), _pick(rng, (1, 2))) for _ in range(outputs)] for _ in range(records)]


# -- the families ---------------------------------------------------------------------


class MechanismFamily(InstanceFamily):
    """p(r) ∝ e^{εq} μ(r): ratios of probabilities equal ratios of weights; they sum to 1."""

    statement_id = "mechanism"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        m = rng.randint(1, 5)
        zero = rng.random() < 0.2
        return {
            "scores": [Fraction(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(m)],
            "measure": [Fraction(0) if zero else Fraction(rng.randint(0, 4), 2) for _ in range(m)],
            "epsilon": Fraction(rng.randint(1, 6), 3),
        }

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        scores, measure, eps = instance["scores"], instance["measure"], instance["epsilon"]
        hypotheses = {"finite-normaliser": True, "base-measure": any(measure)}
        try:
            dist = _distribution(scores, measure, eps)
        except InvalidArgument as error:
            return Evaluation(hypotheses, None, f"undefined: {error}")
        weights = [ExpSum.weighted_exps([(m, eps * q)]) for m, q in zip(measure, scores)]
        ok = dist.mass(range(len(scores))) == 1
        for i, j in itertools.combinations(range(len(scores)), 2):
            pi, pj = dist.probability(i), dist.probability(j)
            ok = ok and (pi.numerator * pj.denominator * weights[j] - pj.numerator * pi.denominator * weights[i]).is_zero()
        return Evaluation(hypotheses, ok)


class DensityFamily(InstanceFamily):
    """The impl's probability equals the spec's density formula, substituted by sympy."""

    statement_id = "density"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        return MechanismFamily().generate(rng)

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        scores, measure, eps = instance["scores"], instance["measure"], instance["epsilon"]
        hypotheses = {"finite-normaliser": any(measure)}
        try:
            dist = _distribution(scores, measure, eps)
        except InvalidArgument as error:
            return Evaluation(hypotheses, None, f"undefined: {error}")

        def conclude() -> tuple[bool | None, str]:
            formula = _density_formula()
            total = sum(
                sympy.Rational(m.numerator, m.denominator) * sympy.exp(sympy.Rational((eps * q).numerator, (eps * q).denominator))
                for m, q in zip(measure, scores)
            )
            ok = True
            for r, (m, q) in enumerate(zip(measure, scores)):
                value = formula(
                    sympy.Rational(eps.numerator, eps.denominator), sympy.Rational(q.numerator, q.denominator), sympy.Rational(m.numerator, m.denominator), total
                )
                ok = ok and exact_from_sympy(value) == dist.probability(r)
            return ok, ""

        return Evaluation(hypotheses, conclude)


@functools.lru_cache(maxsize=1)
def _density_formula() -> Callable[..., sympy.Expr]:
    """The spec's density formula as a function of (ε, q_d, μ_r, Z_d): sympy itself evaluates it on sympy numbers
    (``lambdify`` into sympy, the expression the statement holds; faster than ``subs``, the same value)."""
    formula = statement("density").conclusion.rhs
    symbols = {s.name: s for s in formula.free_symbols}
    return sympy.lambdify([symbols["epsilon"], symbols["q_d"], symbols["mu_r"], symbols["Z_d"]], formula, modules="sympy")  # type: ignore[no-any-return]


def exact_from_sympy(expr: sympy.Expr) -> ExpRatio:
    """An exact :class:`ExpRatio` for a sympy number built from rationals, ``exp``, ``+``, ``·`` and ``/``.

    Its numerator and denominator as sympy writes them, or, where one of them is not a sum of rational
    multiples of exponentials (a sum of fractions), those of ``together(expr)``: the same number either way.
    """
    numerator, denominator = sympy.fraction(expr)
    try:
        return ExpRatio(_expsum_from_sympy(numerator), _expsum_from_sympy(denominator))
    except InvalidArgument:
        numerator, denominator = sympy.fraction(sympy.together(expr))
        return ExpRatio(_expsum_from_sympy(numerator), _expsum_from_sympy(denominator))


def _expsum_from_sympy(expr: sympy.Expr) -> ExpSum:
    expr = sympy.expand(sympy.powsimp(expr))
    terms = sympy.Add.make_args(expr)
    pairs = []
    for term in terms:
        coefficient, exponent = Fraction(1), Fraction(0)
        for factor in sympy.Mul.make_args(term):
            if isinstance(factor, sympy.Rational):
                coefficient *= Fraction(int(factor.p), int(factor.q))
            elif isinstance(factor, sympy.exp) and isinstance(factor.args[0], sympy.Rational):
                exponent += Fraction(int(factor.args[0].p), int(factor.args[0].q))
            elif factor is sympy.E:
                exponent += 1
            elif isinstance(factor, sympy.Pow) and factor.base is sympy.E and isinstance(factor.exp, sympy.Rational):
                exponent += Fraction(int(factor.exp.p), int(factor.exp.q))
            else:
                raise InvalidArgument(f"cannot convert {factor} exactly", parameter="expr", value=expr)
        pairs.append((coefficient, exponent))
    return ExpSum(pairs)


class PrivacyFamily(InstanceFamily):
    """The exact privacy loss between two datasets against 2εΔq."""

    statement_id = "privacy"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        records, outputs = 3, rng.randint(1, 4)
        table = _random_table(rng, records, outputs)
        data = tuple(rng.randrange(records) for _ in range(rng.randint(1, 4)))
        other = _replace_one(rng, data, records) if rng.random() < 0.75 else tuple(rng.randrange(records) for _ in data)
        truth = _table_sensitivity(table)
        claimed = truth if rng.random() < 0.7 else truth * Fraction(rng.randint(0, 3), 4)
        epsilon = _pick(rng, (Fraction(1, 3), Fraction(1, 2), Fraction(1), Fraction(2))) if rng.random() < 0.8 else -Fraction(rng.randint(1, 2), 2)
        return {"table": table, "d1": data, "d2": other, "delta": claimed, "epsilon": epsilon}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        table, d1, d2, delta, eps = (instance[k] for k in ("table", "d1", "d2", "delta", "epsilon"))
        quality = _table_quality(table)
        outputs = range(len(table[0]))
        hypotheses = {
            "neighbours": _hamming_one(d1, d2),
            "sensitivity": delta >= _table_sensitivity(table),
            "finite-normaliser": True,
            "epsilon-positive": eps > 0,
        }

        def conclude() -> tuple[bool | None, str]:
            measure = [Fraction(1)] * len(outputs)
            p1 = _distribution([quality(d1, r) for r in outputs], measure, eps)
            p2 = _distribution([quality(d2, r) for r in outputs], measure, eps)
            loss = _loss_between(p1, p2)
            bound = 2 * eps * delta
            return loss <= bound, f"loss ≈ {float(loss):.4g}, 2εΔq = {bound}"

        return Evaluation(hypotheses, conclude)


def _loss_between(p1: Any, p2: Any) -> Any:
    """The exact privacy loss between two distributions over the same outputs and measure."""
    mech = p1.mechanism
    other = type(p1)._build(mech, p2.scores)
    return p1.privacy_loss(other)


class AccuracyLemmaFamily(InstanceFamily):
    """p(S̄_{2t}) <= e^{−εt}/μ(S_t) on finite ranges."""

    statement_id = "accuracy-lemma"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        m = rng.randint(1, 5)
        return {
            "scores": [Fraction(rng.randint(-6, 6)) for _ in range(m)],
            "measure": [_pick(rng, (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5), Fraction(100))) for _ in range(m)],
            "epsilon": _pick(rng, (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2))) * (1 if rng.random() < 0.8 else -1),
            "t": _pick(rng, (Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(3))) if rng.random() < 0.85 else _pick(rng, (Fraction(0), Fraction(-1))),
        }

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        scores, measure, eps, t = (instance[k] for k in ("scores", "measure", "epsilon", "t"))
        best = max(scores)
        good = [i for i, q in enumerate(scores) if q > best - t]
        bad = [i for i, q in enumerate(scores) if q <= best - 2 * t]
        mu_good = sum((measure[i] for i in good), Fraction(0))
        mu_bad = sum((measure[i] for i in bad), Fraction(0))
        hypotheses = {"mu-bar-le-1": mu_bad <= 1, "t-positive": t > 0, "epsilon-positive": eps > 0}
        if mu_good == 0:
            return Evaluation(hypotheses, None, "undefined: μ(S_t) = 0")

        def conclude() -> tuple[bool | None, str]:
            dist = _distribution(scores, measure, eps)
            bound = ExpSum.exp(-eps * t).scale(1 / mu_good)
            return dist.mass(bad) <= bound, ""

        return Evaluation(hypotheses, conclude)


class AccuracyFamily(InstanceFamily):
    """E[q] >= OPT − 3t for every t meeting the source's condition."""

    statement_id = "accuracy"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        m = rng.randint(1, 5)
        if rng.random() < 0.45:
            scores = [Fraction(rng.randint(0, 20)) for _ in range(m)]
        else:  # a small positive OPT and scores far below it
            scores = [Fraction(rng.randint(1, 5))] + [Fraction(rng.randint(-200, 5)) for _ in range(m - 1)]
            rng.shuffle(scores)
        if rng.random() < 0.7:
            raw = [rng.randint(1, 4) for _ in range(m)]
            scale = _pick(rng, (Fraction(1), Fraction(1, 2)))
            measure = [Fraction(w) * scale / sum(raw) for w in raw]
        else:
            measure = [Fraction(_pick(rng, (1, 2, 5, 100, 1000))) for _ in range(m)]
        eps = _pick(rng, (Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2)))
        if min(scores) < 0:  # far-below scores matter when ε·|q| is about 1
            eps = _pick(rng, (Fraction(1, 100), Fraction(1, 50), Fraction(1, 10)))
        if rng.random() < 0.15:
            eps = -eps
        t = _pick(rng, (Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5), Fraction(10)))
        if rng.random() < 0.1:
            t = _pick(rng, (Fraction(0), Fraction(-1)))
        return {"scores": scores, "measure": measure, "epsilon": eps, "t": t}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        scores, measure, eps, t = (instance[k] for k in ("scores", "measure", "epsilon", "t"))
        best = max(scores)
        mu_good = sum((m for m, q in zip(measure, scores) if q > best - t), Fraction(0))
        hypotheses = Hypotheses(
            {
                "t-positive": t > 0,
                "epsilon-positive": eps > 0,
                "mu-normalised": sum(measure) <= 1,
                "q-nonnegative": min(scores) >= 0,
                "t-condition": lambda: _t_condition(best, t, mu_good, eps),  # an exact exponential comparison
            }
        )

        def conclude() -> tuple[bool | None, str]:
            expected = _distribution(scores, measure, eps).expected_quality()
            bound = best - 3 * t
            return expected >= bound, f"E[q] ≈ {float(expected):.4g}, OPT − 3t = {bound}"

        return Evaluation(hypotheses, conclude)


def _t_condition(best: Fraction, t: Fraction, mu_good: Fraction, eps: Fraction) -> bool:
    """Exactly whether t >= ln(OPT / (t μ(S_t))) / ε (False where the logarithm is undefined)."""
    if t == 0 or mu_good == 0 or eps == 0:
        return False
    ratio = best / (t * mu_good)
    if ratio <= 0:
        return False
    power = ExpSum.exp(eps * t)  # t >= ln(ratio)/ε  ⇔  εt >= ln(ratio) for ε > 0, εt <= ln(ratio) for ε < 0
    return power >= ratio if eps > 0 else power <= ratio


class GlobalSensitivityFamily(InstanceFamily):
    """Exhaustive GS of an additive query over all replace-one pairs equals its largest column spread."""

    statement_id = "global-sensitivity"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        return {
            "table": _random_table(rng, 3, rng.randint(1, 3)),
            "n": rng.randint(1, 3),
            "pairs": "neighbours" if rng.random() < 0.7 else "arbitrary",
        }

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        table, n, pairs = instance["table"], instance["n"], instance["pairs"]
        quality = _table_quality(table)
        datasets = list(itertools.product(range(3), repeat=n))
        values = {d: [quality(d, r) for r in range(len(table[0]))] for d in datasets}  # each dataset's q once
        largest = Fraction(0)
        for d1, d2 in itertools.product(datasets, repeat=2):
            if pairs == "neighbours" and not _hamming_one(d1, d2):
                continue
            for a, b in zip(values[d1], values[d2]):
                largest = max(largest, abs(a - b))
        return Evaluation({"neighbours": pairs == "neighbours"}, largest == _table_sensitivity(table))


_PREDICATES = None


def _predicate_queries() -> list[Any]:
    global _PREDICATES
    if _PREDICATES is None:
        from expmech.spec import Booleans, IntRange, OutputSpace, QualityFunction, RecordSchema, count, size

        schema = RecordSchema(b1=Booleans(), b2=Booleans(), b3=Booleans())
        outputs = OutputSpace(z=IntRange(0, 0))
        b1, b2, b3 = schema["b1"], schema["b2"], schema["b3"]
        one = lambda s: sympy.Eq(s, 1)  # noqa: E731
        predicates = [one(b1), sympy.And(one(b1), one(b2)), sympy.Or(one(b2), one(b3)), sympy.Not(one(b3)), sympy.Eq(b1 + b2 + b3, 2)]
        _PREDICATES = [QualityFunction(count(p) / size(), schema=schema, outputs=outputs) for p in predicates]
    return _PREDICATES


class PredicateQueryFamily(InstanceFamily):
    """|Q_φ(D1) − Q_φ(D2)| <= 1/n for predicate queries written in the spec language."""

    statement_id = "predicate-query"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        record = lambda: {"b1": rng.random() < 0.5, "b2": rng.random() < 0.5, "b3": rng.random() < 0.5}  # noqa: E731
        d1 = [record() for _ in range(rng.randint(1, 5))]
        kind = rng.random()
        if kind < 0.5:
            d2 = list(d1)
            d2[rng.randrange(len(d2))] = record()
        elif kind < 0.75:
            d2 = d1 + [record()] if rng.random() < 0.5 or len(d1) == 1 else d1[:-1]
        else:
            d2 = [record() for _ in d1]
        return {"phi": rng.randrange(len(_predicate_queries())), "d1": d1, "d2": d2}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        query = _predicate_queries()[instance["phi"]]
        d1, d2 = instance["d1"], instance["d2"]
        key = lambda rec: (rec["b1"], rec["b2"], rec["b3"])  # noqa: E731
        if len(d1) == len(d2):
            neighbours = sum(1 for a, b in zip(d1, d2) if key(a) != key(b)) == 1
        else:
            difference = (Counter(map(key, d1)) - Counter(map(key, d2))) + (Counter(map(key, d2)) - Counter(map(key, d1)))
            neighbours = sum(difference.values()) == 1
        hypotheses = {"same-size": len(d1) == len(d2), "neighbours": neighbours}
        gap = abs(query(d1, 0) - query(d2, 0))
        return Evaluation(hypotheses, gap <= Fraction(1, len(d1)), f"|ΔQ| = {gap}, 1/n = 1/{len(d1)}")


_BIT_PREDICATES: dict[str, Callable[[tuple[int, int]], int]] = {
    "x1": lambda x: x[0],
    "x2": lambda x: x[1],
    "x1∧x2": lambda x: x[0] & x[1],
    "x1∨x2": lambda x: x[0] | x[1],
}
_POINTS = [(a, b) for a in (0, 1) for b in (0, 1)]


def _vc_dimension(predicates: Sequence[Callable[[tuple[int, int]], int]]) -> int:
    best = 0
    for size in range(1, len(_POINTS) + 1):
        for subset in itertools.combinations(_POINTS, size):
            patterns = {tuple(h(x) for x in subset) for h in predicates}
            if len(patterns) == 2**size:
                best = size
    return best


class UniformConvergenceFamily(InstanceFamily):
    """The exact probability that a sample of m records misses some Q_h by α/2, against the VC bound."""

    statement_id = "uniform-convergence"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        names = [name for name in _BIT_PREDICATES if rng.random() < 0.6] or ["x1"]
        data = [_pick(rng, _POINTS) for _ in range(rng.randint(2, 6))]
        return {"H": names, "data": data, "m": rng.randint(1, 6), "alpha": _pick(rng, (Fraction(1, 2), Fraction(1), Fraction(3, 2)))}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        hs = [_BIT_PREDICATES[name] for name in instance["H"]]
        data, m, alpha = instance["data"], instance["m"], instance["alpha"]
        vc = _vc_dimension(hs)
        hypotheses = {"sample": True, "vc": vc >= 1 and m >= vc}
        if vc == 0:
            return Evaluation(hypotheses, None, "undefined: VCDim(H) = 0")

        def conclude() -> tuple[bool | None, str]:
            counts = Counter(data)
            types = list(counts)
            n = len(data)
            truth = [Fraction(sum(h(x) for x in data), n) for h in hs]
            failure = Fraction(0)
            for composition in _compositions(m, len(types)):
                weight = Fraction(factorial(m))
                for c, kind in zip(composition, types):
                    weight *= Fraction(counts[kind], n) ** c / factorial(c)
                estimate = [Fraction(sum(c * h(kind) for c, kind in zip(composition, types)), m) for h in hs]
                if any(abs(a - b) >= alpha / 2 for a, b in zip(truth, estimate)):
                    failure += weight
            bound = ExpSum.weighted_exps([(2 * Fraction(m, vc) ** vc, vc - alpha**2 * m / 8)])
            return bound >= failure, f"P = {failure}, bound ≈ {float(bound):.4g}"

        return Evaluation(hypotheses, conclude)


def _compositions(total: int, parts: int) -> Any:
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


_SYNTH_H = [_BIT_PREDICATES["x1"], _BIT_PREDICATES["x2"], _BIT_PREDICATES["x1∧x2"]]


def _synthetic_scores(data: Sequence[tuple[int, int]], m: int) -> tuple[tuple[tuple[Any, ...], ...], tuple[Fraction, ...]]:
    """All ordered D̂ ∈ ({0,1}^2)^m and q(D, D̂) = −max_h |Q_h(D) − Q_h(D̂)| for each.

    The scores depend on D only through its multiset of records, so they are kept per multiset (an instance
    and its neighbours meet the same few multisets again and again).
    """
    return _scores_of_multiset(tuple(sorted(data)), m)


@functools.lru_cache(maxsize=4096)
def _scores_of_multiset(data: tuple[tuple[int, int], ...], m: int) -> tuple[tuple[tuple[Any, ...], ...], tuple[Fraction, ...]]:
    n = len(data)
    truth = [Fraction(sum(h(x) for x in data), n) for h in _SYNTH_H]
    outputs = tuple(itertools.product(_POINTS, repeat=m))
    scores = tuple(-max(abs(t - Fraction(sum(h(y) for y in synth), m)) for t, h in zip(truth, _SYNTH_H)) for synth in outputs)
    return outputs, scores


@functools.lru_cache(maxsize=4096)
def _synthetic_gap(data: tuple[tuple[int, int], ...], m: int) -> Fraction:
    """The largest |q(D, D̂) − q(D′, D̂)| over every replace-one neighbour D′ of D (GS_q <= 1/n is checked on it)."""
    _, s1 = _synthetic_scores(data, m)
    gap = Fraction(0)
    for position in range(len(data)):
        for point in _POINTS:
            nearby = list(data)
            nearby[position] = point
            _, s3 = _synthetic_scores(nearby, m)
            gap = max(gap, max(abs(a - b) for a, b in zip(s1, s3)))
    return gap


class SyntheticMechanismFamily(InstanceFamily):
    """Weight e^{q ε n / 2} over synthetic datasets: privacy loss <= ε between neighbours."""

    statement_id = "synthetic-mechanism"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        data = [_pick(rng, _POINTS) for _ in range(rng.randint(1, 6))]
        if rng.random() < 0.75:
            other = list(data)
            other[rng.randrange(len(other))] = _pick(rng, _POINTS)
        else:
            other = [_pick(rng, _POINTS) for _ in data]
        return {"d1": data, "d2": other, "m": rng.randint(1, 2), "epsilon": _pick(rng, (Fraction(1, 2), Fraction(1), Fraction(2)))}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        d1, d2, m, eps = (instance[k] for k in ("d1", "d2", "m", "epsilon"))
        n = len(d1)
        outputs, s1 = _synthetic_scores(d1, m)
        _, s2 = _synthetic_scores(d2, m)
        gap = _synthetic_gap(tuple(sorted(d1)), m)
        hypotheses = {"neighbours": _hamming_one(d1, d2), "sensitivity": gap <= Fraction(1, n)}

        def conclude() -> tuple[bool | None, str]:
            measure = [Fraction(1)] * len(outputs)
            p1 = _distribution(s1, measure, eps * n / 2)
            loss = _loss_between(p1, _distribution(s2, measure, eps * n / 2))
            return loss <= eps, f"loss ≈ {float(loss):.4g}, ε = {eps}"

        return Evaluation(hypotheses, conclude)


class SyntheticSizeFamily(InstanceFamily):
    """Pr[q(D, D̂) <= −α] <= δ once n >= 4/(εα)(km + ln(1/δ)), computed exactly."""

    statement_id = "synthetic-size"

    def generate(self, rng: random.Random) -> dict[str, Any]:
        m = rng.randint(1, 2)
        eps = _pick(rng, (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4)))
        alpha = _pick(rng, (Fraction(1, 2), Fraction(1)))
        delta = _pick(rng, (Fraction(1, 4), Fraction(1, 2)))
        if rng.random() < 0.6:
            n = math.ceil(4 / float(eps * alpha) * (2 * m + math.log(1 / float(delta)))) + rng.randint(0, 3)
        else:
            n = rng.randint(1, 12)
        weights = [rng.randint(0, 3) for _ in _POINTS]
        if not any(weights):
            weights[0] = 1
        data = rng.choices(_POINTS, weights=weights, k=n)
        return {"data": data, "m": m, "epsilon": eps, "alpha": alpha, "delta": delta}

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        data, m, eps, alpha, delta = (instance[k] for k in ("data", "m", "epsilon", "alpha", "delta"))
        n, k = len(data), 2
        hypotheses = Hypotheses(
            {
                "delta-range": 0 < delta < 1,
                "epsilon-positive": eps * alpha > 0,
                # n >= 4/(εα)(km + ln(1/δ))  ⇔  e^{nεα/4 − km} >= 1/δ
                "n-large": lambda: ExpSum.exp(n * eps * alpha / 4 - k * m) >= 1 / delta,
                "good-exists": lambda: max(_synthetic_scores(data, m)[1]) >= -alpha / 2,
            }
        )

        def conclude() -> tuple[bool | None, str]:
            outputs, scores = _synthetic_scores(data, m)
            dist = _distribution(scores, [Fraction(1)] * len(outputs), eps * n / 2)
            bad = [i for i, q in enumerate(scores) if q <= -alpha]
            probability = dist.mass(bad)
            return probability <= delta, f"Pr[B] ≈ {float(probability):.4g}, δ = {delta}"

        return Evaluation(hypotheses, conclude)


FAMILIES: dict[str, InstanceFamily] = {
    family.statement_id: family
    for family in (
        MechanismFamily(),
        DensityFamily(),
        PrivacyFamily(),
        AccuracyLemmaFamily(),
        AccuracyFamily(),
        GlobalSensitivityFamily(),
        PredicateQueryFamily(),
        UniformConvergenceFamily(),
        SyntheticMechanismFamily(),
        SyntheticSizeFamily(),
        PosteriorSamplingFamily(),
        AuctionsFamily(),
    )
}
