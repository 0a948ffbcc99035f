"""The prover's recorded derivations, checked by the kernel: every catalogue entry and generated quality functions.

Every PROVED sensitivity result carries a derivation (``SensitivityResult.derivation``,
JSON data); the kernel, which imports nothing of the prover, must accept
each one.  Results that are not PROVED carry none.
"""

from __future__ import annotations

import json

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import Status, check_derivation, prove_sensitivity
from expmech.spec import DATASET_SIZE, ExpMechError, IntRange, Neighbours, OutputSpace, QualityFunction, RecordSchema, size, total
from strategies import language_quality_functions, quality_functions

n = DATASET_SIZE
ENTRIES = [e for e in CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE if isinstance(e.quality, QualityFunction)]
OPTIONS = {"rlimit": 1_000_000, "search_budget": 20_000}
relations = st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE])
claims = st.one_of(st.none(), st.fractions(0, 3, max_denominator=4), st.sampled_from([1 / n, 2 / (n + 1)]))


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.name for e in ENTRIES])
def test_every_catalogue_derivation_is_accepted_by_the_kernel(entry):
    """Each catalogue entry's PROVED Δq carries a derivation the kernel accepts, after a JSON round trip, stating the claim."""
    result = prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    assert result.status is Status.PROVED and result.derivation is not None
    derivation = json.loads(json.dumps(result.derivation))
    verdict = check_derivation(entry.quality, entry.neighbours, derivation)
    assert verdict.accepted, verdict
    assert derivation["bound"] == check_bound_json(entry.claimed_sensitivity)


def check_bound_json(expr):
    from expmech.spec.internal import expression_to_json

    return expression_to_json(sympy.sympify(expr))


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
    assert check_derivation(q, "replace-one", plain.derivation).accepted
    loose = prove_sensitivity(q, neighbours="replace-one", claimed=5 / n)
    assert loose.derivation is not None and loose.derivation["root"]["rule"] == "weaken"
    assert check_derivation(q, "replace-one", loose.derivation).accepted


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
    verdict = check_derivation(q, relation, result.derivation)
    assert verdict.accepted, (q.expr, relation, claim, result.bound, verdict)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(quality_functions(), relations, claims)
def test_generated_quality_functions_derivations_are_accepted(q, relation, claim):
    """Every PROVED result on a generated quality function carries a derivation the kernel accepts."""
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
