"""The language reference shows every constructor of expmech.spec in an example; the command reference is consistent.

docs/reference/spec-language.md cannot silently fall behind ``expmech.spec``:
every public name that builds part of the language — defined in the modules
of domains, the language, quality functions, likelihoods, base measures,
neighbour relations, serialisation and ε — must be used in one of its
``python`` blocks (which the docs tests run).  docs/reference/cli.md, generated
from the parsers, never marks an argument required while stating a default.
"""

from __future__ import annotations

import re

import pytest

import expmech.spec
from docs_blocks import ROOT, blocks

LANGUAGE_MODULES = {"._domains", "._language", "._quality", "._likelihood", "._ranges", "._neighbours", "._serial", "._privacy"}
CONSTRUCTORS = sorted(
    name
    for module, names in expmech.spec._EXPORTS.items()
    if module in LANGUAGE_MODULES
    for name in names
    if name in expmech.spec.__all__
)


def _examples() -> str:
    return "\n".join(block.code for block in blocks(ROOT / "docs" / "reference" / "spec-language.md") if block.tag == "python")


def test_the_constructors_are_the_language_s():
    """The set checked is not empty and holds what the issue named (a test of nothing would pass)."""
    for name in ("Categories", "Grid", "RecordSchema", "OutputSpace", "max_over", "min_over", "DATASET_SIZE", "Lebesgue", "Counting", "Geometric", "PiecewiseDensity", "QualityFunction"):
        assert name in CONSTRUCTORS


@pytest.mark.parametrize("name", CONSTRUCTORS)
def test_every_constructor_has_a_runnable_example(name):
    """Each constructor of expmech.spec is used in a python block of the spec-language reference."""
    assert re.search(rf"(?<![\w.]){re.escape(name)}\b", _examples()), f"{name} has no example in docs/reference/spec-language.md"


def test_no_argument_is_both_required_and_defaulted():
    """cli.md: a row marked required does not state a default (verify's targets default to the nearest pyproject.toml)."""
    rows = [line for line in (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8").splitlines() if line.startswith("| `")]
    assert rows
    for row in rows:
        cells = [cell.strip() for cell in row.strip().strip("|").split(" | ")]
        required, text = cells[1], " | ".join(cells[2:])
        assert not (required == "required" and "default" in text), row
