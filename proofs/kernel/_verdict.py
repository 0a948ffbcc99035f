"""What the kernel answers: a verdict, the rule table's entries, and the one way a check fails.

Every failure inside the kernel is a :class:`Rejected` carrying the id of the
node that fails and why; :func:`~expmech.proofs.kernel.check_derivation` turns
it into a :class:`KernelVerdict` with ``accepted=False``.  Nothing else leaves
the kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KernelVerdict", "Rejected", "RuleInfo"]


@dataclass(frozen=True)
class KernelVerdict:
    """The kernel's answer on one derivation.

    ``accepted`` — every node's rule applies to its subterm and every side
    condition was confirmed by a query the kernel wrote itself; ``node`` — the
    id of the first node that fails (None when accepted, or when the
    derivation's envelope is at fault); ``reason`` — why, in words; ``queries``
    — the solver calls the kernel made.
    """

    accepted: bool
    node: str | None
    reason: str
    queries: int


@dataclass(frozen=True)
class RuleInfo:
    """One rule of the kernel's table: the claim kind it serves, the name of its soundness ``Statement`` in
    ``expmech.spec`` and its conclusion in one line."""

    claim: str
    statement: str
    text: str


class Rejected(Exception):
    """A derivation (or one of its nodes) is not accepted; ``node`` names it (None: the envelope), ``reason`` says why."""

    def __init__(self, node: str | None, reason: str) -> None:
        super().__init__(reason)
        self.node = node
        self.reason = reason
