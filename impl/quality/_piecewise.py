"""A quality function of the language as an exact piecewise-linear function of r.

For a :class:`~expmech.spec.QualityFunction` with one output variable ``r``
ranging over an interval of the reals or of the integers, and a dataset,
:func:`analyse` returns ``q(d, ·)`` as pieces ``[c_{j−1}, c_j]`` with
rational cuts and a linear form ``a_j·r + b_j`` on each, all exact.  The
pieces are determined from the expression, not sampled:

* every comparison, ``Abs``, ``Max``, ``Min`` and ``Piecewise`` condition that
  involves ``r`` switches where a linear form changes sign, and the piece is
  split there (for integer ``r`` at ``⌈c⌉``, with a singleton piece when the
  root ``c`` is an integer);
* an aggregate over the records (``count(x <= r)``, ``total(Min(v, r))``, …) is
  the sum of one small piecewise-linear function per record: each record's
  switch points are computed for all records at once (numpy, exact integers),
  sorted once, and accumulated as slope and intercept jumps — O(n log n).

Semantics of cuts: a cut at ``c`` starts a new piece at ``c``.  Over the reals
the value at a cut itself is immaterial (a null set); over the integers piece
``j`` is ``c_{j−1} <= k <= c_j − 1`` and every value is exact.

A quality that is not piecewise linear in r (``r·r``, a division by a term in
r, …) or undefined somewhere in the range (a ``Piecewise`` with no branch, a
division by zero) raises :class:`~expmech.spec.QualityError` naming a point.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy
from sympy.logic.boolalg import BooleanFalse, BooleanTrue

from expmech.spec import Count, IntRange, InvalidArgument, Mean, OrderStatistic, QualityError, QualityFunction, RationalRange, Size, Total
from expmech.spec.internal import describe

from ..exact._rationals import RationalArray, concatenate, from_floats, integer_array, take_along, where

__all__ = ["PiecewiseLinear", "analyse", "dataset_columns", "interior_point", "refine"]


# -- batches of piecewise-linear functions ------------------------------------------------


class _PL:
    """``rows`` piecewise-linear functions with ``K`` cuts each: cuts (rows, K), a and b (rows, K+1)."""

    __slots__ = ("cuts", "a", "b")

    def __init__(self, cuts: RationalArray, a: RationalArray, b: RationalArray) -> None:
        self.cuts, self.a, self.b = cuts, a, b

    @property
    def rows(self) -> int:
        return self.a.shape[0]

    @property
    def k(self) -> int:
        return self.cuts.shape[1]

    @staticmethod
    def constant(values: RationalArray) -> _PL:
        rows = values.shape[0]
        return _PL(RationalArray.zeros((rows, 0)), RationalArray.zeros((rows, 1)), values.reshape(rows, 1))

    def broadcast(self, rows: int) -> _PL:
        if self.rows == rows:
            return self
        if self.rows != 1:
            raise ValueError("internal error: incompatible batch sizes")
        stretch = lambda q: RationalArray(np.broadcast_to(q.num, (rows,) + q.shape[1:]).copy(), q.den)  # noqa: E731
        return _PL(stretch(self.cuts), stretch(self.a), stretch(self.b))

    def is_constant(self) -> bool:
        """No cuts and no slope: the same value for every r."""
        return self.k == 0 and not np.any(self.a.num)


@dataclass
class _Context:
    integer: bool  # r ranges over the integers
    columns: dict[sympy.Symbol, RationalArray]  # per-record field values (rows = records), or {} at the top level
    rows: int
    records: int
    output: sympy.Symbol
    record_columns: dict[sympy.Symbol, RationalArray]  # the dataset's columns, for aggregates
    problems: list[tuple[str, _PL]]  # (reason, a 0/1 function that is 1 where it happens)

    def flag(self, reason: str, cuts: RationalArray, mask: np.ndarray) -> None:
        """Record that ``reason`` happens on the pieces ``mask`` of a batch with ``cuts``."""
        self.problems.append((reason, _boolean(cuts, mask)))


def _bounds(cuts: RationalArray) -> tuple[RationalArray, np.ndarray, RationalArray, np.ndarray]:
    """Per piece: left end, whether it is −∞, right end, whether it is +∞ (rows, K+1)."""
    rows, k = cuts.shape
    pad = RationalArray.zeros((rows, 1))
    left = concatenate([pad, cuts], axis=1)
    right = concatenate([cuts, pad], axis=1)
    left_inf = np.zeros((rows, k + 1), dtype=bool)
    left_inf[:, 0] = True
    right_inf = np.zeros((rows, k + 1), dtype=bool)
    right_inf[:, k] = True
    return left, left_inf, right, right_inf


def _representatives(cuts: RationalArray, integer: bool) -> RationalArray:
    """A point inside each piece (any point for an empty piece)."""
    rows, k = cuts.shape
    if k == 0:
        return RationalArray.zeros((rows, 1))
    first = cuts[:, :1] - 1
    if integer:
        return concatenate([first, cuts], axis=1)
    last = cuts[:, k - 1 :] + 1
    middle = (cuts[:, :-1] + cuts[:, 1:]) * Fraction(1, 2)
    return concatenate([first, middle, last], axis=1)


def _merge(parts: Sequence[_PL]) -> tuple[RationalArray, list[RationalArray], list[RationalArray]]:
    """Common refinement of several batches: merged cuts, and each batch's a, b on it."""
    rows = max(p.rows for p in parts)
    parts = [p.broadcast(rows) for p in parts]
    if all(p.k == 0 for p in parts):
        return RationalArray.zeros((rows, 0)), [p.a for p in parts], [p.b for p in parts]
    cuts = concatenate([p.cuts for p in parts], axis=1)
    order = cuts.argsort(axis=1)
    merged = take_along(cuts, order)
    a_list, b_list = [], []
    offset = 0
    for p in parts:
        origin = ((order >= offset) & (order < offset + p.k)).astype(np.int64)
        index = np.concatenate([np.zeros((rows, 1), dtype=np.int64), np.cumsum(origin, axis=1)], axis=1)
        a_list.append(take_along(p.a, index))
        b_list.append(take_along(p.b, index))
        offset += p.k
    return merged, a_list, b_list


