"""The small model: records, every dataset of at most two records, their neighbouring pairs, and the outputs.

Everything here is computed from the spec alone (domains, the quality's
expression tree and its exact interpreter).

* **Records.**  A finite field domain is listed in full; an infinite one (or,
  when the full product does not fit the budget, every one) by its
  *representative codes*: its ends, 0 and ±1, every rational constant of the
  expression (and, for integers, its floor, ceiling and neighbours), and the
  midpoint of a bounded domain, each kept only if it lies in the domain.  When
  their product does not fit either, the *corners*: one record of
  representative codes and every record that differs from it in one field.
* **Datasets.**  Every multiset of at most :data:`MAX_SIZE` records (the
  language's aggregates do not see the order), the empty dataset included.
* **Pairs.**  Replace-one: ``C + {a}`` and ``C + {b}`` for ``a ≠ b``, both of
  size ``n = |C| + 1``.  Add-remove: ``D`` and ``D + {a}``, with ``n = |D|``,
  the size of the smaller dataset (so ``(∅, {a})`` is the pair at ``n = 0``).
  This is the convention of ``expmech.spec.DATASET_SIZE``.
* **Outputs of a range** (an interval or an infinite set of integers): the
  ends, the expression's constants, the record codes, the values of the
  output-free aggregates on every dataset and the roots of every linear switch
  (a comparison, ``Abs``, ``Max``/``Min``) — the places where ``q(D, ·)`` can
  bend or jump — then the midpoints between them and a point beyond each open
  end (integers: floor, ceiling and both neighbours of each).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import SMALL_DOMAIN, Count, Domain, IntRange, Mean, OrderStatistic, QualityError, QualityFunction, RationalRange, Size, Total

__all__ = ["LEVELS", "MAX_SIZE", "Pair", "count_datasets", "datasets", "listable", "pairs", "range_points", "record_codes", "representative"]

#: Datasets of at most this many records, the empty dataset included.
MAX_SIZE = 2

Codes = dict[sympy.Symbol, Any]
Key = tuple[int, ...]


@dataclass(frozen=True)
class Pair:
    """Two neighbouring datasets (sorted record indices) and ``n``, the dataset size their claim is evaluated at."""

    first: Key
    second: Key
    size: int


def _constants(expr: sympy.Basic) -> set[Fraction]:
    return {Fraction(int(a.p), int(a.q)) for a in expr.atoms(sympy.Rational)}


def listable(domain: Domain) -> bool:
    """Whether the small model may list ``domain``'s codes: finite and at most :data:`~expmech.spec.SMALL_DOMAIN`
    values (a larger integer range is never listed: it is met by its ends, midpoint and the constants)."""
    return domain.is_finite and (domain.size or 0) <= SMALL_DOMAIN


def _inside(domain: Domain, code: Fraction) -> Any:
    """``code`` as the domain's code if it lies in ``domain``, else None."""
    if listable(domain):
        codes = domain.codes()
        for c in codes:
            if c == code:
                return c
        return None
    lo, hi = domain.bounds()
    if (lo is not None and code < lo) or (hi is not None and code > hi):
        return None
    if domain.sort == "int":
        return int(code) if code.denominator == 1 else None
    return code


