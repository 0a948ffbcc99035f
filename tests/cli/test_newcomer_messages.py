"""Messages a newcomer can act on: each says what is wrong in the user's terms, once, with the user's names."""

from __future__ import annotations

import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate
from expmech.proofs.cli import main

# Qualities outside the quality-function language, each written as a user would in a module of their own.
OUTSIDE = {
    "sin": "sympy.sin(count(schema['x'] >= outputs['r']))",
    "predicate": "schema['x'] >= outputs['r']",
    "exp": "sympy.exp(total(schema['x']))",
    "float": "sympy.Float(0.5) * count(schema['x'] >= outputs['r'])",
    "symbolic power": "count(schema['x'] >= outputs['r']) ** outputs['r']",
    "unknown symbol": "sympy.Symbol('y') * count(schema['x'] >= outputs['r'])",
}
MODULE = """\
from fractions import Fraction
import sympy
from expmech.spec import RecordSchema, OutputSpace, IntRange, QualityFunction, count, total
schema, outputs = RecordSchema(x=IntRange(0, 9)), OutputSpace(r=IntRange(0, 9))
q = QualityFunction({expr}, schema=schema, outputs=outputs, name='q')
CATALOGUE = [{{'name': 'q', 'quality': q, 'epsilon': Fraction(1, 4), 'neighbours': 'add-remove'}}]
"""


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    modules = dict(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - set(modules):
        if name.startswith("outside_"):
            del sys.modules[name]


@pytest.mark.parametrize("kind", sorted(OUTSIDE))
@pytest.mark.parametrize("command", ["verify", "certify"])
def test_a_quality_outside_the_language_is_said_to_be_so(workdir, capsys, kind, command):
    """A module that is found but builds a quality outside the language: exit 2, "outside the quality-function
    language", never "cannot import"."""
    name = "outside_" + kind.replace(" ", "_")
    (workdir / f"{name}.py").write_text(MODULE.format(expr=OUTSIDE[kind]))
    argv = [command, f"{name}:CATALOGUE", *(["-o", "out"] if command == "certify" else [])]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "cannot import" not in err and f"'{name}' imports, but a quality it builds is outside the quality-function language" in err, err


def test_a_missing_module_still_cannot_be_imported(workdir, capsys):
    """The positive control: a module that does not exist is "cannot import", and one that raises says it raised."""
    (workdir / "outside_raises.py").write_text("raise RuntimeError('boom')\n")
    assert main(["verify", "outside_nowhere_at_all:CATALOGUE"]) == 2
    assert "cannot import 'outside_nowhere_at_all'" in capsys.readouterr().err
    assert main(["verify", "outside_raises:CATALOGUE"]) == 2
    err = capsys.readouterr().err
    assert "'outside_raises' was found, but importing it raised: RuntimeError: boom" in err and "cannot import" not in err, err


@pytest.fixture(scope="module")
def median_file(tmp_path_factory):
    return catalogue_certificate("median").write(tmp_path_factory.mktemp("certs") / "median.json")  # ε = 1


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.fractions(min_value=0, max_value=1).filter(lambda f: f < 1))
def test_max_epsilon_below_a_valid_certificate_says_its_epsilon_and_the_flag(median_file, capsys, bound):
    """A valid certificate of ε = 1 checked with --max-epsilon below 1: exit 3, one line "certifies ε = 1, above
    --max-epsilon B", never "certifies no ε-DP"."""
    assert main(["check", str(median_file), "--max-epsilon", str(bound)]) == 3
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("ABOVE ") and f"certifies ε = 1, above --max-epsilon {bound} " in first, out
    assert "no ε-DP" not in out and out.count("above --max-epsilon") == 1, out


def test_the_invalid_label_is_printed_once(tmp_path, monkeypatch, capsys):
    """An INVALID (or REFUSED) certificate: the label starts the line and is not repeated in it."""
    monkeypatch.chdir(tmp_path)  # relative names: the test's own folder name holds the word "invalid"
    (tmp_path / "bad.json").write_text('{"a": 1}')
    (tmp_path / "big.json").write_text('{"a": "' + "x" * 2000 + '"}')
    assert main(["check", "bad.json"]) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("INVALID  ") and line.upper().count("INVALID") == 1, line
    assert main(["check", "big.json", "--max-bytes", "100"]) == 2
    line = capsys.readouterr().out.strip()
    assert line.startswith("REFUSED  ") and line.upper().count("REFUSED") == 1, line


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["-1", "1/0", "n/(n-n)", "n-2", "0-n", "((", "n*n*n*n*n*n*n*n*n", "x", "1e-3", "1/m", "()", "-n"])
       | st.text("0123456789n+-*/() ", min_size=1, max_size=12))
def test_a_bad_max_epsilon_is_named_as_the_flag_never_claimed(median_file, capsys, value):
    """A --max-epsilon the claim parser refuses is named as ``--max-epsilon`` in the message; the parser's internal
    parameter name (``claimed=``) never appears."""
    code = main(["check", str(median_file), f"--max-epsilon={value}"])
    captured = capsys.readouterr()
    assert "claimed" not in captured.out + captured.err, captured
    if code == 2:
        assert captured.err.startswith("expmech check: --max-epsilon="), captured.err
