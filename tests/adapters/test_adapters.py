"""Library adapters: each convention checked by its effect on the exact law, float decisions re-decided exactly.

diffprivlib is seeded through its ``random_state``, so its audits are
deterministic and run in the default tier.  OpenDP cannot be seeded: its
mappings and privacy maps are checked here deterministically, its sampling
audits run in the slow tier.
"""

import math
import sys
from fractions import Fraction

import numpy as np
import pytest

from expmech.impl import ExponentialMechanism, ExponentialTopK, PermuteAndFlip, PermuteAndFlipTopK, QuantileMechanism
from expmech.proofs import AuditStatus, audit_sampler
from expmech.proofs.audit import MissingDependency

diffprivlib = pytest.importorskip("diffprivlib")
opendp = pytest.importorskip("opendp")

from expmech.proofs import adapters  # noqa: E402

SCORES = (3, 1, 4, 1, 5, 9, 2, 6)
NEIGHBOUR = (3, 2, 4, 1, 5, 8, 2, 6)


def exact_probabilities(case):
    """The adapter reference's exact probabilities (floats, for comparison with the library's float table)."""
    return np.array([float(p) for p in case.reference.distribution(case.dataset).approximate().values()])


# -- diffprivlib: conventions by their effect on the law --------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"measure": (1, 2, 1, 1, 3, 1, 2, 1)},
        {"monotonic": True},
        {"epsilon": 0.3, "sensitivity": 2.5},
        {"candidates": list("abcdefgh")},
    ],
    ids=["plain", "measure", "monotonic", "scaled", "candidates"],
)
def test_diffprivlib_exponential_table_is_the_exact_law(options):
    """diffprivlib's own probability table equals the adapter's exact reference (to float rounding)."""
    parameters = {"epsilon": 1.0, "sensitivity": 1, **options}
    case = adapters.diffprivlib_exponential(SCORES, **parameters)
    library = diffprivlib.mechanisms.Exponential(
        utility=list(SCORES), **{k: list(v) if isinstance(v, tuple) else v for k, v in parameters.items()}
    )
    table = np.diff(np.concatenate([[0.0], library._probabilities]))
    assert np.allclose(table, exact_probabilities(case), rtol=1e-12, atol=0)
    wrong = ExponentialMechanism(case.reference.quality, epsilon=2 * case.reference.epsilon, outputs=case.reference.outputs)
    assert not np.allclose(table, [float(p) for p in wrong.distribution(SCORES).approximate().values()], rtol=1e-3)


def test_diffprivlib_permute_and_flip_coins_are_the_exact_coins():
    """Its log-coins are scale·(u − max u) with scale = ε/(2Δ): the adapter's PermuteAndFlip at epsilon = scale."""
    case = adapters.diffprivlib_permute_and_flip(SCORES, epsilon=0.8, sensitivity=2)
    library = diffprivlib.mechanisms.PermuteAndFlip(epsilon=0.8, sensitivity=2, utility=list(SCORES))
    assert isinstance(case.reference, PermuteAndFlip) and case.reference.epsilon == Fraction(0.8 / 2 / 2)
    coins = [math.exp(float(case.reference.epsilon) * (s - max(SCORES))) for s in SCORES]
    assert np.allclose(np.exp(library._probabilities), coins, rtol=1e-12)


def test_diffprivlib_categorical_law_and_balance():
    """The balanced hierarchy keeps factor 1; the law is exp(−ε u/Δ)/Z, as the library's own terms say."""
    hierarchy = [("A", "B", 1), ("A", "C", 2), ("A", "D", 2), ("B", "C", 2), ("B", "D", 2), ("C", "D", 1)]
    case = adapters.diffprivlib_exponential_categorical(hierarchy, epsilon=1.0, value="A")
    library = diffprivlib.mechanisms.ExponentialCategorical(epsilon=1.0, utility_list=hierarchy)
    exact = case.reference.distribution("A").approximate()
    for y in "ABCD":
        assert library._get_prob("A", y) / library._normalising_constant["A"] == pytest.approx(exact[y], rel=1e-12)
    assert not any(f.violation for f in case.findings)
    assert "balanced (exact" in case.findings[0].exact


def test_diffprivlib_near_balanced_categorical_exceeds_epsilon_exactly():
    """numpy.isclose calls a near-balanced tree balanced and drops the factor 2: the exact loss exceeds ε."""
    near = [("a", "b", 1.0), ("a", "c", 1.0 - 2.0**-14), ("b", "c", 1.0)]
    case = adapters.diffprivlib_exponential_categorical(near, epsilon=1.0, value="b")
    balance, loss = case.findings
    assert "balanced (numpy.isclose)" in balance.library and "not balanced" in balance.exact
    assert loss.violation and "> ε" in loss.exact
    worst = max(case.reference.privacy_loss(x, y) for x in "abc" for y in "abc" if x != y)
    assert worst > 1 and float(worst) - 1 < 1e-4
    far = [("a", "b", 1.0), ("a", "c", 0.5), ("b", "c", 1.0)]
    honest = adapters.diffprivlib_exponential_categorical(far, epsilon=1.0, value="b")
    assert not any(f.violation for f in honest.findings) and "not balanced (numpy" in honest.findings[0].library


