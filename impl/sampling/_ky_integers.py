"""The Knuth–Yao walk on integer floors: a few shifts a depth, whatever the number of levels.

:mod:`~expmech.impl.sampling._knuth_yao` bounds each level's ``x_g = p_g·2^52``
by floats, ``lo_g <= x_g <= hi_g``.  Here they are held as the integers
``L_g = ⌊lo_g⌋ <= ⌊x_g⌋ <= H_g = ⌊hi_g⌋`` (exact: floats below 2^53), so the
floor ``⌊p_g 2^k⌋ = ⌊x_g⌋ >> (52 − k)`` is ``L_g >> (52 − k)`` wherever
``H_g`` gives the same: for every ``k`` up to the level's own *safe depth*
``52 − bitlength(L_g xor H_g)``.  The walk keeps the number of live nodes
``N_k = 2 N_{k−1} − Σ_g m_g·bit_k(p_g)`` (``N_0 = 1``), so a depth costs one
shift per level that owns a leaf by then (the levels with ``H_g >> (52 − k)
>= 1``, a prefix: the levels come by increasing gap, so by decreasing
probability, and ``H_g`` bounds the true floor).  It stops at the first ``k``
with ``V_k >= N_k`` (``V_k`` the first ``k`` bits), exactly as the float walk
does, and numbers the leaf the same way: the same map, bit for bit.

Past the smallest safe depth of the levels it has met the walk returns None
having consumed nothing, and the caller's walk (floats with an exact
resolver, then exponential-sum signs) reads the same bits again.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from ._bits import RandomBits

__all__ = ["number_leaf", "walk_integers"]


def walk_integers(
    low: list[int],
    high: list[int],
    counts: list[int],
    places: int,
    rng: random.Random,
    bits: RandomBits,
    more: Callable[[int], object] | None = None,
) -> tuple[int, int] | None:
    """``(level index, position in the level)`` of one Knuth–Yao draw, or None (nothing consumed) where a floor is open.

    ``low[g] <= ⌊p_g 2^places⌋ <= high[g]`` for the levels in order of increasing gap, ``counts[g]`` outputs
    each.  ``more``, if given, is called with the shift ``s = places − k`` at each depth ``k`` where every level
    listed so far owns a leaf; it appends to the three lists every next level whose ``high >> s`` is at least 1,
    so the caller meets levels only as the walk reaches them.
    """
    u = bits.peek(rng, 64)
    active = 0
    safe = places
    live = 1
    for k in range(1, min(places, 64) + 1):
        s = places - k
        if more is not None and active == len(low):
            more(s)
        size = len(low)
        while active < size:
            h = high[active]
            if not h >> s:
                break  # this level's true floor is 0 at depth k, and so is every later one's
            depth = places - (low[active] ^ h).bit_length()
            if depth < safe:
                safe = depth
            active += 1
        if k > safe:
            return None
        leaves = 0
        for g in range(active):
            if (low[g] >> s) & 1:
                leaves += counts[g]
        live = 2 * live - leaves
        value = u >> (64 - k)
        if value >= live:
            found = number_leaf(low, s, counts, value - live)  # a level past ``active`` has bit 0 here
            bits.consume(k)
            return found
    return None


def number_leaf(floors: list[int], shift: int, counts: list[int], leaf: int) -> tuple[int, int]:
    """``(level index, position in the level)`` of the depth's leaf numbered ``leaf``: level ``g`` owns ``counts[g]``
    leaves at this depth where bit ``shift`` of ``floors[g]`` is 1, none where it is 0."""
    for g, f in enumerate(floors):
        if (f >> shift) & 1:
            if leaf < counts[g]:
                return g, leaf
            leaf -= counts[g]
    raise AssertionError("unreachable: a leaf number below the number of leaves at its depth")
