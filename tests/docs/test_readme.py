"""The README's examples run as written, and it stays a front door: the two set-up commands, at most ~200 lines."""

import pytest

from docs_blocks import ROOT, blocks, matches, python_blocks, run_python, run_shell

README = ROOT / "README.md"
PYTHON = python_blocks([README])


@pytest.mark.parametrize("block", PYTHON, ids=lambda block: block.id)
def test_each_python_block_runs_on_its_own_and_prints_what_it_says(block, tmp_path, monkeypatch):
    """Every ```python block of the README runs alone, in a fresh namespace; each print shows what its comment promises."""
    monkeypatch.chdir(tmp_path)
    run_python(block, tmp_path)


def test_shell_examples_exit_as_promised(tmp_path):
    """Each `expmech …` line of the README, run in order from a scratch directory, exits as its comment says (0 unless
    `# exit N`)."""
    results = run_shell(README, tmp_path)
    assert results and all(promised == actual for _, promised, actual in results), results


def test_setup_commands_are_the_two_documented():
    """Exactly two set-up commands, and .ci/run runs the test one verbatim."""
    setup = README.read_text(encoding="utf-8").split("## Set up")[1].split("\n## ")[0]
    commands = [block.code.strip() for block in blocks(README) if block.tag == "sh" and block.code.strip() in setup]
    assert commands == ["pip install -e . && expmech verify", 'pip install -e ".[test]" && pytest']
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci and ci.index(commands[1]) < ci.index("mkdocs build --strict")


def test_the_readme_is_a_front_door():
    """At most about 200 lines, with an example per use, links to the documentation, and no history."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert len(PYTHON) >= 2 and "docs/" in text
    for history in ("issue 1", "issue 2", "--before", "Latest run"):
        assert history not in text


def test_a_broken_promise_is_caught():
    """The comparison of a print with its comment can fail: wrong text or a missing part does not match."""
    assert matches("|q| = … > 1/2 at r = …", "|q| = 1 > 1/2 at r = 0")
    assert not matches("|q| = … > 1/2 at r = …", "|q| = 1 > 1 at r = 0")
    assert not matches("ε = 1", "ε = 1/2")
