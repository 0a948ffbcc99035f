"""The verifier's range-sensitivity rules: the prover's derivations are accepted, wrong ones and a mutant prover's are
not, and every accepted bound is held to the exact spread of small neighbouring pairs (``brute_force``)."""

from fractions import Fraction

import pytest
import sympy

import brute_force
from checker_tools import in_verifier_terms, judge, rule_table, statement_for
from expmech.impl import CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import Status, prove_sensitivity
from expmech.proofs.checker import RULES, Reader, render
from expmech.proofs.prover import _monotone as prover_monotone
from expmech.proofs.prover import _range_sensitivity as prover_range
from expmech.proofs.prover import prove_range_sensitivity
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, mean, rule_statement, size, statement, total
from expmech.spec.internal import expression_to_json

SCHEMA = RecordSchema(x=IntRange(0, 3))
OUTPUTS = OutputSpace(r=IntRange(0, 3))
X, R = SCHEMA["x"], OUTPUTS["r"]
#: Qualities the mutant provers run on (each proved in well under a second by the prover).
MUTANT_QUALITIES = (
    count(X <= R) - count(X >= R),
    count(X <= R) + total(sympy.Min(X, R)),
    count(sympy.Eq(X, R)) - size(),
    mean(X) * R + count(X >= 2),
)


def _quality(expr):
    return QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)


def _num(value):
    value = Fraction(value)
    return expression_to_json(sympy.Rational(value.numerator, value.denominator))


def _text(expr):
    """The verifier's rendering of an expression over x and r."""
    return render(Reader({"x", "r"}).read(expression_to_json(expr)), 200)


def _direct(expr, bound, relation="replace-one", ranges=None, start=1):
    root = {"id": "r", "term": [], "text": _text(expr), "case": {"from": start}, "rule": "range-direct", "bound": _num(bound), "data": {"ranges": ranges or {}}, "premises": []}
    return {"format": 1, "claim": "range-sensitivity", "relation": relation, "start": start, "bound": _num(bound), "root": root}


def _check(q, relation, derivation, *, forge=True):
    return judge(statement_for(q, relation), derivation, forge=forge)


def _verified(q, relation, derivation, *, forge=True):
    """The verdict on a prover's range derivation written in the verifier's terms."""
    data = statement_for(q, relation)
    return judge(data, in_verifier_terms(derivation, data, q), forge=forge)


def test_every_range_rule_is_in_the_table_with_its_statement():
    """The three range-… rules are the claim's table, in RULES, each with a Statement of expmech.spec."""
    names = sorted(rule_table("range-sensitivity"))
    assert names == ["range-direct", "range-double", "range-monotone"] and set(names) <= set(RULES)
    assert all(statement(rule_statement(name).id).id == name for name in names)


def test_the_catalogues_range_derivations_are_accepted():
    """Every PROVED range sensitivity of every catalogue entry carries a derivation the verifier accepts, of the proved
    bound, at least the exact spread of small pairs."""
    proved = set()
    for entry in CATALOGUE + WRONG_CATALOGUE + RANGE_CATALOGUE:
        if not isinstance(entry.quality, QualityFunction) or not entry.quality.output_space.is_finite:
            continue
        result = prove_range_sensitivity(entry.quality, neighbours=entry.neighbours)
        assert (result.derivation is not None) == (result.status is Status.PROVED), entry.name
        if result.derivation is not None:
            proved.add(result.derivation["root"]["rule"])
            assert result.derivation["bound"] == _num(result.proved_bound)
            verdict = _verified(entry.quality, entry.neighbours, result.derivation, forge=False)
            assert verdict.accepted, (entry.name, verdict)
            if brute_force.evaluations(entry.quality) <= 200_000:
                assert brute_force.largest_spread(entry.quality, entry.neighbours) <= result.proved_bound, entry.name
    assert proved >= {"range-direct", "range-double"}


@pytest.mark.parametrize(
    ("expr", "relation", "right", "wrong"),
    [
        (count(X <= R), "replace-one", 1, Fraction(1, 2)),
        (count(sympy.Eq(X, R)), "add-remove", 1, Fraction(1, 2)),
        (-sympy.Abs(count(X <= R) - size() / 2), "replace-one", 2, Fraction(19, 10)),
    ],
)
def test_hand_written_direct_derivations(expr, relation, right, wrong):
    """range-direct: the true spread is accepted, anything below it rejected (the verifier writes the side condition itself)."""
    q = _quality(expr)
    start = 0 if relation == "add-remove" else 1
    assert brute_force.largest_spread(q, relation) == right
    assert _check(q, relation, _direct(expr, right, relation, start=start), forge=False).accepted
    verdict = _check(q, relation, _direct(expr, wrong, relation, start=start))
    assert not verdict.accepted and verdict.node == "r", verdict


