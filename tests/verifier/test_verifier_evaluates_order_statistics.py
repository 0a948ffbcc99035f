"""The verifier evaluates order statistics, floor and datasets held by counts exactly as the language defines them.

``quality_at`` (the verifier's own evaluation of a witness or counterexample) agrees with ``QualityFunction`` on every
generated dataset, written as a list or as ``{"multiset": [[record, count], …]}`` with counts past 2^53 written
``{"integer": digits}``: the k-th smallest value with ties counted, undefined unless ``0 <= k < n`` (so on the empty
dataset), ``floor`` rounding down for negative values too.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.checker import Reader, quality_digest, render
from expmech.proofs.checker._evidence import quality_at, read_dataset
from expmech.proofs.checker._format import Malformed, read_quality
from expmech.spec import IntRange, Multiset, OutputSpace, QualityError, QualityFunction, RecordSchema, order_statistic, size
from expmech.spec.internal import expression_to_json

SCHEMA, OUTPUTS = RecordSchema(x=IntRange(-5, 9)), OutputSpace(r=IntRange(-3, 3))
x, r = SCHEMA["x"], OUTPUTS["r"]
INDICES = [0, 1, size() - 1, size() - 2, sympy.floor(size() / 2), sympy.floor((size() - 1) / 2), sympy.floor(size() / 3) + 1]
BODIES = [x, 3 * x - r, sympy.floor(x / 2) + r, -sympy.Abs(x - r)]


def _checker(quality: QualityFunction):
    data = {"kind": "quality", "name": None, "schema": [["x", {"kind": "IntRange", "lo": -5, "hi": 9}]],
            "outputs": [["r", {"kind": "IntRange", "lo": -3, "hi": 3}]], "expression": expression_to_json(quality.expr)}
    data["text"] = render(Reader({"x", "r"}).read(data["expression"]))
    data["sha256"] = quality_digest(data)
    return read_quality(data, 10_000)


def _spec(quality: QualityFunction, data, output) -> Fraction | None:
    try:
        return quality(data, output)
    except QualityError:
        return None


def _written(counts: Counter) -> dict:
    return {"multiset": [[value, count if count < 2**53 else {"integer": str(count)}] for value, count in sorted(counts.items())]}


@settings(max_examples=150, deadline=None)
@given(data=st.lists(st.integers(-5, 9), max_size=7), body=st.sampled_from(BODIES), index=st.sampled_from(INDICES),
       output=st.integers(-3, 3), scale=st.sampled_from([1, 3, 2**60 + 1]))
def test_the_verifier_evaluates_as_the_language(data, body, index, output, scale):
    """q(D, r) with an order statistic and floor, D a list or counts (scaled past 2^53): the verifier's value is the spec's."""
    quality = QualityFunction(order_statistic(body, index) - sympy.floor(size() / 3) * r, schema=SCHEMA, outputs=OUTPUTS)
    checker = _checker(quality)
    counts = Counter({value: count * scale for value, count in Counter(data).items()})
    expected = _spec(quality, Multiset(list(counts.items())) if scale > 1 else data, output)
    for written in ([*data] if scale == 1 else None, _written(counts)):
        if written is not None:
            assert quality_at(checker, read_dataset(checker, written, "d"), {"r": Fraction(output)}) == expected


def test_an_order_statistic_is_undefined_on_the_empty_dataset():
    """Every rank of no records is undefined: q is None on ∅, for k = 0 as for floor(n/2)."""
    for index in (0, sympy.floor(size() / 2)):
        checker = _checker(QualityFunction(order_statistic(x, index), schema=SCHEMA, outputs=OUTPUTS))
        assert quality_at(checker, read_dataset(checker, [], "d"), {"r": Fraction(0)}) is None


@pytest.mark.parametrize("written", [{"multiset": [[1, 0]]}, {"multiset": [[1, {"integer": "12"}]]}, {"multiset": [[1, -2]]},
                                     {"multiset": [[1, 2.0]]}, {"multiset": [[1]]}, {"multiset": [[1, {"integer": "-" + "9" * 20}]]}])
def test_bad_counts_are_malformed(written):
    """A count of 0, below 0, not an integer, or an {"integer"} spelling below 2^53 is refused, naming the place."""
    checker = _checker(QualityFunction(order_statistic(x, 0), schema=SCHEMA, outputs=OUTPUTS))
    with pytest.raises(Malformed, match="d"):
        read_dataset(checker, written, "d")
