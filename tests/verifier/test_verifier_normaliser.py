"""The verifier's normaliser rule: the prover's derivations are accepted, wrong ones and a mutant prover's are not.

Each translate the verifier accepts is held to a brute force with the spec's evaluator: ``q(D, r) = h(r − f(D))``
on every dataset of at most two records and a window of outputs, with f an integer on ℤ (the statement the rule
rests on); and each false one is shown false by the exact normalisers of ``expmech.impl``'s mechanism.
"""

import itertools
import json
from fractions import Fraction

import pytest
import sympy

import brute_force
from checker_tools import in_verifier_terms, judge, rule_table, statement_for, text_at
from expmech.impl import CATALOGUE, RANGE_CATALOGUE, ExponentialMechanism
from expmech.proofs import Status
from expmech.proofs.checker import RULES
from expmech.proofs.prover import _continuous as prover_continuous
from expmech.spec import (
    Counting,
    Geometric,
    IntRange,
    Lebesgue,
    OutputSpace,
    QualityFunction,
    RationalRange,
    RecordSchema,
    count,
    mean,
    rule_statement,
    statement,
    total,
)
from expmech.spec.internal import expression_to_json

INTEGERS, REALS = IntRange(None, None), RationalRange(None, None)


def _derivation(data, shift, profile, line, bound=0, relation="replace-one"):
    zero = expression_to_json(sympy.Integer(bound))
    start = 1 if relation == "replace-one" else 0
    fields = {"shift": json.dumps(expression_to_json(shift)), "profile": json.dumps(expression_to_json(profile)), "line": line}
    root = {"id": "z", "term": [], "text": text_at(data, []), "case": {"from": start}, "rule": "normaliser-translate", "bound": zero, "data": fields, "premises": []}
    return {"format": 1, "claim": "normaliser", "relation": relation, "start": start, "bound": zero, "root": root}


def _check(q, shift, profile, line, bound=0, relation="replace-one", base_measure=None, *, forge=True):
    data = statement_for(q, relation, base_measure=base_measure)
    return judge(data, _derivation(data, shift, profile, line, bound, relation), forge=forge)


def _translate_holds(q, shift, profile, line):
    """Brute force: q(D, r) = h(r − f(D)) wherever q is defined, on every dataset of <= 2 records and r in a window,
    and f(D) an integer on ℤ."""
    (_, r, _), = q.output_space.items()
    f = QualityFunction(shift, schema=q.schema, outputs=q.output_space)
    moved = QualityFunction(profile.subs(r, r - shift), schema=q.schema, outputs=q.output_space)
    window = [Fraction(k, 1 if line == "integers" else 3) for k in range(-9, 10)]
    rows = brute_force.records(q)
    for size in range(3):
        for chosen in itertools.combinations_with_replacement(rows, size):
            data = list(chosen)
            for k in window:
                value = brute_force.value(q, data, {r: k})
                if value is None:
                    continue
                at = brute_force.value(f, data, {r: k})
                if at is None or (line == "integers" and at.denominator != 1) or brute_force.value(moved, data, {r: k}) != value:
                    return False
    return True


def test_the_rule_is_in_the_table_with_its_statement():
    """normaliser-translate is the normaliser claim's one rule, in RULES, with a Statement of expmech.spec."""
    assert list(rule_table("normaliser")) == ["normaliser-translate"] and "normaliser-translate" in RULES
    assert statement(rule_statement("normaliser-translate").id).id == "normaliser-translate"


def test_the_catalogues_normaliser_derivations_are_accepted():
    """Every PROVED normaliser invariance of a catalogue entry (its own range and μ) has a derivation the verifier accepts."""
    proved = []
    for entry in CATALOGUE + RANGE_CATALOGUE:
        if not isinstance(entry.quality, QualityFunction):
            continue
        result = prover_continuous.prove_normaliser_invariance(entry.quality, epsilon=entry.epsilon, base_measure=entry.base_measure)
        derivation = result.derivation_for(entry.quality, entry.neighbours)
        assert (derivation is not None) == (result.status is Status.PROVED)
        if derivation is not None:
            proved.append(entry.name)
            data = statement_for(entry.quality, entry.neighbours, base_measure=entry.base_measure)
            verdict = judge(data, in_verifier_terms(derivation, data, entry.quality), forge=False)
            assert verdict.accepted, (entry.name, verdict)
    assert sorted(proved) == ["geometric-mechanism", "laplace-line"]


