"""A derivation read against the quality node by node: ``{"id", "term", "args"?, "text", "case", "bound", "rule",
"data", "premises"}``, its subterm found by position (``text`` its rendering), premises first, then the rule; a rule's
side conditions gathered as obligations.  Anything else is :class:`Rejected`, naming the node.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ._encode import Encoder, Unsupported
from ._domains import Range
from ._format import Quality
from ._formula import FALSE, Obligation, Var, conj, declared, disj, holds, integer_floors, var
from ._numbers import TooLarge, rational
from ._terms import Reader, Term, render

__all__ = ["Context", "Node", "Rejected", "Rule", "at_least", "read_node"]

MAX_NODES, MAX_DEPTH, MAX_PATH, TEXT_LENGTH = 50_000, 300, 300, 200


class Rejected(Exception):
    """A derivation the verifier does not accept: ``node`` (an id or None) and the ``reason``."""

    def __init__(self, node: str | None, reason: str) -> None:
        super().__init__(reason)
        self.node, self.reason = node, reason


@dataclass
class Node:
    """A node as read: id, position, its subterm(s), case ``lo..hi``, bound (a term over n), rule, data, premises."""

    id: str
    path: tuple[int, ...]
    args: tuple[int, ...] | None
    term: Term
    summands: tuple[Term, ...]
    lo: int
    hi: int | None
    bound: Term
    bound_json: Any
    rule: str
    data: Mapping[str, Any]
    premises: list[Node] = field(default_factory=list)

    def rational(self, key: str) -> Fraction:
        """The rational ``data[key]``."""
        try:
            return rational(self.data.get(key), f"data[{key!r}]")
        except TooLarge as error:
            raise Rejected(self.id, f"rule {self.rule}: {error}") from None


Rule = Callable[["Context", Node], None]


class Context:
    """One claim's check: the quality, the relation, the rules, the variables, the obligations gathered."""

    def __init__(self, quality: Quality, replace: bool, rules: Mapping[str, Rule], *, epsilon0: Fraction = Fraction(1), rng: Range | None = None) -> None:
        self.quality, self.replace, self.rules = quality, replace, rules
        self.epsilon0, self.range = epsilon0, rng
        self.bounds = Reader({"n"}, max_nodes=20_000, max_depth=64)
        self.n = self.bounds.make("symbol", (), "n")
        self.vars: dict[str, Var] = {}
        self.outputs = self.declare("out", quality.outputs)
        self.obligations: list[Obligation] = []
        self._seen: set[Any] = set()
        self._encoders: dict[str, Encoder] = {}
        self.count = 0
        self.premise: Callable[[str, str], Mapping[str, Any]] = _no_premise

    def declare(self, prefix: str, named: Any) -> dict[Term, tuple[str, Any, Any]]:
        """Variables ``prefix_name`` for the named domains: the environment binding their symbols."""
        env = {}
        for name, domain in named:
            self.vars[f"{prefix}_{name}"] = domain.var(f"{prefix}_{name}")
            env[self.quality.symbol(name)] = ("n", var(f"{prefix}_{name}"), FALSE)
        return env

    def encoder(self, tag: str) -> Encoder:
        """The encoder over record ``tag`` (``a``, ``b``) and the outputs."""
        if tag not in self._encoders:
            self._encoders[tag] = Encoder({**self.declare(tag, self.quality.fields), **self.outputs})
        return self._encoders[tag]

    def first(self, lo: int) -> int:
        """The least n a case from ``lo`` covers: under replace-one the empty dataset has no neighbour."""
        return max(lo, 1) if self.replace else lo

    def require(self, node: str, what: str, formula: Any, sizes: tuple[int, int | None] | None = None, extra: tuple[Var, ...] = ()) -> None:
        """Add the side condition that ``formula`` is unsatisfiable (over n in ``sizes`` when it mentions n)."""
        if formula == FALSE or formula in self._seen:
            return
        self._seen.add(formula)
        formula, floors = integer_floors(formula)
        variables = [*self.vars.values(), *extra, *floors]
        if sizes is not None:
            variables.append(Var("n", True, Fraction(sizes[0]), None if sizes[1] is None else Fraction(sizes[1])))
        used = declared(variables, formula)
        if used:
            self.obligations.append(Obligation(node, what, formula, used))
            return
        try:  # no variable: decided here, exactly
            violated = holds(formula, {})
        except ArithmeticError:
            violated = True
        except TooLarge as error:
            raise Rejected(node, f"{what}: arithmetic refused: {error}") from None
        if violated:
            raise Rejected(node, f"{what}: does not hold")

    def read_bound(self, tree: Any, node: str) -> Term:
        """A bound tree over ``n`` (no aggregate, no log)."""
        try:
            term = self.bounds.read(tree)
        except ValueError as error:
            raise Rejected(node, f"bound: {error}") from None
        if term.aggregate or _has(term, "log") or term.op in ("Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "bool"):
            raise Rejected(node, "a bound is a number in n")
        return term


def _has(term: Term, op: str) -> bool:
    return term.op == op or any(_has(a, op) for a in term.args)


def _no_premise(kind: str, node: str) -> Mapping[str, Any]:
    raise Rejected(node, f"no {kind} claim of the certificate was given to rest on")


def _int(value: Any, name: str, node: str, low: int = 0, high: int = 10**6) -> int:
    if type(value) is not int or not low <= value <= high:
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
    path, args_raw = raw.get("term"), raw.get("args")
    if not isinstance(path, list) or len(path) > MAX_PATH:
        raise Rejected(node_id, "term must be a list of argument positions")
    term = ctx.quality.expr
    for step in path:
        if not term.args:
            raise Rejected(node_id, "term goes below a leaf of the expression")
        term = term.args[_int(step, "each position of term", node_id, 0, len(term.args) - 1)]
    if term.op == "pair" or term.op in ("Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "bool"):
        raise Rejected(node_id, f"term {path} is not a numeric subterm")
    args: tuple[int, ...] | None = None
    summands: tuple[Term, ...] = (term,)
    shown = term
    if args_raw is not None:
        if term.op != "Add" or not isinstance(args_raw, list) or not args_raw:
            raise Rejected(node_id, "args (a partial sum) needs a non-empty list and a term that is an Add")
        args = tuple(_int(i, "each of args", node_id, 0, len(term.args) - 1) for i in args_raw)
        if list(args) != sorted(set(args)):
            raise Rejected(node_id, "args must be increasing and distinct")
        summands = tuple(term.args[i] for i in args)
        shown = summands[0] if len(summands) == 1 else ctx.quality.reader.make("Add", summands)
    if raw.get("text") != render(shown, TEXT_LENGTH):
        raise Rejected(node_id, f"text {str(raw.get('text'))[:80]!r} is not the subterm at {path}: {render(shown, 80)!r}")
    case = raw.get("case")
    if not isinstance(case, Mapping) or len(case) != 1 or not set(case) <= {"from", "at"}:
        raise Rejected(node_id, "case must be {'from': k} or {'at': k}")
    ((kind, k),) = case.items()
    lo = _int(k, "the case's n", node_id)
    bound = ctx.read_bound(raw.get("bound"), node_id)
    rule = raw.get("rule")
    if not isinstance(rule, str) or rule not in ctx.rules:
        raise Rejected(node_id, f"unknown rule {str(rule)[:40]!r} (known: {', '.join(sorted(ctx.rules))})")
    data, premises_raw = raw.get("data", {}), raw.get("premises", [])
    if not isinstance(data, Mapping) or not isinstance(premises_raw, list):
        raise Rejected(node_id, "data must be an object and premises a list")
    premises = [read_node(ctx, p, depth + 1) for p in premises_raw]
    node = Node(node_id, tuple(path), args, term, summands, lo, lo if kind == "at" else None, bound, raw.get("bound"), rule, data, premises)
    for premise in premises:
        if premise.lo > node.lo or (premise.hi is not None and (node.hi is None or node.hi > premise.hi)):
            raise Rejected(node_id, f"premise {premise.id} does not cover every n of this node")
    try:
        ctx.rules[rule](ctx, node)
    except Unsupported as error:
        raise Rejected(node_id, f"the verifier does not encode {error}") from None
    return node


def at_least(ctx: Context, node: Node, parts: list[Term], what: str, *, each: bool = False) -> None:
    """Require ``node.bound >= Σ parts`` (``each``: ``>=`` every part) at every n of the node's case, every bound defined."""
    lo, hi = ctx.first(node.lo), node.hi
    if hi is not None and hi < lo:
        return  # no n of the case has a neighbouring pair
    enc = Encoder({ctx.n: ("n", var("n"), FALSE)})
    value, undefined = enc.number(node.bound)
    encoded = [enc.number(p) for p in parts]
    defined = ("not", disj(*[u for _, u in encoded]))
    if each:
        below = disj(*[("<", value, v) for v, _ in encoded])
    else:
        below = ("<", value, ("+", *[v for v, _ in encoded]) if encoded else ("k", Fraction(0)))
    ctx.require(node.id, f"the bound is at least {what} for every n of the case", disj(undefined, conj(defined, below)), (lo, hi))
