"""Values given to the command line or the configuration: parsed exactly, refused by name.

Every refusal is a :class:`UsageError` (exit code 2) whose one-line message
names the parameter and its value as the user wrote it.
"""

from __future__ import annotations

import difflib
import json
import re
import warnings
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from expmech.spec import ExpMechError, InexactFloatWarning, InvalidArgument, Neighbours
from expmech.spec.internal import Refusal, float_warning, read_rational, readable


if TYPE_CHECKING:
    import sympy

__all__ = ["MAX_DIGITS", "UsageError", "parse_claim", "parse_epsilon", "parse_neighbours", "parse_rational", "shown"]

MAX_DIGITS = 100
_RATIO = re.compile(r"[+-]?\d+(/\d+)?")
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class UsageError(InvalidArgument):
    """A target, option or configuration value that cannot be used (exit code 2)."""


def shown(value: Any, limit: int = 80) -> str:
    """``value`` as the user wrote it: TOML/JSON style for strings, booleans and decimals; rationals as ``1/2``.

    Total: whatever the value's own methods do (``__iter__``, ``items``,
    ``__repr__`` raising, a list that contains itself), the result is a string
    of at most ``limit`` characters; a container is read only as far as the
    limit needs.
    """
    try:
        text = _shown(value, limit)
    except Exception:  # noqa: BLE001 - a message about a value must never fail on the value itself
        text = f"<{type(value).__qualname__} object>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _joined(parts: Iterable[str], limit: int) -> str:
    """``", ".join(parts)``, stopped once it is longer than ``limit``."""
    text = ""
    for index, part in enumerate(parts):
        text += (", " if index else "") + part
        if len(text) > limit:
            break
    return text


def _shown(value: Any, limit: int) -> str:
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, Decimal):
        text = {"NaN": "nan", "sNaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(str(value), str(value).replace("E", "e"))
    elif isinstance(value, list):
        text = "[" + _joined((shown(v, limit) for v in value), limit) + "]"
    elif isinstance(value, dict):
        text = "{ " + _joined((f"{k} = {shown(v, limit)}" for k, v in value.items()), limit) + " }"
    else:
        text = readable(value)
    return text


def _refuse(where: str, name: str, value: Any, problem: str) -> UsageError:
    prefix = f"{where}: " if where else ""
    return UsageError(f"{prefix}{name}={shown(value)} {problem}", parameter=name, value=value)


def parse_rational(value: Any, *, name: str, where: str, max_digits: int | None = MAX_DIGITS) -> Fraction:
    """An exact rational from ``"p/q"``, ``"p"``, a decimal string, an int, a TOML decimal or any exact number.

    Read by :func:`expmech.spec.internal.read_rational`, as the Python API reads ε:
    decimals are converted exactly (``0.1`` is ``1/10``); NaN, infinities,
    booleans and more than ``max_digits`` digits (100; ``None``: Python's 4300 for
    text, as a δ of ``1/10^400`` needs) are refused.  A float (from a mechanism
    dict in Python) is its exact binary value, with the API's warning.
    """
    result = read_rational(value, max_digits=max_digits)
    if isinstance(result, Refusal):
        raise _refuse(where, name, value, result.problem)
    if isinstance(value, float):
        message = float_warning(value, name=name)
        if message is not None:
            warnings.warn(f"{where}: {message}" if where else message, InexactFloatWarning, stacklevel=2)
    return result


def parse_epsilon(value: Any, *, name: str, where: str) -> Fraction:
    """ε₀: an exact rational > 0 (see :func:`parse_rational`)."""
    result = parse_rational(value, name=name, where=where)
    if result <= 0:
        raise _refuse(where, name, value, "must be > 0")
    return result


def parse_neighbours(value: Any, *, name: str, where: str) -> Neighbours:
    """The neighbour relation, by name or as :class:`~expmech.spec.Neighbours`, with a "did you mean"."""
    if isinstance(value, Neighbours):
        return value
    choices = [relation.value for relation in Neighbours]
    if isinstance(value, str) and value in choices:
        return Neighbours(value)
    close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6) if isinstance(value, str) else []
    hint = f"; did you mean {json.dumps(close[0])}?" if close else ""
    raise _refuse(where, name, value, f"must be {' or '.join(json.dumps(c) for c in choices)}{hint}")


_LOG_CLAIM = re.compile(r"(\s*([0-9]+|log|[-+*/()])\s*)+")


def parse_claim(value: Any, *, name: str, where: str, likelihood: bool = False) -> sympy.Expr | None:
    """The claimed Δq: None, an exact rational >= 0, or an expression in ``n`` such as ``"1/n"``.

    For a log-likelihood quality (``likelihood=True``) it is ``c0 + Σ c_i·log(ρ_i)``, such as ``"log(9)"``.
    """
    if value is None:
        return None
    import sympy  # sympy and the prover load only here: ``account`` and ``check`` parse no claim

    from ..prover._claims import parse_claim as parse_sensitivity_claim
    from ..prover._likelihood import parse_log_claim

    written = value
    if not isinstance(value, str | sympy.Basic):
        value = parse_rational(value, name=name, where=where)
    elif isinstance(value, str) and (_RATIO.fullmatch(value.strip()) or _DECIMAL.fullmatch(value.strip())):
        value = parse_rational(value, name=name, where=where)
    if isinstance(value, sympy.Basic) and any(max(abs(int(atom.p)), int(atom.q)) >= 10**MAX_DIGITS for atom in value.atoms(sympy.Rational)):
        raise _refuse(where, name, written, f"has a number of more than {MAX_DIGITS} digits")
    try:
        if not likelihood:
            return parse_sensitivity_claim(value)
        if isinstance(value, str):
            if len(value) > 200 or "**" in value or not _LOG_CLAIM.fullmatch(value):
                raise InvalidArgument("must be written with integers, log( ), + - * / and parentheses", parameter=name, value=value)
            try:
                value = sympy.sympify(value, locals={"log": sympy.log})
            except (sympy.SympifyError, SyntaxError, TypeError, ValueError, ZeroDivisionError):
                raise InvalidArgument("is not an expression in log( )", parameter=name, value=value) from None
        return parse_log_claim(value)
    except ExpMechError as error:
        message = str(error)
        problem = message.split(" ", 1)[1] if message.startswith("claimed=") else message
        raise _refuse(where, name, written, problem) from None
