"""Permute-and-flip's coins: one exact draw of the mechanism over score indices.

Visit the outputs in a uniformly random order and stop at the first ``r`` whose
coin, Bernoulli(e^{−γ}) of Canonne–Kamath–Steinke with rational
``γ = ε (q* − q(r))``, lands heads; the order comes from
``random.Random.shuffle``, which uses integer random bits only.  Shared by
:class:`~expmech.impl.PermuteAndFlip` and its exact law's ``sample``.

The fast path (every coin at once, decided by vectorised floats under rigorous
bounds, an undecided coin compared exactly) and why its draw is exactly
permute-and-flip's are described in :mod:`expmech.impl.selection._permute_flip`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from ..exact._expsum import ExpSum
from ..exact._floatfilter import EXP_REL, TINY, U, filter_enabled
from ..exact._rationals import RationalArray
from ._lazy import draw_lazily
from ._random import _bernoulli_exp

__all__ = ["sample_permute_and_flip"]


def sample_permute_and_flip(scores: Sequence[int | Fraction] | RationalArray, epsilon: Fraction, rng: random.Random) -> int:
    """One exact permute-and-flip draw over score indices (exact Bernoulli(e^{ε(q − q*)}) coins).

    Every coin at once where the float filter applies (see the module), else
    a random order with one Canonne–Kamath–Steinke coin per visited output.
    """
    vector = scores if isinstance(scores, RationalArray) else RationalArray.of(list(scores))
    heads = _all_coins(vector, epsilon, rng)
    if heads is not None:
        return int(heads[rng.randrange(len(heads))])
    values = vector.to_list()
    best = max(values)
    order = list(range(len(values)))
    rng.shuffle(order)
    for i in order:
        if _bernoulli_exp(epsilon * (best - values[i]), rng):
            return i
    raise AssertionError("unreachable: the best output's coin has probability 1")


#: Integer score gaps below this are exact in float64.
_EXACT = 1 << 53
#: Relative widening of the float bounds on each coin's probability (covers their own roundings).
_WIDEN = 2.0**-45


def _all_coins(vector: RationalArray, epsilon: Fraction, rng: random.Random) -> np.ndarray | None:
    """The indices whose coin lands heads, every coin flipped (the module's fast path); None if the filter cannot apply."""
    vector = vector.shared()
    nums, n = vector.num, len(vector)
    if nums.dtype == object or n == 0 or not filter_enabled():
        return None
    top = int(nums.max())
    spread = top - int(nums.min())
    a, b = epsilon.numerator, epsilon.denominator * int(vector.den)
    rate = a / b  # correctly rounded
    if spread >= _EXACT or not 2.0**-1000 < rate < 2.0**1000:
        return None
    gaps = top - nums  # exact integers below 2^53
    with np.errstate(under="ignore"):
        exponents = gaps * -rate  # ỹ = fl(−(q* − q)·fl(a/b)): within 4u·|ỹ| of −γ, as the filter allows
        probabilities = np.exp(exponents)
    eta = 2.0 * (EXP_REL + 4.0 * U * min(spread * rate * (1.0 + 2.0**-50), 800.0))
    lower = probabilities * (1.0 - eta - _WIDEN) - 2.0 * TINY
    upper = probabilities * (1.0 + eta + _WIDEN) + 2.0 * TINY
    bits = np.frombuffer(rng.getrandbits(64 * n).to_bytes(8 * n, "little"), dtype=np.uint64) >> np.uint64(11)
    low = bits.astype(np.float64) * 2.0**-53  # U ∈ [u, u + 1) / 2^53, both ends exact in float64
    high = (bits + np.uint64(1)).astype(np.float64) * 2.0**-53
    heads = (high <= lower) | (gaps == 0)  # U < p for every U allowed (the best output: p = 1)
    tails = low >= upper  # U >= p for every U allowed
    for i in np.flatnonzero(~(heads | tails)).tolist():
        gamma = epsilon * Fraction(int(gaps[i]), int(vector.den))
        heads[i] = _exact_coin(gamma, int(bits[i]), rng)
    return np.flatnonzero(heads)


def _exact_coin(gamma: Fraction, u: int, rng: random.Random) -> bool:
    """Whether ``U < e^{−γ}`` for the uniform ``U`` whose first 53 bits are ``u`` (more bits drawn as needed)."""
    p = ExpSum.exp(-gamma)

    def locate(more: int, k: int) -> bool | None:
        value, bits = (u << k) | more, 53 + k  # U's first 53 bits, then the k drawn here
        if (p - ExpSum.rational(Fraction(value + 1, 1 << bits))).sign() >= 0:
            return True
        if (p - ExpSum.rational(Fraction(value, 1 << bits))).sign() <= 0:
            return False
        return None

    return draw_lazily(locate, rng)
