"""One verdict: a library whose law exceeds its promised ε exactly is VIOLATION on every surface, its loss in full digits."""

import json
import textwrap

import pytest

from expmech.proofs.audit import AuditStatus, render_html, render_json, render_text
from expmech.proofs.cli import main

pytest.importorskip("diffprivlib")

from expmech.proofs.adapters import diffprivlib_cases  # noqa: E402

FAST = {"max_draws": 400, "power_replicates": 0, "privacy_draws": 200}


@pytest.fixture(scope="module")
def near_balanced():
    """diffprivlib's near-balanced ExponentialCategorical: numpy.isclose drops the factor 2, the exact loss is 1.0000129 > ε = 1."""
    case = next(c for c in diffprivlib_cases() if c.name.endswith("(input 'a')"))
    assert any(f.violation for f in case.findings)
    return case.run(**FAST)


def test_the_status_is_violation_even_when_the_sampler_matches(near_balanced):
    """The sampler samples the library's law faithfully (not rejected), yet the status is VIOLATION."""
    assert near_balanced.status is AuditStatus.VIOLATION and not near_balanced.rejected


def test_text_headline_and_digits(near_balanced):
    """The text report's first line is VIOLATION with the exact excess to 10 digits (1.000012936, not 1)."""
    text = render_text([near_balanced])
    assert text.startswith("VIOLATION") and "CONSISTENT" not in text
    assert "1.0000129362" in text.splitlines()[0]


def test_json_status_and_flags(near_balanced):
    """JSON says VIOLATION in status, verdict and the violation flag."""
    audit = json.loads(render_json([near_balanced]))["audits"][0]
    assert audit["status"] == "VIOLATION" and audit["violation"] is True and audit["verdict"].startswith("VIOLATION")
    assert "CONSISTENT" not in json.dumps(audit)


def test_html_heading(near_balanced):
    """The HTML section heading is VIOLATION, in red."""
    page = render_html([near_balanced])
    assert '<h2 style="color:#b00">VIOLATION' in page and "CONSISTENT" not in page


def test_cli_progress_lines_and_exit_code(tmp_path, monkeypatch, capsys):
    """`expmech audit` prints VIOLATION on its progress line (stderr) and in the report, and exits 1."""
    (tmp_path / "near_balanced_case.py").write_text(
        textwrap.dedent(
            """
            from expmech.proofs.adapters import diffprivlib_cases

            CASES = [c for c in diffprivlib_cases() if c.name.endswith("(input 'a')")]
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["audit", "near_balanced_case:CASES", "--max-draws", "400", "--power-replicates", "0", "--privacy-draws", "200"])
    captured = capsys.readouterr()
    assert code == 1
    assert captured.err.startswith("VIOLATION") and "1.0000129362" in captured.err
    assert "CONSISTENT" not in captured.err and captured.out.startswith("VIOLATION")
