"""One run of the ``expmech`` command: its warnings, the reports Python defers, and how Ctrl-C ends it.

* An :class:`~expmech.spec.InexactFloatWarning` (a float ε in a user's target)
  is printed as the command's own line, ``expmech verify: warning: …``.
* Ctrl-C ends the run with one line, ``expmech verify: interrupted after 7 of
  10 targets`` (from the run's last :class:`~._progress.Progress`), and exit
  code 130, as a shell reports SIGINT; a second Ctrl-C while it is written is
  ignored.
* Python reports an exception raised in a finaliser ("Exception ignored in:
  …") through ``sys.unraisablehook``.  An interrupt can leave a half-built
  object whose finaliser fails (z3's ``Context.__del__`` on a context whose
  constructor was interrupted), which would print a traceback after the one
  line.  Such reports are held until the run ends: printed then as Python
  would, or dropped when the run was interrupted.
"""

from __future__ import annotations

import signal
import sys
import threading
import traceback
import warnings
from types import TracebackType
from typing import Any

from expmech.spec import InexactFloatWarning

from ._progress import forget, interrupted_after

__all__ = ["EXIT_INTERRUPTED", "Session"]

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl-C


class Session:
    """A context manager around one run; ``command`` names it in its lines (``expmech verify``).

    It absorbs a ``KeyboardInterrupt`` and sets :attr:`was_interrupted`; the caller then returns :meth:`interrupted`.
    """

    def __init__(self) -> None:
        self.command = "expmech"
        self._deferred: list[str] = []
        self._warnings: Any = None
        self._hook: Any = None
        self.was_interrupted = False

    def __enter__(self) -> Session:
        forget()
        self._warnings = warnings.catch_warnings()
        self._warnings.__enter__()
        warnings.simplefilter("default", InexactFloatWarning)
        shown = warnings.showwarning

        def show(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
            if issubclass(category, InexactFloatWarning):  # a float in a target: said as the command's own warning
                print(f"{self.command}: warning: {message}", file=sys.stderr)
            else:
                shown(message, category, filename, lineno, file, line)

        warnings.showwarning = show
        self._hook = sys.unraisablehook
        sys.unraisablehook = self._defer
        return self

    def _defer(self, report: Any) -> None:
        """Keep the text Python would print for an exception in a finaliser (never the object: it may be finalised)."""
        try:
            where = f"Exception ignored in: {report.object!r}\n" if report.object is not None else ""
            message = f"{report.err_msg}: {report.object!r}\n" if report.err_msg else where
            lines = traceback.format_exception(report.exc_type, report.exc_value, report.exc_traceback)
            self._deferred.append(message + "".join(lines))
        except Exception:  # noqa: BLE001 - a report about a failing finaliser must not fail itself
            self._deferred.append(f"Exception ignored in a finaliser: {getattr(report.exc_type, '__name__', '?')}\n")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> bool:
        """Restore the warnings and the hook; a ``KeyboardInterrupt`` is absorbed (see :attr:`was_interrupted`)."""
        interrupted = isinstance(error, KeyboardInterrupt)
        if interrupted:  # free the interrupted frames now, while the reports of their finalisers are still held
            traceback.clear_frames(trace)
            assert error is not None
            error.__traceback__ = None
            del trace
        sys.unraisablehook = self._hook
        self._warnings.__exit__(None, None, None)
        if not interrupted:
            for text in self._deferred:
                sys.stderr.write(text)
        self._deferred.clear()
        self.was_interrupted = interrupted
        return interrupted

    def interrupted(self) -> int:
        """Write the one line for Ctrl-C and return 130."""
        previous = None
        if threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            print(f"{self.command}: interrupted{interrupted_after()}", file=sys.stderr, flush=True)
        except (OSError, ValueError):  # stderr closed: the exit code still says it
            pass
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        return EXIT_INTERRUPTED
