"""The vectorised exact evaluator agrees with the spec interpreter, value for value and error for error."""

from fractions import Fraction

import numpy as np
import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, WRONG_CATALOGUE
from expmech.impl.exact._rationals import LIMIT, RationalArray
from expmech.impl.quality._vectorised import VectorisedQuality
from expmech.proofs.strategies import datasets, outputs
from expmech.spec import IntRange, InvalidArgument, OutputSpace, QualityError, QualityFunction, RecordSchema, count, size, total
from strategies import language_quality_functions as quality_functions


def interpreted(quality, dataset, points):
    """The spec interpreter's scores, or the QualityError it raises."""
    try:
        return quality.scores(dataset, points)
    except QualityError as error:
        return type(error)


def vectorised(quality, dataset, points):
    try:
        return VectorisedQuality(quality).scores(dataset, points).to_list()
    except QualityError as error:
        return type(error)


@settings(max_examples=150)
@given(st.data(), quality_functions())
def test_generated_expressions_agree_with_the_interpreter(data, quality):
    """Every operation, aggregate and domain: equal exact scores, or the same error."""
    dataset = data.draw(st.just([]) | datasets(quality.schema, max_size=5))  # the empty dataset too
    points = data.draw(st.lists(outputs(quality.output_space), min_size=1, max_size=6))
    assert vectorised(quality, dataset, points) == interpreted(quality, dataset, points)


@settings(max_examples=40)
@given(st.data(), quality_functions(max_depth=2))
def test_many_datasets_at_once_equal_one_at_a_time(data, quality):
    """evaluate() over a count matrix equals scoring each multiset separately."""
    evaluator = VectorisedQuality(quality)
    pool = data.draw(st.lists(st.from_type(type(None)).flatmap(lambda _: datasets(quality.schema, min_size=1, max_size=1)), min_size=1, max_size=4))
    records = [quality.encode_dataset(r)[0] for r in pool]
    keys = list(dict.fromkeys(tuple(sorted(r.items(), key=lambda kv: kv[0].name)) for r in records))
    distinct = [dict(k) for k in keys]
    counts = np.array(data.draw(st.lists(st.lists(st.integers(0, 3), min_size=len(distinct), max_size=len(distinct)), min_size=1, max_size=4)))
    points = data.draw(st.lists(outputs(quality.output_space), min_size=1, max_size=5))
    batch = evaluator.encode_outputs(points)
    try:
        matrix = evaluator.evaluate(evaluator.records(distinct), counts, batch)
    except QualityError:
        matrix = None
    for j, row in enumerate(counts.tolist()):
        codes = [record for record, c in zip(distinct, row) for _ in range(c)]
        try:
            expected = quality.evaluate_many(codes, [quality.output_space.encode(r) for r in points])
        except QualityError:
            assert matrix is None
            continue
        if matrix is not None:
            assert matrix[j].to_list() == expected


def test_catalogue_scores_agree_on_every_output():
    """Each catalogue entry over its whole output space, on a few datasets."""
    import random

    rng = random.Random(3)
    from expmech.proofs.certificate.make._derive import random_record as _random_record

    for entry in CATALOGUE + WRONG_CATALOGUE:
        quality = entry.quality
        points = quality.outputs()
        for _ in range(3):
            dataset = [_random_record(quality, rng) for _ in range(rng.randint(1, 7))]
            assert VectorisedQuality(quality).scores(dataset, points).to_list() == quality.scores(dataset, points)


def test_values_beyond_int64_stay_exact():
    """Products and sums past 2**63 move to Python integers instead of wrapping around."""
    schema, space = RecordSchema(x=IntRange(0, 10**6)), OutputSpace(r=IntRange(0, 3))
    big = sympy.Integer(2**62)
    quality = QualityFunction(total(schema["x"]) * big * big - space["r"] * big + Fraction(1, 3), schema=schema, outputs=space)
    dataset = [10**6, 10**6 - 1, 7]
    assert VectorisedQuality(quality).scores(dataset, [0, 1, 2, 3]).to_list() == quality.scores(dataset, [0, 1, 2, 3])


def test_rational_array_overflow_bound_promotes():
    """RationalArray arithmetic promotes to object integers at the int64 limit."""
    a = RationalArray.of([LIMIT - 1, -(LIMIT - 1), 5])
    b = RationalArray.of([LIMIT - 1, 3, Fraction(1, 7)])
    assert (a + b).to_list() == [2 * (LIMIT - 1), -(LIMIT - 1) + 3, 5 + Fraction(1, 7)]
    assert (a * b).to_list() == [(LIMIT - 1) ** 2, -3 * (LIMIT - 1), Fraction(5, 7)]
    assert a.compare(b).tolist() == [0, -1, 1]


