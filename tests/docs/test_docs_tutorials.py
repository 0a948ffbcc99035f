"""The tutorials' examples run as written (docs/tutorials/*.md; the other pages: test_docs_pages.py).

Split from the other pages so that pytest-xdist (``--dist loadfile``) runs the two files on different workers.
"""

import sys

import pytest

from docs_blocks import ROOT, blocks, python_blocks, run_python, run_shell

PAGES = sorted((ROOT / "docs" / "tutorials").glob("*.md"))


@pytest.mark.parametrize("block", python_blocks(PAGES), ids=lambda block: block.id)
def test_each_python_block_runs_and_prints_what_it_says(block, tmp_path, monkeypatch):
    """Every ```python block runs alone, in a fresh namespace; each print shows what its comment promises."""
    monkeypatch.chdir(tmp_path)
    run_python(block, tmp_path)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_shell_lines_exit_as_promised(page, tmp_path):
    """Each page's `expmech …` lines, run in order from a scratch directory, exit as promised."""
    results = run_shell(page, tmp_path)
    assert all(promised == actual for _, promised, actual in results), results


def test_the_ci_tutorial_project_verifies(tmp_path, monkeypatch, capsys):
    """The CI tutorial's my_mechanisms.py and [tool.expmech] table, as a project of their own: `expmech verify` in it
    exits 0, with no PYTHONPATH."""
    from expmech.proofs.cli import main

    page = blocks(ROOT / "docs" / "tutorials" / "ci.md")
    (module,) = [block.code for block in page if block.tag == "python" and block.code.startswith("# my_mechanisms.py")]
    (table,) = [block.code for block in page if block.tag == "toml"]
    (tmp_path / "my_mechanisms.py").write_text(module, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(table, encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "my_mechanisms", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["verify"]) == 0
    assert "3 PROVED — exit code 0" in capsys.readouterr().out
