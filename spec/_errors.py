"""The project's exception hierarchy.

Exceptions are for misuse only; proof outcomes are data (see
``expmech.proofs``).  Every exception derives from :class:`ExpMechError` and
also from the builtin that matches its meaning, so ``except ValueError`` keeps
working for callers that do not know this package.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ExpMechError",
    "InvalidArgument",
    "InvalidType",
    "PrecisionExhausted",
    "QualityError",
    "describe",
]

_MAX_REPR = 120


def describe(value: Any) -> str:
    """Return ``repr(value)`` shortened to at most 120 characters, for messages."""
    text = repr(value)
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


class InvalidType(InvalidArgument, TypeError):
    """A parameter has a type the contract does not admit."""


class QualityError(InvalidArgument):
    """A quality function raised, or returned a value that is not a finite rational.

    ``output`` is the output ``r`` at which it happened.
    """

    def __init__(self, message: str, *, output: Any = None, value: Any = None) -> None:
        super().__init__(message, parameter="quality", value=value)
        self.output = output


class PrecisionExhausted(ExpMechError, ArithmeticError):
    """Ball arithmetic reached its precision cap before settling a sign.

    The sign is still determined mathematically; expmech refuses to guess it.
    Raise the cap (``max_precision``) to go on.
    """
