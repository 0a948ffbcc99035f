"""The accounting curves at large ε (past 709, where e^ε overflows a float), large η, many mechanisms and tiny δ.

Floats only filter (DESIGN idea 8): an overflow in a filter must send the computation to its exact path, never
become a traceback or a wrong enclosure.  Each curve is checked against an independent mpmath reference (small
k) or against its own exact bracket (δ at the ends of the ε(δ) enclosure).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import catalogue_entry
from expmech.proofs import certify
from expmech.proofs.accounting import AdaptiveComposition, Enclosure, OptimalComposition, ZCDPComposition
from expmech.proofs.cli import main
from expmech.spec import PrecisionExhausted

#: η up to 50; a few values far past e^709 when multiplied by k.
ETAS = st.fractions(Fraction(1, 20), Fraction(50)).map(lambda x: x.limit_denominator(20)).filter(lambda x: x > 0)
#: δ down to 1e-400 (below the smallest float64: float(δ) is 0.0).
DELTAS = st.sampled_from([Fraction(1, 10), Fraction(1, 10**6), Fraction(1, 10**40), Fraction(1, 10**400)])


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _reference(eta: Fraction, k: int, epsilon: Fraction) -> mpmath.mpf:
    """The optimal δ(ε) of Dong–Durfee–Rogers by its formula, in mpmath: max over ℓ of a sum of positive terms.

    At ``t = t*_ℓ = (ε − ℓη)/(k+1)`` in ``(−η, 0)``, ``f(ℓ) = Σ_{i>=ℓ} Q_i (e^{kt+iη} − e^ε)``; 0 when no ℓ is inside.
    """
    e, h = _mp(eta), _mp(epsilon)
    best = mpmath.mpf(0)
    for ell in range(1, k + 1):
        t = (h - ell * e) / (k + 1)
        if not -e < t < 0:
            continue
        q = mpmath.expm1(-t) / mpmath.expm1(e)
        one_minus_q = mpmath.exp(-t) * mpmath.expm1(t + e) / mpmath.expm1(e)
        total = mpmath.fsum(
            mpmath.binomial(k, i) * q**i * one_minus_q ** (k - i) * (mpmath.exp(k * t + i * e) - mpmath.exp(h)) for i in range(ell, k + 1)
        )
        best = max(best, total)
    return best


def _contains(enclosure: Enclosure, value: mpmath.mpf) -> bool:
    slack = mpmath.mpf(10) ** -40 * max(value, mpmath.mpf(10) ** -300)
    return _mp(enclosure.lower) - slack <= value <= _mp(enclosure.upper) + slack


@settings(max_examples=25, deadline=None)
@given(eta=ETAS, k=st.integers(1, 40), frac=st.fractions(Fraction(0), Fraction(1)).map(lambda x: x.limit_denominator(30)), big=st.booleans())
def test_optimal_delta_contains_the_reference_at_large_epsilon(eta: Fraction, k: int, frac: Fraction, big: bool) -> None:
    """δ(ε) of k η-BR mechanisms, ε anywhere in [0, kη] or past 709: the enclosure holds the mpmath reference."""
    epsilon = max(frac * eta * k, Fraction(1, 100))
    if big:  # ε past 709 (e^ε overflows a float), still below kη where the η allow it
        epsilon = Fraction(710) + frac * max(eta * k - 710, Fraction(0))
    with mpmath.workdps(60):
        got = OptimalComposition([(eta, k)]).delta(epsilon)
        assert _contains(got, _reference(eta, k, epsilon))


def _check_epsilon_bracket(curve: OptimalComposition, delta: Fraction) -> Enclosure:
    """ε(δ) = [lo, hi]: δ(hi) <= δ proved, and δ(lo) >= δ unless lo is 0 (the bracket is sound)."""
    got = curve.epsilon(delta)
    assert 0 <= got.lower <= got.upper <= curve.total_eta
    assert curve.delta(got.upper).upper <= delta or got.upper == curve.total_eta
    if got.lower > 0:
        assert curve.delta(got.lower).upper >= delta
    return got


@settings(max_examples=12, deadline=None)
@given(eta=st.sampled_from([Fraction(2), Fraction(9, 2), Fraction(10), Fraction(50)]), k=st.integers(160, 400), delta=DELTAS)
def test_optimal_epsilon_when_k_eta_is_past_709(eta: Fraction, k: int, delta: Fraction) -> None:
    """ε(δ) where the float guess meets e^ε past e^709 and δ below 1e-308: a sound bracket, no traceback."""
    _check_epsilon_bracket(OptimalComposition([(eta, k)]), delta)


@settings(max_examples=10, deadline=None)
@given(
    etas=st.lists(st.sampled_from([Fraction(1, 20), Fraction(1, 2), Fraction(2), Fraction(10), Fraction(50)]), min_size=2, max_size=3, unique=True),
    times=st.lists(st.integers(2, 300), min_size=3, max_size=3),
    delta=DELTAS,
    big=st.booleans(),
)
def test_heterogeneous_adaptive_and_zcdp_at_extremes(etas: list, times: list, delta: Fraction, big: bool) -> None:
    """Heterogeneous η lists with Σ kη past 709: every curve answers (or raises a documented ExpMechError only),
    the adaptive and zCDP upper ends are never below the non-adaptive lower end, and each δ lies in [0, 1]."""
    components = list(zip(etas, times))
    optimal, adaptive, zcdp = OptimalComposition(components), AdaptiveComposition(components), ZCDPComposition(components)
    try:
        plain = optimal.epsilon(delta)
        assert adaptive.epsilon(delta).upper >= plain.lower
        assert zcdp.epsilon(delta).upper >= plain.lower
        epsilon = Fraction(710) if big and optimal.total_eta > 710 else max(plain.lower / 2, Fraction(1, 100))
        low = optimal.delta(epsilon)
        for curve in (adaptive, zcdp):
            high = curve.delta(epsilon)
            assert 0 <= high.lower <= high.upper <= 1 and high.upper >= low.lower
    except PrecisionExhausted:  # documented: an enclosure that 16384 bits cannot narrow (never seen on these sizes)
        pytest.skip("precision exhausted")


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(eta=st.sampled_from([Fraction(1, 2), Fraction(7), Fraction(50)]), k=st.integers(1000, 3000), delta=DELTAS)
def test_optimal_epsilon_for_thousands_of_mechanisms(eta: Fraction, k: int, delta: Fraction) -> None:
    """As above for k in the thousands (ε(δ) up to 1.5e5)."""
    _check_epsilon_bracket(OptimalComposition([(eta, k)]), delta)
    assert AdaptiveComposition([(eta, k)]).epsilon(delta).upper >= OptimalComposition([(eta, k)]).epsilon(delta).lower


@pytest.fixture(scope="module")
def large_eta_cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Fraction]:
    """A certificate of the mode mechanism at ε₀ = 400 (so each run is η-BR with η in the hundreds)."""
    e = catalogue_entry("mode")
    path = tmp_path_factory.mktemp("extremes") / "mode-400.json"
    cert = certify(e.quality, epsilon=Fraction(400), neighbours=e.neighbours, claimed=e.claimed_sensitivity, base_measure=e.base_measure)
    cert.write(path)
    return path, Fraction(400)


@pytest.mark.parametrize("query", [["--delta", "1/10"], ["--delta", "1/10" + "0" * 400], ["--epsilon", "900"], ["--epsilon", "1/3"]])
@pytest.mark.parametrize("adaptive", [False, True])
def test_account_cli_past_709_answers(large_eta_cert: tuple[Path, Fraction], capsys: pytest.CaptureFixture[str], query: list, adaptive: bool) -> None:
    """``expmech account`` with η in the hundreds, 5 runs (Σ η past 709) and tiny δ: exit 0 and a sound answer."""
    path, _ = large_eta_cert
    argv = ["account", str(path), "--times", "5", *query, "--format", "json"] + (["--adaptive"] if adaptive else [])
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    answer = json.loads(captured.out)
    key = "epsilon" if query[0] == "--delta" else "delta"
    lower, upper = Fraction(answer[key]["lower"]), Fraction(answer[key]["upper"])
    assert 0 <= lower <= upper
    assert main(["account", str(path), "--times", "5", *query] + (["--adaptive"] if adaptive else [])) == 0  # the text form too
    assert ("ε(δ" if key == "epsilon" else "δ(ε") in capsys.readouterr().out


@pytest.mark.parametrize("eta", [Fraction(10**400), Fraction(1, 10**400), Fraction(10**6)])
@pytest.mark.parametrize("curve", [OptimalComposition, AdaptiveComposition, ZCDPComposition])
def test_eta_past_float64_answers_or_raises_a_documented_error(eta: Fraction, curve: type) -> None:
    """η past 1e308 or below 1e-308 (float(η) overflows or is 0.0): an enclosure, or PrecisionExhausted; never
    OverflowError, ZeroDivisionError or ValueError from a float filter."""
    family = curve([(eta, 3), (eta * 2, 1)])
    for call, argument in (("epsilon", Fraction(1, 10)), ("epsilon", Fraction(1, 10**400)), ("delta", eta), ("delta", eta / 3)):
        try:
            got = getattr(family, call)(argument)
        except PrecisionExhausted:
            continue
        assert 0 <= got.lower <= got.upper
