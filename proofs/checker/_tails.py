"""A finite normaliser for every dataset, ``Z(D) = Σ/∫ e^{ε₀ q(D, r)} μ(dr) < ∞``: the mechanism's own hypothesis.

On a bounded range q is bounded when no negative power has the output in its base.  At an infinite end the verifier
bounds, for every dataset at once, the slope of q's growth (aggregates are bounded for a fixed dataset; a product of
the output with anything but a constant, a power of it, or a total of a term in it is refused); then μ's tail must be
zero, or the largest slope < 0 (reals; integers with a factor f = 1 per step away), <= 0 (f < 1), ``f·e^{ε₀ s} < 1`` (f > 1).
"""

from __future__ import annotations

from fractions import Fraction

from ._context import Context, Rejected
from ._numbers import exp_compare, mul
from ._terms import Term, evaluate

__all__ = ["finite_normaliser"]

Slopes = tuple[Fraction, Fraction]  # the least and the largest slope q can have at this end


class _Refused(Exception):
    pass


def _mentions(term: Term, name: str) -> bool:
    return (term.op == "symbol" and term.value == name) or any(_mentions(a, name) for a in term.args)


def _constant(term: Term, name: str) -> Fraction | None:
    """The value of a data-free term free of the output (None otherwise)."""
    if term.aggregate or _mentions(term, name):
        return None
    value = evaluate(term, {})
    return Fraction(int(value)) if isinstance(value, bool) else value


def _slopes(t: Term, name: str, side: int) -> Slopes:
    """The interval of slopes of ``t`` in ``t``'s growth towards the end ``side`` (see the module docstring)."""
    if not _mentions(t, name):
        return Fraction(0), Fraction(0)
    if t.op == "symbol":
        return Fraction(side), Fraction(side)
    if t.op in ("Count", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not"):
        return Fraction(0), Fraction(0)  # bounded: a count of at most n records, a 0/1 truth
    parts = [_slopes(a, name, side) for a in t.args if a.op != "pair"]
    if t.op == "Add":
        return sum((p[0] for p in parts), Fraction(0)), sum((p[1] for p in parts), Fraction(0))
    if t.op == "Mul":
        growing = [i for i, a in enumerate(t.args) if _mentions(a, name)]
        factor = Fraction(1)
        for i, a in enumerate(t.args):
            value = None if i in growing else _constant(a, name)
            if i not in growing and value is None:
                raise _Refused(f"{a} multiplies the output and depends on the data")
            factor = mul(factor, value) if value is not None else factor
        if len(growing) != 1:
            raise _Refused("a product of two terms in the output")
        lo, hi = _slopes(t.args[growing[0]], name, side)
        return (lo * factor, hi * factor) if factor >= 0 else (hi * factor, lo * factor)
    if t.op == "Abs":
        lo, hi = parts[0]
        return (Fraction(0) if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
    if t.op in ("Max", "Min"):
        pick = max if t.op == "Max" else min
        return pick(p[0] for p in parts), pick(p[1] for p in parts)
    if t.op == "Piecewise":
        branches = [_slopes(pair.args[0], name, side) for pair in t.args]
        return min(b[0] for b in branches), max(b[1] for b in branches)
    raise _Refused(f"{t.op} of a term in the output")


def finite_normaliser(ctx: Context, node: str) -> None:
    """Require ``Z(D) < ∞`` for every dataset (see the module docstring), or Rejected."""
    rng = ctx.range
    if rng is None or rng.kind == "finite":
        return
    ((name, _),) = ctx.quality.outputs
    domain, measure = rng.domain, rng.measure
    assert domain is not None and measure is not None

    def pole(t: Term) -> bool:
        return (t.op == "Pow" and t.args[1].value < 0 and _mentions(t.args[0], name)) or any(pole(a) for a in t.args)

    if pole(ctx.quality.expr):
        raise Rejected(node, "q has a negative power of a term in the output: the normaliser is not shown finite")
    for side, end in ((1, domain.hi), (-1, domain.lo)):
        key = -1 if side > 0 else 0
        weight = (measure["densities"] if rng.kind == "RationalRange" else measure["weights"])[key] if end is None else 0
        if weight == 0:
            continue
        factor = Fraction(1) if rng.kind == "RationalRange" else measure["ratios"][key] ** side
        where = f"{'+' if side > 0 else '-'}∞"
        try:
            largest = _slopes(ctx.quality.expr, name, side)[1]
        except _Refused as error:
            raise Rejected(node, f"the normaliser is not shown finite at {where}: {error}") from None
        finite = largest < 0 if factor == 1 else largest <= 0 if factor < 1 else exp_compare(mul(ctx.epsilon0, largest), 1 / factor) == -1
        if not finite:
            raise Rejected(node, f"the normaliser is not shown finite at {where}: q's slope there may reach {largest} (μ's factor per step {factor})")
