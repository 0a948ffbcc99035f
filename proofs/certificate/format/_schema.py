"""JSON Schema validation of certificates, with the expression trees checked by a compiled predicate.

Nearly all the time ``jsonschema`` spends on a certificate goes to the
quality function's expression tree: ``#/$defs/expression`` is a recursive
``anyOf`` of five object shapes, tried one after another at every node.  This
module checks that definition with a direct, iterative predicate
(:func:`expression_checker`) accepting exactly the instances the definition
accepts, and validates everything else with ``jsonschema`` as before (0.5 s
become 0.03 s on a ``max_over`` of 200 indices).

Only the verdict is taken from the fast path.  When it finds anything wrong,
the whole instance is validated again by the plain ``jsonschema`` validator
of the published schema, so the errors (and the checker's message built from
them) are exactly those of the plain validation.

The fast path is used only while the published definitions of
``expression`` and ``rational`` are the ones that predicate implements (the
node names are read from the schema); should the schema change them,
validation falls back to the plain validator everywhere.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable
from typing import Any

import jsonschema

__all__ = ["expression_checker", "schema_errors"]

#: The keyword standing in for ``#/$defs/expression`` in the fast validator's copy of the schema.
_KEYWORD = "expmechExpression"


def _expression_definition(nodes: list[str]) -> dict[str, Any]:
    """The published ``#/$defs/expression`` (but its description) with ``nodes`` as its node names: what the
    predicate of :func:`expression_checker` implements."""
    reference = {"$ref": "#/$defs/expression"}
    return {
        "anyOf": [
            {"type": "object", "required": ["rational"], "properties": {"rational": {"$ref": "#/$defs/rational"}}, "additionalProperties": False},
            {"type": "object", "required": ["bool"], "properties": {"bool": {"type": "boolean"}}, "additionalProperties": False},
            {"type": "object", "required": ["symbol"], "properties": {"symbol": {"type": "string"}}, "additionalProperties": False},
            {
                "type": "object",
                "required": ["args", "node"],
                "properties": {"node": {"enum": nodes}, "args": {"type": "array", "items": reference}},
                "additionalProperties": False,
            },
            {
                "type": "object",
                "required": ["args", "node"],
                "properties": {
                    "node": {"const": "Piecewise"},
                    "args": {"type": "array", "items": {"type": "array", "prefixItems": [reference, reference], "minItems": 2, "maxItems": 2}},
                },
                "additionalProperties": False,
            },
        ],
    }


def expression_checker(schema: dict[str, Any]) -> Callable[[Any], bool] | None:
    """A predicate equivalent to ``schema``'s ``#/$defs/expression``, or None when that definition (or
    ``#/$defs/rational``) is not the one this module implements."""
    definitions = schema.get("$defs", {})
    expression, rational = definitions.get("expression"), definitions.get("rational")
    try:
        nodes = expression["anyOf"][3]["properties"]["node"]["enum"]
    except (KeyError, IndexError, TypeError):
        return None
    if not isinstance(nodes, list) or not all(isinstance(n, str) for n in nodes) or "Piecewise" in nodes:
        return None
    if {k: v for k, v in expression.items() if k != "description"} != _expression_definition(nodes):
        return None
    if not isinstance(rational, dict) or set(rational) != {"type", "pattern"} or rational["type"] != "string" or not isinstance(rational["pattern"], str):
        return None
    pattern = re.compile(rational["pattern"])
    names = frozenset(nodes)

    def is_expression(instance: Any) -> bool:
        """Whether ``instance`` is valid against ``#/$defs/expression`` (iteratively: no recursion limit)."""
        stack = [instance]
        while stack:
            node = stack.pop()
            # jsonschema's types: "object" is dict, "array" list, "string" str, "boolean" bool (isinstance each)
            if not isinstance(node, dict) or len(node) not in (1, 2):
                return False
            if len(node) == 1:
                ((key, value),) = node.items()
                if key == "rational":
                    if not isinstance(value, str) or pattern.search(value) is None:  # jsonschema's "pattern": re.search
                        return False
                elif key == "bool":
                    if not isinstance(value, bool):
                        return False
                elif key == "symbol":
                    if not isinstance(value, str):
                        return False
                else:
                    return False
                continue
            if "node" not in node or "args" not in node:
                return False
            kind, args = node["node"], node["args"]
            if not isinstance(kind, str) or not isinstance(args, list):
                return False
            if kind == "Piecewise":
                for pair in args:
                    if not isinstance(pair, list) or len(pair) != 2:
                        return False
                    stack.extend(pair)
            elif kind in names:
                stack.extend(args)
            else:
                return False
        return True

    return is_expression


