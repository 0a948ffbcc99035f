"""Identities between selection mechanisms, as :class:`Statement` objects.

These are not statements of the source: they come from the literature and are
what lets one exact law audit several implementations.  Report-noisy-max with
Gumbel noise samples the exponential mechanism (the Gumbel-max trick; e.g.
Durfee and Rogers, 2019); with exponential noise it samples permute-and-flip
(Ding, Kifer, Saghaian, Wang and Zhang, 2021); one-shot Gumbel top-k samples
k peeled exponential mechanisms (Durfee and Rogers, 2019).  Their
``source_lines`` are ``(0, 0)``: no line of the source states them.  Each
proof's steps are checked by sympy (including the integrals), and
``expmech.proofs.conformance`` checks each identity on random instances
against rigorous numerical integrals of the noise definition.

Notation: ``a_j = ε q(d, j)`` (plus ``ln μ(j)`` for a base measure);
``W = Σ_j e^{a_j}``; for exponential noise ``q* = max_j q(d, j)`` and
``p_j = e^{−ε (q* − q_j)}``.
"""

from __future__ import annotations

import sympy
from sympy import Integral, exp, log, oo

from ._statements import Hypothesis, ProofStep, Statement

__all__ = ["IDENTITIES"]


def _eq(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:
    return sympy.Eq(lhs, rhs, evaluate=False)


z, u, y = sympy.symbols("z u y", real=True)
a_r, a_2 = sympy.symbols("a_r a_2", real=True)
W, W_2 = sympy.symbols("W W_2", positive=True)
eps = sympy.Symbol("epsilon", positive=True)
q_r, q_j, q_star = sympy.symbols("q_r q_j q_star", real=True)
P_r = sympy.Symbol("P_r", nonnegative=True)


def _gumbel_density(x: sympy.Expr) -> sympy.Expr:
    """The standard Gumbel density ``e^{−x} e^{−e^{−x}}``."""
    return exp(-x) * exp(-exp(-x))


RNM_GUMBEL = Statement(
    id="rnm-gumbel",
    kind="identity",
    title="Report-noisy-max with Gumbel noise is the exponential mechanism",
    source_lines=(0, 0),
    source_quote="",
    hypotheses=(
        Hypothesis("finite-range", "R is finite"),
        Hypothesis("gumbel-noise", "G_j are i.i.d. standard Gumbel: P[G <= x] = e^{−e^{−x}}"),
    ),
    conclusion=_eq(P_r, exp(a_r) / W),
    conclusion_text="P[argmax_j (a_j + G_j) = r] = e^{a_r} / Σ_j e^{a_j}: the exponential mechanism's law",
    steps=(
        ProofStep(
            "with z the winning noisy value, the density of a_r + G_r times the others' CDFs combines into one exponential",
            _eq(_gumbel_density(z - a_r) * exp(-exp(-z) * (W - exp(a_r))), exp(a_r - z) * exp(-exp(-z) * W)),
        ),
        ProofStep(
            "integrating over z (u = e^{−z}) gives e^{a_r} / W",
            _eq(Integral(exp(a_r - z) * exp(-exp(-z) * W), (z, -oo, oo)), exp(a_r) / W),
            cites=("expmech.impl.exponential._finite:Distribution.probability",),
        ),
    ),
    constrains=("expmech.impl.exponential._finite:Distribution.probability",),
    note="Not in the source (the Gumbel-max trick). Lets the exponential mechanism's exact law audit Gumbel samplers.",
)

_z_of_y = q_star - log(y) / eps  # y = e^{−ε (z − q*)} ∈ (0, 1] for z >= q*

RNM_EXPONENTIAL = Statement(
    id="rnm-exponential",
    kind="identity",
    title="Report-noisy-max with exponential noise is permute-and-flip",
    source_lines=(0, 0),
    source_quote="",
    hypotheses=(
        Hypothesis("finite-range", "R is finite; q* = max_j q_j is attained"),
        Hypothesis("exponential-noise", "E_j are i.i.d. exponential with mean 1/ε"),
    ),
    conclusion=_eq(P_r, sympy.Symbol("P_PF_r", nonnegative=True)),
    conclusion_text=(
        "P[argmax_j (q_j + E_j) = r] = ∫₀¹ p_r Π_{j≠r} (1 − t p_j) dt, permute-and-flip's probability of r "
        "with coins p_j = e^{−ε (q* − q_j)}"
    ),
    steps=(
        ProofStep(
            "substituting y = e^{−ε (z − q*)}, each other output's CDF 1 − e^{−ε (z − q_j)} becomes 1 − y p_j",
            _eq(1 - exp(-eps * (_z_of_y - q_j)), 1 - y * exp(-eps * (q_star - q_j))),
        ),
        ProofStep(
            "and the winner's density times dz/dy becomes −p_r (z from q* to ∞ is y from 1 to 0)",
            _eq(eps * exp(-eps * (_z_of_y - q_r)) * sympy.diff(_z_of_y, y), -exp(-eps * (q_star - q_r))),
        ),
        ProofStep(
            "permute-and-flip: given r's uniform arrival time t, each other output comes earlier with probability t "
            "and then lands tails with probability 1 − p_j, so it lets r through with probability 1 − t p_j — the "
            "same factor, integrated over t in [0, 1] against r's heads p_r",
            _eq((1 - y) + y * (1 - sympy.Symbol("p_j", positive=True)), 1 - y * sympy.Symbol("p_j", positive=True)),
            cites=("expmech.impl.selection._pf_law:PermuteAndFlipDistribution.enclose",),
        ),
    ),
    constrains=(
        "expmech.impl.selection._pf_law:PermuteAndFlipDistribution.enclose",
        "expmech.impl.selection._permute_flip:PermuteAndFlip.probabilities",
    ),
    note="Not in the source (Ding et al. 2021). Lets the permute-and-flip law audit exponential-noise samplers.",
)

GUMBEL_TOP_K = Statement(
    id="gumbel-top-k",
    kind="identity",
    title="One-shot Gumbel top-k is peeling exponential mechanisms",
    source_lines=(0, 0),
    source_quote="",
    hypotheses=(
        Hypothesis("finite-range", "R is finite, k <= |R|"),
        Hypothesis("gumbel-noise", "G_j are i.i.d. standard Gumbel"),
    ),
    conclusion=_eq(P_r, exp(a_r) / W * exp(a_2) / W_2),
    conclusion_text=(
        "the k largest of a_j + G_j, in order, are (r_1, …, r_k) with probability Π_i e^{a_{r_i}} / Σ_{j not yet "
        "chosen} e^{a_j} (shown for k = 2 with W_2 = W − e^{a_r})"
    ),
    steps=(
        ProofStep(
            "the second place below z: ∫_{−∞}^{z} of its density times the remaining CDFs",
            _eq(Integral(exp(a_2 - u) * exp(-exp(-u) * W_2), (u, -oo, z)), exp(a_2) * exp(-exp(-z) * W_2) / W_2),
        ),
        ProofStep(
            "times the winner's density at z, the exponents combine (W_2 = W − e^{a_r})",
            _eq(
                _gumbel_density(z - a_r) * exp(-exp(-z) * (W - exp(a_r) - W_2)) * exp(a_2) * exp(-exp(-z) * W_2) / W_2,
                exp(a_2) / W_2 * exp(a_r - z) * exp(-exp(-z) * W),
            ),
        ),
        ProofStep(
            "integrating over z gives the peeled product",
            _eq(exp(a_2) / W_2 * Integral(exp(a_r - z) * exp(-exp(-z) * W), (z, -oo, oo)), exp(a_r) * exp(a_2) / (W * W_2)),
            cites=("expmech.impl.selection._topk:TopKDistribution.exact_probability",),
        ),
    ),
    constrains=("expmech.impl.selection._topk:TopKDistribution.exact_probability",),
    note="Not in the source (Durfee and Rogers 2019). Lets the peeling law audit one-shot Gumbel top-k samplers.",
)

IDENTITIES: tuple[Statement, ...] = (RNM_GUMBEL, RNM_EXPONENTIAL, GUMBEL_TOP_K)