def _line(domain, field=RationalRange(0, 1)):
    schema, outputs = RecordSchema(v=field), OutputSpace(r=domain)
    return schema["v"], outputs["r"], schema, outputs


def test_hand_written_right_derivations_are_accepted():
    """A Laplace-like line and a count over ℤ, written by hand with a profile other than the prover's (a Max); the brute force agrees."""
    v, r, schema, outputs = _line(REALS)
    q = QualityFunction(-sympy.Max(r - total(v), total(v) - r) + 3, schema=schema, outputs=outputs)
    assert _check(q, total(v), -sympy.Abs(r) + 3, "reals", forge=False).accepted
    assert _translate_holds(q, total(v), -sympy.Abs(r) + 3, "reals")
    b, k, schema, outputs = _line(INTEGERS, IntRange(0, 1))
    q = QualityFunction(-sympy.Abs(k - 2 * count(sympy.Eq(b, 1)) - total(b)), schema=schema, outputs=outputs)
    shift = 2 * count(sympy.Eq(b, 1)) + total(b)
    assert _check(q, shift, -sympy.Abs(k), "integers", relation="add-remove", forge=False).accepted
    assert _translate_holds(q, shift, -sympy.Abs(k), "integers")


def test_hand_written_wrong_derivations_are_rejected():
    """A wrong shift or profile, the wrong line, a bounded range, a non-integer shift on ℤ, a mean on ℤ, a bound not 0."""
    v, r, schema, outputs = _line(REALS)
    q = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=outputs)
    assert _check(q, total(v), -sympy.Abs(r), "reals", forge=False).accepted
    for shift, profile, line, bound in [
        (total(v) + 1, -sympy.Abs(r), "reals", 0),
        (total(v), -sympy.Abs(r) + 1, "reals", 0),
        (total(v), -r, "reals", 0),
        (total(v), -sympy.Abs(r), "integers", 0),
        (total(v), -sympy.Abs(r), "reals", 1),
        (total(v) * r, -sympy.Abs(r), "reals", 0),
    ]:
        verdict = _check(q, shift, profile, line, bound)
        assert not verdict.accepted, (shift, profile, line, bound)
        if line == "reals" and bound == 0 and not shift.has(r):
            assert not _translate_holds(q, shift, profile, line), (shift, profile)
    bounded = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=OutputSpace(r=RationalRange(-10, 10)))
    assert not _check(bounded, total(v), -sympy.Abs(r), "reals").accepted
    v, k, schema, outputs = _line(INTEGERS)  # a rational field: the shift Σ v is not an integer
    q = QualityFunction(-sympy.Abs(k - total(v)), schema=schema, outputs=outputs)
    verdict = _check(q, total(v), -sympy.Abs(k), "integers")
    assert not verdict.accepted and "integer" in verdict.reason, verdict
    assert not _translate_holds(q, total(v), -sympy.Abs(k), "integers")
    q = QualityFunction(-sympy.Abs(k - mean(v)), schema=schema, outputs=outputs)
    verdict = _check(q, mean(v), -sympy.Abs(k), "integers")
    assert not verdict.accepted and "integer" in verdict.reason, verdict


@pytest.mark.parametrize("junk", [{"shift": 3}, {"shift": '{"node": "Eval", "args": []}'}, {"shift": "[[[["}, {"profile": None}, "x"])
def test_hostile_data_is_rejected(junk):
    """Malformed data is a rejection, never an exception."""
    v, r, schema, outputs = _line(REALS)
    q = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=outputs)
    data = statement_for(q, "replace-one")
    derivation = _derivation(data, total(v), -sympy.Abs(r), "reals")
    derivation["root"]["data"] = {**derivation["root"]["data"], **junk} if isinstance(junk, dict) else junk
    assert not judge(data, derivation).accepted


