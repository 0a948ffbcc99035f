"""The exponential mechanism over the integers (or a half-line or interval of them), exactly.

With q piecewise linear in k (``expmech.impl.quality._piecewise``) and μ geometric on
pieces (:class:`~expmech.spec.PiecewiseGeometric`), each piece contributes
``Σ_k w ρ^{k−s} e^{ε(a k + b)}``: a geometric series with ratio
``x = ρ e^{ε a}``.  A short finite piece is summed term by term; a long one or
an infinite tail in closed form,

    Σ_{j>=0} t·x^j = t / (1 − x)     (x < 1),

so every mass is a ratio of two exponential sums with rational coefficients,
and whether a tail converges (``ρ e^{εa} < 1``, an exact sign) is decided
exactly; a divergent one raises :class:`~expmech.spec.DivergentNormaliser`
(hypothesis ``finite-normaliser``).  Draws are integers: the piece by exact
inversion, then the position inside it by inverting its (truncated) geometric
law, from random bits alone.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
from flint import arb, ctx

from expmech.spec import DivergentNormaliser, IntRange, InvalidArgument
from expmech.spec.internal import as_rational, describe

from ..exact._exactreal import ExpRatio
from ..exact._expsum import DEFAULT_MAX_PRECISION, ExpSum, arb_from_fraction
from ..exact._lattice import LatticeSum
from ..sampling._lazy import draw_lazily, locate_exactly, locate_in_table
from ..quality._piecewise import PiecewiseLinear, refine
from ..sampling._random import resolve_rng
from ._ranges import Candidate, RangeMechanism, RangePrivacyLoss, loss_from_candidates, unbounded_loss

__all__ = ["CountableDistribution", "CountableMechanism"]

#: Finite pieces with at most this many integers are summed term by term.
EXPAND = 64
#: At most this many distinct geometric ratios get closed forms (their denominators multiply).
MAX_RATIOS = 12
_MAX_TERMS = 1 << 21

Key = tuple[Fraction, Fraction]  # (ρ', λ'): the denominator 1 − ρ' e^{λ'}


@dataclass(frozen=True)
class _Piece:
    """Integers ``lo..hi`` (None: infinite), ``q = slope·k + intercept``, ``μ(k) = weight·ratio^{k − anchor}``."""

    lo: int | None
    hi: int | None
    slope: Fraction
    intercept: Fraction
    weight: Fraction
    ratio: Fraction
    anchor: int

    def term(self, k: int, epsilon: Fraction) -> tuple[Fraction, Fraction]:
        """``μ(k) e^{ε q(k)}`` as (coefficient, exponent)."""
        return self.weight * self.ratio ** (k - self.anchor), epsilon * (self.slope * k + self.intercept)

    def size(self) -> int | None:
        return None if self.lo is None or self.hi is None else self.hi - self.lo + 1


def _ratio_below_one(ratio: Fraction, exponent: Fraction) -> int:
    """The exact sign of ``1 − ratio·e^{exponent}``."""
    if exponent == 0:
        return (ratio < 1) - (ratio > 1)
    return -ExpSum.weighted_exps([(ratio, exponent), (Fraction(-1), Fraction(0))]).sign()


class _Sum:
    """An exact sum of terms and of geometric closed forms ``numerator / (1 − ρ' e^{λ'})``."""

    def __init__(self) -> None:
        self.plain: list[tuple[Fraction, Fraction]] = []
        self.series: dict[Key, list[tuple[Fraction, Fraction]]] = {}

    def add_piece(self, piece: _Piece, epsilon: Fraction, *, expand: bool) -> None:
        count = piece.size()
        if count is not None and (count <= EXPAND or expand):
            assert piece.lo is not None and piece.hi is not None
            self.plain.extend(piece.term(k, epsilon) for k in range(piece.lo, piece.hi + 1))
            return
        lam = epsilon * piece.slope
        if piece.ratio == 1 and lam == 0:
            if count is None:
                raise _divergent(piece, epsilon)
            c, b = piece.term(piece.lo, epsilon)  # type: ignore[arg-type]
            self.plain.append((c * count, b))
            return
        forward = _ratio_below_one(piece.ratio, lam) > 0  # x = ρ e^{λ} < 1: sum upwards from lo
        if count is None and (piece.hi is None) != forward:
            raise _divergent(piece, epsilon)
        if forward:
            key: Key = (piece.ratio, lam)
            start, stop = piece.lo, None if piece.hi is None else piece.hi + 1
        else:
            key = (1 / piece.ratio, -lam)
            start, stop = piece.hi, None if piece.lo is None else piece.lo - 1
        numerator = [piece.term(start, epsilon)]  # type: ignore[arg-type]
        if stop is not None:
            c, b = piece.term(stop, epsilon)
            numerator.append((-c, b))
        self.series.setdefault(key, []).extend(numerator)

    def ratio(self) -> tuple[LatticeSum, LatticeSum]:
        """``(N, D)`` with the sum equal to ``N / D`` and ``D > 0``."""
        return _over_common_denominator(self.plain, self.series, power=1)


def _over_common_denominator(
    plain: list[tuple[Fraction, Fraction]], series: dict[Key, list[tuple[Fraction, Fraction]]], *, power: int
) -> tuple[LatticeSum, LatticeSum]:
    """``(N, D)`` for ``Σ plain + Σ_key series[key] / (1 − ρ' e^{λ'})^power``, ``D`` the product of the denominators."""
    one = LatticeSum.from_expsum(ExpSum.rational(1))
    keys = sorted(series)
    factors = {}
    for key in keys:
        base = LatticeSum.from_expsum(ExpSum.weighted_exps([(Fraction(1), Fraction(0)), (-key[0], key[1])]))
        factor = one
        for _ in range(power):
            factor = factor * base
        factors[key] = factor
    denominator = one
    for key in keys:
        denominator = denominator * factors[key]
    numerator = LatticeSum.from_expsum(ExpSum.weighted_exps(plain)) * denominator if plain else LatticeSum.zero()
    for key in keys:
        others = one
        for other in keys:
            if other != key:
                others = others * factors[other]
        numerator = numerator + LatticeSum.from_expsum(ExpSum.weighted_exps(series[key])) * others
    return numerator, denominator


def _divergent(piece: _Piece, epsilon: Fraction) -> DivergentNormaliser:
    lo = "−∞" if piece.lo is None else piece.lo
    hi = "+∞" if piece.hi is None else piece.hi
    return DivergentNormaliser(
        f"the normaliser Σ_k e^{{ε q(d, k)}} μ(k) diverges (hypothesis 'finite-normaliser' of the mechanism fails): "
        f"on the integers {lo}..{hi} q has slope {piece.slope} and μ ratio {piece.ratio}, so the terms grow or stay "
        f"by the factor {piece.ratio}·e^{{{epsilon * piece.slope}}} >= 1 towards the infinite end (ε = {epsilon})",
        piece=(piece.lo, piece.hi),
    )


def _sum_of(pieces: list[_Piece], epsilon: Fraction) -> _Sum:
    keys: set[Key] = set()
    for piece in pieces:
        lam = epsilon * piece.slope
        if piece.size() is None or (piece.size() or 0) > EXPAND:
            keys.add((piece.ratio, lam))
    expand = len(keys) > MAX_RATIOS
    if expand:
        terms = sum(piece.size() or 0 for piece in pieces)
        if terms > _MAX_TERMS:
            raise InvalidArgument(
                f"{len(keys)} distinct geometric ratios and {terms} terms: too many for an exact closed form "
                f"(at most {MAX_RATIOS} ratios or {_MAX_TERMS} terms)",
                parameter="quality",
                value=len(keys),
            )
    total = _Sum()
    for piece in pieces:
        total.add_piece(piece, epsilon, expand=expand and piece.size() is not None)
    return total


def _pieces(pl: PiecewiseLinear, measure: Any) -> list[_Piece]:
    count = len(measure.weights)
    cuts, (slope,), (intercept,), index = refine([pl], measure.breakpoints, [Fraction(i) for i in range(count)])
    cut_values = [int(c) for c in cuts.fractions()]
    los = [None if pl.lo is None else int(pl.lo)] + cut_values
    his = [c - 1 for c in cut_values] + [None if pl.hi is None else int(pl.hi)]
    result = []
    for lo, hi, a, b, m in zip(los, his, slope.fractions(), intercept.fractions(), index.fractions()):
        i = int(m)
        weight = measure.weights[i]
        if weight == 0 or (lo is not None and hi is not None and lo > hi):
            continue
        if lo is None and hi is None:  # split ℤ at 0 so that each tail has one direction
            result.append(_Piece(None, -1, a, b, weight, measure.ratios[i], measure.anchor(i)))
            result.append(_Piece(0, None, a, b, weight, measure.ratios[i], measure.anchor(i)))
        else:
            result.append(_Piece(lo, hi, a, b, weight, measure.ratios[i], measure.anchor(i)))
    return result


def _clip(pieces: list[_Piece], start: int | None, end: int | None) -> list[_Piece]:
    result = []
    for p in pieces:
        lo = p.lo if start is None else (start if p.lo is None else max(p.lo, start))
        hi = p.hi if end is None else (end if p.hi is None else min(p.hi, end))
        if lo is None or hi is None or lo <= hi:
            result.append(_Piece(lo, hi, p.slope, p.intercept, p.weight, p.ratio, p.anchor))
    return result


def _where(pieces: list[_Piece], threshold: Fraction, *, above: bool) -> list[_Piece]:
    """Each piece cut down to ``{q > threshold}`` (``above``) or ``{q <= threshold}``."""
    result = []
    for p in pieces:
        a, b = p.slope, p.intercept
        lo, hi = p.lo, p.hi
        if a == 0:
            if (b > threshold) == above:
                result.append(p)
            continue
        root = (threshold - b) / a  # q = threshold there
        if (a > 0) == above:  # the part above (or, falling, the part at most) starts after the root
            first = (root.__floor__() + 1) if above else root.__ceil__()
            lo = first if lo is None else max(lo, first)
        else:
            last = (root.__ceil__() - 1) if above else root.__floor__()
            hi = last if hi is None else min(hi, last)
        if lo is None or hi is None or lo <= hi:
            result.append(_Piece(lo, hi, a, b, p.weight, p.ratio, p.anchor))
    return result


def _subset(subset: Any) -> tuple[list[tuple[int | None, int | None]] | None, list[int] | None]:
    """Integer intervals ``(lo, hi)`` (inclusive, None infinite) or a finite set of integers."""
    if isinstance(subset, IntRange):
        return [(subset.lo, subset.hi)], None
    if isinstance(subset, tuple):
        if len(subset) != 2 or not all(v is None or (isinstance(v, int) and not isinstance(v, bool)) for v in subset):
            raise InvalidArgument(
                f"subset={describe(subset)}: a tuple is an interval (lo, hi) of ints or None; give a set or list for a set of integers",
                parameter="subset",
                value=subset,
            )
        return [subset], None
    if isinstance(subset, range):
        subset = list(subset)
    try:
        items = list(subset)
    except TypeError:
        raise InvalidArgument(
            f"subset={describe(subset)} must be a set or list of ints, an IntRange or (lo, hi) with None for an infinite end",
            parameter="subset",
            value=subset,
        ) from None
    values = set()
    for index, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, int | np.integer):
            raise InvalidArgument(f"subset[{index}]={describe(item)} must be an int", parameter="subset", value=item)
        values.add(int(item))
    return None, sorted(values)


class CountableDistribution:
    """The exact output law of :class:`CountableMechanism` on one dataset: ``p(k) = μ(k) e^{ε q(d, k)} / Z``."""

    __slots__ = ("_mechanism", "_quality", "_pieces", "_z", "_table", "_normaliser")

    def __init__(self, mechanism: CountableMechanism, quality: PiecewiseLinear) -> None:
        self._mechanism = mechanism
        self._quality = quality
        self._pieces = _pieces(quality, mechanism.base_measure)
        if not self._pieces:
            raise InvalidArgument(
                f"base_measure={mechanism.base_measure!r} is 0 on the whole range {mechanism.outputs.describe()}",
                parameter="base_measure",
                value=mechanism.base_measure,
            )
        self._z = _sum_of(self._pieces, mechanism.epsilon).ratio()
        self._table: tuple[list[arb], int] | None = None
        self._normaliser: ExpRatio | None = None

    @property
    def mechanism(self) -> CountableMechanism:
        """The mechanism this is the law of."""
        return self._mechanism

    @property
    def quality_pieces(self) -> PiecewiseLinear:
        """``q(d, ·)`` on the range as exact pieces."""
        return self._quality

    def pieces(self) -> list[tuple[int | None, int | None, Fraction, Fraction, Fraction, Fraction, int]]:
        """The support as ``(lo, hi, slope, intercept, weight, ratio, anchor)`` (inclusive integer bounds)."""
        return [(p.lo, p.hi, p.slope, p.intercept, p.weight, p.ratio, p.anchor) for p in self._pieces]

    @property
    def normaliser(self) -> ExpRatio:
        """``Z = Σ_k μ(k) e^{ε q(d, k)}``, exactly (a ratio of exponential sums)."""
        if self._normaliser is None:
            n, d = self._z
            self._normaliser = ExpRatio._trusted(n.to_expsum(), d.to_expsum())
        return self._normaliser

    def _ratio(self, part: tuple[LatticeSum, LatticeSum]) -> ExpRatio:
        n, d = part
        zn, zd = self._z
        return ExpRatio._trusted((n * zd).to_expsum(), (d * zn).to_expsum())

    def _point(self, k: Any) -> int:
        if isinstance(k, bool) or not isinstance(k, int | np.integer):
            raise InvalidArgument(f"k={describe(k)} must be an int", parameter="k", value=k)
        value = int(k)
        lo, hi = self._quality.lo, self._quality.hi
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise InvalidArgument(f"k={value} is outside the range {self._mechanism.outputs.describe()}", parameter="k", value=k)
        return value

    def quality(self, k: Any) -> Fraction:
        """``q(d, k)`` exactly."""
        return self._quality.value(self._point(k))

    def probability(self, k: Any) -> ExpRatio:
        """``p(k)`` exactly."""
        point = self._point(k)
        measure = self._mechanism.base_measure.value(point)
        term = ExpSum.weighted_exps([(measure, self._mechanism.epsilon * self._quality.value(point))])
        zn, zd = self._z
        return ExpRatio._trusted(term * zd.to_expsum(), zn.to_expsum())

    def _mass_parts(self, subset: Any) -> tuple[LatticeSum, LatticeSum]:
        intervals, values = _subset(subset)
        epsilon = self._mechanism.epsilon
        if values is not None:
            lo, hi = self._quality.lo, self._quality.hi
            terms = []
            for k in values:
                if (lo is None or k >= lo) and (hi is None or k <= hi):
                    measure = self._mechanism.base_measure.value(k)
                    if measure:
                        terms.append((measure, epsilon * self._quality.value(k)))
            return LatticeSum.from_expsum(ExpSum.weighted_exps(terms)), LatticeSum.from_expsum(ExpSum.rational(1))
        pieces: list[_Piece] = []
        assert intervals is not None
        for start, end in intervals:
            pieces.extend(_clip(self._pieces, start, end))
        return _sum_of(pieces, epsilon).ratio()

    def mass(self, subset: Any) -> ExpRatio:
        """``P[output ∈ subset]``: an interval ``(lo, hi)`` (a tuple; inclusive, None infinite) or an IntRange,
        or a set, list or range of ints."""
        return self._ratio(self._mass_parts(subset))

    def cdf(self, t: Any) -> ExpRatio:
        """``P[output <= t]`` exactly."""
        value = as_rational(t, name="t").__floor__()
        return self.mass((None, value))

    def enclose(self, k: Any, bits: int = 53, *, max_precision: int = DEFAULT_MAX_PRECISION) -> tuple[Fraction, Fraction]:
        """Rationals around ``p(k)``, relative width ``<= 2**-bits``."""
        return self.probability(k).enclose(bits, max_precision=max_precision)

    def expected_quality(self) -> ExpRatio:
        """``E[q(d, output)]`` exactly (each piece's Σ (a k + b) μ(k) e^{εq(k)} in closed form)."""
        epsilon = self._mechanism.epsilon
        first, second = _Sum(), _Sum()
        for piece in self._pieces:
            # Σ (a k + b) t_k = b' Σ t_k + a Σ (k − k0) t_k with k0 the start: split into two geometric sums
            _expectation_piece(piece, epsilon, first, second)
        n1, d1 = first.ratio()
        n2, d2 = _over_common_denominator([], second.series, power=2)
        numerator, denominator = n1 * d2 + n2 * d1, d1 * d2
        return self._ratio((numerator, denominator))

    def optimum(self) -> Fraction:
        """``OPT = max_k q(d, k)`` over the support of μ."""
        best: Fraction | None = None
        for p in self._pieces:
            for end in (p.lo, p.hi):
                if end is not None:
                    value = p.slope * end + p.intercept
                    best = value if best is None or value > best else best
        if best is None:  # pragma: no cover - a finite normaliser has a finite end on every piece
            raise InvalidArgument("the quality has no maximum on the support", parameter="quality", value=None)
        return best

    def level_measure(self, threshold: Any) -> Fraction:
        """``μ({k : q(d, k) > threshold})`` exactly."""
        return _measure(_where(self._pieces, as_rational(threshold, name="threshold"), above=True))

    def measure_at_most(self, threshold: Any) -> Fraction:
        """``μ({k : q(d, k) <= threshold})`` exactly (it must be finite)."""
        return _measure(_where(self._pieces, as_rational(threshold, name="threshold"), above=False))

    def mass_at_most(self, threshold: Any) -> ExpRatio:
        """``P[q(d, output) <= threshold]`` exactly."""
        part = _where(self._pieces, as_rational(threshold, name="threshold"), above=False)
        if not part:
            return ExpRatio(0)
        return self._ratio(_sum_of(part, self._mechanism.epsilon).ratio())

    def privacy_loss(self, other: CountableDistribution) -> RangePrivacyLoss:
        """The exact ``max_k |ln p_self(k) − ln p_other(k)|`` over the support of μ, and where."""
        if not isinstance(other, CountableDistribution) or other._mechanism is not self._mechanism:
            raise InvalidArgument(f"other={describe(other)} must be a CountableDistribution of the same mechanism", parameter="other", value=other)
        measure = self._mechanism.base_measure
        count = len(measure.weights)
        cuts, (a1, a2), (b1, b2), index = refine([self._quality, other._quality], measure.breakpoints, [Fraction(i) for i in range(count)])
        cut_values = [int(c) for c in cuts.fractions()]
        q = self._quality
        los = [None if q.lo is None else int(q.lo)] + cut_values
        his = [c - 1 for c in cut_values] + [None if q.hi is None else int(q.hi)]
        candidates = []
        for lo, hi, x1, x2, y1, y2, m in zip(los, his, a1.fractions(), a2.fractions(), b1.fractions(), b2.fractions(), index.fractions()):
            if measure.weights[int(m)] == 0 or (lo is not None and hi is not None and lo > hi):
                continue
            slope, intercept = x1 - x2, y1 - y2
            for end, is_hi in ((lo, False), (hi, True)):
                if end is None:
                    if slope != 0:
                        return unbounded_loss((lo, hi), growing=(slope > 0) == is_hi)
                    continue
                candidates.append(Candidate(slope * end + intercept, end, (lo, hi), True))
            if lo is None and hi is None:
                candidates.append(Candidate(intercept, 0, (lo, hi), True))
        return loss_from_candidates(candidates, self._z, other._z, self._mechanism.epsilon)

    # -- sampling ------------------------------------------------------------------------------

    def sample(self, *, rng: random.Random | None = None) -> int:
        """One exact draw (an integer), from integer random bits only."""
        generator = resolve_rng(rng)
        j = draw_lazily(self._locate_piece, generator)
        return draw_lazily(lambda u, k: _locate_within(self._pieces[j], self._mechanism.epsilon, u, k), generator)

    def _piece_sums(self) -> list[tuple[LatticeSum, LatticeSum]]:
        epsilon = self._mechanism.epsilon
        return [_sum_of([p], epsilon).ratio() for p in self._pieces]

    def _sampling_table(self) -> tuple[list[arb], int]:
        if self._table is None:
            precision = 96 + 2 * len(self._pieces).bit_length()
            prefix = []
            running = arb(0)
            with ctx.workprec(precision):
                for n, d in self._piece_sums():
                    running = running + n.value_ball(precision) / d.value_ball(precision)
                    prefix.append(running)
            self._table = (prefix, precision)
        return self._table

    def _locate_piece(self, u: int, k: int) -> int | None:
        prefix, precision = self._sampling_table()
        if k <= 64:
            return locate_in_table(prefix, precision, u, k)
        epsilon = self._mechanism.epsilon
        zn, zd = self._z

        def side(j: int, extra: int) -> int:
            """sign((u + extra) / 2^k − F_j), F_j the exact mass of pieces 0..j."""
            n, d = _sum_of(self._pieces[: j + 1], epsilon).ratio()
            return ((zn * d).scale(Fraction(u + extra)) - (n * zd).scale(Fraction(1 << k))).sign()

        return locate_exactly(len(self._pieces) - 1, side)

    def __repr__(self) -> str:
        return f"CountableDistribution(<{len(self._pieces)} pieces on {self._mechanism.outputs.describe()}>, epsilon={self._mechanism.epsilon})"


def _measure(pieces: list[_Piece]) -> Fraction:
    """``Σ μ(k)`` over the pieces, exactly (a geometric sum per piece)."""
    total = Fraction(0)
    for p in pieces:
        rho = p.ratio
        if p.lo is None or p.hi is None:
            toward_up = p.hi is None
            if (rho >= 1) if toward_up else (rho <= 1):
                raise InvalidArgument(f"μ of the integers {p.lo}..{p.hi} is infinite", parameter="threshold", value=None)
            start = p.lo if toward_up else p.hi
            first = p.weight * rho ** (start - p.anchor)  # type: ignore[operator]
            total += first / (1 - rho) if toward_up else first / (1 - 1 / rho)
            continue
        count = p.hi - p.lo + 1
        first = p.weight * rho ** (p.lo - p.anchor)
        total += first * count if rho == 1 else first * (1 - rho**count) / (1 - rho)
    return total


def _expectation_piece(piece: _Piece, epsilon: Fraction, first: _Sum, second: _Sum) -> None:
    """Add ``Σ_k q(k) μ(k) e^{ε q(k)}`` of one piece: short pieces termwise into ``first``; long ones in closed form."""
    count = piece.size()
    if count is not None and count <= EXPAND:
        assert piece.lo is not None and piece.hi is not None
        for k in range(piece.lo, piece.hi + 1):
            c, b = piece.term(k, epsilon)
            first.plain.append((c * (piece.slope * k + piece.intercept), b))
        return
    lam = epsilon * piece.slope
    if piece.ratio == 1 and lam == 0:
        c, b = piece.term(piece.lo, epsilon)  # type: ignore[arg-type]
        first.plain.append((c * count * piece.intercept, b))  # type: ignore[operator]
        return
    forward = _ratio_below_one(piece.ratio, lam) > 0
    key: Key = (piece.ratio, lam) if forward else (1 / piece.ratio, -lam)
    start = piece.lo if forward else piece.hi
    sigma = piece.slope if forward else -piece.slope  # change of q per step away from the start
    # terms t_j = t0 x^j, x = ρ' e^{λ'} < 1, q_j = q0 + σ j, j < m:
    # Σ q_j t_j = q0 t0 (1 − x^m)/(1 − x) + σ t0 (x − m x^m + (m − 1) x^{m+1})/(1 − x)^2
    rho, rate = key
    q0 = piece.slope * start + piece.intercept  # type: ignore[operator]
    c0, b0 = piece.term(start, epsilon)  # type: ignore[arg-type]
    ones = [(c0 * q0, b0)]
    squares = [(c0 * sigma * rho, b0 + rate)]
    if count is not None:
        m = count
        ones.append((-c0 * q0 * rho**m, b0 + m * rate))
        squares.append((-c0 * sigma * m * rho**m, b0 + m * rate))
        squares.append((c0 * sigma * (m - 1) * rho ** (m + 1), b0 + (m + 1) * rate))
    first.series.setdefault(key, []).extend(ones)
    second.series.setdefault(key, []).extend(squares)


def _locate_within(piece: _Piece, epsilon: Fraction, u: int, k: int) -> int | None:
    """The integer of ``piece`` that ``U ∈ [u/2^k, (u+1)/2^k)`` inverts to, or None if not yet decided."""
    lam = epsilon * piece.slope
    count = piece.size()
    if piece.ratio == 1 and lam == 0:  # uniform over count integers
        assert count is not None and piece.lo is not None
        j = (u * count) >> k
        return piece.lo + j if (u + 1) * count <= (j + 1) << k else None
    forward = _ratio_below_one(piece.ratio, lam) > 0
    rho, rate = (piece.ratio, lam) if forward else (1 / piece.ratio, -lam)
    origin = piece.lo if forward else piece.hi
    assert origin is not None
    # J = offset from origin: P(J >= j) = (x^j − x^m) / (1 − x^m), x = ρ e^{rate} < 1; J = ⌊ln(1 − U(1 − x^m)) / ln x⌋
    if rate == 0:
        found = _locate_rational(rho, count, u, k)
    else:
        found = _locate_ball(rho, rate, count, u, k)
    if found is None:
        return None
    return origin + found if forward else origin - found


def _locate_rational(x: Fraction, count: int | None, u: int, k: int) -> int | None:
    """Exact inversion of the truncated geometric law with a rational ratio ``x < 1``."""
    tail = Fraction(0) if count is None else x**count
    scale = 1 - tail

    def survival(j: int) -> Fraction:  # P(J >= j)
        return (x**j - tail) / scale

    low_u, high_u = Fraction(u, 1 << k), Fraction(u + 1, 1 << k)
    # J >= j  ⇔  U <= 1 − P(J >= j) ... with CDF F(j) = P(J <= j) = 1 − P(J >= j + 1)
    with ctx.workprec(k + 64):
        guess_ball = (1 - arb_from_fraction(low_u) * arb_from_fraction(scale)).log() / arb_from_fraction(x).log()
        guess = max(0, int(guess_ball.mid().floor().unique_fmpz() or 0))
    if count is not None:
        guess = min(guess, count - 1)
    j = guess
    # F(j−1) <= U_low and U_high <= F(j), exactly
    for _ in range(64):
        below = 1 - survival(j)  # F(j − 1)
        above = 1 - survival(j + 1)  # F(j)
        if below > low_u:
            j -= 1
            continue
        if above < low_u:
            j += 1
            continue
        return j if high_u <= above else None
    return None


def _locate_ball(rho: Fraction, rate: Fraction, count: int | None, u: int, k: int) -> int | None:
    """Inversion of the truncated geometric law with ratio ``ρ e^{rate} < 1`` (transcendental) in ball arithmetic."""
    precision = k + 64 + (count or 1).bit_length()
    with ctx.workprec(precision):
        log_x = arb_from_fraction(rho).log() + arb_from_fraction(rate)
        tail = arb(0) if count is None else (log_x * count).exp()
        ends = []
        for numerator in (u, u + 1):
            inner = 1 - arb_from_fraction(Fraction(numerator, 1 << k)) * (1 - tail)
            if not inner > 0:
                return None
            ends.append(inner.log() / log_x)
        candidate = ends[0].mid().floor().unique_fmpz()
        if candidate is None:
            return None
        j = int(candidate)
        if ends[0] >= j and ends[1] <= j + 1:
            if count is not None and j >= count:
                return None
            return j
    return None


class CountableMechanism(RangeMechanism):
    """The exponential mechanism over an interval of the integers (possibly infinite) with a geometric μ.

    Built by ``ExponentialMechanism(quality, epsilon=…, outputs=IntRange(lo, hi))``
    (``None`` for an infinite end), or an :class:`~expmech.spec.OutputSpace`
    with one such variable.  ``quality`` must be a
    :class:`~expmech.spec.QualityFunction` piecewise linear in k;
    ``base_measure`` is ``None`` (counting), :class:`~expmech.spec.Counting`,
    :class:`~expmech.spec.Geometric` or :class:`~expmech.spec.PiecewiseGeometric`.
    """

    __slots__ = ()

    _integer = True

    def distribution(self, dataset: Any) -> CountableDistribution:  # type: ignore[override]
        """The exact output law on ``dataset``; raises DivergentNormaliser if it does not exist."""
        return CountableDistribution(self, self.scores(dataset))

    def sample(self, dataset: Any, *, rng: random.Random | None = None) -> int:  # type: ignore[override]
        """One exact draw (an integer)."""
        return self.distribution(dataset).sample(rng=rng)
