"""``normaliser-translate``: ``Z(D)`` is the same for every dataset when ``q(D, r) = h(r − f(D))`` (a side condition,
every aggregate a free unknown — a total an integer only when its record term is one, shown from the schema), f holds
data and no output, h no data, the range is the whole of ℝ (a constant density) or ℤ (a constant weight, f shown
integer-valued from the schema): ``r ↦ r − f(D)`` then maps the line onto itself and keeps μ.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ._context import Context, Node, Rejected, Rule, read_node
from ._encode import Encoder
from ._domains import Range
from ._formula import FALSE, Var, conj, disj, neg, plus, var
from ._terms import Term, aggregates, render

__all__ = ["NORMALISER_RULES", "check_normaliser", "integral", "whole_line"]


def integral(term: Term, integers: set[str]) -> bool:
    """Whether ``term`` is integer-valued wherever it is defined, from its form and the integer symbols alone."""
    op = term.op
    if op == "rational":
        return term.value.denominator == 1  # type: ignore[no-any-return]
    if op == "symbol":
        return term.value in integers
    if op in ("bool", "Count", "Size", "floor", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not"):
        return True
    if op == "Pow":
        return term.args[1].value >= 0 and integral(term.args[0], integers)  # type: ignore[no-any-return]
    if op == "Piecewise":
        return all(integral(pair.args[0], integers) for pair in term.args)
    if op in ("Total", "Add", "Mul", "Abs", "Max", "Min"):
        return all(integral(a, integers) for a in term.args)
    return False  # a mean, a log


def whole_line(rng: Range) -> str | None:
    """``"reals"`` or ``"integers"`` when the range is all of ℝ or ℤ with a translation-invariant μ, else None."""
    if rng.domain is None or rng.measure is None or rng.domain.lo is not None or rng.domain.hi is not None or rng.measure["breakpoints"]:
        return None
    if rng.kind == "RationalRange":
        return "reals" if rng.measure["densities"][0] > 0 else None
    return "integers" if rng.measure["ratios"] == [1] and rng.measure["weights"][0] > 0 else None


def _expression(ctx: Context, node: Node, key: str) -> Term:
    text = node.data.get(key)
    try:
        if not isinstance(text, str) or len(text) > 100_000:
            raise ValueError("not the JSON text of an expression tree")
        return ctx.quality.reader.read(json.loads(text))
    except (ValueError, RecursionError) as error:
        raise Rejected(node.id, f"data[{key!r}] is not an expression of the language: {str(error)[:120]}") from None


def _symbols(term: Term) -> set[str]:
    found = {term.value} if term.op == "symbol" else set()
    for arg in term.args:
        found |= _symbols(arg)
    return found


def translate(ctx: Context, node: Node) -> None:
    """q(D, r) = h(r − f(D)) over the whole line (f integer-valued on ℤ): Z(D) does not depend on D."""
    if node.path or node.args is not None or node.premises or node.bound.op != "rational" or node.bound.value != 0:
        raise Rejected(node.id, "normaliser-translate is the root (term []), without premises, of bound 0")
    line = node.data.get("line")
    if ctx.range is None or line != whole_line(ctx.range):
        raise Rejected(node.id, f"the range is not all of {'ℝ' if line == 'reals' else 'ℤ'} with a translation-invariant μ, as data['line'] = {str(line)[:20]!r} says")
    ((r, _),) = ctx.quality.outputs
    shift, profile = _expression(ctx, node, "shift"), _expression(ctx, node, "profile")
    if not shift.aggregate or r in _symbols(shift) or profile.aggregate:
        raise Rejected(node.id, "the shift must depend on the data and not on r, the profile not on the data")
    integers = {name for name, d in ctx.quality.fields if d.integer}
    if line == "integers" and not integral(shift, integers):
        raise Rejected(node.id, "the shift is not shown integer-valued from the schema: on ℤ it must be")
    env: dict[Term, tuple[str, Any, Any]] = {}
    extra = []
    found = aggregates(shift, aggregates(ctx.quality.expr, {}))
    for index, atom in enumerate(sorted(found.values(), key=render)):
        whole = atom.op in ("Count", "Size") or (atom.op == "Total" and integral(atom.args[0], integers))
        extra.append(Var(f"agg_{index}", whole, Fraction(0) if atom.op in ("Count", "Size") else None, None))
        env[atom] = ("n", var(f"agg_{index}"), FALSE)
    q_value, q_undefined = Encoder({**ctx.outputs, **env}).number(ctx.quality.expr)
    f_value, f_undefined = Encoder({**ctx.outputs, **env}).number(shift)
    moved = plus(ctx.outputs[ctx.quality.symbol(r)][1], neg(f_value))
    h_value, h_undefined = Encoder({ctx.quality.symbol(r): ("n", moved, FALSE)}).number(profile)
    ctx.require(node.id, "q(D, r) = h(r − f(D)) wherever q is defined", conj(("not", q_undefined), disj(f_undefined, h_undefined, ("not", ("=", q_value, h_value)))), extra=tuple(extra))


def check_normaliser(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``normaliser``: one root node, bound 0, covering every dataset."""
    if start != (1 if ctx.replace else 0) or derivation["bound"] != {"rational": "0"}:
        raise Rejected(None, "a normaliser claim has bound 0 and covers every n")
    root = read_node(ctx, derivation["root"])
    if root.lo > start or root.hi is not None:
        raise Rejected(root.id, "the root must cover every n")


NORMALISER_RULES: dict[str, Rule] = {"normaliser-translate": translate}
