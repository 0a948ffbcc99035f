"""The proof kernel on hand-written derivations: right ones accepted, each kind of wrong one rejected naming its node.

Every wrong derivation here differs from an accepted one in one place — a
bound, a rule, a position, a text, a premise, a case, a sign, a factor — so
each rejection is shown to come from that place (the accepted twin shows the
rest is fine).  Hostile shapes (wrong types, deep nesting, huge numbers)
give ``accepted=False``, never an exception.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
import sympy

from expmech.proofs import KernelVerdict, check_derivation
from expmech.proofs.kernel import RULES, term_text
from expmech.spec import (
    DATASET_SIZE,
    Categories,
    Grid,
    IntRange,
    InvalidArgument,
    InvalidType,
    OutputSpace,
    QualityFunction,
    RecordSchema,
    count,
    mean,
    size,
    total,
)
from expmech.spec.internal import expression_to_json

n = DATASET_SIZE
SCHEMA, OUTPUTS = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
x, r = SCHEMA["x"], OUTPUTS["r"]


def quality(expr: Any) -> QualityFunction:
    return QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)


def node(q: QualityFunction, ident: str, path: list[int], rule: str, bound: Any, premises: list[dict] = (), *,
         data: dict | None = None, args: list[int] | None = None, case: dict | None = None) -> dict[str, Any]:
    """A derivation node about the subterm of ``q`` at ``path`` (its text computed as the kernel does)."""
    expr = q.expr
    for step in path:
        expr = expr.args[step]
    found = {"id": ident, "term": list(path), "text": term_text(expr, None if args is None else tuple(args)), "case": case or {"from": 1},
             "rule": rule, "bound": expression_to_json(sympy.sympify(bound)), "data": data or {}, "premises": list(premises)}
    if args is not None:
        found["args"] = list(args)
    return found


def derivation(root: dict[str, Any], relation: str = "replace-one", start: int = 1) -> dict[str, Any]:
    return {"format": 1, "claim": "sensitivity", "relation": relation, "start": start, "bound": root["bound"], "root": root}


def check(q: QualityFunction, der: Any, relation: str = "replace-one") -> KernelVerdict:
    return check_derivation(q, relation, der)


# -- the median: −|count(x <= r) − size()/2| ---------------------------------------------------------------------

MEDIAN = quality(-sympy.Abs(count(x <= r) - size() / 2))


def median(bound_at_linear: Any = 1, plain: str = "1", bound: Any = 1) -> dict[str, Any]:
    linear = node(MEDIAN, "3", [1, 0], "linear", bound_at_linear, data={"plain": plain, "mean": "0"})
    return derivation(node(MEDIAN, "1", [], "scale", bound, [node(MEDIAN, "2", [1], "abs", bound, [linear])], data={"factor_bound": "1"}))


def test_the_median_derivation_is_accepted_with_queries_counted():
    """Scale ∘ abs ∘ linear with Δ = 1: accepted, and the kernel counts the solver calls it made itself."""
    verdict = check(MEDIAN, median())
    assert verdict.accepted and verdict.node is None and verdict.queries >= 1, verdict


@pytest.mark.parametrize(
    ("change", "node_id", "words"),
    [
        (lambda d: median(bound_at_linear=sympy.Rational(1, 2), plain="1/2", bound=sympy.Rational(1, 2)), "3", "z3 finds a case"),
        (lambda d: median(bound_at_linear=sympy.Rational(1, 2), plain="1", bound=sympy.Rational(1, 2)), "3", "below"),
        (lambda d: median(plain="-1"), "3", ">= 0"),
        (lambda d: median(bound=-1), "2", "below"),
        (lambda d: median(bound=1 - 1 / n), "2", "the bound is at least"),
    ],
    ids=["wrong-bound", "bound-below-its-data", "flipped-sign-data", "flipped-sign-bound", "bound-below-at-every-n"],
)
def test_a_wrong_bound_is_rejected_at_its_node(change, node_id, words):
    """A bound below the change (or below its own premises) is rejected, naming the node."""
    verdict = check(MEDIAN, change(None))
    assert not verdict.accepted and verdict.node == node_id and words in verdict.reason, verdict


def test_a_wrong_rule_for_the_subterm_is_rejected():
    """abs applied to a product, linear applied to an Abs, scale applied to an Abs: each rejected at its node."""
    der = median()
    der["root"]["rule"] = "abs"
    assert check(MEDIAN, der).node == "1"
    der = median()
    der["root"]["premises"][0]["rule"] = "linear"
    der["root"]["premises"][0]["data"] = {"plain": "1", "mean": "0"}
    verdict = check(MEDIAN, der)
    assert not verdict.accepted and verdict.node == "2", verdict
    der = median()
    der["root"]["premises"][0]["rule"] = "scale"
    assert check(MEDIAN, der).node == "2"
    der = median()
    der["root"]["rule"] = "no-such-rule"
    verdict = check(MEDIAN, der)
    assert verdict.node == "1" and "unknown rule" in verdict.reason


def test_a_text_or_position_that_does_not_match_is_rejected():
    """The text must be the subterm's; a premise must sit at its argument; a position must exist."""
    der = median()
    der["root"]["premises"][0]["text"] = "Abs(count(x <= r) - size()/3)"
    verdict = check(MEDIAN, der)
    assert verdict.node == "2" and "does not match" in verdict.reason
    der = median()
    der["root"]["premises"][0]["premises"][0]["term"] = [1, 0, 1]
    assert check(MEDIAN, der).node == "3"  # the text no longer matches the subterm there
    der = median()
    linear = node(MEDIAN, "3", [1, 0, 1], "linear", 1, data={"plain": "1", "mean": "0"})
    der["root"]["premises"][0]["premises"] = [linear]
    verdict = check(MEDIAN, der)
    assert verdict.node == "2" and "not at the argument" in verdict.reason
    for bad in ([7], [-1], [True], ["0"], [0, 0, 0, 0, 0, 0, 0]):
        der = median()
        der["root"]["premises"][0]["premises"][0]["term"] = bad
        verdict = check(MEDIAN, der)
        assert not verdict.accepted and verdict.node == "3", (bad, verdict)


