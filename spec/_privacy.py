"""ε from the privacy theorem, derived symbolically."""

from __future__ import annotations

from typing import Any

import sympy

from ._errors import InvalidArgument, describe
from ._language import DATASET_SIZE
from ._source import PRIVACY, Delta, Z_d, Z_d2, eps, q_d, q_d2

__all__ = ["derive_epsilon"]


def derive_epsilon(epsilon0: Any, sensitivity: Any, *, monotone: bool = False, normaliser_invariant: bool = False) -> sympy.Expr:
    """The ε of ``E_q^{ε₀}`` with sensitivity Δq, from the spec's privacy statement.

    The source's theorem (statement ``privacy``) bounds the density ratio by
    ``e^{2 ε Δq}``; its exponent with ``ε = ε₀`` and ``Δq = sensitivity`` is the
    result, simplified by sympy (symbolic in ``n`` when Δq is).  With
    ``monotone=True`` — q(·, r) moves the same way for every r between any two
    neighbours, which the caller must have *proved* — the normaliser's factor
    cancels against the numerator's and the bound is ``ε₀ Δq`` (McSherry and
    Talwar's refinement; the source does not state it).

    With ``normaliser_invariant=True`` — the normaliser is the same number for
    every dataset, which the caller must have *proved* (a translation-invariant
    q over ℝ with Lebesgue μ: the Laplace mechanism) — the proof's first step,
    ``p_d(r) / p_{d'}(r) = e^{ε (q_d − q_{d'})} · Z_{d'} / Z_d``, loses its
    normaliser factor, and with ``q_d − q_{d'} <= Δq`` the bound is ``ε₀ Δq``.
    """
    e0 = sympy.sympify(epsilon0)
    delta = sympy.sympify(sensitivity)
    if not (_positive_from_one(e0) is True):
        raise InvalidArgument(f"epsilon0={describe(epsilon0)} must be > 0", parameter="epsilon0", value=epsilon0)
    if delta.is_negative is True:
        raise InvalidArgument(f"sensitivity={describe(sensitivity)} must be >= 0", parameter="sensitivity", value=sensitivity)
    conclusion = PRIVACY.conclusion
    if not isinstance(conclusion, sympy.core.relational.Relational):  # pragma: no cover - fixed in the spec
        raise InvalidArgument("the privacy statement has no relational conclusion", parameter="statement", value=conclusion)
    if normaliser_invariant:
        ratio = PRIVACY.steps[0].claim.rhs.subs(Z_d2, Z_d)  # e^{ε (q_d − q_d')}: Z_d' = Z_d
        exponent = sympy.expand_log(sympy.log(ratio), force=True).subs(q_d, q_d2 + Delta)
        return sympy.simplify(exponent.subs({eps: e0, Delta: delta}))
    exponent = sympy.log(conclusion.rhs)  # the theorem's bound e^{2 ε Δq}
    exponent = sympy.expand_log(exponent, force=True)
    if monotone:
        exponent = exponent / 2
    return sympy.simplify(exponent.subs({eps: e0, Delta: delta}))


def _positive_from_one(value: sympy.Expr) -> bool | None:
    """Whether ``value`` is positive for every dataset size ``n >= 1``.

    An ε₀ in ``n`` (the synthetic-data mechanism's ``ε·n/2``) belongs to a
    mechanism run on ``n >= 1`` records; the spec's ``n`` is a nonnegative
    symbol (the empty dataset is a dataset), so it is read here at ``n = m + 1``
    with ``m >= 0``.
    """
    if DATASET_SIZE not in value.free_symbols:
        return value.is_positive
    shifted = sympy.Symbol("m", integer=True, nonnegative=True)
    return sympy.simplify(value.xreplace({DATASET_SIZE: shifted + 1})).is_positive
