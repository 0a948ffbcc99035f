"""Canonical JSON (RFC 8785, JSON Canonicalization Scheme) for the data expmech writes.

Certificates hold only objects, arrays, strings, booleans, null and integers
of magnitude below 2**53 (rationals are ``"p/q"`` strings, larger integers
strings), so JCS reduces to: keys sorted by UTF-16 code units, no
insignificant white space, minimal string escapes, UTF-8.  Floats are refused:
they have no place in a certificate.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from expmech.spec import InvalidArgument
from expmech.spec._errors import describe

__all__ = ["canonical_bytes", "sha256_hex"]

_SAFE_INTEGER = 2**53 - 1


def _check(value: Any, path: str) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > _SAFE_INTEGER:
            raise InvalidArgument(f"{path}={value} is too large for canonical JSON; write it as a string", parameter=path, value=value)
        return
    if isinstance(value, float):
        raise InvalidArgument(f"{path}={value!r} is a float; certificates hold exact values only", parameter=path, value=value)
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check(item, f"{path}[{i}]")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidArgument(f"{path} has a non-string key {describe(key)}", parameter=path, value=key)
            _check(item, f"{path}.{key}")
        return
    raise InvalidArgument(f"{path}={describe(value)} is not JSON data", parameter=path, value=value)


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return {k: _sorted(value[k]) for k in keys}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def canonical_bytes(value: Any) -> bytes:
    """The RFC 8785 canonical UTF-8 bytes of ``value``."""
    _check(value, "$")
    return json.dumps(_sorted(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def sha256_hex(value: Any) -> str:
    """sha256 hex digest of the canonical bytes."""
    return hashlib.sha256(canonical_bytes(value)).hexdigest()
