"""Certificate files: the fast paths for large ranges change neither the data, the checks nor the digest."""

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.certificate.make._build import encode_value
from expmech.proofs.certificate.format._canonical import canonical_bytes, reduced_canonical_bytes
from expmech.proofs.certificate.format._layout import readable_json
from expmech.spec import InvalidArgument

SAFE = 2**53 - 1
scalars = st.one_of(st.integers(-(2**60), 2**60), st.booleans(), st.none(), st.text(max_size=4))
json_data = st.recursive(scalars, lambda inner: st.lists(inner, max_size=20) | st.dictionaries(st.text(max_size=3), inner, max_size=4), max_leaves=60)


def slow_canonical(value):
    """RFC 8785 for the certificate subset, written plainly (the reference for the fast paths)."""
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + slow_canonical(value[k]) for k in sorted(value, key=lambda k: k.encode("utf-16-be"))) + "}"
    if isinstance(value, list):
        return "[" + ",".join(slow_canonical(v) for v in value) + "]"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if abs(value) > SAFE:
        raise InvalidArgument("too large")
    return str(value)


CANONICALISERS = pytest.mark.parametrize("canonical", [canonical_bytes, reduced_canonical_bytes], ids=["rfc8785", "reduced"])


@CANONICALISERS
@given(value=json_data)
def test_canonical_bytes_match_a_plain_reference(canonical, value):
    """Both canonicalisers (the ``rfc8785`` package's, whose input check takes the fast paths, and the reduced
    one, whose sorting does): the bytes and the refusals are the reference's."""
    try:
        expected = slow_canonical(value).encode("utf-8")
    except InvalidArgument:
        with pytest.raises(InvalidArgument):
            canonical(value)
        return
    assert canonical(value) == expected


@CANONICALISERS
def test_a_bool_in_rows_of_ints_stays_a_bool(canonical):
    """Rows of ints with a bool inside leave the fast path and keep ``true`` (not ``1``)."""
    assert canonical({"outputs": [[1, 2], [3, True]]}) == b'{"outputs":[[1,2],[3,true]]}'


@CANONICALISERS
@pytest.mark.parametrize("bad", [[[1, 2], [3, 2.0]], [[1], [2**53]], [[1], [-(2**53)]], [[1, 2], [3, [4.5]]], [[1], [Fraction(1, 2)]]])
def test_integer_rows_with_anything_else_inside_are_refused(canonical, bad):
    """A float, huge integer or Fraction hiding in rows of ints is refused as before."""
    with pytest.raises(InvalidArgument):
        canonical({"outputs": bad})


def test_encode_value_rows_of_ints_and_mixed_rows():
    """Tuples of safe ints become lists; a Fraction or huge int inside still gets its tagged form."""
    assert encode_value([(0, 1), (2, 3)]) == [[0, 1], [2, 3]]
    assert encode_value([(0, Fraction(1, 2)), (2**60, 3)]) == [[0, {"rational": "1/2"}], [{"integer": str(2**60)}, 3]]
    assert encode_value((True, 1)) == [True, 1]


@given(json_data)
def test_readable_layout_parses_to_the_same_data(value):
    """The layout only moves white space: json.loads gives back the data, keys sorted."""
    data = {"certificate": {"long": list(range(40)), "rows": [[1, 2]] * 20, "value": value}}
    text = readable_json(data)
    assert json.loads(text) == data
    assert text == json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) or "[0, 1, 2" in text



def _refused(value):
    """Whether the value holds a float or an integer beyond 2**53 − 1 (what a certificate may not hold)."""
    if isinstance(value, dict):
        return any(_refused(v) for v in value.values())
    if isinstance(value, list):
        return any(_refused(v) for v in value)
    return isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool) and abs(value) > SAFE)


long_rows = st.integers(256, 400).flatmap(
    lambda n: st.one_of(
        st.lists(st.integers(-SAFE, SAFE), min_size=n, max_size=n),
        st.lists(st.lists(st.integers(-9, 9), min_size=1, max_size=4), min_size=n, max_size=n),
        st.lists(st.lists(st.integers(-9, 9), min_size=1, max_size=2), min_size=n - 1, max_size=n - 1).flatmap(
            lambda rows: st.sampled_from([["x"], [1.5], [2**60], 1, [], [[1]]]).flatmap(lambda odd: st.permutations([*rows, odd]))
        ),
    )
)


