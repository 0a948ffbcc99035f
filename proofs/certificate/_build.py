"""Certificates of ε-differential privacy: build, canonicalise, digest, write.

A certificate is an in-toto Statement v1 whose predicate (type
:data:`PREDICATE_TYPE`, described by the JSON Schema shipped as
``certificate.schema.json``) records the quality function (expression tree,
canonical text and sha256), ε₀, the range, the base measure, the neighbour
relation, every claim with its method and evidence (the SMT-LIB2 text of each
z3 query, the solver and its version, the rlimit used; witnesses and
counterexamples as concrete data), the derived ε, tool versions and a hash of
the implementation source.  The file wraps the statement with a sha256 over
its RFC 8785 canonical form.

No ε-DP claim is written unless the sensitivity is PROVED: otherwise the
certificate says exactly what was established instead (BOUNDED, TESTED,
UNKNOWN or REFUTED) and ``epsilon`` is null.
"""

from __future__ import annotations

import hashlib
import platform
import random
from dataclasses import dataclass
from fractions import Fraction
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import sympy

from expmech.impl import ExponentialMechanism
from expmech.spec import (
    DATASET_SIZE,
    InvalidArgument,
    InvalidType,
    LogLikelihood,
    Neighbours,
    QualityFunction,
    derive_epsilon,
    quality_to_json,
    rational_text,
)
from expmech.spec._errors import describe
from expmech.spec._validate import positive_rational

from ._canonical import safe_integer_rows, safe_integers, sha256_hex
from ._layout import readable_json
from ..prover._monotone import MonotonicityResult, prove_monotone
from .._outcome import Status
from ..prover._sensitivity import SensitivityResult, Witness, prove_sensitivity

__all__ = [
    "PREDICATE_TYPE",
    "SCHEMA_VERSION",
    "Certificate",
    "assemble",
    "certify",
    "encode_value",
    "implementation_sha256",
]

SCHEMA_VERSION = "1"
PREDICATE_TYPE = "urn:expmech:dp-certificate:v1"
STATEMENT_TYPE = "https://in-toto.io/Statement/v1"


def implementation_sha256() -> str:
    """sha256 over the source files of ``expmech.impl`` (sorted by name), so a change is visible."""
    digest = hashlib.sha256()
    package = resources.files("expmech.impl")
    for entry in sorted(package.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".py"):
            digest.update(entry.name.encode())
            digest.update(b"\0")
            digest.update(entry.read_bytes())
    return digest.hexdigest()


def _versions() -> dict[str, str]:
    names = {"expmech": "expmech", "sympy": "sympy", "z3": "z3-solver", "python-flint": "python-flint", "hypothesis": "hypothesis", "numpy": "numpy"}
    versions = {"python": platform.python_version()}
    for label, dist in names.items():
        try:
            versions[label] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[label] = "not installed"
    return versions


