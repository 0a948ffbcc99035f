"""The exponential mechanism over an interval of the reals: exact law, integrability, loss, sampling.

Every exact integral is cross-checked against mpmath's quadrature of the
quality function's own interpreter at high precision (an independent path).
Each goodness-of-fit test of the sampler runs again at ε·0.7 and ε·1.3 with
the same seed and size and must then reject.
"""

import random
from collections import Counter
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import ContinuousMechanism, ExpSum, ExponentialMechanism, RangePrivacyLoss
from expmech.spec import (
    DivergentNormaliser,
    IntRange,
    InvalidArgument,
    InvalidType,
    Lebesgue,
    OutputSpace,
    PiecewiseDensity,
    QualityFunction,
    RationalRange,
    RecordSchema,
    count,
    mean,
    size,
)
from stats import chi_square_pvalue
from strategies import piecewise_linear_expressions

SEED = 20261202
ALPHA = 1e-3
WRONG = (Fraction(7, 10), Fraction(13, 10))
SCHEMA = RecordSchema(x=IntRange(0, 12))
X = SCHEMA["x"]
mpmath.mp.dps = 30


def _exact(t):
    """The exact rational value of an mpmath number."""
    sign, mantissa, exponent, _ = t._mpf_
    value = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    return -value if sign else value


def _median(space):
    return QualityFunction(-sympy.Abs(count(X <= space["r"]) - size() / 2), schema=SCHEMA, outputs=space, name="median")


def _laplace(space):
    return QualityFunction(-sympy.Abs(space["r"] - mean(X)), schema=SCHEMA, outputs=space, name="laplace")


def _mp(value):
    return mpmath.mpf(value.numerator) / value.denominator


def _quad(quality, dataset, epsilon, density, cuts, lo, hi, weight=lambda value: 1, top=Fraction(0)):
    """∫ weight(q) e^{ε (q − top)} μ over [lo, hi] by mpmath, q from the interpreter (an independent path).

    ``top`` near max q keeps the integrand near 1: mpmath's tolerance is absolute.
    """

    def integrand(t):
        point = _exact(mpmath.mpf(t))
        value = quality(dataset, point)
        return weight(value) * _mp(density(point)) * mpmath.exp(_mp(epsilon * (value - top)))

    points = [mpmath.ninf if lo is None else _mp(lo)] + [_mp(c) for c in cuts] + [mpmath.inf if hi is None else _mp(hi)]
    return mpmath.quad(integrand, points)


@settings(max_examples=5, deadline=None)
@given(st.data())
def test_normaliser_cdf_and_mean_agree_with_quadrature(data):
    """Z, a CDF value and E[q] equal mpmath's quadrature (30 digits) of the interpreter's q."""
    bounded = data.draw(st.booleans())
    lo, hi = (Fraction(data.draw(st.integers(-8, 0))), Fraction(data.draw(st.integers(1, 8)))) if bounded else (None, None)
    space = OutputSpace(r=RationalRange(lo, hi))
    r = space["r"]
    expr = data.draw(piecewise_linear_expressions(X, r))
    if not bounded:  # make it integrable on the whole line
        expr = expr - 4 * sympy.Abs(r) - 3 * sympy.Abs(r - 1)
    quality = QualityFunction(expr, schema=SCHEMA, outputs=space)
    epsilon = data.draw(st.sampled_from([Fraction(1, 3), Fraction(1, 2), Fraction(1)]))
    measure = data.draw(st.sampled_from([Lebesgue(), PiecewiseDensity((0, 1), (Fraction(1, 2), 3, 1)), PiecewiseDensity((-1,), (0, 2))]))
    dataset = data.draw(st.lists(st.integers(0, 12), min_size=1, max_size=5))
    mech = ExponentialMechanism(quality, epsilon=epsilon, outputs=space, base_measure=measure)
    try:
        dist = mech.distribution(dataset)
    except DivergentNormaliser as error:  # then q must fail to decrease towards an infinite end where μ > 0
        lo_piece, hi_piece = error.piece
        far = 10**6
        ends = [(far, far - 1)] if hi_piece is None else [(-far, -far + 1)]
        assert not bounded and all(quality(dataset, a) >= quality(dataset, b) for a, b in ends)
        return
    cuts = sorted(set(dist.quality_pieces.cuts.fractions()) | {b for b in measure.breakpoints if (lo is None or b > lo) and (hi is None or b < hi)})
    top = dist.optimum()
    z = _quad(quality, dataset, epsilon, measure.density, cuts, lo, hi, top=top)
    normaliser = dist.normaliser.shift(-epsilon * top)
    assert abs(float(normaliser) - z) <= 1e-14 * z
    lo_z, hi_z = normaliser.enclose(90)
    assert mpmath.mpf(lo_z.numerator) / lo_z.denominator - z <= 1e-22 * z and z - mpmath.mpf(hi_z.numerator) / hi_z.denominator <= 1e-22 * z
    t = Fraction(data.draw(st.integers(-6, 6)), 2)
    if (lo is None or t > lo) and (hi is None or t < hi):
        part = _quad(quality, dataset, epsilon, measure.density, [c for c in cuts if c < t], lo, t, top=top)
        assert abs(float(dist.cdf(t)) - part / z) <= 1e-12
    expectation = _quad(quality, dataset, epsilon, measure.density, cuts, lo, hi, weight=_mp, top=top) / z
    assert abs(float(dist.expected_quality()) - expectation) <= 1e-12 * (1 + abs(expectation))


