"""Progress on stderr for long commands (``verify``, ``certify``, ``spec``, ``synth``).

A rich progress bar with the current step's name, shown only on a terminal
(rich prints nothing for a transient display elsewhere, so CI logs and
captured output stay clean); without rich, nothing is shown.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Progress"]


class Progress:
    """``total`` steps under ``label``; call :meth:`step` with each step's name as it starts, :meth:`close` at the end.

    Use it as a context manager to close it on any exit.
    """

    def __init__(self, total: int, label: str) -> None:
        self.total, self.label, self.done = max(total, 1), label, 0
        self.bar: Any = None
        self.task: Any = None
        try:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress as RichProgress, TextColumn, TimeElapsedColumn
        except ImportError:  # pragma: no cover - rich is optional
            return
        console = Console(stderr=True)
        if not console.is_terminal:
            return
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        self.bar = RichProgress(*columns, console=console, transient=True)
        self.bar.start()
        self.task = self.bar.add_task(label, total=self.total)

    def step(self, name: str) -> None:
        """Show that the step ``name`` has started (the steps before it are done)."""
        if self.bar is not None:
            self.bar.update(self.task, description=f"{self.label}: {name}", completed=self.done)
        self.done += 1

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.stop()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()
