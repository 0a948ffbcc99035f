"""The verifier never accepts a sensitivity bound that is false, whatever derivation claims it.

Two generated classes, each side condition discharged from the best proof a certificate could record (the
certifier's, or a forged solver call):

* ``wrong_claims`` — a quality whose true Δq is known by construction and a claim below it for some n: every
  derivation of the claim a forger could write from the honest one (the honest root re-bounded, a ``weaken`` over
  it, a ``joint`` root with the prover's own ranges, a ``linear`` root with its data matched to the claim) is rejected;
* mutants of the prover's derivations of generated quality functions (``derivation_mutants``: bounds, rules,
  positions, texts, cases, data, premises, the envelope): a mutant the verifier accepts must hold on the exact brute
  force (``brute_force``) over every neighbouring pair of at most two records.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brute_force
from checker_tools import in_verifier_terms, judge, rule_kinds, statement_for, text_at
from derivation_mutants import derivation_mutants
from expmech.proofs import Status, prove_sensitivity
from expmech.proofs.checker import Malformed, read_statement
from expmech.spec import DATASET_SIZE, ExpMechError, Neighbours, Total
from expmech.spec.internal import expression_to_json
from strategies import GENERATED_PROVER_OPTIONS, language_quality_functions, quality_functions, wrong_claims

OPTIONS = GENERATED_PROVER_OPTIONS
KIND_OF = rule_kinds()
relations = st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE])


def _statement(q: Any, relation: Neighbours) -> dict[str, Any]:
    """The statement of ``q`` over its output space, or over the outputs the brute force tries where that is not a range
    the verifier reads (several variables; an IntRange open at one end: see test_an_integer_range_open_at_one_end_is_read)."""
    try:
        data = statement_for(q, relation)
        read_statement(data, max_nodes=10**6, max_outputs=10**6)
        return data
    except (ExpMechError, Malformed):
        return statement_for(q, relation, outputs=brute_force.output_values(q))


def _ranges(q: Any, relation: Neighbours, data: dict[str, Any]) -> dict[str, list[str]]:
    """Each total's per-record range (a joint root's ``data["ranges"]``, keyed by the verifier's text): the prover's proved
    range where it finds one (tight, so a rejection comes from the encoding, not the range), else the exact range over the
    records and outputs tried."""
    from expmech.proofs.certificate.make._finalise import _quality, _totals
    from expmech.proofs.prover._rules import Prover
    from expmech.proofs.prover._sensitivity import _joint_ranges

    texts = _totals(q, _quality(data["predicate"]))
    found = {texts.get(key, key): value for key, value in _joint_ranges(Prover(q, relation, OPTIONS["rlimit"], 10_000), q.expr).items()}
    for node in q.expr.atoms(Total):
        body = type(q)(node, schema=q.schema, outputs=q.output_space)  # the total of one record is its term
        values = [v for row in brute_force.records(q) for r in brute_force.outputs(q) if (v := brute_force.value(body, [row], r)) is not None]
        if values and texts.get(str(node)) not in found:
            found[texts[str(node)]] = [str(min(values)), str(max(values))]
    return found


def _linear_data(claimed: Any, relation: Neighbours) -> dict[str, str] | None:
    """The linear rule's ``data`` whose bound is the claim: ``c`` as the per-record part, or ``k/n`` (``k/(n + 1)``) as a mean's."""
    if not claimed.free_symbols:
        return {"plain": str(sympy.Rational(claimed)), "mean": "0"} if claimed.is_Rational else None
    spread = sympy.simplify(claimed * (DATASET_SIZE if relation is Neighbours.REPLACE_ONE else DATASET_SIZE + 1))
    return {"plain": "0", "mean": str(spread)} if spread.is_Rational else None


def _claiming(data: dict[str, Any], honest: dict[str, Any] | None, bound: Any, start: int, ranges: dict[str, list[str]],
              linear: dict[str, str] | None) -> list[tuple[str, dict[str, Any]]]:
    """Derivations a forger could write of ``bound`` (a JSON tree) for the statement's quality."""
    def root(rule: str, premises: list[Any] = (), data_: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"id": "forged", "term": [], "text": text_at(data, []), "case": {"from": start}, "rule": rule, "bound": bound, "data": data_ or {},
                "premises": list(premises)}

    def envelope(node: dict[str, Any]) -> dict[str, Any]:
        return {"format": 1, "claim": "sensitivity", "relation": data["predicate"]["mechanism"]["neighbours"], "start": start, "bound": bound, "root": node}

    found = [("joint", envelope(root("joint", data_={"ranges": ranges})))]
    if linear is not None:  # the linear rule with its data matched to the claim: only its side conditions can refuse it
        found.append(("linear", envelope(root("linear", data_=linear))))
    if honest is not None:
        rebounded = copy.deepcopy(honest)
        rebounded["bound"] = rebounded["root"]["bound"] = bound
        found += [("honest-rebounded", rebounded), ("weaken", envelope(root("weaken", [copy.deepcopy(honest["root"])])))]
    return found


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(wrong_claims())
def test_no_derivation_of_a_wrong_claim_is_accepted(case):
    """A claim below the true Δq (known by construction) is rejected however it is derived from the honest proof."""
    q, relation = case.quality, case.neighbours
    data = _statement(q, relation)
    try:
        result = prove_sensitivity(q, neighbours=relation, **OPTIONS)
    except ExpMechError:
        result = None
    honest = in_verifier_terms(result.derivation, data, q) if result is not None and result.status is Status.PROVED else None
    start = honest["start"] if honest is not None else 0 if relation is Neighbours.ADD_REMOVE and brute_force.defined_on_empty(q) else 1
    for label, derivation in _claiming(data, honest, expression_to_json(case.claimed), start, _ranges(q, relation, data), _linear_data(case.claimed, relation)):
        verdict = judge(data, derivation)
        assert not verdict.accepted, (case, label)


