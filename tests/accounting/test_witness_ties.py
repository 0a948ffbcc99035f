"""The witness pair's k-fold δ(ε) where ε equals a composed loss exactly, and at many lattice points at once.

A pair with ``Z_D = Z_D′·e^{r}`` (rational r) has composed losses that are exact rationals; at ε equal to one
of them that lattice point's term is exactly 0, which no ball can show.  The enclosure must still be narrow and
sound there (it is decided by an exact exponential-sum sign), and agree with brute-force enumeration.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.accounting import Enclosure, WitnessComposition


def _brute(a: list[Fraction], b: list[Fraction], k: int, epsilon: Fraction) -> mpmath.mpf:
    """δ(ε) of the k-fold pair by enumerating every output sequence (60 digits)."""
    with mpmath.workdps(60):
        za = sum(mpmath.exp(mpmath.mpf(x.numerator) / x.denominator) for x in a)
        zb = sum(mpmath.exp(mpmath.mpf(x.numerator) / x.denominator) for x in b)
        p = [mpmath.exp(mpmath.mpf(x.numerator) / x.denominator) / za for x in a]
        q = [mpmath.exp(mpmath.mpf(x.numerator) / x.denominator) / zb for x in b]
        e = mpmath.exp(mpmath.mpf(epsilon.numerator) / epsilon.denominator)
        return sum(
            (max(mpmath.mpf(0), mpmath.fprod(p[i] for i in s) - e * mpmath.fprod(q[i] for i in s)) for s in itertools.product(range(len(a)), repeat=k)),
            mpmath.mpf(0),
        )


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def test_delta_at_the_top_loss_of_a_symmetric_pair_is_exactly_zero() -> None:
    """Swapped scores (Z_D = Z_D′): at ε = k·η/2, the largest composed loss, δ is exactly 0, not a wide ball."""
    a, b = (Fraction(0), Fraction(1, 2)), (Fraction(1, 2), Fraction(0))
    for k in (1, 2, 7):
        w = WitnessComposition((Fraction(1), Fraction(1)), a, b, k)
        assert w.delta(Fraction(k, 2)) == Enclosure(Fraction(0), Fraction(0))


@settings(max_examples=25, deadline=None)
@given(
    scores=st.lists(st.integers(-2, 2), min_size=2, max_size=3),
    k=st.integers(1, 3),
    shift=st.integers(-2, 2),
    point=st.integers(0, 6),
)
def test_delta_at_every_lattice_loss_agrees_with_enumeration(scores: list[int], k: int, shift: int, point: int) -> None:
    """Scores and their reversal (plus a constant): δ at ε equal to a composed loss lies in a narrow enclosure of the truth."""
    a = [Fraction(s, 2) for s in scores]
    b = [Fraction(s, 2) + Fraction(shift, 2) for s in reversed(scores)]  # same Z up to e^{shift/2}: losses rational
    w = WitnessComposition(tuple([Fraction(1)] * len(a)), tuple(a), tuple(b), k)
    gaps = sorted({x - y for x, y in zip(a, b)})
    low, top = gaps[0], gaps[-1]
    # the composed losses are k·(gap − shift/2) summed: ε on one of them, or just past the top
    epsilon = k * low - k * Fraction(shift, 2) + point * (top - low) / 2 if top > low else Fraction(1, 3)
    if epsilon <= 0:
        epsilon = Fraction(1, 7)
    got = w.delta(epsilon)
    with mpmath.workdps(60):
        exact = _brute(a, b, k, epsilon)
        assert _mp(got.lower) - mpmath.mpf(10) ** -40 <= exact <= _mp(got.upper) + mpmath.mpf(10) ** -40
    assert got.upper - got.lower <= got.upper / 10**9 or got.upper < Fraction(1, 10**30)


@pytest.mark.parametrize("k", [200, 1000])
def test_epsilon_lower_is_a_lower_bound_at_large_k(k: int) -> None:
    """At k = 200 and 1000 the witness bound is below the bound ε at which δ is still above the target, and tight to 1e-9."""
    a = (Fraction(0), Fraction(1, 2), Fraction(1))
    b = (Fraction(1, 2), Fraction(0), Fraction(1, 2))
    w = WitnessComposition((Fraction(1),) * 3, a, b, k)
    target = Fraction(1, 10**6)
    bound = w.epsilon_lower(target)
    assert bound > 0
    assert w.delta(bound).lower > target
    assert w.delta(bound * (1 + Fraction(1, 10**8))).upper <= target or w.delta(bound * (1 + Fraction(1, 10**7))).upper <= target