def test_diffprivlib_float_table_can_lose_an_output_on_one_dataset_only():
    """exp underflow gives an output a zero step on one dataset and a positive one on its neighbour: infinite loss."""
    utility, neighbour = (-1491.0, 0.0), (-1490.0, 0.0)
    case = adapters.diffprivlib_exponential(utility, epsilon=1.0, sensitivity=1, neighbour=neighbour)
    table = [f for f in case.findings if f.question.startswith("outputs the float")][0]
    assert table.violation and "infinite" in table.exact
    plain = adapters.diffprivlib_exponential(SCORES, epsilon=1.0, sensitivity=1, neighbour=NEIGHBOUR)
    assert not any(f.violation for f in plain.findings)


def test_diffprivlib_monotonic_needs_a_monotone_pair():
    """monotonic=True with a pair moving both ways: the exact loss can exceed ε, and the finding says NOT monotone."""
    case = adapters.diffprivlib_exponential((0, 1, 1), epsilon=1.0, sensitivity=1, monotonic=True, neighbour=(1, 0, 0))
    loss = [f for f in case.findings if "privacy loss" in f.question][0]
    assert "NOT monotone" in loss.question and loss.violation


@pytest.mark.parametrize(
    "build",
    [
        lambda: adapters.diffprivlib_exponential(SCORES, epsilon=1.0, sensitivity=1, seed=3),
        lambda: adapters.diffprivlib_exponential(SCORES, epsilon=1.0, sensitivity=1, measure=(1, 2, 1, 1, 3, 1, 2, 1), seed=4),
        lambda: adapters.diffprivlib_permute_and_flip(SCORES, epsilon=1.0, sensitivity=1, seed=5),
        lambda: adapters.diffprivlib_exponential_categorical([("x", "y", 1), ("x", "z", 2), ("y", "z", 2)], epsilon=2.0, value="x", seed=6),
        lambda: adapters.diffprivlib_quantile((12, 35, 41, 47, 50, 52, 58, 63, 71, 88), 0.25, epsilon=1.0, bounds=(0, 100), seed=7),
        lambda: adapters.diffprivlib_median((12, 35, 41, 47, 50, 52, 58, 63, 71, 88), epsilon=1.0, bounds=(0, 100), seed=8),
    ],
    ids=["exponential", "measure", "permute-and-flip", "categorical", "quantile", "median"],
)
def test_diffprivlib_samplers_match_their_mapping_and_not_a_wrong_one(build):
    """Seeded: each diffprivlib sampler is CONSISTENT with its exact reference, and REJECTED against ε doubled."""
    case = build()
    result = case.run(max_draws=2000, power_replicates=0, alpha=Fraction(1, 1000))
    assert result.status is AuditStatus.CONSISTENT and result.mapping["library"].startswith("diffprivlib")
    reference = case.reference
    if isinstance(reference, QuantileMechanism):
        wrong = QuantileMechanism(quantile=reference.quantile, epsilon=2 * reference.epsilon, bounds=reference.bounds)
    elif isinstance(reference, PermuteAndFlip):
        wrong = PermuteAndFlip(reference.quality, epsilon=2 * reference.epsilon, outputs=reference.outputs)
    else:
        wrong = ExponentialMechanism(
            reference.quality, epsilon=2 * reference.epsilon, outputs=reference.outputs,
            base_measure=dict(zip(reference.outputs, reference.base_measure)),
        )
    fresh = build()
    against_wrong = audit_sampler(fresh.sampler, wrong, fresh.dataset, max_draws=2000, power_replicates=0, alpha=Fraction(1, 1000))
    assert against_wrong.rejected


def test_missing_library_raises_missing_dependency(monkeypatch):
    """Without the library, an adapter raises MissingDependency (an ImportError) naming the extra."""
    monkeypatch.setitem(sys.modules, "diffprivlib.mechanisms", None)
    with pytest.raises(MissingDependency, match=r"expmech\[adapters\]") as caught:
        adapters.diffprivlib_exponential(SCORES, epsilon=1.0, sensitivity=1)
    assert isinstance(caught.value, ImportError)


# -- OpenDP: conventions and privacy maps, deterministically ----------------------------------------


@pytest.mark.parametrize("monotonic", [False, True])
@pytest.mark.parametrize("measure", ["max_divergence", "zero_concentrated_divergence"])
def test_opendp_references_and_privacy_maps(measure, monotonic):
    """MaxDivergence is permute-and-flip and zCDP the exponential mechanism at ε = 1/scale; maps are not rounded down."""
    scale = 0.7
    neighbour = (3, 1, 4, 1, 5, 8, 2, 5) if monotonic else NEIGHBOUR
    case = adapters.opendp_noisy_max(SCORES, scale=scale, output_measure=measure, monotonic=monotonic, neighbour=neighbour)
    kind = PermuteAndFlip if measure == "max_divergence" else ExponentialMechanism
    assert type(case.reference) is kind and case.reference.epsilon == 1 / Fraction(scale)
    assert not any(f.violation for f in case.findings), case.findings
    assert "at or above" in case.findings[0].exact
    top = adapters.opendp_noisy_top_k(SCORES, k=3, scale=scale, output_measure=measure, monotonic=monotonic, neighbour=neighbour)
    assert type(top.reference) is (PermuteAndFlipTopK if measure == "max_divergence" else ExponentialTopK)
    assert top.reference.k == 3 and not any(f.violation for f in top.findings)


