"""audit_sampler: verdicts with power, honest failures, the privacy bound, reports, the pytest helper.

Every sampler here is seeded, so each verdict is reproducible; each test that
expects CONSISTENT has a twin, same draws budget and seed, that must be
REJECTED (ε·0.7, ε·1.3, max↔min, the other law).
"""

import json
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import ExponentialMechanism, ExponentialTopK, PermuteAndFlip, PermuteAndFlipTopK, QuantileMechanism
from expmech.proofs import (
    AuditResult,
    AuditStatus,
    SamplerError,
    SamplerMismatch,
    assert_sampler_matches,
    audit_sampler,
)
from expmech.proofs.audit import (
    SamplerFailed,
    SamplerOutOfRange,
    demo_cases,
    reference_law,
    render_html,
    render_json,
    render_text,
)
from expmech.proofs.audit._detectable import verdict_power
from expmech.proofs.audit._eprocess import first_crossings
from expmech.proofs.audit._fixed_n import calibrate
from expmech.spec import InvalidArgument, InvalidType

SCORES = (0, 2, 1, 3, 3, 1)
EPSILON = Fraction(1, 2)
BUDGET = 3000


def table(dataset, r):
    """The dataset is the score vector."""
    return dataset[r]


def em(epsilon=EPSILON, outputs=range(6), **options):
    return ExponentialMechanism(table, epsilon=epsilon, outputs=outputs, **options)


def pf(epsilon=EPSILON, outputs=range(6)):
    return PermuteAndFlip(table, epsilon=epsilon, outputs=outputs)


def exact_sampler(mechanism, seed=1):
    """expmech's exact sampler of ``mechanism`` (any kind), seeded."""
    rng = random.Random(seed)
    cache = {}

    def sample(dataset):
        key = tuple(dataset) if isinstance(dataset, list) else dataset
        if key not in cache:
            cache[key] = mechanism.distribution(dataset)
        return cache[key].sample(rng=rng)

    return sample


def negated(mechanism_class, epsilon=EPSILON, **options):
    return mechanism_class(lambda d, r: -d[r], epsilon=epsilon, outputs=range(6), **options)


# -- verdicts and power ------------------------------------------------------------------------


@pytest.mark.parametrize("reference", [em(), pf()], ids=["exponential", "permute-and-flip"])
def test_exact_sampler_is_consistent_and_wrong_epsilons_are_rejected(reference):
    """The right ε passes; ε·0.7 and ε·1.3 — same budget, same seed — are rejected within it."""
    kind = type(reference)
    right = audit_sampler(exact_sampler(reference), reference, SCORES, max_draws=BUDGET, power_replicates=0)
    assert right.status is AuditStatus.CONSISTENT and right.draws == BUDGET
    for factor, direction in ((Fraction(7, 10), {"epsilon×0.5", "epsilon×0.7"}), (Fraction(13, 10), {"epsilon×1.3", "epsilon×2"})):
        wrong = kind(table, epsilon=EPSILON * factor, outputs=range(6))
        result = audit_sampler(exact_sampler(wrong), reference, SCORES, max_draws=BUDGET, power_replicates=0)
        assert result.status is AuditStatus.REJECTED, factor
        assert result.draws < BUDGET and result.e_value >= 100
        assert result.closest in direction


def test_swap_and_other_law_are_rejected():
    """max↔min stops within a handful of draws (and is named); the other law, both ways, is rejected within the budget."""
    swapped = audit_sampler(exact_sampler(negated(ExponentialMechanism)), em(), SCORES, max_draws=BUDGET, power_replicates=0)
    assert swapped.rejected and swapped.draws <= 20 and swapped.closest == "max↔min"
    other = audit_sampler(exact_sampler(pf()), em(), SCORES, max_draws=BUDGET, power_replicates=0)
    assert other.rejected
    back = audit_sampler(exact_sampler(em()), pf(), SCORES, max_draws=BUDGET, power_replicates=0)
    assert back.rejected


def test_stated_power_is_met_by_a_sampler_of_each_alternative():
    """Each named alternative has stated power >= 0.9 within the budget, and seeded samplers of it are rejected in it (4 of 5 at least)."""
    reference = em()
    result = audit_sampler(exact_sampler(reference), reference, SCORES, max_draws=BUDGET, power_replicates=100, seed=3)
    assert result.status is AuditStatus.CONSISTENT
    power = {p.alternative: p for p in result.power}
    assert set(power) == {"epsilon×0.5", "epsilon×0.7", "epsilon×1.3", "epsilon×2", "max↔min", "permute-and-flip"}
    samplers = {
        "epsilon×0.7": em(EPSILON * Fraction(7, 10)),
        "epsilon×1.3": em(EPSILON * Fraction(13, 10)),
        "max↔min": negated(ExponentialMechanism),
        "permute-and-flip": pf(),
    }
    for name, mechanism in samplers.items():
        assert power[name].power >= 0.9 and power[name].median_draws < BUDGET
        rejected = [
            audit_sampler(exact_sampler(mechanism, seed=s), reference, SCORES, max_draws=BUDGET, power_replicates=0).rejected
            for s in range(11, 16)
        ]
        assert sum(rejected) >= 4, name
    assert power["max↔min"].median_draws < 30


