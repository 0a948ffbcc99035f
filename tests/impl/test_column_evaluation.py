"""The interpreter in bulk (``evaluate_many``, one column of outputs at a time) equals it output by output."""

from __future__ import annotations

from fractions import Fraction

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.strategies import datasets, outputs
from expmech.spec import Booleans, IntRange, OutputSpace, QualityError, QualityFunction, RecordSchema, count, size
from strategies import language_quality_functions, quality_functions


def one_by_one(quality, records, codes):
    """``q`` output by output (``evaluate_codes``): the values, or the QualityError raised first."""
    try:
        return [quality.evaluate_codes(records, c) for c in codes]
    except QualityError as error:
        return type(error)


def in_bulk(quality, records, codes):
    try:
        return quality.evaluate_many(records, codes)
    except QualityError as error:
        return type(error)


def encoded(quality, dataset, points):
    return quality.encode_dataset(dataset), [quality.output_space.encode(p) for p in points]


@settings(max_examples=200)
@given(st.data(), st.one_of(language_quality_functions(), quality_functions()))
def test_generated_expressions_in_bulk_equal_output_by_output(data, quality):
    """Every operation, aggregate, domain and constant size: the same exact values, or the same error."""
    dataset = data.draw(st.just([]) | datasets(quality.schema, max_size=5))  # the empty dataset too
    points = data.draw(st.lists(outputs(quality.output_space), min_size=1, max_size=8))
    records, codes = encoded(quality, dataset, points)
    got = in_bulk(quality, records, codes)
    assert got == one_by_one(quality, records, codes)
    if isinstance(got, list):
        assert all(type(v) is Fraction for v in got)


@settings(max_examples=50)
@given(st.data(), language_quality_functions())
def test_the_bulk_path_itself_agrees(data, quality):
    """The column evaluator, where it answers, gives the interpreter's values (not only through its fallback)."""
    from expmech.spec._columns import Unsupported, compile_columns
    from expmech.spec._quality import compile_expression

    dataset = data.draw(datasets(quality.schema, min_size=1, max_size=4))
    points = data.draw(st.lists(outputs(quality.output_space), min_size=1, max_size=8))
    records, codes = encoded(quality, dataset, points)
    expected = one_by_one(quality, records, codes)
    try:
        got = compile_columns(quality.expr, compile_expression)({}, codes, records)
    except Unsupported:
        return
    assert got == expected


def test_a_large_affine_quality_is_taken_in_bulk_exactly():
    """The synthetic-data shape: -Max of |count/n - Σ c/m| over many queries, with denominators past 2**63."""
    schema = RecordSchema(x1=Booleans(), x2=Booleans())
    names = [f"c{i}" for i in range(6)]
    space = OutputSpace({name: IntRange(0, 2**70) for name in names})
    cs = [space[name] for name in names]
    m = sympy.Integer(2**64 + 13)
    terms = [sympy.Abs(count(schema["x1"]) / size() - sympy.Add(*cs[: k + 1]) / m, evaluate=False) for k in range(6)]
    quality = QualityFunction(-sympy.Max(*terms, evaluate=False), schema=schema, outputs=space)
    dataset = [{"x1": True, "x2": False}, {"x1": False, "x2": True}, {"x1": True, "x2": True}]
    points = [{name: (3 * i + 7 * j) * 2**60 for j, name in enumerate(names)} for i in range(20)]
    records, codes = encoded(quality, dataset, points)
    expected = [-max(abs(Fraction(2, 3) - Fraction(sum(p[n] for n in names[: k + 1]), 2**64 + 13)) for k in range(6)) for p in points]
    assert quality.evaluate_many(records, codes) == expected == one_by_one(quality, records, codes)
