"""The kernel's normaliser rule: the prover's derivations are accepted, wrong ones and a mutant prover's are not."""

import json
from fractions import Fraction

import pytest
import sympy

from expmech.impl import CATALOGUE, RANGE_CATALOGUE, ExponentialMechanism
from expmech.proofs import Status
from expmech.proofs.kernel import RULES, check_derivation
from expmech.proofs.prover import _continuous as prover_continuous
from expmech.spec import IntRange, OutputSpace, QualityFunction, RationalRange, RecordSchema, count, mean, statement, total
from expmech.spec.internal import expression_to_json

INTEGERS, REALS = IntRange(None, None), RationalRange(None, None)


def _derivation(quality, shift, profile, line, bound=0, relation="replace-one"):
    zero = expression_to_json(sympy.Integer(bound))
    data = {"shift": json.dumps(expression_to_json(shift)), "profile": json.dumps(expression_to_json(profile)), "line": line}
    root = {"id": "z", "term": [], "text": str(quality.expr), "case": {"from": 1}, "rule": "normaliser-translate", "bound": zero, "data": data, "premises": []}
    return {"format": 1, "claim": "normaliser", "relation": relation, "start": 1, "bound": zero, "root": root}


def test_the_rule_is_in_the_table_with_its_statement():
    """normaliser-translate names its claim and a Statement of expmech.spec."""
    assert RULES["normaliser-translate"].claim == "normaliser"
    assert statement(RULES["normaliser-translate"].statement).id == "normaliser-translate"


def test_the_catalogues_normaliser_derivations_are_accepted():
    """Every PROVED normaliser invariance of a catalogue entry (its own range and μ) has a derivation the kernel accepts."""
    proved = []
    for entry in CATALOGUE + RANGE_CATALOGUE:
        if not isinstance(entry.quality, QualityFunction):
            continue
        result = prover_continuous.prove_normaliser_invariance(entry.quality, epsilon=entry.epsilon, base_measure=entry.base_measure)
        derivation = result.derivation_for(entry.quality, entry.neighbours)
        assert (derivation is not None) == (result.status is Status.PROVED)
        if derivation is not None:
            proved.append(entry.name)
            verdict = check_derivation(entry.quality, entry.neighbours, derivation)
            assert verdict.accepted, (entry.name, verdict)
    assert sorted(proved) == ["geometric-mechanism", "laplace-line"]


def _line(domain, field=RationalRange(0, 1)):
    schema, outputs = RecordSchema(v=field), OutputSpace(r=domain)
    return schema["v"], outputs["r"], schema, outputs


def test_hand_written_right_derivations_are_accepted():
    """A Laplace-like line and a count over ℤ, written by hand with a profile other than the prover's (a Max)."""
    v, r, schema, outputs = _line(REALS)
    q = QualityFunction(-sympy.Max(r - total(v), total(v) - r) + 3, schema=schema, outputs=outputs)
    assert check_derivation(q, "replace-one", _derivation(q, total(v), -sympy.Abs(r) + 3, "reals")).accepted
    b, k, schema, outputs = _line(INTEGERS, IntRange(0, 1))
    q = QualityFunction(-sympy.Abs(k - 2 * count(sympy.Eq(b, 1)) - total(b)), schema=schema, outputs=outputs)
    derivation = _derivation(q, 2 * count(sympy.Eq(b, 1)) + total(b), -sympy.Abs(k), "integers", relation="add-remove")
    derivation["start"], derivation["root"]["case"] = 0, {"from": 0}
    assert check_derivation(q, "add-remove", derivation).accepted


def test_hand_written_wrong_derivations_are_rejected():
    """A wrong shift or profile, the wrong line, a bounded range, a non-integer shift on ℤ, a mean on ℤ, a bound not 0."""
    v, r, schema, outputs = _line(REALS)
    q = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=outputs)
    assert check_derivation(q, "replace-one", _derivation(q, total(v), -sympy.Abs(r), "reals")).accepted
    for shift, profile, line, bound in [
        (total(v) + 1, -sympy.Abs(r), "reals", 0),
        (total(v), -sympy.Abs(r) + 1, "reals", 0),
        (total(v), -r, "reals", 0),
        (total(v), -sympy.Abs(r), "integers", 0),
        (total(v), -sympy.Abs(r), "reals", 1),
        (total(v) * r, -sympy.Abs(r), "reals", 0),
    ]:
        verdict = check_derivation(q, "replace-one", _derivation(q, shift, profile, line, bound))
        assert not verdict.accepted, (shift, profile, line, bound)
    bounded = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=OutputSpace(r=RationalRange(-10, 10)))
    assert not check_derivation(bounded, "replace-one", _derivation(bounded, total(v), -sympy.Abs(r), "reals")).accepted
    v, k, schema, outputs = _line(INTEGERS)  # a rational field: the shift Σ v is not an integer
    q = QualityFunction(-sympy.Abs(k - total(v)), schema=schema, outputs=outputs)
    verdict = check_derivation(q, "replace-one", _derivation(q, total(v), -sympy.Abs(k), "integers"))
    assert not verdict.accepted and "integer" in verdict.reason
    q = QualityFunction(-sympy.Abs(k - mean(v)), schema=schema, outputs=outputs)
    assert "mean" in check_derivation(q, "replace-one", _derivation(q, mean(v), -sympy.Abs(k), "integers")).reason


