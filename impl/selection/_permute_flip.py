"""Permute-and-flip (McKenna and Sheldon, 2020), sampled exactly.

Visit the outputs in a uniformly random order and stop at the first ``r`` for
which a coin with heads-probability ``e^{ε (q(r) − q*)}`` lands heads, where
``q* = max_r q(r)``.  With the same ``ε`` as :class:`ExponentialMechanism`
(weight ``e^{ε q}``) it has the same privacy guarantee, ``2 ε Δq``, and never
a worse expected quality.  The coin is Bernoulli(e^{-γ}) of
Canonne–Kamath–Steinke with rational ``γ = ε (q* − q(r))``; the order comes
from ``random.Random.shuffle``, which uses integer random bits only.

Sampling every coin at once (the fast path)
-------------------------------------------

The coins do not depend on the order, so the same law is: flip every
output's coin, independently, and return a uniformly random one of those that
landed heads (the first of them in a uniformly random order is uniform among
them; the best output's coin always lands heads, so there is one).  Each coin
is a comparison of an exact uniform ``U`` (53 random bits first) with
``p = e^{−γ}``: heads iff ``U < p``.  The comparisons are made in vectorised
float64 against rigorous bounds on ``p`` — ``fl(exp(−γ̃))`` within the relative
error ``η`` and absolute error ``TINY`` of
:mod:`expmech.impl.exact._floatfilter` (whose ``exp`` assumption is checked on this
platform), widened by ``2^-45`` for the few roundings of the bounds
themselves — and decided only when every ``U`` the bits allow falls on the same
side.  The rare coin left undecided (probability about ``2^-40`` each) reveals
64 more bits at a time and is compared exactly, as the sign of an
:class:`ExpSum`.  The draw is therefore exactly permute-and-flip's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np

from ..exact._exactreal import ExpRatio
from ..exact._expsum import ExpSum
from ..exact._floatfilter import EXP_REL, TINY, U, filter_enabled
from ..quality._inputs import check_epsilon, check_outputs, check_quality, evaluate_scores
from ..sampling._lazy import draw_lazily
from ._pf_law import PermuteAndFlipDistribution
from ..sampling._random import _bernoulli_exp, resolve_rng
from ..exponential._finite import PrivacyLoss
from ..exact._rationals import RationalArray
from ..quality._scoring import ScoreFunction

__all__ = ["PermuteAndFlip", "sample_permute_and_flip"]


class PermuteAndFlip:
    """The permute-and-flip mechanism over a finite range (counting base measure).

    Parameters as for :class:`ExponentialMechanism`, without ``base_measure``
    (the mechanism is defined for the uniform one only).
    """

    __slots__ = ("_quality", "_epsilon", "_outputs", "_score_function")

    def __init__(self, quality: Callable[[Any, Any], Any], *, epsilon: Any, outputs: Any) -> None:
        self._quality = check_quality(quality)
        self._epsilon = check_epsilon(epsilon)
        self._outputs = check_outputs(outputs)
        self._score_function = ScoreFunction(self._quality, self._outputs, given=outputs)

    @property
    def epsilon(self) -> Fraction:
        """The mechanism's ``ε``, exactly."""
        return self._epsilon

    @property
    def outputs(self) -> tuple[Hashable, ...]:
        """The range, in the order given."""
        return self._outputs

    @property
    def quality(self) -> Callable[[Any, Any], Any]:
        """The quality function ``q(dataset, r)``."""
        return self._quality

    def scores(self, dataset: Any) -> tuple[int | Fraction, ...]:
        """``q(dataset, r)`` for each output, as exact rationals."""
        return evaluate_scores(self._quality, dataset, self._outputs)

    def sample(self, dataset: Any, *, rng: random.Random | None = None) -> Hashable:
        """One exact draw of permute-and-flip on ``dataset``."""
        generator = resolve_rng(rng)
        return self._outputs[sample_permute_and_flip(self._score_function(dataset), self._epsilon, generator)]

    def distribution(self, dataset: Any) -> PermuteAndFlipDistribution:
        """The exact output law on ``dataset``, in polynomial time (see :mod:`expmech.impl.selection._pf_law`)."""
        return PermuteAndFlipDistribution(self, self.scores(dataset))

    def privacy_loss(self, dataset1: Any, dataset2: Any) -> PrivacyLoss:
        """The exact ``max_r |ln P1(r) − ln P2(r)|`` between the laws on two datasets."""
        return self.distribution(dataset1).privacy_loss(self.distribution(dataset2))

    def probabilities(self, dataset: Any) -> dict[Hashable, ExpRatio]:
        """The exact output distribution, ``{r: P[r]}``, by enumeration (small ranges; see :meth:`distribution`).

        ``P[r] = p_r · Σ_k e_k({1 − p_j : j ≠ r}) / (m · C(m−1, k))`` with
        ``p_j = e^{ε (q_j − q*)}`` and ``e_k`` the elementary symmetric
        polynomials (a uniformly random order puts a uniformly random subset
        of each size before ``r``).  The exact sums can have up to ``2^m``
        terms: this is meant for small ranges and tests.
        """
        scores = evaluate_scores(self._quality, dataset, self._outputs)
        best = max(scores)
        m = len(scores)
        accept = [ExpSum.exp(self._epsilon * (s - best)) for s in scores]
        result: dict[Hashable, ExpRatio] = {}
        one = ExpSum.rational(1)
        for r_index, r in enumerate(self._outputs):
            symmetric = [one]
            for j in range(m):
                if j == r_index:
                    continue
                reject = one - accept[j]
                symmetric.append(ExpSum())
                for k in range(len(symmetric) - 1, 0, -1):
                    symmetric[k] = symmetric[k] + symmetric[k - 1] * reject
            total = ExpSum()
            for k, value in enumerate(symmetric):
                total = total + value.scale(Fraction(1, m * comb(m - 1, k)))
            result[r] = ExpRatio._trusted(accept[r_index] * total, one)
        return result

    def __repr__(self) -> str:
        return f"PermuteAndFlip(quality={self._quality!r}, epsilon={self._epsilon}, outputs=<{len(self._outputs)} outputs>)"


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
    if isinstance(vector.den, np.ndarray):
        vector = vector._common_denominator()
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
