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



def farkas(atoms: list[Atom], limit: int = 4_000) -> list[list[Any]] | None:
    """Multipliers proving ``atoms`` contradictory (see :mod:`expmech.proofs.checker._split`), or None.

    Fourier–Motzkin elimination with every derived row's combination of the atoms kept: complete for
    the real relaxation (Farkas), exact, and small enough for a case split's few atoms (at most
    ``limit`` rows, else None).  Rows are kept in integers (each atom scaled by a positive integer, each
    derived row divided by its content), so the multipliers found are integers: a positive multiple of
    the rational ones, which proves the same contradiction."""
    rows: list[_Row] = []  # (coeffs, const, strict, combination): Σ coeffs·x + const (< or <=) 0, = Σ combination[i]·atom i
    equalities: list[_Row] = []
    for i, atom in enumerate(atoms):
        scale = math.lcm(atom.const.denominator, *(c.denominator for _, c in atom.coeffs))
        coeffs = {x: c.numerator * (scale // c.denominator) for x, c in atom.coeffs if c}  # = int(c * scale), without a Fraction
        row = (coeffs, atom.const.numerator * (scale // atom.const.denominator), atom.rel == "<", {i: scale})
        (equalities if atom.rel == "=" else rows).append(row)
    while equalities:  # each equality eliminates one variable (any sign of its multiplier)
        coeffs, const, _, combo = eq = equalities.pop()
        if not coeffs:
            if const != 0:
                return _answer(combo if const > 0 else {i: -w for i, w in combo.items()})
            continue
        name = min(coeffs)
        rows = [_eliminate(row, eq, name) for row in rows]
        equalities = [_eliminate(row, eq, name) for row in equalities]
    keyed = [(*row, _key(row[0], row[1], row[2])) for row in rows]  # each row with its key for duplicates, made once
    while True:
        for coeffs, const, strict, combo, _ in keyed:
            if not coeffs and (const > 0 or (const == 0 and strict)):
                return _answer(combo)
        ups: dict[str, int] = {}
        downs: dict[str, int] = {}
        for keyed_row in keyed:
            for x, c in keyed_row[0].items():
                if c > 0:
                    ups[x] = ups.get(x, 0) + 1
                else:
                    downs[x] = downs.get(x, 0) + 1
        names = set(ups) | set(downs)
        if not names:
            return None
        name = min(sorted(names), key=lambda x: ups.get(x, 0) * downs.get(x, 0) - ups.get(x, 0))
        up_rows: list[_KeyedRow] = []
        down_rows: list[_KeyedRow] = []
        seen: dict[Any, _KeyedRow] = {}  # the rows without ``name`` first, then each combination: the first of each key kept
        for r in keyed:
            c = r[0].get(name, 0)
            if c > 0:
                up_rows.append(r)
            elif c < 0:
                down_rows.append(r)
            else:
                seen.setdefault(r[4], r)
        for up in up_rows:
            for down in down_rows:
                r = _combine(up, down, name)
                seen.setdefault(r[4], r)
        keyed = list(seen.values())
        if len(keyed) > limit:
            return None


_Row = tuple[dict[str, int], int, bool, dict[int, int]]
_KeyedRow = tuple[dict[str, int], int, bool, dict[int, int], Any]


def _key(coeffs: dict[str, int], const: int, strict: bool) -> Any:
    return tuple(sorted(coeffs.items())), const, strict


def _reduced(coeffs: dict[str, int], const: int, strict: bool, combo: dict[int, int]) -> _Row:
    """The row divided by the gcd of its coefficients, constant and multipliers (a positive integer)."""
    g = math.gcd(const, *coeffs.values(), *combo.values())
    if g > 1:
        return {x: c // g for x, c in coeffs.items()}, const // g, strict, {i: w // g for i, w in combo.items()}
    return coeffs, const, strict, combo


def _combine(up: _KeyedRow, down: _KeyedRow, name: str) -> _KeyedRow:
    """``b·up + a·down`` (``a = up[name] > 0 > −b = down[name]``), reduced, with its key: the variable ``name`` cancels."""
    a, b = up[0][name], -down[0][name]
    coeffs = _add_scaled({x: b * c for x, c in up[0].items() if x != name}, down[0], a, name)
    combo = _add_scaled({i: b * w for i, w in up[3].items()}, down[3], a, None)
    coeffs, const, strict, combo = _reduced(coeffs, b * up[1] + a * down[1], up[2] or down[2], combo)
    return coeffs, const, strict, combo, _key(coeffs, const, strict)


def _add_scaled(target: dict[Any, int], source: dict[Any, int], factor: int, skip: Any) -> dict[Any, int]:
    """``target + factor·source`` in place (the key ``skip`` left out), an entry that cancels deleted: no zero is kept."""
    for key, c in source.items():
        if key != skip:
            v = target.get(key, 0) + factor * c
            if v:
                target[key] = v
            else:
                del target[key]
    return target


def _eliminate(row: _Row, eq: _Row, name: str) -> _Row:
    """``row`` with ``name`` replaced through the equality ``eq``: ``|a|·row − sign(a)·c·eq`` (``a = eq[name]``,
    ``c = row[name]``), a positive multiple of ``row`` plus a multiple of an equality."""
    c = row[0].get(name)
    if not c:
        return row
    a = eq[0][name]
    m, f = abs(a), (c if a > 0 else -c)
    coeffs = {x: m * row[0].get(x, 0) - f * eq[0].get(x, 0) for x in row[0].keys() | eq[0].keys()}
    combo = {i: m * row[3].get(i, 0) - f * eq[3].get(i, 0) for i in row[3].keys() | eq[3].keys()}
    return _reduced({x: v for x, v in coeffs.items() if v}, m * row[1] - f * eq[1], row[2], {i: w for i, w in combo.items() if w})


def _answer(combo: dict[int, int]) -> list[list[Any]]:
    return [[i, str(w)] for i, w in sorted(combo.items()) if w]


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

