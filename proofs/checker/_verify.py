"""The verifier: a certificate decided from its own content, with no prover, no ``expmech.impl`` and no sympy.

In order, to the first failure: bounded reading, the signature (trusted keys), the digest, the statement bound to
its subject, then each claim — a PROVED one's derivation and side conditions accepted, its stated values the
derivation's, its witness re-evaluated; a REFUTED one's counterexample re-evaluated; a TESTED one's recorded losses
held to ε (not recomputed) — then ε, status and ``dp_claim`` bound to the accepted privacy claim, and ``max_epsilon``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ._context import Rejected
from ._claims import derive, discharge
from ._evidence import pair_of, quality_at, read_size
from ._domains import Malformed
from ._format import Statement, read_statement
from ._numbers import TooLarge, rational
from ._read import Limits, Refused, Unreadable, canonical_digest, load
from ._report import CheckOutcome, CheckReport
from ._terms import Reader, Term, evaluate
from ._values import at_most, parse_value, same_value

__all__ = ["verify"]

#: claim id -> the derivation kinds that may prove it
KINDS = {"sensitivity": ("sensitivity", "likelihood-ratio"), "monotonicity": ("monotonicity",), "normaliser": ("normaliser",), "privacy": ("privacy",),
         "bounded-range": ("range-sensitivity", "posterior-range"), "zcdp": ("zcdp",), "truthfulness": ("truthfulness",)}


class _Fail(Exception):
    def __init__(self, name: str, detail: str, outcome: CheckOutcome = CheckOutcome.INVALID) -> None:
        super().__init__(detail)
        self.name, self.detail, self.outcome = name, detail, outcome


class _Run:
    """One check: the statement, the claims accepted so far (by derivation kind), the counts."""

    def __init__(self, statement: Statement, rlimit: int, solver_budget: int) -> None:
        self.statement, self.rlimit, self.solver_budget = statement, rlimit, solver_budget
        self.replace = statement.relation == "replace-one"
        self.values = Reader({"n"}, max_nodes=20_000, max_depth=64)
        self.by_kind = {c["derivation"]["claim"]: c for c in statement.claims if c.get("status") == "PROVED" and isinstance(c.get("derivation"), dict) and isinstance(c["derivation"].get("claim"), str)}
        self.accepted: dict[str, Mapping[str, Any]] = {}
        self.active: set[str] = set()
        self.rows: list[dict[str, Any]] = []
        self.obligations = self.solver = 0
        self.options: dict[str, Any] = {}

    def value(self, tree_or_text: Any, where: str) -> Term:
        """A value given as a tree (a derivation's bound) or a text (a claim's field)."""
        try:
            return parse_value(tree_or_text, self.values) if isinstance(tree_or_text, str) else self.values.read(tree_or_text)
        except ValueError as error:
            raise Rejected(None, f"{where} is not a value: {error}") from None

    def same(self, claim: Mapping[str, Any], field: str, value: Term) -> None:
        """The claim's ``field`` is ``value``, or Rejected."""
        if not same_value(self.value(claim.get(field), f"{field} of claim {claim['id']}"), value, self.values):
            raise Rejected(None, f"{field} = {str(claim.get(field))[:60]!r} is not the accepted derivation's value")

    def claimed(self, claim: Mapping[str, Any]) -> Any:
        """The claim's ``claimed`` Δq, which must be the certificate's ``options.claimed``."""
        claimed, option = claim.get("claimed"), self.options.get("claimed")
        if (claimed is None) != (option is None) or (claimed is not None and not same_value(self.value(claimed, "claimed"), self.value(option, "options.claimed"), self.values)):
            raise Rejected(None, "claimed is not the certificate's options.claimed")
        return claimed

    def accept(self, kind: str, node: str | None = None) -> Mapping[str, Any]:
        """The derivation of the PROVED claim of ``kind``, once its rules and side conditions hold."""
        if kind in self.accepted:
            return self.accepted[kind]
        claim = self.by_kind.get(kind)
        if claim is None or kind in self.active:
            raise Rejected(node, f"the certificate has no PROVED {kind} claim with a derivation to rest on")
        self.active.add(kind)
        derivation = claim["derivation"]
        try:
            obligations = derive(self.statement, derivation, lambda k, n: self.accept(k, n))
            solved = discharge(obligations, derivation.get("obligations"), rlimit=self.rlimit, solver_budget=self.solver_budget - self.solver)
        except Rejected as rejected:
            if node is not None:
                raise Rejected(node, f"its premise, the {kind} claim, is not accepted: {rejected.reason[:200]}") from None
            raise
        finally:
            self.active.discard(kind)
        self.obligations, self.solver = self.obligations + len(obligations), self.solver + solved
        self.rows.append({"claim": claim["id"], "kind": kind, "accepted": True, "obligations": len(obligations), "solver": solved})
        self.accepted[kind] = derivation
        return derivation


