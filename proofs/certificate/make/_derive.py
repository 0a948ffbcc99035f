"""Every claim of a certificate, derived from its inputs alone: what ``certify`` writes and ``check`` re-derives.

:func:`derive` runs the public provers (:func:`~expmech.proofs.prove_sensitivity`,
:func:`~expmech.proofs.prove_monotone`) with the recorded budget, derives ε
from the spec's privacy statement, and runs the exact conformance check on
generated neighbouring pairs.  It is deterministic in its inputs and its
solver log (the pairs come from a seeded generator), so the checker can require
a recorded certificate to equal a fresh derivation member by member.

Rules the derivation itself enforces:

* no claim is PROVED while one of its recorded queries is ``unknown`` (it is
  reported UNKNOWN instead);
* ε is certified only on a PROVED sensitivity, and not when the conformance
  check finds a pair whose exact privacy loss exceeds ε;
* each recorded query is in the normal form of :func:`normalise_smt2`, with the
  resource count z3 reported for it (``rlimit_used``).

Every z3 call of the provers goes through a :class:`~..check._replay.SolverLog`:
``certify`` records it as ``predicate.solver_calls``, and ``check`` replays
that log (confirming every recorded answer it relies on), because z3's
resource count — and so what it decides within a tight ``rlimit`` — depends on
the history of the process, not only on the query.

The derivation is dispatched on the kind of quality: a log-likelihood
(posterior sampling) is derived by :func:`._posterior.derive_posterior`.  For
a digital-goods auction (``inputs.auction``) the ``truthfulness`` claim of
statement ``auctions`` is derived from the certified ε (:mod:`._auction`).
"""

from __future__ import annotations

import dataclasses
import inspect
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import sympy

from expmech.impl import ExponentialMechanism
from expmech.spec import DATASET_SIZE, LogLikelihood, Multiset, Neighbours, derive_epsilon, rational_text

from ..._outcome import Status
from ...prover import MonotonicityResult, SensitivityResult, Witness, prove_monotone, prove_sensitivity
from ._accounting_claims import bounded_range_claims
from ._claim_derivation import attach_derivation
from ._conclusion_derivations import attach_privacy, attach_truthfulness
from ._finalise import finalise
from ..format._inputs import CertificateInputs, FiniteRange, encode_value
from ._posterior import derive_posterior
from ..check._replay import SolverLog, solver_log
from ..check._smt import z3_label
from ._statement import PREDICATE_TYPE, SCHEMA_VERSION, STATEMENT_TYPE, Derivation, assemble, random_record, record_queries, subject

__all__ = [
    "Derivation",
    "Losses",
    "PREDICATE_TYPE",
    "SCHEMA_VERSION",
    "STATEMENT_TYPE",
    "assemble",
    "conformance_pairs",
    "derive",
    "epsilon_at",
    "expression_text",
    "measure_budget",
    "random_record",
    "record_queries",
    "subject",
]

_METHODS = {
    "lifted": "z3 per-record bounds lifted to every n",
    "joint": "z3 joint encoding of all aggregates, every n",
    "exhaustive": "exhaustive exact check",
    "search": "exact search",
    "none": "none",
}


def expression_text(expr: sympy.Expr | None) -> str | None:
    """How a certificate writes a bound or ε: ``"oo"``, or sympy's text of the simplified expression in ``n``."""
    if expr is None:
        return None
    if expr is sympy.oo:
        return "oo"
    return str(sympy.simplify(expr))


def measure_budget(rlimit: int) -> int:
    """The rlimit a recorded query is re-run with: at least the certificate's and the prover's default."""
    default = inspect.signature(prove_sensitivity).parameters["rlimit"].default
    return max(rlimit, int(default))


def _witness(w: Witness | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "dataset1": encode_value(w.dataset1 if isinstance(w.dataset1, Multiset) else list(w.dataset1)),
        "dataset2": encode_value(w.dataset2 if isinstance(w.dataset2, Multiset) else list(w.dataset2)),
        "output": encode_value(w.output),
        "difference": rational_text(w.difference),
        "size": encode_value(w.size),
    }


def _no_unknown(result: Any, what: str) -> Any:
    """A PROVED result one of whose queries was unknown becomes UNKNOWN: a proof may not rest on an inconclusive query."""
    if result.status is Status.PROVED and any(q.result.status == "unknown" for q in result.queries):
        index = next(i for i, q in enumerate(result.queries) if q.result.status == "unknown")
        return dataclasses.replace(
            result, status=Status.UNKNOWN, reason=f"{result.reason}; but {what} query {index + 1} was unknown, so nothing is claimed PROVED"
        )
    return result


