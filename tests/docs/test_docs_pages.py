"""The examples of every documentation page other than the tutorials run as written (explanation, reference, home)."""

import pytest

from docs_blocks import ROOT, python_blocks, run_python, run_shell

PAGES = [page for page in sorted((ROOT / "docs").rglob("*.md")) if "tutorials" not in page.relative_to(ROOT / "docs").parts]


@pytest.mark.parametrize("block", python_blocks(PAGES), ids=lambda block: block.id)
def test_each_python_block_runs_and_prints_what_it_says(block, tmp_path, monkeypatch):
    """Every ```python block runs alone, in a fresh namespace; each print shows what its comment promises."""
    monkeypatch.chdir(tmp_path)
    run_python(block, tmp_path)


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_shell_lines_exit_as_promised(page, tmp_path):
    """Each page's `expmech …` lines, run in order from a scratch directory, exit as promised."""
    results = run_shell(page, tmp_path)
    assert all(promised == actual for _, promised, actual in results), results