def verify(source: Any, *, max_epsilon: Any = None, limits: Limits | None = None, trusted_keys: Sequence[Any] = ()) -> CheckReport:
    """Decide the certificate ``source`` (a path, bytes or parsed data) from its content alone.

    ``max_epsilon`` (a rational, or a text in ``n``) turns a certificate of a larger ε into NO_DP_CLAIM;
    ``trusted_keys`` (securesystemslib keys) require a valid signature by one of them.  Raises only for a path
    that is not a readable file (ValueError) or a source of another type (TypeError)."""
    checks: list[tuple[str, bool, str]] = []
    notes: list[str] = []
    state: dict[str, Any] = {}
    failed = None
    try:
        outcome = _verify(source, max_epsilon, limits or Limits(), trusted_keys, checks, notes, state)
    except _Fail as fail:
        checks.append((fail.name, False, fail.detail))
        outcome, failed = fail.outcome, fail.name
    run, ok = state.get("run"), failed is None
    problems = tuple(f"{name}: {detail}" for name, passed, detail in checks if not passed)
    return CheckReport(ok, state.get("status"), state.get("epsilon") if ok else None, tuple(checks), problems, tuple(notes), outcome, failed,
                       state.get("above") if ok else None, tuple(run.rows) if run else (), run.obligations if run else 0, run.solver if run else 0)


def _verify(source: Any, max_epsilon: Any, limits: Limits, keys: Sequence[Any], checks: list[Any], notes: list[str], state: dict[str, Any]) -> CheckOutcome:
    try:
        data, statement = load(source, limits)
    except Refused as error:
        raise _Fail("input limits", str(error), CheckOutcome.REFUSED) from None
    except Unreadable as error:
        raise _Fail("file", str(error)) from None
    if "envelope" in data and keys:
        from .signature import verify_envelope

        try:
            signers = verify_envelope(data["envelope"], list(keys))
        except ValueError as error:
            raise _Fail("signature", str(error)) from None
        checks.append(("signature", True, f"Ed25519 signature by trusted key {', '.join(k[:16] for k in signers)}"))
    elif "envelope" in data:
        notes.append("signed but not verified: no trusted key was given")
    elif keys:
        raise _Fail("signature", "the certificate is not signed, and trusted keys were given")
    if canonical_digest(statement) != data["digest"]["value"]:
        raise _Fail("digest", "the digest does not match the statement: the file was changed after it was sealed")
    checks.append(("digest", True, "sha256 over the RFC 8785 form of the statement"))
    try:
        parsed = read_statement(statement, max_nodes=limits.max_expression_nodes, max_outputs=limits.max_outputs)
    except Malformed as error:
        raise _Fail("inputs", str(error)) from None
    except (TooLarge, Refused) as error:
        raise _Fail("input limits", str(error), CheckOutcome.REFUSED) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:  # a shape the reader did not guard
        raise _Fail("inputs", f"malformed: {type(error).__name__} {str(error)[:200]}") from None
    checks.append(("inputs", True, f"quality {parsed.quality.name!r} read and bound to its sha256; range and ε₀ read"))
    options = statement["predicate"].get("options")
    rlimit = options.get("rlimit") if isinstance(options, dict) else None
    run = state["run"] = _Run(parsed, min(rlimit if type(rlimit) is int and rlimit > 0 else 5_000_000, limits.max_rlimit), limits.max_solver_obligations)
    run.options = options if isinstance(options, dict) else {}
    state["status"] = parsed.status
    for claim in parsed.claims:
        try:
            checks.append((f"claim {claim['id']}", True, _claim(run, claim)))
        except Rejected as rejected:
            run.rows.append({"claim": claim["id"], "accepted": False, "reason": rejected.reason[:300]})
            raise _Fail(f"claim {claim['id']}", f"rejected{f' at node {rejected.node}' if rejected.node else ''}: {rejected.reason}") from None
        except (Malformed, TooLarge, KeyError, TypeError, ValueError, AttributeError) as error:
            raise _Fail(f"claim {claim['id']}", f"malformed: {type(error).__name__} {str(error)[:200]}") from None
    return _decide(run, parsed, max_epsilon, notes, state)


