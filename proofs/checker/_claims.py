"""One derivation checked, and the side conditions it leaves discharged.

A derivation: its envelope ``{"format": 1, "claim", "relation", "start", "bound", "root", "obligations"}``,
then its claim kind's rules (each kind's module imported when a certificate first has such a claim); :func:`derive`
returns the side conditions the rules leave, in a fixed order; :func:`discharge` checks one recorded entry
``{"node", "method", "proof"?}`` for each: ``univariate`` (n alone, decided exactly), ``split`` (case splits closed by
Farkas multipliers), ``enumerate`` (every variable finite), or ``solver`` (z3 must answer ``unsat``: the one method that
trusts a solver, counted).
"""

from __future__ import annotations

import importlib

from collections.abc import Callable, Mapping
from typing import Any

from ._context import Context, Rejected
from ._format import Statement
from ._formula import Obligation
from ._split import evaluate_everywhere, replay
from ._univariate import decide_univariate
from ._numbers import TooLarge

__all__ = ["CLAIMS", "ENUMERATION_LIMIT", "METHODS", "RULES", "derive", "discharge"]



#: claim kind -> (its module, the names there of its rules and of its checker, whether it is about a likelihood: True,
#: a quality: False, either: None); a module is imported when a certificate first has a claim of its kind
CLAIMS: dict[str, tuple[str, str | None, str, bool | None]] = {
    "sensitivity": ("._sensitivity", "SENSITIVITY_RULES", "check_sensitivity", False),
    "monotonicity": ("._monotone", "MONOTONE_RULES", "check_monotone", False),
    "range-sensitivity": ("._range", "RANGE_RULES", "check_range", False),
    "normaliser": ("._normaliser", "NORMALISER_RULES", "check_normaliser", False),
    "likelihood-ratio": ("._posterior", "RATIO_RULES", "check_ratio", True),
    "posterior-range": ("._posterior", None, "check_posterior_range", True),
    "privacy": ("._privacy", None, "check_privacy", None),
    "zcdp": ("._privacy", None, "check_zcdp", None),
    "truthfulness": ("._truthful", None, "check_truthful", False),
}

#: every rule the verifier applies (their statements and soundness arguments: ``expmech.spec.RULE_STATEMENTS``)
RULES: tuple[str, ...] = ("data-free", "linear", "sum", "scale", "abs", "max-min", "piecewise", "weaken", "size-only", "joint", "order-statistic", "monotone-data-free",
                          "monotone-count", "monotone-total", "monotone-combine", "monotone-scale", "monotone-piecewise", "monotone-uniform",
                          "range-direct", "range-double", "range-monotone", "normaliser-translate", "ratio-clipped", "range-enumerate",
                          "range-ratio-double", "privacy-double", "privacy-monotone", "privacy-normaliser", "privacy-ratio", "zcdp-range",
                          "truthful-posted-price")


def derive(statement: Statement, derivation: Any, premise: Callable[[str, str], Mapping[str, Any]]) -> list[Obligation]:
    """Check ``derivation`` against the statement's inputs; its obligations, or Rejected.

    ``premise(kind, node)`` returns the accepted derivation of the certificate's claim of that kind (or raises)."""
    if not isinstance(derivation, Mapping):
        raise Rejected(None, f"a derivation must be an object, not {type(derivation).__name__}")
    missing = [key for key in ("format", "claim", "relation", "start", "bound", "root") if key not in derivation]
    if missing:
        raise Rejected(None, f"the derivation has no {missing[0]!r}")
    if derivation["format"] != 1 or isinstance(derivation["format"], bool):
        raise Rejected(None, f"format {str(derivation['format'])[:20]!r} is not 1")
    kind = derivation["claim"]
    if not isinstance(kind, str) or kind not in CLAIMS:
        raise Rejected(None, f"claim {str(kind)[:40]!r} has no rule set (known: {', '.join(sorted(CLAIMS))})")
    where, rules_name, checker_name, likelihood = CLAIMS[kind]
    module = importlib.import_module(where, __package__)
    rules, checker = getattr(module, rules_name) if rules_name else {}, getattr(module, checker_name)
    if likelihood is not None and likelihood != statement.quality.likelihood:
        raise Rejected(None, f"a {kind} claim is about a {'log-likelihood' if likelihood else 'quality function'}")
    if derivation["relation"] != statement.relation:
        raise Rejected(None, f"relation {str(derivation['relation'])[:20]!r} is not the mechanism's {statement.relation!r}")
    start = derivation["start"]
    if type(start) is not int or start not in (0, 1):
        raise Rejected(None, "start must be 0 or 1")
    ctx = Context(statement.quality, statement.relation == "replace-one", rules, epsilon0=statement.epsilon0, rng=statement.range)
    ctx.premise = premise
    try:
        checker(ctx, derivation, start)
    except TooLarge as error:
        raise Rejected(None, f"arithmetic refused: {error}") from None
    return ctx.obligations


ENUMERATION_LIMIT = 200_000
METHODS = ("univariate", "split", "enumerate", "solver")


def discharge(obligations: list[Obligation], recorded: Any, *, rlimit: int, solver_budget: int) -> int:
    """Check every obligation against its recorded proof; the number that needed a solver (at most ``solver_budget``,
    counted before any runs).  Rejected at the first that does not hold."""
    if not isinstance(recorded, list) or len(recorded) != len(obligations):
        raise Rejected(None, f"the derivation records {len(recorded) if isinstance(recorded, list) else 'no'} proofs of obligations, "
                             f"but its rules leave {len(obligations)}")
    wanted = sum(1 for entry in recorded if isinstance(entry, dict) and entry.get("method") == "solver")
    if wanted > solver_budget:
        raise Rejected(None, f"{wanted} side conditions name a solver, more than the {solver_budget} the verifier runs for one certificate")
    solved = 0
    for obligation, entry in zip(obligations, recorded):
        if not isinstance(entry, dict) or entry.get("node") != obligation.node or entry.get("method") not in METHODS:
            raise Rejected(obligation.node, f"no recorded proof of: {obligation.what}")
        method = entry["method"]
        if method == "univariate":
            why = decide_univariate(obligation) if [v.name for v in obligation.variables] == ["n"] else "it mentions more than n"
        elif method == "split":
            why = replay(obligation, entry.get("proof"))
        elif method == "enumerate":
            why = evaluate_everywhere(obligation, ENUMERATION_LIMIT)
        else:
            from ._solver import solve

            solved += 1
            why = solve(obligation, rlimit)
        if why is not None:
            raise Rejected(obligation.node, f"{obligation.what}: not confirmed ({method}: {why})")
    return solved
