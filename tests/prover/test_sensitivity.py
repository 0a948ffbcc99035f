"""prove_sensitivity: the catalogue's claims proved or refuted, and soundness on generated quality functions."""

import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import Status, prove_sensitivity
from expmech.spec import (
    DATASET_SIZE,
    Booleans,
    IntRange,
    InvalidArgument,
    InvalidType,
    Neighbours,
    OutputSpace,
    QualityError,
    QualityFunction,
    RecordSchema,
    count,
    mean,
    size,
    total,
)

n = DATASET_SIZE


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda e: e.name)
def test_correct_catalogue_entries_are_proved_tight(entry):
    """Every correct entry is PROVED with its claimed Δq, and a witness attains it exactly."""
    result = prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    assert result.status is Status.PROVED, result.reason
    assert sympy.simplify(result.bound - entry.claimed_sensitivity) == 0
    assert result.tight and result.witness is not None
    w = result.witness
    exact = abs(entry.quality(list(w.dataset1), w.output) - entry.quality(list(w.dataset2), w.output))
    assert exact == w.difference == sympy.Rational(result.bound.subs(n, w.size))
    assert all(q.result.status == q.expected for q in result.queries)
    assert all(q.result.smt2.startswith("(set-logic ") for q in result.queries)


@pytest.mark.parametrize("entry", WRONG_CATALOGUE, ids=lambda e: e.name)
def test_wrong_catalogue_entries_are_refuted_with_a_counterexample(entry):
    """Every deliberately wrong claim is REFUTED by a concrete pair that really exceeds it."""
    result = prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    assert result.status is Status.REFUTED, result.reason
    c = result.counterexample
    exact = abs(entry.quality(list(c.dataset1), c.output) - entry.quality(list(c.dataset2), c.output))
    assert exact == c.difference > entry.claimed_sensitivity.subs(n, c.size)
    if entry.neighbours is Neighbours.REPLACE_ONE:
        assert len(c.dataset1) == len(c.dataset2)
    else:
        assert len(c.dataset2) == len(c.dataset1) + 1


def test_a_looser_claim_is_proved_and_a_tighter_one_refuted():
    """Claims above the tight bound are PROVED; below it REFUTED — the option changes the verdict."""
    median = next(e for e in CATALOGUE if e.name == "median").quality
    assert prove_sensitivity(median, neighbours="replace-one", claimed=2).status is Status.PROVED
    assert prove_sensitivity(median, neighbours="replace-one", claimed=Fraction(9, 10)).status is Status.REFUTED


def test_neighbour_relation_changes_the_bound():
    """The median's Δq is 1 under replace-one but 1/2 under add-remove (count and size change together, per output)."""
    median = next(e for e in CATALOGUE if e.name == "median").quality
    replace = prove_sensitivity(median, neighbours="replace-one")
    add = prove_sensitivity(median, neighbours="add-remove")
    assert replace.status is Status.PROVED and replace.bound == 1 and replace.tight
    assert add.status is Status.PROVED and add.bound == sympy.Rational(1, 2) and add.tight
    w = add.witness
    assert len(w.dataset2) == len(w.dataset1) + 1
    assert abs(median(list(w.dataset1), w.output) - median(list(w.dataset2), w.output)) == sympy.Rational(1, 2)


def test_rules_alone_are_sound_but_looser():
    """Where the joint encoding does not apply (a mean), the lifting rules still give a sound bound."""
    schema, outputs = RecordSchema(x=IntRange(0, 4)), OutputSpace(r=IntRange(0, 4))
    q = QualityFunction(-sympy.Abs(mean(schema["x"]) - outputs["r"]), schema=schema, outputs=outputs)
    result = prove_sensitivity(q, neighbours="add-remove")
    assert result.status is Status.PROVED and result.method == "lifted"
    assert sympy.simplify(result.bound - 4 / (n + 1)) == 0


def test_solver_budget_exhaustion_is_never_a_proof():
    """With an rlimit too small to finish, the result is not PROVED (the exhaustive check may still say BOUNDED)."""
    median = next(e for e in CATALOGUE if e.name == "median").quality
    result = prove_sensitivity(median, neighbours="replace-one", claimed=1, rlimit=1)
    assert result.status in (Status.UNKNOWN, Status.BOUNDED)
    assert "solver inconclusive" in result.reason
    assert result.proved_bound is None


def test_no_rule_falls_back_to_a_bounded_check():
    """A product of aggregates has no lifting rule: the result is BOUNDED, stating the size checked."""
    schema, outputs = RecordSchema(x=IntRange(0, 2)), OutputSpace(r=IntRange(0, 1))
    q = QualityFunction(count(schema["x"] <= outputs["r"]) * count(schema["x"] >= 1), schema=schema, outputs=outputs)
    result = prove_sensitivity(q, neighbours="replace-one")
    assert result.status is Status.BOUNDED and result.bounded_size is not None
    assert "no lifting rule" in result.reason


@pytest.mark.parametrize(
    "kwargs, error, text",
    [
        ({"neighbours": "swap"}, InvalidArgument, "neighbours='swap'"),
        ({"neighbours": "replace-one", "claimed": -1}, InvalidArgument, "must be a rational >= 0"),
        ({"neighbours": "replace-one", "claimed": sympy.Symbol("m")}, InvalidArgument, "expression in n"),
        ({"neighbours": "replace-one", "claimed": 0.5}, InvalidArgument, "exact rational"),
        ({"neighbours": "replace-one", "rlimit": 0}, InvalidArgument, "rlimit=0"),
    ],
)
def test_bad_arguments(kwargs, error, text):
    """Bad options are refused by name."""
    median = next(e for e in CATALOGUE if e.name == "median").quality
    with pytest.raises(error, match=text):
        prove_sensitivity(median, **kwargs)


