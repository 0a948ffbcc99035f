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

The draw is :func:`~expmech.impl.sampling._coins.sample_permute_and_flip`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from fractions import Fraction
from math import comb
from typing import Any

from ..exact._exactreal import ExpRatio
from ..exact._expsum import ExpSum
from ..quality._inputs import check_epsilon, check_outputs, check_quality, evaluate_scores
from ._pf_law import PermuteAndFlipDistribution
from ..sampling._coins import sample_permute_and_flip
from ..sampling._random import resolve_rng
from ..exponential._finite import PrivacyLoss
from ..quality._scoring import ScoreFunction

__all__ = ["PermuteAndFlip"]


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
