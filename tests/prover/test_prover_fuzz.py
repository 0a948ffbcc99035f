"""The prover on generated quality functions over random schemas: a verdict or an ExpMechError, never a crash or a false PROVED.

Every construct the exact evaluator accepts is generated — Booleans as
conditions, Categories compared with ==, divisions that can see a zero,
Piecewise conditions on aggregates, powers — over field domains that often
exclude 0 and output spaces that may be infinite.  Where the domains are small
and finite, every PROVED bound is checked against an exhaustive exact
evaluation of every neighbouring pair (including the empty dataset under
add-remove unless the result states ``n >= 1``), and every REFUTED
counterexample is re-evaluated.
"""

import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from expmech.proofs import Status, falsify, prove_monotone, prove_sensitivity
from expmech.proofs.prover._search import all_records, decode_record
from expmech.spec import DATASET_SIZE, ExpMechError, Neighbours, QualityError
from strategies import GENERATED_PROVER_OPTIONS, quality_functions

relations = st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE])
claims = st.one_of(st.none(), st.fractions(0, 3, max_denominator=4), st.sampled_from([1 / DATASET_SIZE, 2 / (DATASET_SIZE + 1)]))
FAST = settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
OPTIONS = GENERATED_PROVER_OPTIONS
#: Each example certifies (seconds): a failure is reported as found, not after minutes of shrinking.
NO_SHRINK = [Phase.explicit, Phase.reuse, Phase.generate]


def _verdict_or_error(call):
    try:
        return call()
    except ExpMechError:
        return None


def _exhaustive(q, relation, max_size, include_empty):
    """Largest |q(D, r) − q(D', r)| per size over every neighbouring pair of record lists, or QualityError."""
    records = [decode_record(q, codes) for codes in all_records(q)]
    outputs = list(q.outputs())
    largest = {}
    for k in range(0 if include_empty else 1, max_size + 1):
        for data in itertools.combinations_with_replacement(records, k):
            data = list(data)
            if relation is Neighbours.REPLACE_ONE:
                if k == 0:
                    continue
                others = [[rec] + data[1:] for rec in records] + [data[:i] + [rec] + data[i + 1 :] for i in range(k) for rec in records]
            else:
                others = [data + [rec] for rec in records]
            for other in others:
                for r in outputs:
                    gap = abs(q(data, r) - q(other, r))
                    largest[k] = max(largest.get(k, Fraction(0)), gap)
    return largest


def _small(q):
    space = 1
    for _, _, domain in q.schema.items():
        if not domain.is_finite:
            return False
        space *= len(domain.codes())
    return space <= 6 and q.output_space.is_finite and len(q.outputs()) <= 6


def _check_sound(q, relation, claim, result, max_size=2):
    if result is None:
        return
    if result.status is Status.REFUTED:
        c = result.counterexample
        exact = abs(q(list(c.dataset1), c.output) - q(list(c.dataset2), c.output))
        assert claim is not None and exact == c.difference > sympy.Rational(sympy.sympify(claim).subs(DATASET_SIZE, c.size))
        return
    if result.status is not Status.PROVED or not _small(q):
        return
    include_empty = relation is Neighbours.ADD_REMOVE and not result.hypotheses
    largest = _exhaustive(q, relation, max_size, include_empty)  # a QualityError here would be a PROVED partial q
    bound = result.proved_bound
    for k, gap in largest.items():
        assert gap <= sympy.Rational(bound.subs(DATASET_SIZE, k)), (q.expr, relation, k, gap, bound, result.reason)
    if result.tight and result.witness is not None:
        w = result.witness
        assert abs(q(list(w.dataset1), w.output) - q(list(w.dataset2), w.output)) == w.difference


@FAST
@given(quality_functions(), relations, claims)
def test_prove_sensitivity_never_crashes_and_never_proves_falsely(q, relation, claim):
    """Any generated expression: a verdict or an ExpMechError; PROVED survives exhaustive exact evaluation."""
    result = _verdict_or_error(lambda: prove_sensitivity(q, neighbours=relation, claimed=claim, **OPTIONS))
    _check_sound(q, relation, claim, result)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(quality_functions(finite=True), relations)
