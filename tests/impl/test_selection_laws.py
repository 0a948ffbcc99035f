"""The exact laws of permute-and-flip, top-k and the quantile mechanism, cross-checked by independent routes."""

import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import (
    ExponentialMechanism,
    ExponentialTopK,
    ExpSum,
    PermuteAndFlip,
    PermuteAndFlipTopK,
    QuantileMechanism,
    RefinedValue,
)
from expmech.impl.selection._pf_law import _arb_enclosures, _float_enclosures, _Levels, permute_and_flip_enclosures, permute_and_flip_exact
from expmech.spec import InvalidArgument, PrecisionExhausted

scores_strategy = st.lists(
    st.fractions(min_value=-6, max_value=6, max_denominator=3), min_size=1, max_size=7
)
epsilons = st.fractions(min_value=Fraction(1, 4), max_value=4, max_denominator=4)


def table(dataset, r):
    """Quality reading the score of output r from the dataset (a score vector)."""
    return dataset[r]


@given(scores=scores_strategy, epsilon=epsilons)
def test_permute_and_flip_polynomial_route_equals_enumeration(scores, epsilon):
    """The exact polynomial route equals the existing enumeration, sums to 1, and every enclosure holds it."""
    mech = PermuteAndFlip(table, epsilon=epsilon, outputs=range(len(scores)))
    enumerated = mech.probabilities(scores)
    exact = permute_and_flip_exact(scores, epsilon)
    assert sum(exact, ExpSum()) == 1
    law = mech.distribution(scores)
    for r, value in enumerate(exact):
        assert enumerated[r] == value
        for bits in (20, 80):
            lo, hi = law.enclose(r, bits)
            assert lo <= value <= hi
            assert hi - lo <= lo / 2**bits


@settings(max_examples=25, deadline=None)
@given(
    scores=st.lists(st.integers(-3000, 3000), min_size=2, max_size=60),
    epsilon=st.fractions(min_value=Fraction(1, 50), max_value=50, max_denominator=50).filter(lambda e: e > 0),
)
def test_float_filter_brackets_the_ball_route(scores, epsilon):
    """The float filter's bounds contain the high-precision ball enclosure (gaps up to 6000, underflowing coins)."""
    levels = _Levels(scores)
    if len(levels.gaps) == 1:
        return
    floats = _float_enclosures(levels, epsilon)
    balls = _arb_enclosures(levels, epsilon, 200)
    assert floats is not None
    for (lo, hi), (ball_lo, ball_hi) in zip(floats, balls):
        assert lo <= ball_lo and ball_hi <= hi


def test_permute_and_flip_at_a_thousand_outputs_is_tight():
    """|R| = 1000: every enclosure is 30 bits tight and the total mass brackets 1."""
    rng = random.Random(7)
    scores = [rng.randint(0, 1000) for _ in range(1000)]
    enclosures = permute_and_flip_enclosures(scores, Fraction(1, 10))
    assert all(hi - lo <= lo / 2**30 for lo, hi in enclosures)
    assert sum(lo for lo, _ in enclosures) <= 1 <= sum(hi for _, hi in enclosures)


def test_permute_and_flip_favours_higher_scores_and_beats_the_exponential_mechanism():
    """P increases with the score, and permute-and-flip's expected score is at least the exponential mechanism's."""
    scores = [0, 1, 1, 3, 5, 2]
    epsilon = Fraction(1, 2)
    pf = PermuteAndFlip(table, epsilon=epsilon, outputs=range(6)).distribution(scores)
    em = ExponentialMechanism(table, epsilon=epsilon, outputs=range(6)).distribution(scores)
    assert pf.probability(4) > pf.probability(3) > pf.probability(1) > pf.probability(0)
    assert pf.probability(1) == pf.probability(2)
    pf_mean = sum((pf.exact_probability(r) * s for r, s in enumerate(scores)), ExpSum())
    assert pf_mean > em.expected_quality()