def test_laplace_is_the_exponential_mechanism_over_the_line():
    """With q = −|r − mean(x)| and Lebesgue μ, Z = 2/ε exactly and the loss is ε·|Δ mean| exactly."""
    space = OutputSpace(r=RationalRange(None, None))
    mech = ExponentialMechanism(_laplace(space), epsilon=Fraction(1, 3), outputs=space)
    assert isinstance(mech, ContinuousMechanism) and isinstance(mech, ExponentialMechanism)
    assert mech.distribution([2, 6]).normaliser == 6
    assert mech.distribution([0, 1, 12]).normaliser == 6
    loss = mech.privacy_loss([2, 6], [2, 12])
    assert isinstance(loss, RangePrivacyLoss)
    assert loss == Fraction(1, 3) * 3 and loss <= 1 and not loss < 1
    assert loss.attained and (loss.piece[0] is None or loss.piece[1] is None)


def test_divergent_normalisers_are_errors_naming_the_hypothesis():
    """q = 0 over ℝ, q rising to +∞ on a half-line, or flat on an infinite piece: DivergentNormaliser, never a number."""
    for lo, hi, make in [
        (None, None, lambda r: count(X <= r) * 0 + 1),
        (0, None, lambda r: sympy.Min(r, 3) - count(X <= r)),
        (None, 0, lambda r: r * 0 - count(X >= r)),
        (None, None, lambda r: -sympy.Abs(r) * 0 + count(X <= r) - sympy.Max(r, 0)),
    ]:
        space = OutputSpace(r=RationalRange(lo, hi))
        quality = QualityFunction(make(space["r"]), schema=SCHEMA, outputs=space)
        mech = ExponentialMechanism(quality, epsilon=1, outputs=space)
        with pytest.raises(DivergentNormaliser, match="finite-normaliser") as info:
            mech.distribution([1, 2])
        assert isinstance(info.value, ValueError) and info.value.hypothesis == "finite-normaliser"


def test_bad_ranges_and_measures_are_named():
    """A black box, a mismatched range, a wrong base measure or a zero μ get a clear error."""
    space = OutputSpace(r=RationalRange(0, 10))
    with pytest.raises(InvalidType, match="cannot be integrated exactly"):
        ExponentialMechanism(lambda d, r: -abs(r), epsilon=1, outputs=space)
    with pytest.raises(InvalidArgument, match="not inside"):
        ExponentialMechanism(_median(space), epsilon=1, outputs=RationalRange(-1, 10))
    with pytest.raises(InvalidType, match="base_measure"):
        ExponentialMechanism(_median(space), epsilon=1, outputs=space, base_measure={0: 1})
    with pytest.raises(InvalidArgument, match="base_measure"):
        ExponentialMechanism(_median(space), epsilon=1, outputs=space, base_measure=PiecewiseDensity((20,), (0, 1))).distribution([1])
    with pytest.raises(InvalidArgument, match="epsilon"):
        ExponentialMechanism(_median(space), epsilon=0, outputs=space)
    with pytest.raises(InvalidArgument, match="outside"):
        ExponentialMechanism(_median(space), epsilon=1, outputs=space).distribution([1]).density(11)