# -- Max, sum, piecewise ---------------------------------------------------------------------------------------------

MAXED = quality(sympy.Max(count(x >= 1), 3 * count(x >= 2), 2))


def maxed(drop: bool = False, bound: Any = 3) -> dict[str, Any]:
    args = MAXED.expr.args
    premises = []
    for i, arg in enumerate(args):
        if isinstance(arg, sympy.Integer):
            premises.append(node(MAXED, f"c{i}", [i], "data-free", 0))
        elif isinstance(arg, sympy.Mul):
            inner = node(MAXED, f"l{i}", [i, 1], "linear", 1, data={"plain": "1", "mean": "0"})
            premises.append(node(MAXED, f"s{i}", [i], "scale", 3, [inner], data={"factor_bound": "3"}))
        else:
            premises.append(node(MAXED, f"l{i}", [i], "linear", 1, data={"plain": "1", "mean": "0"}))
    if drop:
        premises = [p for p in premises if p["rule"] != "scale"]
    return derivation(node(MAXED, "root", [], "max-min", bound, premises))


def test_a_max_needs_every_argument():
    """Max(count, 3·count, 2): accepted with all three premises; a Max that drops the 3·count term is rejected."""
    assert check(MAXED, maxed()).accepted
    verdict = check(MAXED, maxed(drop=True, bound=1))
    assert not verdict.accepted and verdict.node == "root" and "premise" in verdict.reason, verdict
    assert not check(MAXED, maxed(bound=2)).accepted


def test_scale_without_its_factor_is_rejected():
    """3·count with factor_bound 1 (the factor forgotten) is rejected at the scale node."""
    der = maxed()
    scaled = next(p for p in der["root"]["premises"] if p["rule"] == "scale")
    scaled["data"] = {"factor_bound": "1"}
    scaled["bound"] = expression_to_json(sympy.Integer(1))
    der["root"]["bound"] = der["bound"] = expression_to_json(sympy.Integer(1))
    verdict = check(MAXED, der)
    assert not verdict.accepted and verdict.node == scaled["id"] and "magnitude" in verdict.reason, verdict


SUMMED = quality(count(x >= 1) + count(x >= 2) + sympy.Abs(count(x >= 0) - r))


