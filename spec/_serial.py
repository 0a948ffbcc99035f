"""Quality functions as plain JSON data, and back — without evaluating any code.

A certificate must carry its quality function in a form a third party can
rebuild safely: ``eval`` of ``srepr`` text would run arbitrary code, so the
expression is written as a tree of whitelisted node names and rebuilt by
:func:`quality_from_json`, which refuses anything else.  Rationals are
``"p/q"`` strings.

The rebuild is exact: every node is constructed with ``evaluate=False`` from
the recorded arguments, in the recorded order, so sympy never re-simplifies
the tree (re-evaluating an already evaluated expression is not idempotent for
nested ``Max``/``Abs``/``Add``), and the rebuilt tree is written back and
required to equal the recorded one — a tree sympy would not have produced
(a one-argument ``Add``, unsorted ``Max`` arguments) is refused.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import warnings

import sympy
from sympy.utilities.exceptions import SymPyDeprecationWarning

from ._domains import Booleans, Categories, Domain, Grid, IntRange, RationalRange
from ._errors import InvalidArgument, describe
from ._language import Count, Mean, OrderStatistic, OutputSpace, RecordSchema, Size, Total
from ._quality import QualityFunction
from ._trace import TraceRecord

__all__ = ["domain_from_json", "domain_to_json", "expression_from_json", "expression_to_json", "function_from_json", "function_to_json", "quality_from_json", "quality_to_json", "rational_from_text", "rational_text"]

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
    "OrderStatistic": OrderStatistic,
    "floor": sympy.floor,
    "log": sympy.log,  # only in claimed sensitivities such as 2*log(3); no quality function admits it
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


def expression_to_json(expr: sympy.Basic) -> Any:
    """The expression tree of ``expr`` as JSON data: ``{"node": name, "args": [...]}``, rationals, booleans, symbols."""
    if isinstance(expr, sympy.Integer | sympy.Rational):
        return {"rational": rational_text(expr)}
    if expr is sympy.true or expr is sympy.false:
        return {"bool": bool(expr)}
    if isinstance(expr, sympy.Symbol):
        return {"symbol": expr.name}
    if isinstance(expr, sympy.Piecewise):
        return {"node": "Piecewise", "args": [[expression_to_json(p.expr), expression_to_json(p.cond)] for p in expr.args]}
    for cls, name in _NAMES.items():
        if type(expr) is cls or (isinstance(expr, cls) and cls in (Count, Total, Mean, Size, OrderStatistic)):
            return {"node": name, "args": [expression_to_json(a) for a in expr.args]}
    raise InvalidArgument(f"cannot serialise {type(expr).__name__}", parameter="expr", value=expr)


_LEAVES = ({"rational"}, {"bool"}, {"symbol"})
#: (fewest, most) arguments of each node; Add, Mul, Max, Min, And, Or take two or more.
_ARITY: dict[str, tuple[int, int | None]] = {
    **{name: (2, 2) for name in ("Pow", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "OrderStatistic")},
    **{name: (1, 1) for name in ("Abs", "Not", "Count", "Total", "Mean", "log", "floor")},
    "Size": (0, 0),
}


def _expr_from_tree(tree: Any, symbols: dict[str, sympy.Symbol]) -> sympy.Basic:
    if not isinstance(tree, dict):
        raise InvalidArgument(f"expression node {describe(tree)} must be an object", parameter="expr", value=tree)
    keys = set(tree)
    if keys not in _LEAVES and keys != {"node", "args"}:
        raise InvalidArgument(
            f"expression node with keys {sorted(keys)} must have exactly 'rational', 'bool', 'symbol', or 'node' and 'args'",
            parameter="expr",
            value=sorted(keys),
        )
    if "rational" in tree:
        value = rational_from_text(tree["rational"], name="rational")
        return sympy.Rational(value.numerator, value.denominator)
    if "bool" in tree:
        if not isinstance(tree["bool"], bool):
            raise InvalidArgument(f"bool={describe(tree['bool'])} must be true or false", parameter="expr", value=tree["bool"])
        return sympy.true if tree["bool"] else sympy.false
    if "symbol" in tree:
        name = tree["symbol"]
        if not isinstance(name, str) or name not in symbols:
            raise InvalidArgument(f"unknown symbol {describe(name)} in the expression", parameter="expr", value=name)
        return symbols[name]
    node, args = tree["node"], tree["args"]
    if not isinstance(args, list):
        raise InvalidArgument(f"node {describe(node)} has args that are not a list", parameter="expr", value=tree)
    if node == "Piecewise":
        pairs = []
        for pair in args:
            if not isinstance(pair, list) or len(pair) != 2:
                raise InvalidArgument(f"Piecewise branch {describe(pair)} must be [expr, cond]", parameter="expr", value=pair)
            pairs.append((_expr_from_tree(pair[0], symbols), _expr_from_tree(pair[1], symbols)))
        try:
            return sympy.Piecewise(*pairs, evaluate=False)
        except (TypeError, ValueError, AttributeError, sympy.SympifyError) as error:
            raise InvalidArgument(f"Piecewise branches {describe(pairs)} are not (expr, condition) pairs: {error}", parameter="expr", value=None) from None
    if not isinstance(node, str) or node not in _NODES:
        raise InvalidArgument(f"node {describe(node)} is not in the quality-function language", parameter="expr", value=node)
    low, high = _ARITY.get(node, (2, None))
    if len(args) < low or (high is not None and len(args) > high):
        raise InvalidArgument(f"node {node} has {len(args)} argument(s); it takes {low}" + ("" if high == low else f" to {high or 'any number'}"), parameter="expr", value=node)
    children = [_expr_from_tree(a, symbols) for a in args]
    # rebuilt as written: the arguments were serialised in sympy's canonical order, and evaluating
    # again (sympy's pairwise Max comparisons, Abs's sign analysis) could change the tree, and costs time
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", SymPyDeprecationWarning)  # e.g. a boolean inside Add: not an expression
            return _NODES[node](*children, evaluate=False)
    except (TypeError, ValueError, AttributeError, sympy.SympifyError, SymPyDeprecationWarning) as error:
        raise InvalidArgument(f"node {node} cannot take {len(children)} argument(s): {error}", parameter="expr", value=node) from None


def expression_from_json(tree: Any, symbols: dict[str, sympy.Symbol]) -> sympy.Basic:
    """Rebuild an expression written by :func:`expression_to_json`, exactly, over the named ``symbols``.

    Every node is built with ``evaluate=False``; a tree that does not come back
    unchanged when written again (one sympy would never produce) raises
    :class:`InvalidArgument`, as does any node outside the language.
    """
    expr = _expr_from_tree(tree, symbols)
    if expression_to_json(expr) != tree:
        raise InvalidArgument(
            "the expression tree is not in sympy's canonical form: rebuilding it changes it", parameter="expr", value=None
        )
    return expr


#: Integers of larger magnitude are written ``{"integer": "digits"}``: JSON (RFC 8785) integers are exact only up to it.
_SAFE_INTEGER = 2**53 - 1


def _bound_to_json(value: int | None) -> int | dict[str, str] | None:
    """An integer range's end: a JSON integer while safe, else its digits as ``{"integer": "…"}``; None stays None."""
    return value if value is None or abs(value) <= _SAFE_INTEGER else {"integer": str(value)}


