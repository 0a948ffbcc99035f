"""Exact rationals with every step bounded before it runs, and ``e^x`` compared with a rational.

Each operation predicts its result's bits and refuses (:class:`TooLarge`) past :data:`MAX_BITS` before computing.
:func:`exp_compare` decides the sign of ``e^x − y`` by rigorous fixed-point enclosures at rising precision, None when
:data:`MAX_PRECISION` bits do not settle it (``e^x`` is irrational for rational ``x != 0``: only a near tie is left).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

__all__ = ["MAX_BITS", "TooLarge", "add", "bits", "exp_compare", "mul", "power", "rational", "render_rational"]

MAX_BITS = 32_768
MAX_PRECISION = 4_096
_RATIONAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?")


class TooLarge(ValueError):
    """A value past the verifier's bit limit (or a text that is not a rational), refused before the work."""


def bits(q: Fraction) -> int:
    """The larger bit length of ``q``'s numerator and denominator."""
    return max(q.numerator.bit_length(), q.denominator.bit_length())


def _guard(size: int) -> None:
    if size > MAX_BITS:
        raise TooLarge(f"a value of more than {MAX_BITS} bits")


def add(a: Fraction, b: Fraction) -> Fraction:
    """``a + b``, refused when it could pass :data:`MAX_BITS`."""
    da, db = a.denominator.bit_length(), b.denominator.bit_length()
    _guard(max(da + db, a.numerator.bit_length() + db + 1, b.numerator.bit_length() + da + 1))
    return a + b


def mul(a: Fraction, b: Fraction) -> Fraction:
    """``a · b``, refused when it could pass :data:`MAX_BITS`."""
    _guard(max(a.numerator.bit_length() + b.numerator.bit_length(), a.denominator.bit_length() + b.denominator.bit_length()))
    return a * b


def power(a: Fraction, k: int) -> Fraction:
    """``a ** k`` for an int ``k`` (ZeroDivisionError for ``0 ** -k``), refused when it could pass :data:`MAX_BITS`."""
    _guard(bits(a) * abs(k))
    return a**k


def rational(text: Any, what: str = "value") -> Fraction:
    """The rational written ``"p/q"`` or ``"-p"`` (lowest terms not required); TooLarge naming ``what`` otherwise."""
    if not isinstance(text, str) or len(text) > MAX_BITS // 3 or not _RATIONAL.fullmatch(text):
        raise TooLarge(f"{what} {str(text)[:40]!r} is not a rational p/q")
    try:
        return Fraction(text)
    except ValueError:  # a part past Python's int_max_str_digits (4,300 by default), below MAX_BITS // 3 characters
        raise TooLarge(f"{what} {text[:40]!r}… has more digits than this Python converts (sys.get_int_max_str_digits())") from None


def render_rational(q: Fraction) -> str:
    """``"p/q"``, or ``"p"`` for an integer."""
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _exp_scaled(x: Fraction, prec: int) -> tuple[int, int]:
    """Integers ``lo, hi`` with ``lo <= e^x · 2^prec <= hi``, for ``0 <= x`` (already bounded by the caller)."""
    halvings = 0
    while x > Fraction(1, 2) * 2**halvings:
        halvings += 1
    work = prec + halvings + 16
    scale = 1 << work
    y_lo = (x.numerator * scale) // (x.denominator << halvings)
    y_hi = -((-x.numerator * scale) // (x.denominator << halvings))
    term = lo = scale
    steps = 0
    while term:  # floors: every partial sum is below e^y
        steps += 1
        term = (term * y_lo) // (steps * scale)
        lo += term
    term = hi = scale
    for k in range(1, steps + 3):  # ceilings: each term above the true one
        term = -((-term * y_hi) // (k * scale))
        hi += term
    hi += term + 1  # the tail past the last term is below it (y <= 1/2)
    totals = [lo, hi]
    lo, hi = totals
    for _ in range(halvings):
        lo, hi = (lo * lo) >> work, -((-hi * hi) >> work)
    shift = work - prec
    return lo >> shift, -((-hi) >> shift)


def exp_compare(x: Fraction, y: Fraction) -> int | None:
    """The sign of ``e^x − y`` (1, 0 or −1), or None when :data:`MAX_PRECISION` bits do not decide it."""
    _guard(bits(x))
    _guard(bits(y))
    if y <= 0:
        return 1
    if x == 0:
        return (1 > y) - (1 < y)
    if x < 0:  # e^x − y has the sign of (1/y) − e^{−x}
        inverse = exp_compare(-x, 1 / y)
        return None if inverse is None else -inverse
    if y <= 1:
        return 1
    length = (y.numerator // y.denominator + 1).bit_length()  # y < 2^length
    if x >= length:
        return 1  # e^x > 2^x >= 2^length > y
    prec = 64
    while prec <= MAX_PRECISION:
        lo, hi = _exp_scaled(x, prec)
        scaled = y * (1 << prec)
        if scaled < lo:
            return 1
        if scaled > hi:
            return -1
        prec *= 4
    return None