def test_exact_route_refuses_a_degree_over_its_cap():
    """Scores on a fine grid give a huge polynomial: the exact route says so instead of hanging or guessing."""
    scores = [Fraction(i, 997) for i in range(50)] + [100]
    law = PermuteAndFlip(table, epsilon=Fraction(1), outputs=range(len(scores))).distribution(scores)
    with pytest.raises(PrecisionExhausted, match="max_degree"):
        law.exact_probability(0, max_degree=1000)
    lo, hi = law.enclose(0, 40)
    assert 0 < lo <= hi


@given(scores=st.lists(st.integers(-4, 4), min_size=2, max_size=5), neighbour_shift=st.integers(0, 4), epsilon=epsilons)
def test_permute_and_flip_privacy_loss_is_exact_and_within_the_theorem(scores, neighbour_shift, epsilon):
    """The loss between two score vectors at L∞ distance 1 is at most 2ε, and agrees with the exact fallback."""
    other = list(scores)
    other[neighbour_shift % len(scores)] += 1
    mech = PermuteAndFlip(table, epsilon=epsilon, outputs=range(len(scores)))
    loss = mech.privacy_loss(scores, other)
    assert loss <= 2 * epsilon
    exact = loss.value.exact()
    lo, hi = loss.enclose(40)
    assert lo <= exact <= hi


def test_refined_value_compares_exactly_even_when_equal():
    """Two permute-and-flip probabilities that are equal compare equal (exact fallback), unequal ones by enclosure."""
    law = PermuteAndFlip(table, epsilon=Fraction(1, 3), outputs=range(4)).distribution([1, 2, 2, 0])
    assert law.probability(1) == law.probability(2)
    assert law.probability(1) > law.probability(0)
    assert isinstance(law.probability(0), RefinedValue)


# -- top-k -----------------------------------------------------------------------------------


@given(scores=st.lists(st.integers(-3, 3), min_size=2, max_size=5), epsilon=epsilons, k=st.integers(1, 3))
def test_peeling_laws_sum_to_one_and_their_first_place_is_the_single_law(scores, epsilon, k):
    """Over all ordered tuples the probabilities sum to 1; the first place's marginal is the k = 1 law (rigorous bounds)."""
    k = min(k, len(scores))
    outputs = range(len(scores))
    for topk, single in (
        (ExponentialTopK(table, epsilon=epsilon, outputs=outputs, k=k), ExponentialMechanism(table, epsilon=epsilon, outputs=outputs)),
        (PermuteAndFlipTopK(table, epsilon=epsilon, outputs=outputs, k=k), PermuteAndFlip(table, epsilon=epsilon, outputs=outputs)),
    ):
        law = topk.distribution(scores)
        single_law = single.distribution(scores)
        low = {r: Fraction(0) for r in outputs}
        high = {r: Fraction(0) for r in outputs}
        for t in law.outcomes():
            exact = law.exact_probability(t)
            lo, hi = law.enclose(t, 40)
            assert lo <= exact <= hi
            low[t[0]] += lo
            high[t[0]] += hi
        assert sum(low.values()) <= 1 <= sum(high.values())
        for r in outputs:
            assert low[r] <= single_law.probability(r) <= high[r]


def test_exponential_top_k_exact_probability_is_plackett_luce():
    """P[(2, 0)] = w2/Z · w0/(Z − w2), exactly."""
    scores = [1, 0, 3]
    eps = Fraction(1, 2)
    law = ExponentialTopK(table, epsilon=eps, outputs=range(3), k=2).distribution(scores)
    w = [ExpSum.exp(eps * s) for s in scores]
    z = w[0] + w[1] + w[2]
    value = law.exact_probability((2, 0))
    assert value.numerator * (z * (w[0] + w[1])) == value.denominator * (w[2] * w[0])


