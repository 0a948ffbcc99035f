"""Re-derivation of a certificate that passed the gate of :mod:`._check`: stages 5 to 7 of its docstring.

Rebuilding the inputs, deriving every claim afresh, comparing the record with
the derivation member by member, and the independent checks (evidence
re-evaluated, losses within ε, queries re-run on z3 and cvc5).  This is where
sympy, z3 and the prover are imported: :func:`._check.check_certificate`
imports this module only for input that passed the size, digest, signature,
content-limit and schema checks, so hostile input is refused without them.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import DATASET_SIZE, ExpMechError, InvalidArgument, LogLikelihood, Multiset, Neighbours, QualityFunction, rational_from_text
from expmech.spec.internal import describe

from ...prover._claims import at_least
from ..make._build import implementation_sha256
from ..format._canonical import canonical_bytes, integer_rows, integers
from ._run import _PROVENANCE, CheckOutcome, _Check
from ..make._derive import Derivation, Losses, derive, epsilon_at, measure_budget, subject
from ..format._inputs import CertificateInputs, decode_dataset, decode_output, decode_value, inputs_from_json, inputs_to_json
from ._smallmodel import check_small_model
from ._smt import SolverRun, normalise_smt2, run_cvc5, run_z3, z3_label

__all__ = ["rederive"]


def rederive(run: _Check, statement: dict[str, Any], bound: sympy.Expr | None) -> None:
    """Stages 5 to 7 on a ``statement`` that passed the gate, recorded in ``run``; raises ``_Stop`` at the first failure."""
    predicate = statement["predicate"]
    run.status = predicate["status"]
    inputs = _inputs(run, predicate)
    run.passed("inputs", f"quality rebuilt exactly (sha256 {inputs.quality.sha256[:12]}…), range and base measure valid")
    _compare_inputs(run, statement, inputs)
    derivation = _derivation(run, inputs, predicate["solver_calls"])
    _compare(run, statement, derivation.statement)
    check_small_model(run, statement, inputs.quality)
    _independent(run, statement, inputs, derivation)
    _provenance(run, predicate)
    _verdict(run, predicate, derivation, bound)


def _inputs(run: _Check, predicate: dict[str, Any]) -> CertificateInputs:
    """The inputs rebuilt from the statement; the check fails when they cannot be."""
    try:
        return inputs_from_json(predicate)
    except ExpMechError as error:
        problem = str(error)
    except Exception as error:  # noqa: BLE001 - sympy refusing a schema-valid hostile tree is the certificate's fault
        problem = f"the inputs cannot be rebuilt: {type(error).__name__}: {' '.join(str(error).split())[:200]}"
    raise run.fail("inputs", problem)


def _derivation(run: _Check, inputs: CertificateInputs, calls: list[dict[str, Any]], losses: Losses | None = None) -> Derivation:
    """The re-derivation, replaying the recorded solver calls; a log that does not replay fails, naming its claim."""
    key = canonical_bytes([inputs_to_json(inputs), calls]) + z3_label().encode() if run.cache is not None else b""
    derivation = run.cache.derivations.get(key) if run.cache is not None else None
    if derivation is None:
        try:
            derivation = derive(inputs, replay=calls, losses=losses)
        except ExpMechError as error:
            raise run.fail("re-derivation", f"the inputs do not support any derivation: {error}") from None
        if run.cache is not None:
            run.cache.derivations[key] = derivation
    problem = derivation.problem
    if problem is not None:
        outcome = CheckOutcome.INCONCLUSIVE if problem.inconclusive else CheckOutcome.INVALID
        raise run.fail(f"claim {problem.claim}", f"solver log: {problem.message}", outcome)
    run.passed("solver log", f"{len(calls)} recorded solver calls replayed: unknowns kept, models confirmed, unsat answers solved again")
    return derivation


# -- comparison with the re-derivation ---------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _show(value: Any) -> str:
    return describe(value) if not isinstance(value, dict | list) else describe(json.dumps(value, ensure_ascii=False))


def _keys_difference(recorded: dict[str, Any], derived: dict[str, Any], path: str) -> str | None:
    """An unknown or a missing key of an object, in words."""
    unknown = [key for key in recorded if key not in derived]
    if unknown:
        return f"{path}{unknown[0]}: a field the re-derivation does not have"
    missing = [key for key in derived if key not in recorded]
    return f"{path}{missing[0]}: missing" if missing else None


def _difference(recorded: Any, derived: Any, path: str, queries: bool = False) -> str | None:
    """The first place where ``recorded`` differs from ``derived``, in words (None when equal)."""
    if recorded is derived:
        return None  # one object (a finite range's rows, which are their own rendering)
    if isinstance(derived, dict) and isinstance(recorded, dict):
        found = _keys_difference(recorded, derived, path)
        if found:
            return found
        for key in derived:
            if queries and key == "queries":
                found = _query_difference(recorded[key], derived[key], f"{path}{key}")
            else:
                found = _difference(recorded[key], derived[key], f"{path}{key}.", queries or key == "evidence")
            if found:
                return found
        return None
    if isinstance(derived, list) and isinstance(recorded, list):
        if len(recorded) != len(derived):
            return f"{path.rstrip('.') or 'the list'}: {len(recorded)} items recorded, {len(derived)} re-derived"
        if recorded == derived and (integers(derived) or integer_rows(derived)) and (integers(recorded) or integer_rows(recorded)):
            return None  # plain ints (or rows of them) on both sides: == is _same's strict equality, in bulk
        if recorded == derived and set(map(type, derived)) == {str} and set(map(type, recorded)) == {str}:
            return None  # plain strings on both sides (a base measure's texts): the same, in bulk
        for index, (a, b) in enumerate(zip(recorded, derived)):
            found = _difference(a, b, f"{path.rstrip('.')}[{index}].", queries)
            if found:
                return found
        return None
    if path.endswith("solver.") and queries:
        return None  # provenance: the solver label (the version is compared below, per query)
    if not _same(recorded, derived):
        where = path.rstrip(".")
        return (f"{where}: " if where else "") + f"recorded {_show(recorded)}, re-derived {_show(derived)}"
    return None


def _query_difference(recorded: Any, derived: list[dict[str, Any]], path: str) -> str | None:
    if not isinstance(recorded, list) or len(recorded) != len(derived):
        count = len(recorded) if isinstance(recorded, list) else "no"
        return f"{path}: {count} queries recorded, {len(derived)} regenerated"
    for index, (mine, fresh) in enumerate(zip(recorded, derived)):
        where = f"{path}[{index}]"
        found = _keys_difference(mine, fresh, f"{where}.") if isinstance(mine, dict) else f"{where}: not an object"
        if found:
            return found
        try:
            text = normalise_smt2(mine["smt2"])
        except (InvalidArgument, TypeError) as error:
            return f"{where}.smt2: not a certificate query: {error}"
        if text != fresh["smt2"]:
            return f"{where}.smt2: not the regenerated query (compared after normalisation: comments, set-info, white space, let names)"
        for key in ("purpose", "expected", "result", "reason"):
            if not _same(mine[key], fresh[key]):
                return f"{where}.{key}: recorded {_show(mine[key])}, re-derived {_show(fresh[key])}"
        if not _same(mine["rlimit_used"], fresh["rlimit_used"]):
            return f"{where}.rlimit_used: recorded {_show(mine['rlimit_used'])}, the solver log says {_show(fresh['rlimit_used'])}"
    return None


def _compare_inputs(run: _Check, recorded: dict[str, Any], inputs: CertificateInputs) -> None:
    """The recorded inputs must be the canonical rendering of the rebuilt ones (canonical text byte for byte)."""
    rendered = inputs_to_json(inputs)
    for section in ("quality", "mechanism", "options"):
        found = _difference(recorded["predicate"][section], rendered[section], f"{section}.")
        if found:
            raise run.fail(section, found)
        run.passed(section, "equals its re-rendering")
    found = _difference(recorded["subject"], subject(rendered["quality"]), "subject")
    if found:
        raise run.fail("subject", found)


def _compare(run: _Check, recorded: dict[str, Any], derived: dict[str, Any]) -> None:
    """Every recorded member must equal its re-derivation; stop at the first that does not, naming it."""
    recorded_predicate = recorded["predicate"]
    derived_predicate = derived["predicate"]
    stop = run.fail

    ids = [claim["id"] for claim in recorded_predicate["claims"]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise stop(f"claim {duplicates[0]}", f"the claim id {duplicates[0]!r} appears {ids.count(duplicates[0])} times")
    fresh = {claim["id"]: claim for claim in derived_predicate["claims"]}
    for index, claim in enumerate(derived_predicate["claims"]):
        name = f"claim {claim['id']}"
        if index >= len(ids) or ids[index] != claim["id"]:
            where = "missing" if claim["id"] not in ids else f"recorded at position {ids.index(claim['id']) + 1}, re-derived at {index + 1}"
            raise stop(name, where)
        found = _difference(recorded_predicate["claims"][index], claim, "")
        if found:
            raise stop(name, found)
        run.passed(name, f"{claim['status']}, re-derived")
    for claim_id in ids[len(derived_predicate["claims"]) :]:
        reason = "the re-derivation makes no such claim" if claim_id not in fresh else "out of place"
        raise stop(f"claim {claim_id}", reason)
    for key in ("schema_version", "status", "epsilon", "dp_claim", "notes"):
        found = _difference(recorded_predicate[key], derived_predicate[key], "")
        if found:
            raise stop(f"predicate.{key}", found)
    run.passed("verdict", f"status {derived_predicate['status']}, ε {derived_predicate['epsilon']}")
    for key in recorded_predicate:
        if key not in derived_predicate and key not in _PROVENANCE:  # pragma: no cover - the schema closes the predicate
            raise stop(f"predicate.{key}", "a field the re-derivation does not have")


# -- independent checks -----------------------------------------------------------------------------


def _key(record: Any) -> str:
    return json.dumps(record, sort_keys=True, default=str)


def _counts(dataset: Any) -> Any:
    """The records of a dataset (a list, or a Multiset held by counts) by their JSON key, with multiplicity."""
    from collections import Counter

    counts: Counter[str] = Counter()
    for record, count in dataset.items() if isinstance(dataset, Multiset) else ((r, 1) for r in dataset):
        counts[_key(record)] += count
    return counts


def _are_neighbours(first: Any, second: Any, relation: Neighbours) -> bool:
    a, b = _counts(first), _counts(second)
    if relation is Neighbours.REPLACE_ONE:
        return a.total() == b.total() and (a - b).total() <= 1
    return b.total() == a.total() + 1 and not (a - b) and (b - a).total() == 1


def _evaluate(quality: QualityFunction, dataset: list[Any], output: Any) -> Fraction:
    return quality(dataset, output)


def _pair(run: _Check, name: str, item: dict[str, Any], inputs: CertificateInputs) -> tuple[Any, Any, Any, Fraction]:
    first, second = decode_dataset(item["dataset1"]), decode_dataset(item["dataset2"])
    if not _are_neighbours(first, second, inputs.neighbours):
        raise run.fail(name, f"the two datasets are not neighbours under {inputs.neighbours.value}")
    output = decode_output(item["output"])
    try:
        difference = abs(_evaluate(inputs.quality, first, output) - _evaluate(inputs.quality, second, output))
    except ExpMechError as error:
        raise run.fail(name, f"re-evaluation failed: {error}") from None
    recorded = rational_from_text(item["difference"], name="difference")
    if difference != recorded:
        raise run.fail(name, f"re-evaluated |q(D, r) − q(D', r)| = {difference}, recorded {recorded}")
    size = first.size if isinstance(first, Multiset) else len(first)
    if decode_value(item["size"]) != size:
        raise run.fail(name, f"size {item['size']} is not the number of records of the first dataset, {size}")
    return first, second, output, difference


def _independent(run: _Check, statement: dict[str, Any], inputs: CertificateInputs, derivation: Derivation) -> None:
    """Checks beside the comparison: evidence re-evaluated, losses within ε, queries re-run, the ε-DP claim's footing."""
    claims = {claim["id"]: claim for claim in statement["predicate"]["claims"]}
    if isinstance(inputs.quality, LogLikelihood):
        from ..make._posterior import check_ratio_evidence

        problem = check_ratio_evidence(statement, inputs, derivation)
        if problem is not None:
            raise run.fail(*problem)
        run.passed("claim sensitivity: ratio evidence", "witness and counterexample re-evaluated exactly")
    else:
        _language_evidence(run, claims, inputs, derivation)
    if "truthfulness" in claims:
        from ..make._auction import check_truthfulness_claim

        def record(name: str, passed: bool, detail: str) -> None:
            if not passed:
                raise run.fail(name, detail or "does not hold")
            run.passed(name, detail)

        check_truthfulness_claim(claims["truthfulness"], statement["predicate"], inputs.quality, record)
    for claim in statement["predicate"]["claims"]:
        queries = claim.get("evidence", {}).get("queries", [])
        if claim["status"] == "PROVED" and any(query["result"] == "unknown" for query in queries):
            raise run.fail(f"claim {claim['id']}", "PROVED while one of its queries is unknown")
    if statement["predicate"]["dp_claim"]:
        privacy = claims.get("privacy")
        if claims["sensitivity"]["status"] != "PROVED" or privacy is None or privacy["epsilon"] != statement["predicate"]["epsilon"]:
            raise run.fail("claim privacy", "the ε-DP claim does not rest on a PROVED sensitivity and its privacy claim")
    _solvers(run, statement, inputs)


