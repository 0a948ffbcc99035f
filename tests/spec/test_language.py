"""The quality-function language: validation, canonical form, exact evaluation."""

from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, WRONG_CATALOGUE, ExponentialMechanism
from expmech.spec import (
    Booleans,
    Categories,
    Grid,
    IntRange,
    InvalidArgument,
    InvalidType,
    Neighbours,
    OutputSpace,
    QualityError,
    QualityFunction,
    RationalRange,
    RecordSchema,
    count,
    max_over,
    mean,
    size,
    total,
)

SCHEMA = RecordSchema(x=IntRange(0, 10), w=RationalRange(0, 1), flag=Booleans(), c=Categories(("a", "b")))
OUTPUTS = OutputSpace(r=IntRange(0, 10))
x, w, flag, c = (SCHEMA[name] for name in ("x", "w", "flag", "c"))
r = OUTPUTS["r"]

records = st.fixed_dictionaries(
    {
        "x": st.integers(0, 10),
        "w": st.fractions(0, 1, max_denominator=8),
        "flag": st.booleans(),
        "c": st.sampled_from(["a", "b"]),
    }
)


@given(st.lists(records, min_size=1, max_size=6), st.integers(0, 10))
def test_aggregates_evaluate_exactly(data, out):
    """count, total, size and mean agree with direct Python computation over Fractions."""
    expr = count(x <= r) + 2 * total(w) - mean(x * w) + size() * count(flag) + count(sympy.Eq(c, 1))
    q = QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)
    expected = (
        sum(1 for d in data if d["x"] <= out)
        + 2 * sum(d["w"] for d in data)
        - Fraction(sum(d["x"] * d["w"] for d in data)) / len(data)
        + len(data) * sum(1 for d in data if d["flag"])
        + sum(1 for d in data if d["c"] == "b")
    )
    assert q(data, out) == expected
    assert isinstance(q(data, out), Fraction)


def test_composition_operators():
    """Abs, Max, Min, Piecewise and max_over evaluate as defined."""
    h = sympy.Symbol("h", integer=True)
    expr = sympy.Piecewise((sympy.Abs(count(x <= r) - 3), r < 5), (sympy.Max(count(flag), total(w)), True))
    expr = expr + max_over(count(x >= h), h, [2, 4]) - sympy.Min(r, 2)
    q = QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)
    data = [{"x": 1, "w": Fraction(1, 2), "flag": True, "c": "a"}, {"x": 5, "w": 1, "flag": False, "c": "b"}]
    # r = 1: |1 − 3| = 2; max_over: #{x >= 2} = 1, #{x >= 4} = 1 → 1; − min(1, 2) = −1
    assert q(data, 1) == 2 + 1 - 1
    # r = 7: max(1, 3/2) = 3/2; + 1 − 2
    assert q(data, 7) == Fraction(3, 2) + 1 - 2


def test_canonical_form_and_hash_are_stable_and_discriminating():
    """Equal expressions built differently share a hash; a changed constant changes it."""
    a = QualityFunction(-sympy.Abs(count(x <= r) - size() / 2), schema=SCHEMA, outputs=OUTPUTS)
    b = QualityFunction(-sympy.Abs(-size() / 2 + count(x <= r)), schema=SCHEMA, outputs=OUTPUTS)
    c3 = QualityFunction(-sympy.Abs(count(x <= r) - size() / 3), schema=SCHEMA, outputs=OUTPUTS)
    assert a.sha256 == b.sha256 and a == b
    assert a.sha256 != c3.sha256
    other_domain = QualityFunction(
        -sympy.Abs(count(x <= r) - size() / 2), schema=SCHEMA, outputs=OutputSpace(r=IntRange(0, 9))
    )
    assert other_domain.sha256 != a.sha256
    assert a.canonical_text.startswith("expmech-quality/1\n")


@pytest.mark.parametrize(
    "expr, text",
    [
        (x + r, "record field 'x' is used outside an aggregate"),
        (count(x <= r) + sympy.Symbol("z"), "unknown symbol 'z'"),
        (sympy.sin(r), "operation sin"),
        (r * sympy.Float(0.5), "inexact number"),
        (count(x <= r) ** sympy.Rational(1, 2), "integer exponent"),
        (sympy.Function("f")(r), "not in the quality-function language"),
        (total(count(x <= 1) * x), "nested inside total"),
    ],
)
def test_malformed_expressions_are_refused_by_name(expr, text):
    """Expressions outside the language get an error naming the offending part."""
    with pytest.raises(InvalidArgument, match=text):
        QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)


def test_predicates_and_numbers_are_not_confused():
    """A predicate is not a quality; a number is not a predicate."""
    with pytest.raises(InvalidType, match="must be numeric"):
        QualityFunction(count(x <= r) > 1, schema=SCHEMA, outputs=OUTPUTS)
    with pytest.raises(InvalidType, match="needs a predicate"):
        count(x + 1)
    with pytest.raises(InvalidType, match="needs a numeric expression"):
        total(x <= 1)