def _sensitivity_claim(result: SensitivityResult, queries: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "sensitivity",
        "statement": "global-sensitivity",
        "status": str(result.status),
        "method": _METHODS.get(result.method, result.method),
        "bound": expression_text(result.bound),
        "claimed": expression_text(result.claimed),
        "tight": result.tight,
        "bounded_size": result.bounded_size,
        "hypotheses": list(result.hypotheses),
        "reason": result.reason,
        "witness": _witness(result.witness),
        "counterexample": _witness(result.counterexample),
        "evidence": {"solver": z3_label(), "queries": queries},
    }


def _monotone_claim(result: MonotonicityResult, queries: list[dict[str, Any]]) -> dict[str, Any]:
    counterexample = None
    if result.counterexample is not None:
        d1, d2, up, down = result.counterexample
        counterexample = {"dataset1": encode_value(list(d1)), "dataset2": encode_value(list(d2)), "rises_at": encode_value(up), "falls_at": encode_value(down)}
    return {
        "id": "monotonicity",
        "statement": "privacy",
        "status": str(result.status),
        "method": "rules with z3 sign checks; exact search for a counterexample",
        "direction": result.direction,
        "reason": result.reason,
        "counterexample": counterexample,
        "evidence": {"solver": z3_label(), "queries": queries},
    }


def epsilon_at(epsilon: sympy.Expr, size: int) -> Fraction:
    """ε at dataset size ``n = size`` as a Fraction."""
    value = sympy.Rational(epsilon.subs(DATASET_SIZE, size))
    return Fraction(int(value.p), int(value.q))


#: Given the conformance check's pairs, their privacy losses computed elsewhere (by this code), or None to compute them here.
Losses = Callable[[list[tuple[list[Any], list[Any]]]], "list[Any] | None"]


def conformance_pairs(inputs: CertificateInputs) -> list[tuple[list[Any], list[Any]]]:
    """The neighbouring pairs of the exact conformance check: ``inputs.pairs`` of them, drawn by ``random.Random(seed)``."""
    rng = random.Random(inputs.seed)
    quality = inputs.quality
    pairs = []
    for _ in range(inputs.pairs):
        first = [random_record(quality, rng) for _ in range(rng.randint(1, 6))]
        extra = random_record(quality, rng)
        if inputs.neighbours is Neighbours.REPLACE_ONE:
            position = rng.randrange(len(first))
            second = first[:position] + [extra] + first[position + 1 :]
        else:
            second = first + [extra]
        pairs.append((first, second))
    return pairs


def _conformance(inputs: CertificateInputs, mech: ExponentialMechanism, epsilon: sympy.Expr, losses: Losses | None = None) -> dict[str, Any]:
    checks, violations = [], []
    largest = Fraction(0)
    pairs = conformance_pairs(inputs)
    found = losses(pairs) if losses is not None else None
    if found is None or len(found) != len(pairs):
        found = mech.privacy_losses(pairs)  # the scores in one batch
    for index, ((first, second), loss) in enumerate(zip(pairs, found)):
        bound = epsilon_at(epsilon, len(first))
        if getattr(loss, "infinite", False):  # over an infinite range the loss may be unbounded
            entry = {"dataset1": encode_value(first), "dataset2": encode_value(second), "epsilon_at_n": rational_text(bound),
                     "loss_lower_bound": "oo", "loss_upper_bound": "oo", "within_epsilon": False}
            checks.append(entry)
            violations.append(index)
            continue
        low, high = loss.enclose(30)
        within = loss <= bound
        upper = min(high, bound) if within else high
        largest = max(largest, upper)
        entry = {
            "dataset1": encode_value(first),
            "dataset2": encode_value(second),
            "epsilon_at_n": rational_text(bound),
            "loss_lower_bound": rational_text(low),
            "loss_upper_bound": rational_text(upper),
            "within_epsilon": within,
        }
        checks.append(entry)
        if not within:
            violations.append(index)
    return {
        "id": "conformance",
        "statement": "privacy",
        "status": "REFUTED" if violations else "TESTED",
        "method": "exact privacy loss of expmech.impl on generated neighbouring pairs, compared exactly with ε",
        "non_proof": True,
        "generator": "random.Random(seed) over the field domains",
        "checks": checks,
        "largest_loss_upper_bound": rational_text(largest),
        "violations": violations,
    }


def derive(inputs: CertificateInputs, *, replay: list[dict[str, Any]] | None = None, losses: Losses | None = None) -> Derivation:
    """Derive every claim from ``inputs`` (see the module docstring), recording its solver calls in
    ``predicate.solver_calls`` — or, with ``replay`` (a certificate's ``solver_calls``), replaying them
    (:mod:`..check._replay`); a log that cannot be replayed sets ``problem``.  ``losses`` may supply the conformance
    check's privacy losses, computed by ``mech.privacy_losses`` elsewhere (see :data:`Losses`)."""
    log = SolverLog(replay)
    with solver_log(log):
        derivation = _derive(inputs, log, losses)
    log.finish()
    derivation.statement["predicate"]["solver_calls"] = log.calls
    finalise(derivation.statement, inputs.quality, rlimit=inputs.budget.rlimit)
    return dataclasses.replace(derivation, problem=log.problem)


