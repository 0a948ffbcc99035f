"""A certified supremum over windows: branch and bound on the two-outcome pair family.

The worst case of non-adaptive composition of η-BR mechanisms is a product of
two-outcome pairs, mechanism i with losses ``t_i`` and ``t_i + η_i`` and
``t_i ∈ [−η_i, 0]`` (Dong–Durfee–Rogers 2020).  Here the mechanisms are split
into *blocks* ``(η_j, n_j)``: the n_j mechanisms of block j share one window
``t_j``.  With ``c_j ~ Bin(n_j, ·)`` the high outcomes of block j, the loss is
``L(c) = Σ n_j t_j + Σ η_j c_j`` and, with ``g_c(t) = P_t(c) − e^ε Q_t(c)``,

    H(t) = Σ_{c : L(c) > ε} g_c(t),        sup over the box Π [−η_j, 0] wanted.

Every block of size 1 makes this the optimum itself; blocks of size > 1 make it
the optimum over windows shared within each block (a lower bound on the optimum).

Bound on a box T with centre t₀ (widths w_j).  For t ∈ T let S(t) be the cells
counted at t.  ``H(t₀) >= Σ_{c∈S(t)} g_c(t₀)``, so

    H(t) − H(t₀) <= Σ_{c ∈ D} (g_c(t) − g_c(t₀)) + Σ_{c ∈ A ∩ S(t)} (g_c(t) − g_c(t₀)),

with D the cells counted at every t ∈ T and A those counted at some but not all.
The first sum is ``G_D(t) − G_D(t₀) = ∇G_D(ξ)·(t − t₀)`` (mean value theorem,
G_D smooth) ``<= Σ_j |∂_j G_D(T)| w_j / 2`` with ∂_j G_D enclosed in balls over T
(``d/dp P[Bin(n,p) >= θ] = n·pmf_{n−1}(θ−1)`` and ``d/dt pmf_n(c) = n p'(pmf_{n−1}(c−1) − pmf_{n−1}(c))``).
For c ∈ A, L(c, ·) takes both sides of ε on T and varies by at most
``W = Σ n_j w_j``, so ``g_c(t) = P(c)(1 − e^{ε−L}) <= P(c)·W`` and
``−g_c(t₀) <= P(c)(e^W − 1)``: the second sum is at most ``(W + e^W − 1)·Σ_{c∈A} sup_T P(c)``.
Three more bounds, the least of all is used:

* *corners*: every S(t) is an up-set of count vectors and each pmf is stochastically
  decreasing in its window, so ``H <= Σ_c (P_lo(c) − e^ε Q_hi(c))₊`` (P at the box's low
  corner, Q at its high one);
* *second order*, where no cell is ambiguous (S constant, ``H = F_S`` smooth on T):
  ``F(t) = F(t₀) + g·Δ + ½ ΔᵀHess(ξ)Δ`` with ``Hess(ξ) <= M = mid + ρI`` (ρ the
  Frobenius norm of the Hessian balls' radii over T); where M is negative definite, the
  supremum over Δ is at most ``½ gᵀ(−M)⁻¹g`` and, with μ < 0 a Gershgorin bound on M's
  top eigenvalue, ``Σ_j max_{0<=x<=w_j/2} |g_j|x + ½μx²`` (:func:`_quadratic`);
* *monotonicity*: where S is constant and ``∂_j F_S`` is enclosed with a sign on T, the
  supremum lies on T's face at that end, and T is replaced by the face.

The centre's value H(t₀) (and H at one Newton step from it) is enclosed in balls with
S(t₀) decided in rationals; each is a real family member, so its lower end is a proven
lower bound.  The box with the largest bound is split until ``upper − lower <= relative ·
lower`` or the box budget is spent.  Measured: two mechanisms with different η reach
1e-9 in ~900–4000 boxes (2–12 s) where the maximum is interior; a maximum on a window's
end (one mechanism contributing nothing) may not, and three separate windows do not
within 3000 boxes: those stay labelled bounds.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, ctx, fmpq

from ._balls import Enclosure, ball, endpoints

__all__ = ["FULL_BOXES", "FULL_TIMES", "WindowSupremum", "heterogeneous_windows", "window_supremum"]

#: Relative width the search aims for.
TARGET = Fraction(1, 10**9)


@dataclass(frozen=True)
class WindowSupremum:
    """``sup_t H(t)`` lies in ``enclosure``; ``certified`` says whether it reached the target width."""

    enclosure: Enclosure
    certified: bool
    boxes: int


def _interval(lo: Fraction, hi: Fraction) -> arb:
    a, b = arb(fmpq(lo.numerator, lo.denominator)), arb(fmpq(hi.numerator, hi.denominator))
    return a if lo == hi else a.union(b)


def _pair(t: arb, eta: Fraction) -> tuple[arb, arb, arb, arb, arb, arb]:
    """Balls of ``p, 1 − p, q, 1 − q, dp/dt, dq/dt`` over the ball ``t`` (``p'' = p'``, ``q'' = −q'``)."""
    e = ball(eta)
    scale, a = e.expm1(), e.exp()
    # each written with one occurrence of t, so that a ball of t gives a tight ball of each
    p = -a * t.expm1() / scale
    one_minus_p = (t + e).expm1() / scale
    q = (-t).expm1() / scale
    one_minus_q = -a * (-t - e).expm1() / scale
    return p, one_minus_p, q, one_minus_q, -(t + e).exp() / scale, -(-t).exp() / scale


def _pmf(n: int, s: arb, f: arb) -> list[arb]:
    if n < 0:
        return []
    ps, fs = [arb(1)], [arb(1)]
    for _ in range(n):
        ps.append(ps[-1] * s)
        fs.append(fs[-1] * f)
    return [math.comb(n, c) * ps[c] * fs[n - c] for c in range(n + 1)]


def _at(table: list[arb], c: int) -> arb:
    return table[c] if 0 <= c < len(table) else arb(0)


class _Side:
    """One block's binomial pmf under P or Q at a ball of t, with its first two t-derivatives, and the tails'.

    ``d/dt pmf_n(c) = n s' (pmf_{n−1}(c−1) − pmf_{n−1}(c))`` and ``d/dt P[Bin(n, s) >= θ] = n s' pmf_{n−1}(θ−1)``;
    differentiating again (``s''`` = ``sign · s'``) adds ``n(n−1) s'²`` times the second differences of ``pmf_{n−2}``.
    """

    def __init__(self, n: int, s: arb, f: arb, ds: arb, sign: int) -> None:
        pmf, one, two = _pmf(n, s, f), _pmf(n - 1, s, f), _pmf(n - 2, s, f)
        d2s, sq = sign * ds, ds * ds
        self.pmf = pmf
        self.d1 = [n * ds * (_at(one, c - 1) - _at(one, c)) for c in range(n + 1)]
        self.d2 = [
            n * d2s * (_at(one, c - 1) - _at(one, c)) + n * (n - 1) * sq * (_at(two, c - 2) - 2 * _at(two, c - 1) + _at(two, c))
            for c in range(n + 1)
        ]
        self.tail = [arb(0)] * (n + 2)
        for c in range(n, -1, -1):
            self.tail[c] = self.tail[c + 1] + pmf[c]
        self.tail1 = [n * ds * _at(one, th - 1) if 1 <= th <= n else arb(0) for th in range(n + 2)]
        self.tail2 = [
            n * d2s * _at(one, th - 1) + n * (n - 1) * sq * (_at(two, th - 2) - _at(two, th - 1)) if 1 <= th <= n else arb(0)
            for th in range(n + 2)
        ]


def _sides(eta: Fraction, n: int, t: arb) -> tuple[_Side, _Side]:
    p, omp, q, omq, dp, dq = _pair(t, eta)
    return _Side(n, p, omp, dp, 1), _Side(n, q, omq, dq, -1)


def _threshold(rest: Fraction, eta: Fraction, n: int) -> int:
    """The least c in 0..n+1 with ``η c > rest``."""
    return min(max(math.floor(rest / eta) + 1, 0), n + 1)


def _factors(side: list[_Side], c: tuple[int, ...], th: int, order: int) -> list[tuple[arb, arb, arb]]:
    heads = [(s.pmf[x], s.d1[x], s.d2[x]) if order else (s.pmf[x], arb(0), arb(0)) for s, x in zip(side, c)]
    last = side[-1]
    return [*heads, (last.tail[th], last.tail1[th], last.tail2[th]) if order else (last.tail[th], arb(0), arb(0))]


def _product(parts: list[tuple[arb, arb, arb]], derive: tuple[int, ...]) -> arb:
    out = arb(1)
    for i, part in enumerate(parts):
        out *= part[derive.count(i)]
    return out


@dataclass
class _Taylor:
    value: arb
    grad: list[arb]
    hess: list[list[arb]]


class _Search:
    def __init__(self, blocks: tuple[tuple[Fraction, int], ...], epsilon: Fraction) -> None:
        self.blocks = sorted(blocks, key=lambda b: (b[1], b[0]))
        self.epsilon = epsilon
        self.e_eps = ball(epsilon).exp()
        heads = self.blocks[:-1]
        self.prefixes = [
            (c, sum((eta * x for (eta, _), x in zip(heads, c)), Fraction(0)))
            for c in itertools.product(*(range(n + 1) for _, n in heads))
        ]

    def _base(self, ts: list[Fraction]) -> Fraction:
        return self.epsilon - sum((n * t for (_, n), t in zip(self.blocks, ts)), Fraction(0))

    def thresholds(self, ts: list[Fraction]) -> list[int]:
        """Per prefix, the least count of the last block whose cell has loss > ε at the rational windows ``ts``."""
        eta_m, n_m = self.blocks[-1]
        base = self._base(ts)
        return [_threshold(base - height, eta_m, n_m) for _, height in self.prefixes]

    def taylor(self, balls: list[arb], thresholds: list[int], order: int) -> _Taylor:
        """F_S and (order 2) its gradient and Hessian over the balls ``balls``, S given by per-prefix ``thresholds``."""
        m = len(self.blocks)
        tables = [_sides(eta, n, t) for (eta, n), t in zip(self.blocks, balls)]
        side_p, side_q = [tp for tp, _ in tables], [tq for _, tq in tables]
        value = arb(0)
        grad = [arb(0)] * m
        hess = [[arb(0)] * m for _ in range(m)]
        n_m = self.blocks[-1][1]
        for (c, _), th in zip(self.prefixes, thresholds):
            if th > n_m:
                continue
            fp, fq = _factors(side_p, c, th, order), _factors(side_q, c, th, order)

            def term(derive: tuple[int, ...]) -> arb:
                return _product(fp, derive) - self.e_eps * _product(fq, derive)

            value += term(())
            if order:
                for j in range(m):
                    grad[j] += term((j,))
                    for k in range(j, m) if order > 1 else ():
                        hess[j][k] += term((j, k))
        for j in range(m):
            for k in range(j):
                hess[j][k] = hess[k][j]
        return _Taylor(value, grad, hess)

    def centre(self, ts: list[Fraction]) -> tuple[Fraction, Fraction]:
        """The exact ends of H(t) at rational windows ``ts`` (a family member)."""
        return endpoints(self.taylor([ball(t) for t in ts], self.thresholds(ts), 0).value)

    def corners(self, box: list[tuple[Fraction, Fraction]]) -> Fraction:
        """``Σ_c (P_lo(c) − e^ε Q_hi(c))₊``, P at the box's low corner and Q at its high corner: at least H on the box.

        Every S(t) is an up-set of count vectors and each pmf is stochastically decreasing in its window, so
        ``P_t(S) <= P_lo(S)`` and ``Q_t(S) >= Q_hi(S)``.
        """
        low = [_sides(eta, n, ball(lo))[0].pmf for (eta, n), (lo, _) in zip(self.blocks, box)]
        high = [_sides(eta, n, ball(hi))[1].pmf for (eta, n), (_, hi) in zip(self.blocks, box)]
        total = Fraction(0)
        for c, _ in self.prefixes:
            a, b = arb(1), self.e_eps
            for pl, qh, x in zip(low, high, c):
                a, b = a * pl[x], b * qh[x]
            for x in range(len(low[-1])):
                gap = endpoints(a * low[-1][x] - b * high[-1][x])[1]
                if gap > 0:
                    total += gap
        return total

    def face(self, box: list[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
        """The face of ``box`` that holds ``sup H`` over it, by the monotonicity test: where S is the same at every
        t of the box, ``H = F_S`` there, and a partial derivative of F_S enclosed strictly positive (negative) on the
        box puts the supremum at that coordinate's high (low) end.  ``box`` itself when no derivative has a sign."""
        eta_m, n_m = self.blocks[-1]
        base_lo = self._base([hi for _, hi in box])
        base_hi = self._base([lo for lo, _ in box])
        sure = [_threshold(base_hi - h, eta_m, n_m) for _, h in self.prefixes]
        if sure != [_threshold(base_lo - h, eta_m, n_m) for _, h in self.prefixes]:
            return box
        grad = self.taylor([_interval(lo, hi) for lo, hi in box], sure, 1).grad
        return [(hi, hi) if g > 0 and lo < hi else (lo, lo) if g < 0 and lo < hi else (lo, hi) for g, (lo, hi) in zip(grad, box)]

    def bound(self, box: list[tuple[Fraction, Fraction]]) -> tuple[Fraction, Fraction, list[Fraction] | None]:
        """``(lower end of H at the centre, an upper bound on H over box, a Newton point or None)``."""
        centre = [(lo + hi) / 2 for lo, hi in box]
        balls = [_interval(lo, hi) for lo, hi in box]
        eta_m, n_m = self.blocks[-1]
        base_lo = self._base([hi for _, hi in box])
        base_hi = self._base([lo for lo, _ in box])
        sure = [_threshold(base_hi - h, eta_m, n_m) for _, h in self.prefixes]  # counted at every t of the box
        maybe = [_threshold(base_lo - h, eta_m, n_m) for _, h in self.prefixes]  # counted at some t
        at_centre = self.taylor([ball(t) for t in centre], self.thresholds(centre), 0 if sure != maybe else 2)
        value_lo, value_hi = endpoints(at_centre.value)
        over = self.taylor(balls, sure, 2)
        # first order: the mean value theorem on the cells counted throughout, plus the ambiguous cells
        ambiguous = arb(0)
        side_p = [_sides(eta, n, t)[0] for (eta, n), t in zip(self.blocks, balls)] if sure != maybe else []
        for (c, _), s, mb in zip(self.prefixes, sure, maybe):
            if mb < s:
                weight = arb(1)
                for side, x in zip(side_p, c):
                    weight *= side.pmf[x]
                ambiguous += weight * (side_p[-1].tail[mb] - side_p[-1].tail[min(s, n_m + 1)])
        spread = ball(sum((n * (hi - lo) for (_, n), (lo, hi) in zip(self.blocks, box)), Fraction(0)))
        total = ball(value_hi) + (spread + spread.expm1()) * ambiguous
        for g, (lo, hi) in zip(over.grad, box):
            total += arb(g.abs_upper()) * ball((hi - lo) / 2)
        upper = min(endpoints(total)[1], self.corners(box))
        newton = None
        if sure == maybe:  # S is constant on the box: second order, F(t) <= F(t₀) + g·Δ + ½ Δᵀ M Δ with M >= every Hessian
            quadratic, newton = _quadratic(at_centre.grad, over.hess, [(hi - lo) / 2 for lo, hi in box])
            if quadratic is not None:
                upper = min(upper, value_hi + quadratic)
        return value_lo, max(upper, Fraction(0)), newton


def _mid(x: arb) -> Fraction:
    lo, hi = endpoints(x)
    return (lo + hi) / 2


def _rad(x: arb) -> Fraction:
    lo, hi = endpoints(x)
    return (hi - lo) / 2


def _inverse(matrix: list[list[Fraction]]) -> list[list[Fraction]] | None:
    """The inverse of a symmetric rational matrix if it is positive definite (leading minors > 0), else None."""
    m = len(matrix)
    a = [row[:] + [Fraction(int(i == j)) for j in range(m)] for i, row in enumerate(matrix)]
    for col in range(m):
        if a[col][col] <= 0:  # Gaussian elimination without pivoting: the pivots are the ratios of leading minors
            return None
        pivot = a[col][col]
        a[col] = [x / pivot for x in a[col]]
        for row in range(m):
            if row != col and a[row][col] != 0:
                factor = a[row][col]
                a[row] = [x - factor * y for x, y in zip(a[row], a[col])]
    return [row[m:] for row in a]


def _quadratic(
    grad: list[arb], hess: list[list[arb]], half: list[Fraction]
) -> tuple[Fraction | None, list[Fraction] | None]:
    """An upper bound on ``g·Δ + ½ ΔᵀHΔ`` over ``|Δ_j| <= half_j``, g in the balls ``grad`` and H in the balls ``hess``.

    ``M = mid(hess) + ρI`` with ρ the Frobenius norm of the radii is >= every H of the balls.  Where M is negative
    definite the bound is the least of ``½ gᵀ(−M)⁻¹g`` (every Δ; with ``|N_ij||g_i||g_j|``) and, with ``μ < 0`` a
    Gershgorin bound on M's largest eigenvalue (``ΔᵀMΔ <= μ|Δ|²``), the separable ``Σ_j max_{0<=x<=half_j} |g_j|x + ½μx²``.
    None where M is not negative definite.  Also the Newton step ``(−M)⁻¹ mid(g)``.
    """
    m = len(grad)
    rho = Fraction(math.isqrt(int(sum(_rad(h) ** 2 for row in hess for h in row) * 2**200)) + 1, 2**100)
    minus = [[-_mid(hess[i][j]) - (rho if i == j else 0) for j in range(m)] for i in range(m)]
    inverse = _inverse(minus)
    if inverse is None:
        return None, None
    size = [max(abs(x) for x in endpoints(g)) for g in grad]
    gain: Fraction = sum((abs(inverse[i][j]) * size[i] * size[j] for i in range(m) for j in range(m)), Fraction(0)) / 2
    mu: Fraction = max(-minus[i][i] + sum((abs(minus[i][j]) for j in range(m) if j != i), Fraction(0)) for i in range(m))
    if mu < 0:
        separable = Fraction(0)
        for g, h in zip(size, half):
            x = g / -mu
            separable += g * g / (-2 * mu) if x <= h else g * h + mu * h * h / 2
        gain = min(gain, separable)
    g_mid = [_mid(g) for g in grad]
    step = [sum((inverse[i][j] * g_mid[j] for j in range(m)), Fraction(0)) for i in range(m)]
    return gain, step


def window_supremum(
    blocks: tuple[tuple[Fraction, int], ...],
    epsilon: Fraction,
    *,
    max_boxes: int = 4000,
    relative: Fraction = TARGET,
    precision: int = 192,
) -> WindowSupremum:
    """A certified enclosure of ``sup_t H(t)`` over windows shared within each block (module docstring).

    ``blocks`` are ``(η_j, n_j)`` with ``η_j > 0`` rational and ``n_j >= 1`` (several blocks may share an η);
    ``epsilon >= 0``.  The lower end is the exact δ of the best family member evaluated; the upper end is proved
    by the box bounds.  ``certified`` is False when ``max_boxes`` ran out first (the enclosure is still sound).
    """
    if epsilon >= sum((eta * n for eta, n in blocks), Fraction(0)):
        return WindowSupremum(Enclosure(Fraction(0), Fraction(0)), True, 0)
    with ctx.workprec(precision):
        search = _Search(blocks, epsilon)
        domain = [(-eta, Fraction(0)) for eta, _ in search.blocks]
        best = Fraction(0)
        heap: list[tuple[Fraction, int, list[tuple[Fraction, Fraction]]]] = []
        counter = 0

        def push(box: list[tuple[Fraction, Fraction]]) -> None:
            nonlocal best, counter
            box = search.face(box)
            lo, hi, newton = search.bound(box)
            best = max(best, lo)
            if newton is not None:  # one Newton step from the centre: another family member (a lower candidate only)
                point = [min(max(Fraction(round((a + b) / 2 + d, 60)), dlo), dhi) for (a, b), d, (dlo, dhi) in zip(box, newton, domain)]
                best = max(best, search.centre(point)[0])
            heapq.heappush(heap, (-hi, counter, box))
            counter += 1

        push(domain)
        while True:
            top = -heap[0][0]
            if top <= best or (best > 0 and top - best <= relative * best):
                return WindowSupremum(Enclosure(best, max(top, best)), True, counter)
            if counter >= max_boxes:
                return WindowSupremum(Enclosure(best, max(top, best)), False, counter)
            _, _, box = heapq.heappop(heap)
            j = max(range(len(box)), key=lambda i: search.blocks[i][1] * (box[i][1] - box[i][0]))
            if box[j][0] == box[j][1]:  # a point: its bound is its own exact value's upper end
                heapq.heappush(heap, (-search.centre([a for a, _ in box])[1], counter, box))
                counter += 1
                continue
            lo, hi = box[j]
            mid = (lo + hi) / 2
            for part in ((lo, mid), (mid, hi)):
                child = list(box)
                child[j] = part
                push(child)


#: Up to this many mechanisms in all, each gets its own window: the search is over the whole family (the optimum).
FULL_TIMES = 2
#: Box budget of the search over one or two windows.  Three separate windows do not reach the target
#: width in 3000 boxes (the Hessian balls are too wide until boxes are ~10⁻³ across), and windows shared within
#: groups of 50 + 50 mechanisms spent 25 s in 120 boxes without improving the lower end: neither is run.
FULL_BOXES = 4000


def heterogeneous_windows(components: tuple[tuple[Fraction, int], ...], epsilon: Fraction) -> WindowSupremum | None:
    """The search over every mechanism's own window (module docstring) when there are at most :data:`FULL_TIMES`
    mechanisms in ``components = ((η, k), …)``: an enclosure of the optimum δ(ε) itself, both ends sound, and
    ``certified`` when it reached relative width 1e-9 within :data:`FULL_BOXES` boxes.  None for more mechanisms.
    """
    if sum(k for _, k in components) > FULL_TIMES:
        return None
    blocks = tuple((eta, 1) for eta, k in components for _ in range(k))
    return window_supremum(blocks, epsilon, max_boxes=FULL_BOXES)
