"""Generated Python quality functions: every one of the subset traces and equals its trace; every untraceable
construct is refused at its line.

``traceable_sources`` writes random functions from the subset — comprehensions and generators with filters,
accumulating loops under conditions, numpy aggregates, order statistics behind a guard, ``min``/``max``/``abs``,
``//``, conditionals and early returns — into a module file; each must trace (TraceError would be a gap of the
tracer) and equal the function on further datasets hypothesis draws, the empty one included, undefined exactly where
the function raises or gives ``nan``.  ``untraceable_sources`` inserts one construct outside the subset at a random
line of a traceable function: TraceError must name it, with that line.
"""

import importlib.util
import itertools
import math
import warnings
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.spec import IntRange, OutputSpace, QualityError, RecordSchema, TraceError, trace
from strategies import TRACE_FIELD, TRACE_OUTPUT, traceable_sources, untraceable_sources

SCHEMA = RecordSchema(x=IntRange(*TRACE_FIELD))
OUTPUTS = OutputSpace(r=IntRange(*TRACE_OUTPUT))
_COUNTER = itertools.count()


def _load(source, directory):
    """``score`` of a module written from ``source`` (a file, so that its source can be read)."""
    name = f"generated_score_{next(_COUNTER)}"
    path = directory / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.score, path


def _value(fn, data, r):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            value = fn(list(data), r)
    except Exception:  # noqa: BLE001 - raising is the function's way of being undefined
        return None
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and (math.isnan(value) or math.isinf(value)):
        return None
    return value


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(source=traceable_sources(), datasets=st.lists(st.lists(st.integers(*TRACE_FIELD), max_size=6), min_size=3, max_size=6))
def test_generated_functions_trace_and_equal_their_trace(tmp_path, source, datasets):
    """A random function of the subset traces (no TraceError), and function and trace agree on more datasets."""
    fn, _ = _load(source, tmp_path)
    quality = trace(fn, schema=SCHEMA, outputs=OUTPUTS)
    for data, r in itertools.product([[], *datasets], range(TRACE_OUTPUT[0], TRACE_OUTPUT[1] + 1)):
        expected = _value(fn, data, r)
        try:
            got = quality(list(data), r)
        except QualityError:
            got = None
        assert (expected is None) == (got is None), (source, data, r, expected, got, quality.expr)
        if got is None:
            continue
        if isinstance(expected, float):
            assert abs(Fraction(expected) - got) <= Fraction(1, 10**9) * max(1, abs(got)), (source, data, r, expected, got)
        else:
            assert Fraction(expected) == got, (source, data, r, expected, got, quality.expr)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(case=untraceable_sources())
def test_generated_untraceable_constructs_are_refused_at_their_line(tmp_path, case):
    """One untraceable statement inserted in a traceable function: TraceError naming it, this file and its line."""
    source, line, construct = case
    fn, path = _load(source, tmp_path)
    try:
        trace(fn, schema=SCHEMA, outputs=OUTPUTS)
    except TraceError as error:
        assert construct in error.construct or construct in str(error), (construct, str(error), source)
        assert error.filename == str(path) and error.lineno == line, (error.lineno, line, str(error), source)
    else:
        raise AssertionError(f"traced, but {construct!r} is outside the subset:\n{source}")