def _language_evidence(run: _Check, claims: dict[str, dict[str, Any]], inputs: CertificateInputs, derivation: Derivation) -> None:
    """Witness, counterexamples and conformance of a quality function of the spec language, re-evaluated exactly."""
    assert isinstance(inputs.quality, QualityFunction)
    sensitivity = claims["sensitivity"]
    result = derivation.sensitivity
    n = DATASET_SIZE
    if sensitivity["witness"] is not None:
        *_, difference = _pair(run, "claim sensitivity: witness", sensitivity["witness"], inputs)
        size = decode_value(sensitivity["witness"]["size"])
        if sensitivity["tight"] and (result.bound is None or result.bound is sympy.oo or sympy.Rational(result.bound.subs(n, size)) != sympy.Rational(difference.numerator, difference.denominator)):
            raise run.fail("claim sensitivity: witness", f"the witness differs by {difference}, not the bound {sensitivity['bound']} at n={size}")
        run.passed("claim sensitivity: witness", f"re-evaluated: neighbours differing by {difference}")
    elif sensitivity["tight"]:
        raise run.fail("claim sensitivity: witness", "tight without a witness")
    if sensitivity["counterexample"] is not None:
        *_, difference = _pair(run, "claim sensitivity: counterexample", sensitivity["counterexample"], inputs)
        size = decode_value(sensitivity["counterexample"]["size"])
        if result.claimed is None or not sympy.Rational(difference.numerator, difference.denominator) > result.claimed.subs(n, size):
            raise run.fail("claim sensitivity: counterexample", f"the difference {difference} does not exceed the claim {sensitivity['claimed']} at n={size}")
        run.passed("claim sensitivity: counterexample", f"re-evaluated: {difference} > the claim")
    monotone = claims["monotonicity"]["counterexample"]
    if monotone is not None:
        first, second = decode_dataset(monotone["dataset1"]), decode_dataset(monotone["dataset2"])
        up, down = decode_output(monotone["rises_at"]), decode_output(monotone["falls_at"])
        q = inputs.quality
        try:
            moves = q(second, up) > q(first, up) and q(second, down) < q(first, down)
        except ExpMechError as error:
            raise run.fail("claim monotonicity: counterexample", f"re-evaluation failed: {error}") from None
        if not _are_neighbours(first, second, inputs.neighbours) or not moves:
            raise run.fail("claim monotonicity: counterexample", "does not re-evaluate to q rising at one output and falling at the other")
        run.passed("claim monotonicity: counterexample", "re-evaluated")
    if "conformance" in claims:
        _conformance(run, claims["conformance"], inputs, derivation)