def summed(partial: list[int], others: list[int], bound: Any = 3) -> dict[str, Any]:
    premises = [node(SUMMED, "p", [], "linear", 2, data={"plain": "2", "mean": "0"}, args=partial)] if partial else []
    for i in others:
        arg = SUMMED.expr.args[i]
        if isinstance(arg, sympy.Abs):
            inner = node(SUMMED, f"i{i}", [i, 0], "linear", 1, data={"plain": "1", "mean": "0"})
            premises.append(node(SUMMED, f"c{i}", [i], "abs", 1, [inner]))
        else:
            premises.append(node(SUMMED, f"c{i}", [i], "linear", 1, data={"plain": "1", "mean": "0"}))
    return derivation(node(SUMMED, "root", [], "sum", bound, premises))


def test_a_sum_covers_each_data_summand_once():
    """A partial sum plus the other summand: accepted; a missing or doubly covered summand is rejected."""
    abs_index = next(i for i, a in enumerate(SUMMED.expr.args) if isinstance(a, sympy.Abs))
    counts = [i for i in range(3) if i != abs_index]
    assert check(SUMMED, summed(counts, [abs_index])).accepted
    assert check(SUMMED, summed([], [0, 1, 2])).accepted
    missing = check(SUMMED, summed(counts, [], bound=2))
    assert missing.node == "root" and "has no premise" in missing.reason
    twice = check(SUMMED, summed(counts, [abs_index, counts[0]]))
    assert twice.node == "root" and "twice" in twice.reason
    assert not check(SUMMED, summed(counts, [abs_index], bound=2)).accepted


def test_a_partial_sum_is_linear_only_over_its_arguments():
    """A partial sum's text is its arguments' texts, and its linear bound is checked over those arguments alone."""
    abs_index = next(i for i, a in enumerate(SUMMED.expr.args) if isinstance(a, sympy.Abs))
    counts = [i for i in range(3) if i != abs_index]
    der = summed(counts, [abs_index])
    partial = der["root"]["premises"][0]
    partial["data"] = {"plain": "1", "mean": "0"}
    partial["bound"] = expression_to_json(sympy.Integer(1))
    assert check(SUMMED, der).node == "p"
    der = summed(counts, [abs_index])
    der["root"]["premises"][0]["args"] = [counts[1], counts[0]]
    assert "increasing" in check(SUMMED, der).reason


def test_a_piecewise_needs_data_free_conditions():
    """Piecewise on an output: accepted; on an aggregate: rejected at the piecewise node."""
    good = quality(sympy.Piecewise((count(x >= 1), r >= 2), (0, True)))
    premises = [node(good, "b0", [0, 0], "linear", 1, data={"plain": "1", "mean": "0"}), node(good, "b1", [1, 0], "data-free", 0)]
    assert check(good, derivation(node(good, "pw", [], "piecewise", 1, premises))).accepted
    bad = quality(sympy.Piecewise((count(x >= 1), count(x >= 2) >= 2), (0, True)))
    premises = [node(bad, "b0", [0, 0], "linear", 1, data={"plain": "1", "mean": "0"}), node(bad, "b1", [1, 0], "data-free", 0)]
    verdict = check(bad, derivation(node(bad, "pw", [], "piecewise", 1, premises)))
    assert verdict.node == "pw" and "depends on the data" in verdict.reason


# -- sizes: n = 0, 1/n factors, means -----------------------------------------------------------------------------

def test_a_lift_that_forgets_its_n_factor_is_rejected():
    """size()·count under replace-one changes by n: a bound 1 (the factor forgotten) is rejected, n accepted."""
    q = quality(size() * count(x >= 1))
    index = next(i for i, a in enumerate(q.expr.args) if isinstance(a, type(count(x >= 1))))

    def der(bound: Any) -> dict[str, Any]:
        inner = node(q, "c", [index], "linear", 1, data={"plain": "1", "mean": "0"})
        return derivation(node(q, "s", [], "scale", bound, [inner], data={"factor_bound": "1"}))

    assert check(q, der(n)).accepted
    verdict = check(q, der(1))
    assert verdict.node == "s" and not verdict.accepted