def _refine(cuts: RationalArray, a: RationalArray, b: RationalArray, extra: RationalArray) -> tuple[RationalArray, RationalArray, RationalArray]:
    """Add cuts ``extra`` (rows, m) to a batch; each new piece keeps the form of the piece it lies in."""
    filler = RationalArray.zeros((a.shape[0], extra.shape[1] + 1))
    merged, a_list, b_list = _merge([_PL(cuts, a, b), _PL(extra, filler, filler)])
    return merged, a_list[0], b_list[0]


def _root_cuts(cuts: RationalArray, a: RationalArray, b: RationalArray, integer: bool) -> RationalArray:
    """New cuts where ``a·r + b`` changes sign inside a piece (harmless duplicates elsewhere)."""
    rows, k = cuts.shape
    sloped = a.num != 0
    if not np.any(sloped):
        return RationalArray.zeros((rows, 0))
    safe_a = where(sloped, a, RationalArray.full((), 1))
    root = -(b * safe_a.reciprocal().shared())
    left, left_inf, right, right_inf = _bounds(cuts)
    filler = where(left_inf, where(right_inf, RationalArray.zeros(()), right), left)
    if integer:
        low = RationalArray(root.ceil())
        high = RationalArray(root.floor() + 1)
        positions = [low, high]
    else:
        positions = [root]
    result = []
    for position in positions:
        clamped = where(~left_inf & (position < left), left, position)
        clamped = where(~right_inf & (clamped > right), right, clamped)
        result.append(where(sloped, clamped, filler))
    return concatenate(result, axis=1)


