"""Quality functions as plain JSON data, and back — without evaluating any code.

A certificate must carry its quality function in a form a third party can
rebuild safely: ``eval`` of ``srepr`` text would run arbitrary code, so the
expression is written as a tree of whitelisted node names and rebuilt by
:func:`quality_from_json`, which refuses anything else.  Rationals are
``"p/q"`` strings.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import sympy

from ._domains import Booleans, Categories, Domain, Grid, IntRange, RationalRange
from ._errors import InvalidArgument, describe
from ._language import Count, Mean, OutputSpace, RecordSchema, Size, Total
from ._quality import QualityFunction

__all__ = ["function_from_json", "function_to_json", "quality_from_json", "quality_to_json", "rational_from_text", "rational_text"]

_NODES: dict[str, Any] = {
    "Add": sympy.Add,
    "Mul": sympy.Mul,
    "Pow": sympy.Pow,
    "Abs": sympy.Abs,
    "Max": sympy.Max,
    "Min": sympy.Min,
    "Eq": sympy.Eq,
    "Ne": sympy.Ne,
    "Lt": sympy.StrictLessThan,
    "Le": sympy.LessThan,
    "Gt": sympy.StrictGreaterThan,
    "Ge": sympy.GreaterThan,
    "And": sympy.And,
    "Or": sympy.Or,
    "Not": sympy.Not,
    "Count": Count,
    "Total": Total,
    "Mean": Mean,
    "Size": Size,
}
_NAMES = {cls: name for name, cls in _NODES.items()}


def rational_text(value: Fraction | int | sympy.Rational) -> str:
    """``"p/q"`` (or ``"p"`` for an integer)."""
    f = Fraction(int(value.p), int(value.q)) if isinstance(value, sympy.Rational) else Fraction(value)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def rational_from_text(text: Any, *, name: str = "value") -> Fraction:
    """The Fraction written as ``"p/q"`` or ``"p"``; anything else is refused by name."""
    if not isinstance(text, str):
        raise InvalidArgument(f"{name}={describe(text)} must be a 'p/q' string", parameter=name, value=text)
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise InvalidArgument(f"{name}={describe(text)} is not a rational 'p/q'", parameter=name, value=text) from None
    if "." in text or "e" in text.lower():
        raise InvalidArgument(f"{name}={describe(text)} must be written 'p/q', not as a decimal", parameter=name, value=text)
    return value


def _expr_to_tree(expr: sympy.Basic) -> Any:
    if isinstance(expr, sympy.Integer | sympy.Rational):
        return {"rational": rational_text(expr)}
    if expr is sympy.true or expr is sympy.false:
        return {"bool": bool(expr)}
    if isinstance(expr, sympy.Symbol):
        return {"symbol": expr.name}
    if isinstance(expr, sympy.Piecewise):
        return {"node": "Piecewise", "args": [[_expr_to_tree(p.expr), _expr_to_tree(p.cond)] for p in expr.args]}
    for cls, name in _NAMES.items():
        if type(expr) is cls or (isinstance(expr, cls) and cls in (Count, Total, Mean, Size)):
            return {"node": name, "args": [_expr_to_tree(a) for a in expr.args]}
    raise InvalidArgument(f"cannot serialise {type(expr).__name__}", parameter="expr", value=expr)


def _expr_from_tree(tree: Any, symbols: dict[str, sympy.Symbol]) -> sympy.Basic:
    if not isinstance(tree, dict):
        raise InvalidArgument(f"expression node {describe(tree)} must be an object", parameter="expr", value=tree)
    if "rational" in tree:
        value = rational_from_text(tree["rational"], name="rational")
        return sympy.Rational(value.numerator, value.denominator)
    if "bool" in tree:
        return sympy.true if tree["bool"] is True else sympy.false
    if "symbol" in tree:
        name = tree["symbol"]
        if name not in symbols:
            raise InvalidArgument(f"unknown symbol {describe(name)} in the expression", parameter="expr", value=name)
        return symbols[name]
    node = tree.get("node")
    args = tree.get("args", [])
    if not isinstance(args, list):
        raise InvalidArgument(f"node {describe(node)} has args that are not a list", parameter="expr", value=tree)
    if node == "Piecewise":
        pairs = [(_expr_from_tree(e, symbols), _expr_from_tree(c, symbols)) for e, c in args]
        return sympy.Piecewise(*pairs)
    if node not in _NODES:
        raise InvalidArgument(f"node {describe(node)} is not in the quality-function language", parameter="expr", value=node)
    children = [_expr_from_tree(a, symbols) for a in args]
    cls = _NODES[node]
    if cls in (sympy.Eq, sympy.Ne, sympy.Max, sympy.Min, sympy.Add, sympy.Mul, sympy.Pow, sympy.Abs):
        # rebuilt as written: the arguments were serialised in sympy's canonical order, and
        # evaluating again (sympy's pairwise Max comparisons, Abs's sign analysis) costs time, not meaning
        return cls(*children, evaluate=False)
    return cls(*children)


def _domain_to_json(domain: Domain) -> dict[str, Any]:
    if isinstance(domain, IntRange):
        return {"kind": "IntRange", "lo": domain.lo, "hi": domain.hi}
    if isinstance(domain, RationalRange):
        side = lambda v: None if v is None else rational_text(v)  # noqa: E731
        return {"kind": "RationalRange", "lo": side(domain.lo), "hi": side(domain.hi)}
    if isinstance(domain, Booleans):
        return {"kind": "Booleans"}
    if isinstance(domain, Categories):
        if not all(isinstance(label, str) for label in domain.labels):
            raise InvalidArgument("only string category labels can be written to a certificate", parameter="labels", value=domain.labels)
        return {"kind": "Categories", "labels": list(domain.labels)}
    if isinstance(domain, Grid):
        return {"kind": "Grid", "points": [rational_text(p) for p in domain.points]}
    raise InvalidArgument(f"cannot serialise domain {describe(domain)}", parameter="domain", value=domain)


def _domain_from_json(data: Any) -> Domain:
    if not isinstance(data, dict):
        raise InvalidArgument(f"domain {describe(data)} must be an object", parameter="domain", value=data)
    kind = data.get("kind")
    if kind == "IntRange":
        return IntRange(data.get("lo"), data.get("hi"))
    if kind == "RationalRange":
        side = lambda v: None if v is None else rational_from_text(v, name="bound")  # noqa: E731
        return RationalRange(side(data.get("lo")), side(data.get("hi")))
    if kind == "Booleans":
        return Booleans()
    if kind == "Categories":
        return Categories(tuple(data.get("labels", ())))
    if kind == "Grid":
        return Grid(tuple(rational_from_text(p, name="point") for p in data.get("points", ())))
    raise InvalidArgument(f"unknown domain kind {describe(kind)}", parameter="domain", value=kind)


def quality_to_json(quality: QualityFunction) -> dict[str, Any]:
    """Schema, outputs and the expression tree of ``quality``, with its sha256 and canonical text."""
    return function_to_json(quality)


def function_to_json(function: Any) -> dict[str, Any]:
    """Name, schema, outputs, expression tree, canonical text and sha256 of a spec function (quality or likelihood)."""
    return {
        "name": function.name,
        "schema": [[name, _domain_to_json(domain)] for name, _, domain in function.schema.items()],
        "outputs": [[name, _domain_to_json(domain)] for name, _, domain in function.output_space.items()],
        "expression": _expr_to_tree(function.expr),
        "canonical_text": function.canonical_text,
        "sha256": function.sha256,
    }


def function_from_json(data: Any, build: Any, *, what: str) -> Any:
    """Rebuild a spec function with ``build(expr, schema=…, outputs=…, name=…)`` from :func:`function_to_json` data.

    No code is evaluated; the rebuilt function's sha256 must be the recorded one.
    """
    if not isinstance(data, dict):
        raise InvalidArgument(f"quality {describe(data)} must be an object", parameter="quality", value=data)
    schema = RecordSchema({name: _domain_from_json(d) for name, d in data.get("schema", [])})
    outputs = OutputSpace({name: _domain_from_json(d) for name, d in data.get("outputs", [])})
    symbols = {s.name: s for s in schema.symbols + outputs.symbols}
    function = build(_expr_from_tree(data.get("expression"), symbols), schema=schema, outputs=outputs, name=data.get("name"))
    if function.sha256 != data.get("sha256"):
        raise InvalidArgument(
            f"the rebuilt {what} has sha256 {function.sha256}, not the recorded {describe(data.get('sha256'))}",
            parameter="quality",
            value=data.get("sha256"),
        )
    return function


def quality_from_json(data: Any) -> QualityFunction:
    """Rebuild a :class:`QualityFunction` from :func:`quality_to_json` data, and check its sha256."""
    quality: QualityFunction = function_from_json(data, QualityFunction, what="quality function")
    return quality
