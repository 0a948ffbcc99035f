"""Lazy-bit draws and output grids, shared by the samplers over infinite and continuous ranges.

A uniform ``U`` in [0, 1) is revealed 64 bits at a time: after ``k`` bits it is
known to lie in ``[u / 2^k, (u + 1) / 2^k)``.  A *locator* maps that interval to
an outcome when every ``U`` in it gives the same one, and to ``None``
otherwise; :func:`draw_lazily` then reveals more bits.  So an outcome is the
exact inverse-CDF image of ``U`` whenever the locator only decides on rigorous
grounds (exact rationals, or balls that contain the true values), and no
rounding ever chooses it.

A continuous draw is released on a grid of step ``h`` (``2^{−grid_bits}`` by
default): the cell ``[i·h, (i+1)·h)`` holding the draw is released as its left
end, or as the range's lower end for a partial first cell.  Rounding is a
function of the draw, so the released value is exactly as private as the draw
(post-processing), and its law is the mechanism's mass of each cell.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

from flint import arb, ctx

from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import describe, positive_rational

__all__ = [
    "DEFAULT_GRID_BITS",
    "cell_of",
    "cell_span",
    "draw_lazily",
    "grid_step",
    "locate_exactly",
    "locate_in_table",
    "released_cell",
    "released_value",
    "released_values",
]

#: Default grid of continuous draws: steps of 2^-20.
DEFAULT_GRID_BITS = 20
_FIRST_BITS = 64
_MORE_BITS = 64

T = TypeVar("T")


def draw_lazily(locate: Callable[[int, int], T | None], rng: random.Random) -> T:
    """The outcome ``locate(u, k)`` decides for the first prefix ``u / 2^k`` of ``U`` it can decide.

    ``locate`` must return an outcome only if every ``U`` in
    ``[u / 2^k, (u + 1) / 2^k)`` has it; it is called with 64, 128, … bits.
    """
    u, k = rng.getrandbits(_FIRST_BITS), _FIRST_BITS
    while True:
        found = locate(u, k)
        if found is not None:
            return found
        u = (u << _MORE_BITS) | rng.getrandbits(_MORE_BITS)
        k += _MORE_BITS


def grid_step(grid_bits: Any = None, grid: Any = None) -> Fraction:
    """The grid step ``h``: ``grid`` (a positive rational) or ``2^{−grid_bits}`` (default 20 bits)."""
    if grid is not None and grid_bits is not None:
        raise InvalidArgument(
            f"give grid={describe(grid)} or grid_bits={describe(grid_bits)}, not both", parameter="grid", value=grid
        )
    if grid is not None:
        return positive_rational(grid, name="grid")
    bits = DEFAULT_GRID_BITS if grid_bits is None else grid_bits
    if isinstance(bits, bool) or not isinstance(bits, int):
        raise InvalidType(f"grid_bits={describe(bits)} must be an int", parameter="grid_bits", value=bits)
    if not -64 <= bits <= 4096:
        raise InvalidArgument(f"grid_bits={bits} must be in [-64, 4096]", parameter="grid_bits", value=bits)
    return Fraction(1, 1 << bits) if bits >= 0 else Fraction(1 << -bits)


def cell_of(r: Fraction, step: Fraction) -> int:
    """The index ``i`` of the grid cell ``[i·h, (i+1)·h)`` holding ``r``."""
    return (r / step).__floor__()


def released_value(index: int, step: Fraction, lo: Fraction | None) -> Fraction:
    """What a draw in cell ``index`` is released as: the cell's left end, or ``lo`` if that is larger."""
    left = index * step
    return left if lo is None or left >= lo else lo


def released_cell(value: Fraction, step: Fraction, lo: Fraction | None, hi: Fraction | None) -> tuple[Fraction, Fraction | None] | None:
    """The draws ``[value, end)`` released as ``value`` (a point of the range ``[lo, hi]``), or None if none is.

    ``end`` is the next grid point, or ``hi`` if that comes first (None: no
    upper end).  A grid point equal to ``hi`` gets the empty cell ``[hi, hi)``.
    """
    index = cell_of(value, step)
    if released_value(index, step, lo) != value:
        return None
    end = (index + 1) * step
    return (value, end if hi is None or end < hi else hi)


def cell_span(lo: Fraction, hi: Fraction, step: Fraction) -> tuple[int, int]:
    """The first and last indices of the grid cells that meet ``[lo, hi)`` (the one cell of ``lo`` if ``lo == hi``)."""
    first, last = cell_of(lo, step), cell_of(hi, step)
    if hi == last * step and last > first:
        last -= 1
    return first, last


def released_values(lo: Fraction, hi: Fraction, step: Fraction, *, limit: int) -> list[Fraction]:
    """Every value a draw from ``[lo, hi]`` can be released as, in increasing order.

    Raises :class:`InvalidArgument` naming ``grid`` when there are more than ``limit``.
    """
    first, last = cell_span(lo, hi, step)
    if last - first + 1 > limit:
        raise InvalidArgument(f"grid={step} gives {last - first + 1} cells; at most {limit}", parameter="grid", value=step)
    return [released_value(index, step, lo) for index in range(first, last + 1)]


def locate_in_table(prefix: list[arb], precision: int, u: int, k: int) -> int | None:
    """The index ``j`` with ``P_{j−1} <= U·P_last < P_j`` for every ``U`` in ``[u/2^k, (u+1)/2^k)``, decided by balls.

    ``prefix`` are balls around increasing cumulative weights; None when the
    balls cannot decide (the caller then decides exactly, or with more bits).
    """
    last = len(prefix) - 1
    with ctx.workprec(precision):
        total = prefix[-1]
        low = total * u / arb(2**k)
        high = total * (u + 1) / arb(2**k)
        target = low.mid()
        left, right = 0, last
        while left < right:
            middle = (left + right) // 2
            if prefix[middle].mid() <= target:
                left = middle + 1
            else:
                right = middle
        decided = (left == 0 or prefix[left - 1] <= low) and (left == last or prefix[left] >= high)
    return left if decided else None


def locate_exactly(last: int, side: Callable[[int, int], int]) -> int | None:
    """The same decision made exactly: ``side(j, v)`` is the exact sign of ``v / 2^k − F_j``.

    Returns ``c`` with ``F_{c−1} <= u/2^k`` and ``(u+1)/2^k <= F_c`` (``side(j, u)`` and
    ``side(j, u + 1)`` are asked), or None if the interval straddles ``F_c``.
    """
    low, high = 0, last
    while low < high:
        middle = (low + high) // 2
        if side(middle, 0) >= 0:
            low = middle + 1
        else:
            high = middle
    if low == last or side(low, 1) <= 0:
        return low
    return None
