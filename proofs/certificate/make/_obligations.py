"""Proofs of the verifier's side conditions, found by the certifier and recorded for ``expmech check`` to follow.

The certifier runs the verifier's own rules (:func:`expmech.proofs.checker.derive`) on each
PROVED claim to learn the side conditions they leave, and records for each how the verifier
can confirm it without trusting anyone: ``univariate`` (n alone, decided exactly), ``split``
(a tree of case splits closed by Farkas multipliers, found here by a linear program z3
solves — z3 only *finds* the multipliers, the verifier checks them), ``enumerate`` (finitely
many points), and only when none of these applies, ``solver``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from ...checker._claims import ENUMERATION_LIMIT
from ...checker._formula import Obligation
from ...checker._split import Atom, Goal, evaluate_everywhere, finite_values, goal_budget, normalise, range_atoms
from ...checker._univariate import decide_univariate

__all__ = ["prove_obligation"]

SEARCH_GOALS = 50_000


def _text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def farkas(atoms: list[Atom], limit: int = 4_000) -> list[list[Any]] | None:
    """Multipliers proving ``atoms`` contradictory (see :mod:`expmech.proofs.checker._split`), or None.

    Fourier–Motzkin elimination with every derived row's combination of the atoms kept: complete for
    the real relaxation (Farkas), exact, and small enough for a case split's few atoms (at most
    ``limit`` rows, else None)."""
    rows: list[Any] = []  # (coeffs, const, strict, combination): Σ coeffs·x + const (< or <=) 0, = Σ combination[i]·atom i
    equalities: list[Any] = []
    for i, atom in enumerate(atoms):
        row = (dict(atom.coeffs), atom.const, atom.rel == "<", {i: Fraction(1)})
        (equalities if atom.rel == "=" else rows).append(row)
    for coeffs, const, _, combo in equalities:  # each equality eliminates one variable (any sign of its multiplier)
        if not coeffs:
            if const != 0:
                return _answer(combo if const > 0 else {i: -w for i, w in combo.items()})
            continue
        name, a = next(iter(coeffs.items()))
        rows = [_eliminate(row, (coeffs, const, False, combo), name, a) for row in rows]
        equalities = [_eliminate(row, (coeffs, const, False, combo), name, a, free=True) for row in equalities]
    while True:
        for coeffs, const, strict, combo in rows:
            if not coeffs and (const > 0 or (const == 0 and strict)):
                return _answer(combo)
        names = {name for row in rows for name in row[0]}
        if not names:
            return None
        def cost(name: str) -> int:
            up = sum(1 for row in rows if row[0].get(name, 0) > 0)
            return up * (sum(1 for row in rows if row[0].get(name, 0) < 0)) - up
        name = min(sorted(names), key=cost)
        ups = [r for r in rows if r[0].get(name, 0) > 0]
        downs = [r for r in rows if r[0].get(name, 0) < 0]
        rows = [r for r in rows if name not in r[0]]
        for up in ups:
            for down in downs:
                rows.append(_combine(up, down, name))
        rows = list({(tuple(sorted(r[0].items())), r[1], r[2]): r for r in rows}.values())
        if len(rows) > limit:
            return None


def _combine(up: Any, down: Any, name: str) -> Any:
    """``up/a + down/|b|``: the variable ``name`` cancels (a > 0 > b)."""
    a, b = up[0][name], -down[0][name]
    coeffs = {n: up[0].get(n, Fraction(0)) / a + down[0].get(n, Fraction(0)) / b for n in set(up[0]) | set(down[0])}
    combo = {i: up[3].get(i, Fraction(0)) / a + down[3].get(i, Fraction(0)) / b for i in set(up[3]) | set(down[3])}
    return ({n: c for n, c in coeffs.items() if c}, up[1] / a + down[1] / b, up[2] or down[2], combo)


def _eliminate(row: Any, eq: Any, name: str, a: Fraction, free: bool = False) -> Any:
    """``row`` with ``name`` replaced through the equality ``eq`` (coefficient ``a`` there)."""
    c = row[0].get(name)
    if not c:
        return row
    factor = -c / a
    coeffs = {n: row[0].get(n, Fraction(0)) + factor * eq[0].get(n, Fraction(0)) for n in set(row[0]) | set(eq[0])}
    combo = {i: row[3].get(i, Fraction(0)) + factor * eq[3].get(i, Fraction(0)) for i in set(row[3]) | set(eq[3])}
    return ({n: v for n, v in coeffs.items() if v}, row[1] + factor * eq[1], row[2], combo)


def _answer(combo: dict[int, Fraction]) -> list[list[Any]]:
    return [[i, _text(w)] for i, w in sorted(combo.items()) if w]


def _search(obligation: Obligation) -> Any:
    """A proof tree for ``obligation`` (see :mod:`expmech.proofs.checker._split`), or None."""
    integers = {v.name for v in obligation.variables if v.integer}
    byname = {v.name: v for v in obligation.variables}
    ranges = range_atoms(obligation.variables)
    budget = [min(SEARCH_GOALS, goal_budget(obligation))]

    def walk(goal: Goal, tried: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        kind, detail = normalise(goal, integers)
        if kind == "closed":
            return {}
        if len(goal.atoms) > tried or kind == "leaf":
            found = farkas(ranges + goal.atoms)
            if found is not None:
                return {"farkas": found}
        if kind == "choice":
            children = []
            for pending in detail:
                child = walk(Goal(list(pending), list(goal.atoms), dict(goal.subst)), len(goal.atoms))
                if child is None:
                    return None
                children.append(child)
            return {"split": children}
        if kind == "stuck":
            for name in sorted(_names(detail) - set(goal.subst)):
                values = finite_values(byname[name]) if name in byname else None
                if values is None:
                    continue
                cases = []
                for v in values:
                    child = walk(Goal(list(goal.pending), [*goal.atoms, Atom(((name, Fraction(1)),), -v, "=")], {**goal.subst, name: v}), -1)
                    if child is None:
                        return None
                    cases.append(child)
                return {"values": name, "cases": cases}
        return None

    return walk(Goal([obligation.formula]), -1)


def _names(item: Any) -> set[str]:
    found: set[str] = set()
    stack = [item]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple) and x:
            if x[0] == "v":
                found.add(x[1])
            elif x[0] != "k":
                stack.extend(x[1:])
    return found


def prove_obligation(obligation: Obligation, *, rlimit: int) -> dict[str, Any] | None:
    """How the verifier can confirm ``obligation``: ``{"node", "method", "proof"?}``, or None when it does not hold
    (or could not be confirmed by any method, a solver included)."""
    entry: dict[str, Any] = {"node": obligation.node}
    if [v.name for v in obligation.variables] == ["n"]:
        why = decide_univariate(obligation)
        if why is None:
            return {**entry, "method": "univariate"}
        if why.startswith(("fails at", "a division by zero")):
            return None  # false at a size: no method proves it
        # too many sizes to decide exactly (a root past 10^5, say): a case split or the solver may still prove it
    proof = _search(obligation)
    if proof is not None:
        return {**entry, "method": "split", "proof": proof}
    lists = [finite_values(v) for v in obligation.variables]
    if all(values is not None for values in lists) and math.prod(len(v) for v in lists) <= ENUMERATION_LIMIT:  # type: ignore[arg-type, misc]
        return {**entry, "method": "enumerate"} if evaluate_everywhere(obligation, ENUMERATION_LIMIT) is None else None
    from ...checker._solver import solve

    return {**entry, "method": "solver"} if solve(obligation, rlimit) is None else None