def _split_signs(pl: _PL, ctx: _Context, others: Sequence[_PL] = ()) -> tuple[RationalArray, np.ndarray, list[RationalArray], list[RationalArray]]:
    """Refine ``pl`` (and ``others``, merged with it) where ``pl`` changes sign; the sign on each piece."""
    cuts, a_list, b_list = _merge([pl, *others])
    extra = _root_cuts(cuts, a_list[0], b_list[0], ctx.integer)
    if extra.shape[1]:
        refined = [_refine(cuts, a, b, extra) for a, b in zip(a_list, b_list)]
        cuts = refined[0][0]
        a_list = [r[1] for r in refined]
        b_list = [r[2] for r in refined]
    point = _representatives(cuts, ctx.integer)
    signs = (a_list[0] * point + b_list[0]).sign()
    return cuts, signs, a_list, b_list


# -- the evaluator ---------------------------------------------------------------------------

_RELATIONS = {
    sympy.StrictLessThan: lambda s: s < 0,
    sympy.LessThan: lambda s: s <= 0,
    sympy.StrictGreaterThan: lambda s: s > 0,
    sympy.GreaterThan: lambda s: s >= 0,
    sympy.Eq: lambda s: s == 0,
    sympy.Ne: lambda s: s != 0,
}


def _boolean(cuts: RationalArray, truth: np.ndarray) -> _PL:
    values = truth.astype(np.int64)  # one row per record or dataset, one column per piece; no rows for the empty dataset
    return _PL(cuts, RationalArray.zeros(truth.shape), RationalArray(values if values.ndim == 2 else values.reshape(truth.shape[0], 1)))


def _evaluate(expr: sympy.Basic, ctx: _Context) -> _PL:
    rows = ctx.rows
    if isinstance(expr, sympy.Integer | sympy.Rational):
        return _PL.constant(RationalArray.full((rows,), Fraction(int(expr.p), int(expr.q))))
    if isinstance(expr, BooleanTrue | BooleanFalse):
        return _PL.constant(RationalArray.full((rows,), 1 if expr is sympy.true else 0))
    if isinstance(expr, sympy.Symbol):
        if expr == ctx.output:
            return _PL(RationalArray.zeros((rows, 0)), RationalArray.full((rows, 1), 1), RationalArray.zeros((rows, 1)))
        if expr in ctx.columns:
            return _PL.constant(ctx.columns[expr])
        raise InvalidArgument(f"symbol {expr} is neither the output nor a record field here", parameter="quality", value=expr)
    if isinstance(expr, Size):
        return _PL.constant(RationalArray.full((rows,), ctx.records))
    if isinstance(expr, OrderStatistic | sympy.floor):
        raise InvalidArgument(
            f"{expr}: order statistics and floor are not analysed over an interval of outputs; give the quality a finite output space",
            parameter="quality",
            value=expr,
        )
    if isinstance(expr, Count | Total | Mean):
        if ctx.columns:
            raise InvalidArgument(f"aggregate {expr} nested inside an aggregate", parameter="quality", value=expr)
        inner = _Context(ctx.integer, ctx.record_columns, ctx.records, ctx.records, ctx.output, ctx.record_columns, [])
        body = _evaluate(expr.args[0], inner)
        for reason, flag in inner.problems:  # undefined for one record: undefined for the aggregate
            ctx.problems.append((reason, _aggregate(flag)))
        total = _aggregate(body)
        if isinstance(expr, Mean):
            total = _PL(total.cuts, total.a * Fraction(1, ctx.records), total.b * Fraction(1, ctx.records))
        return total
    if isinstance(expr, sympy.Add):
        parts = [_evaluate(arg, ctx) for arg in expr.args]
        cuts, a_list, b_list = _merge(parts)
        a, b = a_list[0], b_list[0]
        for x, y in zip(a_list[1:], b_list[1:]):
            a, b = a + x, b + y
        return _PL(cuts, a, b)
    if isinstance(expr, sympy.Mul):
        result = _evaluate(expr.args[0], ctx)
        for arg in expr.args[1:]:
            result = _product(result, _evaluate(arg, ctx), ctx)
        return result
    if isinstance(expr, sympy.Pow):
        return _power(_evaluate(expr.base, ctx), int(expr.exp), ctx)
    if isinstance(expr, sympy.Abs):
        inner_pl = _evaluate(expr.args[0], ctx)
        cuts, signs, (a,), (b,) = _split_signs(inner_pl, ctx)
        factor = RationalArray(signs)
        return _PL(cuts, a * factor, b * factor)
    if isinstance(expr, sympy.Max | sympy.Min):
        result = _evaluate(expr.args[0], ctx)
        for arg in expr.args[1:]:
            other = _evaluate(arg, ctx)
            cuts, signs, (_, a1, a2), (_, b1, b2) = _difference_signs(result, other, ctx)
            pick = signs >= 0 if isinstance(expr, sympy.Max) else signs <= 0
            result = _PL(cuts, where(pick, a1, a2), where(pick, b1, b2))
        return result
    for kind, test in _RELATIONS.items():
        if isinstance(expr, kind):
            cuts, signs, _, _ = _difference_signs(_evaluate(expr.args[0], ctx), _evaluate(expr.args[1], ctx), ctx, keep=False)
            return _boolean(cuts, test(signs))
    if isinstance(expr, sympy.And | sympy.Or):
        parts = [_evaluate(arg, ctx) for arg in expr.args]
        cuts, _, b_list = _merge(parts)
        truth = b_list[0].num != 0
        for b in b_list[1:]:
            truth = (truth & (b.num != 0)) if isinstance(expr, sympy.And) else (truth | (b.num != 0))
        return _boolean(cuts, truth)
    if isinstance(expr, sympy.Not):
        part = _evaluate(expr.args[0], ctx)
        return _boolean(part.cuts, part.b.num == 0)
    if isinstance(expr, sympy.Piecewise):
        return _piecewise(expr, ctx)
    raise InvalidArgument(f"operation {type(expr).__name__} is not in the quality-function language", parameter="quality", value=expr)