def test_cells_are_the_exact_integrals_over_the_grid_and_sum_to_one():
    """cells() on a grid: each the exact mass of its cell (the first may be partial), summing to exactly 1."""
    space = OutputSpace(r=RationalRange(Fraction(-1, 3), 5))
    dist = ExponentialMechanism(_median(space), epsilon=1, outputs=space).distribution([1, 2, 4])
    cells = dist.cells(grid=1)
    assert list(cells) == [Fraction(-1, 3), 0, 1, 2, 3, 4]
    total = ExpSum()
    for p in cells.values():
        assert p.denominator == dist.normaliser
        total = total + p.numerator
    assert total == dist.normaliser
    assert cells[Fraction(-1, 3)] == dist.mass((Fraction(-1, 3), 0))
    with pytest.raises(InvalidArgument, match="grid"):
        dist.cell_probability(Fraction(1, 2), grid=1)


@pytest.mark.parametrize("case", ["flat-pieces", "laplace-tails"])
def test_sampler_fits_the_cells_and_has_power(case):
    """Rounded draws fit the exact cell probabilities; the same sampler at 0.7ε and 1.3ε is rejected."""
    if case == "flat-pieces":
        space = OutputSpace(r=RationalRange(0, 10))
        quality, measure, epsilon, data, grid = _median(space), PiecewiseDensity((4, 6), (1, 3, 1)), Fraction(1), [1, 2, 2, 5, 7, 8], Fraction(1)

        def bucket(value):
            return value

        def truth_of(dist):
            return {v: float(p) for v, p in dist.cells(grid=grid).items()}
    else:
        space = OutputSpace(r=RationalRange(None, None))
        quality, measure, epsilon, data, grid = _laplace(space), None, Fraction(1, 2), [3, 4], Fraction(1, 2)

        def bucket(value):
            return max(min(value, Fraction(7)), Fraction(0)) if value < 0 or value >= 7 else value

        def truth_of(dist):
            probabilities = {Fraction(0): float(dist.mass((None, Fraction(1, 2))))}
            for i in range(1, 14):
                probabilities[Fraction(i, 2)] = float(dist.cell_probability(Fraction(i, 2), grid=grid))
            probabilities[Fraction(7)] = float(dist.mass((7, None)))
            return probabilities

    def draws(eps):
        mech = ExponentialMechanism(quality, epsilon=eps, outputs=space, base_measure=measure)
        rng = random.Random(SEED)
        dist = mech.distribution(data)
        return Counter(bucket(dist.sample(rng=rng, grid=grid)) for _ in range(4000))

    truth = truth_of(ExponentialMechanism(quality, epsilon=epsilon, outputs=space, base_measure=measure).distribution(data))
    assert abs(sum(truth.values()) - 1) < 1e-12
    assert chi_square_pvalue(draws(epsilon), truth) > ALPHA
    for factor in WRONG:
        assert chi_square_pvalue(draws(epsilon * factor), truth) < ALPHA


def test_draws_are_on_the_grid_and_in_the_range():
    """A draw is the left end of its grid cell (or the range's lower end), 2^-20 by default."""
    space = OutputSpace(r=RationalRange(Fraction(1, 3), 7))
    dist = ExponentialMechanism(_laplace(space), epsilon=2, outputs=space).distribution([1, 5, 9])
    rng = random.Random(SEED)
    for grid_bits in (None, 3, 0):
        step = Fraction(1, 2 ** (20 if grid_bits is None else grid_bits))
        for _ in range(50):
            value = dist.sample(rng=rng, grid_bits=grid_bits)
            assert Fraction(1, 3) <= value < 7
            assert value == Fraction(1, 3) or (value / step).denominator == 1
    with pytest.raises(InvalidArgument, match="not both"):
        dist.sample(grid=1, grid_bits=2)
    with pytest.raises(InvalidArgument, match="grid"):
        dist.sample(grid=-1)


