"""Files written by expmech: replaced atomically, with ordinary permissions.

A file is written to a temporary file beside it and moved into place with
``os.replace``, so a reader never sees half a certificate, and a failure leaves
the old file (or none) — never a truncated one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from expmech.spec import InvalidArgument

__all__ = ["write_atomically"]


def _mode(path: Path) -> int:
    """The permissions a plain ``open(path, "w")`` would give: the existing file's, else 0o666 less the umask."""
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def write_atomically(path: Path, write: Callable[[Path], None] | bytes | str) -> Path:
    """Write ``path`` through a temporary file beside it, then ``os.replace`` it into place; return ``path``.

    ``write`` is the content (bytes or text, UTF-8) or a function that writes a
    given temporary path (it keeps ``path``'s suffix, for writers that infer
    the format from it).  An OS error is an :class:`~expmech.spec.InvalidArgument` naming the path.
    """
    folder = path.parent if str(path.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=folder)
    os.close(descriptor)
    scratch = Path(temporary)
    try:
        if isinstance(write, bytes):
            scratch.write_bytes(write)
        elif isinstance(write, str):
            scratch.write_text(write, encoding="utf-8")
        else:
            write(scratch)
        os.chmod(scratch, _mode(path))
        os.replace(scratch, path)
    except OSError as error:
        raise InvalidArgument(f"cannot write {str(path)!r}: {error.strerror or error}", parameter="path", value=str(path)) from None
    finally:
        if scratch.exists():
            scratch.unlink()
    return path
