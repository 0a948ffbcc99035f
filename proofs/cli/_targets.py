"""Targets of ``expmech verify`` and ``certify``: resolved, validated and located before any work.

A target is ``module:attr`` (a catalogue entry, a list or tuple of them, or a
mechanism dict with ``quality``, ``epsilon``, ``neighbours`` and optionally
``claimed`` and ``name``) or a ``pyproject.toml`` whose ``[tool.expmech]``
table lists ``mechanisms`` and/or ``targets``.  A ``quality`` that is a plain
Python function ``fn(data, r)`` comes with ``schema`` and ``outputs`` and is
traced into the language here (:func:`expmech.spec.trace`; a construct it
cannot trace is a usage error naming its file and line).  ``expected`` states
the verdict a mechanism is recorded with (a published claim known to be wrong:
``"REFUTED"``), so a catalogue of them verifies while its verdicts stay
what they are.  With no target, the nearest
``pyproject.toml`` (the current directory or a parent) must have that table:
nothing is verified by default.  The project root — the directory of that
``pyproject.toml``, else the current directory — goes first on ``sys.path``
while the targets are imported (as pytest does with its rootdir) so
``module:attr`` of the user's own project imports.  Each target knows where it is declared (the entry's line in
``pyproject.toml``, or the line of its definition in the module), for SARIF.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from expmech.spec import ExpMechError, LogLikelihood, Neighbours, OutputSpace, QualityFunction, RecordSchema, TraceError, trace
from expmech.spec.internal import PYTHON_COMPARISON_HINT, constant_conditions_refused

from .._outcome import Status
from ._config import Config, find_pyproject, read_config, schema
from ._values import UsageError, parse_claim, parse_epsilon, parse_neighbours, shown

__all__ = ["Location", "Target", "TargetSet", "load_targets", "slug"]


@dataclass(frozen=True)
class Location:
    """Where a mechanism is declared: a file (relative to the project root when under it) and a 1-based line."""

    uri: str
    line: int


@dataclass(frozen=True)
class Target:
    """One validated mechanism to verify; ``source`` is a stable, relative description of where it came from."""

    name: str
    quality: QualityFunction | LogLikelihood
    epsilon: Fraction
    neighbours: Neighbours
    claimed: sympy.Expr | None
    source: str
    group: str
    location: Location | None = None
    base_measure: Any = None
    auction: Any = None
    expected: Status | None = None


@dataclass(frozen=True)
class TargetSet:
    """The targets of one run and the prover options the configuration sets (command-line flags win)."""

    targets: list[Target]
    root: Path
    options: dict[str, int]


def slug(name: str) -> str:
    """The file stem of a mechanism's certificate and reports."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "mechanism"


def _relative(path: Path, bases: tuple[Path, ...]) -> str:
    """``path`` relative to the first base holding it (the current directory, then the project root), else a file URI."""
    for base in bases:
        try:
            return path.resolve().relative_to(base.resolve()).as_posix()
        except ValueError:
            continue
    return path.resolve().as_uri()


@contextmanager
def root_on_path(root: Path) -> Iterator[None]:
    """The project root first on ``sys.path`` while targets are imported (as pytest does with its rootdir).

    Removed again afterwards: the modules stay imported, and a caller's own
    ``sys.path`` is left as it was (only QualityFunction expressions are used
    later, so no user code imports anything after loading).
    """
    entry = str(root.resolve())
    added = entry not in sys.path
    if added:
        sys.path.insert(0, entry)
    try:
        yield
    finally:
        if added and entry in sys.path:
            sys.path.remove(entry)


