"""Whatever the language cannot hold exactly is refused with TraceError, naming the construct, the file and its line.

Each function below has one construct outside the traceable subset at a known line (``AT`` counts from the ``def``);
tracing it must raise TraceError whose ``lineno`` is that line, ``filename`` this file, and whose ``construct`` names
it — never a silent translation.
"""

import math
import random

import numpy as np
import pytest

from expmech.spec import IntRange, OutputSpace, RecordSchema, TraceError, trace

INTS = RecordSchema(x=IntRange(0, 9))
OUTS = OutputSpace(r=IntRange(0, 9))
MUTABLE = [1, 2, 3]
G = 0


def while_loop(data, r):
    i = 0
    while i < r:  # AT 2
        i += 1
    return i


def positional_index(data, r):
    return data[0] - r  # AT 1


def slicing(data, r):
    return sum(sorted(data)[:2])  # AT 1


def randomness(data, r):
    return len(data) + random.random()  # AT 1


def numpy_randomness(data, r):
    return np.random.laplace() + len(data)  # AT 1


def mutable_global(data, r):
    return MUTABLE[0] * len(data)  # AT 1


def io_print(data, r):
    print(len(data))  # AT 1
    return 0


def recursion(data, r):
    return recursion(data, r) if r > 0 else len(data)  # AT 1


def try_statement(data, r):
    try:  # AT 1
        return len(data)
    except ValueError:
        return 0


def global_statement(data, r):
    global G  # AT 1
    return len(data)


def pairs_of_records(data, r):
    return sum(1 for x in data for y in data if x < y)  # AT 1


def logarithm(data, r):
    return math.log(len(data) + 1)  # AT 1


def enumerate_records(data, r):
    return sum(i for i, x in enumerate(data))  # AT 1


def sort_with_key(data, r):
    return sorted(data, key=abs)[0]  # AT 1


def filtered_max(data, r):
    return max(x for x in data if x > r)  # AT 1


def nested_aggregate(data, r):
    return sum(1 for x in data if x > np.mean(data))  # AT 1


def nested_function(data, r):
    def inner(v):  # AT 1
        return v
    return inner(len(data))


def lambda_inside(data, r):
    f = lambda v: v  # noqa: E731  # AT 1
    return f(len(data))


def import_inside(data, r):
    import os  # AT 1
    return len(data)


def numpy_bool_arithmetic(data, r):
    a = np.asarray(data)
    return np.sum((a < r) - (a > 5))  # AT 2


def last_value_of_a_loop(data, r):
    for x in data:
        last = x
    return last  # AT 3


def returns_none(data, r):  # AT 0
    if r > 3:
        return len(data)


def generator_twice(data, r):
    below = (x for x in data if x < r)
    total = sum(below)
    return total + len(list(below))  # AT 3


def three_parameters(data, r, extra):  # AT 0
    return len(data)


CASES = [
    (while_loop, "a while loop"),
    (positional_index, "indexing the records by position"),
    (slicing, "a slice"),
    (randomness, "randomness"),
    (numpy_randomness, "randomness"),
    (mutable_global, "the list MUTABLE"),
    (io_print, "an expression statement"),
    (recursion, "recursion"),
    (try_statement, "a try statement"),
    (global_statement, "a global statement"),
    (pairs_of_records, "several for clauses"),
    (logarithm, "a logarithm"),
    (enumerate_records, "enumerate()"),
    (sort_with_key, "sorted() with key"),
    (filtered_max, "max over some of the records"),
    (nested_aggregate, "an aggregate inside"),
    (nested_function, "a nested function"),
    (lambda_inside, "a lambda"),
    (import_inside, "an import"),
    (numpy_bool_arithmetic, "numpy booleans"),
    (last_value_of_a_loop, "the variable 'last'"),
    (returns_none, "a path that returns None"),
    (generator_twice, "a generator used twice"),
    (three_parameters, "a function of 3 parameters"),
]


def _line(fn):
    """The line of the construct: the ``# AT k`` mark of the function's source, k lines below its def."""
    import inspect

    lines, start = inspect.getsourcelines(fn)
    mark = next(line for line in lines if "# AT " in line)
    return start + int(mark.split("# AT ")[1].split()[0])


@pytest.mark.parametrize("fn, construct", CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_each_untraceable_construct_is_refused_at_its_line(fn, construct):
    """TraceError names the construct, this file and the construct's line (an int); nothing is traced."""
    with pytest.raises(TraceError) as caught:
        trace(fn, schema=INTS, outputs=OUTS)
    error = caught.value
    assert construct in error.construct, (error.construct, str(error))
    assert error.filename == __file__
    assert isinstance(error.lineno, int) and error.lineno == _line(fn), (error.lineno, _line(fn), str(error))
    assert f":{error.lineno}:" in str(error)


def test_a_callable_that_is_not_a_function_is_refused_at_its_definition():
    """A class instance, a builtin or a functools.partial has no source to read: TraceError, no guess."""
    import functools

    for thing in (functools.partial(while_loop, []), len, np.sum):
        with pytest.raises(TraceError):
            trace(thing, schema=INTS, outputs=OUTS)


def test_a_function_without_source_is_refused():
    """A function built by exec from a string has no file: TraceError saying the source could not be read."""
    namespace: dict = {}
    exec("def made(data, r):\n    return len(data)\n", namespace)  # noqa: S102
    with pytest.raises(TraceError, match="source"):
        trace(namespace["made"], schema=INTS, outputs=OUTS)
