"""Float filters decide only what is true: checked against the exact path on generated near-ties.

Every decision the float filter makes (a sign, an enclosure, a sampler cell)
is compared with the exact answer from an independent path — the small
(tuple-of-Fractions, ball-arithmetic) ExpSum and mpmath at high precision —
on adversarial cases: equal exponents that cancel exactly, exponents that
differ by 10^-17, huge and tiny magnitudes, and uniforms placed right at a
cell boundary.  Where the filter abstains, the exact path must still decide.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import ExpSum, ExponentialMechanism, InversionTable
from expmech.impl.exact import _floatfilter
from expmech.impl.exact._expsum import SMALL_TERMS, ball_endpoints, combine_parts
from expmech.impl.exact._expvector import ExpVector
from expmech.impl.sampling._inversion import _decide
from expmech.impl.exact._rationals import RationalArray

TIES = [Fraction(0), Fraction(1, 10**17), Fraction(-1, 10**17), Fraction(1, 3), Fraction(7, 2)]


def exact_value(pairs, dps=400):
    """Σ c·e^b in mpmath at ``dps`` digits (independent of expmech)."""
    with mpmath.workdps(dps):
        return mpmath.fsum(mpmath.mpf(c.numerator) / c.denominator * mpmath.exp(mpmath.mpf(b.numerator) / b.denominator) for c, b in pairs)


def vector_sum(pairs):
    """The same terms as a vector ExpSum (the filtered representation)."""
    return ExpSum.vector(RationalArray.of([c for c, _ in pairs]), RationalArray.of([b for _, b in pairs]))


@st.composite
def near_ties(draw):
    """Sums that are zero, or nearly so, in every way floats get wrong."""
    size = draw(st.integers(SMALL_TERMS + 1, SMALL_TERMS + 40))
    base = draw(st.sampled_from([Fraction(0), Fraction(-700), Fraction(650), Fraction(10**4), Fraction(-(10**4)), Fraction(1, 7)]))
    scale = draw(st.sampled_from([Fraction(1), Fraction(10**300), Fraction(1, 10**300), Fraction(3, 7)]))
    pairs = []
    for _ in range(size // 2):
        b = base + Fraction(draw(st.integers(-30, 30)), draw(st.integers(1, 8)))
        c = scale * Fraction(draw(st.integers(-5, 5)), draw(st.integers(1, 5)))
        tie = draw(st.sampled_from(TIES))
        pairs.append((c, b))
        pairs.append((-c, b + tie))  # cancels exactly when tie == 0, by e^{±1e-17} otherwise
    if draw(st.booleans()):
        pairs.append((scale * Fraction(draw(st.integers(-3, 3)), 10**draw(st.integers(0, 30))), base))
    return pairs


@settings(max_examples=120)
@given(near_ties())
def test_filter_decisions_agree_with_the_exact_sign(pairs):
    """Where the filter decides a sign it is the exact sign; the vector path equals the small path."""
    vector, small = vector_sum(pairs), ExpSum(pairs)
    exact = small.sign()
    filtered = vector._float_filter()
    if filtered is not None and filtered[0].sign() is not None:
        assert filtered[0].sign() == exact
    assert vector.sign() == exact
    assert vector.is_zero() == (exact == 0) == small.is_zero()


@settings(max_examples=60)
@given(near_ties())
def test_filter_enclosure_contains_the_value(pairs):
    """e^{top}·[S̃ − E, S̃ + E] contains the value computed by mpmath at 400 digits."""
    filtered = vector_sum(pairs)._float_filter()
    if filtered is None:
        return
    summary, top = filtered
    lo, hi = summary.enclosure()
    with mpmath.workdps(400):
        value = exact_value(pairs) / mpmath.exp(mpmath.mpf(top.numerator) / top.denominator)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= value <= mpmath.mpf(hi.numerator) / hi.denominator


@settings(max_examples=60)
@given(st.lists(st.tuples(st.integers(0, 50), st.integers(-2000, 0), st.integers(1, 9)), min_size=1, max_size=300))
def test_prefix_sum_bounds_hold(rows):
    """|S_k − ŝ_k| <= rel·ŝ_k + (k+1)·abs for every k, checked exactly."""
    coefficients = np.array([c for c, _, _ in rows], dtype=np.float64)
    exponents = [Fraction(b, d) for _, b, d in rows]
    top = max(exponents)
    shifted = [b - top for b in exponents]
    floats = np.array([float(b) for b in shifted])
    result = _floatfilter.prefix_sums(coefficients, 0.0, floats)
    assert result is not None
    sums, relative, absolute = result
    with mpmath.workdps(60):
        running = mpmath.mpf(0)
        for k, ((c, _, _), b) in enumerate(zip(rows, shifted)):
            running += c * mpmath.exp(mpmath.mpf(b.numerator) / b.denominator)
            assert abs(running - mpmath.mpf(float(sums[k]))) <= relative * float(sums[k]) + (k + 1) * absolute


@settings(max_examples=80)
@given(
    st.lists(st.integers(-40, 0), min_size=2, max_size=120),
    st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(7, 3), Fraction(1, 10**6)]),
    st.integers(0, 2**64 - 1),
    st.integers(-3, 3),
    st.integers(0, 10**6),
)
def test_sampler_cells_are_exact_even_at_a_boundary(scores, epsilon, u, offset, pick):
    """A decided cell c has F_{c−1} <= u/2^64 and (u+1)/2^64 <= F_c exactly, for u anywhere or at a boundary."""
    vector = ExpVector(None, RationalArray.of(scores) * RationalArray.constant(epsilon), nonnegative=True, positive=True)
    prefix = vector.prefix()
    assert prefix is not None
    boundary = pick % (len(scores) - 1)
    exact_prefix = [ExpSum([(1, epsilon * q) for q in scores[: j + 1]]) for j in range(len(scores))]
    total = exact_prefix[-1]
    lo, _ = (exact_prefix[boundary] * (2**64)).enclose(200)
    hi_total, _ = total.enclose(200)
    at_boundary = int(lo / hi_total) + offset  # u placed on top of the boundary F_boundary·2^64
    for uniform in (u, max(0, min(2**64 - 1, at_boundary))):
        cell = _decide(prefix, uniform, 64)
        if cell is None:
            continue
        if cell > 0:
            assert exact_prefix[cell - 1] * (2**64) <= total * uniform
        if cell < len(scores) - 1:
            assert total * (uniform + 1) <= exact_prefix[cell] * (2**64)


def test_parts_filter_decides_shifted_normalisers_correctly():
    """Z·e^{x} − Z·e^{x + 10^-17}: the filter abstains, the exact path says negative; far apart it decides."""
    scores = RationalArray.integers(np.arange(5000, dtype=np.int64) % 97 - 96)
    z = ExpSum.vector(None, scores * RationalArray.constant(Fraction(1, 10)), positive=True)
    near = z.shift(Fraction(3, 2)) - z.shift(Fraction(3, 2) + Fraction(1, 10**17))
    filtered = combine_parts(near._as_parts())
    assert filtered is not None and filtered[0].sign() is None
    assert near.sign() == -1
    far = z.shift(Fraction(3, 2)) - z.shift(Fraction(1))
    assert far._float_filter()[0].sign() == 1 and far.sign() == 1
    assert (z - z).sign() == 0 and (z.scale(Fraction(2)) - z - z).is_zero()


def test_the_platform_exp_meets_the_assumed_bound():
    """np.exp here is within 2^-50 of the truth on the self-check grid (the filter assumes 2^-43)."""
    assert _floatfilter._self_check()
    assert _floatfilter.filter_enabled()


def test_without_the_filter_everything_is_still_exact(monkeypatch):
    """With the filter disabled every decision takes the exact path, with the same results."""
    mech = ExponentialMechanism(lambda d, r: -abs(sum(d) - r), epsilon=Fraction(1, 3), outputs=range(80))
    expected = mech.privacy_loss([3, 4], [3, 9]) <= Fraction(2, 3) * 5
    loss_value = mech.privacy_loss([3, 4], [3, 9]).enclose(40)
    monkeypatch.setattr(_floatfilter, "_ENABLED", False)
    mech2 = ExponentialMechanism(lambda d, r: -abs(sum(d) - r), epsilon=Fraction(1, 3), outputs=range(80))
    assert (mech2.privacy_loss([3, 4], [3, 9]) <= Fraction(2, 3) * 5) == expected
    assert mech2.privacy_loss([3, 4], [3, 9]).enclose(40) == loss_value
    import random

    table = InversionTable(None, list(range(80)), Fraction(1, 3))
    rng = random.Random(5)
    draws = [table.sample_once(rng) for _ in range(50)]
    assert all(0 <= d < 80 for d in draws) and table.refinements == 50


def test_the_filter_decides_almost_every_draw():
    """At |R| = 10^4 the exact refinement is (almost) never needed; at 3 bits it is needed often."""
    import random

    scores = (np.arange(10_000, dtype=np.int64) * 7919) % 1000 - 1000
    table = InversionTable(None, RationalArray.integers(scores), Fraction(1, 10))
    rng = random.Random(11)
    for _ in range(2000):
        table.sample_once(rng)
    assert table.refinements <= 2
    narrow = InversionTable(None, RationalArray.integers(scores[:50]), Fraction(1, 10), bits=3)
    for _ in range(200):
        narrow.sample_once(rng)
    assert narrow.refinements > 20


@pytest.mark.parametrize("size", [60, 2000])
def test_vector_and_small_sums_agree_on_arithmetic(size):
    """+, −, scale, shift, ·, ==, terms: the vector representation equals the small one."""
    rng = np.random.default_rng(size)
    pairs = [(Fraction(int(c), 3), Fraction(int(b), 4)) for c, b in zip(rng.integers(-9, 9, size), rng.integers(-40, 40, size))]
    vector, small = vector_sum(pairs), ExpSum(pairs)
    assert vector == small and vector.terms == small.terms and len(vector) == len(small)
    other = ExpSum([(1, Fraction(1, 4)), (-2, Fraction(5, 4))])
    for v, s in [(vector + other, small + other), (vector - other, small - other), (vector.scale(Fraction(-3, 7)), small.scale(Fraction(-3, 7))),
                 (vector.shift(Fraction(1, 9)), small.shift(Fraction(1, 9))), (vector * other, small * other)]:
        assert v == s and v.sign() == s.sign()
    assert float(vector) == pytest.approx(float(small), rel=1e-12)
    lo, hi = vector.enclose(80)
    assert lo <= small.enclose(120)[0] or hi >= small.enclose(120)[1] or lo <= hi


@st.composite
def wide_sums(draw):
    """Sums over wide exponent spans (most terms far below the top), some cancelling at the top so a deep term decides."""
    size = draw(st.integers(65, 160))
    den = draw(st.sampled_from([1, 3, 10, 997]))
    span = draw(st.sampled_from([300, 5_000, 10**6]))
    signed = draw(st.booleans())
    pairs = [
        (Fraction(draw(st.integers(-9, 9).filter(bool)) if signed else draw(st.integers(1, 9)), draw(st.integers(1, 4))), Fraction(-draw(st.integers(0, span)), den))
        for _ in range(size)
    ]
    if signed and draw(st.booleans()):
        # the top nearly cancels: c·(e^0 − e^{−t}) ≈ c·t, against a deep term d·e^{−g} of about that size, or not
        c = Fraction(draw(st.integers(1, 5)))
        g = draw(st.integers(40, 400))
        t = Fraction(1, 10 ** draw(st.integers(15, 170)))
        pairs += [(c, Fraction(1)), (-c, 1 - t), (Fraction(draw(st.integers(-9, 9).filter(bool))), Fraction(1 - g))]
    elif draw(st.booleans()):
        # a lone exact top (e^0 at shift 0 is exact in a ball): only the bound of the far terms keeps the ball honest
        pairs = [(c, b - 300) for c, b in pairs] + [(Fraction(draw(st.integers(1, 9))), Fraction(0))]
    return pairs


@settings(max_examples=60, deadline=None)
@given(wide_sums())
def test_balls_that_leave_out_the_far_terms_still_contain_the_sum(pairs):
    """A vector ball drops terms far below the top under a rigorous bound: it still contains the sum, signs and enclosures agree with mpmath."""
    exact = exact_value(pairs, dps=800)
    vector = canonical_vector(pairs)
    for precision in (64, 128, 400):
        lo, hi = ball_endpoints(vector.ball(precision, shift=Fraction(0)))
        with mpmath.workdps(800):
            assert mpmath.mpf(lo.numerator) / lo.denominator <= exact <= mpmath.mpf(hi.numerator) / hi.denominator
    total = vector_sum(pairs)
    assert total.sign() == (exact > 0) - (exact < 0)
    if exact != 0:
        lo, hi = total.enclose(60)
        with mpmath.workdps(800):
            assert mpmath.mpf(lo.numerator) / lo.denominator <= exact <= mpmath.mpf(hi.numerator) / hi.denominator


def canonical_vector(pairs):
    """The terms as one ExpVector (not canonicalised: equal exponents stay separate terms)."""
    return ExpVector(RationalArray.of([c for c, _ in pairs]), RationalArray.of([b for _, b in pairs]))


def test_a_far_tail_is_left_out_of_the_ball_and_bounded():
    """10⁵ outputs over a span of 10⁶ steps: the ball evaluates only the terms near the top, and its bound covers the rest."""
    rng = np.random.default_rng(3)
    nums = -rng.integers(0, 10**6, 10**5)
    nums[0] = 0
    vector = ExpVector(None, RationalArray(nums.astype(np.int64), 10))
    kept, weight, cut = vector._truncated(128)
    assert 0 < len(kept) < 2_000 and weight == len(vector) - len(kept) and cut < 10**6
    exact = exact_value([(Fraction(1), Fraction(int(b), 10)) for b in nums if -b <= 3 * cut], dps=60)
    lo, hi = ball_endpoints(vector.ball(128, shift=Fraction(0)))
    with mpmath.workdps(60):
        assert mpmath.mpf(lo.numerator) / lo.denominator <= exact <= mpmath.mpf(hi.numerator) / hi.denominator
        assert (hi - lo) / lo < Fraction(1, 2**100)
