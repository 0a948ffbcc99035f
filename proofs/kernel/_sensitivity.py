"""The sensitivity rules: each node bounds ``|t(D, r) − t(D', r)|`` for its subterm ``t`` at every n of its case.

A node's claim: for every neighbouring pair (``n`` the size of both datasets
under replace-one, of the smaller under add-remove) with ``n`` in the node's
case, and every output ``r`` at which the evaluator reaches ``t`` (each
enclosing ``Piecewise`` takes the branch holding it: :func:`reached`) and
``t`` is defined on both, the change of ``t`` is at most the node's bound at
``n``.  Every side condition is over all outputs, so a premise's claim covers
its parent's outputs; only ``piecewise`` uses the restriction, to leave out
the branches z3 shows no reaching output takes.  Each rule below checks that its
conclusion follows from its premises and from side conditions the kernel
writes itself (see :data:`SENSITIVITY_RULES` for the statements).
"""

from __future__ import annotations

from typing import Any

import sympy
import z3

from expmech.spec import Size

from ._bounds import Bound
from ._derivation import Context, Node, Rule, at_least
from ._joint import joint, size_only
from ._linear import Linear, Piece, linear_form
from ._smt import Obligation
from ._terms import Encoder, any_of, has_aggregate
from ._verdict import Rejected, RuleInfo

__all__ = ["SENSITIVITY_RULES", "SENSITIVITY_TABLE"]


def _num(value: Any) -> Bound:
    return ("num", value)


def _inverse(bound: Bound) -> Bound:
    return ("Pow", (bound, _num(-1)))


N: Bound = ("n",)


def _premises(node: Node, count: int) -> list[Node]:
    if len(node.premises) != count:
        raise Rejected(node.id, f"rule {node.rule} takes {count} premise(s), not {len(node.premises)}")
    return node.premises


def _child(node: Node, premise: Node, *steps: int) -> None:
    if premise.path != node.path + steps or premise.args is not None:
        raise Rejected(node.id, f"premise {premise.id} is at {list(premise.path)}, not at the argument {list(node.path + steps)}")


def _whole(node: Node, kind: Any, name: str) -> None:
    if node.args is not None or not isinstance(node.expr, kind):
        raise Rejected(node.id, f"rule {node.rule} applies to a {name}, not to {type(node.expr).__name__}")


def data_free(ctx: Context, node: Node) -> None:
    """A subterm without aggregates does not change."""
    _premises(node, 0)
    if any(has_aggregate(t) for t in node.summands):
        raise Rejected(node.id, "the subterm depends on the data")
    at_least(ctx, node, [], "0")


def _part(enc: Encoder, pieces: list[Piece]) -> tuple[Any, Any]:
    """``Σ Π factors · body`` of one record, with its undefinedness."""
    s = enc.s
    terms, undefined = [], []
    for factors, body, is_count in pieces:
        values = []
        for factor in factors:
            value, u = enc.number(factor)
            values.append(value)
            undefined.append(u)
        if is_count:
            cond, u = enc.condition(body)
            values.append(z3.If(cond, s.num(1), s.num(0)))
        else:
            value, u = enc.number(body)
            values.append(value)
        undefined.append(u)
        terms.append(z3.Product(*values) if len(values) > 1 else values[0])
    total = z3.Sum(*terms) if len(terms) > 1 else terms[0] if terms else s.num(0)
    return total, any_of(s, undefined)


def _records(ctx: Context, node: Node, what: str, build: Any, key: Any) -> None:
    ctx.session.require(Obligation(node.id, what, lambda _n: build(), 0, None, False), key)


