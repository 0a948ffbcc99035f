"""Messages about a user's value never fail on the value: ``readable`` and ``shown`` are total.

A user's object reaches an error message whenever it is refused, and its own
methods (``__iter__``, ``items``, ``__repr__``, ``__str__``, ``__format__``)
may raise, loop into themselves or be huge.  The message must still be one
short line, and the command must still exit 2, never 4.
"""

from __future__ import annotations

import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.proofs.cli import main
from expmech.proofs.cli._values import shown
from expmech.spec._errors import readable

ERRORS = [RuntimeError, ValueError, TypeError, KeyError, AttributeError, LookupError, ZeroDivisionError, RecursionError]
METHODS = ["__iter__", "__repr__", "__str__", "__format__", "items", "__len__", "__getitem__", "keys", "values"]


def hostile_class(base: type, raising: frozenset[str], error: type[Exception]) -> type:
    """A subclass of ``base`` whose ``raising`` methods raise ``error``."""

    def raiser(self, *args, **kwargs):
        raise error("raised by the user's object")

    return type(f"Odd{base.__name__.title()}", (base,), {name: raiser for name in raising})


@st.composite
def hostile_values(draw, depth: int = 0):
    """A value built of lists, dicts, tuples and objects whose methods raise, possibly containing itself, or long."""
    base = draw(st.sampled_from([list, dict, tuple, object, int, str]))
    raising = frozenset(draw(st.sets(st.sampled_from(METHODS), max_size=4)))
    error = draw(st.sampled_from(ERRORS))
    cls = hostile_class(base, raising, error)
    children = draw(st.lists(hostile_values(depth + 1), max_size=3)) if depth < 2 else []
    if base is list:
        value = cls(children + list(range(draw(st.sampled_from([0, 3, 10**4])))))
        if draw(st.booleans()):
            list.append(value, value)  # a list that contains itself
        return value
    if base is dict:
        value = cls({f"k{i}": child for i, child in enumerate(children)})
        if draw(st.booleans()):
            dict.__setitem__(value, "self", value)
        return value
    if base is tuple:
        return cls(children)
    if base is int:
        return cls(draw(st.sampled_from([0, -1, 10**4000])))
    if base is str:
        return cls("x" * draw(st.sampled_from([0, 5, 10**4])))
    return cls()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hostile_values(), st.integers(8, 120))
def test_shown_and_readable_are_total(value, limit):
    """Whatever the value does, ``shown`` gives a string of at most ``limit`` characters and ``readable`` a string."""
    text = shown(value, limit)
    assert isinstance(text, str) and len(text) <= limit
    assert isinstance(readable(value), str)


def test_a_plain_value_is_still_shown_exactly():
    """The guard changes nothing for values that behave: the control."""
    from fractions import Fraction

    assert shown([Fraction(1, 2), "a", True, {"x": Fraction(-1)}]) == '[1/2, "a", true, { x = -1 }]'
    assert readable((Fraction(-1), Fraction(1, 2), "r")) == "(-1, 1/2, 'r')"


_MODULES = iter(range(10**6))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.sampled_from([list, dict, tuple]), st.frozensets(st.sampled_from(METHODS), min_size=1, max_size=3),
       st.sampled_from(ERRORS), st.sampled_from(["[{0}]", "[{0}, {0}]", "({0},)", "{0}"]))
def test_a_target_holding_a_misbehaving_container_exits_2(tmp_path_factory, base, raising, error, shape):
    """`expmech verify module:TARGET` on lists/tuples of containers whose methods raise: exit 2 in one line, never 4."""
    project = tmp_path_factory.mktemp("target")
    name = f"msg_total_{next(_MODULES)}"
    inner = {list: "Odd([Odd()])", dict: "Odd({'a': Odd()})", tuple: "Odd((1,))"}[base]
    methods = "".join(f"    def {m}(self, *args, **kwargs):\n        raise {error.__name__}('raised')\n" for m in sorted(raising))
    (project / f"{name}.py").write_text(f"class Odd({base.__name__}):\n{methods}\nTARGET = {shape.format(inner)}\n", encoding="utf-8")
    sys.path.insert(0, str(project))
    try:
        import io
        from contextlib import redirect_stderr, redirect_stdout

        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["verify", f"{name}:TARGET"])
    finally:
        sys.path.remove(str(project))
    assert code == 2, err.getvalue()
    assert "internal error" not in err.getvalue() and err.getvalue().count("\n") == 1, err.getvalue()
