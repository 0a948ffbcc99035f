"""The moment bound for adaptive composition: above every adaptive strategy we can compute, above the non-adaptive optimum."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.accounting import AdaptiveComposition, OptimalComposition
from expmech.proofs.accounting._balls import endpoints
from expmech.proofs.accounting._moments import log_moment, moment_delta, moment_epsilon


def _p(t: np.ndarray, eta: float) -> np.ndarray:
    """P(loss = t + η) of the two-outcome η-BR pair with losses t and t + η."""
    return (np.exp(eta) - np.exp(t + eta)) / np.expm1(eta)


def _adaptive_strategy_delta(eta: float, k: int, epsilon: float, grid: int) -> float:
    """δ(ε) of the best adaptive strategy whose every step is a two-outcome pair with t on a grid.

    ``f_0(x) = (1 − e^x)₊`` and ``f_j(x) = max_t p f_{j−1}(x − t − η) + (1 − p) f_{j−1}(x − t)``: the
    analyst picks each step's t from the losses so far.  Every such strategy is a real adaptive
    composition of η-BR mechanisms, so this is a lower bound on the adaptive optimum.
    """
    ts = -eta * np.arange(grid + 1) / grid
    ps = _p(ts, eta)

    def f(j: int, x: np.ndarray) -> np.ndarray:
        if j == 0:
            return np.maximum(0.0, -np.expm1(x))
        shape = x.shape
        x = x.reshape(-1, 1)
        high = f(j - 1, (x - ts - eta).ravel()).reshape(x.shape[0], -1)
        low = f(j - 1, (x - ts).ravel()).reshape(x.shape[0], -1)
        return (ps * high + (1 - ps) * low).max(axis=1).reshape(shape)

    return float(f(k, np.array([epsilon]))[0])


@pytest.mark.parametrize("eta,k,epsilon", [
    (Fraction(1), 2, Fraction(1, 2)),
    (Fraction(1), 2, Fraction(1, 10)),
    (Fraction(1, 2), 3, Fraction(3, 10)),
    (Fraction(1, 2), 2, Fraction(1, 10)),
    (Fraction(1), 3, Fraction(1)),
    (Fraction(2), 3, Fraction(2)),
    (Fraction(1, 10), 3, Fraction(1, 20)),
])
def test_moment_bound_is_above_every_adaptive_strategy(eta: Fraction, k: int, epsilon: Fraction) -> None:
    """Small k: the bound is above the best grid adaptive strategy, which is above the non-adaptive optimum."""
    strategy = _adaptive_strategy_delta(float(eta), k, float(epsilon), 160 if k == 2 else 48)
    curve = AdaptiveComposition([(eta, k)])
    optimum = OptimalComposition([(eta, k)]).delta(epsilon)
    bound = moment_delta(curve.components, epsilon)
    assert strategy <= float(bound.upper) * (1 + 1e-9)
    assert strategy <= float(curve.delta(epsilon).upper) * (1 + 1e-9)
    assert float(optimum.lower) * (1 - 1e-3) <= strategy  # adaptivity is never worth less than the optimum
    assert bound.upper >= optimum.upper


def test_adaptivity_costs_more_than_the_optimum_somewhere() -> None:
    """Dong–Durfee–Rogers: adaptive composition is strictly worse; a grid strategy beats the non-adaptive optimum."""
    eta, epsilon = Fraction(1), Fraction(1, 10)
    strategy = _adaptive_strategy_delta(1.0, 2, 0.1, 200)
    optimum = OptimalComposition([(eta, 2)]).delta(epsilon).upper
    assert strategy > float(optimum) * 1.03  # 0.2692 against 0.2585
    assert strategy <= float(AdaptiveComposition([(eta, 2)]).delta(epsilon).upper)


@settings(max_examples=15, deadline=None)
@given(
    eta=st.fractions(Fraction(1, 100), Fraction(4)).map(lambda x: x.limit_denominator(100)).filter(lambda x: x > 0),
    lam=st.fractions(Fraction(1, 100), Fraction(60)).map(lambda x: x.limit_denominator(100)).filter(lambda x: x > 0),
)
def test_log_moment_is_the_largest_two_point_moment(eta: Fraction, lam: Fraction) -> None:
    """``M(λ)`` (closed form at the clipped peak) is at or above the two-point moment at every t of a grid, and reached."""
    with mpmath.workdps(40):
        e, lm = mpmath.mpf(eta.numerator) / eta.denominator, mpmath.mpf(lam.numerator) / lam.denominator
        best = mpmath.mpf(0)
        for j in range(201):
            t = -e * j / 200
            p = (mpmath.exp(e) - mpmath.exp(t + e)) / mpmath.expm1(e)
            best = max(best, p * mpmath.exp(lm * (t + e)) + (1 - p) * mpmath.exp(lm * t))
        high = endpoints(log_moment(eta, lam))[1]
        upper = mpmath.mpf(high.numerator) / high.denominator
        assert mpmath.log(best) <= upper + mpmath.mpf(10) ** -30
        assert upper - mpmath.log(best) <= lm * e * e / 200 + mpmath.mpf(10) ** -12  # the grid's step


@settings(max_examples=20, deadline=None)
@given(
    etas=st.lists(st.sampled_from([Fraction(1, 20), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2)]), min_size=1, max_size=3),
    times=st.lists(st.integers(1, 300), min_size=3, max_size=3),
    delta=st.sampled_from([Fraction(1, 10), Fraction(1, 10**3), Fraction(1, 10**6), Fraction(1, 10**10)]),
)
def test_adaptive_bound_never_below_the_non_adaptive_optimum(etas: list, times: list, delta: Fraction) -> None:
    """For every component list: ε(δ) adaptive >= the non-adaptive lower end, and δ(ε) likewise; the least bound is named."""
    components = list(zip(etas, times))
    curve = AdaptiveComposition(components)
    bounds = curve.bounds_epsilon(delta)
    assert set(bounds) == {"moment", "azuma", "zcdp", "pure"}
    got = curve.epsilon(delta)
    assert got.upper == min(bounds.values()) and got.lower <= got.upper
    optimal = OptimalComposition(components).epsilon(delta)
    assert got.upper >= optimal.lower
    epsilon = optimal.lower / 2 if optimal.lower > 0 else Fraction(1, 100)
    assert curve.delta(epsilon).upper >= OptimalComposition(components).delta(epsilon).lower
    # the ε of the moment bound meets δ at its own λ: δ(ε_moment) <= δ
    assert moment_delta(curve.components, bounds["moment"]).upper <= delta * (1 + Fraction(1, 10**6)) or bounds["moment"] >= curve.total_eta


def test_moment_bound_is_the_tightest_at_the_benchmark_points() -> None:
    """η = 0.1, δ = 1e-6: the moment bound beats Azuma and zCDP at k = 10 and 100 (and is within 7 % of the optimum at k = 10)."""
    for k in (10, 100):
        bounds = AdaptiveComposition([(Fraction(1, 10), k)]).bounds_epsilon(Fraction(1, 10**6))
        assert bounds["moment"] < bounds["zcdp"] < bounds["azuma"]
    optimum = OptimalComposition([(Fraction(1, 10), 10)]).epsilon(Fraction(1, 10**6)).upper
    assert moment_epsilon(((Fraction(1, 10), 10),), Fraction(1, 10**6)) < optimum * Fraction(107, 100)