def test_a_totals_range_is_checked_not_trusted():
    """A total's per-record range in data is a side condition: a too narrow range is rejected."""
    expr = total(sympy.Min(X, R)) - R * size()
    q = _quality(expr)
    key = _text(total(sympy.Min(X, R)))
    assert brute_force.largest_spread(q, "replace-one") <= 6
    assert _check(q, "replace-one", _direct(expr, 6, ranges={key: ["0", "3"]}), forge=False).accepted
    narrow = _check(q, "replace-one", _direct(expr, 6, ranges={key: ["0", "2"]}))
    assert not narrow.accepted and "<= 2 on every record" in narrow.reason, narrow
    assert not _check(q, "replace-one", _direct(expr, 6)).accepted


def test_through_the_sensitivity_the_factor_two_and_the_monotonicity_are_checked():
    """range-double needs B >= 2·Δq; range-monotone needs a monotonicity derivation the verifier accepts."""
    expr = count(X <= R) - total(X)  # not monotone: a count rises, a total falls
    q = _quality(expr)
    data = statement_for(q, "add-remove")
    sens = in_verifier_terms(prove_sensitivity(q, neighbours="add-remove").derivation, data, q)
    delta = Fraction(sens["root"]["bound"]["rational"])

    def through(rule, bound, premises):
        root = {"id": "r", "term": [], "text": _text(expr), "case": {"from": 0}, "rule": rule, "bound": _num(bound), "data": {}, "premises": premises}
        return {"format": 1, "claim": "range-sensitivity", "relation": "add-remove", "start": 0, "bound": _num(bound), "root": root}

    premises = [sens["root"]]
    assert judge(data, through("range-double", 2 * delta, premises), forge=False).accepted
    assert not judge(data, through("range-double", delta, premises)).accepted  # (the spread is 1: true, but not by this rule)
    fake = {"id": "m", "term": [], "text": _text(expr), "case": {"from": 0}, "rule": "monotone-combine", "bound": _num(1), "data": {}, "premises": []}
    verdict = judge(data, through("range-monotone", delta, [*premises, fake]))
    assert not verdict.accepted and verdict.node == "m", verdict
    assert not judge(data, through("range-monotone", delta, premises)).accepted
    mixed = through("range-double", 2 * delta, [fake])  # a premise of the other claim's rules is not read as sensitivity
    assert "unknown rule" in judge(data, mixed).reason
    late = through("range-double", 2 * delta, premises)
    late["start"], late["root"]["case"] = 1, {"from": 1}
    assert "start=1" in judge(data, late).reason


@pytest.mark.parametrize("junk", [[3], [{"id": "x"}], [], "x", None])
def test_hostile_sub_derivations_are_rejected(junk):
    """A malformed sub-derivation is a rejection, never an exception."""
    q = _quality(count(X <= R))
    root = {"id": "r", "term": [], "text": _text(q.expr), "case": {"from": 1}, "rule": "range-double", "bound": _num(2), "data": {}, "premises": junk}
    envelope = {"format": 1, "claim": "range-sensitivity", "relation": "replace-one", "start": 1, "bound": _num(2), "root": root}
    assert not _check(q, "replace-one", envelope).accepted


_ORIGINAL_DIRECT, _ORIGINAL_SUPREMUM = prover_range._direct, prover_range._supremum


def _halved(result):
    value, model, queries, why = result
    return (value / 2 if value else value), None, queries, why


MUTANTS = {
    "direct-bound-halved": [(prover_range, "_direct", lambda prover, expr, start: _halved(_ORIGINAL_DIRECT(prover, expr, start)))],
    "lift-factor-dropped": [(prover_range, "_supremum", lambda bound, start: (lambda v: v / 2 if v else v)(_ORIGINAL_SUPREMUM(bound, start)))],
    "monotone-assumed": [(prover_monotone, "_combine", lambda directions, expr: next((d for d in directions if d), 0))],
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_mutant_provers_false_range_bounds_are_all_rejected(mutant, monkeypatch):
    """Each route broken in turn (the concrete search switched off, and the direct route for the routes through Δq):
    every false PROVED bound — below the exact spread of small pairs — has its derivation rejected."""
    for patch in MUTANTS[mutant]:
        monkeypatch.setattr(*patch)
    monkeypatch.setattr(prover_range, "_search", lambda *args: "")
    if mutant != "direct-bound-halved":
        monkeypatch.setattr(prover_range, "applies", lambda expr: False)
    false_proofs = 0
    for expr in MUTANT_QUALITIES:
        q = _quality(expr)
        for relation in ("add-remove", "replace-one"):
            try:
                result = prove_range_sensitivity(q, neighbours=relation)
            except Exception:  # noqa: BLE001 - a mutant may crash or trip a net; only its PROVED results matter
                continue
            if result.status is not Status.PROVED or brute_force.largest_spread(q, relation) <= result.proved_bound:
                continue
            false_proofs += 1
            assert result.derivation is None or not _verified(q, relation, result.derivation).accepted, (mutant, q.expr, relation)
    assert false_proofs > 0, f"the mutant {mutant} produced no false PROVED: the test cannot fail"
