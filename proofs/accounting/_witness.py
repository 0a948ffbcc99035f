"""The exact privacy-loss distribution of a witness pair, composed k times: a proven lower bound on δ.

For a finite range with rational base measure μ and rational log-weights
``a_y = ε₀·q(D, y)``, ``b_y = ε₀·q(D′, y)``, the loss of output y is
``L(y) = d_y − c`` with ``d_y = a_y − b_y`` and ``c = ln Z_D − ln Z_D′``.  The
``d_y`` lie on the lattice ``d_min + g·ℤ`` (g the gcd of the rational gaps),
so the k-fold loss is ``k·d_min + j·g − k·c`` with probability the j-th
coefficient of ``(Σ_y P(y) x^{(d_y − d_min)/g})^k``, computed as an
outward-rounded flint ball polynomial.  Then

    δ_k(ε) = Σ_j P_k(j)·(1 − e^{ε − L_j})₊

is the exact δ of the k-fold composition on this pair: a lower bound on the δ
of every family holding the mechanism, hence below the optimal BR curve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from flint import arb, arb_poly, ctx

from expmech.impl import ExpSum
from expmech.spec import InvalidArgument, PrecisionExhausted
from expmech.spec.internal import describe
from expmech.spec.internal import as_rational, nonnegative_rational, positive_rational_input

from ._balls import Enclosure, ball, endpoints, refine

__all__ = ["MAX_DEGREE", "WitnessComposition"]

#: Largest degree of the composed lattice polynomial (k times the lattice span).
MAX_DEGREE = 1 << 20


def _gcd(values: Sequence[Fraction]) -> Fraction:
    result = Fraction(0)
    for value in values:
        a, b = result, abs(value)
        if a == 0:
            result = b
            continue
        lcm = a.denominator * b.denominator // math.gcd(a.denominator, b.denominator)
        result = Fraction(math.gcd(a.numerator * (lcm // a.denominator), b.numerator * (lcm // b.denominator)), lcm)
    return result


@dataclass(frozen=True)
class _Law:
    """The k-fold lattice law at one precision: masses, the constant c, and suffix sums of the δ terms."""

    low: Fraction
    step: Fraction
    c: arb
    c_ends: tuple[Fraction, Fraction]
    masses: arb_poly
    tail_mass: list[arb]
    tail_weighted: list[arb]
    count: int


@dataclass(frozen=True)
class WitnessComposition:
    """k-fold composition of the mechanism on one neighbouring pair, exactly.

    ``measure``: μ(y) >= 0 (not all 0); ``exponents``: ``ε₀·q(D, y)``;
    ``neighbour_exponents``: ``ε₀·q(D′, y)``, all rationals, one per output;
    ``times`` >= 1.  Raises :class:`InvalidArgument` for bad input or a lattice
    polynomial of degree above :data:`MAX_DEGREE`.
    """

    measure: tuple[Fraction, ...]
    exponents: tuple[Fraction, ...]
    neighbour_exponents: tuple[Fraction, ...]
    times: int
    _laws: dict[int, _Law] = field(default_factory=dict, init=False, repr=False, compare=False)
    _ties: dict[Fraction, bool] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        measure = tuple(nonnegative_rational(m, name="measure") for m in self.measure)
        a = tuple(as_rational(v, name="exponents") for v in self.exponents)
        b = tuple(as_rational(v, name="neighbour_exponents") for v in self.neighbour_exponents)
        if not measure or len(a) != len(measure) or len(b) != len(measure):
            raise InvalidArgument("measure, exponents and neighbour_exponents must be non-empty and of one length", parameter="measure", value=len(measure))
        if not any(measure):
            raise InvalidArgument("measure must not be all zero", parameter="measure", value=self.measure)
        if isinstance(self.times, bool) or not isinstance(self.times, int) or self.times < 1:
            raise InvalidArgument(f"times={describe(self.times)} must be an int >= 1", parameter="times", value=self.times)
        object.__setattr__(self, "measure", measure)
        object.__setattr__(self, "exponents", a)
        object.__setattr__(self, "neighbour_exponents", b)
        if self._degree() > MAX_DEGREE:
            raise InvalidArgument(
                f"times={self.times}: the composed lattice polynomial has degree {self._degree()} > {MAX_DEGREE}",
                parameter="times",
                value=self.times,
            )

    def _support(self) -> list[tuple[Fraction, Fraction, Fraction]]:
        return [(m, a, b) for m, a, b in zip(self.measure, self.exponents, self.neighbour_exponents) if m > 0]

    def _lattice(self) -> tuple[Fraction, Fraction, int]:
        gaps = [a - b for _, a, b in self._support()]
        low = min(gaps)
        step = _gcd([g - low for g in gaps])
        span = 0 if step == 0 else int((max(gaps) - low) / step)
        return low, step, span

    def _degree(self) -> int:
        return self._lattice()[2] * self.times

    @property
    def top(self) -> Fraction:
        """A rational above every k-fold loss: δ(ε) = 0 from here on."""
        low, step, span = self._lattice()
        return self.times * step * span

    def _law(self) -> _Law:
        """The composed law at the current precision (built once per precision)."""
        precision = ctx.prec
        law = self._laws.get(precision)
        if law is None:
            law = self._laws[precision] = self._build_law()
        return law

    def _build_law(self) -> _Law:
        support = self._support()
        low, step, span = self._lattice()
        shift = max(a for _, a, _ in support)
        shift_b = max(b for _, _, b in support)
        z_p = sum((ball(m) * ball(a - shift).exp() for m, a, _ in support), arb(0))
        z_q = sum((ball(m) * ball(b - shift_b).exp() for m, _, b in support), arb(0))
        c = z_p.log() + ball(shift) - z_q.log() - ball(shift_b)
        coefficients = [arb(0)] * (span + 1)
        for m, a, b in support:
            j = 0 if step == 0 else int((a - b - low) / step)
            coefficients[j] += ball(m) * ball(a - shift).exp() / z_p
        masses = arb_poly(coefficients) ** self.times
        k = self.times
        count = k * span + 1
        # suffix sums A_j = Σ_{i>=j} P_i and B_j = Σ_{i>=j} P_i·e^{−(k·low + i·step)}, so that the terms of
        # δ(ε) with i >= j sum to A_j − e^{ε + k·c}·B_j
        tail_mass = [arb(0)] * (count + 1)
        tail_weighted = [arb(0)] * (count + 1)
        power = ball(-(k * low + (count - 1) * step)).exp()  # e^{−(k·low + i·step)} at i = count − 1
        up = ball(step).exp()
        mass_sum, weighted_sum = arb(0), arb(0)
        for i in range(count - 1, -1, -1):
            mass = masses[i]
            mass_sum += mass
            weighted_sum += mass * power
            tail_mass[i], tail_weighted[i] = mass_sum, weighted_sum
            power *= up
        return _Law(low=low, step=step, c=c, c_ends=endpoints(c), masses=masses, tail_mass=tail_mass, tail_weighted=tail_weighted, count=count)

    def _loss_is(self, r: Fraction) -> bool:
        """Whether ``k·c = r`` exactly, i.e. ``Z_D = Z_D′·e^{r/k}`` (decided by exact exponential-sum signs)."""
        known = self._ties.get(r)
        if known is None:
            support = self._support()
            z_p = ExpSum.weighted_exps([(m, a) for m, a, _ in support])
            z_q = ExpSum.weighted_exps([(m, b) for m, _, b in support])
            known = self._ties[r] = (z_p - z_q.shift(r / self.times)).sign() == 0
        return known

    def _ends(self, epsilon: Fraction) -> tuple[Fraction, Fraction]:
        law = self._law()
        k = self.times
        low, step = law.low, law.step
        c_low, c_high = law.c_ends
        # the loss of lattice point j is L_j = k·low + j·step − k·c, increasing in j: its excess over ε is
        # certainly positive from `certain` on, and certainly negative below `possible`
        if step == 0:
            possible = certain = 0 if k * low - epsilon > k * c_high else law.count
            if k * low - epsilon >= k * c_low and certain > 0:
                possible = 0
        else:
            certain = min(max(math.floor((epsilon + k * c_high - k * low) / step) + 1, 0), law.count)
            possible = min(max(math.ceil((epsilon + k * c_low - k * low) / step), 0), law.count)
        possible = min(possible, certain)
        main = law.tail_mass[certain] - (ball(epsilon) + k * law.c).exp() * law.tail_weighted[certain]
        lo, hi = endpoints(main)
        lo, hi = max(lo, Fraction(0)), max(hi, Fraction(0))
        for j in range(possible, certain):  # the excess may be either sign: the term lies in [0, its upper end]
            if self._loss_is(k * low + j * step - epsilon):
                continue  # L_j = ε exactly: the term is 0
            excess = ball(k * low + j * step - epsilon) - k * law.c
            term = law.masses[j] * -(-excess).expm1()
            hi += max(endpoints(term)[1], Fraction(0))
        return lo, hi

    def delta(self, epsilon: Any) -> Enclosure:
        """An enclosure of the exact δ(ε) of the k-fold composition on this pair (``epsilon > 0``)."""
        eps = positive_rational_input(epsilon, name="epsilon")
        try:
            return refine(lambda: self._ends(eps), "the witness delta")
        except PrecisionExhausted:  # a loss equal to ε: its term is 0, the enclosure stays sound
            with ctx.workprec(1024):
                return Enclosure(*self._ends(eps))

    def epsilon_lower(self, delta: Any) -> Fraction:
        """A rational ε_lo with ``δ(ε_lo) > delta`` proved on this pair, so every (ε, δ) claim of the composition has ε > ε_lo; 0 if none is found.

        Bisection on the lower ends of :meth:`delta` (δ(ε) is non-increasing in ε), to relative width 1e-9.
        """
        target = as_rational(delta, name="delta")
        if not 0 < target < 1:
            raise InvalidArgument(f"delta={describe(delta)} must be in (0, 1)", parameter="delta", value=delta)
        lo, hi = Fraction(0), self.top
        if hi == 0:
            return Fraction(0)
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid.denominator > 2**64:
                mid = mid.limit_denominator(2**60) if mid.limit_denominator(2**60) > lo else mid
            if self.delta(mid).lower > target:
                lo = mid
            else:
                hi = mid
            if lo > 0 and hi - lo <= lo / 10**9:
                break
        return lo
