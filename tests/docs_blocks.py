"""The code blocks of README.md and docs/**/*.md, and how the tests run them.

A fenced block's language tag says what it is:

- ``python``: run on its own in a fresh namespace, in a scratch directory; each ``print(...)`` line whose comment
  promises an output must print it (``…`` matches anything);
- ``sh``: each ``expmech …`` line is run, in order, per page, in one scratch directory, and must exit 0, or the code
  its comment states (``# exit 1``); the other lines must be one of the set-up commands;
- ``toml``: a ``[tool.expmech]`` table, run by the CI tutorial's own test;
- ``yaml``: a configuration a CI system reads (pre-commit, a GitHub workflow), parsed by the CI tutorial's own test;
- ``text``: output shown for reading, never run.

Any other tag, or none, is an error: an illustrative block must say so with ``text``.
"""

from __future__ import annotations

import linecache
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = {"python", "sh"}
READ_ONLY = {"toml", "yaml", "text"}
SETUP = {
    "pip install -e . && expmech verify",
    'pip install -e ".[test]" && pytest',
    'pip install -e ".[docs]" && mkdocs build --strict',
}
_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", flags=re.S | re.M)


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    tag: str
    code: str

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    """README.md and every Markdown page under docs/, in a fixed order."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(page: Path) -> list[Block]:
    text = page.read_text(encoding="utf-8")
    name = page.relative_to(ROOT).as_posix()
    return [Block(name, text.count("\n", 0, found.start()) + 1, found.group(1).strip(), found.group(2)) for found in _FENCE.finditer(text)]


def python_blocks(selected: list[Path]) -> list[Block]:
    return [block for page in selected for block in blocks(page) if block.tag == "python"]


def shell_lines(page: Path) -> list[tuple[str, int]]:
    """The ``expmech …`` lines of a page's sh blocks with the exit code each promises (``# exit N``, default 0)."""
    found = []
    for block in blocks(page):
        if block.tag != "sh":
            continue
        for line in block.code.splitlines():
            command, _, comment = line.strip().partition("  # ")
            if command.startswith("expmech "):
                code = re.fullmatch(r"exit (\d)", comment.strip())
                found.append((command.strip(), int(code.group(1)) if code else 0))
    return found


def other_shell_lines(page: Path) -> list[str]:
    return [
        line.strip()
        for block in blocks(page)
        if block.tag == "sh"
        for line in block.code.splitlines()
        if line.strip() and not line.strip().startswith("expmech ")
    ]


def expected_outputs(code: str) -> list[str]:
    """The comment after each ``print(...)`` line: the output it promises (``…`` matches anything)."""
    return [line.split("#", 1)[1].strip() for line in code.splitlines() if line.startswith("print(") and "#" in line]


def matches(expected: str, printed: str) -> bool:
    pattern = ".*?".join(re.escape(part) for part in expected.split("…"))
    return re.fullmatch(pattern, printed, flags=re.S) is not None


def run_python(block: Block, directory: Path) -> None:
    """Run ``block`` in a fresh namespace (cwd: ``directory``) and check each printed line against its promise."""
    printed: list[str] = []
    namespace = {"print": lambda *args, **_: printed.append(" ".join(str(a) for a in args)), "__name__": "__docs__"}
    # the block's source, where inspect.getsource finds it (as IPython keeps a cell's): expmech.spec.trace reads it
    linecache.cache[block.id] = (len(block.code), None, block.code.splitlines(keepends=True), block.id)
    exec(compile(block.code, block.id, "exec"), namespace)  # noqa: S102 - the documentation is ours
    expected = expected_outputs(block.code)
    assert len(printed) == len(expected), (block.id, printed, expected)
    for promise, output in zip(expected, printed):
        assert matches(promise, output), (block.id, promise, output)


def run_shell(page: Path, directory: Path) -> list[tuple[str, int, int]]:
    """Every ``expmech …`` line of ``page``, in order, in ``directory``: (line, promised exit, actual exit)."""
    import pytest

    from expmech.proofs.cli import main

    (directory / "bits.csv").write_text("\n".join(f"{i % 2},{(i // 2) % 2},{(i // 3) % 2}" for i in range(12)) + "\n")
    results = []
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(directory)
        for line, promised in shell_lines(page):
            results.append((line, promised, main(shlex.split(line)[1:])))
    return results
