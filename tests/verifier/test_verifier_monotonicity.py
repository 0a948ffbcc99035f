"""The verifier's monotonicity rules: the prover's derivations are accepted, wrong ones and a mutant prover's are not,
and every accepted direction is held to the exact brute force (``brute_force``) over pairs of at most two records."""

import copy
import itertools

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brute_force
from checker_tools import in_verifier_terms, judge, rule_table, statement_for, text_at
from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import Status, prove_monotone
from expmech.proofs.checker import RULES
from expmech.proofs.prover import _monotone as prover_monotone
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, Total, count, mean, rule_statement, size, statement, total
from expmech.spec.internal import expression_to_json

SCHEMA = RecordSchema(x=IntRange(0, 3))
OUTPUTS = OutputSpace(r=IntRange(0, 3))
X, R = SCHEMA["x"], OUTPUTS["r"]
TERMS = (
    count(X <= R),
    count(sympy.Eq(X, R)),
    total(sympy.Min(X, R)),
    total(X - 2),
    total(-X),
    size(),
    mean(X),
    sympy.Max(count(X <= R), size() - 1),
    sympy.Piecewise((count(X >= R), R > 1), (-total(X), True)),
    (R - 2) * count(X >= 1),
)


def _quality(expr):
    return QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)


def _num(value):
    return expression_to_json(sympy.Integer(value))


class _Texts:
    """Nodes of one quality, their texts the verifier's rendering of the subterm at their position."""

    def __init__(self, expr):
        self.data = statement_for(_quality(expr), "add-remove")

    def node(self, node_id, term, rule, direction, premises=(), case=0):
        return {"id": node_id, "term": list(term), "text": text_at(self.data, term), "case": {"from": case}, "rule": rule, "bound": _num(direction),
                "data": {}, "premises": list(premises)}


def _envelope(root, direction, relation="add-remove"):
    return {"format": 1, "claim": "monotonicity", "relation": relation, "start": 0 if relation == "add-remove" else 1, "bound": _num(direction), "root": root}


def _check(expr, derivation, relation="add-remove", *, forge=True):
    return judge(statement_for(_quality(expr), relation), derivation, forge=forge)


def _verified(q, relation, derivation, *, forge=True):
    """The verifier's verdict on a prover's monotonicity derivation, written in the verifier's terms."""
    data = statement_for(q, relation)
    return judge(data, in_verifier_terms(derivation, data, q), forge=forge)


def test_every_monotone_rule_has_its_statement_in_spec():
    """Each monotone-… rule of the verifier's table is in RULES and names a Statement of expmech.spec whose steps verify."""
    names = list(rule_table("monotonicity"))
    assert len(names) == 7 and set(names) <= set(RULES) and all(name.startswith("monotone-") for name in names)
    for name in names:
        assert statement(rule_statement(name).id) is rule_statement(name)


def test_the_catalogues_monotone_derivations_are_accepted():
    """Every PROVED monotonicity of every catalogue entry carries a derivation the verifier accepts, which the brute force confirms."""
    proved = 0
    for entry in CATALOGUE + WRONG_CATALOGUE + RANGE_CATALOGUE + POSTERIOR_CATALOGUE:
        if not isinstance(entry.quality, QualityFunction) or not entry.quality.output_space.is_finite:
            continue
        result = prove_monotone(entry.quality, neighbours=entry.neighbours)
        assert (result.derivation is not None) == (result.status is Status.PROVED)
        if result.derivation is not None:
            proved += 1
            verdict = _verified(entry.quality, entry.neighbours, result.derivation, forge=False)
            assert verdict.accepted, (entry.name, verdict)
            direction = prover_monotone.DIRECTION_SIGN[result.direction]
            assert result.derivation["bound"] == _num(direction)
            assert brute_force.monotone_violation(entry.quality, entry.neighbours, direction) is None, entry.name
    assert proved >= 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(-2, 2), min_size=len(TERMS), max_size=len(TERMS)), st.sampled_from(["add-remove", "replace-one"]))