@pytest.mark.parametrize(
    "data, out, text",
    [
        ([{"x": 11, "w": 0, "flag": 0, "c": "a"}], 1, r"dataset\[0\]\['x'\]=11 is outside IntRange\(0, 10\)"),
        ([{"x": 1, "w": 2, "flag": 0, "c": "a"}], 1, r"dataset\[0\]\['w'\]=2 is outside RationalRange"),
        ([{"x": 1, "w": 0, "flag": 0, "c": "z"}], 1, r"dataset\[0\]\['c'\]='z' is outside Categories"),
        ([{"x": 1, "w": 0, "flag": 0}], 1, "dataset\\[0\\] is missing field 'c'"),
        ([{"x": 1, "w": 0, "flag": 0, "c": "a", "y": 1}], 1, "unknown field 'y'"),
        ([{"x": 1, "w": 0, "flag": 2, "c": "a"}], 1, "outside Booleans"),
        ([{"x": 1, "w": 0, "flag": 0, "c": "a"}], 11, r"r=11 is outside IntRange\(0, 10\)"),
    ],
)
def test_bad_data_is_refused_by_name(data, out, text):
    """Records and outputs outside their domains are refused, never evaluated."""
    q = QualityFunction(count(x <= r), schema=SCHEMA, outputs=OUTPUTS)
    with pytest.raises(InvalidArgument, match=text):
        q(data, out)


def test_the_empty_dataset_is_a_dataset_where_q_is_defined():
    """Counts, totals and size are 0 on the empty dataset; a mean there is an error, not a number."""
    assert QualityFunction(count(x <= r) + total(w) + size() + 2, schema=SCHEMA, outputs=OUTPUTS)([], 1) == 2
    with pytest.raises(QualityError, match="empty"):
        QualityFunction(mean(x) - r, schema=SCHEMA, outputs=OUTPUTS)([], 1)
    with pytest.raises(QualityError, match="division by zero"):
        QualityFunction(count(x <= r) / size(), schema=SCHEMA, outputs=OUTPUTS)([], 1)


def test_piecewise_without_a_branch_is_an_error():
    """A Piecewise with no applicable branch raises, it does not return a number."""
    q = QualityFunction(sympy.Piecewise((count(x <= r), r < 3)), schema=SCHEMA, outputs=OUTPUTS)
    with pytest.raises(QualityError, match="no branch"):
        q([{"x": 1, "w": 0, "flag": 0, "c": "a"}], 5)


def test_multi_variable_outputs():
    """Several output variables give tuple outputs (or mappings), all validated."""
    out = OutputSpace(a=IntRange(0, 1), b=Grid((0, Fraction(1, 2))))
    q = QualityFunction(out["a"] + out["b"] + count(x <= 3), schema=SCHEMA, outputs=out)
    assert q.outputs() == ((0, 0), (0, Fraction(1, 2)), (1, 0), (1, Fraction(1, 2)))
    data = [{"x": 1, "w": 0, "flag": 0, "c": "a"}]
    assert q(data, (1, Fraction(1, 2))) == Fraction(5, 2) == q(data, {"a": 1, "b": Fraction(1, 2)})
    with pytest.raises(InvalidArgument, match="has 1 values; expected 2"):
        q(data, (1,))
    with pytest.raises(InvalidArgument, match=r"r.b=1/3 is outside Grid"):
        q(data, (1, Fraction(1, 3)))


def test_bad_schemas():
    """Schemas refuse non-domains, bad names, empty field sets, inverted ranges and name clashes."""
    with pytest.raises(InvalidType, match="expected a Domain"):
        RecordSchema(x=5)
    with pytest.raises(InvalidArgument, match="at least one"):
        RecordSchema()
    with pytest.raises(InvalidArgument, match="lo=3 must be <= hi=1"):
        IntRange(3, 1)
    with pytest.raises(InvalidArgument, match="names both"):
        QualityFunction(count(x <= 1), schema=SCHEMA, outputs=OutputSpace(x=IntRange(0, 1)))
    with pytest.raises(InvalidArgument, match="must be one of"):
        Neighbours.parse("swap")
    assert Neighbours.parse("add-remove") is Neighbours.ADD_REMOVE


@pytest.mark.parametrize("entry", CATALOGUE + WRONG_CATALOGUE, ids=lambda e: e.name)
def test_catalogue_entries_plug_into_the_mechanism(entry):
    """Every catalogue quality runs in ExponentialMechanism with its own outputs, exactly."""
    q = entry.quality
    record = {}
    for name, _, domain in q.schema.items():
        record[name] = domain.values()[0] if domain.is_finite else 0
    mech = ExponentialMechanism(q, epsilon=entry.epsilon, outputs=q.outputs())
    dist = mech.distribution([record, record])
    assert dist.mass(q.outputs()) == 1
    assert len(q.sha256) == 64
