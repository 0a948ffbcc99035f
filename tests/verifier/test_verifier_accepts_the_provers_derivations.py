"""The prover's recorded derivations, checked by the verifier: every catalogue entry and generated quality functions.

Every PROVED sensitivity result carries a derivation (``SensitivityResult.derivation``, JSON data); written in the
verifier's terms as the certifier writes it, the verifier — which imports nothing of the prover — must accept each
one, every side condition discharged from the certifier's own proof of it.  And each accepted bound is held to an
exact brute force over every neighbouring pair of at most two records (``brute_force``), which no code of the
verifier or the prover evaluates.  Results that are not PROVED carry none.
"""

from __future__ import annotations

import json

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brute_force
from checker_tools import in_verifier_terms, judge, statement_for
from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import Status, prove_sensitivity
from expmech.spec import DATASET_SIZE, ExpMechError, IntRange, Neighbours, OutputSpace, QualityFunction, RecordSchema, size, total
from expmech.spec.internal import expression_to_json
from strategies import GENERATED_PROVER_OPTIONS, language_quality_functions, quality_functions

n = DATASET_SIZE
ENTRIES = [e for e in CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE if isinstance(e.quality, QualityFunction)]
OPTIONS = GENERATED_PROVER_OPTIONS
BRUTE_FORCE_LIMIT = 200_000
relations = st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE])
claims = st.one_of(st.none(), st.fractions(0, 3, max_denominator=4), st.sampled_from([1 / n, 2 / (n + 1)]))


def statement_of(q: QualityFunction, relation: Neighbours, base_measure=None) -> dict:
    """The statement of ``q`` over its output space, or over the outputs the brute force tries when that is not a range."""
    try:
        return statement_for(q, relation, base_measure=base_measure)
    except ExpMechError:
        return statement_for(q, relation, outputs=brute_force.output_values(q))


def verified(q: QualityFunction, relation: Neighbours, derivation: dict, base_measure=None) -> dict:
    """Assert the verifier accepts the prover's ``derivation`` and the brute force finds no pair above its bound;
    the derivation in the verifier's terms."""
    data = statement_of(q, relation, base_measure)
    written = in_verifier_terms(json.loads(json.dumps(derivation)), data, q)
    verdict = judge(data, written, forge=False)
    assert verdict.accepted, (q.expr, relation, verdict)
    if brute_force.evaluations(q) <= BRUTE_FORCE_LIMIT:
        violation = brute_force.sensitivity_violation(q, relation, written["bound"], written["start"])
        assert violation is None, (q.expr, relation, written["bound"], violation)
    return written


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_every_catalogue_derivation_is_accepted_by_the_verifier(entry):
    """Each catalogue entry's PROVED Δq carries a derivation the verifier accepts, after a JSON round trip, stating the
    claim, which the brute force confirms."""
    result = prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    assert result.status is Status.PROVED and result.derivation is not None
    written = verified(entry.quality, entry.neighbours, result.derivation, entry.base_measure)
    assert written["bound"] == expression_to_json(sympy.sympify(entry.claimed_sensitivity))


def test_the_catalogue_is_not_empty():
    """The parametrised test above has entries of both relations to check."""
    assert len(ENTRIES) >= 10 and {e.neighbours for e in ENTRIES} == set(Neighbours)


@pytest.mark.parametrize("entry", WRONG_CATALOGUE, ids=[e.name for e in WRONG_CATALOGUE])
def test_a_result_that_is_not_proved_has_no_derivation(entry):
    """A refuted claim carries no derivation."""
    result = prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **OPTIONS)
    assert result.status is not Status.PROVED and result.derivation is None


def test_a_derivation_without_a_claim_states_the_proved_bound():
    """Without a claim the derivation's bound is the proved bound; a looser claim is a weaken node at the root."""
    schema, outputs = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
    q = QualityFunction(total(schema["x"]) / size(), schema=schema, outputs=outputs)
    plain = prove_sensitivity(q, neighbours="replace-one")
    assert plain.derivation is not None and plain.derivation["root"]["rule"] == "linear"
    assert verified(q, Neighbours.REPLACE_ONE, plain.derivation)["bound"] == expression_to_json(3 / n)
    loose = prove_sensitivity(q, neighbours="replace-one", claimed=5 / n)
    assert loose.derivation is not None and loose.derivation["root"]["rule"] == "weaken"
    assert verified(q, Neighbours.REPLACE_ONE, loose.derivation)["bound"] == expression_to_json(5 / n)


def test_an_unbounded_factor_times_a_size_power_is_not_proved():
    """total(x)/size()**2 with x unbounded: the lifted bound is unbounded (before the fix: PROVED oo/n**2, with no derivation)."""
    schema, outputs = RecordSchema(x=IntRange(-2, None)), OutputSpace(r=IntRange(0, 2))
    q = QualityFunction(total(schema["x"]) / size() ** 2, schema=schema, outputs=outputs)
    result = prove_sensitivity(q, neighbours="replace-one", **OPTIONS)
    assert result.status is not Status.PROVED and result.derivation is None


def _proved_and_accepted(q, relation, claim):
    try:
        result = prove_sensitivity(q, neighbours=relation, claimed=claim, **OPTIONS)
    except ExpMechError:
        return
    if result.status is not Status.PROVED:
        assert result.derivation is None
        return
    assert result.derivation is not None, (q.expr, relation, claim, result.bound)
    verified(q, relation, result.derivation)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(quality_functions(), relations, claims)
def test_generated_quality_functions_derivations_are_accepted(q, relation, claim):
    """Every PROVED result on a generated quality function carries a derivation the verifier accepts, and the brute force agrees."""
    _proved_and_accepted(q, relation, claim)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(language_quality_functions(), relations, claims)
def test_generated_language_expressions_derivations_are_accepted(q, relation, claim):
    """The same over every construct and domain of the language (constants past 2**61 included)."""
    _proved_and_accepted(q, relation, claim)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(quality_functions(), language_quality_functions()), relations, claims)
def test_slow_generated_derivations_are_accepted(q, relation, claim):
    """Slow tier: many more generated quality functions."""
    _proved_and_accepted(q, relation, claim)


def test_the_brute_force_finds_a_bound_below_the_change():
    """The brute force itself can fail: the median's Δq = 1 is found (1/2 is violated at n = 2), and 6/(size() + 1) under
    add-remove changes by 3 between ∅ and one record, which a bound from n = 1 does not excuse."""
    from expmech.spec import count

    schema, outputs = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
    median = QualityFunction(-sympy.Abs(count(schema["x"] <= outputs["r"]) - size() / 2), schema=schema, outputs=outputs)
    assert brute_force.sensitivity_violation(median, "replace-one", expression_to_json(sympy.Integer(1)), 1) is None
    assert "n = 2" in brute_force.sensitivity_violation(median, "replace-one", expression_to_json(sympy.Rational(1, 2)), 1)
    shrinking = QualityFunction(6 / (size() + 1), schema=schema, outputs=outputs)
    assert brute_force.largest_changes(shrinking, "add-remove")[0] == 3
    assert "n = 0" in brute_force.sensitivity_violation(shrinking, "add-remove", expression_to_json(sympy.Integer(1)), 1)
