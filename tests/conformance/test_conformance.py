"""Spec against impl on concrete instances, and the dropped-hypothesis search."""

import json

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from expmech.proofs.cli import main
from expmech.proofs.conformance import Finding, check_statement, search_dropped_hypothesis
from expmech.proofs.conformance import FAMILIES
from expmech.spec import RULE_STATEMENTS, InvalidArgument, statement

CHEAP = ["mechanism", "density", "privacy", "accuracy-lemma", "accuracy", "predicate-query", "auctions", "posterior-sampling", "global-sensitivity"]


@pytest.mark.parametrize("statement_id", CHEAP)
@settings(max_examples=40, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow], deadline=None)
@given(rng=st.randoms(use_true_random=False))
def test_statement_holds_on_generated_instances(statement_id, rng):
    """On every instance satisfying all hypotheses, the conclusion holds exactly (impl agrees with spec)."""
    family = FAMILIES[statement_id]
    evaluation = family.evaluate(family.generate(rng))
    assume(all(evaluation.hypotheses.values()))
    assert evaluation.conclusion is True, evaluation.detail


@pytest.mark.parametrize("statement_id", sorted(FAMILIES))
def test_no_violation_under_stated_hypotheses(statement_id):
    """A seeded batch of instances finds no violation, and some instances satisfy every hypothesis."""
    report = check_statement(statement_id, instances=40, seed=1)
    assert report.holds, report.violations[:1]
    assert report.satisfying > 0


def test_accuracy_needs_q_nonnegative():
    """Without q >= 0 the accuracy theorem has a concrete counterexample, re-checked exactly."""
    result = search_dropped_hypothesis("accuracy", "q-nonnegative", attempts=2000, seed=0)
    assert result.finding is Finding.NEEDED
    instance = result.counterexample
    assert min(instance["scores"]) < 0
    evaluation = FAMILIES["accuracy"].evaluate(instance)
    assert evaluation.hypotheses["q-nonnegative"] is False
    assert all(v for k, v in evaluation.hypotheses.items() if k != "q-nonnegative")
    assert evaluation.conclusion is False
    assert statement("accuracy").hypothesis("q-nonnegative").in_source is False


@pytest.mark.parametrize(
    "statement_id, hypothesis_id",
    [("privacy", "sensitivity"), ("privacy", "neighbours"), ("accuracy-lemma", "mu-bar-le-1"), ("synthetic-size", "good-exists")],
)
def test_stated_hypotheses_are_needed(statement_id, hypothesis_id):
    """Dropping a hypothesis the argument uses gives a counterexample that violates only it."""
    result = search_dropped_hypothesis(statement_id, hypothesis_id, attempts=1500, seed=3)
    assert result.finding is Finding.NEEDED
    evaluation = FAMILIES[statement_id].evaluate(result.counterexample)
    assert not evaluation.hypotheses[hypothesis_id] and evaluation.conclusion is not True


def test_unneeded_hypothesis_is_reported_as_not_found():
    """Predicate queries keep GS <= 1/n under add-remove too: the search says so, without a counterexample."""
    result = search_dropped_hypothesis("predicate-query", "same-size", attempts=500, seed=0)
    assert result.finding is Finding.NOT_FOUND and result.counterexample is None and result.candidates > 0


def test_bad_arguments_are_refused():
    """Unknown statements and hypotheses, and non-positive counts, are refused by name."""
    with pytest.raises(InvalidArgument, match="statement_id='blr' has no finite instances"):
        check_statement("blr")
    with pytest.raises(InvalidArgument, match="no hypothesis 'x'"):
        search_dropped_hypothesis("privacy", "x")
    with pytest.raises(InvalidArgument, match="instances=0 must be an int >= 1"):
        check_statement("privacy", instances=0)


def test_spec_command_json(capsys):
    """`expmech spec --format json` lists every statement and exits 0 when all hold."""
    code = main(["spec", "--format", "json", "--instances", "6", "--attempts", "80"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    ids = [item["id"] for item in data["statements"]]
    assert ids[0] == "mechanism" and "synthetic-size" in ids and len(ids) == 14 + len(RULE_STATEMENTS)
    assert ids[14:] == [s.id for s in RULE_STATEMENTS] and "sensitivity-sum" in ids and "monotone-total" in ids
    accuracy = next(item for item in data["statements"] if item["id"] == "accuracy")
    assert accuracy["steps"]["verified"] == accuracy["steps"]["total"] > 0
    assert {h["id"] for h in accuracy["hypotheses"] if not h["in_source"]} >= {"q-nonnegative"}


def test_spec_command_usage_error(capsys):
    """A bad option exits 2."""
    assert main(["spec", "--instances", "0"]) == 2


@pytest.mark.slow
def test_spec_command_default_run_finds_the_accuracy_counterexample(capsys):
    """The default `expmech spec` run holds everywhere and shows q >= 0 needed for accuracy."""
    assert main(["spec"]) == 0
    out = capsys.readouterr().out
    assert "without q-nonnegative: needed — counterexample" in out