def _difference_signs(
    first: _PL, second: _PL, ctx: _Context, *, keep: bool = True
) -> tuple[RationalArray, np.ndarray, list[RationalArray], list[RationalArray]]:
    """Refine where ``first − second`` changes sign; that sign per piece (and, with ``keep``, both refined)."""
    cuts, a_list, b_list = _merge([first, second])
    difference = _PL(cuts, a_list[0] - a_list[1], b_list[0] - b_list[1])
    return _split_signs(difference, ctx, [first, second] if keep else [])


def _product(left: _PL, right: _PL, ctx: _Context) -> _PL:
    if left.is_constant() or right.is_constant():
        cuts, (a1, a2), (b1, b2) = _merge([left, right])
        return _PL(cuts, a1 * b2 + a2 * b1, b1 * b2)
    cuts, (a1, a2), (b1, b2) = _merge([left, right])
    both = (a1.num != 0) & (a2.num != 0)
    if np.any(both):
        ctx.flag("the quality is not piecewise linear in r (a product of two terms in r)", cuts, both)
    return _PL(cuts, where(both, RationalArray.zeros(()), a1 * b2 + a2 * b1), b1 * b2)


def _power(base: _PL, exponent: int, ctx: _Context) -> _PL:
    if exponent == 1:
        return base
    if exponent == 0:
        return _PL.constant(RationalArray.full((base.rows,), 1))
    sloped = base.a.num != 0
    if np.any(sloped):
        ctx.flag(f"the quality is not piecewise linear in r (a power {exponent} of a term in r)", base.cuts, sloped)
    if exponent > 0:
        value = base.b
        for _ in range(exponent - 1):
            value = value * base.b
        return _PL(base.cuts, RationalArray.zeros(base.a.shape), value)
    zero = base.b.num == 0
    if np.any(zero):
        ctx.flag("division by zero", base.cuts, zero)
    safe = where(zero, RationalArray.full((), 1), base.b).reciprocal().shared()
    value = safe
    for _ in range(-exponent - 1):
        value = value * safe
    return _PL(base.cuts, RationalArray.zeros(base.a.shape), where(zero, RationalArray.zeros(()), value))