def _import_failure(module_name: str, error: BaseException) -> str:
    """What went wrong when importing ``module_name`` raised ``error``, in the words a user can act on: the module
    was not found; it was found but expmech's quality-function language refused a quality built in it; or it ran and
    raised."""
    if isinstance(error, ModuleNotFoundError) and error.name is not None and (module_name + ".").startswith(error.name + "."):
        return f"cannot import {module_name!r}"
    if isinstance(error, ExpMechError):
        modules, tb = set(), error.__traceback__
        while tb is not None:
            modules.add(tb.tb_frame.f_globals.get("__name__", ""))
            tb = tb.tb_next
        if "expmech.spec._watch" in modules:
            return f"{module_name!r} imports, but an expression it builds holds a Python bool where a condition or a number belongs"
        if modules & _LANGUAGE_MODULES:
            return f"{module_name!r} imports, but a quality it builds is outside the quality-function language"
        return f"{module_name!r} imports, but expmech refused a value it builds"
    return f"{module_name!r} was found, but importing it raised"


_LANGUAGE_MODULES = {"expmech.spec._quality", "expmech.spec._language", "expmech.spec._serial", "expmech.spec._booleans"}  # the language's checks
# What Python and sympy raise on a bool where an expression belongs, when expmech's own objects are not involved:
# `(count(x <= r) + 1) + (x == r)`, `sympy.Max(q, x == r)`, `sympy.Abs(x == r)`, `r ** (x != r)`.
_BOOLEAN_ERRORS = re.compile(r"'bool'|argument '(True|False)' is not comparable|BooleanTrue|BooleanFalse|BooleanAtom|non-real (true|false)")


def _python_boolean(error: BaseException) -> bool:
    """Whether ``error`` (raised while a user's module was imported) is Python or sympy refusing a bool as a number."""
    return isinstance(error, TypeError | ValueError) and not isinstance(error, ExpMechError) and _BOOLEAN_ERRORS.search(str(error)) is not None


