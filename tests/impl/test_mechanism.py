"""The exact distribution and the exact privacy loss of the exponential mechanism."""

from fractions import Fraction

import sympy
from hypothesis import given
from hypothesis import strategies as st

from expmech.impl import ExpRatio, ExpSum, ExponentialMechanism
from strategies import datasets, mechanisms, neighbouring_pairs


@given(mechanisms(), datasets())
def test_probabilities_sum_to_exactly_one(pair, dataset):
    """Σ_r p(r) is exactly 1, and p(R) is exactly 1."""
    mech, _ = pair
    dist = mech.distribution(dataset)
    total = sum((dist.probability(r).numerator for r in mech.outputs), ExpSum())
    assert total == dist.normaliser
    assert dist.mass(mech.outputs) == 1


@given(mechanisms(), datasets())
def test_distribution_matches_the_density_formula_in_sympy(pair, dataset):
    """p(r) equals μ(r) e^{ε q} / Σ μ e^{ε q} evaluated independently by sympy."""
    mech, quality = pair
    dist = mech.distribution(dataset)
    eps = sympy.Rational(mech.epsilon.numerator, mech.epsilon.denominator)
    weights = [
        sympy.Rational(m.numerator, m.denominator) * sympy.exp(eps * sympy.Rational(q.numerator, q.denominator))
        for m, q in zip(mech.base_measure, (quality(dataset, r) for r in mech.outputs))
    ]
    total = sum(weights)
    for r, weight in zip(mech.outputs, weights):
        expected = sympy.N(weight / total, 60)
        lo, hi = dist.enclose(r, 150)
        assert sympy.Rational(lo.numerator, lo.denominator) - sympy.Rational(1, 10**50) <= expected
        assert expected <= sympy.Rational(hi.numerator, hi.denominator) + sympy.Rational(1, 10**50)


@given(mechanisms(), datasets())
def test_privacy_loss_of_a_dataset_with_itself_is_exactly_zero(pair, dataset):
    """privacy_loss(d, d) == 0 exactly."""
    mech, _ = pair
    loss = mech.privacy_loss(dataset, dataset)
    assert loss == 0 and loss <= 0 and loss.enclose() == (0, 0)


@given(mechanisms(), neighbouring_pairs())
def test_privacy_loss_obeys_the_privacy_theorem(pair, neighbours):
    """The exact loss between replace-one neighbours is <= 2·ε·Δq."""
    mech, quality = pair
    d1, d2 = neighbours
    assert mech.privacy_loss(d1, d2) <= 2 * mech.epsilon * quality.sensitivity()


@given(mechanisms(), neighbouring_pairs())
def test_privacy_loss_is_the_maximum_over_outputs(pair, neighbours):
    """The loss is attained at its output and no output of positive measure exceeds it."""
    mech, _ = pair
    d1, d2 = neighbours
    p1, p2 = mech.distribution(d1), mech.distribution(d2)
    loss = p1.privacy_loss(p2)
    for r, m in zip(mech.outputs, mech.base_measure):
        if m == 0:
            continue
        log_ratio = p1.probability(r).log()
        other = p2.probability(r).log()
        difference = type(log_ratio)._trusted(log_ratio.numerator * other.denominator, log_ratio.denominator * other.numerator)
        assert difference <= loss.value and -difference <= loss.value
    at = loss.output
    attained = p1.probability(at).log()
    other = p2.probability(at).log()
    difference = type(attained)._trusted(attained.numerator * other.denominator, attained.denominator * other.numerator)
    assert (difference if loss.larger_on_first else -difference) == loss.value


def _asymmetric_mechanism():
    return ExponentialMechanism(
        lambda d, r: Fraction(sum(d)) * r - r * r, epsilon=Fraction(3, 7), outputs=range(5), base_measure={0: 1, 1: 2, 2: 1, 3: 3, 4: 1}
    )


@given(st.integers(1, 4), st.integers(0, 3))
def test_exact_comparison_where_floats_fail(total, other):
    """Bounds within 1e-30 of the true loss, on either side, are decided correctly."""
    mech = _asymmetric_mechanism()
    loss = mech.privacy_loss((total,), (other,))
    if loss == 0:
        return
    lo, hi = loss.enclose(200)
    below, above = lo - Fraction(1, 10**40), hi + Fraction(1, 10**40)
    assert above - below < Fraction(1, 10**30)
    assert float(below) == float(above)  # a float comparison could not tell them apart
    assert not (loss <= below) and loss > below
    assert loss <= above and not (loss > above)


