"""The joint encoding: every aggregate in one z3 query, for every n at once.

The changed record is shared by every aggregate, and each aggregate's
contribution of the other records is a variable bounded by ``(records) ·
[min, max]`` of its per-record term (``[0, records]`` for a count) — necessary conditions only, so "a change
above ``B``" being unsatisfiable proves ``Δq <= B`` for every n.  It applies
when ``n`` enters linearly: no ``mean`` and no division by the data.

When the query is satisfiable its model names the changed records, the output
and a size n: :func:`tighten` turns it into concrete datasets of that size
(the exact encoding of :mod:`._bounded`; past the sizes it lists, the encoding
with the size unknown of :mod:`._symbolic`, whose pairs may be held by counts
at sizes such as 2⁶²), and a larger exact change found there becomes the next
candidate.  So the candidate only ever grows through
pairs that really exist, and a proof at the end is tight.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import Count, InvalidArgument, Mean, Neighbours, Size, Total

from ._bounded import ConcretePair, confirm, search_sizes
from ._symbolic import symbolic_pair
from ._encoding import codes_from_model
from ._rules import Prover, Unknown, has_data
from ._z3bridge import Query, Translator, check, int_var, q, real_var

__all__ = ["JointOutcome", "applies", "joint_bound", "tighten"]

#: The budget of one query turning a joint model into concrete datasets.
CONCRETISE_RLIMIT = 200_000


@dataclass(frozen=True)
class JointOutcome:
    """``proved``: no change exceeds the candidate; else ``model`` (if sat) of a larger change; ``queries`` to record."""

    proved: bool
    model: dict[str, Any] | None
    queries: tuple[Query, ...]


def applies(expr: sympy.Basic) -> bool:
    """Whether n and the aggregates enter ``expr`` linearly: no mean, no power or product of data-dependent terms."""
    if expr.atoms(Mean):
        return False
    for power in expr.atoms(sympy.Pow):
        if has_data(power.base):
            return False
    for product in expr.atoms(sympy.Mul):
        if sum(1 for factor in product.args if has_data(factor)) > 1:
            return False
    return True


def joint_bound(prover: Prover, expr: sympy.Expr, candidate: Fraction, *, start: int) -> JointOutcome:
    """Whether one z3 query over all aggregates proves ``Δq <= candidate`` for every ``n >= start``."""
    if not applies(expr):
        return JointOutcome(False, None, ())
    aggregates = sorted(expr.atoms(Count, Total), key=sympy.default_sort_key)
    size = int_var("n")
    constraints = [size >= start] + prover.output_domain + prover.record_domain["a"] + prover.record_domain["b"]
    before: dict[sympy.Basic, Any] = {}
    after: dict[sympy.Basic, Any] = {}
    replace = prover.neighbours is Neighbours.REPLACE_ONE
    for index, node in enumerate(aggregates):
        body = node.args[0]
        term = sympy.Piecewise((sympy.Integer(1), body), (sympy.Integer(0), True)) if isinstance(node, Count) else body
        others = size - 1 if replace else size
        if isinstance(node, Count):  # an indicator: the other records contribute between 0 and their number
            rest = int_var(f"rest_{index}")
            constraints += [rest <= others, rest >= 0]
        else:
            ranges = prover.term_range(term, sympy.Integer(0), f"total({body})")
            if ranges is None:
                return JointOutcome(False, None, ())
            high, low = ranges
            rest = real_var(f"rest_{index}")
            constraints += [rest <= others * q(high.value), rest >= -(others * q(low.value))]
        a, b = prover.translate(term, "a"), prover.translate(term, "b")
        if replace:
            before[node], after[node] = a + rest, b + rest
        else:
            before[node], after[node] = rest, rest + a
    before[Size()] = size
    after[Size()] = size if replace else size + 1
    try:
        first = Translator({**before, **prover.output_vars}).number(expr)
        second = Translator({**after, **prover.output_vars}).number(expr)
    except InvalidArgument:
        return JointOutcome(False, None, ())
    bound = q(candidate)
    queries = []
    for name, objective in (("rise", second - first), ("fall", first - second)):
        budget = min(prover.rlimit, prover.joint_left)
        if budget <= 0:
            raise Unknown("the joint encoding's budget is spent")
        answer = check(constraints + [objective > bound], rlimit=budget, timeout_ms=prover.timeout_ms)
        prover.joint_left -= max(answer.rlimit_used, 1)
        if answer.status == "unknown":
            raise Unknown(f"z3 could not decide the joint {name} > {candidate}: {answer.reason}")
        if answer.status != "unsat":
            return JointOutcome(False, answer.model, ())
        queries.append(Query(f"joint {name} of q between neighbours > {candidate}", "unsat", answer))
        if replace:
            break  # swapping the two records mirrors a fall into a rise
    return JointOutcome(True, None, tuple(queries))


def tighten(prover: Prover, expr: sympy.Expr, best: ConcretePair | None, *, start: int, rounds: int = 4) -> tuple[ConcretePair | None, JointOutcome | None]:
    """Raise the candidate through concrete pairs built from joint models until the joint query proves it.

    Returns the best concrete pair and the final outcome (``proved`` when the
    joint encoding shows nothing exceeds that pair's difference).
    """
    outcome: JointOutcome | None = None
    for _ in range(rounds):
        candidate = best.difference if best is not None else Fraction(0)
        outcome = joint_bound(prover, expr, candidate, start=start)
        if outcome.proved or outcome.model is None:
            return best, outcome
        found = _concretise(prover, outcome.model, candidate, start)
        if found is None or (best is not None and found.difference <= best.difference):
            return best, outcome
        best = found
    return best, outcome


def _concretise(prover: Prover, model: dict[str, Any], candidate: Fraction, start: int) -> ConcretePair | None:
    """Concrete datasets for a joint model: its records on datasets of its size, else the exact encoding there."""
    size = model.get("n")
    if not isinstance(size, int) or size < start:
        return None
    quality = prover.quality
    a = codes_from_model(model, "a_", quality.schema)
    b = codes_from_model(model, "b_", quality.schema)
    output = codes_from_model(model, "out_", quality.output_space)
    if a is not None and b is not None and output is not None and size <= 64:
        replace = prover.neighbours is Neighbours.REPLACE_ONE
        for filler in (a, b):
            others = [filler] * (size - 1 if replace else size)
            first = tuple([a] + others) if replace else tuple(others)
            second = tuple([b] + others) if replace else tuple(others + [a])
            found = confirm(prover, first, second, output, candidate, strict=True)
            if found is not None:
                return found
    sizes = sorted({size, max(start, 1), max(start, 1) + 1})
    found = search_sizes(prover, sizes, lambda _size: candidate, strict=True, all_patterns=False, budget=CONCRETISE_RLIMIT)
    if found is None and size > 64:  # a change that may exist only at large n: the size as an unknown, pairs held by counts
        found = symbolic_pair(prover, sympy.Rational(candidate.numerator, candidate.denominator), start=start)
    return found