def linear(ctx: Context, node: Node) -> None:
    """A linear form changes through one record: ``D + S/n`` (replace-one), ``D + S/(n+1)`` (add-remove)."""
    _premises(node, 0)
    form = Linear()
    for term in node.summands:
        part = linear_form(term)
        if part is None:
            raise Rejected(node.id, f"{term} is not a linear form of the aggregates")
        form.add(part)
    plain, spread = node.rational("plain"), node.rational("mean")
    if plain < 0 or spread < 0:
        raise Rejected(node.id, "data plain and mean must be >= 0")
    a, b = ctx.encoder("a"), ctx.encoder("b")
    s = ctx.session
    if ctx.replace and form.plain:
        def change(pieces: list[Piece] = form.plain) -> Any:
            (ha, ua), (hb, ub) = _part(a, pieces), _part(b, pieces)
            return z3.And(z3.Not(ua), z3.Not(ub), hb - ha > s.num(plain))

        _records(ctx, node, f"one replaced record changes the sum part by at most {plain}", change, ("change", node.summands, plain))
    if not ctx.replace and (form.plain or form.per_size):
        def added(pieces: list[Piece] = form.plain, sizes: list[tuple[sympy.Basic, ...]] = form.per_size) -> Any:
            h, uh = _part(a, pieces)
            k, uk = _part(a, [(f, sympy.Integer(1), False) for f in sizes])
            total = h + k
            return z3.And(z3.Not(uh), z3.Not(uk), z3.Or(total > s.num(plain), -total > s.num(plain)))

        _records(ctx, node, f"one added record changes the sum part by at most {plain}", added, ("added", node.summands, plain))
    if form.normalised:
        def mean(pieces: list[Piece] = form.normalised) -> Any:
            (ga, ua), (gb, ub) = _part(a, pieces), _part(b, pieces)
            return z3.And(z3.Not(ua), z3.Not(ub), gb - ga > s.num(spread))

        _records(ctx, node, f"the spread of the mean's per-record term is at most {spread}", mean, ("mean", node.summands, spread))
    if form.divided and not ctx.replace and node.lo < 1:
        raise Rejected(node.id, "a mean (a division by size()) is undefined on the empty dataset: the case must start at n >= 1")
    if ctx.replace and form.divided and node.hi is not None and node.hi < 1:
        raise Rejected(node.id, "a case at n = 0 has no replace-one neighbours")
    over = N if ctx.replace else ("Add", (N, _num(1)))
    parts: list[Bound] = [_num(plain)] + ([("Mul", (_num(spread), _inverse(over)))] if form.normalised and spread else [])
    at_least(ctx, node, parts, "the linear form's change")


def total(ctx: Context, node: Node) -> None:
    """``Δ(a + b) <= Δa + Δb``: premises cover every data-dependent summand once (a child or a partial sum)."""
    if not isinstance(node.expr, sympy.Add):
        raise Rejected(node.id, f"rule sum applies to an Add, not to {type(node.expr).__name__}")
    chosen = set(node.args) if node.args is not None else set(range(len(node.expr.args)))
    covered: set[int] = set()
    for premise in node.premises:
        if premise.path == node.path and premise.args is not None:
            part = set(premise.args)
        elif len(premise.path) == len(node.path) + 1 and premise.path[:-1] == node.path and premise.args is None:
            part = {premise.path[-1]}
        else:
            raise Rejected(node.id, f"premise {premise.id} is not a summand of this sum")
        if not part <= chosen or part & covered or (premise.args is not None and part == chosen):
            raise Rejected(node.id, f"premise {premise.id} covers summands {sorted(part)} outside this sum, twice, or all of it")
        covered |= part
    missed = [i for i in sorted(chosen - covered) if has_aggregate(node.expr.args[i])]
    if missed:
        raise Rejected(node.id, f"the data-dependent summand {node.expr.args[missed[0]]} has no premise")
    at_least(ctx, node, [p.bound for p in node.premises], "the sum of the premises' bounds")


def scale(ctx: Context, node: Node) -> None:
    """``Δ(c·nᵏ·a) <= C·nᵏ·Δa`` with ``C >= max_r |c(r)|`` (size powers: replace-one only)."""
    _whole(node, sympy.Mul, "product")
    (premise,) = _premises(node, 1)
    power, constants, data = 0, [], []
    for i, factor in enumerate(node.expr.args):
        base, exponent = (factor.args[0], factor.args[1]) if isinstance(factor, sympy.Pow) else (factor, sympy.Integer(1))
        if ctx.replace and isinstance(base, Size) and isinstance(exponent, sympy.Integer):
            power += int(exponent)
        elif has_aggregate(factor):
            data.append(i)
        else:
            constants.append(factor)
    if len(data) != 1:
        raise Rejected(node.id, f"rule scale needs exactly one data-dependent factor, not {len(data)}")
    _child(node, premise, data[0])
    factor_bound = node.rational("factor_bound")
    a, s = ctx.encoder("a"), ctx.session
    if constants:

        def above() -> Any:
            value, undefined = _part(a, [(tuple(constants[:-1]), constants[-1], False)])
            return z3.And(z3.Not(undefined), z3.Or(value > s.num(factor_bound), -value > s.num(factor_bound)))

        _records(ctx, node, f"the factor's magnitude is at most {factor_bound}", above, ("factor", tuple(constants), factor_bound))
    elif factor_bound < 1:
        raise Rejected(node.id, f"factor_bound {factor_bound} is below the factor 1")
    scaled: Bound = ("Mul", (_num(factor_bound), premise.bound) + ((("Pow", (N, _num(power))),) if power else ()))
    at_least(ctx, node, [scaled], "the factor's bound times the premise's")


def absolute(ctx: Context, node: Node) -> None:
    """``Δ|a| <= Δa``."""
    _whole(node, sympy.Abs, "Abs")
    (premise,) = _premises(node, 1)
    _child(node, premise, 0)
    at_least(ctx, node, [premise.bound], "the premise's bound")