#: The keyword standing in for ``"items": {"$ref": "#/$defs/rational"}`` in the fast validator's copy (the whole
#: list checked in one pass, not an item at a time through ``$ref``).
_RATIONALS = "expmechRationalItems"
_VALUE = {"$ref": "#/$defs/value"}
_RATIONAL_REF = {"$ref": "#/$defs/rational"}
#: Keywords that assert nothing (JSON Schema annotations): a definition made of them accepts every instance.
_ANNOTATIONS = frozenset({"description", "title", "$comment", "examples", "default"})


def _annotation_only(definition: Any) -> bool:
    """Whether ``definition`` is a schema object of annotations only (it accepts every instance)."""
    return isinstance(definition, dict) and set(definition) <= _ANNOTATIONS


def _rationals_checker(schema: dict[str, Any]) -> Callable[[list[Any]], bool] | None:
    """A predicate on a list: every item valid against ``#/$defs/rational`` (a string matching its pattern), or
    None when that definition is not ``{"type": "string", "pattern": …}``."""
    rational = schema.get("$defs", {}).get("rational")
    if not isinstance(rational, dict) or set(rational) != {"type", "pattern"} or rational["type"] != "string" or not isinstance(rational["pattern"], str):
        return None
    search = re.compile(rational["pattern"]).search

    def all_rationals(items: list[Any]) -> bool:
        return all(isinstance(item, str) and search(item) is not None for item in items)

    return all_rationals


#: Keywords whose value maps names to schemas, and keywords whose value is data, not a schema.
_SCHEMA_MAPS = frozenset({"properties", "patternProperties", "dependentSchemas", "$defs"})
_DATA = frozenset({"enum", "const", "default", "examples"})


def _bulk(schema: Any, value_accepts_all: bool) -> None:
    """Rewrite, in place, every ``"items": {"$ref": "#/$defs/rational"}`` (without ``prefixItems``) as the bulk
    keyword and, when ``#/$defs/value`` accepts every instance, every ``{"$ref": "#/$defs/value"}`` as ``true``."""

    def replaced(child: Any) -> Any:
        return True if value_accepts_all and child == _VALUE else child

    stack = [schema]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        if current.get("items") == _RATIONAL_REF and "prefixItems" not in current:
            del current["items"]
            current[_RATIONALS] = True
        for key, child in list(current.items()):
            if key in _DATA:
                continue
            if key in _SCHEMA_MAPS and isinstance(child, dict):
                for name, member in list(child.items()):
                    child[name] = replaced(member)
                    stack.append(child[name])
            elif isinstance(child, list):
                current[key] = [replaced(member) for member in child]
                stack.extend(current[key])
            else:
                current[key] = replaced(child)
                stack.append(current[key])


_FAST: dict[int, tuple[dict[str, Any], Any]] = {}


def _fast_validator(schema: dict[str, Any]) -> Any:
    """A validator of ``schema`` whose expression definition is the predicate (None if unavailable); cached."""
    cached = _FAST.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1]
    checker = expression_checker(schema)
    validator = None
    if checker is not None:
        fast_schema = copy.deepcopy(schema)
        fast_schema["$defs"]["expression"] = {_KEYWORD: True}

        def expression(validator: Any, value: Any, instance: Any, subschema: Any) -> Any:
            if not checker(instance):
                yield jsonschema.ValidationError("not a node of the quality-function language")

        rationals = _rationals_checker(schema)
        if rationals is not None:
            _bulk(fast_schema, _annotation_only(schema["$defs"].get("value")))

        def rational_items(validator: Any, value: Any, instance: Any, subschema: Any) -> Any:
            if isinstance(instance, list) and rationals is not None and not rationals(instance):
                yield jsonschema.ValidationError("not a list of rationals")

        kind = jsonschema.validators.extend(jsonschema.Draft202012Validator, {_KEYWORD: expression, _RATIONALS: rational_items})
        validator = kind(fast_schema)
    _FAST[id(schema)] = (schema, validator)
    return validator


def schema_errors(instance: Any, plain: Any, *, limit: int | None = None) -> list[jsonschema.ValidationError]:
    """The errors of ``plain`` (a ``jsonschema`` validator) on ``instance``: none when the fast validator of
    ``plain.schema`` accepts it, else exactly the plain validator's, computed by it (its first ``limit`` only,
    when given: the validator yields them one at a time)."""
    fast = _fast_validator(plain.schema)
    if fast is not None and fast.is_valid(instance):
        return []
    return list(itertools.islice(plain.iter_errors(instance), limit))