def _piecewise(expr: sympy.Piecewise, ctx: _Context) -> _PL:
    """The first branch whose condition holds; a branch's problems count only where it is used."""
    outer = ctx.problems
    values, conditions, local = [], [], []
    for pair in expr.args:
        ctx.problems = []
        values.append(_evaluate(pair.expr, ctx))
        value_problems = ctx.problems
        ctx.problems = []
        conditions.append(_evaluate(pair.cond, ctx))
        local.append((value_problems, ctx.problems))
    ctx.problems = outer
    flags = [flag for value_problems, condition_problems in local for _, flag in value_problems + condition_problems]
    cuts, a_list, b_list = _merge(values + conditions + flags)
    count = len(values)
    a, b = RationalArray.zeros(a_list[0].shape), RationalArray.zeros(b_list[0].shape)
    decided = np.zeros(a.shape, dtype=bool)
    position = 2 * count
    for index in range(count):
        holds = b_list[count + index].num != 0
        chosen = holds & ~decided
        value_problems, condition_problems = local[index]
        for reason, _ in value_problems:
            ctx.flag(reason, cuts, (b_list[position].num != 0) & chosen)
            position += 1
        for reason, _ in condition_problems:
            ctx.flag(reason, cuts, (b_list[position].num != 0) & ~decided)
            position += 1
        a, b = where(chosen, a_list[index], a), where(chosen, b_list[index], b)
        decided |= chosen
    if not np.all(decided):
        ctx.flag(f"Piecewise {expr} has no branch that applies", cuts, ~decided)
    return _PL(cuts, a, b)


def _aggregate(body: _PL) -> _PL:
    """The sum over the rows of a batch: one function, cuts sorted once, jumps accumulated."""
    rows, k = body.cuts.shape
    start_a, start_b = body.a[:, 0].sum(), body.b[:, 0].sum()
    if k == 0:
        return _PL(RationalArray.zeros((1, 0)), start_a.reshape(1, 1), start_b.reshape(1, 1))
    jump_a = body.a[:, 1:] - body.a[:, :-1]
    jump_b = body.b[:, 1:] - body.b[:, :-1]
    keep = ((jump_a.num != 0) | (jump_b.num != 0)).reshape(-1)
    positions = body.cuts.reshape(-1)[keep]
    jump_a, jump_b = jump_a.reshape(-1)[keep], jump_b.reshape(-1)[keep]
    if len(positions) == 0:
        return _PL(RationalArray.zeros((1, 0)), start_a.reshape(1, 1), start_b.reshape(1, 1))
    order = positions.argsort()
    positions, jump_a, jump_b = positions[order], jump_a[order], jump_b[order]
    last = np.ones(len(positions), dtype=bool)
    last[:-1] = positions.num[1:] != positions.num[:-1]
    running_a = (jump_a.cumsum() + start_a)[last]
    running_b = (jump_b.cumsum() + start_b)[last]
    cuts = positions[last]
    a = concatenate([start_a.reshape(1), running_a])
    b = concatenate([start_b.reshape(1), running_b])
    return _compact(_PL(cuts.reshape(1, -1), a.reshape(1, -1), b.reshape(1, -1)))


