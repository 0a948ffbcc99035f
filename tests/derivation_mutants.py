"""Mutants of a derivation (the ``derivation`` object of a certificate claim): each a wrong proof of the claim.

:func:`derivation_mutants` yields ``(label, mutant)`` for every node of the tree and every operator that applies:

* ``bound`` — the node's bound made smaller (halved; a bound of 0 made -1);
* ``rule`` — the node's rule replaced by another rule of the same claim kind, and by an unknown name;
* ``term`` — the subterm moved (its last index + 1, its position dropped, a child position added), ``text`` edited;
* ``case`` — the case started one dataset size later (``from`` + 1, ``at`` + 1);
* ``data`` — each rule datum changed (a rational made larger by its denominator, a total's range narrowed, else
  edited) or deleted;
* ``premise-dropped`` / ``premise-duplicated`` — each premise;
* ``root`` — the derivation's bound (and the root's) not the claim's: halved, or doubled (a true but weaker claim);
* ``start`` — one later; ``relation`` — the other neighbour relation; ``claim`` — another claim kind.

Labels read ``operator node-id`` (``bound 3``), so a failure names what was mutated.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator
from typing import Any

_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?")
KINDS = ("sensitivity", "monotonicity", "range-sensitivity", "normaliser", "likelihood-ratio", "truthfulness")


def nodes(root: Any, path: tuple[int, ...] = ()) -> Iterator[tuple[tuple[int, ...], dict[str, Any]]]:
    """Every node of the tree with its path (indices into successive ``premises``), root first."""
    if not isinstance(root, dict):
        return
    yield path, root
    for index, premise in enumerate(root.get("premises", [])):
        yield from nodes(premise, path + (index,))


def _at(derivation: dict[str, Any], path: tuple[int, ...]) -> dict[str, Any]:
    node = derivation["root"]
    for index in path:
        node = node["premises"][index]
    return node  # type: ignore[no-any-return]


def _smaller(bound: Any) -> Any:
    if bound == {"rational": "0"}:
        return {"rational": "-1"}
    return {"node": "Mul", "args": [{"rational": "1/2"}, bound]}


def _larger(bound: Any) -> Any:
    return {"node": "Mul", "args": [{"rational": "2"}, bound]}


def _changed_datum(value: Any) -> Any:
    if isinstance(value, dict):  # a range per total (rule joint): the first one narrowed from below
        from fractions import Fraction

        changed = copy.deepcopy(value)
        for key, (lo, hi) in changed.items():
            low, high = Fraction(lo), Fraction(hi)
            middle = (low + high) / 2 if high > low else low + 1
            changed[key] = [str(middle.numerator) if middle.denominator == 1 else f"{middle.numerator}/{middle.denominator}", hi]
            break
        return changed
    if isinstance(value, str) and _RATIONAL.fullmatch(value):
        numerator, _, denominator = value.partition("/")
        return f"{int(numerator) + (int(denominator) if denominator else 1)}" + (f"/{denominator}" if denominator else "")
    return f"{value}x" if isinstance(value, str) else "1"


def derivation_mutants(derivation: dict[str, Any], rules: dict[str, str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every mutant of ``derivation`` (see the module docstring); ``rules`` maps each kernel rule name to its claim kind."""

    def edited(path: tuple[int, ...] | None, edit: Any) -> dict[str, Any]:
        mutant = copy.deepcopy(derivation)
        edit(mutant if path is None else _at(mutant, path))
        return mutant

    kind = derivation.get("claim")
    same_kind = sorted(name for name, claim in rules.items() if claim == kind)
    for path, node in list(nodes(derivation["root"])):
        label = str(node.get("id"))
        yield f"bound {label}", edited(path, lambda n: n.__setitem__("bound", _smaller(n["bound"])))
        others = [name for name in same_kind if name != node.get("rule")]
        if others:
            other = others[(same_kind.index(node["rule"]) if node.get("rule") in same_kind else 0) % len(others)]
            yield f"rule {label}", edited(path, lambda n, o=other: n.__setitem__("rule", o))
        yield f"rule-unknown {label}", edited(path, lambda n: n.__setitem__("rule", "no-such-rule"))
        term = list(node.get("term", []))
        if term:
            yield f"term-next {label}", edited(path, lambda n: n.__setitem__("term", [*n["term"][:-1], n["term"][-1] + 1]))
            yield f"term-up {label}", edited(path, lambda n: n.__setitem__("term", n["term"][:-1]))
        yield f"term-down {label}", edited(path, lambda n: n.__setitem__("term", [*n["term"], 0]))
        yield f"text {label}", edited(path, lambda n: n.__setitem__("text", n["text"] + " + 1"))
        case = node.get("case", {})
        for key in ("from", "at"):
            if isinstance(case.get(key), int):
                yield f"case {label}", edited(path, lambda n, k=key: n["case"].__setitem__(k, n["case"][k] + 1))
        for key in sorted(node.get("data", {})):
            yield f"data-changed {label}.{key}", edited(path, lambda n, k=key: n["data"].__setitem__(k, _changed_datum(n["data"][k])))
            yield f"data-deleted {label}.{key}", edited(path, lambda n, k=key: n["data"].__delitem__(k))
        for index in range(len(node.get("premises", []))):
            yield f"premise-dropped {label}[{index}]", edited(path, lambda n, i=index: n["premises"].__delitem__(i))
            yield f"premise-duplicated {label}[{index}]", edited(path, lambda n, i=index: n["premises"].insert(i, copy.deepcopy(n["premises"][i])))

    def root_bound(change: Any) -> Any:
        def edit(d: dict[str, Any]) -> None:
            d["bound"] = change(d["bound"])
            d["root"]["bound"] = change(d["root"]["bound"])

        return edit

    yield "root-smaller", edited(None, root_bound(_smaller))
    yield "root-larger", edited(None, root_bound(_larger))
    yield "bound-not-root", edited(None, lambda d: d.__setitem__("bound", _larger(d["bound"])))
    yield "start", edited(None, lambda d: d.__setitem__("start", d["start"] + 1))
    yield "relation", edited(None, lambda d: d.__setitem__("relation", "add-remove" if d["relation"] == "replace-one" else "replace-one"))
    yield "claim", edited(None, lambda d: d.__setitem__("claim", next(k for k in KINDS if k != d["claim"])))


def operator(label: str) -> str:
    """The operator of a mutant's label (``bound 3`` -> ``bound``)."""
    return label.split(" ")[0]