def test_false_alarm_rate_is_at_most_alpha():
    """Under the exact law the e-process crosses 1/α in at most about α of 1000 seeded runs (Ville)."""
    law = reference_law(em(), SCORES)
    lo, hi = law.lower_upper()
    alternatives = [a.probabilities for a in law.alternatives()]
    for alpha in (0.05, 0.2):
        runs = first_crossings(law.probabilities(), lo, hi, alternatives, alpha=alpha, max_draws=1000, replicates=1000, seed=5)
        rate = float(np.mean(np.isfinite(runs.first)))
        assert rate <= alpha + 3 * (alpha / 1000) ** 0.5


def test_false_alarm_rate_of_the_whole_verdict_is_at_most_alpha():
    """E-process at α/2 or, at max_draws, the calibrated chi-square at α/2: at most about α of 1000 null runs reject."""
    law = reference_law(em(), SCORES)
    lo, hi = law.lower_upper()
    alternatives = [a.probabilities for a in law.alternatives()]
    alpha = 0.1
    fixed = calibrate(lo, hi, draws=500, level=alpha / 2, seed=3)
    assert fixed is not None
    power, _ = verdict_power(
        law.probabilities(), lo, hi, alternatives, sequential_alpha=alpha / 2, fixed=fixed, max_draws=500,
        replicates=1000, seed=7, cells=None,
    )
    assert power <= alpha + 3 * (alpha / 1000) ** 0.5


def test_top_k_and_quantile_references():
    """Tuples are audited against top-k laws (and the other law rejected); interval indices against the quantile law."""
    peel = ExponentialTopK(table, epsilon=EPSILON, outputs=range(6), k=2)
    other = PermuteAndFlipTopK(table, epsilon=EPSILON, outputs=range(6), k=2)
    assert audit_sampler(exact_sampler(peel), peel, SCORES, max_draws=2000, power_replicates=0).status is AuditStatus.CONSISTENT
    wrong = audit_sampler(exact_sampler(other), peel, SCORES, max_draws=BUDGET, power_replicates=0)
    assert wrong.rejected
    tuples = exact_sampler(other, 4)
    listing = audit_sampler(lambda d: list(tuples(d)), other, SCORES, max_draws=500, power_replicates=0)
    assert listing.status is AuditStatus.CONSISTENT  # lists are taken as tuples
    quantile = QuantileMechanism(quantile=Fraction(1, 2), epsilon=Fraction(1, 2), bounds=(0, 10))
    data = (1, 2, 4, 4, 7, 9)
    rng = random.Random(2)
    good = audit_sampler(lambda d: quantile.sample_interval(d, rng=rng), quantile, data, max_draws=2000, power_replicates=0)
    assert good.status is AuditStatus.CONSISTENT
    counting = ExponentialMechanism(lambda d, i: -abs(i - 3), epsilon=Fraction(1, 2), outputs=range(7))
    bad = audit_sampler(exact_sampler(counting), quantile, data, max_draws=BUDGET, power_replicates=0)
    assert bad.rejected


def test_an_outcome_of_probability_zero_is_rejected_at_once():
    """A draw the exact law gives probability 0 (zero base measure) ends the run with e-value ∞."""
    reference = em(base_measure={0: 1, 1: 1, 2: 0, 3: 1, 4: 1, 5: 1})
    draws = iter([1, 3, 2, 4])
    result = audit_sampler(lambda d: next(draws), reference, SCORES, power_replicates=0)
    assert result.rejected and result.draws == 3 and result.e_value == float("inf")


@settings(max_examples=15, deadline=None)
@given(
    scores=st.lists(st.integers(-3, 3), min_size=2, max_size=6),
    epsilon=st.sampled_from([Fraction(1, 4), Fraction(1, 2), Fraction(1)]),
    seed=st.integers(0, 2**16),
)
def test_stated_full_power_means_rejection_on_generated_instances(scores, epsilon, seed):
    """Whenever the audit states power 1 against max↔min, a seeded max↔min sampler is rejected within the budget."""
    outputs = range(len(scores))
    reference = ExponentialMechanism(table, epsilon=epsilon, outputs=outputs)
    swapped = ExponentialMechanism(lambda d, r: -d[r], epsilon=epsilon, outputs=outputs)
    result = audit_sampler(exact_sampler(swapped, seed), reference, tuple(scores), max_draws=400, power_replicates=60, seed=seed)
    power = {p.alternative: p.power for p in result.power}
    if power["max↔min"] == 1.0:
        assert result.rejected
    if len(set(scores)) == 1:
        assert not result.rejected  # the swap is the same law