def test_prove_monotone_and_falsify_never_crash(q, relation):
    """prove_monotone and falsify on generated expressions: a verdict or an ExpMechError."""
    monotone = _verdict_or_error(lambda: prove_monotone(q, neighbours=relation, rlimit=OPTIONS["rlimit"], timeout_ms=OPTIONS["timeout_ms"]))
    if monotone is not None and monotone.status is Status.REFUTED:
        d1, d2, up, down = monotone.counterexample
        assert q(list(d2), up) > q(list(d1), up) and q(list(d2), down) < q(list(d1), down)
    _verdict_or_error(lambda: falsify(q, neighbours=relation, claimed=1, outputs=q.outputs(), schema=q.schema, max_examples=8, max_size=3))


def test_a_division_that_can_see_zero_is_named():
    """Division by an output expression that is 0 somewhere is a QualityError naming the subexpression."""
    from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count

    schema, outputs = RecordSchema(x=IntRange(0, 4)), OutputSpace(r=IntRange(0, 4))
    q = QualityFunction(count(schema["x"] <= outputs["r"]) / (outputs["r"] - 2), schema=schema, outputs=outputs)
    with pytest.raises(QualityError, match=r"1/\(r - 2\) divides by zero at r=2"):
        prove_sensitivity(q, neighbours="replace-one", claimed=1)
    with pytest.raises(QualityError, match=r"division by zero evaluating .* at r=2 on") as raised:
        falsify(q, neighbours="replace-one", claimed=1, outputs=q.outputs(), schema=q.schema)
    assert "r=r" not in str(raised.value)  # the output is named once
    guarded = QualityFunction(
        sympy.Piecewise((count(schema["x"] <= outputs["r"]) / (outputs["r"] - 2), sympy.Ne(outputs["r"], 2)), (0, True)),
        schema=schema,
        outputs=outputs,
    )
    assert prove_sensitivity(guarded, neighbours="replace-one", claimed=1).status is Status.PROVED


@pytest.mark.slow
@SLOW
@given(quality_functions(), relations, claims)
def test_slow_prove_sensitivity_never_crashes_and_never_proves_falsely(q, relation, claim):
    """Slow tier: many more generated expressions, exhaustive checks up to 3 records."""
    result = _verdict_or_error(lambda: prove_sensitivity(q, neighbours=relation, claimed=claim, **OPTIONS))
    _check_sound(q, relation, claim, result, max_size=3)


@pytest.mark.parametrize("make", [lambda: (lambda d, r: 1 / (r - 2)), lambda: (lambda d, r: float("nan")), lambda: (lambda d, r: {}[r])])
def test_black_boxes_that_raise_get_a_quality_error(make):
    """falsify and exhaustive_check report a raising or NaN quality as QualityError, never the raw exception."""
    from expmech.proofs import exhaustive_check
    from expmech.spec import IntRange, RecordSchema

    quality = make()
    with pytest.raises(QualityError, match="r=2|quality"):
        falsify(quality, neighbours="replace-one", claimed=1, outputs=range(4), schema=RecordSchema(v=IntRange(0, 3)), max_examples=20)
    with pytest.raises(QualityError):
        exhaustive_check(quality, neighbours="add-remove", claimed=1, records=[0, 1], outputs=range(4), max_size=2)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(quality_functions())
def test_generated_quality_functions_survive_the_certificate_round_trip(q):
    """quality_from_json(quality_to_json(q)) is q: same canonical text and sha256, so check rebuilds what was certified."""
    from expmech.spec import quality_from_json, quality_to_json

    again = quality_from_json(quality_to_json(q))
    assert again == q and again.sha256 == q.sha256


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), phases=NO_SHRINK)
@given(quality_functions(finite=True), relations, claims)
def test_certify_never_crashes(q, relation, claim):
    """certify on generated expressions: a certificate (ε only where Δq is PROVED) or an ExpMechError."""
    from expmech.proofs import certify

    made = _verdict_or_error(lambda: certify(q, epsilon=1, neighbours=relation, claimed=claim, pairs=3, **OPTIONS))
    if made is not None and made.status is not Status.PROVED:
        assert made.epsilon is None
