"""Limits on input read from files: the size before any byte is read, the JSON nesting before any is parsed.

Two pieces every reader of untrusted or user-supplied files shares:

* :func:`check_file_size` refuses a file whose size, as the file system
  reports it (``os.stat``), exceeds ``max_bytes`` — naming the file, its size
  and the limit — before it is opened; :func:`read_limited_bytes` then reads at
  most ``max_bytes + 1`` bytes, so a file that grows meanwhile is refused too;
* :func:`check_json_depth` bounds the nesting of JSON text with one linear scan
  (strings and their escapes skipped, so a ``[`` inside a string never counts)
  before ``json.loads`` sees it: a deep document is refused by name, never a
  ``RecursionError``.

Both raise :class:`InputRefused`, an :class:`~expmech.spec.InvalidArgument`
(exit 2 at the command line) whose ``parameter`` names the limit
(``"max_bytes"``, ``"max_depth"``) and whose ``value`` is what was found.
The module imports only the standard library and ``expmech.spec``'s error
class (which loads no sympy), so the certificate verifier can use it as is.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from expmech.spec import InvalidArgument

__all__ = ["InputRefused", "check_file_size", "check_json_depth", "json_depth", "read_limited_bytes"]


class InputRefused(InvalidArgument):
    """A file or a JSON text over a limit, refused before it is read or parsed.

    ``parameter`` names the limit (``"max_bytes"``, ``"max_depth"``) or, for a
    file that cannot be read at all, ``"path"``; ``value`` holds what was found.
    """


def check_file_size(path: str | os.PathLike[str], *, max_bytes: int, what: str = "file") -> int:
    """The size of the regular file ``path``, from ``os.stat`` alone; :class:`InputRefused` if it exceeds ``max_bytes``.

    Nothing is read.  A path that does not exist, cannot be stat-ed or is not a
    regular file (a directory, a FIFO that would block, a device) is refused
    too, naming it.  ``what`` says what the file is (``"certificate"``, ``"composition certificate"``).
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise InvalidArgument(f"max_bytes={max_bytes!r} must be an int >= 0", parameter="max_bytes", value=max_bytes)
    shown = str(path)
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise InputRefused(f"{what} {shown!r} does not exist", parameter="path", value=shown) from None
    except (OSError, ValueError) as error:
        reason = error.strerror if isinstance(error, OSError) and error.strerror else error
        raise InputRefused(f"{what} {shown!r} cannot be read: {reason}", parameter="path", value=shown) from None
    if not stat.S_ISREG(status.st_mode):
        raise InputRefused(f"{what} {shown!r} is not a regular file", parameter="path", value=shown)
    if status.st_size > max_bytes:
        raise InputRefused(
            f"{what} {shown!r} has {status.st_size:,} bytes, more than the limit of {max_bytes:,} (max_bytes); it was not read",
            parameter="max_bytes",
            value=status.st_size,
        )
    return status.st_size


def read_limited_bytes(path: str | os.PathLike[str], *, max_bytes: int, what: str = "file") -> bytes:
    """The bytes of ``path``, refused by :func:`check_file_size` before any read, and read no further than ``max_bytes + 1``.

    A file that grew past ``max_bytes`` after it was measured is refused as well.
    """
    check_file_size(path, max_bytes=max_bytes, what=what)
    shown = str(path)
    try:
        with Path(path).open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as error:
        raise InputRefused(f"{what} {shown!r} cannot be read: {error.strerror or error}", parameter="path", value=shown) from None
    if len(raw) > max_bytes:
        raise InputRefused(
            f"{what} {shown!r} has more than the limit of {max_bytes:,} bytes (max_bytes); it grew while being read",
            parameter="max_bytes",
            value=len(raw),
        )
    return raw


# A JSON string, escapes included (and an unterminated one, to the end of the text).  Multi-byte UTF-8 sequences
# never hold the bytes of '"', '\\', '[', ']', '{' or '}', so the text is scanned as UTF-8 bytes.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?$)', re.DOTALL)
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"[]{}")


def _depths(text: str | bytes) -> Iterator[int]:
    """The nesting depth after each bracket outside strings, in order (a generator: callers may stop early).

    The strings are removed and every byte but the brackets deleted in C
    (``re.sub``, ``bytes.translate``); only the brackets are looped over.
    """
    raw = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    depth = 0
    for byte in _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        if byte == 0x5B or byte == 0x7B:  # [ {
            depth += 1
            yield depth
        elif depth:
            depth -= 1  # an unbalanced closer is json.loads' error to report, not a depth


def json_depth(text: str | bytes) -> int:
    """The deepest nesting of arrays and objects in ``text`` (0 for a scalar), in one linear pass; never parses it.

    Brackets inside strings do not count, escaped quotes included (``"\\"["`` is a
    string).  ``text`` need not be valid JSON: the depth is that of its brackets.
    """
    return max(_depths(text), default=0)


def check_json_depth(text: str | bytes, *, max_depth: int, what: str = "JSON document") -> None:
    """Refuse ``text`` with :class:`InputRefused` if its nesting exceeds ``max_depth``, before it is parsed.

    Stops at the first bracket past the limit, so a refusal costs no more than
    the text up to it.  Run it before ``json.loads``: then no ``RecursionError``
    can come from a deep document.
    """
    if isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 0:
        raise InvalidArgument(f"max_depth={max_depth!r} must be an int >= 0", parameter="max_depth", value=max_depth)
    for depth in _depths(text):
        if depth > max_depth:
            raise InputRefused(f"the {what} is nested deeper than the limit of {max_depth} (max_depth)", parameter="max_depth", value=depth)
