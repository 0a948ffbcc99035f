"""Certificates for posterior sampling: a log-likelihood quality, ε = 2·ε₀·ln ρ.

:func:`derive_posterior` proves the likelihood ratio ρ (hence ``Δq = ln ρ``)
with :func:`~expmech.proofs.prover._likelihood.prove_likelihood_ratio`, derives
``ε`` from the spec's privacy statement — a symbolic logarithm such as
``2*log(9)`` — and, where the tempering factor ε₀ is an integer, checks the
exact privacy loss of ``expmech.impl.PosteriorSampling`` on generated
neighbouring pairs against it (decided exactly as :class:`LogLinear` signs).
``certify`` writes it and ``check`` re-derives it from the certificate's inputs
like any other certificate; :func:`check_ratio_evidence` re-evaluates the
ratio witness and counterexample exactly, and the recorded loss bound against ε.

The certificate has the same envelope and schema as every other one; its
quality carries ``"kind": "log-likelihood"`` and the tree of the per-record
likelihood ``ℓ(x, θ)``.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any

import sympy

from expmech.impl import LogLinear, PosteriorSampling
from expmech.spec import ExpMechError, InvalidArgument, LogLikelihood, Neighbours, derive_epsilon, rational_from_text, rational_text

from ..._outcome import Status
from ._claim_derivation import attach_derivation
from ._conclusion_derivations import attach_privacy
from ...prover._likelihood import LikelihoodRatioResult, RatioWitness, prove_likelihood_ratio
from ._statement import Derivation, assemble, random_record, record_queries
from ..format._inputs import CertificateInputs, FiniteRange, IntervalRange, decode_output, decode_value, encode_value
from ._posterior_range import posterior_range_claims
from ..check._replay import SolverLog

__all__ = ["check_ratio_evidence", "derive_posterior"]


def _witness(w: RatioWitness | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {"record1": encode_value(w.record1), "record2": encode_value(w.record2), "output": encode_value(w.output), "ratio": rational_text(w.ratio)}


def _text(expr: sympy.Expr | None) -> str | None:
    if expr is None:
        return None
    return "oo" if expr is sympy.oo else str(sympy.simplify(expr))


def _sensitivity_claim(result: LikelihoodRatioResult, queries: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "sensitivity",
        "statement": "posterior-sampling",
        "status": str(result.status),
        "method": result.method,
        "bound": _text(result.bound),
        "ratio": None if result.ratio is None else rational_text(result.ratio),
        "claimed": _text(result.claimed),
        "tight": result.tight,
        "reason": result.reason,
        "ratio_witness": _witness(result.witness),
        "ratio_counterexample": _witness(result.counterexample),
        "evidence": {"solver": result.solver, "queries": queries},
    }


def _conformance(mech: PosteriorSampling, epsilon: sympy.Expr, neighbours: Neighbours, pairs: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    bound = LogLinear.from_sympy(epsilon)
    largest: Any = LogLinear.rational(0)
    violations = []
    skipped = 0
    for _ in range(pairs):
        first = [random_record(mech.quality, rng) for _ in range(rng.randint(1, 6))]
        extra = random_record(mech.quality, rng)
        if neighbours is Neighbours.REPLACE_ONE:
            position = rng.randrange(len(first))
            second = first[:position] + [extra] + first[position + 1 :]
        else:
            second = first + [extra]
        try:
            loss = mech.privacy_loss(first, second).value
        except InvalidArgument:  # no posterior mass on one side, or a ratio with an interior extremum: no exact loss
            skipped += 1
            continue
        largest = loss if loss > largest else largest
        if not loss <= bound:
            violations.append({"dataset1": encode_value(first), "dataset2": encode_value(second), "epsilon": _text(epsilon)})
    return {
        "id": "conformance",
        "statement": "posterior-sampling",
        "status": "REFUTED" if violations else "TESTED",
        "method": "exact privacy loss of expmech.impl.PosteriorSampling (rational law, or sums of radicals for a fractional "
        "tempering factor) on generated neighbouring pairs, compared exactly with ε",
        "non_proof": True,
        "pairs": pairs,
        "skipped": skipped,
        "seed": seed,
        "generator": "random.Random over the field domains",
        "largest_loss_upper_bound": _upper_text(largest),
        "violations": violations,
    }


def _upper_text(value: Any) -> str:
    """A short rational upper bound of a loss (a multiple of 2^-20 above it), ``oo`` or ``0``."""
    if value.infinite:
        return "oo"
    if value.is_zero():
        return "0"
    hi = value.enclose(30)[1]
    return rational_text(Fraction(math.ceil(hi * 2**20), 2**20))


def _mechanism(quality: LogLikelihood, epsilon0: Fraction, outputs: Any) -> PosteriorSampling:
    """Posterior sampling over the certificate's range: a grid with its prior, or an interval with its Beta prior."""
    if isinstance(outputs, IntervalRange):
        return PosteriorSampling(quality, epsilon=epsilon0, outputs=outputs.domain(), base_measure=outputs.prior())
    assert isinstance(outputs, FiniteRange)
    return PosteriorSampling(quality, epsilon=epsilon0, outputs=outputs.outputs, base_measure=dict(zip(outputs.outputs, outputs.base_measure)))


