"""The soundness argument of each way the verifier discharges a side condition, as a :class:`Statement`.

A side condition is a formula whose satisfiability would be a violation; the verifier
(``expmech.proofs.checker``) accepts it as unsatisfiable only by one of these arguments, each checked on
the certificate's recorded data in exact arithmetic: Farkas multipliers over the atoms of a case split,
the rounding of an atom over integers, the finitely many sizes below a root bound, and the slope of q at
an infinite end of its range (the normaliser's finiteness).  Their ids start with ``verifier-``;
:func:`~expmech.spec.rule_statement` finds them by that id.
"""

from __future__ import annotations

import sympy

from ._statements import Hypothesis, ProofStep, Statement

__all__ = ["METHOD_STATEMENTS"]

x, c1, c2, a = sympy.symbols("x c_1 c_2 a", real=True)
l1, l2 = sympy.symbols("lambda_1 lambda_2", positive=True)
C, eps, T = sympy.symbols("C epsilon T", positive=True)
s = sympy.Symbol("s", negative=True)
t, j = sympy.symbols("t j", real=True)
frac = sympy.Symbol("phi", nonnegative=True)
fb, a0, nn = sympy.symbols("floor_b a_0 N", real=True)
a1 = sympy.Symbol("a_1", positive=True)
A = sympy.Symbol("A", nonnegative=True)


def _method(name: str, title: str, hypotheses: tuple[Hypothesis, ...], conclusion: str, steps: tuple[ProofStep, ...], note: str) -> Statement:
    return Statement(id=f"verifier-{name}", kind="rule", title=title, source_lines=(0, 0), source_quote="", hypotheses=hypotheses, conclusion=None,
                     conclusion_text=conclusion, steps=steps, constrains=("expmech.proofs.checker",), instantiable=False,
                     note=f"Not in the source: the soundness argument of the verifier's method {name!r}. {note}".rstrip())


FARKAS = _method(
    "farkas",
    "Farkas multipliers refute a conjunction of linear atoms",
    (
        Hypothesis("atoms", "e_i = a_i·x + c_i <= 0 (or < 0, or = 0) for every atom i of the goal, over real x"),
        Hypothesis("multipliers", "λ_i >= 0 (any sign for an equality), Σ λ_i·a_i = 0 and Σ λ_i·c_i = C > 0 (or C = 0 with a strict atom's λ > 0)"),
    ),
    "no x satisfies every atom: the goal is closed",
    (
        ProofStep("the weighted atoms sum to at most 0", sympy.Le(l1 * (a * x + c1) + l2 * (-(l1 / l2) * a * x + c2), 0), "combination",
                  (sympy.Le(a * x + c1, 0), sympy.Le(-(l1 / l2) * a * x + c2, 0)), (l1, l2)),
        ProofStep("the variables cancel: the sum is the constant Σ λ_i·c_i", sympy.Eq(l1 * (a * x + c1) + l2 * (-(l1 / l2) * a * x + c2), l1 * c1 + l2 * c2, evaluate=False)),
        ProofStep("so Σ λ_i·c_i <= 0, which the multipliers' C > 0 contradicts", sympy.Le(l1 * c1 + l2 * c2, 0, evaluate=False), "combination",
                  (sympy.Le(l1 * (a * x + c1) + l2 * (-(l1 / l2) * a * x + c2), 0, evaluate=False),), (1,)),
    ),
    "A real refutation refutes the integers too; the verifier writes every atom and every variable's range itself.",
)

ROUNDING = _method(
    "integer-rounding",
    "An atom over integers is tightened by rounding",
    (
        Hypothesis("integers", "t = Σ k_i·x_i with integer k_i, every x_i an integer (the sort established from the schema, a count, or a size)"),
        Hypothesis("atom", "t < b (or t <= b) with b rational; b = floor(b) + φ, 0 <= φ < 1"),
    ),
    "t <= ceil(b) − 1 (from t < b) and t <= floor(b) (from t <= b): the rounded atom has the same integer solutions",
    (
        ProofStep("write t = floor(b) + j with j an integer: t − b is j − φ", sympy.Eq((fb + j) - (fb + frac), j - frac, evaluate=False)),
        ProofStep("t <= b and φ < 1 give j < 1; an integer below 1 is at most 0, so t <= floor(b)", sympy.Gt(1, j, evaluate=False), "combination",
                  (sympy.Le(j - frac, 0, evaluate=False), sympy.Lt(frac, 1, evaluate=False)), (1, 1)),
    ),
    "Scaling an atom by the least common denominator and dividing by the gcd of its coefficients keeps its integer solutions.",
)

ROOT_BOUND = _method(
    "root-bound",
    "A formula in n alone is decided at the sizes below a root bound",
    (
        Hypothesis("rational", "every term is, on each branch of its ite's, a rational function P/Q of n"),
        Hypothesis("cauchy", "every real root of p = Σ a_i·n^i (a_d ≠ 0) lies below M = 1 + max_i |a_i / a_d| (Cauchy)"),
    ),
    "beyond the largest M of every numerator, denominator and difference whose sign matters no sign changes, so checking every size up to ceil(M) + 1 decides all sizes",
    (ProofStep("degree 1: a₁·n + a₀ > 0 beyond M = 1 + |a₀|/a₁ (a₁ > 0, a₀ >= −|a₀|); every degree likewise keeps its leading sign",
               sympy.Gt(a1 * nn + a0, 0, evaluate=False), "combination", (sympy.Gt(nn, 1 + A / a1, evaluate=False), sympy.Ge(a0, -A, evaluate=False)), (a1, 1)),),
    "The sizes are checked one by one in exact arithmetic.",
)

TAIL_SLOPE = _method(
    "tail-slope",
    "The normaliser is finite where q falls at each infinite end",
    (
        Hypothesis("slope", "for every dataset D, q(D, σt) <= s·t + C_D for all large t, with s <= s_max (the slope interval the verifier computes)"),
        Hypothesis("tail", "μ is a density d > 0 (reals) or a weight with a factor f per step (integers) on the tail"),
    ),
    "reals: s_max < 0 gives ∫ e^{ε q} μ < ∞; integers: f·e^{ε s_max} < 1 gives Σ e^{ε q} μ < ∞",
    (
        ProofStep("the tail integral of e^{ε s t} from T is finite for s < 0", sympy.Eq(sympy.Integral(sympy.exp(eps * s * t), (t, T, sympy.oo)), -sympy.exp(eps * s * T) / (eps * s), evaluate=False)),
    ),
    "A bounded range needs no slope: q, a polynomial on each piece, is bounded there.",
)

METHOD_STATEMENTS: tuple[Statement, ...] = (FARKAS, ROUNDING, ROOT_BOUND, TAIL_SLOPE)
