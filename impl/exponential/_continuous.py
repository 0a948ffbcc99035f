"""The exponential mechanism over an interval of the reals, exactly.

With a quality piecewise linear in r (``expmech.impl.quality._piecewise``) and a
piecewise-constant density μ, the output density ``μ(r) e^{ε q(d, r)} / Z`` is
``d_j e^{ε (a_j r + b_j)} / Z`` on each piece, and every integral of it is a
finite exponential sum with rational coefficients:

* ``∫_l^h d e^{ε(a r + b)} dr = d/(ε a) · (e^{ε(a h + b)} − e^{ε(a l + b)})`` for ``a ≠ 0``,
  ``d (h − l) e^{ε b}`` for ``a = 0``; an infinite end contributes 0 when the
  integral converges there (``a < 0`` towards +∞, ``a > 0`` towards −∞);
* so the normaliser, the mass of any union of intervals, the CDF, the mass of
  each output cell, ``E[q]`` and the level sets of the accuracy lemma are exact
  (:class:`~expmech.impl.ExpRatio`), and whether ``Z`` is finite is decided
  exactly — a divergent one raises :class:`~expmech.spec.DivergentNormaliser`
  (the source's hypothesis ``finite-normaliser``), never a number.

A draw is released on a grid (``expmech.impl.sampling._lazy``): the piece is drawn by
inversion against the exact cumulative masses, then the cell inside it by
inverting the piece's uniform or truncated-exponential law, both from random
bits alone, every decision exact.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx

from expmech.spec import DivergentNormaliser, InvalidArgument, RationalRange
from expmech.spec.internal import as_rational, describe

from ..exact._balls import _exact_fraction
from ..exact._exactreal import ExpRatio
from ..exact._expsum import DEFAULT_MAX_PRECISION, ExpSum, arb_from_fraction
from ..exact._lattice import LatticeSum, term_balls
from ..sampling._lazy import cell_of, draw_lazily, grid_step, locate_exactly, locate_in_table, released_cell, released_value, released_values
from ..quality._piecewise import PiecewiseLinear, interior_point, refine
from ..exact._rationals import RationalArray, concatenate, where
from ..sampling._random import resolve_rng
from ._ranges import Candidate, RangeMechanism, RangePrivacyLoss, loss_from_candidates, unbounded_loss

__all__ = ["ContinuousDistribution", "ContinuousMechanism"]

Interval = tuple[Fraction | None, Fraction | None]
_MAX_CELLS = 1 << 20


# -- pieces of the support -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _Pieces:
    """Pieces ``[lo, hi]`` of positive density: q = slope·r + intercept there, μ has density ``density``."""

    lo: RationalArray
    lo_inf: np.ndarray
    hi: RationalArray
    hi_inf: np.ndarray
    slope: RationalArray
    intercept: RationalArray
    density: RationalArray

    def __len__(self) -> int:
        return len(self.slope)

    def subset(self, mask: np.ndarray) -> _Pieces:
        return _Pieces(
            self.lo[mask], self.lo_inf[mask], self.hi[mask], self.hi_inf[mask], self.slope[mask], self.intercept[mask], self.density[mask]
        )

    def bounds(self, j: int) -> Interval:
        return (None if self.lo_inf[j] else self.lo.item(j), None if self.hi_inf[j] else self.hi.item(j))

    def clip(self, start: Fraction | None, end: Fraction | None) -> _Pieces:
        """Each piece intersected with ``[start, end]`` (empty ones dropped)."""
        lo, lo_inf, hi, hi_inf = self.lo, self.lo_inf, self.hi, self.hi_inf
        if start is not None:
            lo = where(lo_inf | (lo < start), RationalArray.full((), start), lo)
            lo_inf = np.zeros_like(lo_inf)
        if end is not None:
            hi = where(hi_inf | (hi > end), RationalArray.full((), end), hi)
            hi_inf = np.zeros_like(hi_inf)
        return _Pieces(lo, lo_inf, hi, hi_inf, self.slope, self.intercept, self.density)._nonempty()

    def where_quality(self, threshold: Fraction, *, above: bool) -> _Pieces:
        """Each piece cut down to ``{q > threshold}`` (``above``) or ``{q <= threshold}``."""
        a, b = self.slope, self.intercept
        sloped = a.num != 0
        root = (RationalArray.full((), threshold) - b) * where(sloped, a, RationalArray.full((), 1)).reciprocal().shared()
        rising = a.num > 0
        # q > c on [root, ∞) when rising, on (−∞, root] when falling; the reverse for q <= c
        raise_lo = sloped & (rising if above else ~rising)
        lower_hi = sloped & (~rising if above else rising)
        lo = where(raise_lo & (self.lo_inf | (self.lo < root)), root, self.lo)
        lo_inf = self.lo_inf & ~raise_lo
        hi = where(lower_hi & (self.hi_inf | (self.hi > root)), root, self.hi)
        hi_inf = self.hi_inf & ~lower_hi
        flat_ok = (b > threshold) if above else (b <= threshold)
        keep = sloped | flat_ok
        return _Pieces(lo, lo_inf, hi, hi_inf, a, b, self.density).subset(keep)._nonempty()

    def _nonempty(self) -> _Pieces:
        return self.subset(self.lo_inf | self.hi_inf | (self.lo < self.hi))

    def measure(self) -> Fraction:
        """``μ`` of the pieces (they must be bounded)."""
        if len(self) == 0:
            return Fraction(0)
        if np.any(self.lo_inf | self.hi_inf):
            raise InvalidArgument("internal error: the measure of an unbounded set of pieces", parameter="pieces", value=None)
        return ((self.hi - self.lo) * self.density).total()


def _pieces(pl: PiecewiseLinear, measure: Any) -> _Pieces:
    cuts, (slope,), (intercept,), density = refine([pl], measure.breakpoints, measure.densities)
    lo_value = RationalArray.full((1,), pl.lo if pl.lo is not None else 0)
    hi_value = RationalArray.full((1,), pl.hi if pl.hi is not None else 0)
    lo = concatenate([lo_value, cuts])
    hi = concatenate([cuts, hi_value])
    count = len(slope)
    lo_inf = np.zeros(count, dtype=bool)
    hi_inf = np.zeros(count, dtype=bool)
    lo_inf[0] = pl.lo is None
    hi_inf[-1] = pl.hi is None
    pieces = _Pieces(lo, lo_inf, hi, hi_inf, slope, intercept, density)
    return pieces.subset(density.num != 0)._nonempty()


def _check_finite(pieces: _Pieces, epsilon: Fraction) -> None:
    a = pieces.slope
    bad = (pieces.hi_inf & (a.num >= 0)) | (pieces.lo_inf & (a.num <= 0))
    if np.any(bad):
        j = int(np.flatnonzero(bad)[0])
        lo, hi = pieces.bounds(j)
        slope = a.item(j)
        side = "+∞" if pieces.hi_inf[j] else "−∞"
        raise DivergentNormaliser(
            f"the normaliser ∫ e^{{ε q(d, r)}} μ(r) dr diverges (hypothesis 'finite-normaliser' of the mechanism fails): "
            f"on the piece ({'−∞' if lo is None else lo}, {'+∞' if hi is None else hi}) q has slope {slope} towards {side} "
            f"and μ has density {pieces.density.item(j)} > 0, so e^{{ε q}} does not decay there (ε = {epsilon})",
            piece=(lo, hi),
        )


def _terms(pieces: _Pieces, epsilon: Fraction, *, expectation: bool = False) -> tuple[RationalArray, RationalArray, np.ndarray]:
    """Coefficients and exponents of ``∫ e^{εq} dμ`` (or ``∫ q e^{εq} dμ``) over the pieces, and each term's piece."""
    a, b, d = pieces.slope, pieces.intercept, pieces.density
    index = np.arange(len(pieces))
    flat = a.num == 0
    sloped = ~flat
    coefficients, exponents, owners = [], [], []
    if np.any(flat):
        f = pieces.subset(flat)
        weight = (f.hi - f.lo) * f.density
        coefficients.append(weight * f.intercept if expectation else weight)
        exponents.append(f.intercept * epsilon)
        owners.append(index[flat])
    if np.any(sloped):
        s = pieces.subset(sloped)
        inverse = s.slope.reciprocal().shared() * s.density
        scale = inverse * (1 / epsilon**2 if expectation else 1 / epsilon)
        for end, end_inf, sign in ((s.hi, s.hi_inf, 1), (s.lo, s.lo_inf, -1)):
            finite = ~end_inf
            y = (s.slope * end + s.intercept) * epsilon
            coefficient = scale * (y - 1) if expectation else scale
            coefficients.append((coefficient * sign)[finite])
            exponents.append(y[finite])
            owners.append(index[sloped][finite])
    if not coefficients:
        return RationalArray.zeros((0,)), RationalArray.zeros((0,)), np.zeros(0, dtype=np.int64)
    return concatenate(coefficients), concatenate(exponents), np.concatenate(owners)


