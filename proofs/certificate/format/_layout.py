"""The readable layout of a certificate file, fast for certificates with large ranges.

``json.dumps(data, indent=2, sort_keys=True)`` runs Python's pure-Python
encoder (the C encoder serves only the compact form): for a range of 52,360
outputs of 32 counts that is 1.7 million lines and seconds of work.  Here the
structure is indented as usual, but each long list of scalars (or of rows of
scalars) is written on one line by the C encoder, and so is every value nested deeper than :data:`_DEEP`
levels (a derivation's proof tree of case splits is hundreds of levels deep: indented, a 200 kB
certificate became 5 MB, past ``expmech check``'s default ``max_bytes``).  Only white space differs
from the indented form: the parsed JSON, and so the digest over its canonical
form, is the same.
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
from typing import Any

__all__ = ["readable_json"]

#: Lists at least this long are written on one line.
_LONG = 16
#: Values nested deeper than this are written on one line.
_DEEP = 12
_SCALARS = (int, str, bool, type(None))
_SCALAR_TYPES = set(_SCALARS)


def _scalar_rows(value: list[Any]) -> bool:
    """Whether ``value`` is a list of non-empty lists of scalars (a layout question only: one type pass, no magnitudes)."""
    return all(type(row) is list and row for row in value) and set(map(type, itertools.chain.from_iterable(value))) <= _SCALAR_TYPES


def readable_json(data: Any) -> str:
    """``data`` as indented JSON (keys sorted, UTF-8 text), long scalar lists on one line each."""
    token = secrets.token_hex(8)
    compact: list[str] = []

    def shrink(value: Any, depth: int) -> Any:
        if isinstance(value, dict | list) and value and depth >= _DEEP:
            compact.append(json.dumps(value, ensure_ascii=False, separators=(", ", ": "), sort_keys=True))
            return f"{token}:{len(compact) - 1}"
        if isinstance(value, dict):
            return {key: shrink(item, depth + 1) for key, item in value.items()}
        if isinstance(value, list):
            if len(value) >= _LONG and (all(isinstance(item, _SCALARS) for item in value) or _scalar_rows(value)):
                compact.append(json.dumps(value, ensure_ascii=False, separators=(", ", ": ")))
                return f"{token}:{len(compact) - 1}"
            return [shrink(item, depth + 1) for item in value]
        return value

    text = json.dumps(shrink(data, 0), indent=2, ensure_ascii=False, sort_keys=True)
    if not compact:
        return text
    return re.sub(f'"{token}:([0-9]+)"', lambda match: compact[int(match.group(1))], text)
