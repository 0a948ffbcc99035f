"""Progress on stderr for long commands (``verify``, ``certify``, ``spec``, ``synth``, ``audit``).

A rich progress bar with the current step's name, shown only on a terminal
(rich prints nothing for a transient display elsewhere, so CI logs and
captured output stay clean); without rich, nothing is shown.  Lines a command
prints as its steps finish go through :meth:`Progress.print`, above the bar on
a terminal and as plain lines elsewhere.  The last progress of a run is kept,
so an interrupted command can say how far it got (:func:`interrupted_after`).
"""

from __future__ import annotations

import sys
from typing import IO, Any

__all__ = ["Progress", "interrupted_after", "forget"]

_LAST: list[Progress] = []  # the newest Progress of this run, read after an interrupt


class Progress:
    """``total`` steps under ``label``; call :meth:`step` as each starts and :meth:`finish` as each ends.

    ``noun`` names the steps in the interrupt message (``interrupted after 7 of
    10 targets``).  Use it as a context manager to close it on any exit.
    """

    def __init__(self, total: int, label: str, *, noun: str = "steps") -> None:
        self.total, self.label, self.noun, self.done, self.finished = max(total, 1), label, noun, 0, 0
        self.count = total
        self.bar: Any = None
        self.task: Any = None
        _LAST[:] = [self]
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn
        except ImportError:  # pragma: no cover - rich is optional
            return
        console = Console(stderr=True)
        if not console.is_terminal:
            return
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        # stdout is never redirected into the bar's console: a verdict printed for a file must reach the file
        self.bar = RichProgress(*columns, console=console, transient=True, redirect_stdout=False, redirect_stderr=False)
        self.bar.start()
        self.task = self.bar.add_task(label, total=self.total)

    def step(self, name: str) -> None:
        """Show that the step ``name`` has started: every step before it is finished."""
        self.finished = max(self.finished, self.done)
        if self.bar is not None:
            self.bar.update(self.task, description=f"{self.label}: {name}", completed=self.finished)
        self.done += 1

    def finish(self) -> None:
        """Count the step started last as finished (what :func:`interrupted_after` reports)."""
        self.finished = min(self.done, self.finished + 1)
        if self.bar is not None:
            self.bar.update(self.task, completed=self.finished)

    def print(self, text: str, *, file: IO[str] | None = None) -> None:
        """Print ``text`` on ``file`` (default stdout) now, above the bar when one is shown on the same terminal.

        A file that is not a terminal gets the plain line; a terminal that also
        shows the bar gets it through the bar, so the bar is redrawn below it.
        """
        stream = sys.stdout if file is None else file
        if self.bar is not None and _is_terminal(stream):
            self.bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
            return
        print(text, file=stream, flush=True)

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def interrupted_after() -> str:
    """`` after 7 of 10 targets`` for the newest progress of the run, or ``""`` when there was none."""
    if not _LAST:
        return ""
    progress = _LAST[0]
    return f" after {progress.finished} of {progress.count} {progress.noun}"


def forget() -> None:
    """Start a new run: no progress yet (a command run in process more than once does not report an old one)."""
    _LAST.clear()