def _lattice(pieces: _Pieces, epsilon: Fraction, *, expectation: bool = False) -> LatticeSum:
    coefficients, exponents, _ = _terms(pieces, epsilon, expectation=expectation)
    if len(coefficients) == 0:
        return LatticeSum.zero()
    return LatticeSum.from_arrays(coefficients, exponents)


def _intervals(subset: Any, lo: Fraction | None, hi: Fraction | None) -> list[Interval]:
    """A union of intervals (a pair, a RationalRange, or a list of them) as sorted disjoint pairs."""
    if isinstance(subset, RationalRange):
        items: list[Any] = [(subset.lo, subset.hi)]
    elif isinstance(subset, tuple) and len(subset) == 2 and not isinstance(subset[0], tuple | RationalRange):
        items = [subset]
    elif isinstance(subset, list | tuple):
        items = list(subset)
    else:
        raise InvalidArgument(
            f"subset={describe(subset)} must be an interval (lo, hi) with None for an infinite end, a RationalRange, or a list of them",
            parameter="subset",
            value=subset,
        )
    pairs: list[Interval] = []
    for index, item in enumerate(items):
        if isinstance(item, RationalRange):
            start, end = item.lo, item.hi
        elif isinstance(item, tuple) and len(item) == 2:
            start = None if item[0] is None else as_rational(item[0], name=f"subset[{index}].lo")
            end = None if item[1] is None else as_rational(item[1], name=f"subset[{index}].hi")
        else:
            raise InvalidArgument(f"subset[{index}]={describe(item)} must be a pair (lo, hi)", parameter="subset", value=item)
        if start is not None and end is not None and start > end:
            raise InvalidArgument(f"subset[{index}]=({start}, {end}) has lo > hi", parameter="subset", value=item)
        pairs.append((start, end))
    pairs.sort(key=lambda p: (p[0] is not None, p[0] if p[0] is not None else 0))
    merged: list[Interval] = []
    for start, end in pairs:
        if merged:
            last_start, last_end = merged[-1]
            if last_end is None or (start is not None and start <= last_end):
                merged[-1] = (last_start, None if last_end is None or end is None else max(last_end, end))
                continue
        merged.append((start, end))
    return merged