def test_every_proved_monotonicity_is_accepted_and_holds(coefficients, relation):
    """On generated Σ cᵢ·termᵢ, the prover's every PROVED derivation is accepted, and every derivation accepted holds on the brute force."""
    q = _quality(sum((c * t for c, t in zip(coefficients, TERMS)), sympy.Integer(0)) + R)
    result = prove_monotone(q, neighbours=relation)
    if result.status is Status.PROVED:
        verdict = _verified(q, relation, result.derivation, forge=False)
        assert verdict.accepted, verdict
        assert brute_force.monotone_violation(q, relation, prover_monotone.DIRECTION_SIGN[result.direction]) is None


RIGHT = [
    (2 * count(X <= R) + size(), 1, lambda t: t.node("3", [], "monotone-combine", 1, [t.node("2", [0], "monotone-scale", 1, [t.node("1", [0, 1], "monotone-count", 1)]), t.node("4", [1], "monotone-count", 1)])),
    (total(-X), -1, lambda t: t.node("1", [], "monotone-total", -1)),
    (Total(sympy.Integer(0)), 0, lambda t: t.node("1", [], "monotone-total", 0)),
    (R**2 - 1, 0, lambda t: t.node("1", [], "monotone-data-free", 0)),
]


@pytest.mark.parametrize(("expr", "direction", "build"), RIGHT, ids=["combine-scale-count", "total-down", "total-zero", "data-free"])
def test_hand_written_right_derivations_are_accepted(expr, direction, build):
    """Derivations written by hand, not by the prover, are accepted when right, and the brute force agrees."""
    verdict = _check(expr, _envelope(build(_Texts(expr)), direction), forge=False)
    assert verdict.accepted, verdict
    assert brute_force.monotone_violation(_quality(expr), "add-remove", direction) is None


def _wrong_cases():
    up = 2 * count(X <= R) + size()
    right_up = RIGHT[0][2](_Texts(up))
    cases = []
    for direction in (-1, 0):  # a count claimed to fall or to stay
        root = copy.deepcopy(right_up)
        root["premises"][1]["bound"] = _num(direction)
        cases.append((f"count-direction-{direction}", up, root, 1, "4"))  # (the claim is true: a premise is wrong)
    neg = -2 * count(X <= R) + size()  # the sign of the factor forgotten: −2·count claimed to rise
    flipped = RIGHT[0][2](_Texts(neg))
    cases.append(("factor-sign-dropped", neg, flipped, 1, "2"))
    mixed = total(X - 2)  # a term of both signs claimed non-decreasing
    cases.append(("total-of-both-signs", mixed, _Texts(mixed).node("1", [], "monotone-total", 1), 1, "1"))
    m = mean(X) + 0 * R
    cases.append(("mean-as-count", m, _Texts(m).node("1", [], "monotone-count", 1), 1, "1"))
    piece = sympy.Piecewise((count(X >= R), size() > 1), (0, True))
    t = _Texts(piece)
    cases.append(("data-condition", piece, t.node("2", [], "monotone-piecewise", 1, [t.node("1", [0, 0], "monotone-count", 1)]), 1, "2"))
    mixed_sum = 2 * count(X <= R) - total(X)  # a premise left out: the falling part goes unchecked
    at = next(i for i, a in enumerate(mixed_sum.args) if a.has(count(X <= R)))
    t = _Texts(mixed_sum)
    dropped = t.node("3", [], "monotone-combine", 1, [t.node("2", [at], "monotone-scale", 1, [t.node("1", [at, 1], "monotone-count", 1)])])
    cases.append(("premise-dropped", mixed_sum, dropped, 1, "3"))
    return cases


