"""Exact evaluation of a recorded bound at a concrete dataset size, with no simplification.

A certificate writes a bound as sympy's text of an expression in ``n``
(``"2/(n + 1)"``, ``"Max(1, 2*n)"``, ``"Piecewise((1/2, n < 1), (1, True))"``).
:func:`parse_bound` reads that text with ``evaluate=False`` and a symbol ``n``
that carries no assumption, so nothing is rewritten on the way in, and
:func:`evaluate_at` walks the tree with Python's ``fractions``: ``n`` is
replaced by the given integer and every ``Max``, ``Min``, ``Piecewise``,
``Abs`` and comparison is *computed*, never simplified.  A division by zero
makes the value undefined at that ``n`` (``None``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import sympy
from sympy.parsing.sympy_parser import parse_expr

from expmech.spec import InvalidArgument

__all__ = ["Undecided", "Undefined", "evaluate", "evaluate_at", "exp_interval", "exp_sum_sign", "parse_bound"]

#: The symbol a bound is read with: no assumption, so no case is removed while reading.
N = sympy.Symbol("n")

_TEXT = re.compile(r"[0-9A-Za-z_+\-*/()., <>=!&|~]*")
_NAMES = {"n", "Max", "Min", "Abs", "Piecewise", "True", "False", "And", "Or", "Not", "Eq", "Ne", "oo"}


class Undefined(ArithmeticError):
    """The expression has no value at this point (a division by zero, or no branch of a ``Piecewise`` applies)."""


def parse_bound(text: str, *, symbols: Mapping[str, sympy.Symbol] | None = None) -> sympy.Basic:
    """The expression tree of ``text`` as written (``evaluate=False``), in ``n`` (and ``symbols``) without assumptions.

    Only the names of the language of bounds are accepted (``n``, ``Max``,
    ``Min``, ``Abs``, ``Piecewise``, comparisons, ``And``/``Or``/``Not``, the
    names in ``symbols``); anything else raises :class:`InvalidArgument`
    naming it, so no text reaches sympy's parser that could do more than
    build a tree.
    """
    local = {"n": N, **(symbols or {})}
    if not isinstance(text, str) or not _TEXT.fullmatch(text):
        raise InvalidArgument(f"bound={text!r} is not the text of an expression in n", parameter="bound", value=text)
    for name in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text):
        if name not in _NAMES and name not in local:
            raise InvalidArgument(f"bound={text!r} uses {name!r}, outside the language of bounds", parameter="bound", value=text)
    try:
        return parse_expr(text, local_dict=dict(local), evaluate=False)
    except Exception as error:  # noqa: BLE001 - a text sympy cannot read is a malformed bound
        raise InvalidArgument(f"bound={text!r} cannot be read: {error}", parameter="bound", value=text) from None


def evaluate_at(expr: sympy.Basic, size: int) -> Fraction | None:
    """``expr`` at ``n = size``, exactly; ``None`` where it is undefined there."""
    try:
        value = evaluate(expr, {N: Fraction(size)})
    except Undefined:
        return None
    if isinstance(value, bool):
        raise InvalidArgument(f"bound {expr} is a condition, not a number", parameter="bound", value=str(expr))
    return value


def evaluate(expr: sympy.Basic, env: Mapping[sympy.Symbol, Fraction]) -> Any:
    """The exact value (``Fraction`` or ``bool``) of ``expr`` with its symbols read from ``env``.

    Raises :class:`Undefined` for a division by zero or a ``Piecewise`` with
    no applicable branch, and :class:`InvalidArgument` for a node outside the
    language (``oo``, ``log``, an unknown symbol).
    """
    if isinstance(expr, sympy.Symbol):
        if expr not in env:
            raise InvalidArgument(f"symbol {expr} has no value", parameter="bound", value=str(expr))
        return env[expr]
    if isinstance(expr, sympy.Rational):
        return Fraction(int(expr.p), int(expr.q))
    if expr is sympy.true:
        return True
    if expr is sympy.false:
        return False
    if isinstance(expr, sympy.Piecewise):
        for pair in expr.args:
            if evaluate(pair.cond, env):
                return evaluate(pair.expr, env)
        raise Undefined(f"no branch of {expr} applies")
    if isinstance(expr, sympy.Pow):
        base, exponent = evaluate(expr.base, env), evaluate(expr.exp, env)
        if not isinstance(exponent, Fraction) or exponent.denominator != 1:
            raise InvalidArgument(f"power {expr} needs an integer exponent", parameter="bound", value=str(expr))
        if base == 0 and exponent < 0:
            raise Undefined(f"division by zero in {expr}")
        return Fraction(base) ** int(exponent)
    values = [evaluate(arg, env) for arg in expr.args]
    if isinstance(expr, sympy.Add):
        return sum(values, Fraction(0))
    if isinstance(expr, sympy.Mul):
        product = Fraction(1)
        for value in values:
            product *= value
        return product
    if isinstance(expr, sympy.Max):
        return max(values)
    if isinstance(expr, sympy.Min):
        return min(values)
    if isinstance(expr, sympy.Abs):
        return abs(values[0])
    relations = {
        sympy.Eq: lambda a, b: a == b,
        sympy.Ne: lambda a, b: a != b,
        sympy.Lt: lambda a, b: a < b,
        sympy.Le: lambda a, b: a <= b,
        sympy.Gt: lambda a, b: a > b,
        sympy.Ge: lambda a, b: a >= b,
    }
    for kind, test in relations.items():
        if isinstance(expr, kind):
            return test(values[0], values[1])
    if isinstance(expr, sympy.And):
        return all(values)
    if isinstance(expr, sympy.Or):
        return any(values)
    if isinstance(expr, sympy.Not):
        return not values[0]
    raise InvalidArgument(f"cannot evaluate {type(expr).__name__} ({expr}) exactly", parameter="bound", value=str(expr))


# -- the sign of a sum of exponentials ------------------------------------------------------------

#: The precision (bits) at which the sign of a sum of exponentials is first tried, and the most it is refined to.
FIRST_BITS = 64
LAST_BITS = 1 << 14


class Undecided(ArithmeticError):
    """The sign of a sum of exponentials was not settled within :data:`LAST_BITS` bits."""


def _outward(value: Fraction, bits: int, up: bool) -> Fraction:
    scaled = value * (1 << bits)
    whole = -((-scaled.numerator) // scaled.denominator) if up else scaled.numerator // scaled.denominator
    return Fraction(whole, 1 << bits)


@functools.lru_cache(maxsize=4096)
def exp_interval(x: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= e^x <= hi`` with ``hi − lo`` about ``e^x · 2^-bits``: Taylor series with its remainder, by ``fractions``."""
    if x < 0:  # 1/e^{-x}: a relative error, however small e^x is
        lo, hi = exp_interval(-x, bits)
        return 1 / hi, 1 / lo
    halvings = 0
    while abs(x) > Fraction(1, 2) * (1 << halvings):
        halvings += 1
    y = x / (1 << halvings)
    work = bits + 2 * halvings + 16
    total, term, k = Fraction(0), Fraction(1), 0
    while True:  # e^y = Σ y^k/k!, and for |y| <= 1/2 the tail after term k is at most 2·|term k|
        total += term
        k += 1
        term = term * y / k
        if abs(term) * (1 << work) < 1:
            break
    error = 2 * abs(term)
    lo, hi = _outward(total - error, work, False), _outward(total + error, work, True)
    for _ in range(halvings):
        lo, hi = _outward(lo * lo, work, False), _outward(hi * hi, work, True)
    return lo, hi


def exp_sum_sign(terms: Mapping[Fraction, Fraction]) -> int:
    """The sign of ``Σ c·e^b`` over ``{b: c}`` (rational ``b`` and ``c``), exactly.

    Equal exponents are merged by the mapping itself; with every coefficient
    zero the sum is 0, otherwise it is not (Lindemann–Weierstrass) and
    enclosures at doubling precision settle its sign.  Raises
    :class:`Undecided` past :data:`LAST_BITS` bits.
    """
    live = {b: c for b, c in terms.items() if c != 0}
    if not live:
        return 0
    bits = FIRST_BITS
    while bits <= LAST_BITS:
        lower = upper = Fraction(0)
        for exponent, coefficient in live.items():
            lo, hi = exp_interval(exponent, bits)
            lower += coefficient * (lo if coefficient > 0 else hi)
            upper += coefficient * (hi if coefficient > 0 else lo)
        if lower > 0:
            return 1
        if upper < 0:
            return -1
        bits *= 2
    raise Undecided(f"the sign of a sum of {len(live)} exponentials is not settled at {LAST_BITS} bits")
