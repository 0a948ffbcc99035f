"""Reading a derivation against its quality function, node by node, and the checks every rule shares.

A node (see ``docs`` and :func:`~expmech.proofs.kernel.check_derivation`) is
read into a :class:`Node`: its subterm is looked up by position in
``quality.expr`` (its ``text`` must match), its case and bound are parsed,
its premises are read and checked first, then its rule.  Hostile shapes —
wrong types, unknown keys' values, positions outside the tree, deep nesting,
huge trees — are :class:`~._verdict.Rejected` naming the node.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
import z3
from sympy.printing.str import StrPrinter

from expmech.spec import InvalidArgument, LogLikelihood, Neighbours, QualityFunction, rational_from_text

from ._bounds import Bound, encode_bound, has_n, read_bound, value_at
from ._smt import Obligation, Session
from ._terms import Encoder, any_of
from ._verdict import Rejected

__all__ = ["Context", "Node", "Rule", "at_least", "read_node", "term_text"]

MAX_NODES = 50_000
MAX_DEPTH = 300
MAX_PATH = 300
TEXT_LENGTH = 200


def term_text(expr: sympy.Basic, args: tuple[int, ...] | None = None) -> str:
    """The ``text`` a node carries for a subterm (``args``: a partial sum of an ``Add``), cut to 200 characters:
    ``str(expr)``'s first characters.

    Printed once per subterm: the prover writes the text and the kernel reads it back for the same subterms,
    and sympy's printer (it orders the terms) costs seconds on a large expression.  A sympy expression is
    immutable and structurally equal ones print alike, so the cached text is the text.
    """
    return _printed(expr, args)


@functools.lru_cache(maxsize=4096)
def _printed(expr: sympy.Basic, args: tuple[int, ...] | None) -> str:
    text = _str(expr) if args is None else " + ".join(_str(expr.args[i]) for i in args)
    return text if len(text) <= TEXT_LENGTH else text[: TEXT_LENGTH - 1] + "…"


#: Texts of subexpressions already printed, by the object's identity and whether it was printed inside another
#: (the one thing besides the object that sympy's str printer reads: a Float's trailing zeros); each entry holds its
#: object, so an identity is never reused while it is here.
_MEMO: dict[tuple[int, bool], tuple[Any, str]] = {}
_MEMO_SIZE = 200_000


class _MemoPrinter(StrPrinter):  # type: ignore[misc]  # sympy is untyped
    """``str(expr)``, with each subexpression object printed once across calls (the terms of a derivation are nested
    subterms of one quality: printing each afresh prints the inner ones again and again)."""

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if kwargs or not isinstance(expr, sympy.Basic):
            return str(super()._print(expr, **kwargs))
        key = (id(expr), self._print_level > 0)
        found = _MEMO.get(key)
        if found is not None and found[0] is expr:
            return found[1]
        text = str(super()._print(expr))
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = (expr, text)
        return text


def _str(expr: sympy.Basic) -> str:
    """``str(expr)`` (sympy's ``sstr`` with its default settings), by :class:`_MemoPrinter`: a printer per call, so
    threads never share its nesting level."""
    return str(_MemoPrinter().doprint(expr))


@dataclass
class Node:
    """A node as read: id, position (``path``, ``args``), the subterm's ``summands``, case ``lo..hi``, bound, data, premises."""

    id: str
    path: tuple[int, ...]
    args: tuple[int, ...] | None
    expr: sympy.Basic
    summands: tuple[sympy.Basic, ...]
    lo: int
    hi: int | None
    bound: Bound
    bound_json: Any
    rule: str
    data: Mapping[str, Any]
    premises: list[Node]

    def rational(self, key: str) -> Fraction:
        """The rational ``data[key]``; Rejected when missing or not a ``"p/q"`` string."""
        if key not in self.data:
            raise Rejected(self.id, f"rule {self.rule} needs data[{key!r}]")
        return self.rational_text(self.data[key], f"data[{key!r}]")

    def rational_text(self, text: Any, name: str) -> Fraction:
        """The rational written ``text``; Rejected (naming ``name``) when it is not a ``"p/q"`` string."""
        try:
            return rational_from_text(text, name=name)
        except (InvalidArgument, ValueError) as error:
            raise Rejected(self.id, f"{name} is not a rational: {error}") from None


Rule = Callable[["Context", Node], None]


class Context:
    """One check: the quality function, the relation, the z3 session, record/output variables, the rule set."""

    def __init__(self, quality: QualityFunction | LogLikelihood, neighbours: Neighbours, session: Session, rules: Mapping[str, Rule]) -> None:
        self.quality = quality
        self.neighbours = neighbours
        self.replace = neighbours is Neighbours.REPLACE_ONE
        self.session = session
        self.rules = rules
        self.outputs = {sym: (session.variable(f"out_{name}", d), session.boolean(False)) for name, sym, d in quality.output_space.items()}
        self._encoders: dict[str, Encoder] = {}
        self.count = 0
        self.texts: dict[tuple[tuple[int, ...], tuple[int, ...] | None], str] = {}  # each position printed once
        self.premise: Callable[[str, str], Mapping[str, Any]] = _no_premise  # a claim of the certificate, accepted (by kind)

    def encoder(self, tag: str) -> Encoder:
        """The encoder over record ``tag`` (``"a"``, ``"b"``) and the outputs."""
        if tag not in self._encoders:
            s = self.session
            fields = {sym: (s.variable(f"{tag}_{name}", d), s.boolean(False)) for name, sym, d in self.quality.schema.items()}
            self._encoders[tag] = Encoder(s, {**fields, **self.outputs})
        return self._encoders[tag]

    def first(self, lo: int) -> int:
        """The least n a case from ``lo`` covers: under replace-one there is no neighbour of the empty dataset."""
        return max(lo, 1) if self.replace else lo


def _no_premise(kind: str, node: str) -> Mapping[str, Any]:
    raise Rejected(node, f"no {kind} claim of the certificate was given to rest on")


def _int(value: Any, name: str, node: str, low: int = 0, high: int = 10**6) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Rejected(node, f"{name} must be an integer in [{low}, {high}]")
    return value


def read_node(ctx: Context, raw: Any, depth: int = 0) -> Node:
    """Read and check ``raw`` and its premises (premises first, then the node's rule)."""
    ctx.count += 1
    if ctx.count > MAX_NODES or depth > MAX_DEPTH:
        raise Rejected(None, f"the derivation has more than {MAX_NODES} nodes or {MAX_DEPTH} levels")
    if not isinstance(raw, Mapping):
        raise Rejected(None, f"a node must be an object, not {type(raw).__name__}")
    node_id = raw.get("id")
    if not isinstance(node_id, str) or not 0 < len(node_id) <= 100:
        raise Rejected(None, "a node's id must be a string of 1 to 100 characters")
    path_raw, args_raw = raw.get("term"), raw.get("args")
    if not isinstance(path_raw, list) or len(path_raw) > MAX_PATH:
        raise Rejected(node_id, "term must be a list of argument positions")
    expr: sympy.Basic = ctx.quality.expr
    for step in path_raw:
        index = _int(step, "each position of term", node_id, 0, len(expr.args) - 1) if expr.args else None
        if index is None:
            raise Rejected(node_id, "term goes below a leaf of the expression")
        expr = expr.args[index]
    if not isinstance(expr, sympy.Expr):
        raise Rejected(node_id, f"term {path_raw} is not a numeric subterm ({type(expr).__name__})")
    args: tuple[int, ...] | None = None
    summands: tuple[sympy.Basic, ...] = (expr,)
    if args_raw is not None:
        if not isinstance(expr, sympy.Add) or not isinstance(args_raw, list) or not args_raw:
            raise Rejected(node_id, "args (a partial sum) needs a non-empty list and a term that is an Add")
        args = tuple(_int(i, "each of args", node_id, 0, len(expr.args) - 1) for i in args_raw)
        if list(args) != sorted(set(args)):
            raise Rejected(node_id, "args must be increasing and distinct")
        summands = tuple(expr.args[i] for i in args)
    key = (tuple(path_raw), args)
    if key not in ctx.texts:
        ctx.texts[key] = term_text(expr, args)
    if raw.get("text") != ctx.texts[key]:
        raise Rejected(node_id, f"text {str(raw.get('text'))[:80]!r} does not match the subterm at {path_raw}: {ctx.texts[key][:80]!r}")
    case = raw.get("case")
    if not isinstance(case, Mapping) or len(case) != 1 or not set(case) <= {"from", "at"}:
        raise Rejected(node_id, "case must be {'from': k} or {'at': k}")
    (kind, k), = case.items()
    lo = _int(k, "the case's n", node_id)
    try:
        bound = read_bound(raw.get("bound"))
    except (ValueError, RecursionError) as error:
        raise Rejected(node_id, f"bound: {error}") from None
    rule = raw.get("rule")
    if not isinstance(rule, str) or rule not in ctx.rules:
        raise Rejected(node_id, f"unknown rule {str(rule)[:40]!r} (known: {', '.join(sorted(ctx.rules))})")
    data = raw.get("data", {})
    premises_raw = raw.get("premises", [])
    if not isinstance(data, Mapping) or not isinstance(premises_raw, list):
        raise Rejected(node_id, "data must be an object and premises a list")
    premises = [read_node(ctx, p, depth + 1) for p in premises_raw]
    node = Node(node_id, tuple(path_raw), args, expr, summands, lo, lo if kind == "at" else None, bound, raw.get("bound"), rule, data, premises)
    for premise in premises:
        if premise.lo > node.lo or (premise.hi is not None and (node.hi is None or node.hi > premise.hi)):
            raise Rejected(node_id, f"premise {premise.id} covers n {_case(premise)}, not all of this node's n {_case(node)}")
    ctx.rules[rule](ctx, node)
    return node


def _case(node: Node) -> str:
    return f"= {node.lo}" if node.hi is not None else f">= {node.lo}"


def at_least(ctx: Context, node: Node, parts: list[Bound], what: str, *, each: bool = False) -> None:
    """Require ``node.bound >= Σ parts`` (``each``: ``>=`` every part) at every n of the node's case, and the bound defined there."""
    lo, hi = ctx.first(node.lo), node.hi
    if hi is not None and hi < lo:
        return  # no n of the case has a neighbouring pair
    if not has_n(node.bound) and not any(has_n(p) for p in parts):
        try:
            bound = value_at(node.bound, lo)
            values = [value_at(p, lo) for p in parts]
        except ValueError as error:
            raise Rejected(node.id, str(error)) from None
        if bound is None or any(v is None for v in values):
            raise Rejected(node.id, "the bound (or a premise's) is undefined")
        need = max(values, default=Fraction(0)) if each else sum(values, Fraction(0))
        if bound < need:
            raise Rejected(node.id, f"the bound {bound} is below {need}, {what}")
        return
    s = ctx.session

    def violation(n: Any) -> Any:
        value, undefined = encode_bound(s, node.bound, n)
        encoded = [encode_bound(s, p, n) for p in parts]
        defined = z3.Not(any_of(s, [u for _, u in encoded]))
        if each:
            below = any_of(s, [value < v for v, _ in encoded])
        else:
            below = value < (z3.Sum(*[v for v, _ in encoded]) if encoded else z3.RealVal(0, s.ctx))
        return z3.Or(undefined, z3.And(defined, below))

    s.require(Obligation(node.id, f"the bound is at least {what} for every n {_case(node)}", violation, lo, hi, True))
