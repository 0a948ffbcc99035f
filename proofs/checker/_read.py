"""Untrusted bytes to a statement: bounded before they are read, parsed strictly, unwrapped.

The file's size is taken from the file system before any byte is read; the nesting depth, the longest number and
the longest string are measured on the text before ``json.loads`` runs; duplicate keys, floats, ``NaN`` and integers
past 2^53 − 1 (RFC 8785 has no form for them) are refused.  A file is ``{"certificate": statement, "digest"}`` or,
signed, ``{"envelope": DSSE, "digest"}``; the digest is the SHA-256 of the statement's RFC 8785 form (the ``rfc8785`` package).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import rfc8785

__all__ = ["LIMIT_NAMES", "Limits", "Refused", "Unreadable", "canonical_digest", "load", "parse_limit"]


@dataclass(frozen=True)
class Limits:
    """Bounds on an untrusted certificate, each an int >= 1 (``expmech check --limit NAME=VALUE``)."""

    max_bytes: int = 2**20
    max_depth: int = 160
    max_string: int = 2**18
    max_digits: int = 100
    max_expression_nodes: int = 4_000
    max_outputs: int = 200_000
    max_rlimit: int = 10**8
    max_solver_obligations: int = 64


LIMIT_NAMES = tuple(item.name for item in fields(Limits))


class Refused(Exception):
    """Input over a limit, or not readable as JSON (exit 2), the limit named."""

    def __init__(self, limit: str, message: str) -> None:
        super().__init__(message + (f" (to admit a larger certificate you trust: expmech check --limit {limit}=…)" if limit in LIMIT_NAMES else ""))


class Unreadable(Exception):
    """Input that is not a certificate file (exit 1): the message says why."""


def parse_limit(text: str) -> tuple[str, int]:
    """``"NAME=VALUE"`` as a :class:`Limits` field and an int >= 1; ValueError naming the flag otherwise."""
    name, equals, value = text.partition("=")
    name, digits = name.strip().replace("-", "_"), value.strip().replace("_", "")
    if not equals or name not in LIMIT_NAMES:
        raise ValueError(f"--limit={text!r} must be NAME=VALUE with NAME one of {', '.join(LIMIT_NAMES)}")
    if not digits.isdigit() or int(digits) < 1:
        raise ValueError(f"--limit={text!r}: {name} must be an int >= 1, not {value.strip()!r}")
    return name, int(digits)


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)  # unrolled: an alternation in the loop costs ~130 bytes a character


class _Bad(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Bad("repeats a JSON key")
    return result


def _inexact(value: str) -> Any:
    raise _Bad(f"holds the inexact number {value[:40]!r}; certificates hold exact values only")


def _safe_int(digits: str) -> int:
    if abs(int(digits)) > 2**53 - 1:  # RFC 8785 writes numbers as IEEE doubles: no certificate holds such an integer
        raise _Bad(f"holds the integer {digits[:40]}{'…' if len(digits) > 40 else ''}, past 2**53 − 1, which RFC 8785 cannot canonicalise")
    return int(digits)


def parse(raw: bytes, limits: Limits, what: str = "certificate") -> Any:
    """Strict JSON within ``limits`` (Refused, or Unreadable for JSON that is broken or inexact)."""
    if len(raw) > limits.max_bytes:
        raise Refused("max_bytes", f"the {what} has {len(raw)} bytes, more than max_bytes={limits.max_bytes}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Refused("encoding", f"the {what} is not UTF-8: {error}") from None
    bare, depth, deepest = _STRING.sub('""', text), 0, 0
    for char in re.sub(r"[^\[\]{}]", "", bare):
        depth += 1 if char in "[{" else -1
        deepest = max(deepest, depth)
    for limit, over in (("max_depth", deepest > limits.max_depth), ("max_digits", re.search("[0-9]{%d}" % (limits.max_digits + 1), bare)),
                        ("max_string", any(len(s) > limits.max_string + 2 for s in _STRING.findall(text)))):
        if over:
            raise Refused(limit, f"the {what} is over {limit}={getattr(limits, limit)}")
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_float=_inexact, parse_constant=_inexact, parse_int=_safe_int if re.search("[0-9]{16}", bare) else int)
    except _Bad as error:
        raise Unreadable(f"the {what} {error}") from None
    except (ValueError, RecursionError) as error:
        raise Refused("json", f"the {what} is not JSON: {str(error)[:120]}") from None


def canonical_digest(statement: Any) -> str:
    """The SHA-256 (hex) of the RFC 8785 form of ``statement``."""
    return hashlib.sha256(rfc8785.dumps(statement)).hexdigest()


def _json_size_over(data: Any, limit: int) -> bool:
    """Whether ``data``'s compact JSON surely has more than ``limit`` bytes: a lower bound counted up to ``limit``
    items, so a huge object in memory is refused before it is serialised."""
    stack, size = [data], 0
    while stack and size <= limit:
        value = stack.pop()
        if isinstance(value, (dict, list)):
            size += 1 + (sum(len(str(key)) + 3 for key in value) if isinstance(value, dict) else len(value))
            if size <= limit:  # a container past the limit is not walked: refused in constant time
                stack.extend(value.values() if isinstance(value, dict) else value)
        else:
            size += len(value) + 2 if isinstance(value, str) else 1
    return size > limit


def load(source: Any, limits: Limits) -> tuple[Any, Any]:
    """``(file data, statement)`` from a path, bytes or parsed data; an envelope's payload unwrapped (not verified).
    ValueError for a path that is not a readable file, TypeError for another source."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            size, regular = path.stat().st_size, path.is_file()
        except FileNotFoundError:
            raise ValueError(f"certificate={str(path)!r} does not exist") from None
        except OSError as error:
            raise ValueError(f"certificate={str(path)!r} cannot be read: {error.strerror or error}") from None
        if not regular:
            raise ValueError(f"certificate={str(path)!r} is not a regular file")
        if size > limits.max_bytes:
            raise Refused("max_bytes", f"the certificate has {size} bytes, more than max_bytes={limits.max_bytes}")
        with path.open("rb") as handle:
            raw = handle.read(limits.max_bytes + 1)
    elif isinstance(source, (bytes, dict)):
        if isinstance(source, dict) and _json_size_over(source, limits.max_bytes):
            raise Refused("max_bytes", f"the certificate has more than max_bytes={limits.max_bytes} bytes as JSON")
        raw = source if isinstance(source, bytes) else json.dumps(source, ensure_ascii=False).encode("utf-8")
    else:
        raise TypeError(f"certificate must be a path, bytes or a dict, not {type(source).__name__}")
    data = parse(raw, limits)
    if not isinstance(data, dict) or not isinstance(data.get("digest"), dict) or not isinstance(data["digest"].get("value"), str):
        raise Unreadable("not a certificate: the file needs a 'digest' object with a 'value'")
    if set(data) == {"certificate", "digest"}:
        return data, data["certificate"]
    if set(data) == {"envelope", "digest"} and isinstance(data["envelope"], dict) and isinstance(data["envelope"].get("payload"), str):
        try:
            payload = base64.b64decode(data["envelope"]["payload"], validate=True)
        except ValueError:
            raise Unreadable("the envelope's payload is not base64") from None
        statement = parse(payload, limits, "envelope payload")
        if rfc8785.dumps(statement) != payload:
            raise Unreadable("the envelope's payload is not the RFC 8785 form of its statement")
        return data, statement
    raise Unreadable(f"a certificate file holds 'certificate' (or 'envelope') and 'digest', not {sorted(map(str, data))[:4]}")
