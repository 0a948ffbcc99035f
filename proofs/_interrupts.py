"""Ctrl-C during a z3 check: z3 catches the SIGINT itself, so it is raised again here.

While it solves, z3 installs its own SIGINT handler: it cancels the search and
answers ``unknown`` with the reason ``"interrupted from keyboard"``, and Python
never sees the signal.  Read as an ordinary UNKNOWN, the interrupt would be
lost and the run would go on to the next query.  Every place that runs a z3
check passes its reason to :func:`reraise_interrupt`.  Standard library only,
so the certificate verifier may use it as the prover does.
"""

from __future__ import annotations

__all__ = ["Z3_INTERRUPTED", "reraise_interrupt"]

#: The reason z3 gives for a check it cancelled on Ctrl-C.
Z3_INTERRUPTED = "interrupted from keyboard"


def reraise_interrupt(reason: str) -> None:
    """Raise ``KeyboardInterrupt`` if z3's ``reason`` (``reason_unknown()`` or an exception's text) says Ctrl-C."""
    if Z3_INTERRUPTED in reason:
        raise KeyboardInterrupt