def test_division_by_zero_in_an_untaken_branch_is_not_an_error():
    """Piecewise((1/r, r != 0), (0, True)) at r = 0 is 0, as in the interpreter."""
    schema, space = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(-2, 2))
    r = space["r"]
    quality = QualityFunction(sympy.Piecewise((count(schema["x"] >= 1) / r, sympy.Ne(r, 0)), (size(), True)), schema=schema, outputs=space)
    points = [-2, -1, 0, 1, 2]
    assert VectorisedQuality(quality).scores([1, 2, 0], points).to_list() == quality.scores([1, 2, 0], points)


def test_bad_records_and_outputs_are_refused_by_name():
    """Out-of-domain records and outputs raise InvalidArgument, as the interpreter does."""
    quality = CATALOGUE[0].quality
    evaluator = VectorisedQuality(quality)
    with pytest.raises(InvalidArgument, match="dataset"):
        evaluator.scores([1, 99], quality.outputs())
    with pytest.raises(InvalidArgument, match="r="):
        evaluator.encode_outputs([0, 16])
    with pytest.raises(InvalidArgument):
        evaluator.encode_outputs([True])


@st.composite
def linear_qualities(draw):
    """Adds with many terms c·r over several output variables, beside data terms; coefficients up to 2^60."""
    names = [f"r{i}" for i in range(draw(st.integers(4, 7)))]
    bounds = {name: draw(st.sampled_from([(0, 4), (-5, 5), (0, 2**40), (-(2**55), 2**55)])) for name in names}
    schema = RecordSchema(x=IntRange(0, 5))
    space = OutputSpace({name: IntRange(lo, hi) for name, (lo, hi) in bounds.items()})
    coefficient = st.one_of(st.integers(-3, 3), st.fractions(min_value=-5, max_value=5, max_denominator=12), st.sampled_from([2**52, -(2**60), Fraction(1, 2**50)]))
    terms = [draw(coefficient) * space[name] for name in names]
    extra = draw(st.sampled_from([sympy.Integer(0), count(schema["x"] >= 2) / size(), total(schema["x"]), sympy.Rational(7, 3)]))
    expr = sympy.Add(*terms, extra)
    if draw(st.booleans()):
        expr = sympy.Abs(expr)
    return QualityFunction(expr, schema=schema, outputs=space)


@settings(max_examples=80)
@given(st.data(), linear_qualities())
def test_linear_forms_in_outputs_agree_with_the_interpreter(data, quality):
    """Σ c·r evaluated as one float64 product is exact where the bound allows it, and exact by the slow path elsewhere."""
    dataset = data.draw(datasets(quality.schema, min_size=1, max_size=4))
    points = data.draw(st.lists(outputs(quality.output_space), min_size=1, max_size=8))
    assert vectorised(quality, dataset, points) == interpreted(quality, dataset, points)


def test_linear_forms_at_the_float_limit():
    """Weights × values just below and just above 2^53: both exact (the product, then the one-by-one path)."""
    schema = RecordSchema(x=IntRange(0, 1))
    space = OutputSpace({f"r{i}": IntRange(0, 2**49) for i in range(4)})
    for weight in (3, 4, 5):  # Σ|a|·max|r| = 4·weight·2^49: below 2^53 only for weight 3
        quality = QualityFunction(sympy.Add(*[weight * space[f"r{i}"] for i in range(4)]) + size(), schema=schema, outputs=space)
        points = [(2**49, 2**49, 2**49, 2**49 - 1), (1, 2**49 - 3, 0, 7)]
        assert VectorisedQuality(quality).scores([1, 0], points).to_list() == quality.scores([1, 0], points)


def test_encoded_outputs_behave_as_the_list_of_dicts():
    """OutputSpace.encode_all gives the same codes and errors as encode, as a lazy sequence with set membership."""
    space = OutputSpace(a=IntRange(0, 3), b=IntRange(-2, 2))
    values = [(0, -2), (3, 2), (1, 0)]
    encoded = space.encode_all(values)
    assert list(encoded) == [space.encode(r) for r in values] and len(encoded) == 3
    assert encoded[1] == space.encode((3, 2)) and list(encoded[1:]) == [space.encode(r) for r in values[1:]]
    assert space.encode((1, 0)) in encoded and space.encode((1, 1)) not in encoded and {} not in encoded
    for bad in ([(4, 0)], [(0, 3)], [(True, 0)], [(0, 1.0)], [(0,)]):
        with pytest.raises(InvalidArgument) as fast:
            space.encode_all(bad, name="outputs[…]")
        with pytest.raises(InvalidArgument) as slow:
            space.encode(bad[0], name="outputs[…]")
        assert str(fast.value) == str(slow.value)
    single = OutputSpace(r=IntRange(0, 5))
    assert list(single.encode_all([5, 0])) == [single.encode(5), single.encode(0)]
    with pytest.raises(InvalidArgument):
        single.encode_all([6])


