"""Qualities undefined at some dataset size: a QualityError or a result that is not PROVED, under either relation.

``Max(0, 1/(size() − 5))`` divides by zero on every dataset of 5 records.
Under add-remove it raised a bare ``ValueError`` ("zoo is not comparable")
from sympy, where replace-one answered UNKNOWN.  Now both relations behave
alike: the definedness query's model names the size, a dataset of that size
is evaluated, and the division by zero is a :class:`QualityError` naming it
(a pole beyond the sizes tried concretely leaves the result UNKNOWN).
"""

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs import Status, prove_sensitivity
from expmech.spec import IntRange, OutputSpace, QualityError, QualityFunction, RecordSchema, count, mean, size

SCHEMA = RecordSchema(x=IntRange(0, 2))
OUTPUTS = OutputSpace(r=IntRange(0, 2))
X, R = SCHEMA["x"], OUTPUTS["r"]


def _shapes(pole):
    inverse = 1 / (size() - pole)
    return [
        sympy.Max(0, inverse),
        sympy.Min(1, -inverse),
        count(X >= 1) + inverse,
        sympy.Piecewise((inverse, R >= 1), (count(X >= R), True)),
        mean(X) + sympy.Max(R, inverse),
        sympy.Abs(inverse) * 2 - count(X >= R),
    ]


def _outcome(quality, relation):
    try:
        result = prove_sensitivity(quality, neighbours=relation)
    except QualityError as error:
        return "QualityError", str(error)
    assert result.status is not Status.PROVED, (quality, relation, result.reason)
    return result.status.name, result.reason


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 300), st.integers(0, 5))
def test_a_pole_at_a_generated_size_is_never_a_crash_or_a_proof(pole, shape):
    """Any pole n = 1..300: QualityError (naming the division) or a non-PROVED result, the same kind for both relations."""
    quality = QualityFunction(_shapes(pole)[shape], schema=SCHEMA, outputs=OUTPUTS)
    outcomes = {relation: _outcome(quality, relation) for relation in ("replace-one", "add-remove")}
    kinds = {kind for kind, _ in outcomes.values()}
    assert len(kinds) == 1, outcomes
    if kinds == {"QualityError"}:
        assert all("divides by zero" in text for _, text in outcomes.values()), outcomes


def test_the_issue_example():
    """Max(0, 1/(size() − 5)): a QualityError naming the division and a dataset of 5 records, under both relations."""
    quality = QualityFunction(sympy.Max(0, 1 / (size() - 5)), schema=SCHEMA, outputs=OUTPUTS)
    for relation in ("replace-one", "add-remove"):
        kind, text = _outcome(quality, relation)
        assert kind == "QualityError" and "1/(Size() - 5) divides by zero" in text, text
