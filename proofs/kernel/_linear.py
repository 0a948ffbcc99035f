"""Linear forms: the parts of a subterm that change through one record only, found by the kernel itself.

A subterm is *linear* when it is built by ``+`` and by products with
data-free factors from ``count``, ``total``, ``mean`` and ``size()``, with at
most one division by ``size()`` of a part without a mean or a constant:

    ``Σ cᵢ(r)·count(pᵢ) + Σ dⱼ(r)·total(eⱼ) + k(r)·size() + (Σ …)/size() + mean terms + data-free``

Between neighbours such a subterm changes through the changed record alone:
its per-record term ``h(x, r) = Σ cᵢ(r)·[pᵢ(x, r)] + Σ dⱼ(r)·eⱼ(x, r)`` (the
*plain* part), ``k(r)`` per record added, and a *normalised* part ``g`` whose
mean moves by at most ``max g − min g`` over ``n`` (replace-one) or ``n + 1``
(add-remove).  Coefficients are kept as tuples of factors, never multiplied
out by sympy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from expmech.spec import Count, Mean, Size, Total

from ._terms import has_aggregate

__all__ = ["Linear", "Piece", "linear_form"]

#: One term of a part: (data-free factors, per-record body, whether the body is a count's predicate)
Piece = tuple[tuple[sympy.Basic, ...], sympy.Basic, bool]


@dataclass
class Linear:
    """The parts of a linear subterm (see the module docstring); ``per_size`` holds the factors of each ``k(r)`` term."""

    plain: list[Piece] = field(default_factory=list)
    per_size: list[tuple[sympy.Basic, ...]] = field(default_factory=list)
    normalised: list[Piece] = field(default_factory=list)
    constant: bool = False  # a data-free part is present
    divided: bool = False  # a division by size(): undefined on the empty dataset

    def add(self, other: Linear) -> None:
        """Add ``other`` into this form."""
        self.plain += other.plain
        self.per_size += other.per_size
        self.normalised += other.normalised
        self.constant |= other.constant
        self.divided |= other.divided

    def scaled(self, factors: tuple[sympy.Basic, ...]) -> Linear:
        """Every term times the data-free ``factors``."""
        return Linear(
            [(factors + f, b, c) for f, b, c in self.plain],
            [factors + f for f in self.per_size],
            [(factors + f, b, c) for f, b, c in self.normalised],
            self.constant,
            self.divided,
        )


def linear_form(expr: sympy.Basic) -> Linear | None:
    """The linear form of ``expr`` (None when it is not one)."""
    if not has_aggregate(expr):
        return Linear(constant=True)
    if isinstance(expr, Count):
        return Linear(plain=[((), expr.args[0], True)])
    if isinstance(expr, Total):
        return Linear(plain=[((), expr.args[0], False)])
    if isinstance(expr, Mean):
        return Linear(normalised=[((), expr.args[0], False)], divided=True)
    if isinstance(expr, Size):
        return Linear(per_size=[()])
    if isinstance(expr, sympy.Add):
        total = Linear()
        for arg in expr.args:
            part = linear_form(arg)
            if part is None:
                return None
            total.add(part)
        return total
    if isinstance(expr, sympy.Mul):
        constants = tuple(f for f in expr.args if not has_aggregate(f))
        divided = [f for f in expr.args if isinstance(f, sympy.Pow) and isinstance(f.args[0], Size) and f.args[1] == -1]
        rest = [f for f in expr.args if has_aggregate(f) and f not in divided]
        if len(rest) != 1 or len(divided) > 1:
            return None
        inner = linear_form(rest[0])
        if inner is None:
            return None
        if divided:
            if inner.normalised or inner.constant:
                return None
            # (Σ h + k·size()) / size() = mean of h + k: the k part is data-free
            inner = Linear(normalised=inner.plain, divided=True)
        return inner.scaled(constants)
    return None
