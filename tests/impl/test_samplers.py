"""Exact samplers fit their exact distributions, and the fit test has power.

Every goodness-of-fit check below runs twice more with the sampler's ε
multiplied by 0.7 and by 1.3 — same seed, same sample size — and must then
reject: a test that a wrong sampler also passes would prove nothing.
"""

import random
from collections import Counter
from fractions import Fraction

import pytest

from expmech.impl import ExpSum, ExponentialMechanism, InversionTable, PermuteAndFlip, sample_bernoulli, sample_bernoulli_exp
from stats import chi_square_pvalue

SEED = 20261202
ALPHA = 1e-3
WRONG_FACTORS = (Fraction(7, 10), Fraction(13, 10))

DATA = (1, 2, 2, 3)
OUTPUTS = range(6)
EPSILON = Fraction(1, 2)
MEASURE = {0: 1, 1: 2, 2: 1, 3: 1, 4: 3, 5: 1}


def median_quality(dataset, r):
    """Rank quality of the median: −|#{x < r} − #{x > r}| / 2, exactly."""
    below = sum(1 for x in dataset if x < r)
    above = sum(1 for x in dataset if x > r)
    return -Fraction(abs(below - above), 2)


def mechanism(epsilon):
    return ExponentialMechanism(median_quality, epsilon=epsilon, outputs=OUTPUTS, base_measure=MEASURE)


def exact_probabilities(epsilon):
    return mechanism(epsilon).distribution(DATA).approximate()


def draw_table(epsilon, size, bits=None, once=False):
    dist = mechanism(epsilon).distribution(DATA)
    rng = random.Random(SEED)
    if bits is None:
        return Counter(dist.sample(rng=rng) for _ in range(size))
    table = InversionTable(dist.mechanism.base_measure, dist.scores, epsilon, bits=bits)
    draw = table.sample_once if once else table.sample
    return Counter(dist.outputs[draw(rng)] for _ in range(size))


@pytest.mark.parametrize(
    "bits, once",
    [(None, False), (3, False), (3, True)],
    ids=["table-fast-path", "table-exact-slow-path", "single-draw-exact-slow-path"],
)
def test_mechanism_sampler_fits_and_has_power(bits, once):
    """Inversion sampling fits the exact distribution; samplers at 0.7ε and 1.3ε are rejected.

    The single draw on its exact slow path costs ~0.3 ms a draw, so it gets
    6,000 draws (still rejecting 0.7ε and 1.3ε at p < 1e-9 with this seed).
    """
    size = 6000 if once else 20000
    truth = exact_probabilities(EPSILON)
    assert chi_square_pvalue(draw_table(EPSILON, size, bits, once), truth) > ALPHA
    for factor in WRONG_FACTORS:
        assert chi_square_pvalue(draw_table(EPSILON * factor, size, bits, once), truth) < ALPHA


@pytest.mark.parametrize("measure", [MEASURE, None], ids=["base-measure", "counting-measure"])
def test_fresh_call_sampling_fits_and_has_power(measure):
    """ExponentialMechanism.sample (the float-filtered fresh draw, no table) fits the exact law; at 0.7ε and 1.3ε it is rejected."""

    def fresh(epsilon):
        return ExponentialMechanism(median_quality, epsilon=epsilon, outputs=OUTPUTS, base_measure=measure)

    truth = fresh(EPSILON).distribution(DATA).approximate()
    for factor, fits in [(1, True), *[(f, False) for f in WRONG_FACTORS]]:
        mech, rng = fresh(EPSILON * factor), random.Random(SEED)
        counts = Counter(mech.sample(DATA, rng=rng) for _ in range(20000))
        assert (chi_square_pvalue(counts, truth) > ALPHA) is fits


def test_zero_measure_outputs_are_never_drawn():
    """An output with μ(r) = 0 has probability 0 and is never sampled, on either path."""
    mech = ExponentialMechanism(median_quality, epsilon=EPSILON, outputs=OUTPUTS, base_measure={**MEASURE, 2: 0})
    dist = mech.distribution(DATA)
    rng = random.Random(SEED)
    assert 2 not in {dist.sample(rng=rng) for _ in range(3000)}
    table = InversionTable(mech.base_measure, dist.scores, EPSILON, bits=2)
    assert 2 not in {dist.outputs[table.sample(rng)] for _ in range(3000)}
    assert 2 not in {dist.outputs[table.sample_once(rng)] for _ in range(3000)}


