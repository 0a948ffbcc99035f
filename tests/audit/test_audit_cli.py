"""``expmech audit``: exit codes, formats, and honest failures at the command line."""

import json
import textwrap

import pytest

from expmech.proofs.cli import main

FAST = ["--max-draws", "1500", "--power-replicates", "20", "--privacy-draws", "200", "--serial"]


def test_correct_samplers_exit_zero_with_a_text_report(capsys):
    """The two correct demonstration samplers are CONSISTENT: exit 0, verdicts on stdout, progress on stderr."""
    assert main(["audit", "expmech.proofs.audit:demo_exact_cases", *FAST]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("CONSISTENT") == 2 and "power within 1500 draws" in captured.out
    assert "CONSISTENT" in captured.err


def test_broken_samplers_exit_one_and_json_names_them(capsys):
    """With the broken demonstration samplers the exit code is 1; JSON lists each verdict."""
    assert main(["audit", "expmech.proofs.audit:demo_cases", "--format", "json", *FAST]) == 1
    audits = json.loads(capsys.readouterr().out)["audits"]
    verdicts = {a["name"]: a["status"] for a in audits}
    assert verdicts["broken: max and min swapped"] == "REJECTED"
    assert verdicts["exact sampler (expmech)"] == "CONSISTENT"
    assert all(a["draws"] == len(a["trajectory"]) for a in audits)


def test_html_report_is_written_to_a_file(tmp_path, capsys):
    """--format html -o writes a page with the plots."""
    out = tmp_path / "audit.html"
    assert main(["audit", "expmech.proofs.audit:demo_exact_cases", "--format", "html", "-o", str(out), *FAST]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("data:image/png;base64,") == 2


@pytest.mark.parametrize(
    "arguments",
    [
        ["nosuch.module:cases"],
        ["expmech.impl:CATALOGUE"],
        ["expmech.proofs.audit:nothing_here"],
        ["expmech.proofs.audit:demo_cases", "--alpha", "abc"],
        ["expmech.proofs.audit:demo_cases", "--alpha", "3/2"],
        ["expmech.proofs.audit:demo_cases", "--max-draws", "0"],
        ["expmech.proofs.audit:demo_cases", "--detectable", "1/2"],
        ["expmech.proofs.audit:demo_cases", "--detectable", "x"],
    ],
)
def test_usage_errors_exit_two(arguments, capsys):
    """A bad target or option exits 2 with a message naming it, never a traceback."""
    assert main(["audit", *arguments]) == 2
    err = capsys.readouterr().err
    assert "expmech audit" in err and "Traceback" not in err


def test_a_sampler_that_raises_exits_two(tmp_path, monkeypatch, capsys):
    """A sampler that raises cannot be audited: exit 2 and the exception in the message."""
    (tmp_path / "my_samplers.py").write_text(
        textwrap.dedent(
            """
            from fractions import Fraction
            from expmech.impl import ExponentialMechanism
            from expmech.proofs import AuditCase

            def broken(dataset):
                raise ZeroDivisionError("no luck")

            CASE = AuditCase("broken", broken, ExponentialMechanism(lambda d, r: r, epsilon=Fraction(1), outputs=range(3)), None)
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["audit", "my_samplers:CASE"]) == 2
    err = capsys.readouterr().err
    assert "could not be audited" in err and "ZeroDivisionError" in err