def _conformance(run: _Check, claim: dict[str, Any], inputs: CertificateInputs, derivation: Derivation) -> None:
    epsilon = derivation.epsilon
    for index, check in enumerate(claim["checks"]):
        first, second = decode_value(check["dataset1"]), decode_value(check["dataset2"])
        where = f"claim conformance: pair {index + 1}"
        if not _are_neighbours(first, second, inputs.neighbours):
            raise run.fail(where, f"not neighbours under {inputs.neighbours.value}")
        at_n = rational_from_text(check["epsilon_at_n"], name="epsilon_at_n")
        if epsilon is None or at_n != epsilon_at(epsilon, len(first)):
            raise run.fail(where, f"epsilon_at_n {at_n} is not ε at n={len(first)}")
        if check["loss_upper_bound"] == "oo" or check["loss_lower_bound"] == "oo":
            if check["within_epsilon"] or check["loss_lower_bound"] != check["loss_upper_bound"]:
                raise run.fail(where, "an infinite loss recorded as within ε")
            continue
        upper = rational_from_text(check["loss_upper_bound"], name="loss_upper_bound")
        lower = rational_from_text(check["loss_lower_bound"], name="loss_lower_bound")
        if check["within_epsilon"] and not lower <= upper <= at_n:
            raise run.fail(where, f"recorded loss bounds [{lower}, {upper}] are not within ε = {at_n}")
        if not check["within_epsilon"] and not upper > at_n:
            raise run.fail(where, f"a violation whose loss bound {upper} does not exceed ε = {at_n}")
    run.passed("claim conformance: losses", f"{len(claim['checks'])} pairs, every recorded loss bound within ε at its n")


