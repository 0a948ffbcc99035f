"""The project's exception hierarchy.

Exceptions are for misuse only; proof outcomes are data (see
``expmech.proofs``).  Every exception derives from :class:`ExpMechError` and
also from the builtin that matches its meaning, so ``except ValueError`` keeps
working for callers that do not know this package.
"""

from __future__ import annotations

import decimal
import threading
from fractions import Fraction
from typing import Any

__all__ = [
    "BudgetExceeded",
    "DivergentNormaliser",
    "ExpMechError",
    "InvalidArgument",
    "InvalidType",
    "InexactFloatWarning",
    "PrecisionExhausted",
    "QualityError",
    "TraceError",
    "approximate",
    "describe",
    "readable",
]

_MAX_REPR = 120


def readable(value: Any) -> str:
    """``value`` in mathematical form: rationals as ``-1`` and ``1/2``, never ``Fraction(-1, 1)``.

    Containers are written element by element (tuples as ``(a, b)``, lists as
    ``[a, b]``, mappings as ``{k: v}``); strings keep their quotes; anything
    else is its ``repr``.

    >>> readable((Fraction(-1), Fraction(1, 2), "r"))
    "(-1, 1/2, 'r')"
    """
    container = isinstance(value, list | tuple | dict)
    if container and id(value) in _RENDERING.ids:  # a container inside itself, written as Python writes it
        return "[...]" if isinstance(value, list) else "{...}" if isinstance(value, dict) else "(...)"
    if container:
        _RENDERING.ids.add(id(value))
    try:
        return _readable(value)
    except Exception:  # noqa: BLE001 - a message about a value must never fail on the value (its __iter__, items, __repr__, recursion)
        return f"<{type(value).__qualname__} object>"
    finally:
        if container:
            _RENDERING.ids.discard(id(value))


class _Rendering(threading.local):
    """The containers :func:`readable` is writing on this thread (to write a self-containing one once)."""

    def __init__(self) -> None:
        self.ids: set[int] = set()


_RENDERING = _Rendering()


def _readable(value: Any) -> str:
    """:func:`readable` without the guard; containers' elements go through the guarded :func:`readable`."""
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, Fraction):
        numerator, denominator = _digits(value.numerator), _digits(value.denominator)
        return numerator if value.denominator == 1 else f"{numerator}/{denominator}"
    if isinstance(value, int):
        return _digits(value)
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        inner = ", ".join(readable(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(readable(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{readable(k)}: {readable(v)}" for k, v in value.items()) + "}"
    if (type(value).__module__ or "").startswith("sympy") and getattr(value, "is_Rational", False) is True:
        return readable(Fraction(int(value.p), int(value.q)))
    return str(value) if (type(value).__module__ or "").startswith("sympy") else repr(value)


def _digits(value: int) -> str:
    """The decimal digits of an integer, also past Python's int-to-str limit (4300 digits by default)."""
    try:
        return str(int(value))
    except ValueError:
        return format(decimal.Decimal(int(value)), "f")


def approximate(value: Fraction, digits: int = 4) -> str:
    """A decimal approximation of a rational with ``digits`` significant digits, for display only.

    Works at any magnitude (no float overflow): ``approximate(Fraction(1, 3)) == "0.3333"``.
    """
    if value == 0:
        return "0"
    context = decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)
    quotient = context.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
    exponent = quotient.adjusted()
    if -5 <= exponent < digits:
        return format(quotient, "f")
    return format(quotient, "e").replace("e+", "e")


def describe(value: Any) -> str:
    """``value`` for a message: :func:`readable`, shortened to at most 120 characters."""
    text = readable(value)
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 3] + "..."
    return text


class ExpMechError(Exception):
    """Root of every exception raised by expmech."""


class InvalidArgument(ExpMechError, ValueError):
    """A parameter has a value outside its contract.

    ``parameter`` names it and ``value`` holds what was given, so a program can
    read both; the message says the same in words.
    """

    def __init__(self, message: str, *, parameter: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.value = value


class BudgetExceeded(InvalidArgument):
    """Work refused up front: it would exceed a stated budget (a domain too large to list, a run too costly).

    Raised before anything is allocated; the message names what was refused,
    the estimate and how to raise the budget.  An :class:`InvalidArgument`, so
    the command line exits 2.
    """


class InvalidType(InvalidArgument, TypeError):
    """A parameter has a type the contract does not admit."""


class QualityError(InvalidArgument):
    """A quality function raised, or returned a value that is not a finite rational.

    ``output`` is the output ``r`` at which it happened.
    """

    def __init__(self, message: str, *, output: Any = None, value: Any = None) -> None:
        super().__init__(message, parameter="quality", value=value)
        self.output = output


class InexactFloatWarning(UserWarning):
    """A float was given where an exact rational is meant: its exact binary value is used, and differs from the
    decimal it prints as (``0.1`` is ``3602879701896397/36028797018963968``).  Pass ``"1/10"`` (or ``"0.1"``,
    ``Fraction(1, 10)``) for the decimal."""


class PrecisionExhausted(ExpMechError, ArithmeticError):
    """Ball arithmetic reached its precision cap before settling a sign.

    The sign is still determined mathematically; expmech refuses to guess it.
    Raise the cap (``max_precision``) to go on.
    """


class DivergentNormaliser(InvalidArgument):
    """The normaliser ``∫ e^{ε q(d, r)} μ(dr)`` is infinite, so the mechanism is undefined.

    Raised instead of a number when the source's hypothesis ``finite-normaliser``
    (statement ``mechanism``) fails on a dataset; ``hypothesis`` names it and
    ``piece`` is the part of the range ``(lo, hi)`` (``None`` for an infinite
    end) on which the integral or series diverges.
    """

    hypothesis = "finite-normaliser"

    def __init__(self, message: str, *, piece: Any = None) -> None:
        super().__init__(message, parameter="quality", value=piece)
        self.piece = piece


class TraceError(InvalidArgument):
    """A Python quality function could not be traced into the language, or its trace is not faithful to it.

    ``construct`` names what could not be traced (``"while loop"``,
    ``"sorted(...) indexed by the data"``, ``"a mismatch with the function"``),
    ``filename`` and ``lineno`` (an ``int``) where it is in the function's source;
    the message says the same in words, as ``file:line: construct: why``.  An
    :class:`InvalidArgument` (a ``ValueError``): the function given is outside
    what :func:`expmech.spec.trace` accepts, and the command line exits 2.
    """

    def __init__(self, message: str, *, construct: str, filename: str, lineno: int, value: Any = None) -> None:
        super().__init__(message, parameter="fn", value=value)
        self.construct = construct
        self.filename = filename
        self.lineno = int(lineno)