def encode_value(value: Any) -> Any:
    """A user-facing value (int, bool, str, Fraction, tuple) as JSON data; Fractions as ``{"rational": "p/q"}``."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value if abs(value) < 2**53 else {"integer": str(value)}
    if isinstance(value, Fraction):
        return {"rational": rational_text(value)}
    if isinstance(value, tuple | list):
        if safe_integers(value):
            return list(value)  # plain safe integers, in one pass (e.g. the outputs of a large range)
        if safe_integer_rows(value):
            return [list(row) for row in value]  # tuples of them (e.g. the outputs of a product range)
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode_value(v) for k, v in value.items()}
    raise InvalidArgument(f"cannot write {describe(value)} to a certificate", parameter="value", value=value)


def _expr_text(expr: sympy.Expr | None) -> str | None:
    if expr is None:
        return None
    if expr is sympy.oo:
        return "oo"
    return str(sympy.simplify(expr))


def _queries(queries: Any) -> list[dict[str, Any]]:
    return [
        {
            "purpose": q.purpose,
            "expected": q.expected,
            "result": q.result.status,
            "reason": q.result.reason,
            "smt2": q.result.smt2,
            "rlimit_used": q.result.rlimit_used,
            "solver": q.result.solver,
        }
        for q in queries
    ]


def _witness(w: Witness | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {
        "dataset1": encode_value(list(w.dataset1)),
        "dataset2": encode_value(list(w.dataset2)),
        "output": encode_value(w.output),
        "difference": rational_text(w.difference),
        "size": w.size,
    }


def _sensitivity_claim(result: SensitivityResult) -> dict[str, Any]:
    return {
        "id": "sensitivity",
        "statement": "global-sensitivity",
        "status": str(result.status),
        "method": {"lifted": "z3 per-record bounds lifted to every n", "joint": "z3 joint encoding of all aggregates, every n", "exhaustive": "exhaustive exact check", "search": "exact search", "none": "none"}[result.method],
        "bound": _expr_text(result.bound),
        "claimed": _expr_text(result.claimed),
        "tight": result.tight,
        "bounded_size": result.bounded_size,
        "hypotheses": list(result.hypotheses),
        "reason": result.reason,
        "witness": _witness(result.witness),
        "counterexample": _witness(result.counterexample),
        "evidence": {"solver": result.solver, "queries": _queries(result.queries)},
    }


def _monotone_claim(result: MonotonicityResult) -> dict[str, Any]:
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
        "evidence": {"solver": result.solver, "queries": _queries(result.queries)},
    }


def _random_record(quality: QualityFunction, rng: random.Random) -> Any:
    record = {}
    for name, _, domain in quality.schema.items():
        if domain.is_finite:
            record[name] = domain.decode(rng.choice(domain.codes()))
        else:
            lo, hi = domain.bounds()
            low = lo if lo is not None else (hi - 100 if hi is not None else Fraction(-100))
            high = hi if hi is not None else low + 200
            value = low + (high - low) * Fraction(rng.randint(0, 64), 64)
            record[name] = int(value) if domain.sort == "int" else value
    items = list(quality.schema.items())
    return record[items[0][0]] if len(items) == 1 else record


def _conformance(
    quality: QualityFunction, mech: ExponentialMechanism, epsilon: sympy.Expr, neighbours: Neighbours, pairs: int, seed: int
) -> dict[str, Any]:
    rng = random.Random(seed)
    largest = Fraction(0)
    violations = []
    for _ in range(pairs):
        first = [_random_record(quality, rng) for _ in range(rng.randint(1, 6))]
        extra = _random_record(quality, rng)
        if neighbours is Neighbours.REPLACE_ONE:
            position = rng.randrange(len(first))
            second = first[:position] + [extra] + first[position + 1 :]
        else:
            second = first + [extra]
        bound = sympy.Rational(epsilon.subs(DATASET_SIZE, len(first)))
        loss = mech.privacy_loss(first, second)
        if getattr(loss, "infinite", False):  # over an infinite range the loss may be unbounded
            violations.append({"dataset1": encode_value(first), "dataset2": encode_value(second), "epsilon_at_n": rational_text(bound)})
            continue
        largest = max(largest, loss.enclose(30)[1])
        if not loss <= Fraction(int(bound.p), int(bound.q)):
            violations.append({"dataset1": encode_value(first), "dataset2": encode_value(second), "epsilon_at_n": rational_text(bound)})
    return {
        "id": "conformance",
        "statement": "privacy",
        "status": "REFUTED" if violations else "TESTED",
        "method": "exact privacy loss of expmech.impl on generated neighbouring pairs, compared exactly with ε",
        "non_proof": True,
        "pairs": pairs,
        "seed": seed,
        "generator": "random.Random over the field domains",
        "largest_loss_upper_bound": rational_text(largest),
        "violations": violations,
    }


@dataclass(frozen=True)
class Certificate:
    """A built certificate: the in-toto statement and its digest. ``data`` is the file's JSON."""

    data: dict[str, Any]

    @property
    def statement(self) -> dict[str, Any]:
        """The in-toto Statement v1."""
        return self.data["certificate"]

    @property
    def status(self) -> Status:
        """The certificate's overall status (PROVED only with a proved sensitivity)."""
        return Status[self.statement["predicate"]["status"]]

    @property
    def epsilon(self) -> str | None:
        """The certified ε as text (may be an expression in n), or None when no ε-DP claim is made."""
        return self.statement["predicate"]["epsilon"]

    @property
    def digest(self) -> str:
        """The sha256 over the canonical statement."""
        return self.data["digest"]["value"]

    def to_json(self) -> str:
        """The file's text (indented; the digest covers the canonical form, not this layout)."""
        return readable_json(self.data) + "\n"

    def write(self, path: str | Path) -> Path:
        """Write the certificate to ``path`` and return it."""
        target = Path(path)
        target.write_text(self.to_json(), encoding="utf-8")
        return target