@pytest.mark.parametrize(
    "measure, monotonic, exact",
    [("max_divergence", False, "4"), ("max_divergence", True, "2"), ("zero_concentrated_divergence", False, "2"), ("zero_concentrated_divergence", True, "1/2")],
)
def test_opendp_exact_privacy_map_values(measure, monotonic, exact):
    """At scale 1/2 and d_in = 1 the exact map is range/scale (range 2 or 1), or (range/scale)²/8, and OpenDP agrees."""
    case = adapters.opendp_noisy_max(SCORES, scale=0.5, output_measure=measure, monotonic=monotonic)
    assert case.findings[0].exact.startswith(exact + ";")
    assert case.findings[0].library == f"map(d_in) = {float(Fraction(exact))!r}"
    top = adapters.opendp_noisy_top_k(SCORES, k=2, scale=0.5, output_measure=measure, monotonic=monotonic)
    assert top.findings[0].exact.startswith(str(2 * Fraction(exact)) + ";")


def test_opendp_negate_and_optimize_negate_the_scores():
    """negate=True and optimize='min' map to the negated score table."""
    case = adapters.opendp_noisy_max(SCORES, scale=1.0, negate=True)
    assert case.reference.scores(SCORES) == tuple(-s for s in SCORES)
    gumbel = adapters.opendp_report_noisy_max_gumbel(SCORES, scale=1.0, optimize="min")
    assert gumbel.reference.scores(SCORES) == tuple(-s for s in SCORES)
    assert adapters.opendp_report_noisy_max_gumbel(SCORES, scale=1.0).reference.scores(SCORES) == SCORES


def test_opendp_monotonic_with_a_pair_moving_both_ways_is_flagged():
    """monotonic=True halves the map; a pair moving both ways then has exact loss above the promised ε."""
    case = adapters.opendp_noisy_max(SCORES, scale=0.7, monotonic=True, neighbour=NEIGHBOUR)
    loss = case.findings[1]
    assert "NOT monotone" in loss.question and loss.violation


def test_opendp_rejects_bad_adapter_arguments():
    """A non-neighbouring pair, an unknown measure or optimize value is an InvalidArgument naming it."""
    from expmech.spec import InvalidArgument

    with pytest.raises(InvalidArgument, match="neighbour"):
        adapters.opendp_noisy_max(SCORES, scale=1.0, neighbour=(0,) * 8)
    with pytest.raises(InvalidArgument, match="output_measure"):
        adapters.opendp_noisy_max(SCORES, scale=1.0, output_measure="renyi")
    with pytest.raises(InvalidArgument, match="optimize"):
        adapters.opendp_report_noisy_max_gumbel(SCORES, scale=1.0, optimize="maximum")


def test_opendp_draws_are_outcomes():
    """A short run of every OpenDP case takes valid outcomes (no verdict asserted: OpenDP cannot be seeded)."""
    for case in adapters.opendp_cases():
        result = case.run(max_draws=20, privacy_draws=10, power_replicates=0, alpha=Fraction(1, 10**9))
        assert result.draws >= 1


# -- slow: OpenDP's sampling, and the README's library audit ----------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("index", range(5))
def test_opendp_samplers_match_their_exact_laws(index):
    """make_noisy_max (both measures, negated) and make_noisy_top_k (both): CONSISTENT at α = 10⁻⁶."""
    case = adapters.opendp_cases()[index]
    result = case.run(max_draws=20_000, power_replicates=0, alpha=Fraction(1, 10**6))
    assert result.status is AuditStatus.CONSISTENT


@pytest.mark.slow
def test_opendp_report_noisy_max_gumbel_samples_permute_and_flip():
    """OpenDP 0.16's deprecated make_report_noisy_max_gumbel samples exponential noise (permute-and-flip), not Gumbel."""
    for optimize in ("max", "min"):
        case = adapters.opendp_report_noisy_max_gumbel(SCORES, scale=1.0, optimize=optimize)
        against_gumbel = case.run(max_draws=20_000, power_replicates=0, alpha=Fraction(1, 10**6))
        assert against_gumbel.rejected
        permute = PermuteAndFlip(case.reference.quality, epsilon=case.reference.epsilon, outputs=case.reference.outputs)
        against_pf = audit_sampler(case.sampler, permute, SCORES, max_draws=20_000, power_replicates=0, alpha=Fraction(1, 10**6))
        assert against_pf.status is AuditStatus.CONSISTENT
