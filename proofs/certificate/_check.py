"""Independent re-checking of a certificate: ``check_certificate`` and ``expmech check``.

The checker trusts nothing in the file.  It validates the JSON Schema,
recomputes the digest over the RFC 8785 canonical statement, rebuilds the
quality function from its expression tree (never evaluating code) and checks
its sha256, re-runs every recorded SMT-LIB2 query on z3 and — when the
``cvc5`` package is installed — on cvc5 as an independent solver, re-evaluates
every witness and counterexample exactly, and re-derives ε from the spec's
privacy statement.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import sympy
import z3

from expmech.spec import DATASET_SIZE, ExpMechError, InvalidArgument, Neighbours, derive_epsilon, quality_from_json
from expmech.spec._serial import rational_from_text

from ._canonical import sha256_hex
from ._build import implementation_sha256

__all__ = ["CheckReport", "check_certificate", "certificate_schema"]


def certificate_schema() -> dict[str, Any]:
    """The published JSON Schema (draft 2020-12) of certificates."""
    text = resources.files("expmech.proofs.certificate").joinpath("certificate.schema.json").read_text(encoding="utf-8")
    return json.loads(text)


@dataclass(frozen=True)
class CheckReport:
    """The outcome of :func:`check_certificate`: ``ok`` only if every check passed.

    ``checks`` lists ``(name, passed, detail)``; ``problems`` the failures;
    ``notes`` what is worth knowing but is not a failure (e.g. cvc5 missing, or
    the implementation changed since certification).
    """

    ok: bool
    status: str | None
    epsilon: str | None
    checks: tuple[tuple[str, bool, str], ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...] = field(default=())


def _decode(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"rational"}:
        return rational_from_text(value["rational"], name="rational")
    if isinstance(value, dict) and set(value) == {"integer"}:
        return int(value["integer"])
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _output(value: Any) -> Any:
    decoded = _decode(value)
    return tuple(decoded) if isinstance(decoded, list) else decoded


def _z3_check(smt2: str) -> str:
    solver = z3.Solver()
    solver.set("timeout", 60_000)
    solver.add(z3.parse_smt2_string(smt2))
    return str(solver.check())


def _cvc5_check(smt2: str) -> str | None:
    try:
        import cvc5
    except ImportError:
        return None
    manager = cvc5.TermManager()
    solver = cvc5.Solver(manager)
    parser = cvc5.InputParser(solver)
    parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, smt2, "certificate")
    symbols = parser.getSymbolManager()
    answer = None
    while True:
        command = parser.nextCommand()
        if command.isNull():
            break
        output = command.invoke(solver, symbols)
        if str(command).startswith("(check-sat"):
            answer = output.strip()
    return answer


def _expr(text: str | None) -> sympy.Expr | None:
    if text is None:
        return None
    if text == "oo":
        return sympy.oo
    allowed = {"n": DATASET_SIZE}
    return sympy.sympify(text, locals=allowed, strict=False) if all(c in "0123456789n+-*/() " for c in text) else _refuse(text)


def _refuse(text: str) -> sympy.Expr:
    raise InvalidArgument(f"expression {text!r} has characters outside rationals and n", parameter="expression", value=text)


def _load(source: Any) -> dict[str, Any]:
    if isinstance(source, dict):
        return source
    if isinstance(source, str | Path):
        path = Path(source)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InvalidArgument(f"certificate={str(source)!r} does not exist", parameter="certificate", value=str(source)) from None
        except json.JSONDecodeError as error:
            raise InvalidArgument(f"certificate={str(source)!r} is not JSON: {error}", parameter="certificate", value=str(source)) from None
    raise InvalidArgument(f"certificate must be a path or a dict, not {type(source).__name__}", parameter="certificate", value=source)


def check_certificate(certificate: Any, *, solvers: tuple[str, ...] = ("z3", "cvc5")) -> CheckReport:
    """Re-verify a certificate (a path or its parsed JSON) independently; see the module docstring.

    Returns a :class:`CheckReport`; ``ok`` is False if any check fails (a
    tampered byte, a claim the evidence does not support, a query whose answer
    differs, a witness that does not re-evaluate, an ε that does not follow).
    """
    data = _load(certificate)
    checks: list[tuple[str, bool, str]] = []
    notes: list[str] = []

    def record(name: str, passed: bool, detail: str = "") -> bool:
        checks.append((name, passed, detail))
        return passed

    errors = sorted(jsonschema.Draft202012Validator(certificate_schema()).iter_errors(data), key=lambda e: list(e.path))
    if not record("schema", not errors, "; ".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:3])):
        return _report(checks, None, None, notes)
    statement = data["certificate"]
    predicate = statement["predicate"]
    record("digest", sha256_hex(statement) == data["digest"]["value"], "sha256 over the RFC 8785 canonical statement")
    if predicate["quality"].get("kind") == "log-likelihood":
        from ._posterior import check_posterior

        check_posterior(statement, record, lambda p: _rerun_queries(p, solvers, record, notes))
        _implementation_note(predicate, notes)
        return _report(checks, predicate["status"], predicate["epsilon"], notes)
    try:
        quality = quality_from_json(predicate["quality"])
        record("quality", True, f"rebuilt, sha256 {quality.sha256[:12]}…")
    except ExpMechError as error:
        record("quality", False, str(error))
        return _report(checks, predicate.get("status"), predicate.get("epsilon"), notes)
    record("subject", statement["subject"][0]["digest"]["sha256"] == quality.sha256, "subject digest is the quality's sha256")
    relation = Neighbours.parse(predicate["mechanism"]["neighbours"])
    claims = {claim["id"]: claim for claim in predicate["claims"]}
    _rerun_queries(predicate, solvers, record, notes)
    sensitivity = claims.get("sensitivity")
    if sensitivity is None:
        record("sensitivity claim", False, "missing")
        return _report(checks, predicate["status"], predicate["epsilon"], notes)
    bound = _expr(sensitivity.get("bound"))
    claimed = _expr(sensitivity.get("claimed"))
    for kind in ("witness", "counterexample"):
        item = sensitivity.get(kind)
        if item is None:
            continue
        d1, d2 = _decode(item["dataset1"]), _decode(item["dataset2"])
        r = _output(item["output"])
        try:
            difference = abs(quality(d1, r) - quality(d2, r))
        except ExpMechError as error:
            record(f"{kind}", False, str(error))
            continue
        recorded = rational_from_text(item["difference"], name="difference")
        neighbours_ok = (
            len(d1) == len(d2) and sum(1 for a, b in zip(d1, d2) if a != b) <= 1
            if relation is Neighbours.REPLACE_ONE
            else len(d2) == len(d1) + 1 and all(d2.count(x) >= d1.count(x) for x in d1)
        )
        record(f"{kind}: neighbours", neighbours_ok, f"under {relation.value}")
        record(f"{kind}: exact difference", difference == recorded, f"re-evaluated {difference}, recorded {recorded}")
        size = item["size"]
        if kind == "witness" and bound is not None and bound is not sympy.oo:
            record("witness attains the bound", Fraction(str(sympy.Rational(bound.subs(DATASET_SIZE, size)))) == difference, f"bound {bound} at n={size}")
        if kind == "counterexample" and claimed is not None:
            record("counterexample exceeds the claim", difference > Fraction(str(sympy.Rational(claimed.subs(DATASET_SIZE, size)))), f"claim {claimed} at n={size}")
    if "range" in predicate["mechanism"]:  # an interval or infinite range: re-derived in ._ranges
        from ._ranges import check_range

        check_range(predicate, quality, claims, record)
        outputs = None
    else:
        outputs = [_output(r) for r in predicate["mechanism"]["outputs"]]
    _regenerate(quality, relation, sensitivity, record, notes, outputs)
    privacy = claims.get("privacy")
    epsilon = predicate["epsilon"]
    if predicate["dp_claim"]:
        ok = sensitivity["status"] == "PROVED" and privacy is not None and predicate["status"] == "PROVED"
        record("ε-DP claim rests on a PROVED sensitivity", ok, "")
        if privacy is not None:
            monotone = claims.get("monotonicity", {}).get("status") == "PROVED"
            record("monotonicity as used", privacy["monotone"] == monotone, "")
            delta = _expr(privacy["sensitivity"])
            if delta is None or epsilon is None:
                record("privacy claim is complete", False, "missing sensitivity or ε")
                return _report(checks, predicate["status"], epsilon, notes)
            e0 = rational_from_text(predicate["mechanism"]["epsilon0"], name="epsilon0")
            derived = derive_epsilon(
                sympy.Rational(e0.numerator, e0.denominator), delta, monotone=privacy["monotone"], normaliser_invariant=privacy.get("normaliser_invariant", False)
            )
            record("ε re-derived from the spec", sympy.simplify(derived - _expr(epsilon)) == 0, f"derived {derived}, recorded {epsilon}")
            usable = _expr(sensitivity.get("claimed") or sensitivity.get("bound"))
            record("ε uses the proved Δq", usable is not None and sympy.simplify(usable - delta) == 0, f"Δq {delta}")
    else:
        record("no ε-DP claim without a proof", epsilon is None, "")
    conformance = claims.get("conformance")
    if conformance is not None:
        record("conformance found no violation", conformance["status"] == "TESTED" and not conformance["violations"], f"{conformance['pairs']} pairs")
    truthfulness = claims.get("truthfulness")
    if truthfulness is not None:
        from ._auction import check_truthfulness_claim

        check_truthfulness_claim(truthfulness, predicate, quality, record)
    _implementation_note(predicate, notes)
    return _report(checks, predicate["status"], epsilon, notes)


def _rerun_queries(predicate: dict[str, Any], solvers: tuple[str, ...], record: Any, notes: list[str]) -> None:
    """Re-run every recorded query of every claim on z3 (and cvc5 when installed): each must give its expected answer."""
    cvc5_missing = False
    for claim in predicate["claims"]:
        for index, query in enumerate(claim.get("evidence", {}).get("queries", [])):
            label = f"{claim['id']} query {index + 1} ({query['purpose']})"
            record(f"{label}: recorded", query["result"] == query["expected"], f"recorded {query['result']}, needed {query['expected']}")
            if "z3" in solvers:
                answer = _z3_check(query["smt2"])
                record(f"{label}: z3", answer == query["expected"], f"z3 says {answer}")
            if "cvc5" in solvers:
                second = _cvc5_check(query["smt2"])
                if second is None:
                    cvc5_missing = True
                else:
                    record(f"{label}: cvc5", second == query["expected"], f"cvc5 says {second}")
    if cvc5_missing:
        notes.append("cvc5 is not installed: queries were re-run on z3 only (pip install cvc5 for a second solver)")


def _implementation_note(predicate: dict[str, Any], notes: list[str]) -> None:
    if predicate["implementation_sha256"] != implementation_sha256():
        notes.append("the installed expmech.impl differs from the one certified (implementation_sha256 changed)")


def _regenerate(quality: Any, relation: Neighbours, sensitivity: dict[str, Any], record: Any, notes: list[str], outputs: list[Any] | None) -> None:
    """Re-run the prover on the rebuilt quality: the verdict, the bound and the queries must be the recorded ones.

    Re-running the recorded queries alone would accept a query swapped for a
    trivially unsatisfiable one; regenerating them ties each query to the claim.
    """
    from ..prover._sensitivity import prove_sensitivity
    from ..prover._z3bridge import z3_version

    claimed = sensitivity.get("claimed")
    fresh = prove_sensitivity(quality, neighbours=relation, claimed=None if claimed is None else _expr(claimed), outputs=outputs)
    record("sensitivity verdict reproduced", str(fresh.status) == sensitivity["status"], f"re-proved {fresh.status}, recorded {sensitivity['status']}")
    fresh_bound = None if fresh.bound is None else ("oo" if fresh.bound is sympy.oo else str(sympy.simplify(fresh.bound)))
    record("sensitivity bound reproduced", fresh_bound == sensitivity.get("bound"), f"re-proved {fresh_bound}, recorded {sensitivity.get('bound')}")
    recorded = [q["smt2"] for q in sensitivity["evidence"]["queries"]]
    regenerated = [q.result.smt2 for q in fresh.queries]
    same = len(recorded) == len(regenerated) and all(_equivalent(a, b) for a, b in zip(recorded, regenerated))
    record("queries are the ones the claim needs", same, f"{len(regenerated)} regenerated, {len(recorded)} recorded, compared by z3 equivalence")
    if sensitivity["evidence"]["solver"] != f"z3 {z3_version()}":
        notes.append(f"certified with {sensitivity['evidence']['solver']}, re-checked with z3 {z3_version()}")


def _equivalent(first: str, second: str) -> bool:
    """Whether two SMT-LIB2 queries assert logically equivalent formulas (decided by z3; unknown is False)."""
    try:
        a = z3.And(*z3.parse_smt2_string(first))
        b = z3.And(*z3.parse_smt2_string(second))
    except z3.Z3Exception:
        return False
    solver = z3.Solver()
    solver.set("timeout", 60_000)
    solver.add(a != b)
    return solver.check() == z3.unsat


def _report(checks: list[tuple[str, bool, str]], status: str | None, epsilon: str | None, notes: list[str]) -> CheckReport:
    problems = tuple(f"{name}: {detail}" if detail else name for name, passed, detail in checks if not passed)
    return CheckReport(not problems, status, epsilon, tuple(checks), problems, tuple(notes))