def extremum(ctx: Context, node: Node) -> None:
    """``Δ Max/Min(a₁, …) <= max Δaᵢ``: one premise per argument, in order."""
    _whole(node, (sympy.Max, sympy.Min), "Max or Min")
    premises = _premises(node, len(node.expr.args))
    for i, premise in enumerate(premises):
        _child(node, premise, i)
    at_least(ctx, node, [p.bound for p in premises], "every argument's bound", each=True)


def reached(ctx: Context, path: tuple[int, ...]) -> list[Any]:
    """The outputs at which the evaluator reaches the subterm at ``path``: each enclosing Piecewise chose its branch."""
    expr, conditions = ctx.quality.expr, []
    for k, step in enumerate(path):
        if isinstance(expr, sympy.Piecewise) and path[k + 1 : k + 2] == (0,):
            conditions.append(chosen(ctx, expr, step))
        expr = expr.args[step]
    return conditions


def chosen(ctx: Context, expr: sympy.Piecewise, i: int) -> Any:
    """At this output the Piecewise takes branch ``i``: every earlier condition defined and false, the ``i``-th defined and true."""
    a, parts = ctx.encoder("a"), []
    for j, pair in enumerate(expr.args[: i + 1]):
        value, undefined = a.condition(pair.args[1])
        parts += [z3.Not(undefined), value if j == i else z3.Not(value)]
    return z3.And(*parts)


def piecewise(ctx: Context, node: Node) -> None:
    """A ``Piecewise`` with data-free conditions changes by at most its reachable branches' largest bound.

    ``data["dead"]`` lists the branches (increasing indices) no output reaching this subterm takes — z3 confirms
    it; every other branch has one premise, in order.  A node's claim is about the outputs reaching its subterm.
    """
    _whole(node, sympy.Piecewise, "Piecewise")
    pairs = node.expr.args
    dead = node.data.get("dead", [])
    if not isinstance(dead, list) or any(isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(pairs) for i in dead) or dead != sorted(set(dead)):
        raise Rejected(node.id, "data['dead'] must be a list of increasing branch indices")
    live = [i for i in range(len(pairs)) if i not in dead]
    premises = _premises(node, len(live))
    for pair in pairs:
        if has_aggregate(pair.args[1]):
            raise Rejected(node.id, f"the condition {pair.args[1]} depends on the data")
    for i, premise in zip(live, premises):
        _child(node, premise, i, 0)
    for i in dead:
        _records(ctx, node, f"no output reaching this subterm takes branch {i}", lambda i=i: z3.And(*reached(ctx, node.path), chosen(ctx, node.expr, i)), ("dead", node.path, i))
    at_least(ctx, node, [p.bound for p in premises], "every reachable branch's bound", each=True)


def weaken(ctx: Context, node: Node) -> None:
    """A bound above a proved bound of the same subterm."""
    (premise,) = _premises(node, 1)
    if premise.path != node.path or premise.args != node.args:
        raise Rejected(node.id, f"premise {premise.id} is not about the same subterm")
    at_least(ctx, node, [premise.bound], "the premise's bound")


def _info(rule: str, text: str) -> RuleInfo:
    return RuleInfo("sensitivity", f"sensitivity-{rule}", text)


#: rule name -> the function checking it
SENSITIVITY_RULES: dict[str, Rule] = {
    "data-free": data_free,
    "linear": linear,
    "sum": total,
    "scale": scale,
    "abs": absolute,
    "max-min": extremum,
    "piecewise": piecewise,
    "weaken": weaken,
    "size-only": size_only,
    "joint": joint,
}

#: rule name -> (claim, statement name, one-line statement)
SENSITIVITY_TABLE: dict[str, RuleInfo] = {
    "data-free": _info("data-free", "a subterm without aggregates does not change: Δt = 0"),
    "linear": _info("linear", "Δ(Σh + k·size() + mean g) <= D + S/n (replace-one), D + S/(n+1) (add-remove), D and S certified by z3"),
    "size-only": _info("size-only", "a term g(size()) does not change under replace-one, and by |g(n+1) − g(n)| under add-remove"),
    "sum": _info("sum", "Δ(a + b) <= Δa + Δb"),
    "scale": _info("scale", "Δ(c·nᵏ·a) <= max_r |c(r)| · nᵏ · Δa (nᵏ only under replace-one)"),
    "abs": _info("abs", "Δ|a| <= Δa"),
    "max-min": _info("max-min", "Δ Max(a, b), Δ Min(a, b) <= max(Δa, Δb)"),
    "piecewise": _info("piecewise", "a Piecewise with data-free conditions changes by at most max over its branches, less those z3 shows unreachable"),
    "joint": _info("joint", "the joint encoding of every aggregate at once shows no change above B"),
    "weaken": _info("weaken", "a bound at least a proved bound is a bound"),
}
