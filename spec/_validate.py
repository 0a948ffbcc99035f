"""Exact conversion and validation of user-supplied numbers.

Every number that enters expmech from outside passes through
:func:`as_rational`, which converts exactly (a float becomes the rational it
represents) and rejects NaN, infinities, booleans and non-numbers with an error
that names the parameter and its value.
"""

from __future__ import annotations

import decimal
import math
import numbers
import re
import sys
import warnings
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ._errors import InexactFloatWarning, InvalidArgument, InvalidType, describe

__all__ = [
    "RATIONAL_FORMS",
    "Refusal",
    "as_rational",
    "float_warning",
    "nonnegative_rational",
    "positive_rational",
    "positive_rational_input",
    "rational_input",
    "read_rational",
]

#: How a rational may be written, for messages.
RATIONAL_FORMS = '"p/q" (e.g. "1/10"), a decimal string ("0.25"), an int, a Fraction or a Decimal'

_RATIO = re.compile(r"[+-]?\d+(/\d+)?")
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INT_DIGITS = 4300  # Python's own limit on int <-> str conversions


def as_rational(value: Any, *, name: str) -> Fraction:
    """Convert ``value`` exactly to a :class:`~fractions.Fraction`.

    Accepts ``int``, ``Fraction`` and any :class:`numbers.Rational` (numpy and
    sympy integers and rationals included), finite ``float`` and
    ``decimal.Decimal`` (converted exactly, with no rounding), and finite
    numpy floating scalars.  Raises :class:`InvalidType` for ``bool`` and
    non-numbers, :class:`InvalidArgument` for NaN and infinities; both name
    ``name`` and the value.
    """
    if isinstance(value, bool):
        raise InvalidType(
            f"{name}={describe(value)} must be a rational number, not bool",
            parameter=name,
            value=value,
        )
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    sympy_value = _from_sympy(value)
    if sympy_value is not None:
        return sympy_value
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, float | decimal.Decimal) or _is_numpy_float(value):
        if isinstance(value, decimal.Decimal):
            finite = value.is_finite()
        else:
            finite = math.isfinite(float(value))
        if not finite:
            raise InvalidArgument(
                f"{name}={describe(value)} must be finite", parameter=name, value=value
            )
        return Fraction(value if isinstance(value, decimal.Decimal) else float(value))
    raise InvalidType(
        f"{name}={describe(value)} must be a rational number "
        f"(int, Fraction, finite float or Decimal), not {type(value).__name__}",
        parameter=name,
        value=value,
    )


def positive_rational(value: Any, *, name: str) -> Fraction:
    """Convert ``value`` exactly (see :func:`as_rational`) and require it to be > 0."""
    result = as_rational(value, name=name)
    if result <= 0:
        raise InvalidArgument(f"{name}={describe(value)} must be > 0", parameter=name, value=value)
    return result


def nonnegative_rational(value: Any, *, name: str) -> Fraction:
    """Convert ``value`` exactly (see :func:`as_rational`) and require it to be >= 0."""
    result = as_rational(value, name=name)
    if result < 0:
        raise InvalidArgument(f"{name}={describe(value)} must be >= 0", parameter=name, value=value)
    return result


def _is_numpy_float(value: Any) -> bool:
    module = type(value).__module__
    return module == "numpy" and hasattr(value, "dtype") and value.dtype.kind == "f"


def _from_sympy(value: Any) -> Fraction | None:
    module = type(value).__module__ or ""
    if not module.startswith("sympy"):
        return None
    if getattr(value, "is_Rational", False):
        return Fraction(int(value.p), int(value.q))
    return None


@dataclass(frozen=True)
class Refusal:
    """Why a value is not a rational: ``problem`` completes ``name=value …``; ``wrong_type`` for a non-number."""

    problem: str
    wrong_type: bool = False


