"""Mutants of a certificate: every leaf changed or deleted, every list item deleted, duplicated or reordered.

A mutant is ``(path, operator, statement-or-text)``.  Paths are tuples of keys
and indices into the in-toto statement; a path's *class* replaces each index
by ``*`` (``predicate.claims.*.evidence.queries.*.smt2``).  Duplicated JSON
keys can only be written as text, so that operator yields the file's text.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from expmech.proofs.certificate.make._build import seal

Path = tuple[str | int, ...]
STATUSES = ["PROVED", "BOUNDED", "TESTED", "UNKNOWN", "REFUTED"]
_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?")


def _schema_keys() -> frozenset[str]:
    """Every property name the certificate schema defines (the keys that are format, not data)."""
    from expmech.proofs.certificate import certificate_schema

    names: set[str] = set()
    stack: list[Any] = [certificate_schema()]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                names.update(node["properties"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return frozenset(names)


SCHEMA_KEYS = _schema_keys()


def path_class(path: Path) -> str:
    """The path with every list index, and every key that is data (a record's field, a model's variable), as ``*``."""
    return ".".join("*" if isinstance(part, int) or part not in SCHEMA_KEYS else part for part in path)


def leaves_and_lists(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (path, value) below ``value``, containers included, depth first."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves_and_lists(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves_and_lists(item, path + (index,))


def changed(value: Any) -> Any:
    """A different value of the same kind: +1, negation, the next status, a flipped hex digit, an edited text."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if value is None:
        return "1"
    if isinstance(value, str):
        if value in STATUSES:
            return STATUSES[(STATUSES.index(value) + 1) % len(STATUSES)]
        if _RATIONAL.fullmatch(value):
            numerator, _, denominator = value.partition("/")
            return f"{int(numerator) + (int(denominator) if denominator else 1)}" + (f"/{denominator}" if denominator else "")
        if re.fullmatch(r"[0-9a-f]{64}", value):
            return ("1" if value[0] != "1" else "2") + value[1:]
        return value + " (edited)" if not value.startswith("(set-logic") else value.replace("(check-sat)", "(assert false)\n(check-sat)")
    raise TypeError(value)


def _at(root: Any, path: Path) -> Any:
    for part in path:
        root = root[part]
    return root


def mutants(statement: dict[str, Any]) -> Iterator[tuple[Path, str, Callable[[], dict[str, Any]]]]:
    """Every mutant of ``statement`` as ``(path, operator, build)``; ``build()`` makes the mutated copy. No-op mutants are skipped."""
    for path, value in list(leaves_and_lists(statement)):
        if not path:
            continue
        parent_path, key = path[:-1], path[-1]
        siblings = _at(statement, parent_path)
        if not isinstance(value, dict | list):
            yield path, "change", _builder(statement, parent_path, lambda c, k=key: c.__setitem__(k, changed(c[k])))
        yield path, "delete", _builder(statement, parent_path, lambda c, k=key: c.__delitem__(k))
        if isinstance(key, int):
            yield path, "duplicate", _builder(statement, parent_path, lambda c, k=key: c.insert(k, copy.deepcopy(c[k])))
            if key + 1 < len(siblings) and siblings[key] != siblings[key + 1]:
                yield path, "reorder", _builder(statement, parent_path, lambda c, k=key: c.__setitem__(slice(k, k + 2), [c[k + 1], c[k]]))
        if isinstance(value, dict) and len(value) > 1:
            yield path, "reorder", _builder(statement, parent_path, lambda c, k=key: c.__setitem__(k, dict(reversed(list(c[k].items())))))


def _builder(statement: dict[str, Any], parent: Path, edit: Callable[[Any], Any]) -> Callable[[], dict[str, Any]]:
    def build() -> dict[str, Any]:
        mutant = copy.deepcopy(statement)
        edit(_at(mutant, parent))
        return mutant

    return build


def duplicated_key_text(data: dict[str, Any], path: Path) -> str:
    """The file's JSON text with the last key of the object at ``path`` written twice (the copy first, with a changed value)."""
    target = _at(data["certificate"], path)
    key = next(reversed(target))
    marker = "__expmech_duplicate__"
    original = target[key]
    target[marker] = changed(original) if not isinstance(original, dict | list) else original
    text = json.dumps(data, ensure_ascii=False)
    del target[marker]
    return text.replace(json.dumps(marker), json.dumps(key), 1)


def resealed_statement(statement: dict[str, Any]) -> dict[str, Any]:
    """The file's JSON for a mutated statement, with its digest recomputed."""
    return seal(statement)