def _solvers(run: _Check, statement: dict[str, Any], inputs: CertificateInputs) -> None:
    budget = measure_budget(inputs.budget.rlimit)
    timeout = inputs.budget.timeout_ms
    cvc5_missing = False
    reran = 0
    for claim in statement["predicate"]["claims"]:
        for index, query in enumerate(claim.get("evidence", {}).get("queries", [])):
            text = normalise_smt2(query["smt2"])
            label = f"claim {claim['id']}: query {index + 1}"
            recorded = query["result"]
            if "z3" in run.solvers:
                key = (text, budget, timeout)
                z3_run = run.z3_runs.get(key)
                if z3_run is None:
                    z3_run = run.z3_runs[key] = run_z3(text, rlimit=budget, timeout_ms=timeout)
                if recorded != "unknown" and z3_run.answer != recorded:
                    raise run.fail(label, f"z3 answers {z3_run.answer} {z3_run.reason}, recorded {recorded}".strip())
                reran += 1
            if "cvc5" in run.solvers and recorded != "unknown":
                second = _cvc5(run, text, timeout)
                if second is None:
                    cvc5_missing = True
                elif second.answer == "unknown":
                    run.notes.append(f"{label}: cvc5 could not decide it ({second.reason})")
                elif second.answer != recorded:
                    raise run.fail(label, f"cvc5 answers {second.answer}, recorded {recorded} (z3 agrees with the record): the solvers disagree")
                else:
                    run.passed(f"{label}: cvc5", f"cvc5 says {second.answer}")
    if cvc5_missing:
        run.notes.append("cvc5 is not installed: queries were re-run on z3 only (pip install cvc5 for a second solver)")
    if reran:
        run.passed("queries: z3", f"{reran} queries re-run in fresh z3 contexts with rlimit {budget}")


