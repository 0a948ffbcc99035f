"""The kernel rules' soundness arguments: every step verified by sympy, and a weakened argument refused."""

import pytest
import sympy

from expmech.spec import RULE_STATEMENTS, STATEMENTS, DATASET_SIZE, InvalidArgument, ProofStep, StepStatus, check_step, check_steps, rule_statement, statement

SENSITIVITY_RULES = ("data-free", "linear", "size-only", "sum", "scale", "abs", "max-min", "piecewise", "joint", "weaken")
COMBINATIONS = [(s.id, index) for s in RULE_STATEMENTS for index, step in enumerate(s.steps) if step.rule == "combination"]


@pytest.mark.parametrize("item", RULE_STATEMENTS, ids=lambda s: s.id)
def test_every_step_of_every_rule_verifies(item):
    """Each rule's argument has steps, and sympy verifies every one of them."""
    checks = check_steps(item)
    assert checks and all(c.status is StepStatus.VERIFIED for c in checks), [c.reason for c in checks]


def test_one_statement_per_sensitivity_rule_of_the_kernel_table():
    """Every sensitivity rule name of the kernel's table has its statement, found by rule name and by id."""
    for name in SENSITIVITY_RULES:
        item = rule_statement(name)
        assert item.id == f"sensitivity-{name}" and statement(item.id) is item and item.kind == "rule"
    assert rule_statement("monotone-total").id == "monotone-total"
    ids = [s.id for s in RULE_STATEMENTS]
    assert len(ids) == len(set(ids)) and not set(ids) & {s.id for s in STATEMENTS}
    assert all(s.source_lines == (0, 0) and s.note.startswith("Not in the source") for s in RULE_STATEMENTS)


def test_an_unknown_rule_is_refused_by_name():
    """rule_statement names the parameter and the known rules."""
    with pytest.raises(InvalidArgument, match=r"rule='nope' is not one of: data-free, linear"):
        rule_statement("nope")


@pytest.mark.parametrize(("statement_id", "index"), COMBINATIONS)
def test_a_claim_tightened_by_a_positive_amount_is_refused(statement_id, index):
    """Each inequality step is tight enough to matter: its claim made stronger by δ > 0 fails."""
    step = statement(statement_id).steps[index]
    delta = sympy.Symbol("delta", positive=True)
    claim = step.claim
    stronger = claim.func(claim.lhs + delta, claim.rhs, evaluate=False) if isinstance(claim, sympy.LessThan) else claim.func(claim.lhs, claim.rhs + delta, evaluate=False)
    assert check_step(ProofStep(step.text, stronger, step.rule, step.premises, step.multipliers)).status is StepStatus.FAILED


def test_the_empty_dataset_is_a_step_not_an_assumption():
    """No rule statement uses a positive n: n >= 1 is written n = m + 1, and the n = 0 changes are steps of their own."""
    for item in RULE_STATEMENTS:
        for step in item.steps:
            for symbol in step.claim.free_symbols:
                if symbol.name == "n":
                    assert symbol == DATASET_SIZE and symbol.is_positive is None
    linear = rule_statement("linear")
    assert any("n = 0" in step.text for step in linear.steps)
    assert any("n = 0" in step.text for step in rule_statement("size-only").steps)


def test_the_mean_step_fails_with_the_replace_one_factor_under_add_remove():
    """The add-remove mean moves by Δ_S/(n + 1): the replace-one form Δ_S/(n + 2) at n = m + 1 is refused."""
    step = next(s for s in rule_statement("linear").steps if s.text.startswith("the mean lies"))
    m = next(s for s in step.claim.free_symbols if s.name == "m")
    wrong = sympy.Le(step.claim.lhs, step.claim.rhs * (m + 2) / (m + 3), evaluate=False)
    assert check_step(ProofStep(step.text, wrong, step.rule, step.premises, step.multipliers)).status is StepStatus.FAILED
