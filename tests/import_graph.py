"""The static import graph of expmech's three layers, read with ``ast``, and the rules it must keep.

Nothing is imported: every ``.py`` file under each layer's folder is parsed
and every ``import`` / ``from … import`` statement in it is read, at module
level or inside a function, class, ``try`` or ``if`` alike; relative imports are
resolved against the importing module's package. ``from package import Name``
where ``package/__init__.py`` binds ``Name`` (eagerly or in its
``if TYPE_CHECKING:`` block, which mirrors the lazy PEP 562 map) is read as an
import of the module that defines ``Name`` as well, so a cycle that runs
through a lazy re-export is seen.

The rules (:func:`violations`):

- **layers**: ``expmech.spec`` imports nothing of ``expmech.impl`` or
  ``expmech.proofs``; ``expmech.impl`` nothing of ``expmech.proofs``. Every
  import counts here, ``TYPE_CHECKING`` ones included.
- **private names**: no module of one layer imports a private module (a dotted
  part starting with ``_``, dunders aside) or a private name of another layer.
  Every import counts here too. Inside one layer, private modules are shared
  freely.
- **rooms**: inside ``expmech.impl`` the rooms are layered too (:data:`ROOM_ORDER`):
  a room imports only the rooms before it, so ``exact`` imports no other room
  and the catalogue may import every one. ``expmech.impl`` itself and
  ``expmech.impl.internal`` sit above the rooms. Every import counts.
- **verifier**: ``expmech.proofs.checker`` (the verifier a third party trusts)
  imports only itself, the standard library, ``rfc8785``, z3 (for a side
  condition a certificate names ``solver``), ``expmech.proofs._interrupts`` and,
  with trusted keys only, ``securesystemslib`` and ``cryptography`` (its own
  ``signature``) — nothing of ``expmech.spec``, sympy, the prover, the
  certificate room or ``expmech.impl``. Every import counts, function-local and
  ``TYPE_CHECKING`` ones included.
- **cycles**: the graph of module-to-module imports has no cycle. Imports
  under ``if TYPE_CHECKING:`` are left out of this graph (they never run), all
  others count, function-local ones included, so a cycle cannot hide behind an
  import inside a function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KERNEL", "Import", "LAYER_ORDER", "ROOM_ORDER", "imports_of_tree", "kernel_violations", "module_files", "violations", "cycles"]

#: A layer may import the layers before it, never one after it.
LAYER_ORDER = ("expmech.spec", "expmech.impl", "expmech.proofs")

#: Inside a layer, a room may import the rooms before it, never one after it.
ROOM_ORDER = {
    "expmech.impl": ("exact", "quality", "sampling", "exponential", "selection", "applications", "catalogue"),
}


@dataclass(frozen=True)
class Import:
    """One import read from a source file: who imports which module (and name), where, and whether it only runs for type checkers.

    ``written`` is False for the module a re-exported name comes from (seen
    through a package's ``__init__``): such an import counts in the cycle graph
    only, since the rules on layers and private names judge what is written.
    """

    importer: str
    target: str
    name: str | None
    line: int
    type_checking: bool
    path: str
    written: bool = True


def module_files(roots: Mapping[str, Path]) -> dict[str, Path]:
    """{dotted module name: file} of every ``.py`` file under each root folder (``{"expmech.spec": Path("spec"), …}``)."""
    found: dict[str, Path] = {}
    for package, root in roots.items():
        for path in sorted(root.rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.AST, type_checking: bool = False) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement under ``tree``, with whether it sits under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(tree):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, type_checking
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for statement in child.body:
                yield from _statements(ast.Module(body=[statement], type_ignores=[]), True)
            for statement in child.orelse:
                yield from _statements(ast.Module(body=[statement], type_ignores=[]), type_checking)
        else:
            yield from _statements(child, type_checking)


def _resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of_tree(files: Mapping[str, Path]) -> list[Import]:
    """Every import of every module in ``files`` whose target is one of ``files``' modules (other libraries are left out)."""
    raw: list[tuple[str, str, str | None, int, bool, Path]] = []
    for importer, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for statement, type_checking in _statements(tree):
            if isinstance(statement, ast.Import):
                for alias in statement.names:
                    raw.append((importer, alias.name, None, statement.lineno, type_checking, path))
            else:
                base = _resolve(importer, is_package, statement.level, statement.module)
                for alias in statement.names:
                    raw.append((importer, base, alias.name, statement.lineno, type_checking, path))
    # what each package's __init__ binds, to see through a (lazy) re-export
    binds: dict[tuple[str, str], str] = {}
    for importer, target, name, _line, _tc, path in raw:
        if path.name == "__init__.py" and name is not None and target in files:
            binds.setdefault((importer, name), target)
    found: list[Import] = []
    for importer, target, name, line, type_checking, path in raw:
        targets: list[tuple[str, str | None]] = []
        if name is not None and f"{target}.{name}" in files:
            targets.append((f"{target}.{name}", None))  # from package import submodule
        elif target in files:
            targets.append((target, name))
            seen = {target}
            where = binds.get((target, name)) if name is not None else None
            while where is not None and where not in seen and where != importer:
                seen.add(where)
                targets.append((where, name))
                where = binds.get((where, name))
        for index, (module, imported) in enumerate(targets):
            if module != importer:
                found.append(Import(importer, module, imported, line, type_checking, str(path), written=index == 0))
    return found


def _layer(module: str) -> str | None:
    return next((layer for layer in LAYER_ORDER if module == layer or module.startswith(layer + ".")), None)


def _room(module: str) -> tuple[str, int] | None:
    """(layer, rank) of the room ``module`` lives in, for a layer whose rooms are ordered; None outside the rooms."""
    layer = _layer(module)
    order = ROOM_ORDER.get(layer or "")
    if layer is None or order is None:
        return None
    parts = module[len(layer) + 1 :].split(".")
    return (layer, order.index(parts[0])) if parts[0] in order else None


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def cycles(imports: list[Import]) -> list[list[str]]:
    """The import cycles among the runtime imports (``TYPE_CHECKING`` ones left out): one list of modules per strongly connected component with more than one module."""
    graph: dict[str, set[str]] = {}
    for found in imports:
        if not found.type_checking:
            graph.setdefault(found.importer, set()).add(found.target)
            graph.setdefault(found.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return sorted(components)


def violations(roots: Mapping[str, Path]) -> list[str]:
    """Every breach of the three rules (layers, private names, cycles) in the tree under ``roots``, one readable line each; empty when the tree keeps them."""
    imports = imports_of_tree(module_files(roots))
    found: list[str] = []
    for imp in imports:
        rooms = _room(imp.importer), _room(imp.target)
        if imp.written and rooms[0] is not None and rooms[1] is not None and rooms[0][0] == rooms[1][0] and rooms[1][1] > rooms[0][1]:
            order = ROOM_ORDER[rooms[0][0]]
            found.append(
                f"room: {imp.path}:{imp.line}: {imp.importer} imports {imp.target} "
                f"(room {order[rooms[0][1]]!r} must not import the later room {order[rooms[1][1]]!r})"
            )
        source, target = _layer(imp.importer), _layer(imp.target)
        if not imp.written or source is None or target is None or source == target:
            continue
        where = f"{imp.path}:{imp.line}: {imp.importer} imports {imp.target}" + (f".{imp.name}" if imp.name else "")
        if LAYER_ORDER.index(target) > LAYER_ORDER.index(source):
            found.append(f"layer: {where} ({source} must not import {target})")
        parts = imp.target.split(".") + ([imp.name] if imp.name else [])
        if any(_private(part) for part in parts):
            found.append(f"private: {where} (a private name of {target})")
    found += kernel_violations(roots)
    for component in cycles(imports):
        found.append("cycle: " + " <-> ".join(component))
    return found


#: The package that may import only :data:`KERNEL_ALLOWED` (and itself): the verifier.
KERNEL = "expmech.proofs.checker"
KERNEL_ALLOWED = ("rfc8785", "z3", "expmech.proofs._interrupts", "securesystemslib", "cryptography")


def kernel_violations(roots: Mapping[str, Path]) -> list[str]:
    """Every import in the verifier's modules of anything but itself, the standard library and :data:`KERNEL_ALLOWED`."""
    import sys

    found: list[str] = []
    for importer, path in module_files(roots).items():
        if importer != KERNEL and not importer.startswith(KERNEL + "."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for statement, _type_checking in _statements(tree):
            if isinstance(statement, ast.Import):
                targets = [alias.name for alias in statement.names]
            else:
                base = _resolve(importer, path.name == "__init__.py", statement.level, statement.module)
                targets = [base] if statement.module or statement.level == 0 else [f"{base}.{a.name}" for a in statement.names]
            for target in targets:
                top = target.split(".")[0]
                inside = target == KERNEL or target.startswith(KERNEL + ".")
                allowed = any(target == a or target.startswith(a + ".") for a in KERNEL_ALLOWED)
                stdlib = top in sys.stdlib_module_names and top != "expmech"
                if not (inside or allowed or stdlib):
                    found.append(f"kernel: {path}:{statement.lineno}: {importer} imports {target} (the verifier imports only the standard library and {', '.join(KERNEL_ALLOWED)})")
    return found