def test_a_mean_bound_over_n_plus_one_under_replace_one_is_rejected():
    """mean(x), x in [0, 3], replace-one: 3/n accepted; 3/(n + 1) (off by one) rejected; 3/n under add-remove rejected (it is 3/(n+1) there, from n >= 1)."""
    q = quality(mean(x))
    ok = derivation(node(q, "m", [], "linear", 3 / n, data={"plain": "0", "mean": "3"}))
    assert check(q, ok).accepted
    off = derivation(node(q, "m", [], "linear", 3 / (n + 1), data={"plain": "0", "mean": "3"}))
    assert check(q, off).node == "m"
    added = derivation(node(q, "m", [], "linear", 3 / (n + 1), data={"plain": "0", "mean": "3"}), "add-remove", 1)
    assert check(q, added, "add-remove").accepted
    from_empty = derivation(node(q, "m", [], "linear", 3 / (n + 1), data={"plain": "0", "mean": "3"}, case={"from": 0}), "add-remove", 0)
    verdict = check(q, from_empty, "add-remove")
    assert verdict.node == "m" and "empty dataset" in verdict.reason


SHRINKING = quality(6 / (size() + 1))


def test_n_zero_is_covered_where_q_is_defined_on_the_empty_dataset():
    """6/(size()+1) under add-remove changes by 3 between ∅ and one record: the kernel requires n = 0 and checks it."""
    def der(bound: Any, start: int = 0) -> dict[str, Any]:
        return derivation(node(SHRINKING, "g", [], "size-only", bound, case={"from": start}), "add-remove", start)

    assert check(SHRINKING, der(6 / ((n + 1) * (n + 2))), "add-remove").accepted
    assert check(SHRINKING, der(sympy.Piecewise((3, sympy.Eq(n, 0)), (1, True))), "add-remove").accepted
    late = check(SHRINKING, der(1, start=1), "add-remove")
    assert not late.accepted and late.node is None and "n >= 0" in late.reason
    off_by_one = check(SHRINKING, der(6 / ((n + 2) * (n + 3))), "add-remove")
    assert off_by_one.node == "g" and "n = 0" in off_by_one.reason, off_by_one
    assert not check(SHRINKING, der(sympy.Piecewise((2, sympy.Eq(n, 0)), (1, True))), "add-remove").accepted
    assert check(SHRINKING, derivation(node(SHRINKING, "g", [], "size-only", 0)), "replace-one").accepted


def test_a_start_of_one_is_rejected_where_n_zero_matters():
    """A count under add-remove is defined on ∅: a derivation starting at n = 1 misses the pair (∅, {x})."""
    q = quality(count(x >= 1))
    assert check(q, derivation(node(q, "c", [], "linear", 1, data={"plain": "1", "mean": "0"}, case={"from": 0}), "add-remove", 0), "add-remove").accepted
    late = check(q, derivation(node(q, "c", [], "linear", 1, data={"plain": "1", "mean": "0"}), "add-remove", 1), "add-remove")
    assert not late.accepted and "must cover n >= 0" in late.reason
    premise_late = derivation(node(q, "w", [], "weaken", 1, [node(q, "c", [], "linear", 1, data={"plain": "1", "mean": "0"})], case={"from": 0}),
                              "add-remove", 0)
    verdict = check(q, premise_late, "add-remove")
    assert verdict.node == "w" and "covers n" in verdict.reason


def test_the_joint_rule_is_reencoded_by_the_kernel():
    """Max(count(x >= 1), count(x >= 2)) by the joint encoding: bound 1 accepted, 1/2 rejected; a total's range is checked."""
    q = quality(sympy.Max(count(x >= 1), count(x >= 2)))
    assert check(q, derivation(node(q, "j", [], "joint", 1))).accepted
    assert check(q, derivation(node(q, "j", [], "joint", sympy.Rational(1, 2)))).node == "j"
    line = quality(-sympy.Abs(total(x) - r))
    ok = derivation(node(line, "j", [], "joint", 3, data={"ranges": {"Total(x)": ["0", "3"]}}))
    assert check(line, ok).accepted
    narrow = derivation(node(line, "j", [], "joint", 2, data={"ranges": {"Total(x)": ["0", "2"]}}))
    assert check(line, narrow).node == "j"
    assert check(line, derivation(node(line, "j", [], "joint", 3))).node == "j"


