"""Refutation completeness: generated wrong claims whose true Δq is known by construction are REFUTED.

The families need what a refutation has to build: datasets larger than the
small search (a claim ``c/n`` below a constant Δq, a product with ``size()``),
per-output spreads (means), and values approaching a supremum that is never
attained (a strict inequality on a rational field).  Every counterexample must
re-evaluate exactly above the claim, at its size; the share REFUTED must be at
least 95 %.  Comparisons of two aggregates in a Piecewise condition (first
wrong at 3–7 records) and infinite output spaces (the data seen only past a
threshold) are families too.
"""

from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, Phase, given, settings

from expmech.proofs import Status, prove_sensitivity
from expmech.spec import DATASET_SIZE
from strategies import wrong_claims

n = DATASET_SIZE


def _share(examples: int, seed: int) -> tuple[float, list]:
    outcomes = []

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(wrong_claims())
    def run(case):
        # the claim is wrong: somewhere it is below the truth
        assert any(case.claimed.subs(n, k) < case.truth.subs(n, k) for k in range(1, 40))
        result = prove_sensitivity(case.quality, neighbours=case.neighbours, claimed=case.claimed)
        assert result.status is not Status.PROVED, (case, result.reason)
        if result.status is Status.REFUTED:
            c = result.counterexample
            exact = abs(case.quality(list(c.dataset1), c.output) - case.quality(list(c.dataset2), c.output))
            assert exact == c.difference > Fraction(str(sympy.Rational(case.claimed.subs(n, c.size))))
            assert exact <= case.truth.subs(n, c.size)  # never above the truth either
        outcomes.append((case, result.status, result.reason))

    run()
    refuted = sum(1 for _, status, _ in outcomes if status is Status.REFUTED)
    return refuted / len(outcomes), [o for o in outcomes if o[1] is not Status.REFUTED]


def test_wrong_claims_are_refuted():
    """At least 95 % of generated wrong claims are REFUTED with a counterexample that really exceeds them."""
    share, missed = _share(60, 0)
    print(f"refutation completeness: {share:.1%} REFUTED; not refuted: {missed}")
    assert share >= 0.95, missed


@pytest.mark.slow
def test_wrong_claims_are_refuted_at_scale():
    """Slow tier: the same share over many more generated claims."""
    share, missed = _share(400, 1)
    print(f"refutation completeness: {share:.1%} REFUTED; not refuted: {missed}")
    assert share >= 0.95, missed


def test_the_share_can_fail(monkeypatch):
    """Mutation check: a prover whose refutation search stops at 3 records (the old defect), without the
    symbolic query in n, falls below 95 %."""
    from expmech.proofs.prover import _sensitivity

    original = _sensitivity.search_sizes

    def small(prover, sizes, threshold_at, **options):
        return original(prover, [s for s in sizes if s <= 3], threshold_at, **options)

    monkeypatch.setattr(_sensitivity, "search_sizes", small)
    monkeypatch.setattr(_sensitivity, "symbolic_pair", lambda *args, **options: None)  # and no query with n unknown
    share, _ = _share(30, 0)  # 30 derandomised examples: the mutant refutes 83 % of them (measured), far below 95 %
    print(f"mutant (search up to 3 records): {share:.1%} REFUTED")
    assert share < 0.95