def _import(reference: str, where: str, name: str) -> tuple[Any, Any]:
    """The object ``module:attr`` names, and its module; any failure is a usage error naming the reference."""
    module_name, _, attr = reference.partition(":")
    if not re.fullmatch(schema()["$defs"]["reference"]["pattern"], reference):
        raise UsageError(f"{where}: {name}={shown(reference)} must be \"module:attr\" or a pyproject.toml", parameter=name, value=reference)
    try:
        with constant_conditions_refused():  # sympy evaluates Piecewise((q, x == r), …) away as it is built
            module: Any = importlib.import_module(module_name)
    except (Exception, SystemExit) as error:  # noqa: BLE001 - the user's module failed to import: a usage error
        detail = str(error).splitlines()[0] if str(error) else ""
        if _python_boolean(error):
            detail += f" ({PYTHON_COMPARISON_HINT})"
        raise UsageError(
            f"{where}: {name}={shown(reference)}: {_import_failure(module_name, error)}: {type(error).__name__}: {detail}",
            parameter=name,
            value=reference,
        ) from None
    value = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise UsageError(f"{where}: {name}={shown(reference)}: {module_name!r} has no attribute {attr!r}", parameter=name, value=reference) from None
        except Exception as error:  # noqa: BLE001 - a property of the user's object raised
            raise UsageError(f"{where}: {name}={shown(reference)}: {type(error).__name__}: {error}", parameter=name, value=reference) from None
    return value, module


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The module's statements, with those of an ``if TYPE_CHECKING:`` block in its place (a lazy package's imports)."""
    found: list[ast.stmt] = []
    for node in tree.body:
        found.extend(node.body if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) else [node])
    return found


def _definition(module: Any, attr: str, bases: tuple[Path, ...], depth: int = 0) -> tuple[Location | None, list[int]]:
    """Where ``attr`` is assigned in ``module`` (via inspect and ast, following ``from … import``), and its items' lines."""
    try:
        path = inspect.getsourcefile(module)
        source = Path(path).read_text(encoding="utf-8") if path else None
        tree = ast.parse(source) if source is not None else None
    except (TypeError, OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None, []
    if path is None or tree is None:
        return None, []
    uri = _relative(Path(path), bases)
    head = attr.split(".")[0]
    for node in _top_level(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == head for t in targets):
            value = getattr(node, "value", None)
            items = [item.lineno for item in value.elts] if isinstance(value, ast.List | ast.Tuple) and head == attr else []
            return Location(uri, node.lineno), items
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == head:
            return Location(uri, node.lineno), []
        if isinstance(node, ast.ImportFrom) and depth < 5 and any((alias.asname or alias.name) == head for alias in node.names):
            original = next(alias.name for alias in node.names if (alias.asname or alias.name) == head)
            try:
                package = module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
                source_module = importlib.import_module(importlib.util.resolve_name("." * node.level + (node.module or ""), package))
            except (ImportError, ValueError):
                break
            return _definition(source_module, original + attr[len(head):], bases, depth + 1)
    return Location(uri, 1), []


_KNOWN = ("name", "quality", "epsilon", "neighbours", "claimed", "base_measure", "auction", "schema", "outputs", "expected")


def _expected(value: Any, *, name: str, where: str) -> Status | None:
    """The recorded verdict ``expected`` (a Status or its name), or None."""
    if value is None or isinstance(value, Status):
        return value
    if isinstance(value, str) and value.strip().upper() in Status.__members__:
        return Status[value.strip().upper()]
    known = ", ".join(Status.__members__)
    raise UsageError(f"{where}: {name}={shown(value)} must be one of {known}", parameter=name, value=value)


def _traced(fields: dict[str, Any], quality: Any, where: str, prefix: str) -> Any:
    """The quality of a mechanism whose ``quality`` is a plain Python function: traced with its ``schema`` and ``outputs``."""
    parts = {}
    for key, kind in (("schema", RecordSchema), ("outputs", OutputSpace)):
        value = fields.get(key)
        if isinstance(value, str):
            value, _ = _import(value, where, f"{prefix}{key}")
        if not isinstance(value, kind):
            raise UsageError(
                f"{where}: {prefix}{key}={shown(fields.get(key))} must be an expmech.spec.{kind.__name__} to trace the plain function {prefix}quality",
                parameter=f"{prefix}{key}",
                value=fields.get(key),
            )
        parts[key] = value
    try:
        return trace(quality, schema=parts["schema"], outputs=parts["outputs"], name=fields.get("name") if isinstance(fields.get("name"), str) else None)
    except TraceError as error:
        raise UsageError(f"{where}: {prefix}quality: {error}", parameter=f"{prefix}quality", value=fields.get("quality")) from None


def _mechanism(fields: dict[str, Any], *, source: str, group: str, where: str, prefix: str, location: Location | None) -> Target:
    """A validated target from a mechanism's fields (the quality already imported, or as ``module:attr``)."""
    for key in fields:
        if key not in _KNOWN:
            close = difflib.get_close_matches(str(key), _KNOWN, n=1, cutoff=0.6)
            hint = f"did you mean {close[0]!r}?" if close else f"known keys: {', '.join(_KNOWN)}"
            raise UsageError(f"{where}: {prefix}{key}={shown(fields[key])} is not a known key; {hint}", parameter=f"{prefix}{key}", value=fields[key])
    for key in ("quality", "epsilon", "neighbours"):
        if key not in fields:
            raise UsageError(f"{where}: {prefix.rstrip('.') or 'the mechanism'} needs the key {key!r}", parameter=f"{prefix}{key}", value=None)
    quality = fields["quality"]
    if isinstance(quality, str):
        quality, _ = _import(quality, where, f"{prefix}quality")
    traced = fields.get("schema") is not None or fields.get("outputs") is not None
    if traced and isinstance(quality, QualityFunction | LogLikelihood):
        raise UsageError(f"{where}: {prefix}schema and {prefix}outputs are for a plain Python function; {prefix}quality is already a {type(quality).__name__}",
                         parameter=f"{prefix}schema", value=fields.get("schema"))
    if traced and callable(quality):
        quality = _traced(fields, quality, where, prefix)
    if not isinstance(quality, QualityFunction | LogLikelihood):
        raise UsageError(
            f"{where}: {prefix}quality={shown(fields['quality'])} is {type(quality).__name__}, not an expmech.spec.QualityFunction or LogLikelihood "
            "(a plain Python function fn(data, r) is traced when the mechanism also gives schema and outputs; "
            "black-box callables can only be falsified: see expmech.proofs.falsify)",
            parameter=f"{prefix}quality",
            value=fields["quality"],
        )
    fallback = str(fields["quality"]).rpartition(":")[2] if isinstance(fields["quality"], str) else source.rpartition(":")[2]
    name = fields["name"] if fields.get("name") is not None else (getattr(quality, "name", None) or fallback)
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{where}: {prefix}name={shown(name)} must be a non-empty string", parameter=f"{prefix}name", value=name)
    return Target(
        name=name,
        quality=quality,
        epsilon=parse_epsilon(fields["epsilon"], name=f"{prefix}epsilon", where=where),
        neighbours=parse_neighbours(fields["neighbours"], name=f"{prefix}neighbours", where=where),
        claimed=parse_claim(fields.get("claimed"), name=f"{prefix}claimed", where=where, likelihood=isinstance(quality, LogLikelihood)),
        source=source,
        group=group,
        location=location,
        base_measure=fields.get("base_measure"),
        auction=fields.get("auction"),
        expected=_expected(fields.get("expected"), name=f"{prefix}expected", where=where),
    )


_ABSENT = object()


def _user_code(where: str, reference: str, action: str, call: Callable[[], Any]) -> Any:
    """``call()`` on the user's object; anything it raises (a property, ``__getattr__``, ``__iter__``) is a usage error."""
    try:
        return call()
    except Exception as error:  # noqa: BLE001 - the user's object raised: exit 2 naming it, never an internal error
        detail = str(error).splitlines()[0] if str(error) else ""
        raise UsageError(f"{where}: {action} raised {type(error).__name__}: {detail}".rstrip(": "), parameter="target", value=reference) from None


def _from_value(value: Any, reference: str, location: Location | None, items: list[int]) -> list[Target]:
    """Targets from the object ``reference`` names: an entry, a dict, or a list/tuple of them."""
    group = reference.replace(":", ".")

    def one(item: Any, source: str, where_location: Location | None) -> Target:
        where = source
        if isinstance(item, dict):
            fields = _user_code(where, reference, "reading the mechanism dict", lambda: dict(item.items()))
            return _mechanism(fields, source=source, group=group, where=where, prefix="", location=where_location)

        def attribute(name: str) -> Any:
            return _user_code(where, reference, f"reading .{name}", lambda: getattr(item, name, _ABSENT))

        entry = ("name", "quality", "epsilon", "neighbours", "claimed_sensitivity")
        if all(attribute(attr) is not _ABSENT for attr in entry):
            fields = {
                "name": attribute("name"), "quality": attribute("quality"), "epsilon": attribute("epsilon"),
                "neighbours": attribute("neighbours"), "claimed": attribute("claimed_sensitivity"),
                "base_measure": None if attribute("base_measure") is _ABSENT else attribute("base_measure"),
                "auction": None if attribute("auction") is _ABSENT else attribute("auction"),
            }
            for optional in ("schema", "outputs", "expected"):
                value = attribute(optional)
                if value is not _ABSENT and value is not None:
                    fields[optional] = value
            return _mechanism(fields, source=source, group=group, where=where, prefix="", location=where_location)
        if isinstance(item, QualityFunction | LogLikelihood):
            raise UsageError(
                f"{where}: is a quality function alone; a mechanism also needs epsilon and neighbours "
                "(a dict, a catalogue entry, or a [tool.expmech] mechanisms entry)",
                parameter="target",
                value=reference,
            )
        raise UsageError(f"{where}: {shown(item)} is not a mechanism (a catalogue entry or a mechanism dict)", parameter="target", value=reference)

    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        value = _user_code(reference, reference, "reading its items", lambda: list(value))
        if not value:
            raise UsageError(f"{reference}: is empty; there is nothing to verify", parameter="target", value=reference)
        found = []
        for index, item in enumerate(value):
            line = items[index] if index < len(items) and location is not None else None
            item_location = Location(location.uri, line) if location is not None and line is not None else location
            found.append(one(item, f"{reference}[{index}]", item_location))
        return found
    return [one(value, reference, location)]


def _from_config(config: Config, bases: tuple[Path, ...]) -> list[Target]:
    targets = []
    label = _relative(config.path, bases)
    for entry in config.mechanisms:
        targets.append(
            _mechanism(
                entry.value, source=f"{label}:{entry.key}", group=label, where=f"{config.display}:{entry.line}",
                prefix=f"{entry.key}.", location=Location(label, entry.line),
            )
        )
    for entry in config.targets:
        where = f"{config.display}:{entry.line}"
        targets.extend(_reference(entry.value, bases, where=where, name=entry.key, fallback=Location(label, entry.line)))
    return targets


def _reference(reference: str, bases: tuple[Path, ...], *, where: str, name: str, fallback: Location | None = None) -> list[Target]:
    value, module = _import(reference, where, name)
    location, items = _definition(module, reference.partition(":")[2], bases)
    return _from_value(value, reference, location or fallback, items)


def _where(target: Target) -> str:
    location = target.location
    return f"{target.source} ({location.uri}:{location.line})" if location is not None else target.source


def _check_unique(targets: list[Target]) -> None:
    """Two mechanisms whose names give one certificate file would overwrite each other: refuse them."""
    seen: dict[str, Target] = {}
    for target in targets:
        stem = slug(target.name)
        key = stem.casefold()  # median.cert.json and Median.cert.json are one file on macOS and Windows
        if key in seen:
            other = seen[key]
            clash = "is also the name of" if other.name == target.name else f"gives the same certificate file {stem}.cert.json as {shown(other.name)},"
            raise UsageError(
                f"{_where(target)}: name={shown(target.name)} {clash} {_where(other)}; give each mechanism its own name",
                parameter="name",
                value=target.name,
            )
        seen[key] = target


def load_targets(references: list[str], *, cwd: Path | None = None) -> TargetSet:
    """Resolve and validate every target before any work; :class:`UsageError` (exit 2) names the first bad one."""
    here = cwd or Path.cwd()
    targets: list[Target] = []
    options: dict[str, int] = {}
    if not references:
        found = find_pyproject(here)
        if found is None:
            raise UsageError(
                f"no pyproject.toml in {here} or its parents; name a target (expmech verify module:attr, "
                "e.g. expmech.impl:CATALOGUE) or add a [tool.expmech] table",
                parameter="target",
                value=None,
            )
        references = [str(found)]
    root = (find_pyproject(here) or here / "pyproject.toml").parent
    for reference in references:
        if not reference.strip():  # Path("") is the current directory: never a silent default
            raise UsageError(f"target={reference!r} is empty: name a module:attr or a pyproject.toml", parameter="target", value=reference)
        path = Path(reference)
        if reference.endswith(".toml") or path.is_file() or path.is_dir() or "/" in reference or "\\" in reference:
            config = read_config(path, cwd=here)
            root = config.root
            with root_on_path(root):
                targets.extend(_from_config(config, (here, root)))
            for key, value in (("rlimit", config.rlimit), ("timeout_ms", config.timeout_ms), ("budget", config.budget)):
                if value is not None:
                    options[key] = value
        else:
            with root_on_path(root):
                targets.extend(_reference(reference, (here, root), where=reference, name="target"))
    _check_unique(targets)
    return TargetSet(targets, root, options)
