"""The exponential mechanism over the integers: exact geometric closed forms, loss, sampling.

Every closed form is cross-checked against a direct sum over a window wide
enough that the rest is below 2^-200 (exact rationals and balls, an
independent path).  The sampler's goodness-of-fit test has a power check.
"""

import random
from collections import Counter
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import CountableMechanism, ExpRatio, ExpSum, ExponentialMechanism
from expmech.spec import (
    Counting,
    DivergentNormaliser,
    Geometric,
    IntRange,
    InvalidType,
    OutputSpace,
    PiecewiseGeometric,
    QualityFunction,
    RecordSchema,
    count,
    size,
    total,
)
from stats import chi_square_pvalue
from strategies import piecewise_linear_expressions

SEED = 20261202
ALPHA = 1e-3
WRONG = (Fraction(7, 10), Fraction(13, 10))
SCHEMA = RecordSchema(x=IntRange(0, 12))
X = SCHEMA["x"]
MEASURES = [Counting(), Geometric(Fraction(1, 2)), Geometric(Fraction(2, 3), centre=3), PiecewiseGeometric((-2, 5), (1, 3, Fraction(1, 2)), (2, 1, Fraction(1, 3)))]


def _window_sum(quality, dataset, epsilon, measure, lo, hi, weight=lambda v: 1):
    values = quality.scores(dataset, range(lo, hi + 1))
    return ExpSum.weighted_exps((measure.value(k) * weight(v), epsilon * v) for k, v in zip(range(lo, hi + 1), values))


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_closed_forms_agree_with_direct_sums(data):
    """Z, p(k), a CDF value and E[q] equal direct sums over a wide window (the rest is negligible)."""
    lo = data.draw(st.sampled_from([None, -5, 0]))
    hi = data.draw(st.sampled_from([None, 6, 40]))
    space = OutputSpace(k=IntRange(lo, hi))
    k = space["k"]
    expr = data.draw(piecewise_linear_expressions(X, k)) - 3 * sympy.Abs(k - 2)  # decays on both sides
    quality = QualityFunction(expr, schema=SCHEMA, outputs=space)
    epsilon = data.draw(st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(2)]))
    measure = data.draw(st.sampled_from(MEASURES))
    dataset = data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=4))
    mech = ExponentialMechanism(quality, epsilon=epsilon, outputs=space, base_measure=measure)
    window = (-200 if lo is None else lo, 200 if hi is None else hi)
    try:
        dist = mech.distribution(dataset)
    except DivergentNormaliser:  # then the terms must stop decaying at an infinite end
        def term(k):
            return ExpSum.weighted_exps([(measure.value(k), epsilon * quality(dataset, k))])

        grows = [term(end + step) >= term(end) for end, step in ((window[0], -1), (window[1], 1)) if (lo is None and step < 0) or (hi is None and step > 0)]
        assert any(grows)
        return
    direct = _window_sum(quality, dataset, epsilon, measure, *window)
    while True:  # widen the window until the terms at its infinite ends are negligible
        ends = [end for end, infinite in ((window[0], lo is None), (window[1], hi is None)) if infinite]
        if all(_window_sum(quality, dataset, epsilon, measure, e, e) <= direct * Fraction(1, 2**120) for e in ends) or window[1] - window[0] > 40000:
            break
        window = (window[0] * 2 if lo is None else window[0], window[1] * 2 if hi is None else window[1])
        direct = _window_sum(quality, dataset, epsilon, measure, *window)
    z_lo, z_hi = dist.normaliser.enclose(100)
    d_lo, d_hi = direct.enclose(100)
    assert abs(z_lo - d_lo) <= Fraction(1, 2**80) * d_hi
    point = data.draw(st.integers(*window).filter(lambda v: abs(v) < 50))
    expected = ExpSum.weighted_exps([(measure.value(point), epsilon * quality(dataset, point))])
    p_lo, p_hi = dist.probability(point).enclose(80)
    assert abs((p_lo + p_hi) / 2 - expected.enclose(100)[0] / d_lo) <= Fraction(1, 2**70)
    cut = data.draw(st.integers(-6, 8))
    if window[0] <= cut:
        partial = _window_sum(quality, dataset, epsilon, measure, window[0], min(cut, window[1]))
        assert abs(float(dist.cdf(cut)) - float(ExpRatio(partial, direct))) < 1e-12  # a ratio: e^1392 overflows a float
    moment = _window_sum(quality, dataset, epsilon, measure, *window, weight=lambda v: v)
    mean = float(ExpRatio(moment, direct))
    assert abs(float(dist.expected_quality()) - mean) < 1e-10 * (1 + abs(mean))


