"""The documentation site's structure: generated pages equal their generators' output, every block is runnable or
marked illustrative, and the navigation names pages that exist."""

import importlib.util
import re

import pytest

from docs_blocks import READ_ONLY, ROOT, RUN, SETUP, blocks, other_shell_lines, pages


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "tool, page",
    [("gen_cli_reference", "docs/reference/cli.md"), ("gen_benchmarks", "docs/benchmarks/index.md"), ("gen_trust", "docs/explanation/trust.md"),
     ("gen_library_scores", "docs/reference/library-scores.md")],
)
def test_a_generated_page_equals_its_generator_output(tool, page):
    """The command reference (from the argparse parsers), the benchmarks page (from the recorded results), the trust
    page (from the kernel's rule table and the rule statements of spec/) and the library scores (from
    LIBRARY_CATALOGUE) are what their scripts write: run `python tools/<script>.py` after changing a flag, recording a
    benchmark, changing a kernel rule or the library catalogue."""
    assert (ROOT / page).read_text(encoding="utf-8") == _tool(tool).render(), f"run: python tools/{tool}.py"


@pytest.mark.parametrize("page", ["README.md", "docs/explanation/accounting.md"])
def test_the_accounting_table_is_the_last_recorded_run(page):
    """The comparison table of the README and the accounting page is what tools/gen_accounting.py writes from
    docs/benchmarks/results/data/accounting.json (the last run of tests/benchmarks/bench_accounting.py), and the
    plot it draws from the same file exists."""
    tool = _tool("gen_accounting")
    assert (ROOT / page).read_text(encoding="utf-8") == tool.render(ROOT / page), "run: python tools/gen_accounting.py"
    assert tool.PLOT.is_file()


def test_the_command_reference_lists_every_flag_of_every_subcommand():
    """Each subcommand has its section, and each of its options appears in it."""
    import argparse

    from expmech.proofs.cli import build_parser

    text = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    (commands,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    for name, sub in commands.choices.items():
        section = text.split(f"## expmech {name}\n")[1].split("\n## ")[0]
        for action in sub._actions:
            for option in action.option_strings:
                assert option == "-h" or option == "--help" or f"`{option}`" in section, (name, option)


def test_every_block_is_runnable_or_marked_illustrative():
    """Every fenced block of README.md and docs/ carries a tag the tests run (python, sh) or one marked read-only
    (toml, text); no untagged block, and the read-only ones stay few."""
    every = [block for page in pages() for block in blocks(page)]
    assert every
    unknown = [block.id for block in every if block.tag not in RUN | READ_ONLY]
    assert not unknown, unknown
    read_only = [block for block in every if block.tag in READ_ONLY]
    assert len(read_only) <= len(every) // 4, [block.id for block in read_only]


def test_shell_blocks_hold_only_commands_the_tests_run_or_the_setup():
    """A sh block's line is an `expmech …` command (run by the tests) or one of the documented set-up commands."""
    for page in pages():
        assert set(other_shell_lines(page)) <= SETUP, (page, other_shell_lines(page))


def test_the_navigation_names_pages_that_exist():
    """Each page named in mkdocs.yml's nav exists under docs/."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    named = re.findall(r":\s*([\w/.-]+\.md)\s*$", config.split("\nnav:", 1)[1], flags=re.M)
    assert named and all((ROOT / "docs" / name).is_file() for name in named), named


def test_the_recorder_writes_what_the_generator_reads(tmp_path, monkeypatch):
    """tests/benchmarks/record.py keeps a script's output with the fields gen_benchmarks.py requires."""
    import json
    import sys

    spec = importlib.util.spec_from_file_location("record", ROOT / "tests" / "benchmarks" / "record.py")
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    script = tmp_path / "bench_tiny.py"
    script.write_text('"""A tiny benchmark."""\nprint("| a | b |")\nprint("|---|---|")\nprint("| 1 | 2 |")\n')
    monkeypatch.setattr(record, "HERE", tmp_path)
    monkeypatch.setattr(record, "RESULTS", tmp_path / "results")
    assert record.main(["bench_tiny.py"]) == 0
    entry = json.loads((tmp_path / "results" / "bench_tiny.json").read_text())
    generator = _tool("gen_benchmarks")
    assert all(entry.get(field) for field in generator.FIELDS) and entry["output"].startswith("| a | b |")
    assert sys.executable  # the script ran with this interpreter