def representative(domain: Domain, constants: Iterable[Fraction]) -> list[Any]:
    """A few codes of ``domain``: ends, 0, ±1, the constants (integers: floor, ceiling, ±1), a midpoint; sorted."""
    lo, hi = domain.bounds()
    found: set[Fraction] = {Fraction(0), Fraction(1), Fraction(-1)}
    if listable(domain):
        codes = domain.codes()
        found.update(Fraction(c) for c in (codes[0], codes[-1], codes[len(codes) // 2]))
    for end in (lo, hi):
        if end is not None:
            found.add(end)
    if lo is not None and hi is not None:
        found.add((lo + hi) / 2)
    for c in constants:
        found.add(c)
        if domain.sort == "int":
            for base in (math.floor(c), math.ceil(c)):
                found.update(Fraction(base + d) for d in (-1, 0, 1))
    if domain.sort == "int":
        found = {f for f in found if f.denominator == 1} | {Fraction(math.floor(f)) for f in found if f.denominator != 1}
    kept = []
    for code in sorted(found):
        inside = _inside(domain, code)
        if inside is not None and inside not in kept:
            kept.append(inside)
    return kept


#: How the records are chosen, from the most to the fewest: every code of each finite field, representative codes
#: of each field (their product), and the corners (one base record and every record differing from it in one field).
LEVELS = ("exhaustive", "representative", "corners")


def record_codes(schema: Any, expr: sympy.Basic, *, level: str) -> list[Codes]:
    """The records of the small model as code dicts, at one of :data:`LEVELS`."""
    constants = _constants(expr)
    per_field = []
    for _, symbol, domain in schema.items():
        codes = list(domain.codes()) if level == "exhaustive" and listable(domain) else representative(domain, constants)
        per_field.append([(symbol, c) for c in codes])
    if level != "corners":
        return [dict(combo) for combo in itertools.product(*per_field)]
    base = dict(values[0] for values in per_field)
    found = [base]
    for values in per_field:
        for symbol, code in values[1:]:
            found.append({**base, symbol: code})
    return found


def count_datasets(records: int, *, empty: bool) -> int:
    """How many multisets of at most :data:`MAX_SIZE` of ``records`` records there are (with or without ∅)."""
    return sum(math.comb(records + k - 1, k) for k in range(0 if empty else 1, MAX_SIZE + 1))


def datasets(records: int, *, empty: bool) -> Iterator[Key]:
    """Every multiset of at most :data:`MAX_SIZE` record indices, as a sorted tuple."""
    for size in range(0 if empty else 1, MAX_SIZE + 1):
        yield from itertools.combinations_with_replacement(range(records), size)


def pairs(records: int, *, add_remove: bool) -> Iterator[Pair]:
    """Every neighbouring pair with both datasets of at most :data:`MAX_SIZE` records (see the module docstring)."""
    if add_remove:
        for size in range(MAX_SIZE):
            for base in itertools.combinations_with_replacement(range(records), size):
                for a in range(records):
                    yield Pair(base, tuple(sorted(base + (a,))), size)
        return
    for size in range(1, MAX_SIZE + 1):
        for common in itertools.combinations_with_replacement(range(records), size - 1):
            for a, b in itertools.combinations(range(records), 2):
                yield Pair(tuple(sorted(common + (a,))), tuple(sorted(common + (b,))), size)


# -- the outputs of a range ------------------------------------------------------------------


def _switches(expr: sympy.Basic) -> Iterator[tuple[sympy.Expr, bool]]:
    """Each switch's difference (zero where it turns) and whether it sits inside an aggregate's body."""

    def walk(node: sympy.Basic, inside: bool) -> Iterator[tuple[sympy.Expr, bool]]:
        if isinstance(node, Count | Total | Mean | OrderStatistic):
            for arg in node.args:
                yield from walk(arg, True)
            return
        if isinstance(node, sympy.Eq | sympy.Ne | sympy.Lt | sympy.Le | sympy.Gt | sympy.Ge):
            yield node.args[0] - node.args[1], inside
        elif isinstance(node, sympy.Abs):
            yield node.args[0], inside
        elif isinstance(node, sympy.Max | sympy.Min):
            for a, b in itertools.combinations(node.args, 2):
                yield a - b, inside
        for arg in node.args:
            if isinstance(arg, sympy.functions.elementary.piecewise.ExprCondPair):
                yield from walk(arg.expr, inside)
                yield from walk(arg.cond, inside)
            else:
                yield from walk(arg, inside)

    yield from walk(expr, False)


def _free_aggregates(expr: sympy.Basic, output: sympy.Symbol) -> list[sympy.Expr]:
    """Aggregates whose body does not involve the output (their value depends on the dataset only)."""
    return sorted({a for a in expr.atoms(Count, Total, Mean, Size, OrderStatistic) if output not in a.free_symbols}, key=sympy.default_sort_key)


def _roots(difference: sympy.Expr, output: sympy.Symbol) -> list[Fraction]:
    """The rational roots in ``output`` of a difference that is a polynomial of degree 1 or 2 in it (else none)."""
    if output not in difference.free_symbols or difference.atoms(Count, Total, Mean, Size, OrderStatistic) or not difference.is_polynomial(output):
        return []
    try:
        coefficients = sympy.Poly(difference, output).all_coeffs()
    except sympy.PolynomialError:
        return []
    if not all(c.is_Rational for c in coefficients):
        return []
    values = [Fraction(int(c.p), int(c.q)) for c in coefficients]
    if len(values) == 2:
        return [-values[1] / values[0]]
    if len(values) == 3:
        a, b, c = values
        disc = b * b - 4 * a * c
        if disc < 0:
            return []
        num, den = math.isqrt(disc.numerator), math.isqrt(disc.denominator)
        if num * num == disc.numerator and den * den == disc.denominator:
            root = Fraction(num, den)
            return [(-b - root) / (2 * a), (-b + root) / (2 * a)]
        # an irrational root: bracket it by the vertex (the function bends there between rational points)
        return [-b / (2 * a)]
    return []


def range_points(quality: Any, domain: IntRange | RationalRange, records: Sequence[Codes], data: Sequence[Sequence[Codes]]) -> list[Any]:
    """The outputs of a one-variable range the small model evaluates at (module docstring), sorted, inside the range."""
    (output,) = quality.output_space.symbols
    expr = quality.expr
    points: set[Fraction] = set(_constants(expr))
    for record in records:
        points.update(Fraction(v) for v in record.values())
    free = _free_aggregates(expr, output)
    probes = {a: QualityFunction(a, schema=quality.schema, outputs=quality.output_space) for a in free}
    switches = list(_switches(expr))
    for dataset in data:
        values: dict[sympy.Basic, sympy.Rational] = {}
        for aggregate in free:
            try:
                value = probes[aggregate].evaluate_codes(dataset, {output: 0})
            except (QualityError, ZeroDivisionError):
                continue
            values[aggregate] = sympy.Rational(value.numerator, value.denominator)
            points.add(value)
        for difference, inside in switches:
            if not inside and values:
                points.update(_roots(difference.xreplace(values), output))
    for difference, inside in switches:
        if inside:  # a per-record switch: its roots for every record of the model
            for record in records:
                points.update(_roots(difference.xreplace({s: sympy.Rational(str(v)) for s, v in record.items()}), output))
        elif not difference.atoms(Count, Total, Mean, Size, OrderStatistic):
            points.update(_roots(difference, output))
    lo, hi = domain.bounds()
    base = sorted(points)
    extra = set(base)
    extra.update((a + b) / 2 for a, b in zip(base, base[1:]))
    if base:
        extra.update((base[0] - 1, base[-1] + 1))
    for end in (lo, hi):
        if end is not None:
            extra.add(end)
    if isinstance(domain, IntRange):
        extra = {Fraction(math.floor(p) + d) for p in extra for d in (-1, 0, 1)} | {Fraction(math.ceil(p)) for p in extra}
    kept = sorted(p for p in extra if (lo is None or p >= lo) and (hi is None or p <= hi))
    return [int(p) if isinstance(domain, IntRange) else p for p in kept]