def seal(statement: dict[str, Any]) -> dict[str, Any]:
    """Wrap an in-toto statement with its sha256 digest over the RFC 8785 canonical form."""
    return {"certificate": statement, "digest": {"algorithm": "sha256", "canonicalization": "RFC 8785", "value": sha256_hex(statement)}}


def certify(
    quality: QualityFunction | LogLikelihood,
    *,
    epsilon: Any,
    neighbours: Any,
    claimed: Any = None,
    base_measure: Any = None,
    outputs: Any = None,
    pairs: int = 20,
    seed: int = 0,
    auction: Any = None,
    **prover_options: Any,
) -> Certificate:
    """Build a certificate for ``E_q^{ε₀}`` with ``quality`` over its own output space.

    ``epsilon`` is ε₀ (the weight is ``e^{ε₀ q}``); ``neighbours`` the relation;
    ``claimed`` an optional claimed Δq; ``base_measure`` a mapping over the
    outputs (counting measure when None).  The sensitivity is proved with
    :func:`prove_sensitivity`, monotonicity with :func:`prove_monotone`, ε
    derived from the spec's privacy statement (``2 ε₀ Δq``, or ``ε₀ Δq`` when
    monotone) and checked on ``pairs`` generated neighbouring pairs exactly.
    ``outputs`` restricts the mechanism's range to a list of outputs of the
    output space (the sensitivity proof covers the whole space).  Unless the
    sensitivity is PROVED, no ε is certified.

    An infinite or continuous output space, or a range as ``outputs`` (a
    RationalRange or IntRange), certifies the mechanism over that range with
    ``base_measure`` a PiecewiseDensity / PiecewiseGeometric (Lebesgue or
    counting when None); where the normaliser is proved the same for every
    dataset, ε is ``ε₀ Δq`` (see ``expmech.proofs.certificate._ranges``).

    A :class:`~expmech.spec.LogLikelihood` (posterior sampling: ``base_measure``
    is the prior, ``epsilon`` the tempering factor) is certified by
    :func:`~expmech.proofs.certificate._posterior.certify_posterior`:
    ``ε = 2·ε₀·ln ρ`` from the proved likelihood ratio ρ.

    ``auction`` (a :class:`~expmech.impl.DigitalGoodsAuction` whose revenue is
    ``quality``) adds the ``truthfulness`` claim of statement ``auctions``
    when ε is PROVED: no report gains more than ``(e^ε − 1)·U``.
    """
    if isinstance(quality, LogLikelihood):
        from ._posterior import certify_posterior

        return certify_posterior(
            quality, epsilon=epsilon, neighbours=neighbours, claimed=claimed, base_measure=base_measure, outputs=outputs, pairs=pairs, seed=seed, **prover_options
        )
    if not isinstance(quality, QualityFunction):
        raise InvalidType(
            f"quality={describe(quality)} must be an expmech.spec.QualityFunction or LogLikelihood; black boxes get falsify(), not certificates",
            parameter="quality",
            value=quality,
        )
    from ._ranges import is_ranged

    ranged = is_ranged(quality, outputs)
    epsilon0 = positive_rational(epsilon, name="epsilon")
    relation = Neighbours.parse(neighbours)
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 0:
        raise InvalidArgument(f"pairs={describe(pairs)} must be an int >= 0", parameter="pairs", value=pairs)
    if ranged:  # an interval of the reals or an infinite set of integers (see ._ranges)
        mech = ExponentialMechanism(quality, epsilon=epsilon0, outputs=quality.output_space if outputs is None else outputs, base_measure=base_measure)
        searched = None
    else:
        if outputs is None:
            outputs = quality.outputs()
        else:
            outputs = list(outputs)
            quality.output_space.encode_all(outputs, name="outputs[…]")
        mech = ExponentialMechanism(quality, epsilon=epsilon0, outputs=outputs, base_measure=base_measure)
        searched = outputs
    sensitivity = prove_sensitivity(quality, neighbours=relation, claimed=claimed, outputs=searched, **prover_options)
    budget = {k: v for k, v in prover_options.items() if k in ('search_budget', 'rlimit', 'timeout_ms')}
    monotone = prove_monotone(quality, neighbours=relation, outputs=searched, **budget)
    claims = [_sensitivity_claim(sensitivity), _monotone_claim(monotone)]
    invariant = False
    if ranged:
        from ._ranges import normaliser_claim

        normaliser, invariant = normaliser_claim(quality, mech, epsilon0)
        claims.append(normaliser)
    status = sensitivity.status
    epsilon_text = None
    if sensitivity.status is Status.PROVED and sensitivity.proved_bound is not None:
        delta = sensitivity.proved_bound
        is_monotone = monotone.status is Status.PROVED
        derived = derive_epsilon(sympy.Rational(epsilon0.numerator, epsilon0.denominator), delta, monotone=is_monotone, normaliser_invariant=invariant)
        why = " halved for a proved monotone q" if is_monotone else ""
        if invariant:
            why = " without the normaliser's factor: the normaliser is proved the same for every dataset (claim normaliser)"
        privacy = {
            "id": "privacy",
            "statement": "privacy",
            "status": "PROVED",
            "method": "sympy: the exponent of the spec's privacy bound" + why,
            "formula": "epsilon0*Delta_q" if is_monotone or invariant else "2*epsilon0*Delta_q",
            "sensitivity": _expr_text(delta),
            "monotone": is_monotone,
            "epsilon": _expr_text(derived),
        }
        if ranged:
            privacy["normaliser_invariant"] = invariant
        claims.append(privacy)
        if pairs:
            check = _conformance(quality, mech, derived, relation, pairs, seed)
            claims.append(check)
            if check["status"] == "REFUTED":
                status = Status.REFUTED
        if status is Status.PROVED:
            epsilon_text = _expr_text(derived)
    if auction is not None:
        from ._auction import truthfulness_claim

        truthful = truthfulness_claim(auction, quality, epsilon_text, seed=seed) if epsilon_text is not None else None
        if truthful is not None:
            claims.append(truthful)
            if truthful["status"] == "REFUTED":
                status, epsilon_text = Status.REFUTED, None
    notes = [] if epsilon_text else ["no ε-DP claim: the sensitivity is " + str(sensitivity.status) + " — " + sensitivity.reason]
    mechanism: dict[str, Any] = {"epsilon0": rational_text(epsilon0), "neighbours": relation.value}
    if ranged:
        from ._ranges import range_fields

        mechanism.update(range_fields(mech))
    else:
        mechanism.update({"outputs": encode_value(list(outputs)), "base_measure": [rational_text(m) for m in mech.base_measure]})
    mechanism["weight"] = "mu(r) * exp(epsilon0 * q(d, r))"
    return assemble(quality, quality_to_json(quality), mechanism, claims, status, epsilon_text, notes)


def assemble(
    quality: Any, quality_json: dict[str, Any], mechanism: dict[str, Any], claims: list[dict[str, Any]], status: Status, epsilon_text: str | None, notes: list[str]
) -> Certificate:
    """The sealed in-toto statement of a certificate: its predicate (with tools and the impl hash) and subject."""
    predicate = {
        "schema_version": SCHEMA_VERSION,
        "status": str(status),
        "epsilon": epsilon_text,
        "dp_claim": epsilon_text is not None,
        "quality": quality_json,
        "mechanism": mechanism,
        "claims": claims,
        "tools": _versions(),
        "implementation_sha256": implementation_sha256(),
        "notes": notes,
    }
    statement = {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": f"quality:{quality.name or 'unnamed'}", "digest": {"sha256": quality.sha256}}],
        "predicateType": PREDICATE_TYPE,
        "predicate": predicate,
    }
    return Certificate(seal(statement))
