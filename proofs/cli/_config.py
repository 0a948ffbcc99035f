"""The ``[tool.expmech]`` table of a ``pyproject.toml``, read strictly.

The table is validated against ``config.schema.json`` (JSON Schema draft
2020-12, shipped beside this module): an unknown key is an error with a "did
you mean", a missing or misspelt table is an error with a hint, never a
silent fall-back to something else.  TOML decimals are read as
:class:`~decimal.Decimal` and converted exactly (``0.1`` is ``1/10``), so the
value shown is the value used.  Every error is one line naming the file, the
line, the key and the value.
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from .._inputlimits import InputRefused, check_file_size
from ._values import UsageError, shown

__all__ = ["Config", "ConfigEntry", "find_pyproject", "read_config", "schema"]

TABLE = "expmech"
#: A pyproject.toml larger than this is refused before it is read (the largest on PyPI are a few hundred KB).
MAX_CONFIG_BYTES = 4 << 20


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The JSON Schema of the ``[tool.expmech]`` table."""
    loaded: dict[str, Any] = json.loads(resources.files(__package__).joinpath("config.schema.json").read_text(encoding="utf-8"))
    return loaded


@dataclass(frozen=True)
class ConfigEntry:
    """One item of ``mechanisms`` or ``targets``: its key path, its value and the line it starts on."""

    key: str
    value: Any
    line: int


