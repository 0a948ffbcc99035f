"""At the command line, a Python == / != in a target module is exit 2 with the sympy.Eq hint, never PROVED ε = 0.

The headline case of issue 34: ``total(sympy.Piecewise((1, x == r), (0, True)))``
became ``total(0)`` and ``expmech verify`` reported PROVED ε = 0 with exit 0.
Each snippet below is a module a user could write; ``verify`` and ``certify``
must exit 2 with one line naming the problem and pointing to ``sympy.Eq``;
the same module with ``sympy.Eq`` / ``sympy.Ne`` verifies.
"""

from __future__ import annotations

import itertools
import sys

import pytest

from expmech.proofs.cli import main

MODULE = """\
from fractions import Fraction
import sympy
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, max_over, size, total
schema, outputs = RecordSchema(x=IntRange(0, 5)), OutputSpace(r=IntRange(0, 5))
x, r = schema["x"], outputs["r"]
q = QualityFunction({expr}, schema=schema, outputs=outputs, name="q")
CATALOGUE = [{{"name": "q", "quality": q, "epsilon": Fraction(1, 2), "neighbours": "replace-one"}}]
"""

WRONG = {
    "total of a Piecewise": "total(sympy.Piecewise((1, x == r), (0, True)))",
    "total of a Piecewise, !=": "total(sympy.Piecewise((x, x != r), (0, True)))",
    "Piecewise around the quality": "sympy.Piecewise((count(x <= r), r == 3), (size(), True))",
    "count of And": "count(sympy.And(x <= r, x != r))",
    "count of &": "count((x <= r) & (x != r))",
    "count of Or": "count(sympy.Or(x < r, x == r))",
    "count of ==": "count(x == r)",
    "aggregate + bool": "count(x <= r) + (x == r)",
    "compound + bool": "(count(x <= r) + 1) + (x == r)",
    "Max with a bool": "sympy.Max(count(x <= r), x == r)",
    "Piecewise value": "sympy.Piecewise((count(x <= r), r > 2), (x == r, True))",
    "max_over": "count(x >= r) + max_over(x == r, r, [0, 1])",
    "the quality itself": "x == r",
}
RIGHT = {
    "total of a Piecewise": "total(sympy.Piecewise((1, sympy.Eq(x, r)), (0, True)))",
    "count of And": "count(sympy.And(x <= r, sympy.Ne(x, r)))",
    "Piecewise around the quality": "sympy.Piecewise((count(x <= r), sympy.Eq(r, 3)), (size(), True))",
}
_NAMES = itertools.count()


@pytest.fixture
def module(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))

    def write(expr: str) -> str:
        name = f"python_bools_{next(_NAMES)}"
        (tmp_path / f"{name}.py").write_text(MODULE.format(expr=expr))
        return name

    yield write
    for name in [m for m in sys.modules if m.startswith("python_bools_")]:
        del sys.modules[name]


@pytest.mark.parametrize("kind", sorted(WRONG))
@pytest.mark.parametrize("command", ["verify", "certify"])
def test_a_python_comparison_in_a_target_is_exit_2_with_the_hint(module, capsys, kind, command):
    """verify / certify: exit 2, one line, the hint — never PROVED."""
    name = module(WRONG[kind])
    argv = [command, f"{name}:CATALOGUE"] + (["-o", "out"] if command == "certify" else [])
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "PROVED" not in captured.out and "Traceback" not in captured.err
    assert captured.err.startswith(f"expmech {command}: ") and "sympy.Eq(x, r)" in captured.err, captured.err
    assert len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize("kind", sorted(RIGHT))
def test_the_same_with_sympy_eq_verifies(module, capsys, kind):
    """Written with sympy.Eq / sympy.Ne, the same mechanisms verify (exit 0)."""
    assert main(["verify", f"{module(RIGHT[kind])}:CATALOGUE"]) == 0, capsys.readouterr()
