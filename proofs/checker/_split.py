"""Unsatisfiability from a recorded proof tree: case splits closed by Farkas multipliers, checked exactly.

:func:`normalise` flattens ``and``, pushes ``not`` in, turns each linear ``ite``-free atom into ``Σ aᵢxᵢ + c ⋈ 0``
(over integer variables, tightened by rounding) and stops at a choice: the first atom with an ``ite``, else the first
``or``.  A proof node ``{"farkas": [[i, "λ"], …]}`` closes a goal (the variables' range atoms first), ``{"split": […]}``
takes the choice, ``{"values": x, "cases": […]}`` adds ``x = v`` per value of a finite x.  Farkas: ``λᵢ >= 0`` (any sign
for ``=``), ``Σ λᵢaᵢ = 0`` and ``Σ λᵢcᵢ > 0`` (or ``= 0`` with a strict atom's ``λ > 0``): ``0 = Σλᵢ(aᵢx + cᵢ) <= 0`` fails.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ._formula import Obligation, Var, holds
from ._numbers import MAX_BITS, TooLarge, add, mul, rational

__all__ = ["Atom", "Goal", "evaluate_everywhere", "farkas_holds", "finite_values", "formula_size", "linear", "normalise", "range_atoms", "replay"]

MAX_GOALS, MAX_WORK = 100_000, 20_000_000  # goals walked per obligation, and goals times the formula's size
MAX_VALUES, MAX_MONOMIALS, _ONE = 4_096, 512, Fraction(1)  # cases of one value split; monomials of one expanded atom


@dataclass(frozen=True)
class Atom:
    """``Σ coeffs[x]·x + const ⋈ 0`` with ``⋈`` one of ``<=``, ``<``, ``=``."""

    coeffs: tuple[tuple[str, Fraction], ...]
    const: Fraction
    rel: str


def _polynomial(term: Any, subst: Mapping[str, Fraction]) -> dict[tuple[str, ...], Fraction] | None:
    """``term`` expanded into monomials; None for an ite, a division by a non-constant, or too many monomials."""
    tag = term[0]
    if tag == "k" or (tag == "v" and term[1] in subst):
        value = term[1] if tag == "k" else subst[term[1]]
        return {(): value} if value else {}
    if tag == "v":
        return {(term[1],): _ONE}
    if tag == "inv":
        inner = _polynomial(term[1], subst)
        return None if inner is None or set(inner) != {()} else {(): 1 / inner[()]}
    if tag not in ("+", "*"):
        return None
    result: dict[tuple[str, ...], Fraction] | None = None  # the parts so far (a fresh dict, gathered in place)
    for part in term[1:]:
        if (found := _polynomial(part, subst)) is None:
            return None
        if result is None:
            result = found
        elif tag == "+":
            for key, c in found.items():
                result[key] = add(result[key], c) if key in result else c
        elif len(result) == 1 and () in result:  # a constant times the part (keys are sorted already)
            result = found if result[()] == 1 else {key: mul(result[()], c) for key, c in found.items()}
        else:
            result, before = {}, result
            for (k1, c1), (k2, c2) in itertools.product(before.items(), found.items()):
                key, c = tuple(sorted(k1 + k2)), mul(c1, c2)
                result[key] = add(result[key], c) if key in result else c
        if len(result) > MAX_MONOMIALS and len(result := {key: c for key, c in result.items() if c}) > MAX_MONOMIALS:
            return None
    return {(): _ONE} if result is None and tag == "*" else {key: c for key, c in (result or {}).items() if c}


def linear(term: Any, subst: Mapping[str, Fraction]) -> tuple[dict[str, Fraction], Fraction] | None:
    """``term`` as ``(coefficients, constant)`` (terms that cancel do); None when it is not linear."""
    poly = _polynomial(term, subst)
    if poly is None or any(len(key) > 1 for key in poly):
        return None
    return {key[0]: c for key, c in poly.items() if key}, poly.get((), Fraction(0))


def _tighten(coeffs: dict[str, Fraction], const: Fraction, rel: str, integers: set[str]) -> Atom | bool:
    """The atom, tightened by rounding when every variable is an integer; a bool when it is constant."""
    if not coeffs:
        return const < 0 if rel == "<" else const <= 0 if rel == "<=" else const == 0
    if all(name in integers for name in coeffs):
        scale = 1
        for a in coeffs.values():
            scale = math.lcm(scale, a.denominator)
            if scale.bit_length() > MAX_BITS:
                raise TooLarge(f"a common denominator of more than {MAX_BITS} bits")
        divisor = math.gcd(*(int(a * scale) for a in coeffs.values()))
        coeffs = {n: a * scale / divisor for n, a in coeffs.items()}
        bound = -const * scale / divisor  # Σ coeffs·x rel bound, the left side an integer
        if rel == "=":
            if bound.denominator != 1:
                return False
            const = -bound
        else:
            const, rel = -Fraction(math.floor(bound) if rel == "<=" or bound.denominator != 1 else int(bound) - 1), "<="
    return Atom(tuple(sorted(coeffs.items())), const, rel)


@dataclass
class Goal:
    """A branch: pending conditions, atoms gathered, values fixed by value splits."""

    pending: list[Any]
    atoms: list[Atom] = field(default_factory=list)
    subst: dict[str, Fraction] = field(default_factory=dict)


def _negate(cond: Any) -> Any:
    tag = cond[0]
    if tag in ("and", "or"):
        return ("or" if tag == "and" else "and", *[("not", c) for c in cond[1:]])
    if tag == "not":
        return cond[1]
    left, right = cond[1], cond[2]
    return ("<=", right, left) if tag == "<" else ("<", right, left) if tag == "<=" else ("or", ("<", left, right), ("<", right, left))


def _first_ite(term: Any) -> Any:
    if not isinstance(term, tuple) or term[0] in ("k", "v"):
        return None
    if term[0] == "ite":
        return term
    return next((found for part in term[1:] if (found := _first_ite(part)) is not None), None)


def _replace(item: Any, old: Any, new: Any) -> Any:
    if item == old:
        return new
    if not isinstance(item, tuple) or not item or item[0] in ("k", "v"):
        return item
    return (item[0], *[_replace(part, old, new) for part in item[1:]])


def normalise(goal: Goal, integers: set[str]) -> tuple[str, Any]:
    """Walk ``goal`` to ``("closed", None)``, ``("leaf", None)``, ``("choice", [pending lists])`` or ``("stuck", atom)``
    (a non-linear atom without an ite)."""
    waiting: list[Any] = []
    while goal.pending:
        cond = goal.pending.pop(0)
        tag = cond[0]
        if tag == "and":
            goal.pending[:0] = list(cond[1:])
        elif tag == "not":
            goal.pending.insert(0, _negate(cond[1]))
        elif tag == "or" and len(cond) == 1:
            return "closed", None
        elif tag == "or" or _first_ite(cond) is not None:
            waiting.append(cond)
        else:
            found = linear(("+", cond[1], ("*", ("k", Fraction(-1)), cond[2])), goal.subst)
            atom = None if found is None else _tighten(found[0], found[1], tag, integers)
            if atom is False:
                return "closed", None
            if atom is None:
                waiting.append(cond)
            elif atom is not True:
                goal.atoms.append(atom)  # type: ignore[arg-type]
    goal.pending = []
    for index, cond in enumerate(waiting):
        inner = _first_ite(cond) if cond[0] != "or" else None
        if inner is not None:
            rest = [cond, *waiting[:index], *waiting[index + 1 :]]
            return "choice", [[inner[1], *[_replace(c, inner, inner[2]) for c in rest]], [("not", inner[1]), *[_replace(c, inner, inner[3]) for c in rest]]]
    for index, cond in enumerate(waiting):
        if cond[0] == "or":
            return "choice", [[d, *waiting[:index], *waiting[index + 1 :]] for d in cond[1:]]
    goal.pending = waiting
    return ("stuck", waiting[0]) if waiting else ("leaf", None)


def range_atoms(variables: tuple[Var, ...]) -> list[Atom]:
    """``lo <= x`` and ``x <= hi`` of every variable, in declaration order."""
    atoms = []
    for v in variables:
        atoms += [Atom(((v.name, Fraction(-1)),), v.lo, "<=")] if v.lo is not None else []
        atoms += [Atom(((v.name, Fraction(1)),), -v.hi, "<=")] if v.hi is not None else []
    return atoms


def farkas_holds(atoms: list[Atom], multipliers: Any) -> bool:
    """Whether ``multipliers`` (``[[index, "λ"], …]``) prove the atoms contradictory (see the module docstring)."""
    if not isinstance(multipliers, list) or not 0 < len(multipliers) <= len(atoms):
        return False
    total: dict[str, Fraction] = {}
    const, strict = Fraction(0), False
    for item in multipliers:
        if not (isinstance(item, list) and len(item) == 2 and type(item[0]) is int and 0 <= item[0] < len(atoms)):
            return False
        atom, weight = atoms[item[0]], rational(item[1], "a Farkas multiplier")
        if weight < 0 and atom.rel != "=":
            return False
        for name, a in atom.coeffs:
            total[name] = add(total.get(name, Fraction(0)), mul(weight, a))
        const, strict = add(const, mul(weight, atom.const)), strict or (atom.rel == "<" and weight > 0)
    return not any(total.values()) and (const > 0 or (const == 0 and strict))


def finite_values(variable: Var) -> tuple[Fraction, ...] | None:
    """The values of a finite variable (at most :data:`MAX_VALUES`), else None."""
    if variable.values is not None:
        return variable.values if len(variable.values) <= MAX_VALUES else None
    if variable.integer and variable.lo is not None and variable.hi is not None and variable.hi - variable.lo < MAX_VALUES:
        return tuple(Fraction(i) for i in range(int(variable.lo), int(variable.hi) + 1))
    return None


def formula_size(formula: Any) -> int:
    """The number of nodes of a formula (each goal walked costs about that much)."""
    count, stack = 0, [formula]
    while stack:
        item = stack.pop()
        count += 1
        if isinstance(item, tuple) and item and item[0] not in ("k", "v"):
            stack.extend(item[1:])
    return count


def goal_budget(obligation: Obligation) -> int:
    """The number of goals :func:`replay` walks for ``obligation``: fewer as its formula grows."""
    return max(1, min(MAX_GOALS, MAX_WORK // formula_size(obligation.formula)))


def replay(obligation: Obligation, proof: Any) -> str | None:
    """Check the proof tree ``proof`` of ``obligation``: None when it closes every goal, else why not."""
    integers = {v.name for v in obligation.variables if v.integer}
    byname = {v.name: v for v in obligation.variables}
    ranges = range_atoms(obligation.variables)
    budget = goal_budget(obligation)
    stack: list[tuple[Goal, Any]] = [(Goal([obligation.formula]), proof)]
    while stack:
        goal, node = stack.pop()
        budget -= 1
        if budget < 0:
            return "the proof tree has more goals than the verifier walks for a formula of this size"
        try:
            kind, detail = normalise(goal, integers)
            if kind == "closed":
                continue
            if not isinstance(node, dict):
                return "a proof node must be {'farkas'}, {'split'} or {'values', 'cases'}"
            if "farkas" in node:
                if not farkas_holds(ranges + goal.atoms, node["farkas"]):
                    return "Farkas multipliers that do not close the goal"
                continue
        except TooLarge as error:
            return f"arithmetic refused: {error}"
        if set(node) == {"split"} and kind == "choice" and isinstance(node["split"], list) and len(node["split"]) == len(detail):
            stack.extend((Goal(list(p), list(goal.atoms), dict(goal.subst)), child) for p, child in zip(detail, node["split"]))
        elif set(node) == {"values", "cases"} and node["values"] in byname and node["values"] not in goal.subst:
            name, values = node["values"], finite_values(byname[node["values"]])
            if values is None or not isinstance(node["cases"], list) or len(node["cases"]) != len(values):
                return f"a value split on {str(name)[:40]} that does not list one case per value"
            pending = [("or", *[("and", *d) for d in detail])] if kind == "choice" else goal.pending
            for v, child in zip(values, node["cases"]):
                stack.append((Goal(list(pending), [*goal.atoms, Atom(((name, Fraction(1)),), -v, "=")], {**goal.subst, name: v}), child))
        else:
            return f"the proof does not follow the goal (at a {kind})"
    return None


def evaluate_everywhere(obligation: Obligation, limit: int) -> str | None:
    """Enumeration: None when the formula is false at every point of the (finite) variables, else why not."""
    lists = [finite_values(v) for v in obligation.variables]
    if any(values is None for values in lists) or math.prod(map(len, lists)) > limit:  # type: ignore[arg-type]
        return f"not every variable is finite, or more than {limit} points"
    names = [v.name for v in obligation.variables]
    for point in itertools.product(*lists):  # type: ignore[arg-type]
        env = dict(zip(names, point))
        try:
            if holds(obligation.formula, env):
                return f"violated at {', '.join(f'{n} = {v}' for n, v in env.items())}"
        except ArithmeticError:
            return f"a division by zero at {', '.join(f'{n} = {v}' for n, v in env.items())}"
    return None