@pytest.mark.parametrize(("name", "expr", "root", "direction", "node"), _wrong_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_hand_written_wrong_derivations_are_rejected_at_their_node(name, expr, root, direction, node):
    """A wrong direction, a forgotten factor sign, a mixed-sign total, a mean, a data condition, a dropped premise:
    rejected at the node; where the claim itself is false, the brute force finds it so."""
    verdict = _check(expr, _envelope(root, direction))
    assert not verdict.accepted and verdict.node == node, verdict
    false_claim = name not in ("count-direction--1", "count-direction-0", "data-condition")
    assert (brute_force.monotone_violation(_quality(expr), "add-remove", direction) is not None) is false_claim


def test_the_envelope_ties_the_claim_and_the_cases():
    """The root's direction must be the claim's, start must be 0 under add-remove, replace-one needs monotone-uniform."""
    expr, direction, build = RIGHT[0]
    root = build(_Texts(expr))
    assert not _check(expr, _envelope(root, -1)).accepted
    late = _envelope(root, 1)
    late["start"] = 1
    assert "start=1" in _check(expr, late).reason
    assert not _check(expr, _envelope(root, 1, "replace-one"), "replace-one").accepted
    uniform = _Texts(expr).node("1", [], "monotone-uniform", 0, case=1)
    verdict = _check(expr, _envelope(uniform, 0, "replace-one"), "replace-one")
    assert not verdict.accepted and "depends on both" in verdict.reason, verdict
    separable = R + 2 * total(X)
    uniform = _Texts(separable).node("1", [], "monotone-uniform", 0, case=1)
    assert _check(separable, _envelope(uniform, 0, "replace-one"), "replace-one", forge=False).accepted
    assert brute_force.monotone_violation(_quality(separable), "replace-one", 0) is None
    assert not _check(separable, _envelope(_Texts(separable).node("1", [], "monotone-uniform", 0), 0)).accepted


@pytest.mark.parametrize("junk", [None, 3, [], {"format": 1}, {**_envelope({}, 1), "root": {"id": "1", "term": [9], "text": "", "case": {"from": 0}, "rule": "monotone-count", "bound": _num(1)}}, {**_envelope({}, 2)}])
def test_hostile_monotone_derivations_are_rejected_without_raising(junk):
    """Malformed input is a rejection, never an exception."""
    assert not _check(count(X <= R), junk).accepted


_SIGN_OF_TERM = prover_monotone._Directions.sign_of_term
_DIRECTION = prover_monotone._Directions.direction


def _count_down(self, expr, path=()):
    """A mutant rule: a count falls when a record is added."""
    sign, node = _DIRECTION(self, expr, path)
    if node["rule"] == "monotone-count" and isinstance(expr, type(count(X <= R))):
        node["bound"] = _num(-1)
        return -1, node
    return sign, node


MUTANTS = {
    "opposite-parts-combined": (prover_monotone, "_combine", lambda directions, expr: next((d for d in directions if d), 0)),
    "term-sign-flipped": (prover_monotone._Directions, "sign_of_term", lambda self, body: -_SIGN_OF_TERM(self, body)),
    "factor-sign-dropped": (prover_monotone._Directions, "sign_of_factor", lambda self, factor: 1),
    "count-falls": (prover_monotone._Directions, "direction", _count_down),
    "uniform-always": (prover_monotone, "_uniform_in_r", lambda quality: True),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_mutant_provers_false_proofs_are_all_rejected(mutant, monkeypatch):
    """Each prover rule broken in turn: its false PROVED results (checked exhaustively on small pairs) are all rejected."""
    monkeypatch.setattr(*MUTANTS[mutant])
    false_proofs = 0
    for coefficients in itertools.product((-1, 1), repeat=3):
        for chosen in ((0, 3, 5), (2, 4, 8), (1, 7, 9), (0, 1, 4)):
            expr = sum((c * TERMS[i] for c, i in zip(coefficients, chosen)), sympy.Integer(0)) + R
            q = _quality(expr)
            for relation in ("add-remove", "replace-one"):
                try:
                    result = prove_monotone(q, neighbours=relation, search_size=1)
                except Exception:  # noqa: BLE001 - a mutant may crash; only its PROVED results matter
                    continue
                if result.status is not Status.PROVED or brute_force.monotone_violation(q, relation, prover_monotone.DIRECTION_SIGN[result.direction]) is None:
                    continue
                false_proofs += 1
                verdict = _verified(q, relation, result.derivation)
                assert not verdict.accepted, (mutant, expr, relation, result.direction)
    assert false_proofs > 0, f"the mutant {mutant} produced no false PROVED: the test cannot fail"
