"""The direct range query tried at the concrete search's widest spread proves what z3 Optimize would have found.

Every concrete neighbouring pair is a point of the direct query's relaxation, so its maximum is at least the
widest spread found; ``d(y₁) − d(y₂) > guess`` unsat then makes the guess the maximum itself.  A guess below
the maximum must fall back to Optimize, and every route must give the bound Optimize alone gives.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.proofs.prover import _range_sensitivity as prover_range
from expmech.proofs.prover._rules import Prover
from expmech.proofs.prover._z3bridge import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, fresh_context
from expmech.spec import IntRange, Neighbours, OutputSpace, QualityError, QualityFunction, RecordSchema, count, size, total
from strategies import quality_functions


def _direct_value(quality: QualityFunction, relation: Neighbours, guess: Fraction | None) -> Fraction | None:
    with fresh_context():
        prover = Prover(quality, relation, DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS)
        prover.range_guess = guess
        try:
            return prover_range._direct(prover, quality.expr, 1)[0]
        except Exception:  # noqa: BLE001 - a query the route cannot take is no value either way
            return None


SCHEMA = RecordSchema(x=IntRange(0, 10**9))
OUTPUTS = OutputSpace(r=IntRange(0, 10**9))
X, R = SCHEMA["x"], OUTPUTS["r"]


@pytest.mark.parametrize(
    "expr",
    [-sympy.Abs(count(X <= R) - size() / 2), count(X <= R) - count(X >= R), total(sympy.Min(X, 3)) - count(sympy.Eq(X, R))],
)
@pytest.mark.parametrize("relation", list(Neighbours))
def test_any_guess_gives_the_bound_optimize_gives(expr: sympy.Expr, relation: Neighbours) -> None:
    """No guess, the exact maximum, one below it and one far below: the same proved bound (domains of 10⁹ values)."""
    quality = QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)
    alone = _direct_value(quality, relation, None)
    assert alone is not None
    for guess in (alone, alone - Fraction(1, 2), Fraction(-5)):
        assert _direct_value(quality, relation, guess) == alone


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(quality=quality_functions(finite=True), relation=st.sampled_from(list(Neighbours)))
def test_the_range_proof_with_its_search_guess_equals_the_proof_without(quality: QualityFunction, relation: Neighbours) -> None:
    """Generated qualities: the range-sensitivity result (status, bound, tightness) is the same with the guess as with
    Optimize alone, and each route's witness attains the bound (which pair does is not unique: ties pick either)."""
    def outcome() -> object:
        try:
            result = prover_range.prove_range_sensitivity(quality, neighbours=relation)
        except QualityError as error:  # q undefined somewhere: the same refusal either way
            return type(error)
        witness = result.witness
        assert witness is None or not result.tight or witness.spread == result.bound, (result.bound, witness)
        return (result.status, result.bound, result.tight, witness is None)

    with_guess = outcome()
    with pytest.MonkeyPatch.context() as patch:
        original = prover_range._direct

        def without(prover, expr, start):  # type: ignore[no-untyped-def]
            prover.range_guess = None
            return original(prover, expr, start)

        patch.setattr(prover_range, "_direct", without)
        alone = outcome()
    assert with_guess == alone
