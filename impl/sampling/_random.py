"""Exact random primitives: uniform integers and Bernoulli trials from random bits.

Nothing here touches a float.  ``rng`` is any :class:`random.Random`
(``secrets.SystemRandom()`` when ``None``); only its integer methods
(``getrandbits``, ``randrange``, ``shuffle``) are used, which are exact.
"""

from __future__ import annotations

import random
import secrets
from fractions import Fraction
from typing import Any

from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import as_rational, describe, nonnegative_rational

__all__ = ["resolve_rng", "sample_bernoulli", "sample_bernoulli_exp"]


#: The generator behind ``rng=None``: the operating system's randomness, which has no state to share, so one
#: instance serves every call (and keeps the bits a draw did not read for the next, see ``_bits``).
_SYSTEM = secrets.SystemRandom()


def resolve_rng(rng: Any) -> random.Random:
    """``rng`` itself if it is a :class:`random.Random`, the shared ``secrets.SystemRandom`` for ``None``."""
    if rng is None:
        return _SYSTEM
    if not isinstance(rng, random.Random):
        raise InvalidType(
            f"rng={describe(rng)} must be a random.Random (e.g. secrets.SystemRandom()) or None",
            parameter="rng",
            value=rng,
        )
    return rng


def sample_bernoulli(p: Any, *, rng: random.Random | None = None) -> bool:
    """Return True with probability exactly ``p``, a rational in [0, 1]."""
    probability = as_rational(p, name="p")
    if not 0 <= probability <= 1:
        raise InvalidArgument(f"p={describe(p)} must be in [0, 1]", parameter="p", value=p)
    return _bernoulli(probability, resolve_rng(rng))


def sample_bernoulli_exp(gamma: Any, *, rng: random.Random | None = None) -> bool:
    """Return True with probability exactly ``e^{-gamma}`` for a rational ``gamma >= 0``.

    Canonne, Kamath and Steinke (2020), Algorithm 1: for ``gamma <= 1`` count
    the successes ``k`` of Bernoulli(gamma/k) trials until the first failure;
    ``P[k odd] = e^{-gamma}``.  Larger ``gamma`` is split as
    ``e^{-gamma} = (e^{-1})^{floor(gamma)} · e^{-(gamma - floor(gamma))}``.
    Uses integer random bits only.
    """
    value = nonnegative_rational(gamma, name="gamma")
    return _bernoulli_exp(value, resolve_rng(rng))


def _bernoulli(p: Fraction, rng: random.Random) -> bool:
    return rng.randrange(p.denominator) < p.numerator


def _bernoulli_exp_small(gamma: Fraction, rng: random.Random) -> bool:
    """Bernoulli(e^{-gamma}) for 0 <= gamma <= 1."""
    num, den = gamma.numerator, gamma.denominator
    k = 1
    while rng.randrange(den * k) < num:  # Bernoulli(gamma / k)
        k += 1
    return k % 2 == 1


_ONE = Fraction(1)


def _bernoulli_exp(gamma: Fraction, rng: random.Random) -> bool:
    if gamma <= 1:
        return _bernoulli_exp_small(gamma, rng)
    whole = gamma.numerator // gamma.denominator
    for _ in range(whole):
        if not _bernoulli_exp_small(_ONE, rng):
            return False
    return _bernoulli_exp_small(gamma - whole, rng)