def test_exact_slow_paths_agree_with_the_fast_paths():
    """Locating the piece and the cell with 128 bits agrees with the 64-bit decision it refines."""
    space = OutputSpace(r=RationalRange(None, None))
    mech = ExponentialMechanism(_laplace(space), epsilon=Fraction(1, 2), outputs=space, base_measure=PiecewiseDensity((0, 2), (1, 2, 1)))
    dist = mech.distribution([1, 2, 3, 9])
    rng = random.Random(SEED)
    step = Fraction(1, 8)
    checked = 0
    for _ in range(200):
        u, extra = rng.getrandbits(64), rng.getrandbits(64)
        piece = dist._locate_piece(u, 64)
        if piece is None:
            continue
        assert dist._locate_piece_exact((u << 64) | extra, 128) == piece
        cell = dist._locate_cell(piece, step, u, 64)
        if cell is not None:
            assert dist._locate_cell(piece, step, (u << 64) | extra, 128) == cell
            checked += 1
    assert checked > 150


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=6), st.integers(0, 12), st.data())
def test_privacy_loss_is_the_supremum_over_the_range(dataset, replacement, data):
    """The exact loss bounds |ln p1 − ln p2| at every point, is approached at the reported place, and <= 2εΔq."""
    space = OutputSpace(r=RationalRange(-2, 14))
    mech = ExponentialMechanism(_median(space), epsilon=Fraction(1, 2), outputs=space)
    other = list(dataset)
    other[data.draw(st.integers(0, len(dataset) - 1))] = replacement
    loss = mech.privacy_loss(dataset, other)
    assert loss <= 1  # 2 ε Δq with Δq = 1
    p1, p2 = mech.distribution(dataset), mech.distribution(other)
    upper = float(loss.enclose(60)[1])

    quality = mech.quality
    shift = mpmath.log(float(p2.normaliser)) - mpmath.log(float(p1.normaliser))

    def log_ratio(point):  # |ln p1 − ln p2| from the interpreter's q and the two normalisers
        return abs(float(mech.epsilon) * float(quality(dataset, point) - quality(other, point)) + shift)

    for i in range(-8, 56):
        assert log_ratio(Fraction(i, 4) + Fraction(1, 97)) <= upper + 1e-9
    if loss.attained:
        assert abs(log_ratio(loss.output) - float(loss)) < 1e-9


def test_an_unbounded_difference_is_an_infinite_loss():
    """If q1 − q2 keeps a slope on an infinite end of the support, the loss is infinite, and says where."""
    space = OutputSpace(r=RationalRange(None, None))
    r = space["r"]
    quality = QualityFunction(-3 * sympy.Abs(r) + r * mean(X) / 12, schema=SCHEMA, outputs=space)
    mech = ExponentialMechanism(quality, epsilon=1, outputs=space)
    loss = mech.privacy_loss([0], [12])
    assert loss.infinite and loss.output is None and not loss <= 10**6 and float(loss) == float("inf")
    same = mech.privacy_loss([3], [3])
    assert same == 0 and not same.infinite


def test_accuracy_quantities_on_a_continuous_range():
    """OPT, μ(S_t), p(S̄_2t) on [0, 10] with a step density: exact, and the lemma's bound holds."""
    space = OutputSpace(r=RationalRange(0, 10))
    mech = ExponentialMechanism(_laplace(space), epsilon=1, outputs=space, base_measure=PiecewiseDensity((5,), (Fraction(1, 10), Fraction(1, 20))))
    dist = mech.distribution([4, 6])
    assert dist.optimum() == 0
    t = Fraction(1)
    assert dist.level_measure(-t) == Fraction(1, 10) * 1 + Fraction(1, 20) * 1  # (4, 6) with densities 1/10, 1/20
    bad = dist.mass_at_most(-2 * t)
    assert bad <= ExpSum.exp(-t).scale(1 / dist.level_measure(-t))
    assert dist.measure_at_most(-2 * t) == Fraction(1, 10) * 3 + Fraction(1, 20) * 3


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 99), min_size=1, max_size=8), st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(3, 4)]), st.integers(1, 99))
def test_quantile_agrees_with_the_interval_mechanism_built_independently(data, p, replacement):
    """Smith's quantile as an EM over ℝ equals impl's QuantileMechanism (intervals as a finite EM): Z and the loss."""
    from expmech.impl import QuantileMechanism

    space = OutputSpace(r=RationalRange(0, 100))
    schema = RecordSchema(x=IntRange(0, 100))
    quality = QualityFunction(-sympy.Abs(count(schema["x"] <= space["r"]) - p * size()), schema=schema, outputs=space)
    mech = ExponentialMechanism(quality, epsilon=Fraction(1, 2), outputs=space)
    reference = QuantileMechanism(quantile=p, epsilon=Fraction(1, 2), bounds=(0, 100))
    assert mech.distribution(data).normaliser == reference.distribution(data).normaliser
    other = data[:-1] + [replacement]
    assert mech.privacy_loss(data, other) == reference.privacy_loss(data, other).value