def test_a_weaken_at_the_root_states_a_looser_claim():
    """weaken: a claim at least the proved bound is accepted, one below it rejected."""
    inner = median()["root"]
    assert check(MEDIAN, derivation(node(MEDIAN, "w", [], "weaken", 2, [inner]))).accepted
    assert check(MEDIAN, derivation(node(MEDIAN, "w", [], "weaken", 1 / n, [inner]))).node == "w"


def test_the_rule_table_names_a_statement_for_every_rule():
    """RULES: every sensitivity rule with its claim, statement name and one-line statement."""
    for name in ("data-free", "linear", "size-only", "sum", "scale", "abs", "max-min", "piecewise", "joint", "weaken"):
        info = RULES[name]
        assert info.claim == "sensitivity" and info.statement == f"sensitivity-{name}" and info.text


# -- hostile shapes ------------------------------------------------------------------------------------------------------

def _deep(levels: int) -> dict[str, Any]:
    inner: dict[str, Any] = median()["root"]
    for i in range(levels):
        inner = node(MEDIAN, f"w{i}", [], "weaken", 1, [inner])
    return inner


HOSTILE = [
    None, [], "derivation", 3, {},
    {**median(), "format": 2}, {**median(), "format": True}, {**median(), "claim": "nonsense"}, {**median(), "claim": None},
    {**median(), "relation": "add-remove"}, {**median(), "start": "1"}, {**median(), "start": True}, {**median(), "start": 7},
    {**median(), "bound": {"symbol": "x"}}, {**median(), "bound": {"node": "log", "args": [{"rational": "3"}]}},
    {**median(), "bound": {"rational": "1" * 5000}}, {**median(), "bound": {"rational": "0.5"}}, {**median(), "bound": 1},
    {**median(), "root": []}, {**median(), "root": {"id": 1}},
    derivation(_deep(400)),
]