def _bound_from_json(value: Any, name: str) -> int | None:
    """The inverse of :func:`_bound_to_json`; a safe integer written as digits (not its canonical form) is refused."""
    if not (isinstance(value, dict) and set(value) == {"integer"}):
        return value  # type: ignore[no-any-return]  # IntRange validates it
    text = value["integer"]
    if not isinstance(text, str) or not text.lstrip("-").isdigit() or not text.isascii() or len(text.lstrip("-")) > 4000:
        raise InvalidArgument(f"{name}={describe(text)} must be a string of at most 4000 decimal digits", parameter=name, value=text)
    number = int(text)
    if abs(number) <= _SAFE_INTEGER or str(number) != text:
        raise InvalidArgument(f"{name}={describe(text)} is not the canonical form of an integer past 2**53 − 1 (write {_bound_to_json(number)!r})", parameter=name, value=text)
    return number


def _domain_to_json(domain: Domain) -> dict[str, Any]:
    if isinstance(domain, IntRange):
        return {"kind": "IntRange", "lo": _bound_to_json(domain.lo), "hi": _bound_to_json(domain.hi)}
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


def domain_to_json(domain: Domain) -> dict[str, Any]:
    """The JSON form of a domain, as a quality's schema and outputs write it (an IntRange's big ends as digits)."""
    return _domain_to_json(domain)


