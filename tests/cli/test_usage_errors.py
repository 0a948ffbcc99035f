"""verify, certify and spec: one bad argument is exit 2 before any work, in one line naming the parameter and its value.

(``synth`` has the same tests in test_synth_guards.py; the [tool.expmech] table in test_config.py.)
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.proofs.cli import _spec_report, _verify, main

Z3_INTEGERS = ["0", "-1", "x", "1.5", "", " ", "nan", "1e3", str(2**32), str(2**64)]
BAD_FLAGS = {
    "verify": {"--rlimit": Z3_INTEGERS, "--timeout-ms": Z3_INTEGERS, "--format": ["yaml", "TEXT", "", "sarif2"]},
    "certify": {"--rlimit": Z3_INTEGERS, "--timeout-ms": Z3_INTEGERS, "--output": ["", "file.txt", "file.txt/sub"]},
    "spec": {
        "--instances": ["0", "-1", "x", "", "2.5", str(10**6 + 1)],
        "--attempts": ["0", "-3", "y", str(10**7 + 1)],
        "--seed": ["x", "1.5", "", "1e5"],
        "--format": ["yaml", "sarif", "junit", ""],
    },
}
# Targets (verify and certify take them as positionals): each is refused with its value in the message.
BAD_TARGETS = [
    "", " ", ":", "a:", "nope_i10_usage:x", "os:sep", "json:loads", "expmech.impl:NOPE", "missing.toml", "no_table.toml",
    "latin1.toml", "broken.toml", "folder", "folder/pyproject.toml",
]
GOOD = {
    "verify": ["verify", "expmech.impl:WRONG_CATALOGUE", "--format", "json", "--rlimit", "50000"],
    "certify": ["certify", "expmech.impl:WRONG_CATALOGUE", "--output", "out", "--timeout-ms", "10000"],
    "spec": ["spec", "--instances", "3", "--attempts", "5", "--seed", "1", "--format", "text"],
}
LONG = {"-o": "--output"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A working directory with the files the bad targets and outputs name; any real work fails the test."""
    (tmp_path / "file.txt").write_text("not a directory\n")
    (tmp_path / "no_table.toml").write_text('[project]\nname = "demo"\n')
    (tmp_path / "latin1.toml").write_bytes(b'[tool.expmech]\ntargets = ["caf\xe9:x"]\n')
    (tmp_path / "broken.toml").write_text("[tool.expmech\ntargets = [\n")
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)

    def no_work(*args, **kwargs):
        raise AssertionError("work started despite a bad argument")

    monkeypatch.setattr(_verify, "verify_targets", no_work)
    monkeypatch.setattr(_spec_report, "spec_reports", no_work)
    return tmp_path


def _replace(argv, flag, value):
    """``argv`` with ``flag`` set to ``value`` (appended when absent)."""
    argv = list(argv)
    if flag in argv:
        argv[argv.index(flag) + 1] = value
    else:
        argv += [flag, value]
    return argv


@st.composite
def one_bad_argument(draw):
    """A valid command line of verify, certify or spec with exactly one argument made bad: (argv, parameter, value)."""
    command = draw(st.sampled_from(sorted(GOOD)))
    argv = GOOD[command]
    choices = [("flag", flag) for flag in BAD_FLAGS[command]] + ([("target", None)] if command != "spec" else [])
    kind, flag = draw(st.sampled_from(choices))
    if kind == "flag":
        value = draw(st.sampled_from(BAD_FLAGS[command][flag]))
        return _replace(argv, flag, value), flag, value
    value = draw(st.sampled_from(BAD_TARGETS))
    return [argv[0], value, *argv[2:]], None, value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(one_bad_argument())
def test_one_bad_argument_is_exit_2_in_one_line_naming_it(project, capsys, case):
    """Exit 2 (never 4, never a silent default), nothing on stdout, one line on stderr with the parameter and the value."""
    argv, flag, value = case
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, (argv, captured)
    assert captured.out == "" and captured.err.count("\n") == 1 and "Traceback" not in captured.err, captured.err
    line = captured.err
    assert line.startswith(f"expmech {argv[0]}: "), line
    if flag is not None:
        assert flag in line, line
    shown = value.removesuffix("/pyproject.toml")
    assert repr(value) in line or (value.strip() and shown in line), line


def test_a_good_command_line_does_work(project, capsys):
    """The base command lines are valid: each reaches its work (so the test above cannot pass for the wrong reason)."""
    for argv in GOOD.values():
        assert main(argv) == 4 and "work started despite a bad argument" in capsys.readouterr().err  # the stand-in raised


@pytest.mark.parametrize("value", ["", " "])
def test_an_empty_target_or_output_is_never_the_current_directory(project, capsys, value):
    """``Path("")`` is ``.``: an empty target or --output is refused, not read as the current directory."""
    for argv in (["verify", value], ["certify", value, "-o", "out"], ["certify", "expmech.impl:WRONG_CATALOGUE", "-o", value]):
        if argv[0] == "certify" and argv[-1] == " ":
            continue  # " " is a legal directory name
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2 and "is empty" in err and repr(value) in err, err


@pytest.mark.parametrize("kind", ["empty", "directory", "fifo", "missing", "latin1", "broken"])
def test_check_of_a_path_that_is_no_certificate_is_exit_2(tmp_path, monkeypatch, capsys, kind):
    """expmech check on a directory (or "", which is "."), a FIFO, a missing or unreadable file: exit 2, never 4, never a hang."""
    import os

    monkeypatch.chdir(tmp_path)
    target = {"empty": "", "directory": "folder", "fifo": "pipe", "missing": "none.json", "latin1": "latin1.json", "broken": "broken.json"}[kind]
    (tmp_path / "folder").mkdir()
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "latin1.json").write_bytes(b'{"caf\xe9": 1}')
    (tmp_path / "broken.json").write_text("[1")
    code = main(["check", target])
    captured = capsys.readouterr()
    assert code == 2, captured.out + captured.err
    assert "internal error" not in captured.out + captured.err and "Traceback" not in captured.err