def _cvc5(run: _Check, text: str, timeout: int) -> SolverRun | None:
    key = (text, timeout)
    if run.cache is not None and key in run.cache.cvc5_runs:
        return run.cache.cvc5_runs[key]
    result = run_cvc5(text, timeout_ms=timeout)
    if run.cache is not None:
        run.cache.cvc5_runs[key] = result
    return result


def _provenance(run: _Check, predicate: dict[str, Any]) -> None:
    if predicate["implementation_sha256"] != implementation_sha256():
        run.notes.append("the installed expmech.impl differs from the one certified (implementation_sha256 changed)")
    recorded = str(predicate["tools"].get("z3", ""))
    installed = z3_label().split(" ", 1)[1]
    if recorded.split(".")[:3] != installed.split(".")[:3]:
        run.notes.append(f"certified with z3 {recorded}, re-derived with z3 {installed}")


def _within(epsilon: sympy.Expr, bound: sympy.Expr) -> bool:
    """Whether ε <= bound for every n >= 1: exactly for constants (logarithms included), else by sympy (False when undecided)."""
    if not epsilon.free_symbols and not bound.free_symbols:
        from expmech.impl import LogLinear

        try:
            return bool(LogLinear.from_sympy(epsilon) <= LogLinear.from_sympy(bound))
        except ExpMechError:
            return False
    return at_least(bound, epsilon).holds is True


def _verdict(run: _Check, predicate: dict[str, Any], derivation: Derivation, bound: sympy.Expr | None) -> None:
    run.epsilon = predicate["epsilon"]
    if not predicate["dp_claim"]:
        run.outcome = CheckOutcome.NO_DP_CLAIM
        notes = "; ".join(predicate["notes"]) or f"status {predicate['status']}"
        run.checks.append(("ε-DP", True, f"certifies no ε: {notes}"))
        run.notes.insert(0, f"valid, but certifies no ε-DP: {notes}")
        return
    assert derivation.epsilon is not None
    if bound is not None and not _within(derivation.epsilon, bound):
        run.outcome = CheckOutcome.NO_DP_CLAIM
        run.above_max_epsilon = str(bound)
        symbolic = bool(derivation.epsilon.free_symbols or bound.free_symbols)
        relation = f"not proved <= max_epsilon = {bound} for every n" if symbolic else f"above max_epsilon = {bound}"
        run.notes.insert(0, f"certifies ε = {predicate['epsilon']}, {relation}")
        run.checks.append(("max ε", True, f"ε = {predicate['epsilon']} is above max_epsilon = {bound}"))
        return
    run.outcome = CheckOutcome.CERTIFIES_DP
    run.passed("ε-DP", f"ε = {predicate['epsilon']}" + (f" <= max_epsilon = {bound}" if bound is not None else ""))