def domain_from_json(data: Any) -> Domain:
    """The domain of :func:`domain_to_json`'s form; a malformed one raises InvalidArgument naming it."""
    return _domain_from_json(data)


def _domain_from_json(data: Any) -> Domain:
    if not isinstance(data, dict):
        raise InvalidArgument(f"domain {describe(data)} must be an object", parameter="domain", value=data)
    kind = data.get("kind")
    if kind == "IntRange":
        return IntRange(_bound_from_json(data.get("lo"), "lo"), _bound_from_json(data.get("hi"), "hi"))
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
    """Schema, outputs and the expression tree of ``quality``, with its sha256 and canonical text.

    A quality traced from Python also carries its ``trace`` block (source,
    source_sha256, expression, datasets_tested): provenance, not part of the
    canonical form.
    """
    data = function_to_json(quality)
    if quality.trace is not None:
        data["trace"] = quality.trace.to_json()
    return data


def function_to_json(function: Any) -> dict[str, Any]:
    """Name, schema, outputs, expression tree, canonical text and sha256 of a spec function (quality or likelihood)."""
    return {
        "name": function.name,
        "schema": [[name, _domain_to_json(domain)] for name, _, domain in function.schema.items()],
        "outputs": [[name, _domain_to_json(domain)] for name, _, domain in function.output_space.items()],
        "expression": expression_to_json(function.expr),
        "canonical_text": function.canonical_text,
        "sha256": function.sha256,
    }


def function_from_json(data: Any, build: Any, *, what: str, check_sha256: bool = True) -> Any:
    """Rebuild a spec function with ``build(expr, schema=…, outputs=…, name=…)`` from :func:`function_to_json` data.

    No code is evaluated; the rebuilt function's sha256 must be the recorded one (``check_sha256=False``: the
    caller binds the data another way, as a certificate's verifier does with its own digest of the tree).
    """
    if not isinstance(data, dict):
        raise InvalidArgument(f"quality {describe(data)} must be an object", parameter="quality", value=data)
    schema = RecordSchema({name: _domain_from_json(d) for name, d in data.get("schema", [])})
    outputs = OutputSpace({name: _domain_from_json(d) for name, d in data.get("outputs", [])})
    symbols = {s.name: s for s in schema.symbols + outputs.symbols}
    function = build(expression_from_json(data.get("expression"), symbols), schema=schema, outputs=outputs, name=data.get("name"))
    if check_sha256 and function.sha256 != data.get("sha256"):
        raise InvalidArgument(
            f"the rebuilt {what} has sha256 {function.sha256}, not the recorded {describe(data.get('sha256'))}",
            parameter="quality",
            value=data.get("sha256"),
        )
    return function


def quality_from_json(data: Any, *, check_sha256: bool = True) -> QualityFunction:
    """Rebuild a :class:`QualityFunction` from :func:`quality_to_json` data, and check its sha256 (unless ``check_sha256=False``).

    A ``trace`` block is read back as provenance (its sha256 must be its
    source's and its expression the quality's): the source is never run.
    """
    trace = data.get("trace") if isinstance(data, dict) else None
    if isinstance(data, dict) and "trace" in data:
        data = {k: v for k, v in data.items() if k != "trace"}
    quality: QualityFunction = function_from_json(data, QualityFunction, what="quality function", check_sha256=check_sha256)
    if trace is not None:
        quality._trace = TraceRecord.from_json(trace, str(quality.expr))
    return quality
