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
from fractions import Fraction
from typing import Any

from ._errors import InvalidArgument, InvalidType, describe

__all__ = [
    "as_rational",
    "nonnegative_rational",
    "positive_rational",
]


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
