"""An exact brute force of the claims the verifier decides, on small instances, with the spec's evaluator alone.

Every neighbouring pair of datasets with at most ``largest`` records in the smaller one (the empty dataset
included under add-remove) over a few values of each field (every value of a small finite domain; the ends,
zero and a middle of a large or infinite one), at every output of the output space (or a few of an infinite
one), is evaluated exactly by :meth:`expmech.spec.QualityFunction.evaluate_codes` — no code of the verifier or
of the prover.  ``n`` is the size of both datasets under replace-one, of the smaller under add-remove.  A value
that is undefined (a division by zero) is left out, as the claims leave it out.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import DATASET_SIZE, QualityError
from expmech.spec.internal import expression_from_json

Env = dict[Any, Any]
MAX_VALUES = 6
MAX_RECORDS = 16  # records tried of a schema of several fields (each field at least its ends and a middle)


def _values(domain: Any, limit: int = MAX_VALUES) -> list[Any]:
    """The codes of ``domain`` the brute force tries: all of a small finite one, else its ends, 0 and a middle."""
    if domain.is_finite:
        codes = list(domain.codes())
        if len(codes) <= limit:
            return codes
        return sorted({codes[0], codes[1], codes[len(codes) // 2], codes[-2], codes[-1]} if limit >= 5 else {codes[0], codes[len(codes) // 2], codes[-1]})
    lo, hi = domain.bounds()
    integer = getattr(domain, "sort", "real") == "int"
    low = lo if lo is not None else (hi - 4 if hi is not None else Fraction(-3))
    high = hi if hi is not None else low + 5
    middle = (low + high) / 2
    picks = {low, high, middle} | ({low + 1 if integer else (low + middle) / 2, Fraction(0) if low <= 0 <= high else low} if limit >= 5 else set())
    return sorted(Fraction(int(v)) if integer else v for v in picks if (not integer or Fraction(v).denominator == 1))


def records(quality: Any, limit: int = MAX_VALUES) -> list[Env]:
    """The records tried: every combination of each field's values (fewer values per field when there are several)."""
    items = list(quality.schema.items())
    each = limit if len(items) == 1 else max(3, int(MAX_RECORDS ** (1 / len(items))))
    fields = [(symbol, _values(domain, each)) for _, symbol, domain in items]
    return [dict(zip([s for s, _ in fields], combo)) for combo in itertools.product(*[v for _, v in fields])]


def outputs(quality: Any, limit: int = 64) -> list[Env]:
    """The outputs tried: every output of a finite output space, else a few of each variable's values."""
    space = quality.output_space
    if space.is_finite and len(space.outputs()) <= limit:
        return [space.encode(r) for r in space.outputs()]
    variables = [(symbol, _values(domain)) for _, symbol, domain in space.items()]
    return [dict(zip([s for s, _ in variables], combo)) for combo in itertools.product(*[v for _, v in variables])]


def pairs(quality: Any, relation: Any, largest: int = 2, limit: int = MAX_VALUES) -> Iterator[tuple[int, list[Env], list[Env]]]:
    """``(n, D, D′)`` for every neighbouring pair of datasets of the tried records, at most ``largest`` in the smaller."""
    replace = getattr(relation, "value", relation) == "replace-one"
    rows = records(quality, limit)
    for size in range(1 if replace else 0, largest + 1):
        for chosen in itertools.combinations_with_replacement(range(len(rows)), size):
            first = [rows[i] for i in chosen]
            for other in rows:
                if replace:
                    for position in sorted(set(chosen)):
                        at = chosen.index(position)
                        yield size, first, first[:at] + [other] + first[at + 1 :]
                else:
                    yield size, first, first + [other]


def value(quality: Any, dataset: list[Env], output: Env) -> Fraction | None:
    """``q(D, r)`` exactly, None where it is undefined."""
    try:
        return quality.evaluate_codes(dataset, output)
    except (QualityError, ZeroDivisionError):
        return None


def defined_on_empty(quality: Any) -> bool:
    """Whether q is defined on the empty dataset at every output (then the pair (∅, {x}) is a neighbour to cover)."""
    return all(value(quality, [], r) is not None for r in outputs(quality))


def largest_changes(quality: Any, relation: Any, largest: int = 2) -> dict[int, Fraction]:
    """The largest ``|q(D, r) − q(D′, r)|`` per ``n`` over the pairs and outputs where both are defined."""
    found: dict[int, Fraction] = {}
    rs = outputs(quality)
    for n, first, second in pairs(quality, relation, largest):
        for r in rs:
            a, b = value(quality, first, r), value(quality, second, r)
            if a is not None and b is not None:
                found[n] = max(found.get(n, Fraction(0)), abs(a - b))
    return found


