"""Piecewise branches no output takes: the prover leaves them out, the verifier confirms them unreachable itself.

A quality such as ``Max(r, Piecewise((r, Eq(r, r)), (mean(x), True)))`` is defined on the empty dataset (the mean's
branch is never taken), so under add-remove its sensitivity is proved from n = 0; a derivation holding the mean's node
from n = 0 is one the verifier must refuse (a mean is undefined there).  The piecewise node lists such branches in
``data["dead"]`` without a premise, and the verifier accepts that only when its side condition (the branch's condition,
the earlier ones false, and the enclosing Piecewise branches taken) has no model over the outputs.  Generated qualities
put means, counts, totals and sizes in dead branches, nested too, under both relations; each accepted bound is held
to the exact brute force (``brute_force``), and a live branch marked dead is refused.
"""

from __future__ import annotations

import copy
import json
from fractions import Fraction
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brute_force
from checker_tools import in_verifier_terms, judge, statement_for, text_at
from expmech.proofs import CheckOutcome, Status, certify, prove_sensitivity
from expmech.proofs.checker import verify
from expmech.spec import Booleans, Grid, IntRange, Neighbours, OutputSpace, QualityFunction, RecordSchema, count, mean, size, total

SCHEMA = RecordSchema(x=IntRange(-3, 3))
x = SCHEMA["x"]
DOMAINS = [IntRange(-2, 3), Grid((Fraction(-1, 2), Fraction(0), Fraction(1, 3), Fraction(2))), Booleans()]
OPTIONS = {"search_budget": 2000}


def _ends(domain: Any) -> tuple[sympy.Rational, sympy.Rational]:
    if isinstance(domain, Grid):
        points = [Fraction(p) for p in domain.points]
        lo, hi = min(points), max(points)
    elif isinstance(domain, Booleans):
        lo, hi = Fraction(0), Fraction(1)
    else:
        lo, hi = (Fraction(v) for v in domain.bounds())
    return sympy.Rational(lo.numerator, lo.denominator), sympy.Rational(hi.numerator, hi.denominator)


def _piecewise(*pairs: tuple[Any, Any]) -> sympy.Piecewise:
    return sympy.Piecewise(*pairs, evaluate=False)


@st.composite
def dead_branch_qualities(draw: st.DrawFn) -> QualityFunction:
    """A quality with a Piecewise branch (or a nested one) no output takes, holding a data-dependent term."""
    domain = draw(st.sampled_from(DOMAINS))
    outputs = OutputSpace(r=domain)
    r = outputs["r"]
    lo, hi = _ends(domain)
    dead_term = draw(st.sampled_from([mean(x), 3 * mean(x) - r, count(x >= 1), total(x), size(), 1 / size(), mean(x) / size(), 2 * count(x > 0) + mean(x)]))
    live_term = draw(st.sampled_from([r, 2 * r - 1, count(x >= 0), sympy.Abs(total(x) - r), size() * 0 + r]))
    always = draw(st.sampled_from([sympy.Eq(r, r, evaluate=False), r >= lo, r <= hi, sympy.Ne(r, hi + 1, evaluate=False)]))
    never = draw(st.sampled_from([sympy.Ne(r, r, evaluate=False), r > hi, r < lo, sympy.Eq(r, hi + 1, evaluate=False)]))
    shape = draw(st.integers(0, 3))
    if shape == 0:  # the dead branch after a condition that always holds
        body = _piecewise((live_term, always), (dead_term, True))
    elif shape == 1:  # a first branch whose condition never holds
        body = _piecewise((dead_term, never), (live_term, True))
    elif shape == 2:  # dead only inside the enclosing branch: r <= lo there, and the inner branch needs r > lo
        inner = _piecewise((dead_term, r > lo), (live_term, True))
        body = _piecewise((inner, r <= lo), (live_term, True))
    else:  # a dead Piecewise nested in a dead branch
        body = _piecewise((live_term, always), (_piecewise((dead_term, r > lo), (r, True)), True))
    expr = draw(st.sampled_from([body, sympy.Max(r, body, evaluate=False), body + count(x >= 2)]))
    return QualityFunction(expr, schema=SCHEMA, outputs=outputs, name="dead-branch")


def _piecewise_nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    found = [node] if node["rule"] == "piecewise" else []
    for premise in node["premises"]:
        found += _piecewise_nodes(premise)
    return found


def _live_marked_dead(derivation: dict[str, Any]) -> list[dict[str, Any]]:
    """Every mutant that lists one live branch of one piecewise node as dead (its premise dropped)."""
    mutants = []
    for k, _ in enumerate(_piecewise_nodes(derivation["root"])):
        size_of = len(_piecewise_nodes(derivation["root"])[k]["premises"])
        for j in range(size_of):
            mutant = copy.deepcopy(derivation)
            node = _piecewise_nodes(mutant["root"])[k]
            premise = node["premises"].pop(j)
            branch = premise["term"][-2]
            node["data"] = {"dead": sorted(set(node["data"].get("dead", [])) | {branch})}
            mutants.append(mutant)
    return mutants


def _proved(quality: QualityFunction, relation: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """(statement, the prover's PROVED derivation in the verifier's terms after a JSON round trip)."""
    result = prove_sensitivity(quality, neighbours=relation, **OPTIONS)
    assert result.status is Status.PROVED and result.derivation is not None, (quality.expr, relation, result.reason)
    data = statement_for(quality, relation)
    return data, in_verifier_terms(json.loads(json.dumps(result.derivation)), data, quality)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dead_branch_qualities(), st.sampled_from(list(Neighbours)))
