"""The sensitivity rules: a node bounds ``|t(D, r) − t(D′, r)|`` for its subterm t, at every n of its case and every
output where t is reached and defined on both datasets.  A *linear* subterm (counts, totals, means and ``size()``
under ``+`` and data-free factors) changes through the changed record alone: by its per-record part, ``k(r)`` per
record added, and its mean's spread over n (replace-one) or n + 1 (add-remove).  Arguments: ``expmech.spec.RULE_STATEMENTS``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from fractions import Fraction
from collections.abc import Mapping
from typing import Any

from ._context import Context, Node, Rejected, Rule, at_least, read_node
from ._encode import Encoder
from ._formula import conj, disj, ite, k, neg, plus, times
from ._numbers import TooLarge
from ._terms import MAYBE, Term, evaluate

__all__ = ["SENSITIVITY_RULES", "check_sensitivity", "child_of", "linear_form", "number_term", "premises_of", "whole"]

Piece = tuple[tuple[Term, ...], Term, bool]  # data-free factors, per-record body, whether the body is a count's predicate


@dataclass
class Linear:
    """The parts of a linear subterm (see the module docstring)."""

    plain: list[Piece] = field(default_factory=list)
    per_size: list[tuple[Term, ...]] = field(default_factory=list)
    normalised: list[Piece] = field(default_factory=list)
    constant: bool = False
    divided: bool = False

    def add(self, other: Linear) -> None:
        """Add ``other`` into this form."""
        self.plain += other.plain
        self.per_size += other.per_size
        self.normalised += other.normalised
        self.constant |= other.constant
        self.divided |= other.divided

    def scaled(self, factors: tuple[Term, ...]) -> Linear:
        """Every term times the data-free ``factors``."""
        return Linear([(factors + f, b, c) for f, b, c in self.plain], [factors + f for f in self.per_size],
                      [(factors + f, b, c) for f, b, c in self.normalised], self.constant, self.divided)


def _per_size(term: Term) -> bool:
    return term.op == "Pow" and term.args[0].op == "Size" and term.args[1].value == -1


def linear_form(term: Term) -> Linear | None:
    """The linear form of ``term`` (None when it is not one)."""
    if not term.aggregate:
        return Linear(constant=True)
    if term.op in ("Count", "Total"):
        return Linear(plain=[((), term.args[0], term.op == "Count")])
    if term.op == "Mean":
        return Linear(normalised=[((), term.args[0], False)], divided=True)
    if term.op == "Size":
        return Linear(per_size=[()])
    if term.op == "Add":
        total = Linear()
        for arg in term.args:
            part = linear_form(arg)
            if part is None:
                return None
            total.add(part)
        return total
    if term.op == "Mul":
        constants = tuple(f for f in term.args if not f.aggregate)
        divided = [f for f in term.args if _per_size(f)]
        rest = [f for f in term.args if f.aggregate and not _per_size(f)]
        if len(rest) != 1 or len(divided) > 1:
            return None
        inner = linear_form(rest[0])
        if inner is None:
            return None
        if divided:
            if inner.normalised or inner.constant:
                return None
            inner = Linear(normalised=inner.plain, divided=True)  # (Σ h + k·size())/size() = mean of h + k
        return inner.scaled(constants)
    return None


def premises_of(node: Node, count: int) -> list[Node]:
    if len(node.premises) != count:
        raise Rejected(node.id, f"rule {node.rule} takes {count} premise(s), not {len(node.premises)}")
    return node.premises


def child_of(node: Node, premise: Node, *steps: int) -> None:
    if premise.path != node.path + steps or premise.args is not None:
        raise Rejected(node.id, f"premise {premise.id} is at {list(premise.path)}, not at the argument {list(node.path + steps)}")


def whole(node: Node, ops: tuple[str, ...]) -> None:
    if node.args is not None or node.term.op not in ops:
        raise Rejected(node.id, f"rule {node.rule} applies to {' or '.join(ops)}, not to {node.term.op}")


def part(enc: Encoder, pieces: list[Piece]) -> tuple[Any, Any]:
    """``Σ Π factors · body`` of one record, with its undefinedness."""
    terms, undefined = [], []
    for factors, body, is_count in pieces:
        values = []
        for factor in factors:
            value, u = enc.number(factor)
            values.append(value)
            undefined.append(u)
        if is_count:
            cond, u = enc.condition(body)
            values.append(ite(cond, k(1), k(0)))
        else:
            value, u = enc.number(body)
            values.append(value)
        undefined.append(u)
        terms.append(times(*values))
    return plus(*terms), disj(*undefined)


def number_term(ctx: Context, q: Fraction | int) -> Term:
    return ctx.bounds.make("rational", (), Fraction(q))


def _n_plus(ctx: Context, shift: int) -> Term:
    return ctx.bounds.make("Add", (ctx.n, number_term(ctx, shift))) if shift else ctx.n


def data_free(ctx: Context, node: Node) -> None:
    """A subterm without aggregates does not change."""
    premises_of(node, 0)
    if any(t.aggregate for t in node.summands):
        raise Rejected(node.id, "the subterm depends on the data")
    at_least(ctx, node, [], "0")


def linear(ctx: Context, node: Node) -> None:
    """A linear form changes through one record: ``D + S/n`` (replace-one), ``D + S/(n+1)`` (add-remove)."""
    premises_of(node, 0)
    form = Linear()
    for term in node.summands:
        found = linear_form(term)
        if found is None:
            raise Rejected(node.id, f"{term} is not a linear form of the aggregates")
        form.add(found)
    plain, spread = node.rational("plain"), node.rational("mean")
    if plain < 0 or spread < 0:
        raise Rejected(node.id, "data plain and mean must be >= 0")
    a, b = ctx.encoder("a"), ctx.encoder("b")
    if ctx.replace and form.plain:
        (ha, ua), (hb, ub) = part(a, form.plain), part(b, form.plain)
        ctx.require(node.id, f"one replaced record changes the sum part by at most {plain}", conj(("not", ua), ("not", ub), ("<", k(plain), plus(hb, neg(ha)))))
    if not ctx.replace and (form.plain or form.per_size):
        h, uh = part(a, form.plain)
        s, us = part(a, [(f, number_term(ctx, 1), False) for f in form.per_size])
        change = plus(h, s)
        ctx.require(node.id, f"one added record changes the sum part by at most {plain}",
                    conj(("not", uh), ("not", us), disj(("<", k(plain), change), ("<", k(plain), neg(change)))))
    if form.normalised:
        (ga, ua), (gb, ub) = part(a, form.normalised), part(b, form.normalised)
        ctx.require(node.id, f"the spread of the mean's per-record term is at most {spread}", conj(("not", ua), ("not", ub), ("<", k(spread), plus(gb, neg(ga)))))
    if form.divided and not ctx.replace and node.lo < 1:
        raise Rejected(node.id, "a mean (a division by size()) is undefined on the empty dataset: the case must start at n >= 1")
    if ctx.replace and form.divided and node.hi is not None and node.hi < 1:
        raise Rejected(node.id, "a case at n = 0 has no replace-one neighbours")
    over = _n_plus(ctx, 0 if ctx.replace else 1)
    parts = [number_term(ctx, plain)]
    if form.normalised and spread:
        parts.append(ctx.bounds.make("Mul", (number_term(ctx, spread), ctx.bounds.make("Pow", (over, number_term(ctx, -1))))))
    at_least(ctx, node, parts, "the linear form's change")


def total(ctx: Context, node: Node) -> None:
    """``Δ(a + b) <= Δa + Δb``: premises cover every data-dependent summand once (a child or a partial sum)."""
    if node.term.op != "Add":
        raise Rejected(node.id, f"rule sum applies to an Add, not to {node.term.op}")
    chosen_args = set(node.args) if node.args is not None else set(range(len(node.term.args)))
    covered: set[int] = set()
    for premise in node.premises:
        if premise.path == node.path and premise.args is not None:
            piece = set(premise.args)
        elif len(premise.path) == len(node.path) + 1 and premise.path[:-1] == node.path and premise.args is None:
            piece = {premise.path[-1]}
        else:
            raise Rejected(node.id, f"premise {premise.id} is not a summand of this sum")
        if not piece <= chosen_args or piece & covered or (premise.args is not None and piece == chosen_args):
            raise Rejected(node.id, f"premise {premise.id} covers summands outside this sum, twice, or all of it")
        covered |= piece
    missed = [i for i in sorted(chosen_args - covered) if node.term.args[i].aggregate]
    if missed:
        raise Rejected(node.id, f"the data-dependent summand {node.term.args[missed[0]]} has no premise")
    at_least(ctx, node, [p.bound for p in node.premises], "the sum of the premises' bounds")


def scale(ctx: Context, node: Node) -> None:
    """``Δ(c·nᵏ·a) <= C·nᵏ·Δa`` with ``C >= max_r |c(r)|`` (size powers: replace-one only)."""
    whole(node, ("Mul",))
    (premise,) = premises_of(node, 1)
    power, constants, data = 0, [], []
    for i, factor in enumerate(node.term.args):
        base, exponent = (factor.args[0], factor.args[1].value) if factor.op == "Pow" else (factor, 1)
        if ctx.replace and base.op == "Size":
            power += int(exponent)
        elif factor.aggregate:
            data.append(i)
        else:
            constants.append(factor)
    if len(data) != 1:
        raise Rejected(node.id, f"rule scale needs exactly one data-dependent factor, not {len(data)}")
    child_of(node, premise, data[0])
    factor_bound = node.rational("factor_bound")
    if constants:
        value, undefined = part(ctx.encoder("a"), [(tuple(constants[:-1]), constants[-1], False)])
        ctx.require(node.id, f"the factor's magnitude is at most {factor_bound}",
                    conj(("not", undefined), disj(("<", k(factor_bound), value), ("<", k(factor_bound), neg(value)))))
    elif factor_bound < 1:
        raise Rejected(node.id, f"factor_bound {factor_bound} is below the factor 1")
    scaled = [number_term(ctx, factor_bound), premise.bound] + ([ctx.bounds.make("Pow", (ctx.n, number_term(ctx, power)))] if power else [])
    at_least(ctx, node, [ctx.bounds.make("Mul", tuple(scaled))], "the factor's bound times the premise's")


def absolute(ctx: Context, node: Node) -> None:
    """``Δ|a| <= Δa``."""
    whole(node, ("Abs",))
    (premise,) = premises_of(node, 1)
    child_of(node, premise, 0)
    at_least(ctx, node, [premise.bound], "the premise's bound")


def extremum(ctx: Context, node: Node) -> None:
    """``Δ Max/Min(a₁, …) <= max Δaᵢ``: one premise per argument, in order."""
    whole(node, ("Max", "Min"))
    premises = premises_of(node, len(node.term.args))
    for i, premise in enumerate(premises):
        child_of(node, premise, i)
    at_least(ctx, node, [p.bound for p in premises], "every argument's bound", each=True)


def weaken(ctx: Context, node: Node) -> None:
    """A bound above a proved bound of the same subterm."""
    (premise,) = premises_of(node, 1)
    if premise.path != node.path or premise.args != node.args:
        raise Rejected(node.id, f"premise {premise.id} is not about the same subterm")
    at_least(ctx, node, [premise.bound], "the premise's bound")


def _lazy(module: str, name: str) -> Rule:
    def rule(ctx: Context, node: Node) -> None:  # the module is loaded by the certificates that use its rules
        return getattr(importlib.import_module(module, __package__), name)(ctx, node)  # type: ignore[no-any-return]

    return rule


SENSITIVITY_RULES: dict[str, Rule] = {"data-free": data_free, "linear": linear, "sum": total, "scale": scale, "abs": absolute,
                                      "max-min": extremum, "piecewise": _lazy("._piecewise", "piecewise"), "weaken": weaken, "size-only": _lazy("._size", "size_only"),
                                      "joint": _lazy("._joint", "joint"), "order-statistic": _lazy("._order", "order_statistic")}


def empty_undefined(ctx: Context) -> bool:
    """Whether ∅ is outside the mechanism's domain: q(∅, r) undefined at an output of positive μ (a finite range), or
    at every output of a range of more than one value (a point of a continuous range is μ-null; cautious for others)."""
    rng = ctx.range

    def empty(aggregate: Any) -> Any:
        return None if aggregate.op in ("Mean", "OrderStatistic") else Fraction(0)  # no mean, no k-th value of no records

    try:
        if rng is not None and rng.kind == "finite":
            return any(w > 0 and evaluate(ctx.quality.expr, o, empty) is None for o, w in zip(rng.outputs, rng.weights))
        return rng is not None and evaluate(ctx.quality.expr, {name: MAYBE for name, _ in ctx.quality.outputs}, empty) is None
    except (TooLarge, KeyError):
        return False


def check_sensitivity(ctx: Context, derivation: Mapping[str, Any], start: int) -> Node:
    """A sensitivity root (also the envelope of a range-sensitivity root): sizes, position, bound."""
    required = 1 if ctx.replace or empty_undefined(ctx) else 0
    if start > required:
        raise Rejected(None, f"start={start}, but the claim must cover n >= {required}" + (" (q is defined on the empty dataset: the pair ∅, {x} is a neighbour)" if required == 0 else ""))
    root = read_node(ctx, derivation["root"])
    if root.path or root.args is not None:
        raise Rejected(root.id, "the root must be about the whole quality function (term [])")
    if root.hi is not None or root.lo > start:
        raise Rejected(root.id, f"the root covers n >= {root.lo}{' only at one n' if root.hi is not None else ''}, not every n >= {start}")
    if derivation["bound"] != root.bound_json:
        raise Rejected(root.id, "the derivation's bound is not the root's bound")
    return root