@dataclass(frozen=True)
class Config:
    """A validated ``[tool.expmech]`` table; ``root`` is the directory of ``path`` (the project root)."""

    path: Path
    display: str
    mechanisms: tuple[ConfigEntry, ...]
    targets: tuple[ConfigEntry, ...]
    rlimit: int | None
    timeout_ms: int | None
    budget: int | None = None

    @property
    def root(self) -> Path:
        """The project root: the directory holding the ``pyproject.toml``."""
        return self.path.parent


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` in ``start`` or its parents (as pytest finds its rootdir), or None."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _display_path(path: Path, cwd: Path) -> str:
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def read_config(path: Path, *, cwd: Path | None = None) -> Config:
    """Read and validate the ``[tool.expmech]`` table of ``path``; :class:`UsageError` (exit 2) on any problem."""
    display = _display_path(path, cwd or Path.cwd())
    if path.is_dir():
        raise UsageError(f"{display}: is a directory, not a pyproject.toml", parameter="target", value=display)
    try:
        check_file_size(path, max_bytes=MAX_CONFIG_BYTES, what=display)
    except InputRefused as error:
        if error.parameter == "max_bytes":
            raise UsageError(
                f"{display}: has {error.value:,} bytes, more than {MAX_CONFIG_BYTES:,}: too large for a pyproject.toml, not read",
                parameter="target",
                value=display,
            ) from None  # anything else (missing, unreadable) is said below, as it was
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{display}: does not exist", parameter="target", value=display) from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{display}: cannot be read as UTF-8 text ({type(error).__name__})", parameter="target", value=display) from None
    try:
        document = tomllib.loads(text, parse_float=Decimal)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{display}: is not valid TOML: {error}", parameter="target", value=display) from None
    except ValueError as error:  # an integer past Python's int-to-str limit (4300 digits)
        raise UsageError(f"{display}: cannot be read: {str(error).split(';')[0]}", parameter="target", value=display) from None
    except RecursionError:
        raise UsageError(f"{display}: cannot be read: arrays or tables nested too deeply", parameter="target", value=display) from None
    lines = _Lines(text)
    table = document.get("tool", {}).get(TABLE) if isinstance(document.get("tool"), dict) else None
    if table is None:
        raise UsageError(f"{display}: has no [tool.{TABLE}] table{_table_hint(document)}", parameter="target", value=display)
    if not isinstance(table, dict):
        raise UsageError(f"{display}:{lines.table}: tool.{TABLE}={shown(table)} must be a table", parameter=f"tool.{TABLE}", value=table)
    _validate(table, display, lines)
    mechanisms = tuple(ConfigEntry(f"mechanisms[{i}]", item, lines.item("mechanisms", i)) for i, item in enumerate(table.get("mechanisms", ())))
    targets = tuple(ConfigEntry(f"targets[{i}]", item, lines.item("targets", i)) for i, item in enumerate(table.get("targets", ())))
    return Config(path, display, mechanisms, targets, table.get("rlimit"), table.get("timeout-ms"), table.get("budget"))


def _table_hint(document: dict[str, Any]) -> str:
    """A "did you mean" for a misspelt table, and how to write the right one."""
    wanted = f"tool.{TABLE}"
    candidates = list(document) + [f"{outer}.{key}" for outer, inner in document.items() if isinstance(inner, dict) for key in inner]

    def close(name: str) -> bool:
        last = name.rsplit(".", 1)[-1]
        return difflib.SequenceMatcher(None, last, TABLE).ratio() >= 0.75 or difflib.SequenceMatcher(None, name, wanted).ratio() >= 0.8

    found = next((c for c in candidates if c != wanted and close(c)), None)
    mean = f" (found [{found}]: did you mean [{wanted}]?)" if found else ""
    return (
        f"{mean}; add one, e.g. [{wanted}] targets = [\"expmech.impl:CATALOGUE\"] or mechanisms = "
        "[{ quality = \"module:attr\", epsilon = \"1/4\", neighbours = \"replace-one\" }], or name a target: expmech verify module:attr"
    )


def _comparable(value: Any) -> Any:
    """``value`` with non-finite TOML decimals as floats: a Decimal NaN raises when the schema compares it with a bound."""
    if isinstance(value, Decimal) and not value.is_finite():
        return float(value)
    if isinstance(value, list):
        return [_comparable(v) for v in value]
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    return value


def _validate(table: dict[str, Any], display: str, lines: _Lines) -> None:
    validator = jsonschema.Draft202012Validator(schema())
    errors = sorted(validator.iter_errors(_comparable(table)), key=lambda e: (len(e.absolute_path), list(map(str, e.absolute_path))))
    if not errors:
        return
    error = errors[0]
    path = list(error.absolute_path)
    key = _key(path)
    line = lines.at(path)
    where = f"{display}:{line}"
    if error.validator == "additionalProperties":
        known = list(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known))[0]
        key = _key([*path, unknown])
        close = difflib.get_close_matches(unknown, known, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(known)}"
        line = lines.at([*path, unknown])
        raise UsageError(f"{display}:{line}: {key}={shown(error.instance[unknown])} is not a known key; {hint}", parameter=key, value=error.instance[unknown])
    if error.validator in ("required", "anyOf"):
        needed = error.message.split("'")[1] if error.validator == "required" else "mechanisms' or 'targets"
        raise UsageError(f"{where}: {key or 'tool.' + TABLE} needs the key '{needed}'", parameter=key or f"tool.{TABLE}", value=error.instance)
    description = error.schema.get("description") or _describe_schema(error.schema)
    problem = "must not be empty" if error.validator == "minItems" else f"must be {description}"
    if error.validator == "enum":
        close = difflib.get_close_matches(str(error.instance), [str(v) for v in error.validator_value], n=1, cutoff=0.6)
        if close:
            problem += f"; did you mean {json.dumps(close[0])}?"
    raise UsageError(f"{where}: {key}={shown(error.instance)} {problem}", parameter=key, value=error.instance)


def _describe_schema(fragment: dict[str, Any]) -> str:
    reference = fragment.get("$ref", "")
    if reference:
        target: Any = schema()
        for part in reference.lstrip("#/").split("/"):
            target = target[part]
        return str(target.get("description", reference))
    return json.dumps(fragment.get("type", "valid"))


def _key(path: list[Any]) -> str:
    text = f"tool.{TABLE}"
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.removeprefix(f"tool.{TABLE}.") if path else text


class _Lines:
    """1-based line numbers of the table's keys and array items, found by a small TOML scanner.

    It reads a ``[tool.expmech]`` table (with ``[[tool.expmech.mechanisms]]``
    arrays of tables), or the table written as dotted keys (``expmech.… =`` under
    ``[tool]``, ``tool.expmech.… =`` at the top).  Approximate by design (it reads
    what the writer wrote, not the parsed data), and always falls back to the
    table's header line.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        header = re.search(rf"^[ \t]*\[[ \t]*\"?tool\"?[ \t]*\.[ \t]*\"?{TABLE}\"?[ \t]*\][ \t]*(#.*)?$", text, flags=re.M)
        if header:
            self.start, self.prefix = header.start(), ""
            following = re.search(r"^[ \t]*\[(?!\[?[ \t]*tool[ \t]*\.[ \t]*" + TABLE + r"[ \t]*\.)", text[self.start + 1 :], flags=re.M)
            self.end = self.start + 1 + following.start() if following else len(text)
            self.table = self._line(self.start)
            return
        # dotted keys: under [tool] (``expmech.key = …``), or at the top before any header (``tool.expmech.key = …``)
        tool = re.search(r"^[ \t]*\[[ \t]*\"?tool\"?[ \t]*\][ \t]*(#.*)?$", text, flags=re.M)
        first = re.search(r"^[ \t]*\[", text, flags=re.M)
        if tool:
            self.start, self.prefix = tool.end(), rf"\"?{TABLE}\"?[ \t]*\.[ \t]*"
        else:
            self.start, self.prefix = 0, rf"\"?tool\"?[ \t]*\.[ \t]*\"?{TABLE}\"?[ \t]*\.[ \t]*"
        following = re.search(r"^[ \t]*\[", text[self.start :], flags=re.M) if tool else first
        self.end = self.start + following.start() if following else len(text)
        found = re.search(rf"^[ \t]*{self.prefix}", text[self.start : self.end], flags=re.M)
        self.table = self._line(self.start + found.start()) if found else 1

    def _line(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1

    def _assignment(self, name: str, value: str = "") -> re.Match[str] | None:
        """Where ``name = `` (or its dotted form), followed by ``value``, is written in the table."""
        pattern = rf"^[ \t]*{self.prefix}\"?{re.escape(name)}\"?[ \t]*=[ \t]*{value}"
        return re.search(pattern, self.text[self.start : self.end], flags=re.M)

    def key(self, name: str) -> int:
        """The line where ``name = …`` is written in the table (the header line if not found)."""
        found = self._assignment(name)
        return self._line(self.start + found.start()) if found else self.table

    def item(self, array: str, index: int) -> int:
        """The line where item ``index`` of ``array`` starts (inline array, or ``[[tool.expmech.array]]`` headers)."""
        headers = [m.start() for m in re.finditer(rf"^[ \t]*\[\[[ \t]*\"?tool\"?[ \t]*\.[ \t]*\"?{TABLE}\"?[ \t]*\.[ \t]*\"?{array}\"?[ \t]*\]\]", self.text, flags=re.M)]
        if headers:
            return self._line(headers[index]) if index < len(headers) else self.table
        found = self._assignment(array, r"\[")
        if not found:
            return self.key(array)
        starts = _item_offsets(self.text, self.start + found.end())
        return self._line(starts[index]) if index < len(starts) else self._line(self.start + found.start())

    def at(self, path: list[Any]) -> int:
        """The best line for a key path such as ``["mechanisms", 2, "epsilon"]``."""
        if not path:
            return self.table
        if len(path) >= 2 and isinstance(path[1], int):
            return self.item(str(path[0]), path[1])
        return self.key(str(path[0]))


def _item_offsets(text: str, offset: int) -> list[int]:
    """Offsets where each top-level item of the array opened just before ``offset`` begins."""
    starts: list[int] = []
    depth, position, expecting = 1, offset, True
    while position < len(text) and depth > 0:
        char = text[position]
        if char == "#":
            newline = text.find("\n", position)
            position = len(text) if newline < 0 else newline
            continue
        if char in " \t\r\n":
            position += 1
            continue
        if depth == 1 and expecting and char != "]":
            starts.append(position)
            expecting = False
        if char in "\"'":
            position = _string_end(text, position)
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "," and depth == 1:
            expecting = True
        position += 1
    return starts


def _string_end(text: str, position: int) -> int:
    quote = text[position]
    triple = text.startswith(quote * 3, position)
    if triple:
        end = text.find(quote * 3, position + 3)
        return len(text) if end < 0 else end + 3
    position += 1
    while position < len(text) and text[position] not in (quote, "\n"):
        position += 2 if quote == '"' and text[position] == "\\" else 1
    return position + 1