def _claim(run: _Run, claim: dict[str, Any]) -> str:
    """Check one claim; a line saying what was checked."""
    cid, status = claim["id"], claim.get("status")
    if cid == "conformance":
        return _conformance(run, claim)
    if cid not in KINDS or status not in ("PROVED", "BOUNDED", "TESTED", "UNKNOWN", "REFUTED"):
        raise Malformed(f"claim {cid[:40]!r} of status {str(status)[:20]!r} is not one the verifier knows")
    if status == "PROVED":
        derivation = claim.get("derivation")
        if not isinstance(derivation, dict) or derivation.get("claim") not in KINDS[cid] or run.by_kind.get(derivation["claim"]) is not claim:
            raise Rejected(None, f"a PROVED {cid} claim needs its own derivation of {' or '.join(KINDS[cid])}")
        queries = claim.get("evidence", {}).get("queries", []) if isinstance(claim.get("evidence"), dict) else []
        if any(not isinstance(q, dict) or q.get("result") != q.get("expected") for q in queries):
            raise Rejected(None, "a PROVED claim whose recorded queries are not all answered as expected (unknown, or the other way)")
        run.accept(derivation["claim"])
        _bind(run, claim, derivation)
        return f"accepted: {derivation['claim']} derivation and its side conditions"
    if status == "REFUTED" and cid in ("sensitivity", "monotonicity") and not run.statement.quality.likelihood:
        from ._refuted import counterexample  # loaded for a certificate with a refuted claim only

        counterexample(run, claim)
        return "refuted: counterexample re-evaluated"
    return f"{status}: claims nothing the verdict rests on" + ("" if status == "UNKNOWN" else " (not re-checked; --reproduce re-derives it)")


def _rational(value: Any) -> Fraction:
    return rational(value, "a value") if isinstance(value, str) else Fraction(-1)


def _constant(term: Term) -> Fraction:
    value = evaluate(term, {})
    if not isinstance(value, Fraction):
        raise Rejected(None, "a value that must be a rational is not one")
    return value


def _bind(run: _Run, claim: dict[str, Any], derivation: Mapping[str, Any]) -> None:
    """The claim's stated values equal to its accepted derivation's; its witness re-evaluated."""
    kind, eps0 = derivation["claim"], run.statement.epsilon0
    bound = run.value(derivation["bound"], f"the bound of claim {claim['id']}")
    if kind in ("sensitivity", "likelihood-ratio"):
        claimed, root = run.claimed(claim), derivation["root"]
        if claimed is not None and root.get("rule") == "weaken" and isinstance(root.get("premises"), list) and root["premises"]:
            bound = run.value(root["premises"][0].get("bound"), "the weakened bound")  # proved, then weakened to the claim
        run.same(claim, "bound", bound)
        if claimed is not None and at_most(bound, run.value(claimed, "claimed"), derivation["start"], run.values) is not True:
            raise Rejected(None, f"the bound is not shown <= the claim {str(claimed)[:40]}")
        if claim.get("tight") and kind == "sensitivity":
            _witness(run, claim, derivation, bound)
        elif claim.get("tight"):
            from ._posterior import ratio_witness

            ratio_witness(run, claim, derivation, bound)
    elif kind == "privacy":
        run.same(claim, "epsilon", bound)
        delta, option = run.value((run.accepted.get("sensitivity") or run.accepted["likelihood-ratio"])["bound"], "Δq"), run.options.get("claimed")
        if option is None or not same_value(run.value(claim.get("sensitivity"), "sensitivity"), run.value(option, "claimed"), run.values):
            run.same(claim, "sensitivity", delta)  # else the claimed Δq, shown >= the proved one on its own claim
        if claim.get("monotone") is not (derivation["root"]["rule"] == "privacy-monotone"):
            raise Rejected(None, "monotone is not whether the derivation rests on monotonicity")
    elif kind in ("range-sensitivity", "posterior-range", "zcdp"):
        spread = bound if kind != "zcdp" else run.value((run.accepted.get("range-sensitivity") or run.accepted["posterior-range"])["bound"], "Δ̂")
        run.same(claim, "rho" if kind == "zcdp" else "range_sensitivity", bound)
        if _rational(claim.get("eta")) != eps0 * _constant(spread):
            raise Rejected(None, "eta is not ε₀ times the accepted range bound")
        if kind != "zcdp" and claim.get("tight") and not run.statement.quality.likelihood:
            _spread_witness(run, claim, bound)
    elif kind == "monotonicity":
        direction = "uniform" if run.replace else {1: "non-decreasing", -1: "non-increasing", 0: "constant"}.get(int(_constant(bound)))
        if claim.get("direction") != direction:
            raise Rejected(None, "direction is not the derivation's")
    elif kind == "truthfulness":
        from ._truthful import bind_truthfulness

        bind_truthfulness(run, claim, bound)