def test_black_boxes_are_sent_to_the_falsifier():
    """A plain callable cannot be proved; the error says what to use instead."""
    with pytest.raises(InvalidType, match="use falsify"):
        prove_sensitivity(lambda d, r: 0, neighbours="replace-one")


# -- soundness on generated quality functions ---------------------------------------------

SCHEMA = RecordSchema(x=IntRange(0, 3), y=Booleans())
OUTPUTS = OutputSpace(r=IntRange(0, 2))
X, Y, R = SCHEMA["x"], SCHEMA["y"], OUTPUTS["r"]
RECORDS = [{"x": a, "y": b} for a in range(4) for b in (False, True)]

leaves = st.sampled_from(
    [
        count(X <= R),
        count(sympy.Eq(Y, 1)),
        total(X),
        total(sympy.Min(X, R)),
        mean(X),
        size(),
        R,
        sympy.Integer(2),
        count(X >= 2) / size(),
    ]
)


def _combine(children):
    return st.one_of(
        st.tuples(children, children).map(lambda p: p[0] + p[1]),
        st.tuples(st.integers(-2, 2), children).map(lambda p: p[0] * p[1]),
        children.map(sympy.Abs),
        st.tuples(children, children).map(lambda p: sympy.Max(p[0], p[1])),
        st.tuples(children, children).map(lambda p: sympy.Min(p[0], p[1])),
        children.map(lambda c: R * c),
        children.map(lambda c: -c),
    )


expressions = st.recursive(leaves, _combine, max_leaves=5)


def _exhaustive_max(q, relation, max_size):
    """Largest |q(D, r) − q(D', r)| per size over all neighbouring pairs of tuples (an independent path).

    Under add-remove the empty dataset is a size like any other wherever q is defined on it."""
    largest = {}
    first = 1
    if relation is Neighbours.ADD_REMOVE:
        try:
            for r in range(3):
                q([], r)
            first = 0
        except QualityError:
            pass
    for k in range(first, max_size + 1):
        for data in itertools.product(RECORDS, repeat=k):
            data = list(data)
            if relation is Neighbours.REPLACE_ONE:
                others = [data[:i] + [rec] + data[i + 1 :] for i in range(k) for rec in RECORDS]
            else:
                others = [data + [rec] for rec in RECORDS]
            for other in others:
                for r in range(3):
                    gap = abs(q(data, r) - q(other, r))
                    largest[k] = max(largest.get(k, Fraction(0)), gap)
    return largest


#: The least share of generated qualities whose free bound must be PROVED (so a prover answering UNKNOWN to
#: everything fails the soundness properties below instead of passing them vacuously).
MIN_PROVED_SHARE = 0.7  # measured: 25 of 25 PROVED on seeds 1, 2, 3
_free_statuses: list[Status] = []


def _check_free_bound(q, relation, largest, *, search_size):
    """Hold a PROVED free bound to the exhaustive maxima (the empty dataset included); return the status."""
    free = prove_sensitivity(q, neighbours=relation, search_size=search_size)
    _free_statuses.append(free.status)
    if free.status is Status.PROVED:
        for k, gap in largest.items():
            if k == 0 and free.hypotheses:
                continue  # stated for n >= 1
            assert gap <= sympy.Rational(free.bound.subs(n, k)), (q.expr, k, gap, free.bound)
    return free


def _share_proved():
    return sum(1 for s in _free_statuses if s is Status.PROVED) / max(1, len(_free_statuses))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions, st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE]), st.fractions(0, 4, max_denominator=4))
def _proved_bounds_are_never_exceeded_and_counterexamples_are_real(expr, relation, claim):
    try:
        q = QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)
    except InvalidArgument:
        assume(False)  # e.g. a bare output variable combination that is not numeric
        return
    largest = _exhaustive_max(q, relation, 2)
    _check_free_bound(q, relation, largest, search_size=2)
    claimed = prove_sensitivity(q, neighbours=relation, claimed=claim, search_size=2)
    if claimed.status is Status.REFUTED:
        c = claimed.counterexample
        assert abs(q(list(c.dataset1), c.output) - q(list(c.dataset2), c.output)) > claim
    if claimed.status is Status.PROVED:
        assert all(gap <= claim for gap in largest.values())


def test_proved_bounds_are_never_exceeded_and_counterexamples_are_real():
    """PROVED: no neighbouring pair (exhaustive, n <= 2, the empty dataset included) exceeds the bound; REFUTED: the
    counterexample exceeds the claim; and at least MIN_PROVED_SHARE of the free bounds are PROVED."""
    _free_statuses.clear()
    _proved_bounds_are_never_exceeded_and_counterexamples_are_real()
    assert _share_proved() >= MIN_PROVED_SHARE, f"only {_share_proved():.0%} of {len(_free_statuses)} PROVED"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions, st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE]))
def _proved_bounds_hold_exhaustively_up_to_three_records(expr, relation):
    try:
        q = QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)
    except InvalidArgument:
        assume(False)
        return
    _check_free_bound(q, relation, _exhaustive_max(q, relation, 3), search_size=3)


@pytest.mark.slow
def test_proved_bounds_hold_exhaustively_up_to_three_records():
    """Slow tier: the same soundness check over every dataset of up to 3 records, with the same PROVED share."""
    _free_statuses.clear()
    _proved_bounds_hold_exhaustively_up_to_three_records()
    assert _share_proved() >= MIN_PROVED_SHARE, f"only {_share_proved():.0%} of {len(_free_statuses)} PROVED"