def test_top_k_outcomes_are_validated():
    """A tuple with a repeat, a wrong length or a non-output is not an outcome, with a clear error."""
    law = ExponentialTopK(table, epsilon=1, outputs=range(4), k=2).distribution([0, 1, 2, 3])
    assert law.is_outcome((0, 1)) and law.is_outcome([3, 2])
    for bad in [(1, 1), (0,), (0, 1, 2), (0, 9), 5]:
        assert not law.is_outcome(bad)
        with pytest.raises(InvalidArgument, match="outcome="):
            law.enclose(bad)
    with pytest.raises(InvalidArgument, match="k=5"):
        ExponentialTopK(table, epsilon=1, outputs=range(4), k=5)


def test_top_k_privacy_loss_within_k_times_the_single_bound():
    """Peeling k rounds at ε costs at most 2kε for scores at L∞ distance 1 (both laws), decided exactly."""
    eps = Fraction(1, 3)
    a, b = [0, 2, 1, 3], [1, 1, 2, 2]
    for cls in (ExponentialTopK, PermuteAndFlipTopK):
        mech = cls(table, epsilon=eps, outputs=range(4), k=2)
        loss = mech.privacy_loss(a, b)
        assert loss <= 2 * 2 * eps
        assert loss > 0


def test_top_k_samplers_draw_distinct_outputs():
    """Exact top-k draws are k distinct outputs."""
    rng = random.Random(3)
    for cls in (ExponentialTopK, PermuteAndFlipTopK):
        mech = cls(table, epsilon=Fraction(1, 2), outputs=range(5), k=3)
        for _ in range(50):
            draw = mech.sample([0, 1, 2, 3, 4], rng=rng)
            assert len(set(draw)) == 3


# -- quantile --------------------------------------------------------------------------------


def test_quantile_interval_law_uses_widths_as_base_measure():
    """Interval i has probability ∝ width_i · e^{ε u_i} with u_i = −|i − q n|, exactly."""
    mech = QuantileMechanism(quantile=Fraction(1, 2), epsilon=Fraction(1, 2), bounds=(0, 10))
    data = [1, 2, Fraction(5, 2), 7]
    dist = mech.distribution(data)
    widths = [1, 1, Fraction(1, 2), Fraction(9, 2), 3]
    weights = [ExpSum.weighted_exps([(Fraction(w), -Fraction(1, 2) * abs(i - 2))]) for i, w in enumerate(widths)]
    total = sum(weights, ExpSum())
    for i, w in enumerate(weights):
        p = dist.probability(i)
        assert p.numerator * total == p.denominator * w


@given(
    data=st.lists(st.integers(0, 20), min_size=1, max_size=6),
    position=st.integers(0, 5),
    value=st.integers(-5, 25),
    quantile=st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1)]),
)
def test_quantile_release_is_two_epsilon_private_exactly(data, position, value, quantile):
    """Replacing one record changes the released value's density by at most e^{2ε}, decided exactly."""
    eps = Fraction(1, 3)
    mech = QuantileMechanism(quantile=quantile, epsilon=eps, bounds=(0, 20))
    other = list(data)
    other[position % len(data)] = value
    loss = mech.privacy_loss(data, other)
    assert loss <= 2 * eps


def test_quantile_interval_of_maps_values_to_intervals_of_positive_width():
    """A value strictly inside an interval maps to it; on a shared end to the lower one; zero widths are skipped."""
    mech = QuantileMechanism(quantile=Fraction(1, 2), epsilon=1, bounds=(0, 10))
    assert mech.interval_of([2, 5], 1.5) == 0
    assert mech.interval_of([2, 5], 2) == 0
    assert mech.interval_of([2, 5], 9.99) == 2
    assert mech.interval_of([0, 0, 4], 0) == 2
    with pytest.raises(InvalidArgument, match="value="):
        mech.interval_of([2, 5], 11)
    with pytest.raises(InvalidArgument, match="quantile="):
        QuantileMechanism(quantile=Fraction(3, 2), epsilon=1, bounds=(0, 1))
    with pytest.raises(InvalidArgument, match="bounds="):
        QuantileMechanism(quantile=Fraction(1, 2), epsilon=1, bounds=(1, 1))
