"""`expmech verify` on plain Python quality functions, and on mechanisms recorded with an expected verdict.

A mechanism — a dict, a catalogue entry or a [tool.expmech] mechanism — may give ``quality`` as a plain function with
``schema`` and ``outputs``: it is traced at load (a construct that does not trace is a usage error, exit 2, naming
the file and the line).  ``expected`` records a verdict: the same verdict counts as verified (exit 0) and is still
shown; a verdict decided otherwise is a violation (exit 1); an expected verdict that is not one is a usage error.
"""

import json
import pathlib
import sys
import textwrap

import pytest

from expmech.proofs.cli import main

MODULE = "i33_traced_mechanisms"  # unique: modules are cached in sys.modules across tests


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A user project whose module writes its scores as plain Python."""
    root = tmp_path_factory.mktemp("traced")
    (root / f"{MODULE}.py").write_text(
        textwrap.dedent(
            """
            from fractions import Fraction
            from expmech.spec import IntRange, OutputSpace, RecordSchema

            SCHEMA, OUTPUTS = RecordSchema(x=IntRange(0, 9)), OutputSpace(r=IntRange(0, 9))

            def top_count(data, r):
                return sum(1 for x in data if x == r)

            def median_score(data, r):
                return -abs(sum(1 for x in data if x <= r) - len(data) / 2)

            def untraceable(data, r):
                i = 0
                while i < r:
                    i += 1
                return i

            def entry(name, quality, claimed, **extra):
                return {"name": name, "quality": quality, "schema": SCHEMA, "outputs": OUTPUTS, "epsilon": Fraction(1, 2),
                        "neighbours": "replace-one", "claimed": claimed, **extra}

            GOOD = [entry("top", top_count, 1), entry("median", median_score, 1)]
            WRONG_AS_EXPECTED = [entry("median-half", median_score, Fraction(1, 2), expected="REFUTED"), entry("top", top_count, 1)]
            WRONG_NOT_EXPECTED = [entry("median-half", median_score, Fraction(1, 2), expected="PROVED")]
            RIGHT_BUT_EXPECTED_WRONG = [entry("top", top_count, 1, expected="REFUTED")]
            BAD_EXPECTED = [entry("top", top_count, 1, expected="MAYBE")]
            UNTRACEABLE = [entry("loop", untraceable, 1)]
            NO_SCHEMA = [{"quality": top_count, "epsilon": 1, "neighbours": "replace-one"}]
            """
        ),
        encoding="utf-8",
    )
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    sys.modules.pop(MODULE, None)


def run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plain_functions_verify_and_say_they_were_traced(project, capsys):
    """Both plain functions trace and are PROVED (exit 0); the output names the traced expressions."""
    code, out, _ = run(["verify", f"{MODULE}:GOOD"], capsys)
    assert code == 0, out
    assert out.count("traced from Python") == 2 and "Count(Eq(x, r))" in out


def test_a_wrong_claim_recorded_as_refuted_verifies_and_is_still_shown(project, capsys):
    """expected = REFUTED on a wrong claim: exit 0, the verdict REFUTED with its counterexample, marked as expected."""
    code, out, _ = run(["verify", f"{MODULE}:WRONG_AS_EXPECTED"], capsys)
    assert code == 0, out
    assert "REFUTED  median-half" in out and "counterexample:" in out and "as expected: recorded as REFUTED" in out
    assert "(1 as expected)" in out


@pytest.mark.parametrize("target", ["WRONG_NOT_EXPECTED", "RIGHT_BUT_EXPECTED_WRONG"])
def test_a_verdict_decided_otherwise_than_recorded_is_a_violation(project, capsys, target):
    """A refuted claim recorded as PROVED, or a proved one recorded as REFUTED: exit 1, NOT as expected."""
    code, out, _ = run(["verify", f"{MODULE}:{target}"], capsys)
    assert code == 1, out
    assert "NOT as expected" in out


def test_an_expected_verdict_that_is_not_one_is_a_usage_error(project, capsys):
    """expected = "MAYBE": exit 2 naming the key and the verdicts there are."""
    code, _, err = run(["verify", f"{MODULE}:BAD_EXPECTED"], capsys)
    assert code == 2 and "expected='MAYBE'" in err.replace('"', "'") and "REFUTED" in err


def test_an_untraceable_function_is_a_usage_error_naming_file_and_line(project, capsys):
    """A while loop in the plain function: exit 2, the message has the module file and the loop's line."""
    code, _, err = run(["verify", f"{MODULE}:UNTRACEABLE"], capsys)
    assert code == 2
    source = (project / f"{MODULE}.py").read_text().splitlines()
    line = next(i for i, text in enumerate(source, 1) if "while i < r" in text)
    assert f"{MODULE}.py:{line}" in err and "a while loop" in err


def test_a_plain_function_without_schema_says_how_to_trace_it(project, capsys):
    """quality = a function, no schema: exit 2, the message says schema and outputs trace it."""
    code, _, err = run(["verify", f"{MODULE}:NO_SCHEMA"], capsys)
    assert code == 2 and "schema and outputs" in err


def test_pyproject_mechanisms_name_schema_and_outputs(project, capsys, monkeypatch):
    """[[tool.expmech.mechanisms]] with quality, schema and outputs as module:attr: traced and PROVED."""
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [[tool.expmech.mechanisms]]
            name = "top"
            quality = "{MODULE}:top_count"
            schema = "{MODULE}:SCHEMA"
            outputs = "{MODULE}:OUTPUTS"
            epsilon = "1/2"
            neighbours = "add-remove"
            claimed = 1

            [[tool.expmech.mechanisms]]
            name = "median-half"
            quality = "{MODULE}:median_score"
            schema = "{MODULE}:SCHEMA"
            outputs = "{MODULE}:OUTPUTS"
            epsilon = "1/2"
            neighbours = "replace-one"
            claimed = "1/2"
            expected = "REFUTED"
            """
        ),
        encoding="utf-8",
    )
    monkeypatch.chdir(project)
    code, out, _ = run(["verify", "--format", "json"], capsys)
    assert code == 0, out
    mechanisms = {m["name"]: m for m in json.loads(out)["mechanisms"]}
    assert mechanisms["top"]["status"] == "PROVED" and mechanisms["top"]["expected"] is None
    assert mechanisms["median-half"]["status"] == "REFUTED" and mechanisms["median-half"]["as_expected"] is True


def test_sarif_and_junit_count_an_expected_refutation_as_passing(project, capsys):
    """SARIF: level note, kind pass; JUnit: no failure element for the expected refutation."""
    code, out, _ = run(["verify", f"{MODULE}:WRONG_AS_EXPECTED", "--format", "sarif"], capsys)
    results = json.loads(out)["runs"][0]["results"]
    refuted = next(r for r in results if "median-half" in r["message"]["text"])
    assert code == 0 and refuted["ruleId"] == "expmech/as-expected" and refuted["kind"] == "pass" and refuted["level"] == "note"
    code, out, _ = run(["verify", f"{MODULE}:WRONG_AS_EXPECTED", "--format", "junit"], capsys)
    assert code == 0 and "<failure" not in out and 'failures="0"' in out
