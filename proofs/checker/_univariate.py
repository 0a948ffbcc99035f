"""Side conditions in n alone, decided exactly: each term is a rational function of n on each ``ite`` branch, and
beyond a bound M on the real roots of every polynomial whose sign matters no sign changes, so checking each
size from the first to ``M + 1`` (at least the first) decides every size.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ._formula import Obligation, holds
from ._numbers import TooLarge, add, mul

__all__ = ["MAX_SIZES", "decide_univariate", "poly_mul", "rational_forms"]

MAX_SIZES = 100_000  # sizes checked one by one
MAX_BRANCHES = 256
MAX_DEGREE = 64
Poly = tuple[Fraction, ...]  # coefficients, lowest degree first, no trailing zeros


def _trim(p: list[Fraction]) -> Poly:
    while p and p[-1] == 0:
        p.pop()
    return tuple(p)


def _add(p: Poly, q: Poly) -> Poly:
    out = [Fraction(0)] * max(len(p), len(q))
    for i, a in enumerate(p):
        out[i] = a
    for i, a in enumerate(q):
        out[i] = add(out[i], a)
    return _trim(out)


def poly_mul(p: Poly, q: Poly) -> Poly:
    if not p or not q:
        return ()
    if len(p) + len(q) - 2 > MAX_DEGREE:
        raise TooLarge(f"a polynomial in n of degree above {MAX_DEGREE}")
    out = [Fraction(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            out[i + j] = add(out[i + j], mul(a, b))
    return _trim(out)


def rational_forms(term: tuple[Any, ...], signs: list[Poly]) -> list[tuple[Poly, Poly]]:
    """The term's rational functions ``P/Q``, one per branch; every polynomial whose sign matters joins ``signs``."""
    tag = term[0]
    if tag == "k":
        return [(_trim([term[1]]), (Fraction(1),))]
    if tag == "v":
        return [((Fraction(0), Fraction(1)), (Fraction(1),))]
    if tag == "ite":
        _conditions(term[1], signs)
        found = rational_forms(term[2], signs) + rational_forms(term[3], signs)
    elif tag == "inv":
        found = []
        for p, q in rational_forms(term[1], signs):
            signs.append(p)
            if p:
                found.append((q, p))
    elif tag not in ("+", "*"):
        raise TooLarge(f"a {tag} is not a rational function of n")  # floor(n/2): no sign settles past a root bound
    else:
        found = [((Fraction(0 if tag == "+" else 1),), (Fraction(1),))]
        for part in term[1:]:
            found = [(_add(poly_mul(p, s), poly_mul(r, q)), poly_mul(q, s)) if tag == "+" else (poly_mul(p, r), poly_mul(q, s))
                     for p, q in found for r, s in rational_forms(part, signs)]
            if len(found) > MAX_BRANCHES:
                raise TooLarge(f"more than {MAX_BRANCHES} branches")
    for p, q in found:
        signs += [p, q]
    return found


def _conditions(cond: tuple[Any, ...], signs: list[Poly]) -> None:
    if cond[0] in ("and", "or", "not"):
        for part in cond[1:]:
            _conditions(part, signs)
        return
    for p, q in rational_forms(cond[1], signs):
        for r, s in rational_forms(cond[2], signs):
            signs.append(_add(poly_mul(p, s), poly_mul((Fraction(-1),), poly_mul(r, q))))


def _no_root_above(p: Poly, b: int) -> bool:
    """Whether every coefficient of ``p(x + b)`` is 0 or of the lead's sign: then ``p(x + b)`` has the lead's sign for
    every x > 0, so ``p`` no root above b (and the same holds for every larger b)."""
    shifted: Poly = ()
    for a in reversed(p):  # Horner: p(x + b) = (…(a_d·(x + b) + a_{d−1})·(x + b) + …) + a_0
        shifted = _add(poly_mul(shifted, (Fraction(b), Fraction(1))), (a,))
    return all(a == 0 or (a > 0) == (p[-1] > 0) for a in shifted)


def _root_bound(p: Poly) -> int:
    """An integer with no real root of ``p`` above it: Cauchy's bound, or the least power of two (or MAX_SIZES) below it
    that :func:`_no_root_above` confirms."""
    if len(p) <= 1:
        return 0
    cauchy = math.ceil(1 + max(abs(a / p[-1]) for a in p[:-1]))
    if cauchy <= 2 or not _no_root_above(p, MAX_SIZES):  # none of the smaller candidates can pass
        return cauchy
    return next(min(b, cauchy) for b in (*(2**i for i in range(17)), MAX_SIZES) if b >= cauchy or _no_root_above(p, b))


def decide_univariate(obligation: Obligation) -> str | None:
    """None when the formula (over n only) is false at every size of the obligation, else why not."""
    (n,) = obligation.variables
    signs: list[Poly] = []
    try:
        _conditions(obligation.formula, signs)
        top = max((_root_bound(p) for p in set(signs)), default=0)
    except TooLarge as error:
        return f"not decided without a solver: {error}"
    start = int(n.lo) if n.lo is not None else 0
    stop = max(start, top + 1) if n.hi is None else min(int(n.hi), max(start, top + 1))  # past M, one size decides the rest
    if stop - start > MAX_SIZES:
        return f"sizes up to {stop} to check, more than {MAX_SIZES}"
    for size in range(start, stop + 1):
        try:
            if holds(obligation.formula, {n.name: Fraction(size)}):
                return f"fails at n = {size}"
        except ArithmeticError:
            return f"a division by zero at n = {size}"
        except TooLarge as error:
            return f"refused at n = {size}: {error}"
    return None
