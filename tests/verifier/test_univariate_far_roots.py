"""A side condition in n alone is decided exactly whatever its constants: roots far below 0 do not stop the decision.

The verifier decides such a condition by checking every size up to a bound past which no polynomial whose sign
matters changes sign.  A constant past 2**61 (``1/(size() + 2**61)``) put Cauchy's bound, which counts the negative
roots too, past the 100,000 sizes it checks one by one, so an honest Δq the prover PROVES was not confirmed.  Generated
products with one root far below 0 and roots between 0 and 200 are held to a brute force over every size.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from checker_tools import in_verifier_terms, judge, statement_for
from expmech.proofs import Status, prove_sensitivity
from expmech.proofs.checker._formula import Obligation, Var, holds
from expmech.proofs.checker._univariate import decide_univariate
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, size

N = ("v", "n")


def _product(far: int, roots: list[Fraction], sign: int) -> tuple[Any, ...]:
    """``sign·(n + far)·Π (n − root)`` as a term."""
    factors = [("+", N, ("k", Fraction(far)))] + [("+", N, ("k", -root)) for root in roots]
    return ("*", ("k", Fraction(sign)), *factors)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**70), st.lists(st.integers(0, 400).map(lambda h: Fraction(h, 2)), max_size=4), st.sampled_from([1, -1]),
       st.sampled_from(["<", "<="]), st.integers(0, 3))
def test_a_condition_with_a_far_negative_root_is_decided_as_the_brute_force(far, roots, sign, relation, start):
    """``p(n) < 0`` (or ``<= 0``) with p = ±(n + far)·Π(n − rᵢ), 0 <= rᵢ <= 200: decided, and violated exactly where
    some size from ``start`` on violates it (past the largest root p has the sign of its lead)."""
    formula = (relation, _product(far, roots, sign), ("k", Fraction(0)))
    obligation = Obligation("1", "p(n) is not negative", formula, (Var("n", True, Fraction(start), None),))
    violated = any(holds(formula, {"n": Fraction(size)}) for size in range(start, 203)) or sign < 0
    why = decide_univariate(obligation)
    assert (why is not None) == violated, (far, roots, sign, relation, start, why)
    if why is not None:
        assert why.startswith("fails at n = "), why


def test_the_provers_delta_of_a_size_shifted_past_two_to_the_61_is_accepted():
    """1/(size() + 2**61) under add-remove: the prover's PROVED Δq = 1/((n + 2**61)(n + 2**61 + 1)) is accepted."""
    schema, outputs = RecordSchema(x=IntRange(0, 1)), OutputSpace(r=IntRange(0, 1))
    q = QualityFunction(1 / (size() + sympy.Integer(2**61)), schema=schema, outputs=outputs)
    result = prove_sensitivity(q, neighbours="add-remove", rlimit=1_000_000, search_budget=20_000)
    assert result.status is Status.PROVED and result.derivation is not None
    data = statement_for(q, "add-remove")
    verdict = judge(data, in_verifier_terms(json.loads(json.dumps(result.derivation)), data, q), forge=False)
    assert verdict.accepted, verdict
