"""The faithfulness check compares a function with its trace on generated datasets and refuses any disagreement.

The check is what ties the proof (of the traced expression) to the code.  Given a trace that is wrong on purpose —
a constant added, ``<`` made ``<=``, a mean where the function is defined on the empty dataset — it must raise
TraceError showing the dataset and the output; and it must find floating-point rounding that changes a comparison.
Its datasets include the empty one, every single record, ties, and the domain's ends.
"""

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, TraceError, count, mean, size, trace
from expmech.spec._trace_check import check_faithful, faithfulness_datasets
from expmech.spec._trace_source import source_of

SCHEMA, OUTPUTS = RecordSchema(x=IntRange(-3, 6)), OutputSpace(r=IntRange(-2, 5))
x, r = SCHEMA["x"], OUTPUTS["r"]


def below(data, r):
    return sum(1 for x in data if x < r) - len(data)


@settings(max_examples=25, deadline=None)
@given(shift=st.integers(-5, 5).filter(bool), kind=st.sampled_from(["shift", "tie", "mean"]))
def test_a_wrong_trace_is_refused_with_the_dataset(shift, kind):
    """A trace off by a constant, by <= for <, or undefined on the empty dataset: TraceError with data and r."""
    wrong = {
        "shift": count(x < r) - size() + shift,
        "tie": count(x <= r) - size(),
        "mean": count(x < r) - size() + sympy.Min(0, mean(x + 3)),  # 0 wherever defined (x >= -3), undefined on the empty dataset
    }[kind]
    quality = QualityFunction(wrong, schema=SCHEMA, outputs=OUTPUTS)
    with pytest.raises(TraceError) as caught:
        check_faithful(below, quality, source_of(below))
    error = caught.value
    assert "data=" in str(error) and ", r=" in str(error) and error.construct.startswith("a mismatch")
    assert set(error.value) == {"data", "r"}


def rounds(data, r):
    return sum(1 for x in data if x / 49 * 49 != x)


def test_floating_point_rounding_that_changes_a_comparison_is_found():
    """1 / 49 * 49 is 0.9999999999999999 in floats: the exact trace counts no such record, the function does."""
    with pytest.raises(TraceError, match="not faithful"):
        trace(rounds, schema=SCHEMA, outputs=OUTPUTS)


def test_the_datasets_hold_the_corners():
    """The empty dataset, every single record, ties and the ends of the domain are among the datasets tested."""
    quality = trace(below, schema=SCHEMA, outputs=OUTPUTS)
    datasets = faithfulness_datasets(quality, "seed")
    assert [] in datasets and [-3] in datasets and [6] in datasets and [6, 6] in datasets
    assert all([value] in datasets for value in range(-3, 7))
    assert quality.trace.datasets_tested == len(faithfulness_datasets(quality, quality.trace.source_sha256))