@given(st.dictionaries(st.text(max_size=12) | st.just("expmech"), long_rows | scalars | st.lists(long_rows, max_size=2), max_size=4), st.text(max_size=40))
def test_long_integer_rows_spliced_in_give_the_packages_bytes(value, text):
    """canonical_bytes writes long lists of integers (or integer rows) itself and splices them into rfc8785's output: the bytes
    are the package's on the whole value and the plain reference's, whatever strings sit beside them; a float or a huge
    integer among the rows is still refused."""
    import rfc8785

    value = {**value, "note": text, "expmech0": text}
    if _refused(value):
        with pytest.raises(InvalidArgument):
            canonical_bytes(value)
        return
    assert canonical_bytes(value) == rfc8785.dumps(value) == slow_canonical(value).encode("utf-8")


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.text(max_size=6), long_rows | st.lists(long_rows, max_size=2), max_size=3))
def test_readable_layout_of_long_rows_with_strangers_inside_parses_to_the_same_data(value):
    """Long lists of rows written on one line (rows of scalars) or indented (anything else: a float, a nested list,
    an empty row, a bare number among them): json.loads gives back the data either way."""
    text = readable_json({"certificate": value})
    assert json.loads(text) == {"certificate": value}


@given(
    st.lists(
        st.lists(
            st.integers(-6, 6) | st.sampled_from([True, {"integer": "3"}, {"rational": "1/2"}, 2**53 - 1, 2**53, -(2**53), 2**60, {"integer": str(2**60)}]),
            min_size=2,
            max_size=2,
        ),
        min_size=1,
        max_size=12,
        unique_by=lambda row: json.dumps(row),
    )
)
def test_a_finite_range_read_from_rows_of_ints_equals_the_value_by_value_reading(rows):
    """FiniteRange.from_json reads rows of plain ints in one pass: the same outputs, or the same refusal, as decoding
    every value (a bool, an {"integer"} or a {"rational"} among them takes the value-by-value path); and the range
    renders them back as the value-by-value reading does (rows of safe ints are kept as their own rendering; an int
    past 2**53 − 1 is rendered as {"integer": …}, so a file that wrote it bare does not equal its re-rendering)."""
    from unittest import mock

    from expmech.proofs.certificate.format import _inputs
    from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count

    schema = RecordSchema(x=IntRange(0, 1))
    space = OutputSpace(a=IntRange(-(2**61), 2**61), b=IntRange(-(2**61), 2**61))
    quality = QualityFunction(count(schema["x"] >= 1) - space["a"] + space["b"], schema=schema, outputs=space)
    data = {"kind": "finite", "outputs": rows, "base_measure": ["1"] * len(rows)}

    def read():
        try:
            return _inputs.FiniteRange.from_json(data, quality)
        except InvalidArgument as error:
            return str(error)

    fast = read()
    with mock.patch.object(_inputs, "safe_integer_rows", lambda value: False), mock.patch.object(_inputs, "integer_rows", lambda value: False):
        slow = read()
    assert fast == slow
    if not isinstance(fast, str):
        assert slow.rows is None
        assert fast.to_json() == slow.to_json()
        assert (fast.rows is not None) is all(type(v) is int and abs(v) < 2**53 for row in rows for v in row)


def test_a_deeply_nested_value_is_written_on_one_line():
    """A value nested hundreds of levels deep (a proof tree of case splits) stays within twice its compact size, same data."""
    deep: dict = {"farkas": [[0, "1"]]}
    for _ in range(300):
        deep = {"split": [deep, {"farkas": [[1, "1/2"]]}]}
    data = {"certificate": {"predicate": {"proof": deep}}, "digest": {"value": "0" * 64}}
    text = readable_json(data)
    assert json.loads(text) == data
    assert len(text) < 2 * len(json.dumps(data)), len(text)