def bound_at(bound: Any, n: int) -> Fraction | None:
    """A bound (a JSON tree in ``n``, or a sympy expression) at ``n``: None where it is not a finite number."""
    expr = expression_from_json(bound, {"n": DATASET_SIZE}) if isinstance(bound, dict) else sympy.sympify(bound)
    at = sympy.sympify(expr).subs(DATASET_SIZE, n)
    if not at.is_number or at.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo) or not at.is_real:
        return None
    if at.is_Rational:
        return Fraction(int(at.p), int(at.q))
    return Fraction(str(sympy.Rational(str(sympy.N(at, 60)))))


def sensitivity_violation(quality: Any, relation: Any, bound: Any, start: int = 0, largest: int = 2) -> str | None:
    """Where the sensitivity bound ``bound`` (from ``start``; n = 0 whenever the mechanism is defined on ∅ under
    add-remove) is exceeded by a pair, or None."""
    first = 0 if defined_on_empty(quality) else start
    for n, change in sorted(largest_changes(quality, relation, largest).items()):
        if n < first:
            continue
        allowed = bound_at(bound, n)
        if allowed is None or change > allowed:
            return f"at n = {n} a pair changes q by {change}, above the bound {allowed}"
    return None


def monotone_violation(quality: Any, relation: Any, direction: int, largest: int = 2) -> str | None:
    """Where the direction fails: add-remove, ``d·(q(D + x, r) − q(D, r)) >= 0``; replace-one, one change at every output."""
    replace = getattr(relation, "value", relation) == "replace-one"
    rs = outputs(quality)
    for _, first, second in pairs(quality, relation, largest):
        moves = []
        for r in rs:
            a, b = value(quality, first, r), value(quality, second, r)
            if a is not None and b is not None:
                moves.append(b - a)
        if replace and len(set(moves)) > 1:
            return f"{first} -> {second} moves the outputs by {sorted(set(moves))[:2]}"
        if not replace and any(m * direction < 0 or (direction == 0 and m) for m in moves):
            return f"{first} -> {second} moves against direction {direction}"
    return None


def largest_spread(quality: Any, relation: Any, largest: int = 2) -> Fraction:
    """The largest ``max_r d(r) − min_r d(r)``, ``d(r) = q(D, r) − q(D′, r)``, over the pairs (outputs where both are defined)."""
    best = Fraction(0)
    rs = outputs(quality)
    for _, first, second in pairs(quality, relation, largest):
        d = [a - b for a, b in ((value(quality, first, r), value(quality, second, r)) for r in rs) if a is not None and b is not None]
        if d:
            best = max(best, max(d) - min(d))
    return best


def largest_ratio(likelihood: Any, relation: Any) -> Fraction | None:
    """The largest likelihood ratio a neighbouring pair reaches: ``ℓ(x, θ)/ℓ(x′, θ)`` (replace-one), ``ℓ`` or ``1/ℓ``
    (add-remove); None where some ℓ is 0 (no finite ratio)."""
    rows, thetas = records(likelihood), outputs(likelihood)
    table = {}
    for i, row in enumerate(rows):
        for j, theta in enumerate(thetas):
            try:
                table[i, j] = likelihood.record_likelihood_codes(row, theta)
            except (QualityError, ZeroDivisionError):
                return None
    if any(v == 0 for v in table.values()):
        return None
    if getattr(relation, "value", relation) == "add-remove":
        return max(max(v, 1 / v) for v in table.values())
    return max(table[a, t] / table[b, t] for a in range(len(rows)) for b in range(len(rows)) for t in range(len(thetas)))


def output_values(quality: Any) -> list[Any]:
    """The outputs :func:`outputs` tries, as values of the output space (bare for one variable, else tuples)."""
    items = list(quality.output_space.items())
    decoded = [tuple(domain.decode(r[symbol]) for _, symbol, domain in items) for r in outputs(quality)]
    return [v[0] for v in decoded] if len(items) == 1 else decoded


def evaluations(quality: Any, largest: int = 2) -> int:
    """About how many evaluations of q the brute force makes over pairs of at most ``largest`` records."""
    count = len(records(quality))
    return count ** (largest + 1) * len(outputs(quality)) * 2
