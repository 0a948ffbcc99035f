"""The provers over continuous and countable output domains.

``prove_sensitivity`` and ``prove_monotone`` already quantify over every
output: an output variable is a z3 ``Real`` (an interval of the reals) or
``Int`` (integers), with its bounds as constraints, so the lifted bounds hold
for every ``r`` of an infinite or continuous range.  What a range lacks is a
finite list to search for witnesses and counterexamples; this module derives
one — the breakpoints of ``q(D, ·)`` on the records searched, points between
and beyond them, and the outputs of z3's own models — and decides the sign of
a data-free factor over an infinite range with certified z3 bounds.

It also proves when the normaliser ``∫ e^{ε q(d, r)} μ(dr)`` does not depend on
the data: if ``q(D, r) = h(r − f(D))`` identically, with ``h`` free of the data
and μ Lebesgue on all of ℝ (or counting on all of ℤ with ``f`` integer-valued),
then ``Z(D) = ∫ e^{ε h(s)} ds`` for every D, the density ratio is
``e^{ε (q(D, r) − q(D', r))}`` alone, and the mechanism is ``ε₀·Δq``-DP — the
Laplace mechanism is ε₀·Δf-DP, not 2ε₀·Δf.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.impl import ExponentialMechanism, ExpRatio
from expmech.impl.internal import analyse
from expmech.spec import (
    Booleans,
    Categories,
    Count,
    Counting,
    DivergentNormaliser,
    IntRange,
    InvalidArgument,
    Lebesgue,
    Mean,
    Neighbours,
    OrderStatistic,
    QualityFunction,
    RationalRange,
    Size,
    Total,
)

from expmech.spec.internal import expression_to_json

from .._outcome import Status
from ._text import term_text
from ._encoding import default_code
from ._search import all_records, record_space_size

__all__ = ["InvarianceResult", "prove_normaliser_invariance", "range_search_outputs", "range_factor_bounds"]

_MAX_CANDIDATES = 160
AGGREGATES = (Count, Total, Mean, Size, OrderStatistic)


def _single_range(quality: QualityFunction) -> tuple[sympy.Symbol, Any] | None:
    items = list(quality.output_space.items())
    if len(items) != 1 or not isinstance(items[0][2], RationalRange | IntRange):
        return None
    return items[0][1], items[0][2]


def range_search_outputs(quality: QualityFunction, prover: Any) -> list[Hashable] | None:
    """Finitely many outputs of an infinite or continuous range worth searching for witnesses.

    The cuts of ``q(D, ·)`` for D made of every record searched (its per-record
    breakpoints), points between and beyond them, the range's ends, the
    constants of the expression, and the outputs of the z3 models found while
    proving; all inside the range.  A search over them is exact; it can only
    miss a witness, never invent one.
    """
    found = _single_range(quality)
    if found is None:
        return None
    symbol, domain = found
    integer = isinstance(domain, IntRange)
    space = record_space_size(quality)
    records = all_records(quality) if space is not None and space <= 64 else list(prover.record_seeds)
    points: set[Fraction] = {Fraction(0)}
    lo, hi = domain.bounds()
    for bound in (lo, hi):
        if bound is not None:
            points.add(Fraction(bound))
    for number in quality.expr.atoms(sympy.Rational):
        points.add(Fraction(int(number.p), int(number.q)))
    for seed in prover.output_seeds:
        value = seed.get(symbol)
        if value is not None and not isinstance(value, bool):
            points.add(Fraction(value))
    if records:
        dataset = [_decoded(quality, record) for record in records]
        try:
            pieces = analyse(quality, dataset, lo=None if lo is None else Fraction(lo), hi=None if hi is None else Fraction(hi), integer=integer)
            points.update(pieces.cuts.fractions())
        except InvalidArgument:
            pass
    ordered = sorted(points)
    extra = [ordered[0] - 1, ordered[-1] + 1]
    extra += [(a + b) / 2 for a, b in zip(ordered, ordered[1:])]
    candidates = set(ordered) | set(extra)
    if integer:
        candidates = {Fraction(c.__floor__()) for c in candidates} | {Fraction(c.__ceil__()) for c in candidates}
    inside = sorted(c for c in candidates if (lo is None or c >= lo) and (hi is None or c <= hi))
    if len(inside) > _MAX_CANDIDATES:
        step = len(inside) / _MAX_CANDIDATES
        inside = [inside[int(i * step)] for i in range(_MAX_CANDIDATES)]
    return [int(c) if integer else c for c in inside]


def _decoded(quality: QualityFunction, codes: dict[sympy.Symbol, Any]) -> Any:
    items = list(quality.schema.items())
    if len(items) == 1:
        _, symbol, domain = items[0]
        return domain.decode(codes[symbol])
    return {name: domain.decode(codes[symbol]) for name, symbol, domain in items}


def range_factor_bounds(prover: Any, factor: sympy.Expr) -> tuple[Any, Any]:
    """Certified ``(min, max)`` (or ``inf``/``sup``) of a data-free factor over the output domain (``−oo``/``oo`` if unbounded).

    Each bound is z3's optimum certified by plain solver calls (see
    ``Prover.certified_max``); an inconclusive call raises the prover's
    ``Unknown``.
    """
    expr = prover.translate(factor, "a")
    high = prover.certified_max(expr, lambda m: prover.exact(factor, m, "a"), prover.output_domain, f"largest {factor}")

    def negated(model: dict[str, Any]) -> Fraction | None:
        value = prover.exact(factor, model, "a")
        return None if value is None else -value

    low = prover.certified_max(-expr, negated, prover.output_domain, f"largest −({factor})")
    return (-low.value if low is not None else -sympy.oo), (high.value if high is not None else sympy.oo)


# -- the normaliser's independence of the data -----------------------------------------------------


@dataclass(frozen=True)
class InvarianceResult:
    """Whether ``Z(D) = ∫ e^{ε q(D, r)} μ(dr)`` is the same for every dataset, and why.

    PROVED when ``q(D, r) = profile(r − shift)`` identically (``profile`` free
    of the data) on all of ℝ with Lebesgue μ, or on all of ℤ with counting μ and
    an integer-valued ``shift``; ``normaliser`` is then the exact common value
    at the given ε (an :class:`ExpRatio`).  UNKNOWN otherwise, with the reason.
    ``output`` is the output variable and ``line`` ``"reals"`` or ``"integers"``
    (PROVED only); :meth:`derivation_for` writes the proof for the kernel.
    """

    status: Status
    shift: sympy.Expr | None
    profile: sympy.Expr | None
    normaliser: ExpRatio | None
    reason: str
    output: sympy.Symbol | None = None
    line: str | None = None

    def derivation_for(self, quality: QualityFunction, neighbours: Any) -> dict[str, Any] | None:
        """The derivation of claim ``"normaliser"`` (PROVED only, else None) under ``neighbours``, for the kernel.

        One root node of rule ``normaliser-translate`` and bound 0, its data the
        shift f(D) and the profile h (in the output variable), each the JSON
        text of its expression tree, and the line.  The
        claim does not depend on the relation; the kernel's envelope names it.
        """
        if self.status is not Status.PROVED or self.shift is None or self.profile is None or self.output is None:
            return None
        relation = Neighbours.parse(neighbours)
        start = 1 if relation is Neighbours.REPLACE_ONE else 0
        profile = self.profile.subs({x: self.output for x in self.profile.free_symbols if x.name == "s_shift"})
        zero = expression_to_json(sympy.Integer(0))
        data = {"shift": json.dumps(expression_to_json(self.shift)), "profile": json.dumps(expression_to_json(profile)), "line": self.line}
        root = {"id": "normaliser", "term": [], "text": term_text(quality.expr), "case": {"from": start}, "rule": "normaliser-translate", "bound": zero, "data": data, "premises": []}
        return {"format": 1, "claim": "normaliser", "relation": relation.value, "start": start, "bound": zero, "root": root}


def _has_data(expr: sympy.Basic) -> bool:
    return bool(expr.atoms(*AGGREGATES)) or isinstance(expr, Size)


def _shifts(expr: sympy.Basic, symbol: sympy.Symbol) -> list[sympy.Expr]:
    """Candidate ``f(D)`` with ``r − f(D)`` a subexpression (up to a constant factor)."""
    found: list[sympy.Expr] = []
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, sympy.Add) and symbol in node.free_symbols and _has_data(node):
            coefficient = node.coeff(symbol)
            rest = sympy.expand(node - coefficient * symbol)
            if coefficient.is_Rational and coefficient != 0 and symbol not in rest.free_symbols:
                shift = sympy.expand(-rest / coefficient)
                if _has_data(shift) and shift not in found:
                    found.append(shift)
    return found


def _integer_valued(expr: sympy.Basic, quality: QualityFunction) -> bool:
    """Whether ``expr`` is an integer for every dataset (integer combination of integer aggregates)."""
    if isinstance(expr, sympy.Integer) or isinstance(expr, Count | Size):
        return True
    if isinstance(expr, Total):
        return _integer_body(expr.args[0], quality)
    if isinstance(expr, sympy.Add):
        return all(_integer_valued(a, quality) for a in expr.args)
    if isinstance(expr, sympy.Mul):
        return all(_integer_valued(a, quality) for a in expr.args)
    return False


def _integer_body(expr: sympy.Basic, quality: QualityFunction) -> bool:
    if isinstance(expr, sympy.Integer):
        return True
    if isinstance(expr, sympy.Symbol):
        try:
            domain = quality.schema.domain(expr.name)
        except InvalidArgument:
            return False
        return isinstance(domain, IntRange | Booleans | Categories)
    if isinstance(expr, sympy.Add | sympy.Mul | sympy.Max | sympy.Min | sympy.Abs):
        return all(_integer_body(a, quality) for a in expr.args)
    return False


def prove_normaliser_invariance(quality: QualityFunction, *, epsilon: Any, outputs: Any = None, base_measure: Any = None) -> InvarianceResult:
    """Prove that the mechanism's normaliser is the same for every dataset (see the module docstring)."""
    def unknown(reason: str) -> InvarianceResult:
        return InvarianceResult(Status.UNKNOWN, None, None, None, reason)

    found = _single_range(quality)
    if found is None:
        return unknown("the output space is not one interval of the reals or of the integers")
    symbol, domain = found
    target = outputs if outputs is not None else domain
    bounds = target.bounds() if hasattr(target, "bounds") else (Fraction(0), Fraction(0))
    if bounds != (None, None):
        return unknown(f"the range {target.describe() if hasattr(target, 'describe') else target} is not all of ℝ or ℤ: a shift moves mass across its ends")
    integer = isinstance(target, IntRange)
    neutral = Counting() if integer else Lebesgue()
    if base_measure is not None and base_measure != neutral:
        return unknown(f"μ = {base_measure!r} is not translation invariant (only {neutral!r} is)")
    if not _has_data(quality.expr):
        return unknown("q does not depend on the data (nothing to prove)")
    s = sympy.Symbol("s_shift", integer=True) if integer else sympy.Symbol("s_shift", rational=True)
    for shift in _shifts(quality.expr, symbol):
        profile = quality.expr.subs(symbol, s + shift)
        if _has_data(profile):
            profile = sympy.expand(profile)
        if _has_data(profile):
            continue
        if integer and not _integer_valued(shift, quality):
            continue
        profile_quality = QualityFunction(profile.subs(s, symbol), schema=quality.schema, outputs=quality.output_space)
        try:
            mech = ExponentialMechanism(profile_quality, epsilon=epsilon, outputs=target)
            value = mech.distribution([_any_record(quality)]).normaliser
        except DivergentNormaliser as error:
            return unknown(f"q(D, r) = h(r − ({shift})) but the normaliser diverges: {error}")
        normaliser = value if isinstance(value, ExpRatio) else ExpRatio(value)
        space = "ℤ with counting μ" if integer else "ℝ with Lebesgue μ"
        return InvarianceResult(
            Status.PROVED,
            shift,
            profile,
            normaliser,
            f"q(D, r) = h(r − f(D)) with f(D) = {shift} and h(s) = {profile} free of the data, over {space}: "
            f"Z(D) = Σ/∫ e^{{ε h(s)}} for every D" + (" (f is integer-valued)" if integer else ""),
            symbol,
            "integers" if integer else "reals",
        )
    return unknown("q is not a translate h(r − f(D)) of one data-free profile")


def _any_record(quality: QualityFunction) -> Any:
    values = {}
    for name, _, domain in quality.schema.items():
        values[name] = domain.decode(default_code(domain))
    items = list(quality.schema.items())
    return values[items[0][0]] if len(items) == 1 else values
