"""Mathematical text for exact values: ``3·e^(1/2) − 1``, ``e^(-1/4) / (2 + e^(1/2)) ≈ 0.1748``.

Display only.  The exact form comes first; the decimal approximation beside it
is computed from a rigorous enclosure and never decides anything.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from expmech.spec import ExpMechError
from expmech.spec.internal import approximate, readable

if TYPE_CHECKING:  # pragma: no cover
    from ._exactreal import ExpRatio, LogExpRatio
    from ._expsum import ExpSum

__all__ = ["log_text", "ratio_text", "sum_text"]

_SHOWN_TERMS = 6


def _power(exponent: Fraction) -> str:
    if exponent.denominator == 1 and exponent >= 0:
        return "e" if exponent == 1 else f"e^{exponent.numerator}"
    return f"e^({readable(exponent)})"


def _term(coefficient: Fraction, exponent: Fraction) -> str:
    magnitude = abs(coefficient)
    if exponent == 0:
        return readable(magnitude)
    if magnitude == 1:
        return _power(exponent)
    return f"{readable(magnitude)}·{_power(exponent)}"


def sum_text(value: ExpSum) -> str:
    """``Σ c·e^(b)`` written largest exponent first, at most six terms then a count of the rest."""
    terms = sorted(value.terms, key=lambda term: term[1], reverse=True)
    if not terms:
        return "0"
    shown = terms[:_SHOWN_TERMS]
    text = ("−" if shown[0][0] < 0 else "") + _term(*shown[0])
    for coefficient, exponent in shown[1:]:
        text += (" − " if coefficient < 0 else " + ") + _term(coefficient, exponent)
    if len(terms) > _SHOWN_TERMS:
        text += f" + … ({len(terms) - _SHOWN_TERMS} more terms)"
    return text


def _grouped(value: ExpSum, *, divisor: bool = False) -> str:
    text = sum_text(value)
    bare = len(value.terms) <= 1 and not text.startswith("−") and not (divisor and ("·" in text or "/" in text))
    return text if bare else f"({text})"


def _with_approximation(exact: str, value: ExpRatio | LogExpRatio) -> str:
    """``exact ≈ x``, x the midpoint of a rigorous enclosure of relative width 2⁻²⁴."""
    try:
        lo, hi = value.enclose(24)
    except ExpMechError:  # pragma: no cover - an enclosure beyond the precision cap
        return exact
    return f"{exact} ≈ {approximate((lo + hi) / 2)}"


def ratio_text(value: ExpRatio) -> str:
    """``N / D ≈ x``; a rational value is written exactly, without an approximation."""
    top, bottom = value.numerator.terms, value.denominator.terms
    if not top:
        return "0"
    if len(top) == 1 and len(bottom) == 1:
        (c1, b1), (c2, b2) = top[0], bottom[0]
        if b1 == b2:
            return readable(c1 / c2)
        exact = ("−" if c1 / c2 < 0 else "") + _term(c1 / c2, b1 - b2)
    else:
        exact = f"{_grouped(value.numerator)} / {_grouped(value.denominator, divisor=True)}"
    return _with_approximation(exact, value)


def log_text(value: LogExpRatio) -> str:
    """``ln(N / D) ≈ x``; exactly ``b + ln(c)`` (or a rational ``b``) when N and D are single terms."""
    if value.numerator == value.denominator:
        return "0"
    numerator, denominator = value.numerator.terms, value.denominator.terms
    if len(numerator) == 1 and len(denominator) == 1:
        (c1, b1), (c2, b2) = numerator[0], denominator[0]
        shift, factor = b1 - b2, c1 / c2
        if factor == 1:
            return readable(shift)
        log = f"ln({readable(factor)})"
        exact = log if shift == 0 else f"{readable(shift)} + {log}"
    else:
        exact = f"ln({_grouped(value.numerator)} / {_grouped(value.denominator, divisor=True)})"
    return _with_approximation(exact, value)