def bernoulli_counts(gamma, size):
    rng = random.Random(SEED)
    heads = sum(sample_bernoulli_exp(gamma, rng=rng) for _ in range(size))
    return Counter({True: heads, False: size - heads})


@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_fits_and_has_power(gamma):
    """Bernoulli(e^{-γ}) fits; the same sampler at 0.7γ and 1.3γ is rejected."""
    size = 30000
    heads = float(ExpSum.exp(-gamma))
    truth = {True: heads, False: 1 - heads}
    assert chi_square_pvalue(bernoulli_counts(gamma, size), truth) > ALPHA
    for factor in WRONG_FACTORS:
        assert chi_square_pvalue(bernoulli_counts(gamma * factor, size), truth) < ALPHA


def test_bernoulli_exp_edge_values():
    """γ = 0 always gives True; a rational Bernoulli(0) and Bernoulli(1) are certain."""
    rng = random.Random(SEED)
    assert all(sample_bernoulli_exp(0, rng=rng) for _ in range(200))
    assert not any(sample_bernoulli(0, rng=rng) for _ in range(200))
    assert all(sample_bernoulli(1, rng=rng) for _ in range(200))


def pf_counts(epsilon, size):
    pf = PermuteAndFlip(median_quality, epsilon=epsilon, outputs=OUTPUTS)
    rng = random.Random(SEED)
    return Counter(pf.sample(DATA, rng=rng) for _ in range(size))


@pytest.mark.parametrize("path", ["all-coins-filtered", "all-coins-exact", "sequential"])
def test_permute_and_flip_fits_and_has_power(path, monkeypatch):
    """Permute-and-flip fits its exact distribution on every path; at 0.7ε and 1.3ε it is rejected.

    ``all-coins-exact`` widens the float bounds until no coin is decided by
    them (each goes to the exact comparison); ``sequential`` turns the filter
    off (a random order, one CKS coin per visit).
    """
    from expmech.impl.sampling import _coins

    if path == "all-coins-exact":
        monkeypatch.setattr(_coins, "_WIDEN", 4.0)
    if path == "sequential":
        monkeypatch.setattr(_coins, "filter_enabled", lambda: False)
    size = 6000 if path != "all-coins-exact" else 3000  # rejects 0.7ε and 1.3ε at p < 1e-15 with this seed
    exact = PermuteAndFlip(median_quality, epsilon=EPSILON, outputs=OUTPUTS).probabilities(DATA)
    assert sum(p.numerator for p in exact.values()) == 1
    truth = {r: float(p) for r, p in exact.items()}
    assert chi_square_pvalue(pf_counts(EPSILON, size), truth) > ALPHA
    for factor in WRONG_FACTORS:
        assert chi_square_pvalue(pf_counts(EPSILON * factor, size), truth) < ALPHA


def test_permute_and_flip_is_not_the_exponential_mechanism():
    """PF and EM differ in distribution (PF puts more mass on the best output)."""
    em = ExponentialMechanism(median_quality, epsilon=EPSILON, outputs=OUTPUTS).distribution(DATA)
    pf = PermuteAndFlip(median_quality, epsilon=EPSILON, outputs=OUTPUTS).probabilities(DATA)
    best = 2
    assert pf[best] > em.probability(best)


def test_exact_coin_decides_at_the_boundary():
    """A uniform whose 53 first bits straddle e^{−γ} is settled by more bits, on the exact side."""
    import mpmath

    from expmech.impl.sampling._coins import _exact_coin

    class Bits(random.Random):
        def __init__(self, value):
            super().__init__(0)
            self.value = value

        def getrandbits(self, k):
            value, self.value = self.value, 0  # the given 64 bits, then zeros
            return value

    for gamma in (Fraction(1, 3), Fraction(7, 2), Fraction(1, 10**12), Fraction(700)):
        with mpmath.workdps(80):
            p = mpmath.exp(-mpmath.mpf(gamma.numerator) / gamma.denominator)
            u = int(mpmath.floor(p * 2**53))  # U's first bits hold p: the floats cannot decide
            nxt = int(mpmath.floor((p * 2**53 - u) * 2**64))
        assert _exact_coin(gamma, u, Bits(nxt)) is True  # U = (u·2^64 + nxt)/2^117 < p
        assert _exact_coin(gamma, u, Bits(nxt + 1)) is False  # U >= p
        assert _exact_coin(gamma, u - 1, Bits(2**64 - 1)) is True and _exact_coin(gamma, u + 1, Bits(0)) is False