# -- honest failures ----------------------------------------------------------------------------


def test_a_sampler_that_raises_gets_an_error_not_a_verdict():
    """SamplerFailed (a RuntimeError) names the draw and the exception."""
    calls = []

    def sampler(dataset):
        calls.append(1)
        if len(calls) == 5:
            raise KeyError("boom")
        return 1

    with pytest.raises(SamplerFailed, match=r"raised KeyError.*draw 5") as caught:
        audit_sampler(sampler, em(), SCORES, power_replicates=0)
    assert isinstance(caught.value, RuntimeError) and isinstance(caught.value, SamplerError) and caught.value.draw == 5


@pytest.mark.parametrize("value", [6, -1, None, "2", float("nan"), [], [1, 99], (0, 1.5), {1: 2}])
def test_values_outside_the_range_get_an_error_not_a_verdict(value):
    """SamplerOutOfRange (a ValueError) names the value and the law; never a verdict."""
    with pytest.raises(SamplerOutOfRange, match="not an outcome") as caught:
        audit_sampler(lambda d: value, em(), SCORES, power_replicates=0)
    assert isinstance(caught.value, ValueError)


def test_top_k_tuples_with_repeats_are_out_of_range():
    """(3, 3) is not an ordered pair of distinct outputs."""
    peel = ExponentialTopK(table, epsilon=EPSILON, outputs=range(6), k=2)
    with pytest.raises(SamplerOutOfRange):
        audit_sampler(lambda d: (3, 3), peel, SCORES, power_replicates=0)


@pytest.mark.parametrize(
    "options, parameter",
    [
        ({"alpha": 0}, "alpha"),
        ({"alpha": 1}, "alpha"),
        ({"alpha": "x"}, "alpha"),
        ({"max_draws": 0}, "max_draws"),
        ({"max_draws": True}, "max_draws"),
        ({"privacy_draws": 0}, "privacy_draws"),
        ({"power_replicates": -1}, "power_replicates"),
        ({"seed": 1.5}, "seed"),
    ],
)
def test_bad_options_name_the_parameter(options, parameter):
    """Each bad option raises InvalidArgument naming it and its value."""
    with pytest.raises(InvalidArgument) as caught:
        audit_sampler(lambda d: 1, em(), SCORES, **options)
    assert caught.value.parameter == parameter and parameter in str(caught.value)


def test_bad_sampler_and_reference_types():
    """A non-callable sampler and a non-mechanism reference are InvalidType errors."""
    with pytest.raises(InvalidType, match="sampler="):
        audit_sampler(3, em(), SCORES)
    with pytest.raises(InvalidType, match="reference="):
        audit_sampler(lambda d: 1, "exponential", SCORES)


def test_batches_are_split_and_the_stopping_draw_is_exact():
    """A sampler returning arrays of draws is audited draw by draw; unused draws are reported."""
    generator = np.random.default_rng(0)
    swapped = negated(ExponentialMechanism).distribution(SCORES).approximate()
    weights = np.array([swapped[r] for r in range(6)])
    result = audit_sampler(lambda d: generator.choice(6, size=50, p=weights / weights.sum()), em(), SCORES, power_replicates=0)
    assert result.rejected and result.draws < 50
    assert any("not used" in note for note in result.notes)


# -- empirical privacy --------------------------------------------------------------------------


def test_privacy_lower_bound_sits_below_the_exact_loss_for_the_exact_sampler():
    """The 1 − α lower bound of an exact sampler does not exceed the exact loss, and is positive here."""
    neighbour = (1, 2, 1, 2, 3, 1)
    reference = em(Fraction(1))
    result = audit_sampler(exact_sampler(reference), reference, SCORES, neighbour=neighbour, max_draws=500, power_replicates=0)
    privacy = result.privacy
    assert privacy is not None and not privacy.exceeds_exact
    assert 0 < privacy.lower_bound <= privacy.exact_loss
    assert privacy.exact_loss == pytest.approx(float(reference.privacy_loss(SCORES, neighbour)))


