"""Every statement of the source, as a :class:`Statement`.

Line numbers refer to the source text ``seed/000_6e285f4c174b17a1.txt``
(Russian); ``seed/STATEMENTS.md`` gives the statements in English.  A
hypothesis with ``in_source=False`` is one the source leaves implicit; the
conformance checks in ``expmech.proofs`` show with a counterexample whether it
is needed.
"""

from __future__ import annotations

import sympy
from sympy import Function, Sum, exp, log

from ._errors import InvalidArgument
from ._identities import IDENTITIES
from ._rule_statements import RULE_STATEMENTS
from ._statements import Hypothesis, ProofStep, Statement

__all__ = ["STATEMENTS", "statement"]

def Eq(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:  # noqa: N802 - mirrors sympy's names
    """An unevaluated ``lhs = rhs`` (sympy would fold a true identity to ``True``)."""
    return sympy.Eq(lhs, rhs, evaluate=False)


def Le(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:  # noqa: N802
    """An unevaluated ``lhs <= rhs``."""
    return sympy.Le(lhs, rhs, evaluate=False)


def Ge(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:  # noqa: N802
    """An unevaluated ``lhs >= rhs``."""
    return sympy.Ge(lhs, rhs, evaluate=False)


def Gt(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:  # noqa: N802
    """An unevaluated ``lhs > rhs``."""
    return sympy.Gt(lhs, rhs, evaluate=False)


# -- notation ---------------------------------------------------------------------

eps = sympy.Symbol("epsilon", positive=True)
Delta = sympy.Symbol("Delta_q", nonnegative=True)
q_d, q_d2 = sympy.symbols("q_d q_dprime", real=True)  # q(d, r), q(d', r)
mu_r = sympy.Symbol("mu_r", positive=True)
Z_d, Z_d2 = sympy.symbols("Z_d Z_dprime", positive=True)
s, N = sympy.Symbol("s", integer=True), sympy.Symbol("N", positive=True, integer=True)
mu = Function("mu", positive=True)
q_of_d = Function("q_d", real=True)
q_of_d2 = Function("q_dprime", real=True)

OPT, t = sympy.symbols("OPT t", positive=True)
mu_S, mu_Sbar = sympy.symbols("mu_S mu_Sbar", positive=True)
I_S, I_Sbar, Z = sympy.Symbol("I_S", positive=True), sympy.Symbol("I_Sbar", positive=True), sympy.Symbol("Z", positive=True)
p_S, p_Sbar = sympy.Symbol("p_S", positive=True), sympy.Symbol("p_Sbar", nonnegative=True)
q_r = Function("q", real=True)
N_S, N_Sbar = sympy.symbols("N_S N_Sbar", positive=True, integer=True)
r = sympy.Symbol("r", integer=True)
E_q, E_hi, E_lo, P_hi = sympy.symbols("E_q E_hi E_lo P_hi", real=True)
u = sympy.Symbol("u", nonnegative=True)  # OPT − 2t in the case OPT >= 2t

n = sympy.Symbol("n", positive=True, integer=True)
c1, c2 = sympy.symbols("c_1 c_2", nonnegative=True, integer=True)
GS, GS_q = sympy.Symbol("GS_Q", nonnegative=True), sympy.Symbol("GS_q", nonnegative=True)
alpha, delta = sympy.symbols("alpha delta", positive=True)
k, m = sympy.symbols("k m", positive=True, integer=True)
W_A, W_B = sympy.symbols("W_A W_B", positive=True)
VC = sympy.Symbol("VCDim_H", positive=True, integer=True)


def _density(q: sympy.Expr, normaliser: sympy.Expr) -> sympy.Expr:
    return exp(eps * q) * mu_r / normaliser


# -- the statements ------------------------------------------------------------------

MECHANISM = Statement(
    id="mechanism",
    kind="definition",
    title="The exponential mechanism E_q^ε",
    source_lines=(5, 9),
    source_quote="выбрать r с вероятностью, пропорциональной e^{ε q(d,r)}·μ(r)",
    hypotheses=(
        Hypothesis("finite-normaliser", "∫ e^{ε q(d,r)} μ(r) dr is finite", Le(Z_d, sympy.oo)),
        Hypothesis("base-measure", "μ is a (non-negative) base measure on R, not zero", Gt(Z_d, 0)),
    ),
    conclusion=Eq(sympy.Symbol("P_r"), exp(eps * q_d) * mu_r / Z_d),
    conclusion_text="E_q^ε(d) returns r with probability proportional to e^{ε q(d,r)} μ(r)",
    constrains=(
        "expmech.impl.exponential._finite:Distribution.weight",
        "expmech.impl.sampling._inversion:InversionTable",
        "expmech.impl.exponential._continuous:ContinuousDistribution",
        "expmech.impl.exponential._countable:CountableDistribution",
    ),
    note=(
        "Over a finite range the normaliser is a finite positive sum, so the hypothesis holds whenever μ is not zero; "
        "over an interval of the reals or an infinite set of integers it is decided exactly (a divergent normaliser "
        "is an error naming this hypothesis), and dropping it admits instances where the mechanism is undefined."
    ),
)

DENSITY = Statement(
    id="density",
    kind="definition",
    title="The density of E_q^ε(d)",
    source_lines=(13, 15),
    source_quote="вероятность … принять значение r равна e^{εq(d,r)}μ(r) / ∫ e^{εq(d,r)}μ(r) dr",
    hypotheses=(Hypothesis("finite-normaliser", "the normaliser is finite and positive", Gt(Z_d, 0)),),
    conclusion=Eq(sympy.Symbol("p_r"), _density(q_d, Z_d)),
    conclusion_text="p(r) = e^{ε q(d,r)} μ(r) / Σ_s e^{ε q(d,s)} μ(s)",
    steps=(
        ProofStep(
            "the probabilities sum to 1: Σ_r e^{εq}μ / Z = Z / Z",
            Eq(Sum(mu(s) * exp(eps * q_of_d(s)), (s, 1, N)) / Sum(mu(s) * exp(eps * q_of_d(s)), (s, 1, N)), 1),
            cites=("expmech.impl.exponential._finite:Distribution.probability",),
        ),
    ),
    constrains=("expmech.impl.exponential._finite:Distribution.probability", "expmech.impl.exponential._finite:Distribution.normaliser"),
)

PRIVACY = Statement(
    id="privacy",
    kind="theorem",
    title="E_q^ε is (2εΔq)-differentially private",
    source_lines=(11, 17),
    source_quote="Механизм E_q^ε(d) обеспечивает (2εΔq)-дифференциальную приватность",
    hypotheses=(
        Hypothesis("neighbours", "d and d' differ in one element"),
        Hypothesis(
            "sensitivity",
            "|q(d,r) − q(d',r)| <= Δq for every r and neighbouring d, d'",
            sympy.And(Le(q_d - q_d2, Delta), Le(q_d2 - q_d, Delta)),
        ),
        Hypothesis("finite-normaliser", "the normaliser is finite (definition of the mechanism)"),
        Hypothesis("epsilon-positive", "ε > 0", Gt(eps, 0), in_source=False),
    ),
    conclusion=Le(_density(q_d, Z_d) / _density(q_d2, Z_d2), exp(2 * eps * Delta)),
    conclusion_text="p_d(r) / p_{d'}(r) <= e^{2εΔq} for every r and neighbouring d, d'",
    steps=(
        ProofStep(
            "the density ratio splits into a numerator factor and a normaliser factor",
            Eq(_density(q_d, Z_d) / _density(q_d2, Z_d2), exp(eps * (q_d - q_d2)) * Z_d2 / Z_d),
        ),
        ProofStep(
            "the numerator changes by a factor at most e^{εΔq}",
            Le(exp(eps * q_d) * mu_r, exp(eps * Delta) * exp(eps * q_d2) * mu_r),
            rule="combination",
            premises=(Le(q_d - q_d2, Delta),),
            multipliers=(eps,),
            log_scale=True,
        ),
        ProofStep(
            "each term of the normaliser changes by a factor at most e^{εΔq}",
            Le(mu(s) * exp(eps * q_of_d2(s)), exp(eps * Delta) * mu(s) * exp(eps * q_of_d(s))),
            rule="combination",
            premises=(Le(q_of_d2(s) - q_of_d(s), Delta),),
            multipliers=(eps,),
            log_scale=True,
        ),
        ProofStep(
            "so the normaliser changes by a factor at most e^{εΔq} (the denominator by at least e^{−εΔq})",
            Le(Sum(mu(s) * exp(eps * q_of_d2(s)), (s, 1, N)), exp(eps * Delta) * Sum(mu(s) * exp(eps * q_of_d(s)), (s, 1, N))),
            rule="termwise-sum",
            from_step=2,
        ),
        ProofStep(
            "the density changes by a factor at most e^{2εΔq}",
            Le(exp(eps * (q_d - q_d2)) * Z_d2 / Z_d, exp(2 * eps * Delta)),
            rule="combination",
            premises=(Le(q_d - q_d2, Delta), Le(log(Z_d2), eps * Delta + log(Z_d))),
            multipliers=(eps, sympy.Integer(1)),
            log_scale=True,
            cites=("expmech.impl.exponential._finite:Distribution.privacy_loss",),
        ),
    ),
    constrains=("expmech.impl.exponential._finite:Distribution.privacy_loss",),
)

ACCURACY_LEMMA = Statement(
    id="accuracy-lemma",
    kind="lemma",
    title="p(S̄_{2t}) <= e^{−εt} / μ(S_t)",
    source_lines=(21, 27),
    source_quote="p(S̄_{2t}) не больше exp(−εt)/μ(S_t) … Пусть μ(S̄_{2t}) <= 1",
    hypotheses=(
        Hypothesis("mu-bar-le-1", "μ(S̄_{2t}) <= 1", Le(mu_Sbar, 1)),
        Hypothesis("t-positive", "t > 0 (else S_t is empty and μ(S_t) = 0)", Gt(t, 0), in_source=False),
        Hypothesis("epsilon-positive", "ε > 0", Gt(eps, 0), in_source=False),
    ),
    conclusion=Le(p_Sbar, exp(-eps * t) / mu_S),
    conclusion_text="p(S̄_{2t}) <= e^{−εt} / μ(S_t), S_t = {q > OPT − t}, S̄_{2t} = {q <= OPT − 2t}",
    steps=(
        ProofStep(
            "both probabilities share the normaliser",
            Eq((I_Sbar / Z) / (I_S / Z), I_Sbar / I_S),
        ),
        ProofStep(
            "on S̄_{2t} each weight is at most e^{ε(OPT−2t)} μ(r)",
            Le(mu(r) * exp(eps * q_r(r)), exp(eps * (OPT - 2 * t)) * mu(r)),
            rule="combination",
            premises=(Le(q_r(r), OPT - 2 * t),),
            multipliers=(eps,),
            log_scale=True,
        ),
        ProofStep(
            "so ∫_{S̄_{2t}} e^{εq} μ <= e^{ε(OPT−2t)} μ(S̄_{2t})",
            Le(Sum(mu(r) * exp(eps * q_r(r)), (r, 1, N_Sbar)), exp(eps * (OPT - 2 * t)) * Sum(mu(r), (r, 1, N_Sbar))),
            rule="termwise-sum",
            from_step=1,
        ),
        ProofStep(
            "on S_t each weight is more than e^{ε(OPT−t)} μ(r)",
            Ge(mu(r) * exp(eps * q_r(r)), exp(eps * (OPT - t)) * mu(r)),
            rule="combination",
            premises=(Gt(q_r(r), OPT - t),),
            multipliers=(eps,),
            log_scale=True,
        ),
        ProofStep(
            "so ∫_{S_t} e^{εq} μ >= e^{ε(OPT−t)} μ(S_t)",
            Ge(Sum(mu(r) * exp(eps * q_r(r)), (r, 1, N_S)), exp(eps * (OPT - t)) * Sum(mu(r), (r, 1, N_S))),
            rule="termwise-sum",
            from_step=3,
        ),
        ProofStep(
            "the ratio is at most e^{−εt} μ(S̄_{2t}) / μ(S_t)",
            Le(I_Sbar / I_S, exp(-eps * t) * mu_Sbar / mu_S),
            rule="combination",
            premises=(Le(log(I_Sbar), eps * (OPT - 2 * t) + log(mu_Sbar)), Ge(log(I_S), eps * (OPT - t) + log(mu_S))),
            multipliers=(sympy.Integer(1), sympy.Integer(1)),
            log_scale=True,
        ),
        ProofStep(
            "with μ(S̄_{2t}) <= 1 the bound is e^{−εt} / μ(S_t)",
            Le(exp(-eps * t) * mu_Sbar / mu_S, exp(-eps * t) / mu_S),
            rule="combination",
            premises=(Le(mu_Sbar, 1),),
            multipliers=(exp(-eps * t) / mu_S,),
        ),
        ProofStep(
            "p(S̄_{2t}) <= p(S̄_{2t}) / p(S_t) since p(S_t) <= 1",
            Le(p_Sbar, p_Sbar / p_S),
            rule="combination",
            premises=(Le(p_S, 1),),
            multipliers=(p_Sbar / p_S,),
        ),
    ),
    constrains=("expmech.impl.exponential._finite:Distribution.mass",),
)

ACCURACY = Statement(
    id="accuracy",
    kind="theorem",
    title="E[q(d, E_q^ε(d))] >= OPT − 3t",
    source_lines=(29, 33),
    source_quote="Для всех t >= ln(OPT/(tμ(S_t)))/ε выполняется: E[q(d,E_q^ε(d))] >= OPT − 3t",
    hypotheses=(
        Hypothesis("t-condition", "t >= ln(OPT / (t μ(S_t))) / ε", Ge(t, log(OPT / (t * mu_S)) / eps)),
        Hypothesis("mu-normalised", "μ(A) <= 1 for every A ⊆ R", Le(mu_Sbar, 1)),
        Hypothesis("q-nonnegative", "q(d, r) >= 0 for every r", Ge(E_lo, 0), in_source=False),
        Hypothesis("t-positive", "t > 0", Gt(t, 0), in_source=False),
        Hypothesis("epsilon-positive", "ε > 0", Gt(eps, 0), in_source=False),
    ),
    conclusion=Ge(E_q, OPT - 3 * t),
    conclusion_text="E[q(d, E_q^ε(d))] >= OPT − 3t",
    steps=(
        ProofStep(
            "by the lemma, P[q >= OPT − 2t] = 1 − p(S̄_{2t}) >= 1 − e^{−εt}/μ(S_t)",
            Ge(1 - p_Sbar, 1 - exp(-eps * t) / mu_S),
            rule="combination",
            premises=(Le(p_Sbar, exp(-eps * t) / mu_S),),
            multipliers=(sympy.Integer(1),),
        ),
        ProofStep(
            "substituting the condition on t: e^{−εt}/μ(S_t) <= t/OPT",
            Le(exp(-eps * t) / mu_S, t / OPT),
            rule="combination",
            premises=(Ge(eps * t, log(OPT) - log(t) - log(mu_S)),),
            multipliers=(sympy.Integer(1),),
            log_scale=True,
        ),
        ProofStep(
            "so P[q >= OPT − 2t] >= 1 − t/OPT",
            Ge(1 - exp(-eps * t) / mu_S, 1 - t / OPT),
            rule="combination",
            premises=(Le(exp(-eps * t) / mu_S, t / OPT),),
            multipliers=(sympy.Integer(1),),
        ),
        ProofStep(
            "E[q] = E[q; q >= OPT−2t] + E[q; q < OPT−2t] >= (OPT − 2t)·P[q >= OPT−2t] — the second part is "
            "dropped as >= 0, which needs q >= 0 (the source's silent hypothesis)",
            Ge(E_hi + E_lo, (OPT - 2 * t) * P_hi),
            rule="combination",
            premises=(Ge(E_hi, (OPT - 2 * t) * P_hi), Ge(E_lo, 0)),
            multipliers=(sympy.Integer(1), sympy.Integer(1)),
        ),
        ProofStep(
            "case OPT >= 2t (OPT = u + 2t, u >= 0): multiplying by OPT − 2t keeps the direction",
            Ge(u * P_hi, u * (1 - t / (u + 2 * t))),
            rule="combination",
            premises=(Ge(P_hi, 1 - t / (u + 2 * t)),),
            multipliers=(u,),
        ),
        ProofStep(
            "(OPT − 2t)(1 − t/OPT) = OPT − 3t + 2t²/OPT",
            Eq((OPT - 2 * t) * (1 - t / OPT), OPT - 3 * t + 2 * t**2 / OPT),
        ),
        ProofStep(
            "OPT − 3t + 2t²/OPT >= OPT − 3t",
            Ge(OPT - 3 * t + 2 * t**2 / OPT, OPT - 3 * t),
            rule="combination",
        ),
        ProofStep(
            "case OPT < 2t: E[q] >= 0 > OPT − 3t (again needs q >= 0)",
            Ge(E_q, OPT - 3 * t),
            rule="combination",
            premises=(Ge(E_q, 0), Ge(2 * t - OPT, 0)),
            multipliers=(sympy.Integer(1), sympy.Integer(1)),
        ),
    ),
    constrains=("expmech.impl.exponential._finite:Distribution.expected_quality",),
    note=(
        "The proof multiplies a probability by OPT − 2t to lower-bound an expectation, which needs q >= 0; "
        "dropping that hypothesis gives a concrete counterexample (see `expmech spec`)."
    ),
)

GLOBAL_SENSITIVITY = Statement(
    id="global-sensitivity",
    kind="definition",
    title="Global sensitivity GS_Q",
    source_lines=(35, 37),
    source_quote="GS_Q = max_{D1,D2: d(D1,D2)=1} |Q(D1) − Q(D2)|",
    hypotheses=(Hypothesis("neighbours", "D1, D2 ∈ 𝒟ⁿ with d(D1, D2) = 1"),),
    conclusion=Eq(GS, sympy.Symbol("max_neighbours_abs_difference", nonnegative=True)),
    conclusion_text="GS_Q is the largest |Q(D1) − Q(D2)| over neighbouring D1, D2",
    constrains=("expmech.proofs:prove_sensitivity",),
)

PREDICATE_QUERY = Statement(
    id="predicate-query",
    kind="definition",
    title="Predicate queries Q_φ and GS_{Q_φ} <= 1/n",
    source_lines=(39, 43),
    source_quote="Q_φ = |{x ∈ D: φ(x)}| / |D| … GS_{Q_φ} <= 1/n для любого предиката φ",
    hypotheses=(
        Hypothesis("same-size", "D1, D2 ∈ 𝒟ⁿ: both have n records"),
        Hypothesis("neighbours", "d(D1, D2) = 1: they differ in one record", Le(c1 - c2, 1)),
    ),
    conclusion=Le((c1 - c2) / n, 1 / n),
    conclusion_text="|Q_φ(D1) − Q_φ(D2)| <= 1/n",
    steps=(
        ProofStep(
            "one changed record changes the count by at most 1, so the normalised count by at most 1/n",
            Le((c1 - c2) / n, 1 / n),
            rule="combination",
            premises=(Le(c1 - c2, 1),),
            multipliers=(1 / n,),
        ),
    ),
    constrains=("expmech.spec._language:Count", "expmech.spec._language:Size"),
)

USEFULNESS = Statement(
    id="usefulness",
    kind="definition",
    title="(α, δ)-usefulness",
    source_lines=(47, 49),
    source_quote="(α,δ)-полезным … |Q_h(D̂) − Q_h(D)| <= α",
    hypotheses=(Hypothesis("class", "H is a class of queries Q_h"),),
    conclusion=Le(sympy.Symbol("Pr_max_error_gt_alpha", nonnegative=True), delta),
    conclusion_text="with probability >= 1 − δ, |Q_h(A(D)) − Q_h(D)| <= α for all h ∈ H",
    instantiable=False,
    note="A definition with nothing to check by itself; the source's use of it is checked in `synthetic-size`.",
)

BLR = Statement(
    id="blr",
    kind="theorem",
    title="Blum–Ligett–Roth: ε-DP (α,δ)-useful synthetic data",
    source_lines=(53, 59),
    source_quote="|D| >= O(k·VCDim(H)log(1/α)/(α³ε) + log(1/δ)/(αε)) … (α,δ)-полезный набор D̂",
    hypotheses=(
        Hypothesis("data", "D ⊂ {0,1}^k"),
        Hypothesis("size", "|D| >= O(k·VCDim(H)·log(1/α)/(α³ε) + log(1/δ)/(αε))"),
    ),
    conclusion=None,
    conclusion_text="an (α,δ)-useful D̂ of size Õ(VCDim(H)/α²) can be released with ε-DP",
    instantiable=False,
    note=(
        "Asymptotic (O-notation): no finite instance decides it; its finite core is `synthetic-size`. "
        "The source's final bound writes d·VCDim(H) where the record length is k."
    ),
)

UNIFORM_CONVERGENCE = Statement(
    id="uniform-convergence",
    kind="lemma",
    title="A small D̂ approximates every Q_h to α/2",
    source_lines=(63, 71),
    source_quote="Pr[|Q_h(D) − Q_h(D̂)| >= α/2 для некоторого h] <= 2(em/VCDim(H))^{VCDim(H)}·e^{−α²m/8}",
    hypotheses=(
        Hypothesis("sample", "D̂ is m records drawn independently and uniformly from D"),
        Hypothesis("vc", "VCDim(H) >= 1 and m >= VCDim(H)"),
    ),
    conclusion=Le(
        sympy.Symbol("Pr_some_h_error_ge_half_alpha", nonnegative=True),
        2 * (sympy.E * m / VC) ** VC * exp(-(alpha**2) * m / 8),
    ),
    conclusion_text="Pr[some h has |Q_h(D) − Q_h(D̂)| >= α/2] <= 2(em/VCDim(H))^{VCDim(H)} e^{−α²m/8}",
)

SYNTHETIC_MECHANISM = Statement(
    id="synthetic-mechanism",
    kind="definition",
    title="The exponential mechanism over synthetic datasets is ε-DP",
    source_lines=(75, 79),
    source_quote="с вероятностью, пропорциональной e^{q(D,D̂)εn/2} … (εnGS_q)-дифференциальную приватность",
    hypotheses=(
        Hypothesis("neighbours", "D, D' ∈ ({0,1}^k)^n differ in one record (replace-one, n public)"),
        Hypothesis("sensitivity", "GS_q <= 1/n", Le(GS_q, 1 / n)),
    ),
    conclusion=Le(eps * n * GS_q, eps),
    conclusion_text="weight e^{q·ε·n/2} with q = −max_h |Q_h(D) − Q_h(D̂)| gives (ε·n·GS_q)-DP, so ε-DP",
    steps=(
        ProofStep(
            "the privacy theorem with ε' = εn/2: 2·ε'·GS_q = εn·GS_q",
            Eq(2 * (eps * n / 2) * GS_q, eps * n * GS_q),
        ),
        ProofStep(
            "GS_q <= 1/n gives εn·GS_q <= ε",
            Le(eps * n * GS_q, eps),
            rule="combination",
            premises=(Le(GS_q, 1 / n),),
            multipliers=(eps * n,),
        ),
    ),
    constrains=("expmech.impl.exponential._finite:ExponentialMechanism",),
)

SYNTHETIC_SIZE = Statement(
    id="synthetic-size",
    kind="theorem",
    title="n >= 4/(εα)·(km + ln(1/δ)) makes the synthetic-data mechanism (α, δ)-useful",
    source_lines=(81, 96),
    source_quote="Pr[A]/Pr[B] >= e^{αεn/4}/2^{km} … n >= 4/(εα)(km + ln(1/δ))",
    hypotheses=(
        Hypothesis(
            "n-large",
            "n >= 4/(εα)·(km + ln(1/δ))",
            Ge(n, 4 / (eps * alpha) * (k * m + log(1 / delta))),
        ),
        Hypothesis("good-exists", "some D̂ of size m has q(D, D̂) >= −α/2 (from uniform convergence)"),
        Hypothesis("delta-range", "0 < δ < 1", sympy.And(Gt(delta, 0), sympy.Lt(delta, 1, evaluate=False)), in_source=False),
        Hypothesis("epsilon-positive", "ε > 0 and α > 0", Gt(eps * alpha, 0), in_source=False),
    ),
    conclusion=Le(sympy.Symbol("Pr_B", nonnegative=True), delta),
    conclusion_text="Pr[q(D, D̂) <= −α] <= δ: the mechanism is (α, δ)-useful",
    steps=(
        ProofStep(
            "the good D̂ weighs >= e^{−αεn/4}; the bad ones together <= 2^{km} e^{−αεn/2}",
            Ge(W_A / W_B, exp(-alpha * eps * n / 4) / (2 ** (k * m) * exp(-alpha * eps * n / 2))),
            rule="combination",
            premises=(Ge(log(W_A), -alpha * eps * n / 4), Le(log(W_B), k * m * log(2) - alpha * eps * n / 2)),
            multipliers=(sympy.Integer(1), sympy.Integer(1)),
            log_scale=True,
        ),
        ProofStep(
            "e^{−αεn/4} / (2^{km} e^{−αεn/2}) = e^{αεn/4} / 2^{km}",
            Eq(exp(-alpha * eps * n / 4) / (2 ** (k * m) * exp(-alpha * eps * n / 2)), exp(alpha * eps * n / 4) / 2 ** (k * m)),
        ),
        ProofStep(
            "n >= 4/(εα)(km + ln(1/δ)) means αεn/4 >= km + ln(1/δ)",
            Ge(alpha * eps * n / 4, k * m + log(1 / delta)),
            rule="combination",
            premises=(Ge(n, 4 / (eps * alpha) * (k * m + log(1 / delta))),),
            multipliers=(alpha * eps / 4,),
        ),
        ProofStep(
            "so e^{αεn/4}/2^{km} >= 1/δ — with slack: the condition pays km where km·ln 2 suffices",
            Ge(exp(alpha * eps * n / 4) / 2 ** (k * m), 1 / delta),
            rule="combination",
            premises=(Ge(alpha * eps * n / 4, k * m + log(1 / delta)), Ge(k * m, 0)),
            multipliers=(sympy.Integer(1), 1 - log(2)),
            log_scale=True,
        ),
        ProofStep(
            "1/δ >= (1 − δ)/δ",
            Ge(1 / delta, (1 - delta) / delta),
            rule="combination",
        ),
    ),
    constrains=("expmech.impl.exponential._finite:Distribution.mass",),
    note="The sufficient n uses km where km·ln 2 would do: it overstates the needed n by (1 − ln 2)·4km/(εα).",
)

# -- posterior sampling ----------------------------------------------------------------
eps0 = sympy.Symbol("epsilon_0", positive=True)  # the tempering factor (1: the posterior itself)
prior_theta = sympy.Symbol("pi_theta", positive=True)  # π(θ), the prior = the base measure μ(θ)
L_d = sympy.Symbol("L_d", positive=True)  # L(d | θ) = Π_{x ∈ d} ℓ(x, θ) > 0 on a clipped support
rho = sympy.Symbol("rho", positive=True)  # max ℓ(x, θ) / ℓ(x', θ) over records and parameters
ell_x, ell_y = sympy.symbols("ell_x ell_xprime", positive=True)  # ℓ(x, θ), ℓ(x', θ) for the changed record

POSTERIOR_SAMPLING = Statement(
    id="posterior-sampling",
    kind="theorem",
    title="One posterior sample is the exponential mechanism with q = ln L, μ = prior: (2ε₀ ln ρ)-DP",
    source_lines=(98, 98),
    source_quote="байесовское сэмплирование по апостериорному распределению … могут сводиться к экспоненциальному механизму",
    hypotheses=(
        Hypothesis(
            "prior",
            "the prior π is the base measure μ: a non-negative measure on the parameters Θ, not zero",
            Gt(prior_theta, 0),
        ),
        Hypothesis(
            "clipped",
            "the support is clipped so that the likelihood stays away from 0: ℓ(x, θ) > 0 for every record x and every θ "
            "in the support (a Bernoulli θ ∈ [a, b] with 0 < a <= b < 1)",
            Gt(ell_y, 0),
            in_source=False,
        ),
        Hypothesis(
            "sensitivity",
            "ρ bounds the likelihood ratio of two records: ℓ(x, θ) <= ρ·ℓ(x', θ) for all records x, x' and θ in the support "
            "(replace-one; add-remove: ρ^{-1} <= ℓ(x, θ) <= ρ), so Δq = ln ρ",
            Le(ell_x, rho * ell_y),
        ),
        Hypothesis("epsilon-positive", "the tempering factor ε₀ > 0", Gt(eps0, 0), in_source=False),
    ),
    conclusion=Le(sympy.Symbol("p_d_over_p_dprime", positive=True), rho ** (2 * eps0)),
    conclusion_text=(
        "drawing θ with density ∝ π(θ)·L(d | θ)^{ε₀} is the exponential mechanism E_q^{ε₀} with q(d, θ) = ln L(d | θ) and "
        "μ = π, so it is ε-DP with ε = 2·ε₀·ln ρ: p_d(θ)/p_{d'}(θ) <= ρ^{2ε₀} for neighbouring d, d'"
    ),
    steps=(
        ProofStep(
            "the (tempered) posterior weight π(θ)·L(d|θ)^{ε₀} is the mechanism's weight μ(θ)·e^{ε₀ q(d,θ)} with q = ln L",
            Eq(prior_theta * L_d**eps0, prior_theta * exp(eps0 * log(L_d))),
            cites=("expmech.impl.applications._posterior:PosteriorSampling.distribution",),
        ),
        ProofStep(
            "one changed record changes q(·, θ) = Σ ln ℓ by ln ℓ(x, θ) − ln ℓ(x', θ) <= ln ρ (finite only when ℓ > 0)",
            Le(log(ell_x) - log(ell_y), log(rho)),
            rule="combination",
            premises=(Le(log(ell_x), log(rho) + log(ell_y)),),
            multipliers=(sympy.Integer(1),),
        ),
        ProofStep(
            "so Δq = ln ρ, and the privacy theorem's bound e^{2ε₀Δq} is ρ^{2ε₀}",
            Eq(exp(2 * eps0 * log(rho)), rho ** (2 * eps0)),
            cites=("expmech.impl.applications._posterior:PosteriorDistribution.privacy_loss",),
        ),
    ),
    constrains=("expmech.impl.applications._posterior:PosteriorSampling",),
    note=(
        "The source states the reduction informally. Made precise: base measure = prior, quality = log-likelihood, "
        "ε₀ = the tempering factor, Δq = ln ρ. Without clipping a likelihood can vanish (θ = 0 or 1 for Bernoulli data): "
        "then Δq = ∞ and no finite ε holds, which the dropped-hypothesis search shows with a pair of datasets whose "
        "privacy loss is infinite."
    ),
)

# -- the digital-goods auction (McSherry–Talwar 2007) ---------------------------------
price = sympy.Symbol("p", integer=True)
P_truth = Function("P_v", nonnegative=True)  # Pr[price = p] when bidder i reports v_i
P_lie = Function("P_b", nonnegative=True)  # Pr[price = p] when bidder i reports b
u_truth = Function("u_v", nonnegative=True)  # g(p) = u_i(p | v_i) = (v_i − p)·1[v_i >= p]
u_lie = Function("u_b", real=True)  # u_i(p | b) = (v_i − p)·1[b >= p]
E_truth, E_lie, E_lie_g = sympy.symbols("E_truth E_lie E_lie_g", real=True)
U_max = sympy.Symbol("U", nonnegative=True)
N_p = sympy.Symbol("N_p", positive=True, integer=True)

AUCTIONS = Statement(
    id="auctions",
    kind="theorem",
    title="An ε-DP price makes truthful bidding (e^ε − 1)-dominant (McSherry–Talwar)",
    source_lines=(100, 100),
    source_quote="в теориях аукционов он позволяет реализовать условия честности",
    hypotheses=(
        Hypothesis(
            "privacy",
            "the price p is drawn by an ε-DP rule from the bids, bid vectors that differ in bidder i's bid being "
            "neighbours: the exponential mechanism with revenue q(b, p) = p·|{j : b_j >= p}| over a finite price "
            "grid and ε = 2ε₀Δq, Δq >= the largest change of q(·, p) when one bid changes",
            Le(P_lie(price), exp(eps) * P_truth(price)),
        ),
        Hypothesis(
            "utility-nonnegative",
            "bidder i's utility when bidding truthfully is >= 0 at every price: u_i(p | v_i) = (v_i − p)·1[v_i >= p]",
            Ge(u_truth(price), 0),
            in_source=False,
        ),
        Hypothesis(
            "truthful-dominant",
            "at every fixed price truthful bidding is dominant: u_i(p | b) <= u_i(p | v_i) for every report b "
            "(a bidder buys at p iff her bid is >= p and pays p, not her bid)",
            Le(u_lie(price), u_truth(price)),
            in_source=False,
        ),
        Hypothesis("utility-bounded", "u_i(p | v_i) <= U at every price", Le(E_truth, U_max), in_source=False),
    ),
    conclusion=Le(E_lie - E_truth, (exp(eps) - 1) * E_truth),
    conclusion_text=(
        "for every bidder i, every other bids and every report b: E[u_i | b] − E[u_i | v_i] <= (e^ε − 1)·E[u_i | v_i], "
        "i.e. E[u_i | v_i] >= e^{−ε}·E[u_i | b]; with u_i <= U the gain is at most (e^ε − 1)·U"
    ),
    steps=(
        ProofStep(
            "at each price the report's utility is at most the truthful one, weighted by Pr_b[p] >= 0",
            Le(P_lie(price) * u_lie(price), P_lie(price) * u_truth(price)),
            rule="combination",
            premises=(Le(u_lie(price), u_truth(price)),),
            multipliers=(P_lie(price),),
        ),
        ProofStep(
            "so E[u_i(p | b)] under the report's price law is at most E[g(p)] under it, g(p) = u_i(p | v_i)",
            Le(Sum(P_lie(price) * u_lie(price), (price, 1, N_p)), Sum(P_lie(price) * u_truth(price), (price, 1, N_p))),
            rule="termwise-sum",
            from_step=0,
        ),
        ProofStep(
            "ε-DP bounds each price's probability, and g >= 0 keeps the direction (McSherry–Talwar's lemma)",
            Le(P_lie(price) * u_truth(price), exp(eps) * P_truth(price) * u_truth(price)),
            rule="combination",
            premises=(Le(P_lie(price), exp(eps) * P_truth(price)),),
            multipliers=(u_truth(price),),
        ),
        ProofStep(
            "so E_b[g] <= e^ε · E_v[g] = e^ε · E[u_i | v_i]",
            Le(Sum(P_lie(price) * u_truth(price), (price, 1, N_p)), exp(eps) * Sum(P_truth(price) * u_truth(price), (price, 1, N_p))),
            rule="termwise-sum",
            from_step=2,
        ),
        ProofStep(
            "chaining: E[u_i | b] <= E_b[g] <= e^ε · E[u_i | v_i]",
            Le(E_lie, exp(eps) * E_truth),
            rule="combination",
            premises=(Le(E_lie, E_lie_g), Le(E_lie_g, exp(eps) * E_truth)),
            multipliers=(sympy.Integer(1), sympy.Integer(1)),
        ),
        ProofStep(
            "the gain of the report is at most (e^ε − 1)·E[u_i | v_i]",
            Le(E_lie - E_truth, (exp(eps) - 1) * E_truth),
            rule="combination",
            premises=(Le(E_lie, exp(eps) * E_truth),),
            multipliers=(sympy.Integer(1),),
        ),
        ProofStep(
            "with E[u_i | v_i] <= U the gain is at most (e^ε − 1)·U",
            Le((exp(eps) - 1) * E_truth, (exp(eps) - 1) * U_max),
            rule="combination",
            premises=(Le(E_truth, U_max),),
            multipliers=(exp(eps) - 1,),
        ),
    ),
    constrains=("expmech.impl.applications._auction:DigitalGoodsAuction.expected_utility",),
    note=(
        "McSherry and Talwar (2007), Lemma and Corollary: an ε-DP mechanism makes truth-telling (e^ε − 1)-dominant "
        "for utilities in [0, U]. In the digital-goods auction the bidder's own bid also decides whether she buys, "
        "so the argument needs truthful bidding to be dominant at every fixed price; and the DP step multiplies by "
        "the utility, so it needs u >= 0. The source states neither; `expmech spec` shows a counterexample without each."
    ),
)

STATEMENTS: tuple[Statement, ...] = (
    MECHANISM,
    DENSITY,
    PRIVACY,
    ACCURACY_LEMMA,
    ACCURACY,
    GLOBAL_SENSITIVITY,
    PREDICATE_QUERY,
    USEFULNESS,
    BLR,
    UNIFORM_CONVERGENCE,
    SYNTHETIC_MECHANISM,
    SYNTHETIC_SIZE,
    POSTERIOR_SAMPLING,
    AUCTIONS,
)


def statement(statement_id: str) -> Statement:
    """The statement (of the source, an identity of ``IDENTITIES`` or a rule of ``RULE_STATEMENTS``) with this id.

    :class:`InvalidArgument` for any other id.
    """
    for item in STATEMENTS + IDENTITIES + RULE_STATEMENTS:
        if item.id == statement_id:
            return item
    known = ", ".join(item.id for item in STATEMENTS + IDENTITIES + RULE_STATEMENTS)
    raise InvalidArgument(f"statement_id={statement_id!r} is not one of: {known}", parameter="statement_id", value=statement_id)