@pytest.mark.parametrize("junk", [{"shift": 3}, {"shift": '{"node": "Eval", "args": []}'}, {"shift": "[[[["}, {"profile": None}, "x"])
def test_hostile_data_is_rejected(junk):
    """Malformed data is a rejection, never an exception."""
    v, r, schema, outputs = _line(REALS)
    q = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=outputs)
    derivation = _derivation(q, total(v), -sympy.Abs(r), "reals")
    derivation["root"]["data"] = {**derivation["root"]["data"], **junk} if isinstance(junk, dict) else junk
    assert not check_derivation(q, "replace-one", derivation).accepted


def test_a_mutant_prover_that_skips_integrality_is_caught(monkeypatch):
    """With the integrality check of the shift broken, the prover PROVES a false invariance on ℤ; the kernel rejects it."""
    v, k, schema, outputs = _line(INTEGERS, RationalRange(0, 1))
    q = QualityFunction(-sympy.Abs(k - total(v)), schema=schema, outputs=outputs)
    assert prover_continuous.prove_normaliser_invariance(q, epsilon=1).status is Status.UNKNOWN
    mech = ExponentialMechanism(q, epsilon=1, outputs=q.output_space)
    assert mech.distribution([Fraction(0)]).normaliser != mech.distribution([Fraction(1, 2)]).normaliser  # really not invariant
    monkeypatch.setattr(prover_continuous, "_integer_valued", lambda expr, quality: True)
    result = prover_continuous.prove_normaliser_invariance(q, epsilon=1)
    assert result.status is Status.PROVED
    verdict = check_derivation(q, "replace-one", result.derivation_for(q, "replace-one"))
    assert not verdict.accepted and "integer" in verdict.reason


def test_a_mutant_prover_that_takes_a_bounded_range_for_the_line_is_caught(monkeypatch):
    """With the range read as the whole line, the prover PROVES a false invariance on [−10, 10]; the kernel rejects it."""
    v, r, schema, _ = _line(REALS)
    q = QualityFunction(-sympy.Abs(r - total(v)), schema=schema, outputs=OutputSpace(r=RationalRange(-10, 10)))
    mech = ExponentialMechanism(q, epsilon=1, outputs=q.output_space)
    assert mech.distribution([Fraction(0)]).normaliser != mech.distribution([Fraction(1)]).normaliser  # really not invariant
    monkeypatch.setattr(prover_continuous, "_single_range", lambda quality: (r, REALS))
    monkeypatch.setattr(prover_continuous, "ExponentialMechanism", lambda quality, *, epsilon, outputs: ExponentialMechanism(quality, epsilon=epsilon, outputs=quality.output_space))
    result = prover_continuous.prove_normaliser_invariance(q, epsilon=1)
    assert result.status is Status.PROVED
    verdict = check_derivation(q, "replace-one", result.derivation_for(q, "replace-one"))
    assert not verdict.accepted and "all of" in verdict.reason


def test_check_binds_the_line_to_the_mechanisms_range_and_measure():
    """The kernel sees the quality's output domain only: check's binding requires the mechanism's range and μ to be
    the line's own (all of ℤ with counting μ for "integers"), so a geometric μ has no normaliser claim to rest on."""
    from types import SimpleNamespace

    from expmech.proofs.certificate._kernel_check import CLAIMED_BOUND
    from expmech.spec import Counting, Geometric, Lebesgue

    def bound(line, outputs, measure):
        claim = {"derivation": {"root": {"data": {"line": line}}}}
        return CLAIMED_BOUND["normaliser"](claim, SimpleNamespace(mechanism=SimpleNamespace(outputs=outputs, base_measure=measure)))

    assert bound("integers", INTEGERS, Counting()) == bound("reals", REALS, Lebesgue()) == {"rational": "0"}
    assert bound("integers", INTEGERS, Geometric(Fraction(1, 2))) is None
    assert bound("reals", INTEGERS, Counting()) is None
    assert bound("reals", RationalRange(-10, 10), Lebesgue()) is None
    assert bound(None, REALS, Lebesgue()) is None
