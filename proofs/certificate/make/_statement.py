"""The statement every derivation writes, and the pieces shared by the derivations of each kind of quality.

:func:`~._derive.derive` (a quality of the language) and
:func:`~._posterior.derive_posterior` (a log-likelihood) both return a
:class:`Derivation` whose statement :func:`assemble` writes; they live here,
apart from both, so that ``_derive`` can dispatch to ``_posterior`` without
``_posterior`` importing ``_derive`` back.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import IntRange, LogLikelihood, QualityFunction

from ..._outcome import Status
from ...prover import MonotonicityResult
from ..format._inputs import CertificateInputs, inputs_to_json
from ..check._replay import ReplayProblem
from ..check._smt import normalise_smt2, z3_label
from ..format._version import PREDICATE_TYPE, SCHEMA_VERSION

__all__ = [
    "Derivation",
    "PREDICATE_TYPE",
    "SCHEMA_VERSION",
    "STATEMENT_TYPE",
    "assemble",
    "random_record",
    "record_queries",
    "subject",
]

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"


@dataclass(frozen=True)
class Derivation:
    """A fresh derivation: the statement (without provenance) and the objects it was written from.

    ``epsilon`` is the ε derived from the privacy theorem whenever the
    sensitivity is PROVED (even if the conformance check then refutes it);
    ``problem`` is set when a recorded solver log could not be replayed (then
    the statement is not a derivation of that certificate).
    """

    statement: dict[str, Any]
    sensitivity: Any  # SensitivityResult, or LikelihoodRatioResult for posterior sampling
    monotone: MonotonicityResult | None
    epsilon: sympy.Expr | None
    mechanism: Any  # ExponentialMechanism, PosteriorSampling, or None when none was needed
    problem: ReplayProblem | None = None


def record_queries(queries: Any) -> list[dict[str, Any]]:
    """The recorded form of a prover's queries: normal-form SMT-LIB2, the answer, and z3's resource count for it."""
    return [
        {
            "purpose": query.purpose,
            "expected": query.expected,
            "result": query.result.status,
            "reason": query.result.reason,
            "smt2": normalise_smt2(query.result.smt2),
            "rlimit_used": query.result.rlimit_used,
            "solver": z3_label(),
        }
        for query in queries
    ]


def random_record(quality: QualityFunction | LogLikelihood, rng: random.Random) -> Any:
    """One record drawn from the schema's domains (bare for one field), as the conformance check draws them."""
    record: dict[str, Any] = {}
    for name, _, domain in quality.schema.items():
        if isinstance(domain, IntRange) and domain.lo is not None and domain.hi is not None:
            record[name] = rng.randint(domain.lo, domain.hi)
        elif domain.is_finite:
            record[name] = domain.decode(rng.choice(domain.codes()))
        else:
            lo, hi = domain.bounds()
            low = lo if lo is not None else (hi - 100 if hi is not None else Fraction(-100))
            high = hi if hi is not None else low + 200
            value = low + (high - low) * Fraction(rng.randint(0, 64), 64)
            record[name] = int(value) if domain.sort == "int" else value
    items = list(quality.schema.items())
    return record[items[0][0]] if len(items) == 1 else record


def subject(quality: dict[str, Any]) -> list[dict[str, Any]]:
    """The in-toto subject: the certificate's quality block, named, with its sha256."""
    return [{"name": f"quality:{quality['name'] or 'unnamed'}", "digest": {"sha256": quality["sha256"]}}]


def assemble(inputs: CertificateInputs, claims: list[dict[str, Any]], status: Status, epsilon_text: str | None, notes: list[str]) -> dict[str, Any]:
    """The in-toto statement (without provenance) of a derivation: its inputs, claims and verdict."""
    predicate = {
        "schema_version": SCHEMA_VERSION,
        "status": str(status),
        "epsilon": epsilon_text,
        "dp_claim": epsilon_text is not None,
        **inputs_to_json(inputs),
        "claims": claims,
        "notes": notes,
    }
    return {"_type": STATEMENT_TYPE, "subject": subject(predicate["quality"]), "predicateType": PREDICATE_TYPE, "predicate": predicate}