# -- the distribution ----------------------------------------------------------------------------


class ContinuousDistribution:
    """The exact output law of :class:`ContinuousMechanism` on one dataset.

    The density is ``p(r) = μ(r) e^{ε q(d, r)} / Z`` on the range.  Masses of
    intervals, the CDF, the masses of output cells, ``E[q]`` and the privacy
    loss are exact; ``float()`` of any of them is for display only.
    """

    __slots__ = ("_mechanism", "_quality", "_pieces", "_normaliser", "_normaliser_sum", "_table")

    def __init__(self, mechanism: ContinuousMechanism, quality: PiecewiseLinear) -> None:
        self._mechanism = mechanism
        self._quality = quality
        pieces = _pieces(quality, mechanism.base_measure)
        if len(pieces) == 0:
            raise InvalidArgument(
                f"base_measure={mechanism.base_measure!r} is 0 on the whole range {mechanism.outputs.describe()}",
                parameter="base_measure",
                value=mechanism.base_measure,
            )
        _check_finite(pieces, mechanism.epsilon)
        self._pieces = pieces
        self._normaliser = _lattice(pieces, mechanism.epsilon)
        self._normaliser_sum: ExpSum | None = None
        self._table: tuple[list[arb], arb, int] | None = None

    # -- description -------------------------------------------------------------------------

    @property
    def mechanism(self) -> ContinuousMechanism:
        """The mechanism this is the law of."""
        return self._mechanism

    @property
    def quality_pieces(self) -> PiecewiseLinear:
        """``q(d, ·)`` on the range as exact pieces."""
        return self._quality

    def pieces(self) -> list[tuple[Fraction | None, Fraction | None, Fraction, Fraction, Fraction]]:
        """The support as ``(lo, hi, slope, intercept, density)``: q = slope·r + intercept, μ has that density."""
        p = self._pieces
        return [(*p.bounds(j), p.slope.item(j), p.intercept.item(j), p.density.item(j)) for j in range(len(p))]

    @property
    def normaliser(self) -> ExpSum:
        """``Z = ∫ e^{ε q(d, r)} μ(r) dr``, exactly."""
        if self._normaliser_sum is None:
            self._normaliser_sum = self._normaliser.to_expsum()
        return self._normaliser_sum

    def _ratio(self, numerator: LatticeSum) -> ExpRatio:
        return ExpRatio._trusted(numerator.to_expsum(), self.normaliser)

    # -- point values ----------------------------------------------------------------------------

    def _point(self, r: Any) -> Fraction:
        value = as_rational(r, name="r")
        lo, hi = self._quality.lo, self._quality.hi
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise InvalidArgument(f"r={describe(r)} is outside the range {self._mechanism.outputs.describe()}", parameter="r", value=r)
        return value

    def quality(self, r: Any) -> Fraction:
        """``q(d, r)`` from the pieces (at a breakpoint: the limit from the right)."""
        return self._quality.value(self._point(r))

    def density(self, r: Any) -> ExpRatio:
        """The density ``p(r) = μ(r) e^{ε q(d, r)} / Z`` (right-continuous at a breakpoint)."""
        value = self._point(r)
        mu = self._mechanism.base_measure.density(value)
        numerator = ExpSum.weighted_exps([(mu, self._mechanism.epsilon * self._quality.value(value))])
        return ExpRatio._trusted(numerator, self.normaliser)

    # -- masses ----------------------------------------------------------------------------------

    def _mass_lattice(self, subset: Any) -> LatticeSum:
        total = LatticeSum.zero()
        for start, end in _intervals(subset, self._quality.lo, self._quality.hi):
            total = total + _lattice(self._pieces.clip(start, end), self._mechanism.epsilon)
        return total

    def mass(self, subset: Any) -> ExpRatio:
        """``P[output ∈ subset]`` exactly: an interval ``(lo, hi)`` (None: infinite), a RationalRange, or a list of them."""
        return self._ratio(self._mass_lattice(subset))

    probability = mass

    def cdf(self, t: Any) -> ExpRatio:
        """``P[output <= t]`` exactly."""
        return self.mass((None, as_rational(t, name="t")))

    def enclose(self, subset: Any, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals around ``mass(subset)``, relative width ``<= 2**-bits``."""
        return self.mass(subset).enclose(bits, max_precision=max_precision)

    def cell(self, value: Any, *, grid_bits: Any = None, grid: Any = None) -> Interval:
        """The interval of draws released as ``value`` on the grid (see ``expmech.impl.sampling._lazy``)."""
        step = grid_step(grid_bits, grid)
        found = released_cell(self._point(value), step, self._quality.lo, self._quality.hi)
        if found is None:
            raise InvalidArgument(
                f"value={describe(value)} is not released on the grid of step {step} (a multiple of it, or the range's lower end)",
                parameter="value",
                value=value,
            )
        return found

    def cell_probability(self, value: Any, *, grid_bits: Any = None, grid: Any = None) -> ExpRatio:
        """The exact probability that a draw rounded to the grid is released as ``value``."""
        return self.mass(self.cell(value, grid_bits=grid_bits, grid=grid))

    def cells(self, *, grid_bits: Any = None, grid: Any = None) -> dict[Fraction, ExpRatio]:
        """Every released value of a bounded range with its exact probability (at most 2^20 cells)."""
        step = grid_step(grid_bits, grid)
        lo, hi = self._quality.lo, self._quality.hi
        if lo is None or hi is None:
            raise InvalidArgument("cells() needs a bounded range; use cell_probability(value)", parameter="outputs", value=self._mechanism.outputs)
        return {value: self.cell_probability(value, grid=step) for value in released_values(lo, hi, step, limit=_MAX_CELLS)}

    # -- accuracy ------------------------------------------------------------------------------

    def expected_quality(self) -> ExpRatio:
        """``E[q(d, output)]`` exactly."""
        return self._ratio(_lattice(self._pieces, self._mechanism.epsilon, expectation=True))

    def optimum(self) -> Fraction:
        """``OPT = ess sup q(d, r)`` over μ (a supremum, perhaps approached at a breakpoint).

        Essential: the law has a density, so q at an isolated point (a μ-null
        set, say ``Eq(r, c)``) is not seen; the source's Lemma 1 and Theorem 2
        hold with any constant in place of OPT, so they hold with this one.
        Over the integers (:class:`CountableDistribution`) every point counts.
        """
        p = self._pieces
        values = []
        for end, end_inf in ((p.hi, p.hi_inf), (p.lo, p.lo_inf)):
            finite = ~end_inf
            values.append((p.slope * end + p.intercept)[finite])
        values.append(p.intercept[p.slope.num == 0])
        candidates = concatenate(values)
        return max(candidates.fractions())

    def level_measure(self, threshold: Any) -> Fraction:
        """``μ({r : q(d, r) > threshold})`` exactly (the source's μ(S_t) with threshold OPT − t)."""
        return self._pieces.where_quality(as_rational(threshold, name="threshold"), above=True).measure()

    def mass_at_most(self, threshold: Any) -> ExpRatio:
        """``P[q(d, output) <= threshold]`` exactly (the source's p(S̄_{2t}) with threshold OPT − 2t)."""
        part = self._pieces.where_quality(as_rational(threshold, name="threshold"), above=False)
        return self._ratio(_lattice(part, self._mechanism.epsilon))

    def measure_at_most(self, threshold: Any) -> Fraction:
        """``μ({r : q(d, r) <= threshold})`` exactly (the source's μ(S̄_{2t})); it must be bounded."""
        part = self._pieces.where_quality(as_rational(threshold, name="threshold"), above=False)
        if np.any(part.lo_inf | part.hi_inf):
            raise InvalidArgument(f"μ({{q <= {threshold}}}) is infinite", parameter="threshold", value=threshold)
        return part.measure()

    # -- privacy loss ------------------------------------------------------------------------------

    def privacy_loss(self, other: ContinuousDistribution) -> RangePrivacyLoss:
        """The exact ``ess sup_r |ln p_self(r) − ln p_other(r)|`` over the support of μ, and where.

        ``ln p1 − ln p2 = ε (q1 − q2)(r) + ln(Z2 / Z1)`` is linear on each piece
        of the common refinement, so its supremum and infimum are at piece
        ends (as limits), on a piece where it is constant, or infinite at an
        infinite end where ``q1 − q2`` has a slope.
        """
        if not isinstance(other, ContinuousDistribution) or other._mechanism is not self._mechanism:
            raise InvalidArgument(f"other={describe(other)} must be a ContinuousDistribution of the same mechanism", parameter="other", value=other)
        measure = self._mechanism.base_measure
        cuts, (a1, a2), (b1, b2), density = refine([self._quality, other._quality], measure.breakpoints, measure.densities)
        q = self._quality
        lo = concatenate([RationalArray.full((1,), q.lo if q.lo is not None else 0), cuts])
        hi = concatenate([cuts, RationalArray.full((1,), q.hi if q.hi is not None else 0)])
        count = len(a1)
        lo_inf = np.zeros(count, dtype=bool)
        hi_inf = np.zeros(count, dtype=bool)
        lo_inf[0], hi_inf[-1] = q.lo is None, q.hi is None
        pieces = _Pieces(lo, lo_inf, hi, hi_inf, a1 - a2, b1 - b2, density).subset(density.num != 0)._nonempty()
        return _loss(pieces, self._normaliser, other._normaliser, self._mechanism.epsilon)

    # -- sampling ----------------------------------------------------------------------------------

    def sample(self, *, rng: random.Random | None = None, grid_bits: Any = None, grid: Any = None) -> Fraction:
        """One exact draw, rounded down to the grid (``2^{−grid_bits}``, default 2^-20, or ``grid``).

        The piece is drawn by inversion against exact cumulative masses, then
        the cell by inverting the piece's uniform or truncated-exponential
        law; only integer random bits are used and every comparison is exact.
        """
        step = grid_step(grid_bits, grid)
        generator = resolve_rng(rng)
        j = draw_lazily(self._locate_piece, generator)
        return draw_lazily(lambda u, k: self._locate_cell(j, step, u, k), generator)

    def _sampling_table(self) -> tuple[list[arb], arb, int]:
        if self._table is None:
            coefficients, exponents, owners = _terms(self._pieces, self._mechanism.epsilon)
            count = len(self._pieces)
            precision = 96 + 2 * count.bit_length()
            weights = [arb(0)] * count
            with ctx.workprec(precision):
                top = max(exponents.fractions()) if len(exponents) < 64 else exponents.item(int(np.argmax(exponents.num)))
                for ball, j in zip(term_balls(coefficients, exponents, precision), owners.tolist()):
                    weights[j] = weights[j] + ball
                prefix = []
                running = arb(0)
                for weight in weights:
                    running = running + weight
                    prefix.append(running)
            self._table = (prefix, arb_from_fraction(top), precision)
        return self._table

    def _locate_piece(self, u: int, k: int) -> int | None:
        prefix, _, precision = self._sampling_table()
        if k <= 64:
            return locate_in_table(prefix, precision, u, k)
        return self._locate_piece_exact(u, k)

    def _locate_piece_exact(self, u: int, k: int) -> int | None:
        coefficients, exponents, owners = _terms(self._pieces, self._mechanism.epsilon)
        total = self._normaliser

        def side(j: int, extra: int) -> int:
            """sign((u + extra) / 2^k − F_j) with F_j the exact mass of pieces 0..j."""
            mask = owners <= j
            prefix = LatticeSum.from_arrays(coefficients[mask], exponents[mask])
            return (total.scale(Fraction(u + extra)) - prefix.scale(Fraction(1 << k))).sign()

        return locate_exactly(len(self._pieces) - 1, side)

    def _locate_cell(self, j: int, step: Fraction, u: int, k: int) -> Fraction | None:
        p = self._pieces
        lo, hi = p.bounds(j)
        slope = p.slope.item(j)
        scale = Fraction(1, 1 << k)
        range_lo = self._quality.lo
        if slope == 0:
            assert lo is not None and hi is not None
            start = lo + (hi - lo) * u * scale
            end = lo + (hi - lo) * (u + 1) * scale
            index = cell_of(start, step)
            return released_value(index, step, range_lo) if end <= (index + 1) * step else None
        rate = self._mechanism.epsilon * slope
        magnitude = max(abs(v) for v in (lo, hi, Fraction(1)) if v is not None)
        extra = max(0, (magnitude / step).__ceil__().bit_length()) + 32
        if lo is not None and hi is not None:
            width = rate * (hi - lo)
            extra += max(0, -(abs(width).numerator.bit_length() - abs(width).denominator.bit_length()))
        precision = k + 64 + extra
        with ctx.workprec(precision):
            ends = []
            for numerator in (u, u + 1):
                value = _inverse(lo, hi, rate, Fraction(numerator, 1 << k))
                if value is None:
                    return None
                ends.append(value)
            candidate = cell_of(_midpoint(ends[0]), step)
            if ends[0] >= arb_from_fraction(candidate * step) and ends[1] <= arb_from_fraction((candidate + 1) * step):
                return released_value(candidate, step, range_lo)
        return None

    def approximate(self, *, grid_bits: Any = None, grid: Any = None) -> dict[Fraction, float]:
        """``{released value: float(probability)}`` for a bounded range, for display and plots only."""
        return {value: float(p) for value, p in self.cells(grid_bits=grid_bits, grid=grid).items()}

    def __repr__(self) -> str:
        return f"ContinuousDistribution(<{len(self._pieces)} pieces on {self._mechanism.outputs.describe()}>, epsilon={self._mechanism.epsilon})"


def _midpoint(ball: arb) -> Fraction:
    return _exact_fraction(ball.mid())


def _inverse(lo: Fraction | None, hi: Fraction | None, rate: Fraction, u: Fraction) -> arb | None:
    """A ball for the point where the piece's CDF reaches ``u`` (density ∝ e^{rate·r}); None where infinite."""
    a = arb_from_fraction(rate)
    if lo is None:  # rate > 0: CDF(r) = e^{rate (r − hi)}
        if u == 0:
            return None
        assert hi is not None
        return arb_from_fraction(hi) + arb_from_fraction(u).log() / a
    if hi is None:  # rate < 0: CDF(r) = 1 − e^{rate (r − lo)}
        if u == 1:
            return None
        return arb_from_fraction(lo) + (1 - arb_from_fraction(u)).log() / a
    growth = (a * arb_from_fraction(hi - lo)).exp() - 1
    return arb_from_fraction(lo) + (1 + arb_from_fraction(u) * growth).log() / a


def _loss(pieces: _Pieces, z1: LatticeSum, z2: LatticeSum, epsilon: Fraction) -> RangePrivacyLoss:
    """``ess sup |ε Δ(r) + ln(Z2/Z1)|`` for Δ = slope·r + intercept on the pieces (vectorised over pieces)."""
    a, b = pieces.slope, pieces.intercept
    sloped = a.num != 0
    for end_inf, is_hi in ((pieces.lo_inf, False), (pieces.hi_inf, True)):
        unbounded = np.flatnonzero(sloped & end_inf)
        if len(unbounded):
            j = int(unbounded[0])
            return unbounded_loss(pieces.bounds(j), growing=(a.item(j) > 0) == is_hi)
    index = np.arange(len(pieces))
    flat = ~sloped
    # candidates: Δ on flat pieces (attained), and Δ at both ends of sloped pieces (limits)
    values = concatenate([b[flat], (a * pieces.lo + b)[sloped], (a * pieces.hi + b)[sloped]])
    owners = np.concatenate([index[flat], index[sloped], index[sloped]])
    kinds = np.concatenate([np.zeros(int(flat.sum()), dtype=np.int64), np.ones(int(sloped.sum()), dtype=np.int64), np.full(int(sloped.sum()), 2)])
    picked = []
    for position in (int(np.argmax(values.num)), int(np.argmin(values.num))):
        j, kind = int(owners[position]), int(kinds[position])
        lo, hi = pieces.bounds(j)
        where = interior_point(lo, hi) if kind == 0 else (lo if kind == 1 else hi)
        picked.append(Candidate(values.item(position), where, (lo, hi), kind == 0))
    one = LatticeSum.from_expsum(ExpSum.rational(1))
    return loss_from_candidates(picked, (z1, one), (z2, one), epsilon)


# -- the mechanism ---------------------------------------------------------------------------------


class ContinuousMechanism(RangeMechanism):
    """The exponential mechanism over an interval of the reals with a piecewise-constant density μ.

    Built by ``ExponentialMechanism(quality, epsilon=…, outputs=RationalRange(lo, hi))``
    (``None`` for an infinite end), or an :class:`~expmech.spec.OutputSpace`
    with one such variable.  ``quality`` must be a
    :class:`~expmech.spec.QualityFunction` piecewise linear in r (black boxes
    cannot be integrated exactly); ``base_measure`` is ``None`` (Lebesgue) or a
    :class:`~expmech.spec.PiecewiseDensity`.  Draws are released on a grid.

    >>> import sympy
    >>> from expmech.spec import RecordSchema, OutputSpace, RationalRange, QualityFunction, mean
    >>> schema, space = RecordSchema(x=RationalRange(0, 1)), OutputSpace(r=RationalRange(None, None))
    >>> laplace = QualityFunction(-sympy.Abs(space["r"] - mean(schema["x"])), schema=schema, outputs=space)
    >>> mech = ExponentialMechanism(laplace, epsilon=1, outputs=space)
    >>> mech.distribution([0, 1]).normaliser == 2
    True
    """

    __slots__ = ()

    _integer = False

    def distribution(self, dataset: Any) -> ContinuousDistribution:  # type: ignore[override]
        """The exact output law on ``dataset``; raises DivergentNormaliser if it does not exist."""
        return ContinuousDistribution(self, self.scores(dataset))

    def sample(self, dataset: Any, *, rng: random.Random | None = None, grid_bits: Any = None, grid: Any = None) -> Fraction:  # type: ignore[override]
        """One exact draw rounded down to the grid (``2^{−grid_bits}``, default 2^-20, or ``grid``)."""
        return self.distribution(dataset).sample(rng=rng, grid_bits=grid_bits, grid=grid)
