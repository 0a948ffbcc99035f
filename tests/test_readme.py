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


def _expected_outputs(block):
    """The comment after each ``print(...)`` line: the output it promises (``…`` matches anything)."""
    return [line.split("#", 1)[1].strip() for line in block.splitlines() if line.startswith("print(") and "#" in line]


def _matches(expected, printed):
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, printed, flags=re.S) is not None


@pytest.mark.parametrize("index", range(len(PYTHON_BLOCKS)))
def test_each_python_block_runs_on_its_own_and_prints_what_it_says(index, tmp_path, monkeypatch):
    """Every ```python block of the README runs alone, in a fresh namespace; each print shows what its comment promises."""
    monkeypatch.chdir(tmp_path)
    block = PYTHON_BLOCKS[index]
    printed = []
    namespace = {"print": lambda *args, **_: printed.append(" ".join(str(a) for a in args))}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - the README is ours
    expected = _expected_outputs(block)
    assert len(printed) == len(expected)
    for promise, output in zip(expected, printed):
        assert _matches(promise, output), (promise, output)


def test_the_readme_has_its_python_examples():
    """The three uses and the exact-arithmetic section each show Python."""
    assert len(PYTHON_BLOCKS) >= 4


def test_setup_commands_are_the_two_documented():
    """Exactly two set-up commands, and .ci/run runs the test one verbatim."""
    setup = README.split("## Set up on a fresh machine")[1].split("## ")[0]
    commands = re.findall(r"```sh\n(.*?)\n```", setup, flags=re.S)
    assert commands == ['pip install -e . && expmech verify', 'pip install -e ".[test]" && pytest']
    ci = (pathlib.Path(__file__).parent.parent / ".ci" / "run").read_text()
    assert commands[1] in ci


@pytest.fixture(scope="module")
def shell_exit_codes(tmp_path_factory):
    """Every `expmech …` line of the README run once, in order, in one scratch directory: line -> exit code."""
    directory = tmp_path_factory.mktemp("readme-shell")
    (directory / "bits.csv").write_text("\n".join(f"{i % 2},{(i // 2) % 2},{(i // 3) % 2}" for i in range(12)) + "\n")
    codes = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(directory)
        for line in SHELL_LINES:
            if "WRONG" not in line:
                codes[line] = main(shlex.split(line)[1:])
    return codes


@pytest.mark.parametrize("line", [line for line in SHELL_LINES if "WRONG" not in line], ids=lambda s: s[:40])
def test_shell_examples_succeed(line, shell_exit_codes):
    """Each `expmech …` command line in the README exits 0 (all run once, in order, from a scratch directory)."""
    assert shell_exit_codes[line] == 0


def test_the_failing_example_fails_as_documented(capsys):
    """The wrong-catalogue example exits 1."""
    (line,) = [line for line in SHELL_LINES if "WRONG" in line]
    assert main(shlex.split(line)[1:]) == 1


def test_a_broken_promise_is_caught():
    """The comparison of a print with its comment can fail: wrong text or a missing part does not match."""
    assert _matches("|q| = … > 1/2 at r = …", "|q| = 1 > 1/2 at r = 0")
    assert not _matches("|q| = … > 1/2 at r = …", "|q| = 1 > 1 at r = 0")
    assert not _matches("ε = 1", "ε = 1/2")


def test_the_toml_example_verifies(tmp_path, monkeypatch, capsys):
    """The README's [tool.expmech] table, in a project with the module it names, verifies: exit 0, no PYTHONPATH."""
    import sys

    (block,) = re.findall(r"```toml\n(.*?)```", README, flags=re.S)
    (tmp_path / "pyproject.toml").write_text(block, encoding="utf-8")
    (tmp_path / "my_mechanisms.py").write_text(
        "from fractions import Fraction\n"
        "from expmech.spec import RecordSchema, OutputSpace, IntRange, QualityFunction, count\n"
        "schema, outputs = RecordSchema(x=IntRange(0, 9)), OutputSpace(r=IntRange(0, 9))\n"
        "threshold = QualityFunction(count(schema['x'] >= outputs['r']), schema=schema, outputs=outputs, name='threshold')\n"
        "CATALOGUE = [{'name': 'threshold-add-remove', 'quality': threshold, 'epsilon': Fraction(1, 4), 'neighbours': 'add-remove'}]\n"
    )
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.chdir(tmp_path)
    assert main(["verify"]) == 0
    assert "2 PROVED — exit code 0" in capsys.readouterr().out