@pytest.mark.parametrize("hostile", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_a_hostile_envelope_is_rejected_without_raising(hostile):
    """Wrong types, unknown values, huge numbers, deep nesting: accepted=False, never an exception."""
    verdict = check(MEDIAN, hostile)
    assert isinstance(verdict, KernelVerdict) and not verdict.accepted and verdict.reason


NODE_DAMAGE = [
    ("id", 5), ("id", ""), ("term", "1"), ("term", None), ("args", [0]), ("args", "x"), ("case", {"from": -1}), ("case", {"from": 1, "at": 1}),
    ("case", {"since": 1}), ("case", {"from": 10**30}), ("bound", {"node": "Add", "args": [{"rational": "1"}]}),
    ("bound", {"node": "Pow", "args": [{"symbol": "n"}, {"rational": "1/2"}]}), ("bound", {"node": "Pow", "args": [{"symbol": "n"}, {"rational": "1000"}]}),
    ("bound", {"node": "Piecewise", "args": [[{"rational": "1"}, {"rational": "1"}]]}), ("bound", {"node": "And", "args": [{"bool": True}, {"bool": True}]}),
    ("bound", {"node": "Pow", "args": [{"rational": "0"}, {"rational": "-1"}]}),
    ("bound", {"node": "Mul", "args": [{"node": "Pow", "args": [{"rational": "9" * 4000}, {"rational": "64"}]}] * 40}), ("rule", 3), ("data", []), ("data", {"plain": 1, "mean": "0"}),
    ("data", {"plain": "1/0", "mean": "0"}), ("data", {"plain": "9" * 5000, "mean": "0"}), ("premises", {}), ("premises", [1, 2]),
    ("premises", [{"id": "z"}]),
]


@pytest.mark.parametrize(("key", "value"), NODE_DAMAGE, ids=[f"{k}-{i}" for i, (k, _) in enumerate(NODE_DAMAGE)])
def test_a_damaged_node_is_rejected_without_raising(key, value):
    """One field of the linear node replaced by a hostile value: rejected (naming the node where it has an id)."""
    der = median()
    target = der["root"]["premises"][0]["premises"][0]
    target[key] = value
    verdict = check(MEDIAN, der)
    assert not verdict.accepted and verdict.reason, verdict
    if key != "id" and key != "premises":
        assert verdict.node == "3", verdict


def test_a_huge_tree_is_rejected_by_size(monkeypatch):
    """A tree past the node limit (lowered here to 2,000 to keep the test fast) is refused without raising."""
    import expmech.proofs.kernel._derivation as reading

    monkeypatch.setattr(reading, "MAX_NODES", 2_000)
    der = summed([], [0, 1, 2])
    der["root"]["premises"] = [copy.deepcopy(der["root"]["premises"][0]) for _ in range(2_500)]
    verdict = check(SUMMED, der)
    assert not verdict.accepted and "nodes" in verdict.reason


def test_the_root_must_be_the_whole_quality_with_the_envelope_bound():
    """A root about a subterm, or an envelope bound that differs from the root's, is rejected."""
    inner = median()["root"]["premises"][0]
    assert "whole quality" in check(MEDIAN, derivation(inner)).reason
    der = median()
    der["bound"] = expression_to_json(sympy.Integer(2))
    assert "not the root's bound" in check(MEDIAN, der).reason


def test_bad_arguments_raise_named_errors():
    """A quality that is not a QualityFunction, an unknown relation, a bad budget: errors naming the parameter."""
    with pytest.raises(InvalidType, match="quality="):
        check_derivation(lambda d, r: 0, "replace-one", median())
    with pytest.raises(InvalidArgument, match="neighbours="):
        check_derivation(MEDIAN, "swap-two", median())
    with pytest.raises(InvalidArgument, match="rlimit="):
        check_derivation(MEDIAN, "replace-one", median(), rlimit=0)


def test_domains_of_every_kind_are_encoded():
    """Categories and a large evenly spaced grid are encoded exactly: count(c = r) has Δ 1, and a grid's spread is exact."""
    schema, outputs = RecordSchema(c=Categories(("a", "b", "c"))), OutputSpace(r=Categories(("a", "b", "c")))
    q = QualityFunction(count(sympy.Eq(schema["c"], outputs["r"])), schema=schema, outputs=outputs)
    assert check_derivation(q, "replace-one", derivation(node(q, "c", [], "linear", 1, data={"plain": "1", "mean": "0"}))).accepted
    from fractions import Fraction

    schema = RecordSchema(v=Grid(tuple(Fraction(i, 4) for i in range(200)) + (Fraction(100),)))
    q = QualityFunction(mean(schema["v"]), schema=schema, outputs=OUTPUTS)
    assert check_derivation(q, "replace-one", derivation(node(q, "m", [], "linear", 100 / n, data={"plain": "0", "mean": "100"}))).accepted
    assert not check_derivation(q, "replace-one", derivation(node(q, "m", [], "linear", 99 / n, data={"plain": "0", "mean": "99"}))).accepted


@pytest.mark.parametrize("largest", [0, 1, 2])
def test_a_max_bound_below_any_one_argument_is_rejected(largest):
    """Max and Piecewise: the bound must be at least every premise's, wherever the largest sits (first, middle, last)."""
    atoms = [count(x >= 1), count(x >= 2), count(x >= 3)]
    q = quality(sympy.Max(*atoms))
    premises = []
    for i, arg in enumerate(q.expr.args):
        plain = "2" if i == largest else "1"
        premises.append(node(q, f"a{i}", [i], "linear", int(plain), data={"plain": plain, "mean": "0"}))
    assert check(q, derivation(node(q, "m", [], "max-min", 2, premises))).accepted
    assert check(q, derivation(node(q, "m", [], "max-min", 1, premises))).node == "m"
    pw = quality(sympy.Piecewise((atoms[0], r >= 2), (atoms[1], r >= 1), (atoms[2], True)))
    branches = []
    for i in range(3):
        plain = "2" if i == largest else "1"
        branches.append(node(pw, f"b{i}", [i, 0], "linear", int(plain), data={"plain": plain, "mean": "0"}))
    assert check(pw, derivation(node(pw, "p", [], "piecewise", 2, branches))).accepted
    assert check(pw, derivation(node(pw, "p", [], "piecewise", 1, branches))).node == "p"
