"""Certificates for posterior sampling: a log-likelihood quality, ε = 2·ε₀·ln ρ.

:func:`certify_posterior` proves the likelihood ratio ρ (hence ``Δq = ln ρ``)
with :func:`~expmech.proofs.prover._likelihood.prove_likelihood_ratio`, derives
``ε`` from the spec's privacy statement — a symbolic logarithm such as
``2*log(9)`` — and, where the tempering factor ε₀ is an integer, checks the
exact privacy loss of ``expmech.impl.PosteriorSampling`` on generated
neighbouring pairs against it (decided exactly as :class:`LogLinear` signs).
:func:`check_posterior` re-derives all of it from the certificate's inputs.

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
from expmech.impl._posterior import _interval
from expmech.impl._inputs import check_base_measure, check_outputs
from expmech.spec import (
    BetaPrior,
    ExpMechError,
    InvalidArgument,
    LogLikelihood,
    Neighbours,
    derive_epsilon,
    likelihood_from_json,
    likelihood_to_json,
    rational_text,
)
from expmech.spec._serial import rational_from_text
from expmech.spec._validate import positive_rational

from .._outcome import Status
from ..prover._likelihood import LikelihoodRatioResult, RatioWitness, prove_likelihood_ratio
from ._build import Certificate, _queries, _random_record, assemble, encode_value
from ._check import _decode, _equivalent, _output

__all__ = ["certify_posterior", "check_posterior", "log_expression"]

WEIGHT = "pi(theta) * L(d, theta)**epsilon0, L(d, theta) = prod over records x of l(x, theta)"


def log_expression(text: Any) -> sympy.Expr:
    """A sympy number ``c₀ + Σ cᵢ·log(ρᵢ)`` from certificate text such as ``2*log(9)``; anything else is refused.

    Only digits, ``+ - * / ( )``, spaces and ``log(`` may occur, so parsing
    evaluates no code.
    """
    if not isinstance(text, str) or set(text.replace("log(", "")) - set("0123456789+-*/() "):
        raise InvalidArgument(f"expression {text!r} has characters outside rationals and log(…)", parameter="expression", value=text)
    try:
        value = sympy.sympify(text, locals={"log": sympy.log}, strict=False)
        LogLinear.from_sympy(value)
    except (sympy.SympifyError, TypeError, SyntaxError, ExpMechError):
        raise InvalidArgument(f"expression {text!r} is not c0 + sum c_i*log(rho_i)", parameter="expression", value=text) from None
    return sympy.sympify(value)


def _witness(w: RatioWitness | None) -> dict[str, Any] | None:
    if w is None:
        return None
    return {"record1": encode_value(w.record1), "record2": encode_value(w.record2), "output": encode_value(w.output), "ratio": rational_text(w.ratio)}


def _text(expr: sympy.Expr | None) -> str | None:
    if expr is None:
        return None
    return "oo" if expr is sympy.oo else str(sympy.simplify(expr))


def _sensitivity_claim(result: LikelihoodRatioResult) -> dict[str, Any]:
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
        "evidence": {"solver": result.solver, "queries": _queries(result.queries)},
    }


def _conformance(mech: PosteriorSampling, epsilon: sympy.Expr, neighbours: Neighbours, pairs: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    bound = LogLinear.from_sympy(epsilon)
    largest: Any = LogLinear.rational(0)
    violations = []
    skipped = 0
    for _ in range(pairs):
        first = [_random_record(mech.quality, rng) for _ in range(rng.randint(1, 6))]  # type: ignore[arg-type]  # reads only the schema
        extra = _random_record(mech.quality, rng)  # type: ignore[arg-type]
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


def certify_posterior(
    quality: LogLikelihood,
    *,
    epsilon: Any,
    neighbours: Any,
    claimed: Any = None,
    base_measure: Any = None,
    outputs: Any = None,
    pairs: int = 20,
    seed: int = 0,
    **prover_options: Any,
) -> Certificate:
    """A certificate for one (tempered) posterior sample: ``ε = 2·ε₀·ln ρ`` when ρ is PROVED.

    ``quality`` is a :class:`~expmech.spec.LogLikelihood`; ``epsilon`` the
    tempering factor ε₀ (any rational > 0; the exact conformance check uses the
    rational law of an integer ε₀ and the radical law of a fractional one); ``base_measure`` the prior
    over ``outputs`` (default: the finite parameter space, uniform prior) — or,
    for θ on an interval (a :class:`~expmech.spec.RationalRange`), a
    :class:`~expmech.spec.BetaPrior`, recorded as ``mechanism.prior``;
    ``claimed`` an optional Δq such as ``sympy.log(9)``.
    """
    epsilon0 = positive_rational(epsilon, name="epsilon")
    relation = Neighbours.parse(neighbours)
    if isinstance(pairs, bool) or not isinstance(pairs, int) or pairs < 0:
        raise InvalidArgument(f"pairs={pairs!r} must be an int >= 0", parameter="pairs", value=pairs)
    interval = _interval(quality, outputs)
    if interval is not None:
        if base_measure is not None and not isinstance(base_measure, BetaPrior):
            raise InvalidArgument(f"base_measure={base_measure!r} must be a BetaPrior (or None: uniform) for θ on an interval", parameter="base_measure", value=base_measure)
        lo, hi = interval.bounds()
        if lo is None or hi is None:
            raise InvalidArgument(f"outputs={interval.describe()} must be a bounded interval", parameter="outputs", value=interval)
        beta = base_measure or BetaPrior(1, 1)
        outputs_json: list[Any] = [{"interval": [rational_text(lo), rational_text(hi)]}]
        prior_json: dict[str, Any] | None = {"kind": "beta", "alpha": beta.alpha, "beta": beta.beta}
        measure_json: list[str] = []
        mech_outputs: Any = interval
        mech_prior: Any = beta
    else:
        if outputs is None:
            if not quality.output_space.is_finite:
                raise InvalidArgument("the parameter space must be finite (or outputs= given) to certify posterior sampling", parameter="outputs", value=None)
            outputs = quality.outputs()
        grid = check_outputs(outputs)
        for i, theta in enumerate(grid):
            quality.output_space.encode(theta, name=f"outputs[{i}]")
        prior = check_base_measure(base_measure, grid)
        outputs_json, prior_json, measure_json = encode_value(list(grid)), None, [rational_text(m) for m in prior]
        mech_outputs, mech_prior = grid, dict(zip(grid, prior))
    budget = {k: v for k, v in prover_options.items() if k in ("rlimit", "timeout_ms")}
    ratio = prove_likelihood_ratio(quality, neighbours=relation, claimed=claimed, **budget)
    claims: list[dict[str, Any]] = [_sensitivity_claim(ratio)]
    status = ratio.status
    notes: list[str] = []
    epsilon_text = None
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
        if pairs and interval is not None and epsilon0.denominator != 1:
            notes.append("no exact conformance check: θ^(a/b) on an interval has no rational integral, so the tempered law is not computed")
        elif pairs:
            mech = PosteriorSampling(quality, epsilon=epsilon0, outputs=mech_outputs, base_measure=mech_prior)
            check = _conformance(mech, derived, relation, pairs, seed)
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
    mechanism: dict[str, Any] = {
        "epsilon0": rational_text(epsilon0),
        "neighbours": relation.value,
        "outputs": outputs_json,
        "base_measure": measure_json,
        "weight": WEIGHT,
    }
    if prior_json is not None:
        mechanism["prior"] = prior_json
    return assemble(quality, likelihood_to_json(quality), mechanism, claims, status, epsilon_text, notes)


def check_posterior(statement: dict[str, Any], record: Any, rerun_queries: Any) -> None:
    """Re-derive a log-likelihood certificate's claims, reporting each check through ``record(name, passed, detail)``.

    Rebuilds ℓ from its tree (no code is evaluated), re-runs every recorded
    query (``rerun_queries``), re-proves ρ and requires the same verdict, ratio
    and queries (z3-equivalent), re-evaluates the witness exactly, and
    re-derives ε from the spec.
    """
    predicate = statement["predicate"]
    try:
        quality = likelihood_from_json(predicate["quality"])
        record("quality", True, f"rebuilt log-likelihood, sha256 {quality.sha256[:12]}…")
    except ExpMechError as error:
        record("quality", False, str(error))
        return
    record("subject", statement["subject"][0]["digest"]["sha256"] == quality.sha256, "subject digest is the likelihood's sha256")
    relation = Neighbours.parse(predicate["mechanism"]["neighbours"])
    claims = {claim["id"]: claim for claim in predicate["claims"]}
    rerun_queries(predicate)
    prior = predicate["mechanism"].get("prior")
    if prior is not None:
        outputs = predicate["mechanism"]["outputs"]
        interval = len(outputs) == 1 and isinstance(outputs[0], dict) and set(outputs[0]) == {"interval"}
        record("a Beta prior goes with an interval of θ", interval and not predicate["mechanism"]["base_measure"], "")
    sensitivity = claims.get("sensitivity")
    if sensitivity is None:
        record("sensitivity claim", False, "missing")
        return
    try:
        claimed = None if sensitivity.get("claimed") is None else log_expression(sensitivity["claimed"])
    except InvalidArgument as error:
        record("sensitivity claim", False, str(error))
        return
    fresh = prove_likelihood_ratio(quality, neighbours=relation, claimed=claimed)
    record("likelihood-ratio verdict reproduced", str(fresh.status) == sensitivity["status"], f"re-proved {fresh.status}, recorded {sensitivity['status']}")
    fresh_ratio = None if fresh.ratio is None else rational_text(fresh.ratio)
    record("likelihood ratio reproduced", fresh_ratio == sensitivity.get("ratio"), f"re-proved {fresh_ratio}, recorded {sensitivity.get('ratio')}")
    record("Δq reproduced", _text(fresh.bound) == sensitivity.get("bound"), f"re-proved {_text(fresh.bound)}, recorded {sensitivity.get('bound')}")
    recorded = [q["smt2"] for q in sensitivity["evidence"]["queries"]]
    regenerated = [q.result.smt2 for q in fresh.queries]
    same = len(recorded) == len(regenerated) and all(_equivalent(a, b) for a, b in zip(recorded, regenerated))
    record("queries are the ones the claim needs", same, f"{len(regenerated)} regenerated, {len(recorded)} recorded, compared by z3 equivalence")
    for kind in ("ratio_witness", "ratio_counterexample"):
        item = sensitivity.get(kind)
        if item is None:
            continue
        try:
            theta = quality.output_space.encode(_output(item["output"]))
            first = quality.schema.encode(_decode(item["record1"]))
            value = quality.record_likelihood_codes(first, theta)
            if item["record2"] is None:
                ratio = Fraction(0) if value == 0 else max(value, 1 / value)
            else:
                second = quality.record_likelihood_codes(quality.schema.encode(_decode(item["record2"])), theta)
                ratio = value / second
        except (ExpMechError, ZeroDivisionError) as error:
            record(kind, False, str(error))
            continue
        recorded_ratio = rational_from_text(item["ratio"], name="ratio")
        record(f"{kind}: exact ratio", ratio == recorded_ratio, f"re-evaluated {ratio}, recorded {recorded_ratio}")
        if kind == "ratio_witness":
            record("the witness attains ρ", sensitivity.get("ratio") is not None and ratio == rational_from_text(sensitivity["ratio"], name="ratio"), f"ρ = {sensitivity.get('ratio')}")
        elif ratio != 0:
            record("the counterexample exceeds the claim", claimed is not None and LogLinear.log(ratio) > LogLinear.from_sympy(claimed), f"ln {ratio} against {claimed}")
    epsilon = predicate["epsilon"]
    privacy = claims.get("privacy")
    if predicate["dp_claim"]:
        record("ε-DP claim rests on a PROVED likelihood ratio", sensitivity["status"] == "PROVED" and privacy is not None and predicate["status"] == "PROVED")
        if privacy is None:
            return
        try:
            delta = log_expression(privacy["sensitivity"])
            e0 = rational_from_text(predicate["mechanism"]["epsilon0"], name="epsilon0")
            derived = derive_epsilon(sympy.Rational(e0.numerator, e0.denominator), delta)
            record("ε re-derived from the spec", LogLinear.from_sympy(derived) == LogLinear.from_sympy(log_expression(epsilon)), f"derived {derived}, recorded {epsilon}")
            usable = claimed if claimed is not None else fresh.bound
            record("ε uses the proved Δq", usable is not None and usable is not sympy.oo and LogLinear.from_sympy(usable) == LogLinear.from_sympy(delta), f"Δq {delta}")
        except InvalidArgument as error:
            record("privacy claim is well-formed", False, str(error))
    else:
        record("no ε-DP claim without a proof", epsilon is None, "")
    conformance = claims.get("conformance")
    if conformance is not None:
        record("conformance found no violation", conformance["status"] == "TESTED" and not conformance["violations"], f"{conformance['pairs']} pairs")
