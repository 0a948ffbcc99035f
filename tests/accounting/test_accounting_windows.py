"""Heterogeneous η: the exact optimum of two mechanisms (branch and bound over both windows), checked against truth.

Truth here is independent of the search: δ of the product of two-outcome pairs enumerated outcome by outcome
in mpmath at every point of a fine grid of windows, then polished by scipy from the best grid point.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.accounting import OptimalComposition
from expmech.proofs.accounting._windows import window_supremum

def _delta(ts: list[float], etas: list[float], epsilon: float) -> float:
    """δ(ε) of the product of two-outcome pairs with windows ``ts``, by enumerating every outcome."""
    pairs = []
    for t, e in zip(ts, etas):
        q = math.expm1(-t) / math.expm1(e)
        pairs.append((math.exp(t + e) * q, q))
    total = 0.0
    for bits in itertools.product((0, 1), repeat=len(etas)):
        p_all = q_all = 1.0
        for (p, q), b in zip(pairs, bits):
            p_all, q_all = p_all * (p if b else 1 - p), q_all * (q if b else 1 - q)
        total += max(0.0, p_all - math.exp(epsilon) * q_all)
    return total


def _truth(etas: list[float], epsilon: float, grid: int = 60) -> float:
    """The grid's best δ, polished by Nelder–Mead from the best grid point (never above the optimum but for rounding)."""
    from scipy.optimize import minimize

    axes = [[-e * i / grid for i in range(grid + 1)] for e in etas]
    best = max(itertools.product(*axes), key=lambda ts: _delta(list(ts), etas, epsilon))
    lows, highs = [-e for e in etas], [0.0] * len(etas)

    def negative(ts: list[float]) -> float:
        return -_delta([min(max(t, lo), hi) for t, lo, hi in zip(ts, lows, highs)], etas, epsilon)

    found = minimize(negative, list(best), method="Nelder-Mead", options={"xatol": 1e-13, "fatol": 1e-18, "maxiter": 4000})
    return max(-float(found.fun), _delta(list(best), etas, epsilon))


def test_two_mechanisms_are_exact() -> None:
    """η = 1/5 and 1/2 at ε = 1/4: the enclosure is of the optimum, relative width <= 1e-9, and holds the brute force.

    Before the window search this enclosure was [0.0379, 0.0612] (1.6× wide) and not labelled exact."""
    epsilon = Fraction(1, 4)
    enclosure, case = OptimalComposition([(Fraction(1, 5), 1), (Fraction(1, 2), 1)]).delta_case(epsilon)
    assert case == "exact"
    assert enclosure.upper - enclosure.lower <= Fraction(1, 10**9) * enclosure.lower
    truth = _truth([0.2, 0.5], 0.25)
    assert truth <= float(enclosure.upper) * (1 + 1e-12)
    assert float(enclosure.lower) >= truth * (1 - 1e-9)


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(
    eta1=st.fractions(Fraction(1, 20), Fraction(2), max_denominator=20),
    eta2=st.fractions(Fraction(1, 20), Fraction(2), max_denominator=20),
    share=st.fractions(Fraction(1, 20), Fraction(19, 20), max_denominator=20),
)
def test_two_mechanisms_are_exact_and_hold_the_truth(eta1: Fraction, eta2: Fraction, share: Fraction) -> None:
    """Two mechanisms with any η: the enclosure holds the brute-force optimum; where labelled exact, its width is <= 1e-9."""
    if eta1 == eta2:
        eta2 += Fraction(1, 40)
    epsilon = share * (eta1 + eta2)
    enclosure, case = OptimalComposition([(eta1, 1), (eta2, 1)]).delta_case(epsilon)
    if case == "exact":  # certified within the box budget (a maximum on a window's end may not be: then a bound)
        assert enclosure.upper - enclosure.lower <= Fraction(1, 10**9) * enclosure.lower
    truth = _truth([float(eta1), float(eta2)], float(epsilon))
    assert truth <= float(enclosure.upper) * (1 + 1e-12)
    assert float(enclosure.lower) <= truth * (1 + 1e-9) + 1e-300  # the lower end is a family member's δ
    assert float(enclosure.lower) >= truth * (1 - 1e-6)  # and the optimum is found, not only bounded


def test_one_block_reproduces_the_homogeneous_formula() -> None:
    """The search over one shared window agrees with the closed form of Dong–Durfee–Rogers at k = 10."""
    from expmech.proofs.accounting._optimal import optimal_delta

    eta, epsilon = Fraction(1, 10), Fraction(1, 2)
    closed = optimal_delta(epsilon, eta, 10)
    found = window_supremum(((eta, 10),), epsilon)
    assert found.certified
    assert found.enclosure.lower <= closed.upper and closed.lower <= found.enclosure.upper


@pytest.mark.parametrize("components,epsilon", [
    (((Fraction(1, 5), 2), (Fraction(1, 2), 2)), Fraction(1, 2)),
    (((Fraction(1, 10), 3), (Fraction(1, 3), 2)), Fraction(1, 4)),
])
def test_more_mechanisms_are_a_labelled_sound_bound(components: tuple, epsilon: Fraction) -> None:
    """Beyond two mechanisms the enclosure is labelled a bound, holds the numerical optimum over every window,
    and its lower end (a family member) is never above it."""
    etas = [float(e) for e, k in components for _ in range(k)]
    enclosure, case = OptimalComposition(list(components)).delta_case(epsilon)
    assert case == "bound"
    truth = _truth(etas, float(epsilon), grid=6)
    assert truth <= float(enclosure.upper)
    assert float(enclosure.lower) <= truth * (1 + 1e-9) + 1e-15
    assert float(enclosure.lower) >= truth * (1 - 1e-4)


def test_past_epsilon_total_is_zero() -> None:
    """ε >= Σ η: δ = 0 exactly, and exact."""
    assert OptimalComposition([(Fraction(1, 5), 1), (Fraction(1, 2), 1)]).delta_case(Fraction(7, 10)) == (
        OptimalComposition([(Fraction(1), 1)]).delta(Fraction(2)),
        "exact",
    )