def _mutants_hold(q: Any, relation: Neighbours, claim: Any, picks: Any) -> None:
    try:
        result = prove_sensitivity(q, neighbours=relation, claimed=claim, **OPTIONS)
    except ExpMechError:
        return
    if result.status is not Status.PROVED:
        return
    data = _statement(q, relation)
    honest = in_verifier_terms(result.derivation, data, q)
    mutants = list(derivation_mutants(honest, KIND_OF))
    for index in picks(len(mutants)):
        label, mutant = mutants[index]
        if judge(data, mutant).accepted:
            violation = brute_force.sensitivity_violation(q, relation, mutant["bound"], mutant["start"])
            assert violation is None, (q.expr, relation, label, violation)


def _picker(data: st.DataObject, count: int) -> Any:
    return lambda total: sorted(set(data.draw(st.lists(st.integers(0, total - 1), max_size=count), label="mutants"))) if total else []


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(quality_functions(), relations, st.data())
def test_an_accepted_mutant_of_a_proved_derivation_holds_on_the_brute_force(q, relation, data):
    """Mutants of the prover's derivations of generated quality functions: any the verifier accepts states a true bound."""
    _mutants_hold(q, relation, None, _picker(data, 8))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(quality_functions(), language_quality_functions()), relations, st.sampled_from([None, Fraction(3)]), st.data())
def test_slow_every_accepted_mutant_holds_on_the_brute_force(q, relation, claim, data):
    """Slow tier: more generated quality functions, every mutant of each derivation."""
    _mutants_hold(q, relation, claim, lambda total: range(total))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(wrong_claims())
def test_slow_no_derivation_of_a_wrong_claim_is_accepted(case):
    """Slow tier: many more wrong claims."""
    test_no_derivation_of_a_wrong_claim_is_accepted.hypothesis.inner_test(case)


def test_an_integer_range_open_at_one_end_is_read():
    """A quality over r in IntRange(-5, None) (its range the whole output space) is certified, and the verifier reads it."""
    import sympy

    from expmech.proofs import certify
    from expmech.proofs.checker import verify
    from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, total

    schema, outputs = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(-5, None))
    q = QualityFunction(-outputs["r"] + total(sympy.Piecewise((schema["x"], outputs["r"] >= 5), (0, True))), schema=schema, outputs=outputs)
    read_statement(statement_for(q, "replace-one"), max_nodes=1000, max_outputs=1000)
    assert verify(certify(q, epsilon=1, neighbours="replace-one").data).ok
