"""The soundness argument of each rule of the verifier, as a :class:`Statement`.

The verifier (``expmech.proofs.checker``) accepts a derivation rule by rule;
each rule's statement is here, one per rule name, with its argument written as
proof steps that sympy checks (:func:`~expmech.spec.check_steps`) where they
are algebraic.  They are not statements of the source: their ``source_lines``
are ``(0, 0)`` and their ``kind`` is ``"rule"``.  A sensitivity rule's statement
has the id ``"sensitivity-" + name``; the other claims' rules are named after
their claim already (``monotone-…``) and their statement's id is the rule's
name (:func:`rule_statement` finds either by rule name).

Notation: ``D`` and ``D′`` are neighbouring datasets, ``n`` (the spec's
:data:`~expmech.spec.DATASET_SIZE`, a *nonnegative* integer) the size of both
under replace-one and of the smaller under add-remove; ``a_D`` stands for
``a(D, r)`` at a fixed output ``r``.  A sensitivity rule concludes
``a_D − a_D′ <= B`` for every ordered neighbouring pair; the relations are
symmetric, so that is ``|a_D − a_D′| <= B``.  Where a step needs ``n >= 1``
it is written at ``n = m + 1`` with ``m >= 0``, so no assumption of a symbol
removes the case ``n = 0``: that case is a step of its own, or the rule's
hypotheses exclude it in words.  Absolute values are split into the sign cases
that cover every real pair, each case a step.
"""

from __future__ import annotations

import sympy

from ._errors import InvalidArgument
from ._language import DATASET_SIZE
from ._method_statements import METHOD_STATEMENTS
from ._statements import Hypothesis, ProofStep, Statement

__all__ = ["RULE_STATEMENTS", "rule_statement"]

n = DATASET_SIZE
m = sympy.Symbol("m", integer=True, nonnegative=True)  # n = m + 1 where a step needs n >= 1
i, k = sympy.symbols("i k", integer=True, positive=True)
a_D, a_D2, b_D, b_D2, t_D, t_D2, x = sympy.symbols("a_D a_D′ b_D b_D′ t_D t_D′ x", real=True)
S, h_a, h_b, kr, c, g0, g1 = sympy.symbols("S h_a h_b k c g_0 g_1", real=True)
h_lo, h_hi, mu, m_D2, mn_D = sympy.symbols("h_lo h_hi mu Max_D′ Min_D", real=True)
Da, Db, Dd, Ds, B, B1, C, M = sympy.symbols("Delta_a Delta_b Delta Delta_S B B_1 C M", nonnegative=True)
cp = sympy.Symbol("c_+", nonnegative=True)  # a nonnegative factor
cm = sympy.Symbol("c_-", nonnegative=True)  # minus a nonpositive factor
up, vp = sympy.symbols("u_+ v_+", nonnegative=True)  # sign cases of |u| − |v|
aD_f, aD2_f, d_f, h_f = sympy.Function("a_D"), sympy.Function("a_D′"), sympy.Function("Delta"), sympy.Function("h")
j = sympy.Symbol("j", integer=True, positive=True)


#: The prefixes of the rules of the claims other than sensitivity.
_OTHER_CLAIMS = ("monotone-", "range-", "normaliser-", "ratio-", "truthful-", "privacy-", "zcdp-", "verifier-")