def _witness(run: _Run, claim: dict[str, Any], derivation: Mapping[str, Any], bound: Term) -> None:
    """A tight Δq: neighbours whose change at the output is the recorded difference, the bound at their size."""
    quality, witness = run.statement.quality, claim.get("witness")
    if not isinstance(witness, dict):
        raise Rejected(None, "tight without a witness")
    first, second = pair_of(quality, witness, "witness", run.replace)
    output = quality.output(witness.get("output"), "witness.output")
    q1, q2, size = quality_at(quality, first, output), quality_at(quality, second, output), read_size(witness.get("size"), "witness.size")
    if q1 is None or q2 is None or abs(q1 - q2) != _rational(witness.get("difference")) or size != first.total():
        raise Rejected(None, "the witness does not re-evaluate to its difference at its size")
    if evaluate(bound, {"n": Fraction(size)}) != abs(q1 - q2):
        raise Rejected(None, f"the witness differs by {abs(q1 - q2)}, not the bound at n = {size}")


def _spread_witness(run: _Run, claim: dict[str, Any], bound: Term) -> None:
    """A tight Δ̂: d(high) − d(low), d(y) = q(D₁, y) − q(D₂, y), re-evaluated to the recorded spread and the bound."""
    quality, witness = run.statement.quality, claim.get("witness")
    if not isinstance(witness, dict):
        raise Rejected(None, "tight without a witness")
    first, second = pair_of(quality, witness, "witness", run.replace)
    high, low = quality.output(witness.get("output_high"), "output_high"), quality.output(witness.get("output_low"), "output_low")
    values = [quality_at(quality, d, y) for y in (high, low) for d in (first, second)]
    if None in values or read_size(witness.get("size"), "witness.size") != first.total():
        raise Rejected(None, "the range witness is undefined or not at its size")
    spread = (values[0] - values[1]) - (values[2] - values[3])  # type: ignore[operator]
    if spread != _rational(witness.get("spread")) or spread != evaluate(bound, {"n": Fraction(first.total())}):
        raise Rejected(None, f"the range witness spreads by {spread}, not its recorded spread and the bound")


def _conformance(run: _Run, claim: dict[str, Any]) -> str:
    """Recorded losses held to ε at their n (the losses themselves are recomputed only by --reproduce)."""
    privacy, checks = run.by_kind.get("privacy"), claim.get("checks", [])
    if privacy is None or not isinstance(checks, list):
        return f"{claim.get('status')}: no ε to hold its losses to (not re-checked; --reproduce re-derives it)"
    epsilon = run.value(privacy["derivation"]["bound"], "ε")
    for index, check in enumerate(checks):
        first, _ = pair_of(run.statement.quality, check, f"pair {index + 1}", run.replace)
        at_n = _rational(check.get("epsilon_at_n"))
        if at_n != evaluate(epsilon, {"n": Fraction(first.total())}):
            raise Rejected(None, f"pair {index + 1}: epsilon_at_n is not ε at its n")
        if check.get("within_epsilon") is True and not _rational(check.get("loss_lower_bound")) <= _rational(check.get("loss_upper_bound")) <= at_n:
            raise Rejected(None, f"pair {index + 1}: recorded loss bounds are not within ε")
    return f"{claim.get('status')}: {len(checks)} recorded losses within ε at their n (not recomputed; --reproduce recomputes them)"


def _decide(run: _Run, statement: Statement, max_epsilon: Any, notes: list[str], state: dict[str, Any]) -> CheckOutcome:
    privacy = run.accepted.get("privacy")
    sensitivity = next((c for c in statement.claims if c["id"] == "sensitivity"), None)
    if statement.status == "PROVED" and (sensitivity is None or sensitivity.get("status") != "PROVED"):
        raise _Fail("status", "the certificate's status is PROVED but its sensitivity claim is not")
    if not statement.dp_claim:
        if statement.epsilon is not None:
            raise _Fail("claim privacy", "an ε without dp_claim")
        notes.append(f"{CheckOutcome.NO_DP_CLAIM.value}: " + ("no accepted privacy claim" if privacy is None else f"the certificate's status is {statement.status}"))
        return CheckOutcome.NO_DP_CLAIM
    try:
        if privacy is None or statement.status != "PROVED" or not same_value(run.value(statement.epsilon, "ε"), run.value(privacy["bound"], "ε"), run.values):
            raise Rejected(None, "")
    except Rejected:
        raise _Fail("claim privacy", "dp_claim is true, but ε is not an accepted privacy claim's, or the status is not PROVED") from None
    state["epsilon"] = statement.epsilon
    if max_epsilon is None:
        return CheckOutcome.CERTIFIES_DP
    try:
        within = at_most(run.value(privacy["bound"], "ε"), run.value(str(max_epsilon), "max_epsilon"), privacy["start"], run.values)
    except Rejected as error:
        raise _Fail("max epsilon", error.reason) from None
    if within:
        return CheckOutcome.CERTIFIES_DP
    state["above"] = str(max_epsilon)
    notes.insert(0, f"certifies ε = {statement.epsilon}, {'not shown <=' if within is None else 'above'} max_epsilon = {max_epsilon}")
    return CheckOutcome.NO_DP_CLAIM