def _compact(pl: _PL) -> _PL:
    """One function without empty pieces and without cuts between equal forms."""
    if pl.rows != 1 or pl.k == 0:
        return pl
    cuts, a, b = pl.cuts.reshape(-1), pl.a.reshape(-1), pl.b.reshape(-1)
    k = len(cuts)
    # runs of equal cuts: keep the piece left of the first and the piece right of the last
    new_run = np.ones(k, dtype=bool)
    new_run[1:] = cuts.num[1:] != cuts.num[:-1]
    run_end = np.ones(k, dtype=bool)
    run_end[:-1] = new_run[1:]
    pieces = np.concatenate([[0], np.flatnonzero(run_end) + 1])
    cuts, a, b = cuts[new_run], a[pieces], b[pieces]
    differs = (a.num[1:] != a.num[:-1]) | (b.num[1:] != b.num[:-1])
    if a.num.dtype == object or b.num.dtype == object:
        differs = np.asarray(differs, dtype=bool)
    keep_piece = np.concatenate([[True], differs])
    cuts = cuts[differs]
    a, b = a[keep_piece], b[keep_piece]
    return _PL(cuts.reshape(1, -1), a.reshape(1, -1), b.reshape(1, -1))


# -- the public result -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class PiecewiseLinear:
    """``q(d, r)`` on a range as exact pieces: ``cuts`` (K,), ``slopes`` and ``intercepts`` (K+1,).

    Piece ``j`` spans ``cuts[j−1] … cuts[j]`` (``lo``/``hi`` of the range at the
    ends, ``None`` for an infinite end); over the integers it holds the
    integers ``cuts[j−1] <= k <= cuts[j] − 1``.  On it ``q = slopes[j]·r +
    intercepts[j]`` exactly.
    """

    cuts: RationalArray
    slopes: RationalArray
    intercepts: RationalArray
    integer: bool
    lo: Fraction | None
    hi: Fraction | None

    @property
    def pieces(self) -> int:
        """The number of pieces."""
        return len(self.slopes)

    def piece_of(self, r: Fraction) -> int:
        """The index of the piece holding ``r`` (the right one at a cut)."""
        return int(np.count_nonzero(self.cuts <= r))

    def value(self, r: Any) -> Fraction:
        """``a·r + b`` of the piece holding ``r`` (at a cut of a real range: the right piece's limit)."""
        point = Fraction(r)
        j = self.piece_of(point)
        return self.slopes.item(j) * point + self.intercepts.item(j)

    def piece_bounds(self, j: int) -> tuple[Fraction | None, Fraction | None]:
        """``(lo, hi)`` of piece ``j`` (``None`` for an infinite end; over the integers hi is exclusive)."""
        lo = self.lo if j == 0 else self.cuts.item(j - 1)
        hi = self.hi if j == len(self.cuts) else self.cuts.item(j)
        if self.integer and j == len(self.cuts) and hi is not None:
            hi = hi + 1
        return lo, hi


def _clip_indices(cuts: RationalArray, lo: Fraction | None, hi: Fraction | None, integer: bool) -> tuple[np.ndarray, np.ndarray]:
    """For one function on ``[lo, hi]``: the cuts that stay, and the pieces that stay (by index)."""
    keep = np.ones(len(cuts), dtype=bool)
    if lo is not None:
        keep &= cuts > lo
    if hi is not None:
        keep &= (cuts <= hi) if integer else (cuts < hi)
    indices = np.flatnonzero(keep)
    if len(indices) == 0:
        first = int(np.count_nonzero(cuts <= lo)) if lo is not None else 0
        return indices, np.array([first])
    return indices, np.concatenate([[indices[0]], indices + 1])


def _clip(pl: _PL, lo: Fraction | None, hi: Fraction | None, integer: bool) -> _PL:
    """Restrict one function to ``[lo, hi]``: cuts outside disappear."""
    cuts, a, b = pl.cuts.reshape(-1), pl.a.reshape(-1), pl.b.reshape(-1)
    indices, pieces = _clip_indices(cuts, lo, hi, integer)
    return _PL(cuts[indices].reshape(1, -1), a[pieces].reshape(1, -1), b[pieces].reshape(1, -1))


