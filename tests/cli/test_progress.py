"""Progress bars: verify, certify, spec and synth step through their work on stderr, on a terminal only; stdout stays clean."""

import sys
import textwrap

import pytest

from expmech.proofs.cli import _main, _synth, main
from expmech.proofs.cli._progress import Progress

ROWS = "1,0,1\n0,1,1\n1,1,0\n0,0,1\n"


class Recorder:
    """Stands in for Progress: records every bar, its total and the steps it was told about."""

    bars: list["Recorder"] = []

    def __init__(self, total, label, *, noun="steps"):
        self.total, self.label, self.noun, self.steps, self.closed = total, label, noun, [], False
        self.count, self.done, self.finished = total, 0, 0
        Recorder.bars.append(self)

    def step(self, name):
        self.steps.append(name)
        self.done += 1

    def finish(self):
        self.finished += 1

    def print(self, text, *, file=None):
        print(text, file=sys.stdout if file is None else file)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.closed = True


@pytest.fixture
def recorded(monkeypatch):
    Recorder.bars = []
    monkeypatch.setattr(_main, "Progress", Recorder)
    monkeypatch.setattr(_synth, "Progress", Recorder)
    return Recorder.bars


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A small project with two mechanisms in its [tool.expmech] table, and a CSV of bits."""
    (tmp_path / "i10progress_q.py").write_text(
        textwrap.dedent(
            """
            from expmech.spec import RecordSchema, OutputSpace, IntRange, QualityFunction, count
            schema, outputs = RecordSchema(x=IntRange(0, 2)), OutputSpace(r=IntRange(0, 2))
            threshold = QualityFunction(count(schema["x"] >= outputs["r"]), schema=schema, outputs=outputs, name="threshold")
            """
        )
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.expmech]\nmechanisms = [\n'
        '  { name = "a", quality = "i10progress_q:threshold", epsilon = "1/2", neighbours = "replace-one", claimed = 1 },\n'
        '  { name = "b", quality = "i10progress_q:threshold", epsilon = "1/2", neighbours = "add-remove", claimed = 1 },\n]\n'
    )
    (tmp_path / "bits.csv").write_text(ROWS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    return tmp_path


def test_verify_and_certify_step_once_per_mechanism(project, recorded, capsys):
    """One step per mechanism, named after it, and the bar closed — for verify and for certify."""
    assert main(["verify"]) == 0
    assert main(["certify", "pyproject.toml", "-o", "out"]) == 0
    assert [(bar.label, bar.total, len(bar.steps), bar.closed) for bar in recorded] == [("verifying", 2, 2, True), ("certifying", 2, 2, True)]
    assert all(any("a" in step for step in bar.steps[:1]) and any("b" in step for step in bar.steps[1:]) for bar in recorded)


def test_spec_steps_once_per_statement(recorded, capsys):
    """spec: one step per statement of the source and per kernel rule."""
    from expmech.spec import RULE_STATEMENTS, STATEMENTS

    main(["spec", "--instances", "1", "--attempts", "1"])
    (bar,) = recorded
    assert bar.label == "checking statements" and bar.total == len(STATEMENTS) + len(RULE_STATEMENTS) == len(bar.steps) and bar.closed


@pytest.mark.parametrize("extra", [[], ["--plot", "e.png"], ["--certificate", "c.json"]])
def test_synth_steps_match_its_total(project, recorded, capsys, extra):
    """synth: every step it announced is taken (levels, usefulness, one per prefix with --plot, the certificate, the draw)."""
    assert main(["synth", "bits.csv", "--m", "1", "--seed", "1", *extra]) == 0
    (bar,) = recorded
    assert bar.label == "synth" and bar.total == len(bar.steps) and bar.closed
    assert bar.steps[0] == "exact q-levels" and bar.steps[-1] == "one exact draw"
    assert any("certificate" in s for s in bar.steps) == ("--certificate" in extra)
    assert any(s.startswith("prefix n =") for s in bar.steps) == ("--plot" in extra)


def test_on_a_terminal_the_bar_goes_to_stderr_only(project, capsys, monkeypatch):
    """With a terminal (forced), rich draws on stderr; stdout is byte for byte what it is without one."""
    argv = ["synth", "bits.csv", "--m", "1", "--seed", "1"]
    assert main(argv) == 0
    plain = capsys.readouterr()
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TTY_COMPATIBLE", raising=False)
    assert main(argv) == 0
    drawn = capsys.readouterr()
    assert drawn.out == plain.out and "\x1b" not in drawn.out
    assert "synth" in drawn.err and "\x1b[" in drawn.err and "\x1b[" not in plain.err


def test_without_a_terminal_nothing_is_drawn(capsys):
    """Not a terminal (CI logs, pipes): the bar draws nothing and steps are free."""
    with Progress(3, "label") as progress:
        for name in ("a", "b", "c"):
            progress.step(name)
        assert progress.bar is None and progress.done == 3
    assert capsys.readouterr() == ("", "")