def test_a_mutant_prover_that_skips_integrality_is_caught(monkeypatch):
    """With the integrality check of the shift broken, the prover PROVES a false invariance on ℤ; the verifier rejects it."""
    v, k, schema, outputs = _line(INTEGERS, RationalRange(0, 1))
    q = QualityFunction(-sympy.Abs(k - total(v)), schema=schema, outputs=outputs)
    assert prover_continuous.prove_normaliser_invariance(q, epsilon=1).status is Status.UNKNOWN
    mech = ExponentialMechanism(q, epsilon=1, outputs=q.output_space)
    assert mech.distribution([Fraction(0)]).normaliser != mech.distribution([Fraction(1, 2)]).normaliser  # really not invariant
    monkeypatch.setattr(prover_continuous, "_integer_valued", lambda expr, quality: True)
    result = prover_continuous.prove_normaliser_invariance(q, epsilon=1)
    assert result.status is Status.PROVED
    data = statement_for(q, "replace-one")
    verdict = judge(data, in_verifier_terms(result.derivation_for(q, "replace-one"), data, q))
    assert not verdict.accepted and "integer" in verdict.reason, verdict


def test_a_mutant_prover_that_takes_a_bounded_range_for_the_line_is_caught(monkeypatch):
    """With the range read as the whole line, the prover PROVES a false invariance on [−10, 10]; the verifier rejects it."""
    v, r, schema, _ = _line(REALS)
    q = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=OutputSpace(r=RationalRange(-10, 10)))
    mech = ExponentialMechanism(q, epsilon=1, outputs=q.output_space)
    assert mech.distribution([Fraction(0)]).normaliser != mech.distribution([Fraction(1)]).normaliser  # really not invariant
    monkeypatch.setattr(prover_continuous, "_single_range", lambda quality: (r, REALS))
    monkeypatch.setattr(prover_continuous, "ExponentialMechanism", lambda quality, *, epsilon, outputs: ExponentialMechanism(quality, epsilon=epsilon, outputs=quality.output_space))
    result = prover_continuous.prove_normaliser_invariance(q, epsilon=1)
    assert result.status is Status.PROVED
    data = statement_for(q, "replace-one")
    verdict = judge(data, in_verifier_terms(result.derivation_for(q, "replace-one"), data, q))
    assert not verdict.accepted and "all of" in verdict.reason, verdict


def test_the_line_is_the_mechanisms_own_range_and_measure():
    """The rule reads the mechanism's range and μ, not only the output domain: "integers" needs all of ℤ with a constant
    weight, "reals" all of ℝ with a constant density; a geometric μ, the other line or a bounded range is rejected."""
    v, k, schema, outputs = _line(INTEGERS, IntRange(0, 1))
    q = QualityFunction(-sympy.Abs(k - total(v)), schema=schema, outputs=outputs)
    assert _check(q, total(v), -sympy.Abs(k), "integers", base_measure=Counting(), forge=False).accepted
    geometric = _check(q, total(v), -sympy.Abs(k), "integers", base_measure=Geometric(Fraction(1, 2)))
    assert not geometric.accepted and "translation-invariant" in geometric.reason, geometric
    mech = ExponentialMechanism(q, epsilon=1, outputs=q.output_space, base_measure=Geometric(Fraction(1, 2)))
    assert mech.distribution([0]).normaliser != mech.distribution([1]).normaliser  # really not invariant under that μ
    assert not _check(q, total(v), -sympy.Abs(k), "reals", base_measure=Counting()).accepted
    v, r, schema, _ = _line(REALS)
    bounded = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=OutputSpace(r=RationalRange(-10, 10)))
    assert not _check(bounded, total(v), -sympy.Abs(r), "reals", base_measure=Lebesgue()).accepted
    line = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=OutputSpace(r=REALS))
    assert _check(line, total(v), -sympy.Abs(r), "reals", base_measure=Lebesgue(), forge=False).accepted
    assert not _check(line, total(v), -sympy.Abs(r), None, base_measure=Lebesgue()).accepted
