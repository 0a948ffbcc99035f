"""The kinds of range the exponential mechanism takes, and the registry its front fills.

``outputs`` is a *range* when it is a :class:`~expmech.spec.RationalRange`,
an :class:`~expmech.spec.IntRange` or an :class:`~expmech.spec.OutputSpace`
with one such variable; its kind is ``"continuous"`` (an interval of the
reals) or ``"countable"`` (integers). The mechanism class of each kind is
registered here by the front (``expmech.impl.exponential._front``), which
imports the kinds; :class:`~expmech.impl.ExponentialMechanism` reads the
registry and so never imports a kind, and no kind imports the front.
"""

from __future__ import annotations

from typing import Any

from expmech.spec import Domain, ExpMechError, IntRange, InvalidArgument, OutputSpace, RationalRange

__all__ = ["is_range", "range_class", "range_kind", "register_kind"]

_KINDS: dict[str, type] = {}


def register_kind(kind: str, mechanism: type) -> None:
    """Record ``mechanism`` as the class of the ranges of ``kind`` (``"continuous"`` or ``"countable"``); the front calls this once per kind."""
    _KINDS[kind] = mechanism


def range_class(outputs: Any) -> type | None:
    """The mechanism class for ``outputs`` when it is a range, else None (a finite list of outputs).

    Raises :class:`~expmech.spec.ExpMechError` when ``outputs`` is a range
    whose kind no front has registered (its module was imported without
    ``expmech.impl.exponential._front``): a range is never taken for a list.
    """
    if not is_range(outputs):
        return None
    kind = range_kind(outputs)
    mechanism = _KINDS.get(kind)
    if mechanism is None:
        raise ExpMechError(f"no mechanism is registered for a {kind} range: import ExponentialMechanism from expmech.impl")
    return mechanism


def is_range(outputs: Any) -> bool:
    """Whether ``outputs`` names a range (an interval or an infinite set) rather than a finite list."""
    if isinstance(outputs, RationalRange | IntRange):
        return True
    if isinstance(outputs, OutputSpace):
        return True
    return False


def range_kind(outputs: Any) -> str:
    """``"continuous"`` or ``"countable"`` for a range accepted by :func:`is_range`."""
    domain = _domain_of(outputs)
    return "continuous" if isinstance(domain, RationalRange) else "countable"


def _domain_of(outputs: Any) -> Domain:
    if isinstance(outputs, OutputSpace):
        items = list(outputs.items())
        if len(items) != 1:
            raise InvalidArgument(
                f"outputs={outputs!r} has {len(items)} variables; a range needs exactly one (use a list of outputs otherwise)",
                parameter="outputs",
                value=outputs,
            )
        domain = items[0][2]
        if not isinstance(domain, RationalRange | IntRange):
            raise InvalidArgument(
                f"outputs={outputs!r}: {domain.describe()} is finite; pass its outputs as a list (quality.outputs())",
                parameter="outputs",
                value=outputs,
            )
        return domain
    return outputs
