"""The README's examples run as written."""

import pathlib
import re
import shlex

import pytest

from expmech.proofs.cli import main

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)
SHELL_LINES = [
    line.strip()
    for block in re.findall(r"```sh\n(.*?)```", README, flags=re.S)
    for line in block.splitlines()
    if line.strip().startswith("expmech ")
]


def test_python_examples_run_in_order(tmp_path, monkeypatch):
    """Every ```python block of the README runs, in order, in one namespace."""
    monkeypatch.chdir(tmp_path)
    assert len(PYTHON_BLOCKS) >= 4
    namespace: dict = {}
    for block in PYTHON_BLOCKS:
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - the README is ours


def test_setup_commands_are_the_two_documented():
    """Exactly two set-up commands, and .ci/run runs the test one verbatim."""
    setup = README.split("## Set up on a fresh machine")[1].split("## ")[0]
    commands = re.findall(r"```sh\n(.*?)\n```", setup, flags=re.S)
    assert commands == ['pip install -e . && expmech verify', 'pip install -e ".[test]" && pytest']
    ci = (pathlib.Path(__file__).parent.parent / ".ci" / "run").read_text()
    assert commands[1] in ci


@pytest.mark.parametrize("line", [line for line in SHELL_LINES if "WRONG" not in line], ids=lambda s: s[:40])
def test_shell_examples_succeed(line, tmp_path, monkeypatch, capsys):
    """Each `expmech …` command line in the README exits 0 (run from a scratch directory, in order)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bits.csv").write_text("\n".join(f"{i % 2},{(i // 2) % 2},{(i // 3) % 2}" for i in range(12)) + "\n")
    for earlier in SHELL_LINES[: SHELL_LINES.index(line)]:
        if "WRONG" not in earlier:
            main(shlex.split(earlier)[1:])
    assert main(shlex.split(line)[1:]) == 0


def test_the_failing_example_fails_as_documented(capsys):
    """The wrong-catalogue example exits 1."""
    (line,) = [line for line in SHELL_LINES if "WRONG" in line]
    assert main(shlex.split(line)[1:]) == 1