def test_geometric_tails_diverge_exactly_when_they_should():
    """Counting μ with a flat q diverges; a decaying μ rescues it; the error names finite-normaliser."""
    space = OutputSpace(k=IntRange(None, None))
    flat = QualityFunction(count(X <= space["k"]), schema=SCHEMA, outputs=space)
    with pytest.raises(DivergentNormaliser, match="finite-normaliser"):
        ExponentialMechanism(flat, epsilon=1, outputs=space).distribution([3])
    assert ExponentialMechanism(flat, epsilon=1, outputs=space, base_measure=Geometric(Fraction(1, 2))).distribution([3]).normaliser > 0
    # μ(k) = 2^{-|k|} against q rising by 1 per step: ratio e^ε/2, > 1 at ε = 1 (diverges), < 1 at ε = 1/2
    steep = QualityFunction(space["k"] + 0 * size(), schema=SCHEMA, outputs=OutputSpace(k=IntRange(0, None)))
    with pytest.raises(DivergentNormaliser):
        ExponentialMechanism(steep, epsilon=1, outputs=IntRange(0, None), base_measure=Geometric(Fraction(1, 2))).distribution([1])
    assert ExponentialMechanism(steep, epsilon=Fraction(1, 2), outputs=IntRange(0, None), base_measure=Geometric(Fraction(1, 2))).distribution([1]).normaliser > 0


def test_geometric_mechanism_loss_is_exact():
    """−|k − Σx| with counting μ (the geometric mechanism): the loss is ε·|ΔΣx| exactly, at an integer."""
    space = OutputSpace(k=IntRange(None, None))
    quality = QualityFunction(-sympy.Abs(space["k"] - total(X)), schema=SCHEMA, outputs=space)
    mech = ExponentialMechanism(quality, epsilon=Fraction(1, 3), outputs=space)
    assert isinstance(mech, CountableMechanism)
    loss = mech.privacy_loss([1, 2], [1, 5])
    assert loss == 1 and loss.attained and isinstance(loss.output, int)
    assert mech.privacy_loss([1, 2], [1, 2]) == 0


def test_black_box_over_the_integers_is_refused():
    """Infinite integer outputs need a QualityFunction."""
    with pytest.raises(InvalidType, match="cannot be integrated exactly"):
        ExponentialMechanism(lambda d, k: -abs(k), epsilon=1, outputs=IntRange(None, None))


@pytest.mark.parametrize("measure", [Geometric(Fraction(1, 2)), Counting()], ids=["geometric", "counting"])
def test_sampler_fits_and_has_power(measure):
    """Integer draws fit the exact law (tails bucketed); the sampler at 0.7ε and 1.3ε is rejected."""
    space = OutputSpace(k=IntRange(None, None))
    quality = QualityFunction(-sympy.Abs(space["k"] - total(X)), schema=SCHEMA, outputs=space)
    data, epsilon = [2, 3], Fraction(1, 2)

    def bucket(value):
        return min(max(value, 0), 10)

    dist = ExponentialMechanism(quality, epsilon=epsilon, outputs=space, base_measure=measure).distribution(data)
    truth = {0: float(dist.mass((None, 0))), 10: float(dist.mass((10, None)))}
    truth.update({k: float(dist.probability(k)) for k in range(1, 10)})

    def draws(eps):
        rng = random.Random(SEED)
        sample = ExponentialMechanism(quality, epsilon=eps, outputs=space, base_measure=measure).distribution(data)
        return Counter(bucket(sample.sample(rng=rng)) for _ in range(4000))

    assert chi_square_pvalue(draws(epsilon), truth) > ALPHA
    for factor in WRONG:
        assert chi_square_pvalue(draws(epsilon * factor), truth) < ALPHA


def test_uniform_and_rational_ratio_pieces_sample_exactly():
    """Long flat pieces (uniform) and rational-ratio tails (μ geometric, q flat) fit too."""
    space = OutputSpace(k=IntRange(0, None))
    quality = QualityFunction(-sympy.Abs(count(X <= space["k"]) - size() / 2), schema=SCHEMA, outputs=space)
    measure = PiecewiseGeometric((100,), (1, 1), (1, Fraction(9, 10)))
    dist = ExponentialMechanism(quality, epsilon=1, outputs=space, base_measure=measure).distribution([1, 2, 3])
    edges = [0, 1, 2, 3, 50, 100, 110, 130]

    def bucket(value):
        return max(e for e in edges if e <= value)

    truth = {}
    for i, e in enumerate(edges):
        truth[e] = float(dist.mass((e, edges[i + 1] - 1) if i + 1 < len(edges) else (e, None)))
    rng = random.Random(SEED)
    counts = Counter(bucket(dist.sample(rng=rng)) for _ in range(4000))
    assert chi_square_pvalue(counts, truth) > ALPHA
