"""Output paths of the command, checked before any work (files are then written with :func:`write_atomically`)."""

from __future__ import annotations

import os
from pathlib import Path

from .._files import write_atomically
from ._values import UsageError

__all__ = ["check_output_path", "write_atomically"]


def check_output_path(text: str, *, name: str, suffixes: tuple[str, ...] = ()) -> Path:
    """``text`` as a file path that can be written: its folder exists and is writable, and it is not a folder."""
    path = Path(text)
    flag = f"--{name.replace('_', '-')}"
    if not text or path.is_dir():
        raise UsageError(f"{flag}={text!r} is a directory, not a file", parameter=name, value=text)
    if suffixes and path.suffix.lower() not in suffixes:
        raise UsageError(f"{flag}={text!r} must end in {' or '.join(suffixes)}", parameter=name, value=text)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{flag}={text!r}: the folder {str(folder)!r} does not exist", parameter=name, value=text)
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"{flag}={text!r} is not writable", parameter=name, value=text)
    return path