def refine(
    functions: Sequence[PiecewiseLinear], breakpoints: Sequence[Fraction], values: Sequence[Fraction]
) -> tuple[RationalArray, list[RationalArray], list[RationalArray], RationalArray]:
    """A common refinement of functions on one range and of a step function (``values[i]`` from ``breakpoints[i−1]``).

    Returns the cuts, each function's slopes and intercepts, and the step
    function's value, per piece, on the range of the first function.
    """
    first = functions[0]
    parts = [_PL(f.cuts.reshape(1, -1), f.slopes.reshape(1, -1), f.intercepts.reshape(1, -1)) for f in functions]
    steps = RationalArray.of(list(values)).reshape(1, -1)
    step_cuts = RationalArray.of(list(breakpoints)).reshape(1, -1) if breakpoints else RationalArray.zeros((1, 0))
    parts.append(_PL(step_cuts, RationalArray.zeros(steps.shape), steps))
    cuts, a_list, b_list = _merge(parts)
    cuts = cuts.reshape(-1)
    indices, pieces = _clip_indices(cuts, first.lo, first.hi, first.integer)
    cuts = cuts[indices]
    # drop empty pieces (between equal cuts)
    new_run = np.ones(len(cuts), dtype=bool)
    new_run[1:] = cuts.num[1:] != cuts.num[:-1]
    run_end = np.ones(len(cuts), dtype=bool)
    run_end[:-1] = new_run[1:]
    kept = np.concatenate([[0], np.flatnonzero(run_end) + 1])
    pieces = pieces[kept]
    slopes = [a.reshape(-1)[pieces] for a in a_list[:-1]]
    intercepts = [b.reshape(-1)[pieces] for b in b_list[:-1]]
    return cuts[new_run], slopes, intercepts, b_list[-1].reshape(-1)[pieces]


def _problem_point(pl: _PL, lo: Fraction | None, hi: Fraction | None, integer: bool) -> Fraction | None:
    """A point of the range inside a flagged piece (a set of positive measure over the reals), if any."""
    mask = pl.b.num != 0
    left, left_inf, right, right_inf = _bounds(pl.cuts)
    low = RationalArray.full((), lo) if lo is not None else None
    high = RationalArray.full((), hi) if hi is not None else None
    start_inf = left_inf.copy()
    start = left
    if low is not None:
        start = where(left_inf | (left < low), low, left)
        start_inf = np.zeros_like(left_inf)
    end_inf = right_inf.copy()
    end = right
    if high is not None:
        bound = high + 1 if integer else high
        end = where(right_inf | (right > bound), bound, right)
        end_inf = np.zeros_like(right_inf)
    nonempty = start_inf | end_inf | (start < end)
    hits = np.argwhere(mask & nonempty)
    if len(hits) == 0:
        return None
    i, j = (int(v) for v in hits[0])
    s = None if start_inf[i, j] else start.item(i, j)
    e = None if end_inf[i, j] else end.item(i, j)
    return interior_point(s, e, integer)


def interior_point(lo: Fraction | None, hi: Fraction | None, integer: bool = False) -> Fraction:
    """A point inside the (non-empty) piece from ``lo`` to ``hi`` (None: infinite).

    Over the reals a point off both ends (the midpoint, or one unit inside an
    infinite piece); over the integers the piece's first integer.
    """
    if lo is None and hi is None:
        return Fraction(0)
    if lo is None:
        assert hi is not None
        return Fraction(hi - 1)
    if integer:
        return lo
    return lo + 1 if hi is None else (lo + hi) / 2


