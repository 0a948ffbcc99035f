"""Canonical JSON (RFC 8785, JSON Canonicalization Scheme) for the data expmech writes.

:func:`canonical_bytes` is the ``rfc8785`` package's implementation, after
refusing what a certificate may not hold (long lists of safe integers, of
rows of them or of ASCII strings are written by ``json.dumps`` and spliced
in: the same bytes).  Certificates hold only objects,
arrays, strings, booleans, null and integers of magnitude below 2**53
(rationals are ``"p/q"`` strings, larger integers strings): floats are
refused, they have no place in a certificate.  For such data JCS reduces to
keys sorted by UTF-16 code units, no insignificant white space, minimal string
escapes, UTF-8 — :func:`reduced_canonical_bytes`, kept as an independent
second implementation that the tests hold equal to the first on every
certificate written.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import secrets
from typing import Any

import rfc8785

from expmech.spec import InvalidArgument
from expmech.spec.internal import describe

__all__ = ["canonical_bytes", "integer_rows", "integers", "reduced_canonical_bytes", "safe_integer_rows", "safe_integers", "sha256_hex"]

_SAFE_INTEGER = 2**53 - 1


def integers(values: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``values`` is non-empty and holds only ints (not bools), of any size."""
    return bool(values) and set(map(type, values)) == {int}


def safe_integers(values: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``values`` is non-empty and holds only ints (not bools) of magnitude ``<= 2**53 − 1``."""
    return integers(values) and -_SAFE_INTEGER <= min(values) and max(values) <= _SAFE_INTEGER


def integer_rows(rows: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``rows`` is a non-empty list (or tuple) of non-empty lists or tuples of ints only (not bools), of any
    size (where only the types matter: a strict comparison, a decoding)."""
    if not rows or not all(type(row) is list or type(row) is tuple for row in rows) or not all(rows):
        return False
    return set(map(type, itertools.chain.from_iterable(rows))) == {int}


def safe_integer_rows(rows: list[Any] | tuple[Any, ...]) -> bool:
    """Whether ``rows`` is a non-empty list (or tuple) of non-empty lists or tuples of safe ints only."""
    return integer_rows(rows) and -_SAFE_INTEGER <= min(map(min, rows)) and max(map(max, rows)) <= _SAFE_INTEGER


_TEXT = {str, bool, type(None)}


def _canonical(value: Any, path: str, blocks: set[int] | None = None) -> Any:
    """``value`` checked (only JSON data a certificate may hold) and with every object's keys sorted.

    With ``blocks``, the ids of the long lists :func:`canonical_bytes` writes by ``json.dumps`` (see
    :func:`_is_block`) are added to it, so they are checked once.
    """
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if abs(value) > _SAFE_INTEGER:
            raise InvalidArgument(f"{path}={value} is too large for canonical JSON; write it as a string", parameter=path, value=value)
        return value
    if isinstance(value, float):
        raise InvalidArgument(f"{path}={value!r} is a float; certificates hold exact values only", parameter=path, value=value)
    if isinstance(value, list):
        if set(map(type, value)) <= _TEXT:
            if blocks is not None and _is_text_block(value):
                blocks.add(id(value))
            return value
        if safe_integers(value) or safe_integer_rows(value):
            if blocks is not None and _is_block(value):
                blocks.add(id(value))
            return value  # safe integers or lists of them, checked in a few passes (e.g. a certificate's outputs)
        return [_canonical(item, f"{path}[{i}]", blocks) for i, item in enumerate(value)]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise InvalidArgument(f"{path} has a non-string key {describe(key)}", parameter=path, value=key)
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return {key: _canonical(value[key], f"{path}.{key}", blocks) for key in keys}
    raise InvalidArgument(f"{path}={describe(value)} is not JSON data", parameter=path, value=value)


#: Lists of safe integers (or of rows of them) at least this long are written without the ``rfc8785`` package.
_BLOCK = 256


def _is_block(checked: list[Any]) -> bool:
    """Whether a list already found to be safe integers or rows of them is written by ``json.dumps``: long,
    and of ints or of lists (rows given as tuples go through the package)."""
    return len(checked) >= _BLOCK and (type(checked[0]) is int or all(type(row) is list for row in checked))


def _is_text_block(checked: list[Any]) -> bool:
    """Whether a list already found to hold only strings, booleans and nulls is written by ``json.dumps``: long, and
    of ASCII strings only (a finite range's base measure: 10⁵ texts such as ``"4"``), for which ``json.dumps`` writes
    RFC 8785's escapes (``\\"``, ``\\\\``, ``\\b\\f\\n\\r\\t``, ``\\u00xx`` for other controls; DEL as is)."""
    return len(checked) >= _BLOCK and type(checked[0]) is str and all(type(item) is str for item in checked) and "".join(checked).isascii()


def canonical_bytes(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of ``value`` (by the ``rfc8785`` package); floats and huge integers are refused.

    Long lists of safe integers, or of lists of them (a certificate's outputs:
    10⁵ rows and more), and long lists of ASCII strings (its base measure),
    are written by ``json.dumps`` — for integers of magnitude below 2**53
    RFC 8785's number form is the decimal integer, and its string escapes are
    ``json.dumps``'s, so the bytes are the same — and spliced in place of a placeholder string the
    package writes for them; the placeholder holds a random token that occurs
    in no string of ``value`` (checked).  Everything else is the package's.
    """
    checked: set[int] = set()
    _canonical(value, "$", checked)  # the ids stay valid: value holds every list until this function returns
    while True:
        token = "expmech" + secrets.token_hex(16)
        blocks: list[bytes] = []
        stripped = _strip(value, token, blocks, checked)
        if stripped is not _COLLISION:
            break
    try:
        text = rfc8785.dumps(stripped)
    except (rfc8785.CanonicalizationError, UnicodeEncodeError, ValueError) as error:
        raise InvalidArgument(f"the value cannot be canonicalised: {error}", parameter="value", value=None) from None
    if not blocks:
        return text
    return re.sub(b'"' + token.encode() + rb'(\d+)"', lambda match: blocks[int(match.group(1))], text)


_COLLISION = object()


def _strip(value: Any, token: str, blocks: list[bytes], checked: set[int]) -> Any:
    """``value`` with each long integer list replaced by ``token + index`` (its bytes appended to ``blocks``); _COLLISION if a string holds ``token``.

    ``checked`` holds the ids of the lists :func:`_canonical` found to be such blocks.
    """
    if isinstance(value, str):
        return _COLLISION if token in value else value
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            stripped = _strip(item, token, blocks, checked)
            if stripped is _COLLISION or token in key:
                return _COLLISION
            result[key] = stripped
        return result
    if isinstance(value, list):
        if id(value) in checked:  # ints, rows of them, or ASCII strings: json.dumps writes RFC 8785's bytes
            blocks.append(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("ascii"))
            return f"{token}{len(blocks) - 1}"
        items = []
        for item in value:
            stripped = _strip(item, token, blocks, checked)
            if stripped is _COLLISION:
                return _COLLISION
            items.append(stripped)
        return items
    return value


def reduced_canonical_bytes(value: Any) -> bytes:
    """RFC 8785 for certificate data by this module's own reduction (see the module docstring)."""
    return json.dumps(_canonical(value, "$"), ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def sha256_hex(value: Any) -> str:
    """sha256 hex digest of the canonical bytes."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()