def _derive(inputs: CertificateInputs, log: SolverLog, losses: Losses | None = None) -> Derivation:
    if isinstance(inputs.quality, LogLikelihood):
        return derive_posterior(inputs, log)
    quality = inputs.quality
    mech = inputs.range.mechanism(quality, inputs.epsilon0)
    outputs = inputs.range.prover_outputs()
    budget = inputs.budget
    with log.claim("sensitivity"):
        sensitivity = prove_sensitivity(
            quality,
            neighbours=inputs.neighbours,
            claimed=inputs.claimed,
            outputs=outputs,
            rlimit=budget.rlimit,
            timeout_ms=budget.timeout_ms,
            search_size=budget.search_size,
            search_budget=budget.search_budget,
        )
    sensitivity = _no_unknown(sensitivity, "a sensitivity")
    with log.claim("monotonicity"):
        monotone = prove_monotone(
            quality, neighbours=inputs.neighbours, outputs=outputs, rlimit=budget.rlimit, timeout_ms=budget.timeout_ms, search_budget=budget.search_budget
        )
    monotone = _no_unknown(monotone, "a monotonicity")
    claims = [
        attach_derivation(_sensitivity_claim(sensitivity, record_queries(sensitivity.queries)), sensitivity),
        attach_derivation(_monotone_claim(monotone, record_queries(monotone.queries)), monotone),
    ]
    ranged = not isinstance(inputs.range, FiniteRange)
    invariant = False
    if ranged:  # an interval or an infinite set: is the normaliser the same for every dataset?
        from ._ranges import normaliser_claim

        with log.claim("normaliser"):
            normaliser, invariant = normaliser_claim(quality, mech, inputs.epsilon0, neighbours=inputs.neighbours)
        claims.append(normaliser)
    status = sensitivity.status
    epsilon_text = None
    derived = None
    if sensitivity.status is Status.PROVED and sensitivity.proved_bound is not None:
        delta = sensitivity.proved_bound
        is_monotone = monotone.status is Status.PROVED
        epsilon0 = sympy.Rational(inputs.epsilon0.numerator, inputs.epsilon0.denominator)
        with log.claim("privacy"):
            derived = derive_epsilon(epsilon0, delta, monotone=is_monotone, normaliser_invariant=invariant)
        why = " halved for a proved monotone q" if is_monotone else ""
        if invariant:
            why = " without the normaliser's factor: the normaliser is proved the same for every dataset (claim normaliser)"
        privacy = {
            "id": "privacy",
            "statement": "privacy",
            "status": "PROVED",
            "method": "sympy: the exponent of the spec's privacy bound" + why,
            "formula": "epsilon0*Delta_q" if is_monotone or invariant else "2*epsilon0*Delta_q",
            "sensitivity": expression_text(delta),
            "monotone": is_monotone,
            "epsilon": expression_text(derived),
        }
        if ranged:
            privacy["normaliser_invariant"] = invariant
        attach_privacy(privacy, claims, inputs, derived)
        claims.append(privacy)
        if inputs.pairs:
            with log.claim("conformance"):
                check = _conformance(inputs, mech, derived, losses)
            claims.append(check)
            if check["status"] == "REFUTED":
                status = Status.REFUTED
        if status is Status.PROVED:
            epsilon_text = expression_text(derived)
    notes = [] if epsilon_text else ["no ε-DP claim: the sensitivity is " + str(sensitivity.status) + " — " + sensitivity.reason]
    if sensitivity.status is Status.PROVED and status is Status.REFUTED:
        notes = ["no ε-DP claim: the exact conformance check found a neighbouring pair whose privacy loss exceeds ε"]
    if inputs.auction is not None and epsilon_text is not None:
        from ._auction import truthfulness_claim

        with log.claim("truthfulness"):
            truthful = truthfulness_claim(inputs.auction, quality, epsilon_text, seed=inputs.seed)
        if truthful is not None:
            attach_truthfulness(truthful, claims, inputs)
            claims.append(truthful)
            if truthful["status"] == "REFUTED":
                status, epsilon_text = Status.REFUTED, None
                notes = ["no ε-DP claim: a bidder gains more by misreporting than the truthfulness bound allows"]
    with log.claim("bounded-range"):
        claims += bounded_range_claims(inputs, sensitivity, monotone, record_queries)
    return Derivation(assemble(inputs, claims, status, epsilon_text, notes), sensitivity, monotone, derived, mech)