def test_base_measure_changes_the_distribution_as_defined():
    """Doubling μ at one output doubles its odds against every other output."""
    quality = lambda d, r: Fraction(r, 3)  # noqa: E731
    plain = ExponentialMechanism(quality, epsilon=1, outputs=range(3)).distribution(())
    doubled = ExponentialMechanism(quality, epsilon=1, outputs=range(3), base_measure={0: 1, 1: 2, 2: 1}).distribution(())
    assert ExpRatio(doubled.weight(1), doubled.weight(0)) == ExpRatio(plain.weight(1) * 2, plain.weight(0))
    assert doubled.probability(1) > plain.probability(1)
    zero = ExponentialMechanism(quality, epsilon=1, outputs=range(3), base_measure=lambda r: 0 if r == 2 else 1).distribution(())
    assert zero.probability(2) == 0 and zero.mass([0, 1]) == 1


def test_epsilon_scales_the_exponent():
    """p(1)/p(0) = e^{ε (q(1) − q(0))}: doubling ε squares the odds."""
    for eps in (Fraction(1, 3), Fraction(2, 3)):
        dist = ExponentialMechanism(lambda d, r: r, epsilon=eps, outputs=(0, 1)).distribution(())
        odds = dist.probability(1).numerator * ExpSum.rational(1) - dist.probability(0).numerator * ExpSum.exp(eps)
        assert odds.is_zero()


def test_expected_quality_is_exact():
    """E[q] is exact: a constant quality gives exactly that constant; q = r on {0, 1} gives e/(1+e)."""
    dist = ExponentialMechanism(lambda d, r: Fraction(1, 2), epsilon=5, outputs=("a", "b")).distribution(None)
    assert dist.expected_quality() == Fraction(1, 2)
    biased = ExponentialMechanism(lambda d, r: r, epsilon=1, outputs=(0, 1)).expected_quality(None)
    # E = e / (1 + e), strictly between 1/2 and 3/4
    assert Fraction(1, 2) < biased < Fraction(3, 4)
    lo, hi = biased.enclose(60)
    # e/(1+e) = 0.7310585786300048792511592...
    assert lo <= Fraction(73105857863000487926, 10**20) and Fraction(73105857863000487925, 10**20) <= hi
    assert hi - lo <= Fraction(1, 2**60)


def test_batch_scores_fast_path_agrees_with_calls():
    """A quality with a scores() method gives the same distribution as per-output calls."""
    import numpy as np

    class Batch:
        def __call__(self, d, r):
            return sum(1 for x in d if x <= r)

        def scores(self, d, outputs):
            return np.searchsorted(np.sort(np.asarray(d)), np.asarray(outputs), side="right")

    data = (3, 1, 4, 1, 5, 9, 2, 6)
    fast = ExponentialMechanism(Batch(), epsilon=Fraction(1, 2), outputs=range(10))
    slow = ExponentialMechanism(Batch().__call__, epsilon=Fraction(1, 2), outputs=range(10))
    assert fast.scores(data) == slow.scores(data)
    assert fast.distribution(data).normaliser == slow.distribution(data).normaliser


@given(st.integers(-5, 5), st.integers(1, 30), st.sampled_from([1, 2, -1, 3]))
def test_a_scores_method_gets_the_range_it_was_given(start, length, step):
    """A range as outputs reaches scores() as that range (no tuple to convert); any other sequence as the tuple of outputs."""
    seen = []

    class Batch:
        def __call__(self, d, r):
            return d * r

        def scores(self, d, outputs):
            seen.append(outputs)
            return [d * r for r in outputs]

    outputs = range(start, start + step * length, step)
    for given_outputs, expected in ((outputs, outputs), (list(outputs), tuple(outputs))):
        seen.clear()
        mech = ExponentialMechanism(Batch(), epsilon=Fraction(1, 3), outputs=given_outputs)
        assert mech.scores(2) == tuple(2 * r for r in outputs) == ExponentialMechanism(Batch().__call__, epsilon=Fraction(1, 3), outputs=given_outputs).scores(2)
        assert seen == [expected] and type(seen[0]) is type(expected)
