"""The verifier's likelihood-ratio rule: the prover's derivations are accepted, wrong ones and a mutant prover's are
not, each held to the exact largest ratio over the finite domains (``brute_force.largest_ratio``)."""

import itertools
from fractions import Fraction

import pytest
import sympy

import brute_force
from checker_tools import in_verifier_terms, judge, rule_table, statement_for, text_at
from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE
from expmech.proofs import Status
from expmech.proofs.checker import RULES
from expmech.proofs.prover import _likelihood as prover_likelihood
from expmech.spec import Booleans, Grid, LogLikelihood, OutputSpace, RecordSchema, rule_statement, statement
from expmech.spec.internal import expression_to_json

SCHEMA = RecordSchema(x=Booleans())
OUTPUTS = OutputSpace(theta=Grid(tuple(Fraction(i, 10) for i in range(1, 10))))
X, THETA = SCHEMA["x"], OUTPUTS["theta"]
BERNOULLI = LogLikelihood(sympy.Piecewise((THETA, sympy.Eq(X, 1)), (1 - THETA, True)), schema=SCHEMA, outputs=OUTPUTS)


def _derivation(quality, rho, relation="replace-one", claim=None):
    start = 1 if relation == "replace-one" else 0
    text = text_at(statement_for(quality, relation), [])
    root = {"id": "p", "term": [], "text": text, "case": {"from": start}, "rule": "ratio-clipped", "bound": {"rational": str(rho)}, "data": {}, "premises": []}
    bound = expression_to_json(sympy.log(sympy.Rational(claim if claim is not None else rho)))
    return {"format": 1, "claim": "likelihood-ratio", "relation": relation, "start": start, "bound": bound, "root": root}


def _check(quality, relation, derivation, *, forge=True):
    return judge(statement_for(quality, relation), derivation, forge=forge)


def _true_ratio(quality, relation):
    """The exact largest ratio over the finite domains (the ground truth, from the spec's likelihood of a dataset)."""
    records, thetas = [False, True], [Fraction(i, 10) for i in range(1, 10)]
    values = {(x, t): quality.likelihood([x], t) for x in records for t in thetas}
    if relation == "add-remove":
        return max(max(v, 1 / v) for v in values.values())
    return max(values[a, t] / values[b, t] for a, b in itertools.product(records, repeat=2) for t in thetas)


def test_the_rule_is_in_the_table_with_its_statement():
    """ratio-clipped is the likelihood-ratio claim's one rule, in RULES, with a Statement of expmech.spec."""
    assert list(rule_table("likelihood-ratio")) == ["ratio-clipped"] and "ratio-clipped" in RULES
    assert statement(rule_statement("ratio-clipped").id).id == "ratio-clipped"


def test_the_catalogues_ratio_derivations_are_accepted():
    """Every posterior catalogue entry's PROVED ratio (with and without its claim) has a derivation the verifier accepts,
    its ln c at least the log of the exact largest ratio (over the θ of a finite grid; the ends and middle of an interval)."""
    for entry in POSTERIOR_CATALOGUE:
        for claimed in (None, entry.claimed_sensitivity):
            result = prover_likelihood.prove_likelihood_ratio(entry.quality, neighbours=entry.neighbours, claimed=claimed)
            assert result.status is Status.PROVED and result.derivation is not None
            assert result.derivation["bound"] == expression_to_json(result.proved_bound)
            data = statement_for(entry.quality, entry.neighbours, base_measure=entry.base_measure)
            assert judge(data, in_verifier_terms(result.derivation, data, entry.quality), forge=False).accepted, entry.name
            exact = brute_force.largest_ratio(entry.quality, entry.neighbours)
            assert exact is not None and sympy.log(exact) <= result.proved_bound, entry.name


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_hand_written_ratios_right_and_wrong(relation):
    """The exact ratio and any larger claim are accepted; a smaller ratio or a claim below it is rejected."""
    rho = _true_ratio(BERNOULLI, relation)
    assert rho == (9 if relation == "replace-one" else 10) == brute_force.largest_ratio(BERNOULLI, relation)
    assert _check(BERNOULLI, relation, _derivation(BERNOULLI, rho, relation), forge=False).accepted
    assert _check(BERNOULLI, relation, _derivation(BERNOULLI, rho, relation, claim=rho + 1), forge=False).accepted
    assert not _check(BERNOULLI, relation, _derivation(BERNOULLI, rho - Fraction(1, 2), relation)).accepted
    verdict = _check(BERNOULLI, relation, _derivation(BERNOULLI, rho, relation, claim=rho - 1))
    assert not verdict.accepted and "c >=" in verdict.reason, verdict


