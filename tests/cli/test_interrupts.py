"""Ctrl-C ends every command with one line and exit 130, no traceback, no half-written file; verify streams verdicts.

Each command runs in a subprocess whose steps are slowed down (a small driver
patches the step it is in), SIGINT is sent to its process group as a terminal
does once the command says it is at work, and the test reads what is left:
the exit code, the last line of stderr (``expmech verify: interrupted after 1
of 10 targets``), no ``Traceback``, every file written whole.  z3, which
catches SIGINT itself during a check and answers ``unknown``, is made to give
the interrupt back.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from expmech.impl import CATALOGUE

DRIVER = textwrap.dedent(
    """\
    import sys, time
    from expmech.proofs.cli import _progress

    where, at = sys.argv[1], sys.argv[2]

    def announce(label):
        sys.stderr.write(f"AT WORK {label}\\n")  # one write: the signal comes once the whole line is out
        sys.stderr.flush()
        if str(label) == at:  # held here until the signal comes
            time.sleep(60)

    if where == "step":
        step = _progress.Progress.step
        def slow_step(self, name):
            step(self, name)
            announce(self.done)
        _progress.Progress.step = slow_step
    elif where == "progress":
        start = _progress.Progress.__init__
        def slow_start(self, *args, **kwargs):
            start(self, *args, **kwargs)
            announce(0)
        _progress.Progress.__init__ = slow_start
    elif where == "account":
        from expmech.proofs.cli import _account
        checked = _account._checked
        def slow_checked(data, label):
            announce(label)
            return checked(data, label)
        _account._checked = slow_checked
    elif where == "check":
        from expmech.proofs import checker
        check = checker.verify
        def slow_check(*args, **kwargs):
            announce(args[0])
            return check(*args, **kwargs)
        checker.verify = slow_check

    from expmech.proofs.cli import main
    sys.exit(main(sys.argv[3:]))
    """
)


def _interrupt(tmp_path: Path, where: str, argv: list[str], *, at: str) -> tuple[int, str, str]:
    """Run ``expmech argv`` through the driver; once stderr shows ``AT WORK {at}``, send SIGINT to the group."""
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER)
    process = subprocess.Popen(
        [sys.executable, str(driver), where, at, *argv],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    seen = b""
    deadline = time.monotonic() + 240
    assert process.stderr is not None
    while f"AT WORK {at}\n".encode() not in seen:
        assert time.monotonic() < deadline and process.poll() is None, seen.decode(errors="replace")
        ready, _, _ = select.select([process.stderr], [], [], 1.0)
        if ready:
            seen += os.read(process.stderr.fileno(), 65536)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    return process.returncode, out.decode(), (seen + err).decode()


def _one_line(err: str, expected: str) -> None:
    err = re.sub(r"AT WORK \S*\n?", "", err)
    lines = [line for line in err.splitlines() if not line.startswith("expmech verify: [")]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    assert lines[-1] == expected, err


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_verify_stops_with_one_line_and_keeps_the_verdicts_it_printed(tmp_path, fmt):
    """Interrupted while the second target starts: exit 130, the first verdict already out, the count in the line."""
    code, out, err = _interrupt(tmp_path, "step", ["verify", "expmech.impl:CATALOGUE", "--format", fmt], at="2")
    assert code == 130
    _one_line(err, f"expmech verify: interrupted after 1 of {len(CATALOGUE)} targets")
    first = CATALOGUE[0].name
    if fmt == "text":  # streamed on stdout as decided, the summary never printed
        assert out.splitlines()[0].split()[:2] == ["PROVED", first] and "exit code" not in out
    else:  # the machine document is all or nothing; the verdict went to stderr as a plain line
        assert out == "" and f"expmech verify: [1/{len(CATALOGUE)}] PROVED {first}" in err


def test_certify_leaves_whole_files_only(tmp_path):
    """Interrupted while the third target starts: the two certificates decided are whole, no temporary file is left."""
    code, out, err = _interrupt(tmp_path, "step", ["certify", "expmech.impl:CATALOGUE", "-o", "out"], at="3")
    assert code == 130
    _one_line(err, f"expmech certify: interrupted after 2 of {len(CATALOGUE)} targets")
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert not [name for name in files if name.startswith(".")], files
    certificates = [p for p in (tmp_path / "out").glob("*.cert.json")]
    assert len(certificates) == 2 and all("digest" in json.loads(p.read_text()) for p in certificates)
    assert len(out.splitlines()) == 2


def test_spec_synth_and_audit_stop_with_one_line(tmp_path):
    """spec (statements), synth (steps) and audit (cases): one line naming how far each got, exit 130."""
    code, _, err = _interrupt(tmp_path, "step", ["spec", "--instances", "2"], at="2")
    assert code == 130
    last = re.sub(r"AT WORK \S*\n?", "", err).splitlines()[-1]
    assert last.startswith("expmech spec: interrupted after 1 of ") and last.endswith(" statements") and "Traceback" not in err
    (tmp_path / "bits.csv").write_text("0,1\n1,1\n0,0\n1,0\n")
    code, _, err = _interrupt(tmp_path, "step", ["synth", "bits.csv", "--m", "2", "--seed", "1"], at="2")
    assert code == 130
    _one_line(err, "expmech synth: interrupted after 1 of 3 steps")
    code, _, err = _interrupt(tmp_path, "progress", ["audit", "expmech.proofs.adapters:library_cases", "--serial"], at="0")
    assert code == 130
    assert "Traceback" not in err and re.sub(r"AT WORK \S*\n?", "", err).splitlines()[-1].startswith("expmech audit: interrupted after 0 of ")


def test_account_and_check_stop_with_one_line(tmp_path):
    """Commands without a progress bar say only that they were interrupted; -o is never left half-written."""
    from certificate_tools import catalogue_certificate

    certificate = tmp_path / "median.cert.json"
    certificate.write_text(catalogue_certificate("median").to_json())
    code, out, err = _interrupt(tmp_path, "account", ["account", str(certificate), "--times", "3", "--delta", "1/1000", "-o", "composed.json"], at=str(certificate))
    assert code == 130
    _one_line(err, "expmech account: interrupted")
    assert not list(tmp_path.glob("*composed*"))
    code, out, err = _interrupt(tmp_path, "check", ["check", str(certificate)], at=str(certificate))
    assert code == 130
    _one_line(err, "expmech check: interrupted")


HARD = textwrap.dedent(
    """\
    import sys, threading, os, signal
    import z3
    from expmech.proofs.prover._z3bridge import solve, context
    x, y, z = (z3.Int(n, ctx=context()) for n in "xyz")
    sys.stderr.write("AT WORK z3\\n")
    sys.stderr.flush()
    result = solve([x * x * x + y * y * y == z * z * z, x > 1, y > 1, z > 1], rlimit=2**31, timeout_ms=300_000, export=False)
    print("ANSWERED", result.status, result.reason, flush=True)
    """
)


def test_z3_gives_a_ctrl_c_back(tmp_path):
    """z3 swallows SIGINT during a check and answers unknown; the bridge raises KeyboardInterrupt instead of an UNKNOWN."""
    script = tmp_path / "hard.py"
    script.write_text(HARD)
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    assert process.stderr is not None
    assert process.stderr.readline().startswith(b"AT WORK")
    time.sleep(2)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert b"ANSWERED" not in out, out
    assert b"KeyboardInterrupt" in err and process.returncode != 0


def test_a_terminal_gets_the_bar_and_every_verdict(tmp_path):
    """On a terminal (a pty for stdout and stderr), every verdict is shown while the bar runs, then the summary."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "expmech.proofs.cli", "verify", "expmech.impl:CATALOGUE"],
        stdout=follower, stderr=follower, cwd=tmp_path, env={**os.environ, "COLUMNS": "200", "TERM": "xterm"},
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        shown += chunk
    assert process.wait(timeout=300) == 0
    text = shown.decode(errors="replace")
    for entry in CATALOGUE:
        assert entry.name in text
    assert f"{len(CATALOGUE)} PROVED — exit code 0" in text
    assert "verifying" in text, "the bar was drawn"


class _HalfBuilt:
    """Like z3's Context when Ctrl-C lands in its constructor: the finaliser fails on an attribute never set."""

    def __init__(self) -> None:
        raise KeyboardInterrupt

    def __del__(self) -> None:
        self.owner  # noqa: B018 - raises AttributeError, as z3's Context.__del__ does


class _Failing:
    def __del__(self) -> None:
        raise ValueError("a finaliser failed")


def test_an_interrupt_drops_the_reports_of_half_built_objects(capsys):
    """The finaliser of an object whose constructor was interrupted prints no "Exception ignored" traceback."""
    from expmech.proofs.cli._session import Session

    session = Session()
    with session:
        _HalfBuilt()
    assert session.was_interrupted and session.interrupted() == 130
    assert capsys.readouterr().err == "expmech: interrupted\n"


def test_without_an_interrupt_the_reports_are_printed_at_the_end(capsys):
    """A finaliser failing in an ordinary run is still reported, as Python would, once the run ends."""
    from expmech.proofs.cli._session import Session

    session = Session()
    with session:
        _Failing()
        assert capsys.readouterr().err == ""
    err = capsys.readouterr().err
    assert not session.was_interrupted and "ValueError: a finaliser failed" in err and "Exception ignored in" in err