def test_privacy_lower_bound_exposes_a_leaky_sampler():
    """A sampler that uses 4ε on the neighbour leaks more than the exact loss: the lower bound exceeds it."""
    neighbour = (1, 2, 1, 2, 3, 1)
    reference = em(Fraction(1, 2))
    honest, leaky = exact_sampler(reference, 5), exact_sampler(em(Fraction(2)), 6)
    sampler = lambda d: leaky(d) if tuple(d) == neighbour else honest(d)  # noqa: E731
    result = audit_sampler(sampler, reference, SCORES, neighbour=neighbour, max_draws=200, power_replicates=0)
    assert result.privacy is not None and result.privacy.exceeds_exact
    assert result.privacy.lower_bound > float(reference.privacy_loss(SCORES, neighbour))


# -- reports and the pytest helper ---------------------------------------------------------------


@pytest.fixture(scope="module")
def two_results():
    reference = em()
    good = audit_sampler(exact_sampler(reference), reference, SCORES, neighbour=(1, 2, 1, 2, 3, 1), max_draws=300, power_replicates=20)
    bad = audit_sampler(exact_sampler(negated(ExponentialMechanism)), reference, SCORES, max_draws=300, power_replicates=0)
    return [good, bad]


def test_text_and_json_reports_carry_the_verdict_and_the_evidence(two_results):
    """Text names status, draws, e-value, α and power; JSON round-trips them with exact probabilities as p/q."""
    text = render_text(two_results)
    assert "CONSISTENT" in text and "REJECTED" in text and "e-value" in text and "power within 300 draws" in text
    data = json.loads(render_json(two_results))["audits"]
    assert [a["status"] for a in data] == ["CONSISTENT", "REJECTED"]
    assert data[1]["draws"] == len(data[1]["trajectory"]) and data[0]["alpha"] == "1/100"
    assert all("/" in cell["probability"]["lo"] or cell["probability"]["lo"].isdigit() for cell in data[0]["evidence"])
    assert data[0]["privacy"]["exact_loss"] > 0
    assert str(two_results[1]).startswith("REJECTED")


def test_html_report_has_both_plots(two_results):
    """The HTML page embeds a PNG per result (empirical vs exact, and ln E_t against ln(1/α))."""
    page = render_html(two_results)
    assert page.count('<img alt="empirical vs exact probabilities and the sequential statistic"') == 2
    assert page.count("data:image/png;base64,") == 2 and "REJECTED" in page


def test_assert_sampler_matches_passes_and_fails_with_counts():
    """A right sampler passes; a wrong one raises SamplerMismatch whose message lists counts next to expectations."""
    reference = em()
    result = assert_sampler_matches(exact_sampler(reference), reference, SCORES, max_draws=1000)
    assert isinstance(result, AuditResult) and result.status is AuditStatus.CONSISTENT
    with pytest.raises(SamplerMismatch) as caught:
        assert_sampler_matches(exact_sampler(em(EPSILON * 2)), reference, SCORES, max_draws=3000)
    message = str(caught.value)
    assert "REJECTED" in message and "drawn" in message and "expected" in message
    for r in range(6):
        assert f"\n{r!r:>16} " in message
    assert isinstance(caught.value, AssertionError) and caught.value.result.rejected


def test_demo_broken_samplers_are_rejected_and_the_correct_ones_pass():
    """The README's demonstration: every case gets the verdict it was built for."""
    for case in demo_cases(seed=2):
        result = case.run(max_draws=BUDGET, power_replicates=0)
        assert result.status.name == case.expected, case.name


@pytest.mark.slow
@pytest.mark.parametrize(
    "wrong",
    [em(EPSILON * Fraction(13, 10)), em(EPSILON * Fraction(7, 10)), pf()],
    ids=["epsilon×1.3", "epsilon×0.7", "permute-and-flip"],
)
def test_stated_power_matches_real_runs(wrong):
    """Over 60 seeded real audits of a wrong exact sampler, the rejection rate is within sampling error of the stated power."""
    reference = em()
    budget = 800
    stated = audit_sampler(exact_sampler(reference), reference, SCORES, max_draws=budget, power_replicates=400, seed=1)
    name = {"ExponentialMechanism": None, "PermuteAndFlip": "permute-and-flip"}[type(wrong).__name__]
    if name is None:
        name = f"epsilon×{float(wrong.epsilon / EPSILON):g}"
    power = {p.alternative: p.power for p in stated.power}[name]
    runs = 60
    rejected = sum(
        audit_sampler(exact_sampler(wrong, seed=100 + i), reference, SCORES, max_draws=budget, power_replicates=0).rejected
        for i in range(runs)
    )
    spread = 3 * (power * (1 - power) / runs) ** 0.5 + 0.05
    assert abs(rejected / runs - power) <= spread, (rejected, power)