def read_rational(value: Any, *, max_digits: int | None = None) -> Fraction | Refusal:
    """The exact rational a user wrote, or why it is not one (never raises for a bad value).

    One reader for the API and the command line: ``"p/q"``, ``"p"`` and decimal
    strings (``"0.25"``, ``"1e-3"``, converted exactly), ``int``, ``Fraction``,
    ``Decimal``, numpy and sympy rationals, and finite floats (their exact binary
    value; see :func:`float_warning`).  ``max_digits`` bounds the digits of a
    string, a Decimal's exponent and the result's numerator and denominator
    (default: Python's 4300-digit limit on int conversions for strings and
    Decimals, and no bound on numbers given exactly); NaN, infinities,
    booleans, ``None`` and other types are refused.
    """
    limit = _INT_DIGITS if max_digits is None else max_digits
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 2 * limit + 8:
            return Refusal(f"has more than {limit} digits")
        if not (_RATIO.fullmatch(text) or _DECIMAL.fullmatch(text)):
            return Refusal(f"must be a rational written {RATIONAL_FORMS}")
        if "/" in text:
            top, bottom = text.split("/")
            if len(top.lstrip("+-")) > limit or len(bottom) > limit:
                return Refusal(f"has more than {limit} digits")
            if int(bottom) == 0:
                return Refusal("has a zero denominator")
            return _within(Fraction(int(top), int(bottom)), max_digits)
        value = decimal.Decimal(text)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            return Refusal("must be finite")
        if abs(value.adjusted()) > limit or len(value.as_tuple().digits) > limit:
            return Refusal(f"has more than {limit} digits")
        return _within(Fraction(value), max_digits)
    if value is None or isinstance(value, str | bytes):
        return Refusal(f"must be a rational number, not {type(value).__name__}: write {RATIONAL_FORMS}", wrong_type=True)
    try:
        result = as_rational(value, name="value")
    except InvalidType:
        return Refusal(f"must be a rational number, not {type(value).__name__}: write {RATIONAL_FORMS}", wrong_type=True)
    except InvalidArgument:
        return Refusal("must be finite")
    return _within(result, max_digits)


def _within(result: Fraction, max_digits: int | None) -> Fraction | Refusal:
    if max_digits is not None and max(abs(result.numerator), result.denominator) >= 10**max_digits:  # no str(): past 4300 digits it raises
        return Refusal(f"has more than {max_digits} digits")
    return result


def float_warning(value: float, *, name: str) -> str | None:
    """The warning for a float whose exact binary value is not the decimal it prints as, else None.

    ``float_warning(0.1, name="epsilon")`` names ``3602879701896397/36028797018963968``
    and suggests ``"1/10"``; ``0.25`` (exactly 1/4) gives None.
    """
    exact = Fraction(float(value))
    written = repr(float(value))
    meant = Fraction(written)
    if meant == exact:
        return None
    suggestion = f"{meant.numerator}/{meant.denominator}" if meant.denominator != 1 else str(meant.numerator)
    if len(suggestion) > 40:
        suggestion = written
    return (
        f"{name}={written} is the binary value {exact.numerator}/{exact.denominator}, which is what is used; "
        f'pass "{suggestion}" for the decimal {written}'
    )


def rational_input(value: Any, *, name: str, max_digits: int | None = None) -> Fraction:
    """``value`` as an exact Fraction, read as the command line reads it (:func:`read_rational`).

    A float is accepted as its exact binary value, with an :class:`~expmech.spec.InexactFloatWarning`
    naming that value and the decimal it prints as when they differ (``0.1``).  A bad value raises
    :class:`InvalidType` (not a number) or :class:`InvalidArgument`, naming ``name`` and the value.
    """
    result = read_rational(value, max_digits=max_digits)
    if isinstance(result, Refusal):
        error = InvalidType if result.wrong_type else InvalidArgument
        raise error(f"{name}={describe(value)} {result.problem}", parameter=name, value=value)
    if isinstance(value, float) or _is_numpy_float(value):
        message = float_warning(float(value), name=name)
        if message is not None:
            warnings.warn(message, InexactFloatWarning, stacklevel=_caller_level())
    return result


def positive_rational_input(value: Any, *, name: str, max_digits: int | None = None) -> Fraction:
    """:func:`rational_input`, required to be > 0 (ε, and every other parameter that must be positive)."""
    result = rational_input(value, name=name, max_digits=max_digits)
    if result <= 0:
        raise InvalidArgument(f"{name}={describe(value)} must be > 0", parameter=name, value=value)
    return result


_PACKAGE = Path(__file__).resolve().parent.parent  # spec/, impl/ and proofs/ are its folders, in a checkout and a wheel
_LAYERS = tuple(str(_PACKAGE / layer) for layer in ("spec", "impl", "proofs"))


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside expmech's layers, so a warning names the user's line."""
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_LAYERS):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    return level