def derive_posterior(inputs: CertificateInputs, log: SolverLog) -> Derivation:
    """Every claim of a posterior-sampling certificate, from its inputs alone (``ε = 2·ε₀·ln ρ`` when ρ is PROVED);
    the prover's solver calls go through ``log`` (:mod:`..check._replay`)."""
    quality = inputs.quality
    assert isinstance(quality, LogLikelihood)
    epsilon0, relation = inputs.epsilon0, inputs.neighbours
    with log.claim("sensitivity"):
        ratio = prove_likelihood_ratio(
            quality, neighbours=relation, claimed=inputs.claimed, rlimit=inputs.budget.rlimit, timeout_ms=inputs.budget.timeout_ms
        )
    if ratio.status is Status.PROVED and any(q.result.status == "unknown" for q in ratio.queries):
        ratio = LikelihoodRatioResult(
            Status.UNKNOWN, ratio.neighbours, ratio.ratio, ratio.bound, ratio.claimed, ratio.tight, ratio.witness, ratio.counterexample,
            f"{ratio.reason}; but one of its queries was unknown, so nothing is claimed PROVED", ratio.method, ratio.queries, ratio.solver,
        )
    claims: list[dict[str, Any]] = [attach_derivation(_sensitivity_claim(ratio, record_queries(ratio.queries)), ratio)]
    status = ratio.status
    notes: list[str] = []
    epsilon_text = None
    derived = None
    mech = None
    if ratio.status is Status.PROVED and ratio.proved_bound is not None:
        delta = ratio.proved_bound
        derived = derive_epsilon(sympy.Rational(epsilon0.numerator, epsilon0.denominator), delta)
        claims.append(
            {
                "id": "privacy",
                "statement": "posterior-sampling",
                "status": "PROVED",
                "method": "sympy: the exponent of the spec's privacy bound with Δq = ln ρ",
                "formula": "2*epsilon0*Delta_q",
                "sensitivity": _text(delta),
                "monotone": False,
                "epsilon": _text(derived),
            }
        )
        attach_privacy(claims[-1], claims, inputs, derived)
        interval = isinstance(inputs.range, IntervalRange)
        if inputs.pairs and interval and epsilon0.denominator != 1:
            notes.append("no exact conformance check: θ^(a/b) on an interval has no rational integral, so the tempered law is not computed")
        elif inputs.pairs:
            mech = _mechanism(quality, epsilon0, inputs.range)
            check = _conformance(mech, derived, relation, inputs.pairs, inputs.seed)
            claims.append(check)
            if check["status"] == "REFUTED":
                status = Status.REFUTED
        if status is Status.PROVED:
            epsilon_text = _text(derived)
    else:
        infinite = ratio.bound is sympy.oo
        claims.append(
            {
                "id": "privacy",
                "statement": "posterior-sampling",
                "status": "REFUTED" if infinite else "UNKNOWN",
                "method": "sympy: the exponent of the spec's privacy bound with Δq = ln ρ",
                "formula": "2*epsilon0*Delta_q",
                "sensitivity": _text(ratio.bound),
                "monotone": False,
                "epsilon": None,
                "reason": "Δq = ∞: no finite ε" if infinite else "Δq is not proved: no ε",
            }
        )
        notes.append(f"no ε-DP claim: the likelihood ratio is {ratio.status} — {ratio.reason}")
    claims += posterior_range_claims(inputs, ratio)
    return Derivation(assemble(inputs, claims, status, epsilon_text, notes), ratio, None, derived, mech)


def check_ratio_evidence(statement: dict[str, Any], inputs: CertificateInputs, derivation: Derivation) -> tuple[str, str] | None:
    """Re-evaluate the ratio witness and counterexample exactly, and the recorded loss bound against ε: ``(check, problem)`` or None."""
    quality = inputs.quality
    assert isinstance(quality, LogLikelihood)
    claims = {claim["id"]: claim for claim in statement["predicate"]["claims"]}
    sensitivity = claims["sensitivity"]
    for kind in ("ratio_witness", "ratio_counterexample"):
        item = sensitivity.get(kind)
        if item is None:
            continue
        name = f"claim sensitivity: {kind}"
        try:
            theta = quality.output_space.encode(decode_output(item["output"]))
            value = quality.record_likelihood_codes(quality.schema.encode(decode_value(item["record1"])), theta)
            if item["record2"] is None:
                ratio = Fraction(0) if value == 0 else max(value, 1 / value)
            else:
                ratio = value / quality.record_likelihood_codes(quality.schema.encode(decode_value(item["record2"])), theta)
        except (ExpMechError, ZeroDivisionError, KeyError, TypeError) as error:
            return name, f"re-evaluation failed: {error}"
        if ratio != rational_from_text(item["ratio"], name="ratio"):
            return name, f"re-evaluated ratio {ratio}, recorded {item['ratio']}"
        if kind == "ratio_witness" and (sensitivity["ratio"] is None or ratio != rational_from_text(sensitivity["ratio"], name="ratio")):
            return name, f"the witness's ratio {ratio} is not ρ = {sensitivity['ratio']}"
        claimed = derivation.sensitivity.claimed
        if kind == "ratio_counterexample" and ratio != 0 and (claimed is None or not LogLinear.log(ratio) > LogLinear.from_sympy(claimed)):
            return name, f"ln {ratio} does not exceed the claim {sensitivity['claimed']}"
    conformance = claims.get("conformance")
    if conformance is not None and not conformance["violations"] and derivation.epsilon is not None:
        largest = conformance["largest_loss_upper_bound"]
        # the recorded bound is rounded up to a multiple of 2^-20 (see _upper_text): it may pass ε by less than 2^-19
        slack = Fraction(1, 2**19)
        if largest == "oo" or not LogLinear.rational(rational_from_text(largest, name="largest_loss_upper_bound") - slack) <= LogLinear.from_sympy(derivation.epsilon):
            return "claim conformance", f"the recorded loss bound {largest} exceeds ε = {derivation.epsilon}"
    return None
