"""Exact exponential sums: signs, enclosures and comparisons, cross-checked independently."""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from expmech.impl import ExpRatio, ExpSum, LogExpRatio
from expmech.spec import InvalidArgument, InvalidType, PrecisionExhausted
from strategies import exp_sums, positive_exp_sums, rationals


def mp_value(s: ExpSum, dps: int = 80) -> mpmath.mpf:
    """The value of ``s`` in mpmath at ``dps`` digits (an independent path)."""
    with mpmath.workdps(dps):
        return mpmath.fsum(mpmath.mpf(c.numerator) / c.denominator * mpmath.exp(mpmath.mpf(b.numerator) / b.denominator) for c, b in s.terms)


def iv_sign(s: ExpSum) -> int | None:
    """The sign by mpmath interval arithmetic, or None if 200 digits do not settle it."""
    iv = mpmath.iv
    saved, iv.dps = iv.dps, 200
    try:
        total = iv.mpf(0)
        for c, b in s.terms:
            total += iv.mpf(c.numerator) / c.denominator * iv.exp(iv.mpf(b.numerator) / b.denominator)
    finally:
        iv.dps = saved
    if total.a > 0:
        return 1
    if total.b < 0:
        return -1
    if total.a == 0 and total.b == 0:
        return 0
    return None


@given(exp_sums())
def test_sign_agrees_with_mpmath_intervals(s):
    """The ball-arithmetic sign agrees with an mpmath.iv evaluation whenever that settles."""
    expected = iv_sign(s)
    if s.is_zero():
        assert s.sign() == 0
    elif expected is not None:
        assert s.sign() == expected


@given(st.lists(st.tuples(rationals(), st.just(Fraction(0)))))
def test_rational_sums_are_plain_fractions(terms):
    """With every exponent 0 the sum is the Fraction sum, exactly."""
    s = ExpSum(terms)
    assert s.as_rational() == sum((c for c, _ in terms), Fraction(0))
    assert s == sum((c for c, _ in terms), Fraction(0))


@given(exp_sums(), exp_sums())
def test_product_sign_is_product_of_signs(a, b):
    """sign(a·b) = sign(a)·sign(b): multiplication is exact."""
    assert (a * b).sign() == a.sign() * b.sign()


@given(exp_sums())
def test_subtracting_itself_cancels_exactly(s):
    """s − s has no terms, so it is exactly zero."""
    assert (s - s).is_zero() and (s - s).sign() == 0 and s == s


@given(exp_sums(), st.integers(1, 200))
def test_enclosure_contains_value_and_is_tight(s, bits):
    """enclose(bits) brackets the true value with relative width <= 2**-bits."""
    lo, hi = s.enclose(bits)
    if s.is_zero():
        assert lo == hi == 0
        return
    with mpmath.workdps(120):
        value = mp_value(s, 120)
        assert mpmath.mpf(lo.numerator) / lo.denominator <= value + mpmath.mpf(10) ** -100
        assert value - mpmath.mpf(10) ** -100 <= mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo <= Fraction(1, 2**bits) * max(abs(lo), abs(hi))


def test_near_cancellation_decided_where_floats_cannot():
    """e^1 against rationals 1e-40 below and above it: exact, though the floats are equal."""
    lo, hi = ExpSum.exp(1).enclose(200)
    below, above = lo - Fraction(1, 10**40), hi + Fraction(1, 10**40)
    assert float(below) == float(above) == float(ExpSum.exp(1))
    assert ExpSum.exp(1) > below and ExpSum.exp(1) < above
    assert (ExpSum.exp(1) - below).sign() == 1 and (ExpSum.exp(1) - above).sign() == -1


def test_merging_equal_exponents():
    """Equal exponents merge; zero coefficients vanish."""
    s = ExpSum([(1, Fraction(1, 2)), (2, Fraction(2, 4)), (0, 3)])
    assert s.terms == ((Fraction(3), Fraction(1, 2)),)


def test_irrational_is_never_equal_to_a_rational():
    """e^b for b != 0 equals no rational (Lindemann–Weierstrass), and compares strictly."""
    e = ExpSum.exp(Fraction(1, 3))
    assert e != Fraction(1) and e.as_rational() is None
    assert ExpSum.exp(0) == 1


def test_precision_cap_raises_instead_of_guessing():
    """A sign not settled within max_precision raises PrecisionExhausted."""
    lo, _ = ExpSum.exp(1).enclose(400)
    close = ExpSum.exp(1) - lo
    with pytest.raises(PrecisionExhausted):
        close.sign(max_precision=128)
    assert close.sign() == 1


def test_ratio_and_log_comparisons():
    """ExpRatio and LogExpRatio compare exactly with rationals and with each other."""
    half = ExpRatio(ExpSum.exp(2), ExpSum.exp(2) * 2)
    assert half == Fraction(1, 2) and half < Fraction(2, 3) and half.complement() == Fraction(1, 2)
    log_half = half.log()
    assert log_half < 0 and -log_half > Fraction(69, 100) and -log_half < Fraction(7, 10)
    log_e = LogExpRatio.of(ExpSum.exp(1), ExpSum.rational(1))
    assert log_e == 1 and log_e + Fraction(1, 2) == Fraction(3, 2)
    assert log_e > log_half
    lo, hi = log_half.enclose(100)
    assert lo < 0 < -hi or hi < 0


@given(exp_sums(), positive_exp_sums(), rationals())
def test_ratio_comparison_matches_cross_multiplication(num, den, x):
    """num/den <= x exactly when num − x·den <= 0."""
    ratio = ExpRatio(num, den)
    assert (ratio <= x) == ((num - den * x).sign() <= 0)


def test_bad_arguments():
    """Malformed terms, a non-positive denominator and bad bits are refused by name."""
    with pytest.raises(InvalidType, match="terms"):
        ExpSum([1])  # type: ignore[list-item]
    with pytest.raises(InvalidArgument, match="finite"):
        ExpSum([(float("nan"), 0)])
    with pytest.raises(InvalidArgument, match="denominator"):
        ExpRatio(ExpSum.exp(1), ExpSum.rational(-1))
    with pytest.raises(InvalidArgument, match="bits=0"):
        ExpSum.exp(1).enclose(0)
    with pytest.raises(InvalidArgument, match="non-positive"):
        ExpRatio(ExpSum.rational(-1), 1).log()