def _bulk_array(dataset: Any) -> np.ndarray | None:
    """``dataset`` as one exact numpy array, or None (then it goes record by record).

    A numpy array of integers or floats is taken as it is.  A list, a tuple or
    a one-dimensional object array is taken only when its values are all integers (bools excluded: an int64
    array, or Python ints past int64) or all floats: ``np.asarray`` would
    promote ints on both sides of ``2**63``, or ints beside floats, to float64,
    rounding every integer past ``2**53``.
    """
    if isinstance(dataset, np.ndarray) and dataset.dtype != object:
        return dataset if dataset.dtype.kind in "iuf" else None
    if isinstance(dataset, np.ndarray) and dataset.ndim == 1:  # Python ints past int64, say
        dataset = dataset.tolist()
    if not isinstance(dataset, list | tuple) or not dataset:
        return None
    if all(isinstance(value, int | np.integer) and not isinstance(value, bool) for value in dataset):
        return integer_array([int(value) for value in dataset])
    if all(isinstance(value, float) for value in dataset):  # float64 values, numpy's included
        return np.asarray(dataset, dtype=np.float64)
    return None


def dataset_columns(quality: QualityFunction, dataset: Any) -> tuple[dict[sympy.Symbol, RationalArray], int]:
    """The exact per-field columns of a dataset and its size, validating every record.

    A single numeric field given as a numpy array or a list of ints or floats
    is converted in bulk; anything else goes record by record through the
    schema (errors name the record and the field either way).
    """
    items = list(quality.schema.items())
    if len(items) == 1 and not isinstance(dataset, str | bytes):
        name, symbol, domain = items[0]
        bounds = domain.bounds()
        array = _bulk_array(dataset) if isinstance(domain, IntRange | RationalRange) else None
        if array is not None and array.ndim == 1 and array.size and array.dtype.kind in "iufO":
            if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
                quality.encode_dataset(list(dataset))  # raises, naming the first bad record
            if array.dtype.kind == "f":
                column = from_floats(array)
            elif array.dtype.kind == "O":
                column = RationalArray(array)
            else:
                column = RationalArray(array.astype(np.int64) if array.dtype.kind != "u" or array.max() < 2**62 else array.astype(object))
            lo, hi = bounds
            bad = np.zeros(array.shape, dtype=bool)
            if lo is not None:
                bad |= column < lo
            if hi is not None:
                bad |= column > hi
            if domain.sort == "int":
                bad |= ~column.is_integer()
            if np.any(bad):
                index = int(np.flatnonzero(bad)[0])
                value = dataset[index]
                domain.encode(value.item() if hasattr(value, "item") else value, name=f"dataset[{index}]")
                raise InvalidArgument(f"dataset[{index}]={describe(value)} is outside {domain.describe()}", parameter=f"dataset[{index}]", value=value)
            return {symbol: column}, int(array.size)
    records = quality.encode_dataset(dataset)
    columns = {symbol: RationalArray.of([record[symbol] for record in records]) for _, symbol, _ in items}
    return columns, len(records)


def analyse(quality: QualityFunction, dataset: Any, *, lo: Fraction | None, hi: Fraction | None, integer: bool) -> PiecewiseLinear:
    """``q(dataset, ·)`` on ``[lo, hi]`` (``None``: infinite) as exact pieces; see the module docstring.

    ``quality`` must have exactly one output variable.  Raises
    :class:`~expmech.spec.QualityError` when q is not piecewise linear in r or
    undefined at some point of the range, naming that point.
    """
    (symbol,) = quality.output_space.symbols
    columns, size = dataset_columns(quality, dataset)
    ctx = _Context(integer, {}, 1, size, symbol, columns, [])
    result = _evaluate(quality.expr, ctx)
    for reason, flag in ctx.problems:
        point = _problem_point(flag, lo, hi, integer)
        if point is not None:
            label = quality.name or "the quality function"
            raise QualityError(f"{label} at r={point}: {reason}", output=point)
    clipped = _compact(_clip(_compact(result), lo, hi, integer))
    return PiecewiseLinear(
        clipped.cuts.reshape(-1), clipped.a.reshape(-1), clipped.b.reshape(-1), integer, lo, hi
    )
