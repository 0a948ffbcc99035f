"""Domains in the solver, and solver models back into records and outputs that lie inside their domains.

Every record or output the prover builds from a z3 model goes through
:func:`codes_from_model`: a variable the model leaves unset gets a code inside
its domain (never a bare 0 that the domain may exclude), and a code outside the
domain — or an unreadable value — makes the whole record unusable rather than
silently wrong.  What the solver assumes about a variable is
:func:`domain_constraint`, dispatched on the domain's kind so that new kinds of
domain plug in here.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.spec import SMALL_DOMAIN, Booleans, Categories, Domain, Grid, IntRange, InvalidArgument, OutputSpace, RecordSchema

from ._z3bridge import bool_val, int_var, q, real_var

__all__ = ["Codes", "codes_from_model", "default_code", "domain_constraint", "interesting_codes", "variable", "variables"]

Codes = dict[sympy.Symbol, Any]


def variable(name: str, domain: Domain) -> Any:
    """The z3 variable of a field or output variable: Real for rational domains, Int otherwise."""
    return real_var(name) if domain.sort == "real" else int_var(name)


def variables(prefix: str, space: RecordSchema | OutputSpace) -> dict[sympy.Symbol, Any]:
    """One z3 variable per symbol of a schema or output space, named ``prefix + name``."""
    return {sym: variable(f"{prefix}{name}", domain) for name, sym, domain in space.items()}


def _progressions(points: tuple[Fraction, ...]) -> list[tuple[Fraction, Fraction, int]]:
    """Sorted points as maximal arithmetic runs ``(start, step, count)``."""
    runs: list[tuple[Fraction, Fraction, int]] = []
    index = 0
    while index < len(points):
        start = points[index]
        if index + 1 == len(points):
            runs.append((start, Fraction(0), 1))
            break
        step = points[index + 1] - start
        end = index + 1
        while end + 1 < len(points) and points[end + 1] - points[end] == step:
            end += 1
        runs.append((start, step, end - index + 1))
        index = end + 1
    return runs


def domain_constraint(var: Any, domain: Domain) -> Any:
    """What the solver may assume about ``var``: exactly the domain's codes.

    A ``Grid`` is written as arithmetic progressions over an integer index
    (``var = start + step·k``, ``0 <= k < count``), so an evenly spaced grid of
    any size is one small constraint.
    """
    if isinstance(domain, Grid):
        parts: list[Any] = []
        for number, (start, step, count) in enumerate(_progressions(domain.points)):
            if count <= 2:
                parts.extend(var == q(start + i * step) for i in range(count))
            else:
                k = int_var(f"{var}_k{number}")
                parts.append(z3.And(var == q(start) + q(step) * k, k >= 0, k <= count - 1))
        return parts[0] if len(parts) == 1 else z3.Or(*parts)
    if isinstance(domain, Booleans):
        return z3.And(var >= 0, var <= 1)
    if isinstance(domain, Categories):
        return z3.And(var >= 0, var <= len(domain.labels) - 1)
    lo, hi = domain.bounds()
    bounds: list[Any] = []
    if lo is not None:
        bounds.append(var >= q(lo))
    if hi is not None:
        bounds.append(var <= q(hi))
    return z3.And(*bounds) if bounds else bool_val(True)


def default_code(domain: Domain) -> Any:
    """A code inside ``domain``: its first code if finite, else a bound, else 0."""
    if domain.is_finite and not isinstance(domain, IntRange):
        return domain.codes()[0]
    lo, hi = domain.bounds()
    value = lo if lo is not None else (hi if hi is not None else Fraction(0))
    return int(value) if domain.sort == "int" else Fraction(value)


def _inside(domain: Domain, code: Any) -> Any | None:
    """``code`` normalised to the domain's sort if it lies inside the domain, else None."""
    if isinstance(code, bool):
        code = int(code)
    try:
        value = Fraction(code)
    except (TypeError, ValueError):
        return None
    if domain.sort == "int":
        if value.denominator != 1:
            return None
        code = int(value)
    else:
        code = value
    try:
        again = domain.encode(domain.decode(code), name="code")
    except (InvalidArgument, IndexError, KeyError, TypeError, ValueError):
        return None
    return code if again == code else None