def test_a_vanishing_likelihood_and_mixed_kinds_are_rejected():
    """ℓ = 0 somewhere has no finite ratio; a sensitivity derivation of a LogLikelihood, or a ratio of a QualityFunction, is refused."""
    unclipped = LogLikelihood(sympy.Piecewise((THETA - sympy.Rational(1, 10), sympy.Eq(X, 1)), (1 - THETA, True)), schema=SCHEMA, outputs=OUTPUTS)
    assert brute_force.largest_ratio(unclipped, "replace-one") is None
    verdict = _check(unclipped, "replace-one", _derivation(unclipped, 10**6))
    assert not verdict.accepted and "> 0" in verdict.reason, verdict
    text = text_at(statement_for(BERNOULLI, "replace-one"), [])
    data_free = {"format": 1, "claim": "sensitivity", "relation": "replace-one", "start": 1, "bound": {"rational": "0"},
                 "root": {"id": "1", "term": [], "text": text, "case": {"from": 1}, "rule": "data-free", "bound": {"rational": "0"}, "data": {}, "premises": []}}
    assert "about a quality function" in _check(BERNOULLI, "replace-one", data_free).reason
    median = next(e for e in CATALOGUE if e.name == "median").quality
    verdict = _check(median, "replace-one", _derivation(BERNOULLI, 9))
    assert not verdict.accepted and "about a log-likelihood" in verdict.reason, verdict


def _forgets_reciprocal(prover, relation, rho):
    """A mutant query: under add-remove only ℓ > ρ is looked for, never 1/ℓ > ρ."""
    return [prover.ell["a"] > rho] if relation.value == "add-remove" else [prover.ell["a"] > rho * prover.ell["b"]]


def _ratio_without_reciprocal(quality, relation, a, b, theta):
    la = quality.record_likelihood_codes(a, theta)
    return la if relation.value == "add-remove" else la / quality.record_likelihood_codes(b, theta)


@pytest.mark.parametrize("mutant", ["reciprocal-forgotten", "candidate-trusted"])
def test_a_mutant_provers_false_ratio_is_rejected(mutant, monkeypatch):
    """The prover broken (1/ℓ forgotten under add-remove; the exact guess halved and never re-checked): its false PROVED
    ratio, below the exact one, is rejected by the verifier."""
    original = prover_likelihood._guess
    if mutant == "reciprocal-forgotten":
        monkeypatch.setattr(prover_likelihood, "_exceeds", _forgets_reciprocal)
        monkeypatch.setattr(prover_likelihood, "_ratio_at", _ratio_without_reciprocal)
        monkeypatch.setattr(prover_likelihood, "_guess", lambda quality, relation: (Fraction(1), original(quality, relation)[1]))
        relations = ["add-remove"]
    else:
        monkeypatch.setattr(prover_likelihood, "_guess", lambda quality, relation: (original(quality, relation)[0] / 2, original(quality, relation)[1]))
        monkeypatch.setattr(prover_likelihood, "_exceeds", lambda prover, relation, rho: [prover.ell["a"] != prover.ell["a"]])
        relations = ["replace-one", "add-remove"]
    for relation in relations:
        result = prover_likelihood.prove_likelihood_ratio(BERNOULLI, neighbours=relation)
        assert result.status is Status.PROVED and result.ratio < brute_force.largest_ratio(BERNOULLI, relation), (mutant, relation, result)
        data = statement_for(BERNOULLI, relation)
        assert not judge(data, in_verifier_terms(result.derivation, data, BERNOULLI)).accepted