def _eq(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:
    return sympy.Eq(lhs, rhs, evaluate=False)


def _le(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:
    return sympy.Le(lhs, rhs, evaluate=False)


def _ge(lhs: sympy.Basic, rhs: sympy.Basic) -> sympy.Basic:
    return sympy.Ge(lhs, rhs, evaluate=False)


def _rule(name: str, title: str, hypotheses: tuple[Hypothesis, ...], conclusion_text: str, steps: tuple[ProofStep, ...], note: str) -> Statement:
    return Statement(
        id=name if name.startswith(_OTHER_CLAIMS) else f"sensitivity-{name}",
        kind="rule",
        title=title,
        source_lines=(0, 0),
        source_quote="",
        hypotheses=hypotheses,
        conclusion=None,
        conclusion_text=conclusion_text,
        steps=steps,
        constrains=("expmech.proofs.checker",),
        instantiable=False,
        note=f"Not in the source: the soundness argument of the verifier's rule {name!r}. {note}".rstrip(),
    )


_SYMMETRIC = Hypothesis("symmetric", "the neighbour relation is symmetric, so a bound on a_D − a_D′ over every ordered pair bounds |a_D − a_D′|")
_PREMISE_A = Hypothesis("premise-a", "a_D − a_D′ <= Δ_a for every ordered neighbouring pair of the node's case", _le(a_D - a_D2, Da))
_PREMISE_B = Hypothesis("premise-b", "b_D − b_D′ <= Δ_b likewise", _le(b_D - b_D2, Db))

DATA_FREE = _rule(
    "data-free",
    "A subterm without an aggregate does not move",
    (Hypothesis("no-aggregate", "the subterm t contains no count, total, mean or size: t(D, r) = t(r) for every dataset D"),),
    "t_D − t_D′ = 0, for every n (the empty dataset included)",
    (ProofStep("t_D and t_D′ are the same value t(r)", _eq(t_D - t_D, 0)),),
    "The verifier checks structurally that the subterm has no aggregate.",
)

LINEAR = _rule(
    "linear",
    "A form linear in the aggregates moves through the changed record only",
    (
        Hypothesis("linear-form", "a = Σ_{x∈D} h(x, r) + k(r)·size() + (Σ_{x∈D} h′(x, r)) / size(), h, h′ and k free of the other records"),
        Hypothesis("record-bound", "replace-one: h(b, r) − h(a, r) <= Δ; add-remove: |h(a, r) + k(r)| <= Δ, over every record a, b and output r", _le(h_b - h_a, Dd)),
        Hypothesis("spread", "h_lo <= h′(x, r) <= h_hi for every record x at the output r, and Δ_S >= h_hi − h_lo", _le(h_hi - h_lo, Ds)),
        Hypothesis("mean-defined", "a mean is undefined on the empty dataset: its part holds for n >= 1 only"),
    ),
    "a_D − a_D′ <= Δ + Δ_S/n (replace-one) or Δ + Δ_S/(n + 1) (add-remove), every n the form is defined at",
    (
        ProofStep("replace-one, sum part: S sums the common records, a is replaced by b, both sizes are n", _eq((S + h_b + kr * n) - (S + h_a + kr * n), h_b - h_a)),
        ProofStep("so it moves by at most Δ", _le((S + h_b + kr * n) - (S + h_a + kr * n), Dd), "combination", (_le(h_b - h_a, Dd),), (sympy.Integer(1),)),
        ProofStep("add-remove, sum part: D′ = D plus the record a, every n >= 0 (S = 0 at n = 0)", _eq((S + h_a + kr * (n + 1)) - (S + kr * n), h_a + kr)),
        ProofStep("at n = 0 itself: the empty dataset against one record", _eq((h_a + kr * 1) - (0 + kr * 0), h_a + kr)),
        ProofStep("so it moves by at most Δ, in both directions", _le((S + h_a + kr * (n + 1)) - (S + kr * n), Dd), "combination", (_le(h_a + kr, Dd),), (sympy.Integer(1),)),
        ProofStep(
            "replace-one, mean part at n = m + 1 >= 1 records",
            _eq((S + h_b) / (m + 1) - (S + h_a) / (m + 1), (h_b - h_a) / (m + 1)),
        ),
        ProofStep(
            "which is at most Δ_S/n: h_b <= h_hi, h_a >= h_lo",
            _le((h_b - h_a) / (m + 1), Ds / (m + 1)),
            "combination",
            (_le(h_b, h_hi), _le(h_lo, h_a), _le(h_hi - h_lo, Ds)),
            (1 / (m + 1), 1 / (m + 1), 1 / (m + 1)),
        ),
        ProofStep(
            "add-remove, mean part: D has n = m + 1 records summing to S (mean μ = S/n), D′ adds a",
            _eq((S + h_a) / (m + 2) - S / (m + 1), (h_a - S / (m + 1)) / (m + 2)),
        ),
        ProofStep(
            "the mean lies in [h_lo, h_hi], so the mean moves by at most Δ_S/(n + 1)",
            _le((h_a - mu) / (m + 2), Ds / (m + 2)),
            "combination",
            (_le(h_a, h_hi), _le(h_lo, mu), _le(h_hi - h_lo, Ds)),
            (1 / (m + 2), 1 / (m + 2), 1 / (m + 2)),
        ),
        ProofStep(
            "and the other way (D′ removes a): μ − h_a <= Δ_S likewise",
            _le((mu - h_a) / (m + 2), Ds / (m + 2)),
            "combination",
            (_le(mu, h_hi), _le(h_lo, h_a), _le(h_hi - h_lo, Ds)),
            (1 / (m + 2), 1 / (m + 2), 1 / (m + 2)),
        ),
    ),
    "The verifier computes h, h′ and k from the subterm itself and confirms Δ and Δ_S with its own z3 queries over the domains.",
)

SIZE_ONLY = _rule(
    "size-only",
    "A term whose only data is the size moves by g(n + 1) − g(n)",
    (
        Hypothesis("size-only", "t = g(size()), g free of every other aggregate"),
        Hypothesis("covers", "add-remove: |g(n + 1) − g(n)| <= B(n) for every integer n >= start, n = 0 included when q is defined on ∅", _le(g1 - g0, B)),
    ),
    "replace-one: t_D − t_D′ = 0; add-remove: |t_D − t_D′| <= B(n) for every n >= start",
    (
        ProofStep("replace-one: both datasets have n records", _eq(sympy.Function("g")(n) - sympy.Function("g")(n), 0)),
        ProofStep("add-remove: the change is exactly g(n + 1) − g(n), at n = 0 too (g(1) − g(0))", _le(g1 - g0, B), "combination", (_le(g1 - g0, B),), (sympy.Integer(1),)),
        ProofStep("for example g = 1/size at n = m + 1 >= 1", _eq(1 / (m + 1) - 1 / (m + 2), 1 / ((m + 1) * (m + 2)))),
        ProofStep("and g = 1/(size + 1) at n = 0 itself, which a bound for n >= 1 does not cover", _eq(sympy.Rational(1, 0 + 1) - sympy.Rational(1, 0 + 2), sympy.Rational(1, 2))),
    ),
    "The verifier decides |g(n + 1) − g(n)| <= B(n) with z3 over the integers n >= start.",
)

SUM = _rule(
    "sum",
    "The change of a sum is at most the sum of the changes",
    (_PREMISE_A, _PREMISE_B, Hypothesis("dominates", "Δ_a + Δ_b <= B", _le(Da + Db, B)), _SYMMETRIC),
    "(a + b)_D − (a + b)_D′ <= B, at every n both premises cover",
    (
        ProofStep(
            "two terms: weights 1, 1, 1",
            _le((a_D + b_D) - (a_D2 + b_D2), B),
            "combination",
            (_le(a_D - a_D2, Da), _le(b_D - b_D2, Db), _le(Da + Db, B)),
            (sympy.Integer(1),) * 3,
        ),
        ProofStep("any number of terms: each term i moves by at most Δ_i", _le(aD_f(i) - aD2_f(i), d_f(i)), "combination", (_le(aD_f(i) - aD2_f(i), d_f(i)),), (sympy.Integer(1),)),
        ProofStep("so their sum moves by at most Σ Δ_i", _le(sympy.Sum(aD_f(i) - aD2_f(i), (i, 1, k)), sympy.Sum(d_f(i), (i, 1, k))), "termwise-sum", from_step=1),
    ),
    "The verifier checks B >= Σ premise bounds with z3 over the integers n >= start.",
)

SCALE = _rule(
    "scale",
    "A data-free factor scales the change by its largest magnitude",
    (
        _PREMISE_A,
        Hypothesis("factor", "|c(r)| <= C over every output r (c free of the data)"),
        Hypothesis("power", "a factor n^k only under replace-one, where both datasets have n records"),
        Hypothesis("dominates", "C·Δ_a <= B", _le(C * Da, B)),
    ),
    "(c·a)_D − (c·a)_D′ <= B, at every n the premise covers",
    (
        ProofStep("the factor comes out", _eq(c * a_D - c * a_D2, c * (a_D - a_D2))),
        ProofStep(
            "case c >= 0: weights c, Δ_a, 1",
            _le(cp * a_D - cp * a_D2, B),
            "combination",
            (_le(a_D - a_D2, Da), _le(cp, C), _le(C * Da, B)),
            (cp, Da, sympy.Integer(1)),
        ),
        ProofStep(
            "case c <= 0 (c = −c₋): the premise of the pair swapped, D′ against D",
            _le(-cm * a_D + cm * a_D2, B),
            "combination",
            (_le(a_D2 - a_D, Da), _le(cm, C), _le(C * Da, B)),
            (cm, Da, sympy.Integer(1)),
        ),
        ProofStep(
            "a power of the size under replace-one, n >= 0",
            _le(n**k * a_D - n**k * a_D2, n**k * Da),
            "combination",
            (_le(a_D - a_D2, Da),),
            (n**k,),
        ),
    ),
    "The verifier confirms C >= |c(r)| with z3 over the outputs and B >= C·n^k·Δ_a over n >= start.",
)

ABS = _rule(
    "abs",
    "The absolute value moves by no more than its argument",
    (_PREMISE_A, Hypothesis("premise-swapped", "a_D′ − a_D <= Δ_a (the pair swapped)", _le(a_D2 - a_D, Da)), Hypothesis("dominates", "Δ_a <= B", _le(Da, B))),
    "|a|_D − |a|_D′ <= B",
    (
        ProofStep("case a_D >= 0, a_D′ >= 0", _le(sympy.Abs(up) - sympy.Abs(vp), B), "combination", (_le(up - vp, Da), _le(Da, B)), (1, 1)),
        ProofStep(
            "case a_D >= 0, a_D′ = −v <= 0",
            _le(sympy.Abs(up) - sympy.Abs(-vp), B),
            "combination",
            (_le(up + vp, Da), _le(Da, B), _ge(vp, 0)),
            (1, 1, 2),
        ),
        ProofStep(
            "case a_D = −u <= 0, a_D′ >= 0",
            _le(sympy.Abs(-up) - sympy.Abs(vp), B),
            "combination",
            (_le(vp + up, Da), _le(Da, B), _ge(vp, 0)),
            (1, 1, 2),
        ),
        ProofStep("case a_D = −u <= 0, a_D′ = −v <= 0", _le(sympy.Abs(-up) - sympy.Abs(-vp), B), "combination", (_le(-vp + up, Da), _le(Da, B)), (1, 1)),
    ),
    "The verifier checks B >= the premise's bound over n >= start.",
)

MAX_MIN = _rule(
    "max-min",
    "Max and Min move by no more than the largest change of their arguments",
    (
        _PREMISE_A,
        _PREMISE_B,
        Hypothesis("max-min", "Max_D′ = Max(a_D′, b_D′) is at least each of a_D′, b_D′; Min_D = Min(a_D, b_D) at most each of a_D, b_D"),
        Hypothesis("dominates", "max(Δ_a, Δ_b) <= M", _le(Da, M)),
        _SYMMETRIC,
    ),
    "Max(a, b)_D − Max(a, b)_D′ <= M, and the same for Min",
    (
        ProofStep(
            "case Max(a_D, b_D) = a_D",
            _le(a_D - m_D2, M),
            "combination",
            (_le(a_D - a_D2, Da), _le(a_D2, m_D2), _le(Da, M)),
            (1, 1, 1),
        ),
        ProofStep(
            "case Max(a_D, b_D) = b_D",
            _le(b_D - m_D2, M),
            "combination",
            (_le(b_D - b_D2, Db), _le(b_D2, m_D2), _le(Db, M)),
            (1, 1, 1),
        ),
        ProofStep(
            "Min, case Min(a_D′, b_D′) = a_D′ (Min_D <= a_D)",
            _le(mn_D - a_D2, M),
            "combination",
            (_le(mn_D, a_D), _le(a_D - a_D2, Da), _le(Da, M)),
            (1, 1, 1),
        ),
        ProofStep(
            "Min, case Min(a_D′, b_D′) = b_D′ (Min_D <= b_D)",
            _le(mn_D - b_D2, M),
            "combination",
            (_le(mn_D, b_D), _le(b_D - b_D2, Db), _le(Db, M)),
            (1, 1, 1),
        ),
    ),
    "The verifier checks M >= each premise's bound over n >= start; any number of arguments folds pairwise.",
)

PIECEWISE = _rule(
    "piecewise",
    "A Piecewise with data-free conditions moves as its chosen branch",
    (
        Hypothesis("data-free-conditions", "no condition contains an aggregate: at each output r both datasets choose the same branch i"),
        Hypothesis("unreachable", "a branch marked dead is chosen at no output r that reaches the Piecewise, so the chosen branch i is not dead"),
        Hypothesis("premise-i", "a_i,D − a_i,D′ <= Δ_i for the chosen branch", _le(a_D - a_D2, Da)),
        Hypothesis("dominates", "Δ_i <= M for every branch not marked dead", _le(Da, M)),
    ),
    "Piecewise_D − Piecewise_D′ <= M",
    (ProofStep("the branch chosen at r is the same at D and D′, and not dead", _le(a_D - a_D2, M), "combination", (_le(a_D - a_D2, Da), _le(Da, M)), (1, 1)),),
    "The verifier checks structurally that the conditions are data-free, and with z3 that each branch marked dead is unreachable: "
    "its condition true, the earlier ones false (all defined) and every enclosing Piecewise taking the branch that holds this one "
    "is unsatisfiable over the outputs. A node's claim is about the outputs reaching its subterm; every other rule's side "
    "conditions range over all outputs, so a premise covers its parent.",
)

#: Steps 2–3 of the joint encodings: the other records' part lies in its unknown's range (the step index 1 is fixed).
_COMMON_PART = (
    ProofStep("each common record's term is at most its bound", _le(h_f(j), h_hi), "combination", (_le(h_f(j), h_hi),), (sympy.Integer(1),)),
    ProofStep(
        "so the common part of the n − 1 = m records lies below m·h_hi (and above m·h_lo, alike), n >= 1",
        _le(sympy.Sum(h_f(j), (j, 1, m)), sympy.Sum(h_hi, (j, 1, m))),
        "termwise-sum",
        from_step=1,
    ),
)

JOINT = _rule(
    "joint",
    "One query over every aggregate at once",
    (
        Hypothesis("over-approximation", "each aggregate of D is the changed record's term plus a variable for the other records, bounded by (records)·[min, max] of its term: every real pair is a model"),
        Hypothesis("unsat", "z3 finds no model with a change above B (the verifier writes the query itself)"),
    ),
    "a_D − a_D′ <= B for every n the query ranges over",
    (
        ProofStep("a count of D′ replacing a by b is the common part plus b's indicator", _eq((S + h_b) - (S + h_a), h_b - h_a)),
        *_COMMON_PART,
    ),
    "Sound because every neighbouring pair satisfies the query's constraints; unsat of a superset is unsat of the set.",
)

ORDER_STATISTIC = _rule(
    "order-statistic",
    "An order statistic moves by no more than the spread of its per-record term",
    (
        Hypothesis(
            "values",
            "where OrderStatistic(h, k) is defined on D and on D′, its value at r is h(x, r) for a record x of D and h(y, r) "
            "for a record y of D′ (the k-th smallest of the records' values is one of them), whatever the rank k and the relation",
        ),
        Hypothesis("spread", "h(y, r) − h(x, r) <= S for every two records x, y of the domain and every output r (a side condition the verifier writes)", _le(h_a - h_b, Ds)),
        Hypothesis("dominates", "S <= B for every n of the case", _le(Ds, B)),
    ),
    "OrderStatistic_D − OrderStatistic_D′ <= B",
    (ProofStep("the two values are h at two records at one output: h(x, r) − h(y, r) <= S <= B", _le(h_a - h_b, B), "combination", (_le(h_a - h_b, Ds), _le(Ds, B)), (1, 1)),),
    "The verifier checks structurally that the node is an order statistic, and leaves the side conditions that no two records "
    "and output spread its term by more than S (both defined) and B >= S over the case. The rank k is never read: the argument holds for every k.",
)

WEAKEN = _rule(
    "weaken",
    "A proved bound may be loosened",
    (_PREMISE_A, Hypothesis("dominates", "Δ_a <= B for every n of the case", _le(Da, B))),
    "a_D − a_D′ <= B",
    (ProofStep("transitivity", _le(a_D - a_D2, B), "combination", (_le(a_D - a_D2, Da), _le(Da, B)), (1, 1)),),
    "The verifier checks B >= the premise's bound with z3 over n >= start; used at the root when the claim is looser.",
)

# Monotonicity (claim "monotonicity"): a node's direction d is +1, −1 or 0 and
# states d·(t_D′ − t_D) >= 0 (0: t_D′ = t_D) for D′ = D plus one record x
# (add-remove), for every D, the empty dataset included.

ind, f_x, u_D, u_D2, v_r = sympy.symbols("[p(x)] f_x u_D u_D′ v_r", real=True)
indp, fp, fm = sympy.symbols("[p(x)]_+ f_+ f_-", nonnegative=True)
_UP_A = Hypothesis("up-a", "a_D′ − a_D >= 0 for every D and D′ = D plus one record", _ge(a_D2 - a_D, 0))
_UP_B = Hypothesis("up-b", "b_D′ − b_D >= 0 likewise", _ge(b_D2 - b_D, 0))
_NEGATED = "A non-increasing part is the negation of a non-decreasing one; a constant part (d = 0) is both."

MONOTONE_DATA_FREE = _rule(
    "monotone-data-free",
    "A subterm without an aggregate does not move (direction 0)",
    (Hypothesis("no-aggregate", "t contains no count, total, mean or size"),),
    "t_D′ − t_D = 0",
    (ProofStep("both are t(r)", _eq(t_D - t_D, 0)),),
    "",
)

MONOTONE_COUNT = _rule(
    "monotone-count",
    "count and size never decrease when a record is added (direction +1)",
    (Hypothesis("indicator", "[p(x, r)] is 0 or 1"),),
    "count_D′ − count_D >= 0 and size_D′ − size_D >= 0, at every n >= 0",
    (
        ProofStep("a count gains the new record's indicator", _ge((S + indp) - S, 0), "combination", (_ge(indp, 0),), (sympy.Integer(1),)),
        ProofStep("the size gains one, from n = 0 on", _eq((n + 1) - n, 1)),
    ),
    "",
)

MONOTONE_TOTAL = _rule(
    "monotone-total",
    "total(f) moves with the constant sign of f",
    (Hypothesis("sign", "f(x, r) >= 0 for every record x and output r (direction +1), or <= 0 (direction −1): the verifier's own z3 query finds no counterexample"),),
    "d·(total_D′ − total_D) >= 0",
    (
        ProofStep("f >= 0: the total gains f(x)", _ge((S + fp) - S, 0), "combination", (_ge(fp, 0),), (sympy.Integer(1),)),
        ProofStep("f <= 0 (f = −f₋)", _le((S - fm) - S, 0), "combination", (_ge(fm, 0),), (sympy.Integer(1),)),
    ),
    "",
)

MONOTONE_COMBINE = _rule(
    "monotone-combine",
    "Sums, Max and Min of parts moving the same way move that way",
    (_UP_A, _UP_B, Hypothesis("max-min", "Max_D′ >= a_D′, b_D′; Min_D <= a_D, b_D")),
    "(a + b), Max(a, b), Min(a, b): value at D′ − value at D >= 0",
    (
        ProofStep("a sum", _ge((a_D2 + b_D2) - (a_D + b_D), 0), "combination", (_ge(a_D2 - a_D, 0), _ge(b_D2 - b_D, 0)), (1, 1)),
        ProofStep("Max, case Max_D = a_D", _ge(m_D2 - a_D, 0), "combination", (_ge(m_D2, a_D2), _ge(a_D2 - a_D, 0)), (1, 1)),
        ProofStep("Max, case Max_D = b_D", _ge(m_D2 - b_D, 0), "combination", (_ge(m_D2, b_D2), _ge(b_D2 - b_D, 0)), (1, 1)),
        ProofStep("Min, case Min_D′ = a_D′", _ge(a_D2 - mn_D, 0), "combination", (_le(mn_D, a_D), _ge(a_D2 - a_D, 0)), (1, 1)),
        ProofStep("Min, case Min_D′ = b_D′", _ge(b_D2 - mn_D, 0), "combination", (_le(mn_D, b_D), _ge(b_D2 - b_D, 0)), (1, 1)),
    ),
    _NEGATED + " Parts moving in opposite directions are rejected.",
)

MONOTONE_SCALE = _rule(
    "monotone-scale",
    "A data-free factor of constant sign keeps or flips the direction",
    (_UP_A, Hypothesis("factor-sign", "c(r) >= 0 at every output r, or <= 0 at every r: the verifier's own z3 query over the outputs")),
    "c >= 0: (c·a)_D′ − (c·a)_D >= 0; c <= 0: <= 0",
    (
        ProofStep("c >= 0", _ge(cp * a_D2 - cp * a_D, 0), "combination", (_ge(a_D2 - a_D, 0),), (cp,)),
        ProofStep("c = −c₋ <= 0", _le(-cm * a_D2 + cm * a_D, 0), "combination", (_ge(a_D2 - a_D, 0),), (cm,)),
    ),
    "",
)

MONOTONE_PIECEWISE = _rule(
    "monotone-piecewise",
    "A Piecewise with data-free conditions moves as its branches",
    (Hypothesis("data-free-conditions", "no condition contains an aggregate: D and D′ choose the same branch at r"), _UP_A),
    "Piecewise_D′ − Piecewise_D >= 0 when every branch moves up",
    (ProofStep("the chosen branch a", _ge(a_D2 - a_D, 0), "combination", (_ge(a_D2 - a_D, 0),), (sympy.Integer(1),)),),
    _NEGATED,
)

MONOTONE_UNIFORM = _rule(
    "monotone-uniform",
    "Replace-one: data that enter only through terms free of r move every output alike",
    (Hypothesis("separable", "q = u(D) + v(r): every additive term containing an aggregate is free of the output variables"),),
    "q(D′, r) − q(D, r) = u(D′) − u(D), the same for every r: all outputs move the same way",
    (ProofStep("v(r) cancels", _eq((u_D2 + v_r) - (u_D + v_r), u_D2 - u_D)),),
    "",
)

MONOTONE_STATEMENTS: tuple[Statement, ...] = (
    MONOTONE_DATA_FREE,
    MONOTONE_COUNT,
    MONOTONE_TOTAL,
    MONOTONE_COMBINE,
    MONOTONE_SCALE,
    MONOTONE_PIECEWISE,
    MONOTONE_UNIFORM,
)

# Range sensitivity (claim "range-sensitivity"): d(y) = q(D, y) − q(D′, y); the
# root bounds the spread d(y₁) − d(y₂) over every neighbouring pair and outputs.

d1, d2 = sympy.symbols("d_1 d_2", real=True)
p1, p2 = sympy.symbols("p_1 p_2", nonnegative=True)
h_a2, h_b2, S2 = sympy.symbols("h_a2 h_b2 S_2", real=True)

RANGE_DIRECT = _rule(
    "range-direct",
    "The two-output joint encoding bounds the spread",
    (
        Hypothesis("over-approximation", "at each output the other records' contribution to each aggregate is an unknown within (records)·[lo, hi] of its term, the lo, hi checked"),
        Hypothesis("unsat", "z3 finds no model with d(y₁) − d(y₂) > B (the verifier writes the query itself)"),
    ),
    "max_y d(y) − min_y d(y) <= B for every n the query ranges over",
    (
        ProofStep(
            "each output's change is the changed records' terms there: the common part cancels (a count or total, replace-one)",
            _eq(((S + h_a) - (S + h_b)) - ((S2 + h_a2) - (S2 + h_b2)), (h_a - h_b) - (h_a2 - h_b2)),
        ),
        *_COMMON_PART,
    ),
    "Every real pair and pair of outputs is a model of the relaxation, so its unsatisfiability bounds every real spread.",
)

RANGE_DOUBLE = _rule(
    "range-double",
    "The spread is at most twice the sensitivity",
    (Hypothesis("sensitivity", "|d(y)| <= Δ at every output y, by an accepted sensitivity derivation", _le(d1, Dd)), Hypothesis("dominates", "2·Δ <= B", _le(2 * Dd, B))),
    "d(y₁) − d(y₂) <= B",
    (ProofStep("weights 1, 1, 1", _le(d1 - d2, B), "combination", (_le(d1, Dd), _le(-d2, Dd), _le(2 * Dd, B)), (1, 1, 1)),),
    "",
)

RANGE_MONOTONE = _rule(
    "range-monotone",
    "For a monotone q the spread is at most the sensitivity",
    (
        Hypothesis("sensitivity", "|d(y)| <= Δ at every output y", _le(d1, Dd)),
        Hypothesis("monotone", "every d(y) of one pair has one sign (add-remove), or all are equal (replace-one, uniform)"),
        Hypothesis("dominates", "Δ <= B", _le(Dd, B)),
    ),
    "d(y₁) − d(y₂) <= B",
    (
        ProofStep("both changes >= 0", _le(p1 - p2, B), "combination", (_le(p1, Dd), _le(Dd, B)), (1, 1)),
        ProofStep("both changes <= 0 (d = −p)", _le(-p1 + p2, B), "combination", (_le(p2, Dd), _le(Dd, B)), (1, 1)),
        ProofStep("uniform: equal changes", _le(d1 - d1, B), "combination", (), ()),
    ),
    "",
)

RANGE_STATEMENTS: tuple[Statement, ...] = (RANGE_DIRECT, RANGE_DOUBLE, RANGE_MONOTONE)

# The normaliser (claim "normaliser"): Z(D) = Σ/∫ e^{ε q(D, r)} μ(dr) is the same for every D.

eps_pos = sympy.Symbol("epsilon", positive=True)
r_real, f1, f2 = sympy.symbols("r f_1 f_2", real=True)
jj, kk = sympy.symbols("j k", integer=True)

NORMALISER_TRANSLATE = _rule(
    "normaliser-translate",
    "A quality that is a translate of one profile has a normaliser free of the data",
    (
        Hypothesis("translate", "q(D, r) = h(r − f(D)) wherever q is defined, h free of the data (a side condition over free aggregate values, a total "
                   "an integer only when its record term is one)"),
        Hypothesis("whole-line", "r ranges over all of ℝ with a constant density, or all of ℤ with a constant weight and f(D) an integer, shown from the "
                   "schema: f is built by +, ·, |·|, max, min and Piecewise from counts, sizes, integer constants and totals of integer-valued terms"),
    ),
    "Z(D) = Σ/∫ e^{ε h(r − f(D))} μ(dr) = Σ/∫ e^{ε h(s)} μ(ds), the same for every D",
    (
        ProofStep(
            "the Laplace profile h(s) = −|s| on ℝ: the normaliser at two datasets' shifts f₁, f₂ is the same",
            _eq(sympy.Integral(sympy.exp(-eps_pos * sympy.Abs(r_real - f1)), (r_real, -sympy.oo, sympy.oo)), sympy.Integral(sympy.exp(-eps_pos * sympy.Abs(r_real - f2)), (r_real, -sympy.oo, sympy.oo))),
        ),
        ProofStep("and equals 2/ε", _eq(sympy.Integral(sympy.exp(-eps_pos * sympy.Abs(r_real - f1)), (r_real, -sympy.oo, sympy.oo)), 2 / eps_pos)),
        ProofStep(
            "on ℤ with an integer shift k, the term at r = j + k is the profile's term at j: the sum is reindexed, not changed",
            _eq(sympy.exp(-eps_pos * sympy.Abs((jj + kk) - kk)), sympy.exp(-eps_pos * sympy.Abs(jj))),
        ),
    ),
    "On a bounded range a shift moves mass across its ends, and on ℤ a non-integer shift changes the sum: the verifier requires the whole line and an integer f.",
)

# The likelihood ratio (claim "likelihood-ratio"): q(D, θ) = Σ_{x∈D} ln ℓ(x, θ).

la, lb, rho = sympy.symbols("l_a l_b rho", positive=True)

RATIO_CLIPPED = _rule(
    "ratio-clipped",
    "A likelihood ratio bounds the change of a log-likelihood",
    (
        Hypothesis("clipped", "ℓ(x, θ) > 0 on every record and parameter (the verifier's query)"),
        Hypothesis("ratio", "replace-one: ℓ(x, θ) <= ρ·ℓ(x′, θ); add-remove: 1/ρ <= ℓ(x, θ) <= ρ (the verifier's queries)", _le(la, rho * lb)),
        Hypothesis("log-increasing", "ln is increasing on the positive reals, so a ratio <= ρ is a change <= ln ρ"),
    ),
    "|q(D, θ) − q(D′, θ)| <= ln ρ <= ln c for every n (the empty dataset included under add-remove)",
    (
        ProofStep("replace-one: the common records' sum S cancels", _eq((S + sympy.log(la)) - (S + sympy.log(lb)), sympy.log(la / lb))),
        ProofStep("and the ratio is at most ρ", _le(la / lb, rho), "combination", (_le(la, rho * lb),), (1 / lb,)),
        ProofStep("add-remove: the change is the added record's ln ℓ, at n = 0 too (the empty sum is 0)", _eq((0 + sympy.log(la)) - 0, sympy.log(la))),
        ProofStep("with 1/ρ <= ℓ <= ρ, both ways", _le(1 / la, rho), "combination", (_le(1, rho * la),), (1 / la,)),
    ),
    "",
)

# Claims concluded from the certificate's other claims (claims "privacy", "zcdp", "posterior-range"): the verifier reads
# each premise's bound from that claim's accepted derivation.  d = q(D, y) − q(D′, y), L = ln Z(D′) − ln Z(D).

e0, eta = sympy.symbols("epsilon_0 eta", positive=True)
dy, dy2, Lz, E, rho_z = sympy.symbols("d d′ L epsilon rho", real=True)
qy, qy2 = sympy.symbols("q_D q_D′", real=True)
ZD, ZD2, cr, er, kr_ = sympy.symbols("Z_D Z_D′ c e_c k_c", positive=True)
Dh = sympy.Symbol("Delta_hat", nonnegative=True)
_LOSS = ProofStep(
    "the privacy loss at y: the ratio of the two densities, in logs",
    _eq(sympy.log(sympy.exp(e0 * qy) / ZD) - sympy.log(sympy.exp(e0 * qy2) / ZD2), e0 * (qy - qy2) + sympy.log(ZD2) - sympy.log(ZD)),
)
_SENSITIVITY = Hypothesis("sensitivity", "|d(y)| <= Δq at every output y and n: the certificate's sensitivity claim, accepted by the verifier", _le(dy, Dd))
_NORMALISER = Hypothesis("normaliser-factor", "each term e^{ε₀ q(D′, y)} <= e^{ε₀ Δq}·e^{ε₀ q(D, y)}, so L <= ε₀·Δq (the source's privacy proof)", _le(Lz, e0 * Dd))


def _privacy(name: str, title: str, hypotheses: tuple[Hypothesis, ...], steps: tuple[ProofStep, ...], note: str = "") -> Statement:
    return _rule(name, title, hypotheses, "ln p_D(y) − ln p_D′(y) = ε₀·d(y) + L <= ε for every output y: the mechanism is ε-DP", (_LOSS, *steps), note)


PRIVACY_STATEMENTS: tuple[Statement, ...] = (
    _privacy(
        "privacy-double",
        "The privacy theorem: ε >= 2·ε₀·Δq",
        (_SENSITIVITY, _NORMALISER, Hypothesis("dominates", "2·ε₀·Δq <= ε at every n (exact, or a z3 query over n)", _le(2 * e0 * Dd, E))),
        (ProofStep("weights ε₀, 1, 1", _le(e0 * dy + Lz, E), "combination", (_le(dy, Dd), _le(Lz, e0 * Dd), _le(2 * e0 * Dd, E)), (e0, 1, 1)),),
    ),
    _privacy(
        "privacy-monotone",
        "A monotone q: ε >= ε₀·Δq",
        (
            Hypothesis("one-sign", "0 <= d(y) <= Δq at every y (the other sign is the pair reversed): an accepted monotonicity claim", _le(dy, Dd)),
            Hypothesis("normaliser-between", "then Z(D′) <= Z(D) <= e^{ε₀ Δq}·Z(D′): −ε₀·Δq <= L <= 0", _le(Lz, 0)),
            Hypothesis("dominates", "ε₀·Δq <= ε", _le(e0 * Dd, E)),
        ),
        (
            ProofStep("the loss is at most ε", _le(e0 * dy + Lz, E), "combination", (_le(dy, Dd), _le(Lz, 0), _le(e0 * Dd, E)), (e0, 1, 1)),
            ProofStep("and at least −ε", _le(-(e0 * dy + Lz), E), "combination", (_le(-dy, 0), _le(-Lz, e0 * Dd), _le(e0 * Dd, E)), (e0, 1, 1)),
        ),
        "Under replace-one the monotonicity claim is 'uniform': d(y) is one constant c, Z(D) = e^{ε₀ c}·Z(D′) and the loss is 0.",
    ),
    _privacy(
        "privacy-normaliser",
        "A normaliser the same for every dataset: ε >= ε₀·Δq",
        (_SENSITIVITY, Hypothesis("invariant", "Z(D) = Z(D′): an accepted normaliser claim (bound to the mechanism's μ and range by check)", _eq(Lz, 0)),
         Hypothesis("dominates", "ε₀·Δq <= ε", _le(e0 * Dd, E))),
        (ProofStep("weights ε₀, 1", _le(e0 * dy + 0, E), "combination", (_le(dy, Dd), _le(e0 * Dd, E)), (e0, 1)),),
    ),
    _privacy(
        "privacy-ratio",
        "Posterior sampling: ε = k·ln e >= 2·ε₀·ln c",
        (
            Hypothesis("ratio", "|d(θ)| <= ln c: the accepted likelihood-ratio claim", _le(dy, sympy.log(cr))),
            Hypothesis("normaliser-factor", "L <= ε₀·ln c, as in the privacy theorem", _le(Lz, e0 * sympy.log(cr))),
            Hypothesis("powers", "e^k >= c^(2ε₀), compared exactly as integer powers; ln is increasing, so k·ln e >= 2·ε₀·ln c",
                       _le(2 * e0 * sympy.log(cr), kr_ * sympy.log(er))),
        ),
        (
            ProofStep("ln of a power", _eq(sympy.log(cr ** (2 * e0)), 2 * e0 * sympy.log(cr))),
            ProofStep("weights ε₀, 1, 1", _le(e0 * dy + Lz, kr_ * sympy.log(er)), "combination",
                      (_le(dy, sympy.log(cr)), _le(Lz, e0 * sympy.log(cr)), _le(2 * e0 * sympy.log(cr), kr_ * sympy.log(er))), (e0, 1, 1)),
        ),
    ),
    _rule(
        "zcdp-range",
        "η-bounded range gives η²/8-zCDP",
        (
            Hypothesis("range", "d(y₁) − d(y₂) <= Δ̂ for every pair of outputs: the accepted range claim", _le(dy - dy2, Dh)),
            Hypothesis("br-zcdp", "an η-bounded-range mechanism is η²/8-zCDP (Cesar–Rogers 2021, Lemma 3.2), and ρ-zCDP for every ρ above"),
            Hypothesis("dominates", "(ε₀·Δ̂)²/8 <= ρ, exactly", _le((e0 * Dh) ** 2 / 8, rho_z)),
        ),
        "the mechanism is ρ-zCDP",
        (ProofStep("the loss spreads over at most η = ε₀·Δ̂ (the normaliser term is the same at every output)", _le(e0 * dy - e0 * dy2, e0 * Dh), "combination", (_le(dy - dy2, Dh),), (e0,)),),
        "",
    ),
    _rule(
        "range-enumerate",
        "A posterior's range sensitivity by enumeration: Δ̂ >= ln R",
        (
            Hypothesis("enumerated", "R >= max_θ r(θ) / min_θ r(θ) for every record (pair), r = ℓ(x, θ)/ℓ(x′, θ) (add-remove: ℓ(x, θ)), "
                       "each ℓ > 0 evaluated exactly by the spec over every record and the θ of positive μ", _le(qy - qy2, sympy.log(cr))),
            Hypothesis("series", "e^Δ̂ >= Σ_{k<=K} Δ̂^k/k! >= R (every term >= 0 for Δ̂ >= 0), so ln R <= Δ̂", _le(sympy.log(cr), Dh)),
        ),
        "d(θ₁) − d(θ₂) <= Δ̂ for every n (the other records cancel)",
        (
            ProofStep("the other records' sum S cancels", _eq((S + sympy.log(ZD)) - (S + sympy.log(ZD2)), sympy.log(ZD) - sympy.log(ZD2))),
            ProofStep("the series of e^x", _eq(sympy.Sum(x**k / sympy.factorial(k), (k, 0, sympy.oo)), sympy.exp(x))),
            ProofStep("weights 1, 1", _le(qy - qy2, Dh), "combination", (_le(qy - qy2, sympy.log(cr)), _le(sympy.log(cr), Dh)), (1, 1)),
        ),
        "",
    ),
    _rule(
        "range-ratio-double",
        "A posterior's range sensitivity from its likelihood ratio: Δ̂ >= 2·ln c",
        (
            Hypothesis("ratio", "|d(θ)| <= ln c: the accepted likelihood-ratio claim", _le(dy, sympy.log(cr))),
            Hypothesis("series", "e^Δ̂ >= c², by a partial sum of the series of e^Δ̂", _le(sympy.log(cr**2), Dh)),
        ),
        "d(θ₁) − d(θ₂) <= Δ̂",
        (
            ProofStep("ln c² = 2·ln c", _eq(sympy.log(cr**2), 2 * sympy.log(cr))),
            ProofStep("weights 1, 1, 1", _le(dy - dy2, Dh), "combination", (_le(dy, sympy.log(cr)), _le(-dy2, sympy.log(cr)), _le(2 * sympy.log(cr), Dh)), (1, 1, 1)),
        ),
        "",
    ),
)

# Truthfulness (claim "truthfulness"): the posted-price auction with an ε-DP price (statement "auctions").

Pb, Pv, ub, uv, Ev, Bt = sympy.symbols("P_b P_v u_b u_v E_v B", nonnegative=True)
eps_t = sympy.Symbol("epsilon", nonnegative=True)

TRUTHFUL_POSTED_PRICE = _rule(
    "truthful-posted-price",
    "An ε-DP posted price makes truthful bidding (e^ε − 1)·B-dominant",
    (
        Hypothesis("privacy", "P_b(p) <= e^ε·P_v(p) at every price: the accepted privacy claim, bids that differ in bidder i's being neighbours",
                   _le(Pb, sympy.exp(eps_t) * Pv)),
        Hypothesis("posted-price", "u(v, b, p) = (v − p)·1[b >= p], enumerated by the verifier "
                   "over every value, report and price (u(v, v, p) >= 0, u(v, b, p) <= u(v, v, p))", _le(ub, uv)),
        Hypothesis("bounded", "u(v, v, p) <= U <= B at every price, so E[u | v] <= B", _le(Ev, Bt)),
    ),
    "E[u | b] − E[u | v] <= (e^ε − 1)·E[u | v] <= (e^ε − 1)·B",
    (
        ProofStep("at each price the report's utility is at most the truthful one, weighted by P_b(p) >= 0", _le(Pb * ub, Pb * uv), "combination", (_le(ub, uv),), (Pb,)),
        ProofStep("and P_b(p) <= e^ε·P_v(p), weighted by u(v, v, p) >= 0", _le(Pb * uv, sympy.exp(eps_t) * Pv * uv), "combination", (_le(Pb, sympy.exp(eps_t) * Pv),), (uv,)),
        ProofStep("summed over prices, E[u | b] <= e^ε·E[u | v]; and E[u | v] <= B, weighted by e^ε − 1 >= 0", _le((sympy.exp(eps_t) - 1) * Ev, (sympy.exp(eps_t) - 1) * Bt),
                  "combination", (_le(Ev, Bt),), (sympy.exp(eps_t) - 1,)),
    ),
    "The hypotheses of statement `auctions`, checked by the verifier on the certificate's own quality and grids.",
)

RULE_STATEMENTS: tuple[Statement, ...] = (DATA_FREE, LINEAR, SIZE_ONLY, SUM, SCALE, ABS, MAX_MIN, PIECEWISE, JOINT, ORDER_STATISTIC, WEAKEN, *MONOTONE_STATEMENTS, *RANGE_STATEMENTS, NORMALISER_TRANSLATE, RATIO_CLIPPED,
                                          *PRIVACY_STATEMENTS, TRUTHFUL_POSTED_PRICE, *METHOD_STATEMENTS)


def rule_statement(rule: str) -> Statement:
    """The statement of the verifier's rule named ``rule`` (id ``"sensitivity-" + rule``, or ``rule`` itself for the
    other claims' rules and the ``verifier-…`` methods of discharging side conditions); :class:`InvalidArgument` otherwise."""
    for item in RULE_STATEMENTS:
        if item.id in (rule, f"sensitivity-{rule}") and not rule.startswith("sensitivity-"):
            return item
    known = ", ".join(item.id.removeprefix("sensitivity-") for item in RULE_STATEMENTS)
    raise InvalidArgument(f"rule={rule!r} is not one of: {known}", parameter="rule", value=rule)
