"""Every statement of the source is held, and its algebraic proof steps check — and only when right."""

import dataclasses

import pytest
import sympy

from expmech.spec import STATEMENTS, ProofStep, StepStatus, check_step, check_steps, statement

SOURCE_IDS = [
    "mechanism",
    "density",
    "privacy",
    "accuracy-lemma",
    "accuracy",
    "global-sensitivity",
    "predicate-query",
    "usefulness",
    "blr",
    "uniform-convergence",
    "synthetic-mechanism",
    "synthetic-size",
    "posterior-sampling",
    "auctions",
]

STEPS = [(s.id, i) for s in STATEMENTS for i in range(len(s.steps))]


def test_every_statement_of_the_source_is_present_once():
    """The ids are exactly those of STATEMENTS.md, in order, without repeats."""
    assert [s.id for s in STATEMENTS] == SOURCE_IDS


@pytest.mark.parametrize("statement_id", SOURCE_IDS)
def test_statement_records_its_source(statement_id):
    """Each statement names its lines in the source, quotes it, and states a conclusion."""
    s = statement(statement_id)
    first, last = s.source_lines
    assert 1 <= first <= last <= 100
    assert s.source_quote and s.conclusion_text
    assert s.instantiable or s.note


@pytest.mark.parametrize("statement_id, index", STEPS)
def test_proof_step_checks(statement_id, index):
    """Every algebraic step of the source's proofs is verified symbolically."""
    s = statement(statement_id)
    result = check_step(s.steps[index], s.steps)
    assert result.status is StepStatus.VERIFIED, result.reason


def _mutate(step: ProofStep) -> ProofStep:
    """A false version of the step: its larger side replaced by something below the smaller side."""
    claim = step.claim
    if step.rule == "identity":
        return dataclasses.replace(step, claim=sympy.Eq(claim.lhs, claim.rhs + 1, evaluate=False))
    upward = isinstance(claim, sympy.LessThan | sympy.StrictLessThan)
    small, large = (claim.lhs, claim.rhs) if upward else (claim.rhs, claim.lhs)
    if step.rule == "termwise-sum":
        weaker = large / 2
    else:
        weaker = small / 2 if step.log_scale else small - 1
    new = type(claim)(small, weaker, evaluate=False) if upward else type(claim)(weaker, small, evaluate=False)
    return dataclasses.replace(step, claim=new)


@pytest.mark.parametrize("statement_id, index", STEPS)
def test_a_wrong_step_fails(statement_id, index):
    """The checker has power: the same step with a wrong claim does not verify."""
    s = statement(statement_id)
    result = check_step(_mutate(s.steps[index]), s.steps)
    assert result.status is StepStatus.FAILED


def test_wrong_multiplier_fails():
    """A certificate with a negative multiplier is refused."""
    step = statement("privacy").steps[1]
    bad = dataclasses.replace(step, multipliers=(-step.multipliers[0],))
    assert check_step(bad).status is StepStatus.FAILED


def test_accuracy_marks_q_nonnegative_as_implicit():
    """The accuracy theorem carries q >= 0 as a hypothesis the source does not state."""
    hypothesis = statement("accuracy").hypothesis("q-nonnegative")
    assert hypothesis.in_source is False


def test_check_steps_covers_all_steps():
    """check_steps returns one result per step, in order."""
    s = statement("privacy")
    assert [c.step for c in check_steps(s)] == list(s.steps)


def test_unknown_statement_is_refused():
    """Asking for an unknown id names it and lists the known ones."""
    from expmech.spec import InvalidArgument

    with pytest.raises(InvalidArgument, match="statement_id='nope' is not one of: mechanism"):
        statement("nope")
