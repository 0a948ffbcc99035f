"""The kernel's range-sensitivity rules: the prover's derivations are accepted, wrong ones and a mutant prover's are not."""

import itertools
from fractions import Fraction

import pytest
import sympy

from expmech.impl import CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import Status, prove_sensitivity
from expmech.proofs.kernel import RULES, check_derivation
from expmech.proofs.prover import _monotone as prover_monotone
from expmech.proofs.prover import _range_sensitivity as prover_range
from expmech.proofs.prover import prove_range_sensitivity
from expmech.spec import IntRange, OutputSpace, QualityError, QualityFunction, RecordSchema, count, mean, size, statement, total
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


def _spread(q, relation):
    """The largest spread max_y d(y) − min_y d(y) over neighbouring pairs of at most 2 + 1 records over {0, …, 3}."""
    best = Fraction(0)
    for n in range(0 if relation == "add-remove" else 1, 3):
        for data in itertools.combinations_with_replacement(range(4), n):
            for extra in range(4):
                seconds = [[*data, extra]] if relation == "add-remove" else [[*data[:i], extra, *data[i + 1 :]] for i in range(n)]
                for second in seconds:
                    try:
                        d = [Fraction(q(list(data), r)) - Fraction(q(second, r)) for r in range(4)]
                    except QualityError:
                        continue
                    best = max(best, max(d) - min(d))
    return best


def _direct(expr, bound, relation="replace-one", ranges=None, start=1):
    root = {"id": "r", "term": [], "text": str(expr), "case": {"from": start}, "rule": "range-direct", "bound": _num(bound), "data": {"ranges": ranges or {}}, "premises": []}
    return {"format": 1, "claim": "range-sensitivity", "relation": relation, "start": start, "bound": _num(bound), "root": root}


def test_every_range_rule_is_in_the_table_with_its_statement():
    """The three range-… rules name their claim and a Statement of expmech.spec."""
    names = sorted(name for name, info in RULES.items() if info.claim == "range-sensitivity")
    assert names == ["range-direct", "range-double", "range-monotone"]
    assert all(statement(RULES[name].statement).id == name for name in names)


def test_the_catalogues_range_derivations_are_accepted():
    """Every PROVED range sensitivity of every catalogue entry carries a derivation the kernel accepts, of the proved bound."""
    proved = set()
    for entry in CATALOGUE + WRONG_CATALOGUE + RANGE_CATALOGUE:
        if not isinstance(entry.quality, QualityFunction):
            continue
        result = prove_range_sensitivity(entry.quality, neighbours=entry.neighbours)
        assert (result.derivation is not None) == (result.status is Status.PROVED), entry.name
        if result.derivation is not None:
            proved.add(result.derivation["root"]["rule"])
            assert result.derivation["bound"] == _num(result.proved_bound)
            verdict = check_derivation(entry.quality, entry.neighbours, result.derivation)
            assert verdict.accepted, (entry.name, verdict)
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
    """range-direct: the true spread is accepted, anything below it rejected (the kernel writes the query itself)."""
    q = _quality(expr)
    start = 0 if relation == "add-remove" else 1
    assert _spread(q, relation) == right
    assert check_derivation(q, relation, _direct(expr, right, relation, start=start)).accepted
    verdict = check_derivation(q, relation, _direct(expr, wrong, relation, start=start))
    assert not verdict.accepted and verdict.node == "r"


def test_a_totals_range_is_checked_not_trusted():
    """A total's per-record range in data is a side condition: a too narrow range is rejected."""
    expr = total(sympy.Min(X, R)) - R * size()
    q = _quality(expr)
    key = str(total(sympy.Min(X, R)))
    assert check_derivation(q, "replace-one", _direct(expr, 6, ranges={key: ["0", "3"]})).accepted
    assert not check_derivation(q, "replace-one", _direct(expr, 6, ranges={key: ["0", "2"]})).accepted
    assert not check_derivation(q, "replace-one", _direct(expr, 6)).accepted


def test_through_the_sensitivity_the_factor_two_and_the_monotonicity_are_checked():
    """range-double needs B >= 2·Δq; range-monotone needs a monotonicity derivation the kernel accepts."""
    expr = count(X <= R) - total(X)  # not monotone: a count rises, a total falls
    q = _quality(expr)
    sens = prove_sensitivity(q, neighbours="add-remove")
    delta = Fraction(sens.derivation["root"]["bound"]["rational"])

    def through(rule, bound, premises):
        root = {"id": "r", "term": [], "text": str(expr), "case": {"from": 0}, "rule": rule, "bound": _num(bound), "data": {}, "premises": premises}
        return {"format": 1, "claim": "range-sensitivity", "relation": "add-remove", "start": 0, "bound": _num(bound), "root": root}

    premises = [sens.derivation["root"]]
    assert check_derivation(q, "add-remove", through("range-double", 2 * delta, premises)).accepted
    assert not check_derivation(q, "add-remove", through("range-double", delta, premises)).accepted
    fake = {"id": "m", "term": [], "text": str(expr), "case": {"from": 0}, "rule": "monotone-combine", "bound": _num(1), "data": {}, "premises": []}
    verdict = check_derivation(q, "add-remove", through("range-monotone", delta, [*premises, fake]))
    assert not verdict.accepted and verdict.node == "m"
    assert not check_derivation(q, "add-remove", through("range-monotone", delta, premises)).accepted
    mixed = through("range-double", 2 * delta, [fake])  # a premise of the other claim's rules is not read as sensitivity
    assert "unknown rule" in check_derivation(q, "add-remove", mixed).reason
    late = through("range-double", 2 * delta, premises)
    late["start"], late["root"]["case"] = 1, {"from": 1}
    assert "start=1" in check_derivation(q, "add-remove", late).reason


@pytest.mark.parametrize("junk", [[3], [{"id": "x"}], [], "x", None])
def test_hostile_sub_derivations_are_rejected(junk):
    """A malformed sub-derivation is a rejection, never an exception."""
    q = _quality(count(X <= R))
    root = {"id": "r", "term": [], "text": str(q.expr), "case": {"from": 1}, "rule": "range-double", "bound": _num(2), "data": {}, "premises": junk}
    envelope = {"format": 1, "claim": "range-sensitivity", "relation": "replace-one", "start": 1, "bound": _num(2), "root": root}
    assert not check_derivation(q, "replace-one", envelope).accepted


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
    every false PROVED bound — above the exhaustive spread of small pairs — has its derivation rejected."""
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
            if result.status is not Status.PROVED or _spread(q, relation) <= result.proved_bound:
                continue
            false_proofs += 1
            assert result.derivation is None or not check_derivation(q, relation, result.derivation).accepted, (mutant, q.expr, relation)
    assert false_proofs > 0, f"the mutant {mutant} produced no false PROVED: the test cannot fail"