def codes_from_model(model: Mapping[str, Any], prefix: str, space: RecordSchema | OutputSpace) -> Codes | None:
    """The codes a solver model gives the symbols of ``space`` (variables named ``prefix + name``).

    An unset variable gets :func:`default_code`; None if any value lies outside its domain.
    """
    codes: Codes = {}
    for name, sym, domain in space.items():
        key = f"{prefix}{name}"
        code = _inside(domain, model[key]) if key in model else default_code(domain)
        if code is None:
            return None
        codes[sym] = code
    return codes


def interesting_codes(domain: Domain, seeds: Iterable[Any] = (), *, limit: int = 12, constants: Iterable[Any] = ()) -> list[Any]:
    """A few codes of ``domain`` worth trying: the seeds and their neighbours, the ends, 0, a midpoint.

    Every code returned lies inside the domain; at most ``limit`` of them, seeds first.  An
    integer range is never listed: its codes are computed from its ends.  Past
    :data:`~expmech.spec.SMALL_DOMAIN` values it also offers ``constants`` (the
    expression's constants) and their neighbours ±1, and two random codes from a
    generator seeded by the domain's text (so a re-derivation finds the same ones).
    """
    found: list[Any] = []

    def add(code: Any) -> None:
        inside = _inside(domain, code)
        if inside is not None and inside not in found and len(found) < limit:
            found.append(inside)

    seeds = list(seeds)
    for seed in seeds:
        add(seed)
    if isinstance(domain, IntRange) and domain.lo is not None and domain.hi is not None:
        _integer_codes(domain.lo, domain.hi, seeds, list(constants), add, room=limit - len(found))
        return found
    if domain.is_finite:
        codes = domain.codes()
        if len(codes) <= limit - len(found):
            for code in codes:
                add(code)
            return found
        positions = {code: i for i, code in enumerate(codes)}
        for seed in seeds:
            at = positions.get(_inside(domain, seed))
            if at is not None:
                for offset in (-1, 1):
                    if 0 <= at + offset < len(codes):
                        add(codes[at + offset])
        for code in (codes[0], codes[-1], codes[len(codes) // 2], codes[1], codes[-2]):
            add(code)
        return found
    lo, hi = domain.bounds()
    step: Fraction = Fraction(1) if domain.sort == "int" else Fraction(1, 2)
    for seed in seeds:
        for delta in (-step, step):
            try:
                add(Fraction(seed) + delta)
            except (TypeError, ValueError):
                continue
    for code in (lo, hi, 0, 1, -1):
        if code is not None:
            add(code)
    if lo is not None and hi is not None:
        add((lo + hi) / 2)
    return found


def _integer_codes(lo: int, hi: int, seeds: list[Any], constants: list[Any], add: Any, *, room: int) -> None:
    """:func:`interesting_codes` on ``IntRange(lo, hi)`` from its ends alone: what listing its codes would pick, and more when large."""
    count = hi - lo + 1
    if count <= room:
        for code in range(lo, hi + 1):
            add(code)
        return
    for seed in seeds:
        inside = _inside(IntRange(lo, hi), seed)
        if inside is not None:
            add(inside - 1)
            add(inside + 1)
    add(lo)
    add(hi)
    if count > SMALL_DOMAIN:
        for constant in constants:
            try:
                value = Fraction(constant)
            except (TypeError, ValueError):
                continue
            floor, ceiling = math.floor(value), math.ceil(value)
            for code in (floor, ceiling, floor - 1, ceiling + 1):
                add(code)
    add(lo + count // 2)
    add(lo + 1)
    add(hi - 1)
    if count > SMALL_DOMAIN:
        draw = random.Random(f"IntRange({lo}, {hi})")
        for _ in range(2):
            add(draw.randint(lo, hi))