@st.composite
def extremes_of_linear_forms(draw):
    """Max/Min of many |data term − Σ c·r| (the synthetic-data quality's shape), unevaluated, with mixed denominators,
    coefficients up to 2^60 and a constant beside them."""
    names = [f"r{i}" for i in range(draw(st.integers(4, 6)))]
    bound = draw(st.sampled_from([4, 4, 2**40, 2**55]))  # 2^55: no form is exact in float64
    schema = RecordSchema(x=IntRange(0, 5))
    space = OutputSpace({name: IntRange(-bound, bound) for name in names})
    small = st.one_of(st.integers(1, 3), st.integers(-3, -1), st.fractions(min_value=-5, max_value=5, max_denominator=12))
    huge = st.sampled_from([2**52, -(2**60)])
    data_terms = [count(schema["x"] >= 2) / size(), total(schema["x"]) / 3, sympy.Rational(7, 3), size()]
    args = []
    for _ in range(draw(st.integers(3, 8))):
        coefficient = huge if draw(st.integers(0, 4)) == 0 else small  # now and then a form past the float64 bound
        linear = sympy.Add(*[draw(coefficient) * space[name] for name in names])
        args.append(sympy.Abs(draw(st.sampled_from(data_terms)) - linear, evaluate=False))
    args.append(sympy.Rational(draw(st.integers(-50, 50)), draw(st.integers(1, 2**40))))
    kind = draw(st.sampled_from([sympy.Max, sympy.Min]))
    return QualityFunction(-kind(*args, evaluate=False), schema=schema, outputs=space)


@settings(max_examples=60)
@given(st.data(), extremes_of_linear_forms(), st.booleans())
def test_extremes_of_many_linear_forms_on_one_batch_agree_with_the_interpreter(data, quality, tiny_cache):
    """One encoded batch scored on several datasets (its linear forms kept between them, or — past the cache's
    limit — recomputed each time): every score equals the interpreter's; Max/Min by one numpy call where the
    scaled numerators fit int64, by exact comparison elsewhere."""
    from unittest import mock

    from expmech.impl.quality import _vectorised

    evaluator = VectorisedQuality(quality)
    points = data.draw(st.lists(outputs(quality.output_space), min_size=1, max_size=8))
    batch = evaluator.encode_outputs(points)
    with mock.patch.object(_vectorised, "_CACHE_LIMIT", 0 if tiny_cache else _vectorised._CACHE_LIMIT):
        for _ in range(3):
            dataset = data.draw(datasets(quality.schema, min_size=1, max_size=5))
            assert evaluator.scores(dataset, batch).to_list() == quality.scores(dataset, points)
    if tiny_cache:
        assert not [key for key in batch.cache if isinstance(key, tuple)]  # nothing kept past the limit


_ONE_FIELD_VALUES = st.one_of(
    st.integers(-3, 12),  # past both ends of IntRange(0, 9) too
    st.sampled_from([True, False, 1.0, 2.5, np.int64(3), "4", None, 2**70]),
)


@settings(max_examples=120)
@example(values=[1, True], container=list, lo=0, hi=9)  # equal hashes: 1 == True == 1.0 == np.int64(1)
@example(values=[0, 0, False], container=tuple, lo=None, hi=None)
@example(values=[2, 2.0], container=list, lo=0, hi=None)
@example(values=[3, np.int64(3)], container=list, lo=None, hi=9)
@example(values=[], container=list, lo=0, hi=9)
@example(values=[0, 9, 9], container=list, lo=0, hi=9)  # the two ends of the domain
@given(
    values=st.lists(_ONE_FIELD_VALUES, max_size=12),
    container=st.sampled_from([list, tuple]),
    lo=st.sampled_from([0, None]),
    hi=st.sampled_from([9, None]),
)
def test_a_list_of_ints_is_counted_as_the_interpreter_reads_it(values, container, lo, hi):
    """A one-integer-field dataset written as bare values (the counted fast path): the interpreter's scores, or the
    same error naming the same record; ``True`` beside ``1`` and ``1.0`` are never counted as ``1``."""
    schema, space = RecordSchema(x=IntRange(lo, hi)), OutputSpace(r=IntRange(0, 9))
    quality = QualityFunction(-sympy.Abs(count(schema["x"] <= space["r"]) - size() / 2) + total(schema["x"]) / 7, schema=schema, outputs=space)
    dataset, points = container(values), list(range(10))
    try:
        expected = quality.scores(dataset, points)
    except Exception as error:  # noqa: BLE001 - the interpreter's refusal, compared below
        with pytest.raises(type(error)) as caught:
            VectorisedQuality(quality).scores(dataset, points)
        assert str(caught.value) == str(error)
        return
    evaluator = VectorisedQuality(quality)
    assert evaluator.scores(dataset, points).to_list() == expected
    records, counts = evaluator.dataset(dataset)  # the interpreter's fallback reads the same records' codes
    assert evaluator._interpret(records, counts, evaluator.encode_outputs(points))[0].to_list() == expected