def test_a_proved_derivation_with_dead_branches_is_accepted_and_a_live_branch_marked_dead_is_not(quality, relation):
    """The prover proves these (the dead branch's term never counts), the verifier accepts its derivation, the brute force
    agrees with its bound, and every mutant marking a live branch dead is refused at its piecewise node."""
    data, derivation = _proved(quality, relation)
    verdict = judge(data, derivation, forge=False)
    assert verdict.accepted, (quality.expr, relation, verdict)
    assert brute_force.sensitivity_violation(quality, relation, derivation["bound"], derivation["start"]) is None
    pieces = _piecewise_nodes(derivation["root"])
    # (a Piecewise whose only data is size() may be proved whole by size-only, with no piecewise node)
    assert not pieces or any(node["data"].get("dead") for node in pieces), derivation
    mutants = _live_marked_dead(derivation)
    assert mutants or not pieces
    for mutant in mutants:
        wrong = judge(data, mutant)
        assert not wrong.accepted and "branch" in wrong.reason, (quality.expr, relation, wrong)


def _quality_of_the_report() -> QualityFunction:
    outputs = OutputSpace(r0=IntRange(-2, 3))
    r = outputs["r0"]
    expr = sympy.Max(r, _piecewise((r, sympy.Eq(r, r, evaluate=False)), (mean(x), True)), evaluate=False)
    return QualityFunction(expr, schema=SCHEMA, outputs=outputs, name="generated")


@pytest.mark.parametrize("relation", list(Neighbours))
def test_the_reported_quality_is_proved_and_its_derivation_accepted(relation):
    """Max(r0, Piecewise((r0, Eq(r0, r0)), (Mean(x), True))): Δ = 0 (the mean is never evaluated), accepted from n = 0
    under add-remove, where the brute force finds q defined on the empty dataset."""
    quality = _quality_of_the_report()
    result = prove_sensitivity(quality, neighbours=relation, **OPTIONS)
    assert result.status is Status.PROVED and result.proved_bound == 0
    data, derivation = _proved(quality, relation)
    assert judge(data, derivation, forge=False).accepted
    assert derivation["start"] == (0 if relation is Neighbours.ADD_REMOVE else 1)
    assert brute_force.defined_on_empty(quality) and brute_force.largest_changes(quality, relation) == dict.fromkeys(range(0 if relation is Neighbours.ADD_REMOVE else 1, 3), 0)


def test_a_dead_mark_is_checked_in_its_enclosing_branch_only():
    """Piecewise((Piecewise((mean, r > 0), (count, True)), r < 0), (0, True)): the mean's branch is dead where the inner
    Piecewise is reached (r < 0), accepted; the same mark on a Piecewise reached at r > 1 is refused."""
    outputs = OutputSpace(r=IntRange(-2, 3))
    r = outputs["r"]
    inner = _piecewise((mean(x), r > 0), (count(x >= 1), True))
    for outer, accepted in ((r < 0, True), (r > 1, False)):
        quality = QualityFunction(_piecewise((inner, outer), (sympy.Integer(0), True)), schema=SCHEMA, outputs=outputs)
        data = statement_for(quality, "add-remove")
        count_node = {"id": "c", "term": [0, 0, 1, 0], "text": text_at(data, [0, 0, 1, 0]), "case": {"from": 0}, "rule": "linear",
                      "bound": {"rational": "1"}, "data": {"plain": "1", "mean": "0"}, "premises": []}
        inner_node = {"id": "i", "term": [0, 0], "text": text_at(data, [0, 0]), "case": {"from": 0}, "rule": "piecewise",
                      "bound": {"rational": "1"}, "data": {"dead": [0]}, "premises": [count_node]}
        zero = {"id": "z", "term": [1, 0], "text": "0", "case": {"from": 0}, "rule": "data-free", "bound": {"rational": "0"}, "data": {}, "premises": []}
        root = {"id": "p", "term": [], "text": text_at(data, []), "case": {"from": 0}, "rule": "piecewise", "bound": {"rational": "1"},
                "data": {}, "premises": [inner_node, zero]}
        derivation = {"format": 1, "claim": "sensitivity", "relation": "add-remove", "start": 0, "bound": {"rational": "1"}, "root": root}
        verdict = judge(data, derivation, forge=not accepted)
        assert verdict.accepted is accepted, verdict
        if not accepted:
            assert verdict.node == "i" and "branch 0" in verdict.reason, verdict
            assert not brute_force.defined_on_empty(quality)  # the mean is reached at r > 1: the claim from n = 0 is not the rule's


@pytest.mark.parametrize("dead", [[1, 0], [0, 0], [5], ["0"], [True], "0", [-1]])
def test_a_malformed_dead_list_is_refused(dead):
    """data['dead'] must be increasing branch indices: anything else is refused at the node, never raised."""
    quality = _quality_of_the_report()
    data, derivation = _proved(quality, Neighbours.REPLACE_ONE)
    node = _piecewise_nodes(derivation["root"])[0]
    node["data"] = {"dead": dead}
    verdict = judge(data, derivation)
    assert not verdict.accepted and verdict.node == node["id"], verdict


@pytest.mark.parametrize("relation", list(Neighbours))
def test_a_certificate_with_a_dead_branch_checks(relation):
    """End to end: the certificate of the reported quality carries the dead mark (the schema admits it) and the verifier
    certifies it (before the old kernel's fix, check called this valid certificate INVALID under add-remove)."""
    certificate = certify(_quality_of_the_report(), epsilon=1, neighbours=relation)
    assert '"dead": [1]' in json.dumps(certificate.data)
    report = verify(certificate.data)
    assert report.outcome is CheckOutcome.CERTIFIES_DP, report.problems
