"""Where ``check`` runs the proof kernel (:mod:`expmech.proofs.kernel`) on every PROVED claim that has kernel rules.

``check`` re-derives every claim with the prover's own code, which catches any
edit of a certificate but not a bug in a prover rule.  The kernel is the
second, independent net: it accepts a claim's recorded ``derivation`` rule by
rule, writing every side-condition query itself from the quality's semantics.
So after the recorded statement has been found equal to its re-derivation,
for each claim that is PROVED and whose kind has a rule set in
:data:`~expmech.proofs.kernel.RULES`:

* the claim must carry a ``derivation`` of that kind, for the certificate's
  neighbour relation, whose ``bound`` is the bound the claim states (the tree
  the ε-DP claim rests on, compared node for node, no simplification);
* :func:`~expmech.proofs.kernel.check_derivation` must accept it.

Otherwise the claim is not PROVED and the certificate is INVALID (exit 1):
the failure names the claim, the node, its rule and the kernel's reason.  The
kernel's verdicts are recorded as checks (``claim sensitivity: kernel``) and
as :attr:`~._run.CheckReport.kernel` rows.

``enabled`` (module level) exists for the benchmark of the kernel's cost
(``tests/benchmarks/bench_kernel.py``); nothing else turns the kernel off.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

from expmech.spec import Counting, IntRange, Lebesgue, LogLikelihood, RationalRange
from expmech.spec.internal import expression_to_json

from ..kernel import RULES, KernelVerdict, check_derivation
from ._canonical import canonical_bytes
from ._conclusion_derivations import CONCLUSIONS, binding_problem
from ._derive import Derivation
from ._inputs import CertificateInputs
from ._run import DerivationCache, _Check

__all__ = ["check_kernel", "derivation_kind", "kernel_kinds", "prefetch_kernel"]

#: Whether ``check`` runs the kernel (the benchmark turns it off to measure its cost).
enabled = True


def _rule_kind(info: Any) -> str | None:
    """The claim kind of a rule of :data:`~expmech.proofs.kernel.RULES` (its ``claim``, or its first member)."""
    kind = getattr(info, "claim", None)
    if kind is None and isinstance(info, tuple) and info:
        kind = info[0]
    return kind if isinstance(kind, str) else None


def kernel_kinds() -> frozenset[str]:
    """The claim kinds (``sensitivity``, ``monotonicity``, …) that have a rule set in the kernel."""
    return frozenset(kind for kind in map(_rule_kind, RULES.values()) if kind is not None)


def derivation_kind(claim: dict[str, Any], *, posterior: bool = False) -> str | None:
    """The kind of derivation a certificate claim carries (the derivation's ``claim`` field), None for a claim
    of a kind no derivation is written for (conformance); a posterior's ``bounded-range`` is ``posterior-range``
    (``posterior`` says the certificate is one)."""
    claim_id = claim.get("id")
    if posterior and claim_id == "bounded-range":
        return "posterior-range"
    if claim_id in ("privacy", "zcdp"):
        return str(claim_id)
    if claim_id == "sensitivity":
        return "likelihood-ratio" if claim.get("statement") == "posterior-sampling" else "sensitivity"
    return {"monotonicity": "monotonicity", "bounded-range": "range-sensitivity", "normaliser": "normaliser", "truthfulness": "truthfulness"}.get(
        str(claim_id)
    )


def _sensitivity_bound(claim: dict[str, Any], derivation: Derivation) -> Any:
    """The tree of Δq the ε-DP claim rests on: the re-derived result's proved bound (which the recorded claim's
    ``bound``/``claimed`` equal, the comparison stage having passed)."""
    bound = getattr(derivation.sensitivity, "proved_bound", None)
    return None if bound is None else expression_to_json(bound)


def _range_bound(claim: dict[str, Any], derivation: Derivation) -> Any:
    text = claim.get("range_sensitivity")
    return None if text is None else {"rational": text}


#: The direction of a PROVED monotonicity claim as its derivation's bound (the sign adding a record moves q by;
#: 0 for a constant q, and for a q every output of which a change moves alike under replace-one).
_DIRECTION_SIGN = {"non-decreasing": "1", "non-increasing": "-1", "constant": "0", "uniform": "0"}


def _monotone_bound(claim: dict[str, Any], derivation: Derivation) -> Any:
    sign = _DIRECTION_SIGN.get(str(claim.get("direction")))
    return None if sign is None else {"rational": sign}


def _normaliser_bound(claim: dict[str, Any], derivation: Derivation) -> Any:
    """0 (``Z(D) − Z(D′)``) when the mechanism draws from the whole line its derivation's ``line`` names, with the
    translation-invariant μ of that line (the kernel sees only the quality's own output domain); None otherwise."""
    root = (claim.get("derivation") or {}).get("root")
    line = root.get("data", {}).get("line") if isinstance(root, dict) and isinstance(root.get("data"), dict) else None
    whole = {"reals": (RationalRange(None, None), Lebesgue()), "integers": (IntRange(None, None), Counting())}.get(str(line))
    mech = derivation.mechanism
    if whole is None or getattr(mech, "outputs", None) != whole[0] or getattr(mech, "base_measure", None) not in (None, whole[1]):
        return None
    return {"rational": "0"}


def _epsilon_bound(claim: dict[str, Any], derivation: Derivation) -> Any:
    """The tree of the ε the re-derivation found (which the recorded claim's ``epsilon`` equals)."""
    return None if derivation.epsilon is None else expression_to_json(derivation.epsilon)


#: For each kind: the bound tree a derivation of a claim of that kind must conclude.  A kind with kernel rules but
#: no entry here fails closed ("no link between the derivation and its claim"): add its entry with its rules.
CLAIMED_BOUND: dict[str, Callable[[dict[str, Any], Derivation], Any]] = {
    "sensitivity": _sensitivity_bound,
    "range-sensitivity": _range_bound,
    "monotonicity": _monotone_bound,
    "normaliser": _normaliser_bound,
    "likelihood-ratio": _sensitivity_bound,
    "privacy": _epsilon_bound,
    "zcdp": lambda claim, derivation: None if claim.get("rho") is None else {"rational": claim["rho"]},
    "posterior-range": _range_bound,
    "truthfulness": lambda claim, derivation: None if claim.get("utility_bound") is None else {"rational": claim["utility_bound"]},
}


def _nodes(root: Any) -> Iterator[dict[str, Any]]:
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            premises = node.get("premises")
            stack.extend(reversed(premises) if isinstance(premises, list) else ())


def _rule_of(data: dict[str, Any], node_id: str | None) -> str | None:
    if node_id is None:
        return None
    for node in _nodes(data.get("root")):
        if node.get("id") == node_id:
            rule = node.get("rule")
            return rule if isinstance(rule, str) else None
    return None


def _budget(rlimit: int) -> dict[str, int]:
    """The kernel's budget: its own default rlimit, or the certificate's when that is larger."""
    default = inspect.signature(check_derivation).parameters["rlimit"].default
    return {"rlimit": max(rlimit, int(default))} if isinstance(default, int) else {}


def _verdict(caches: list[DerivationCache], inputs: CertificateInputs, data: dict[str, Any], premises: dict[str, Any]) -> KernelVerdict:
    """The kernel's verdict on ``data`` (resting on the accepted ``premises``), from the first of ``caches`` that holds
    the same derivation of the same quality checked by this checker (computed ahead, or by an earlier call); stored
    in the last."""
    key = canonical_bytes([inputs.quality.sha256, inputs.neighbours.value, data, inputs.budget.rlimit, premises])
    for cache in caches:
        if key in cache.kernel_verdicts:
            return cache.kernel_verdicts[key]  # type: ignore[no-any-return]
    verdict = check_derivation(inputs.quality, inputs.neighbours, data, premises=premises, **_budget(inputs.budget.rlimit))
    if caches:
        caches[-1].kernel_verdicts[key] = verdict
    return verdict


def prefetch_kernel(statement: dict[str, Any], inputs: CertificateInputs, cache: DerivationCache) -> None:
    """The verdicts :func:`check_kernel` will ask for on ``statement``, stored in ``cache`` (computed ahead of the
    re-derivation: the binding of each claim to it is checked by :func:`check_kernel` itself); stops at the first
    derivation the kernel does not accept, as :func:`check_kernel` does."""
    if not enabled:
        return
    kinds = kernel_kinds()
    accepted: dict[str, Any] = {}
    for claim in statement["predicate"]["claims"]:
        kind = derivation_kind(claim, posterior=isinstance(inputs.quality, LogLikelihood))
        if claim.get("status") != "PROVED" or kind not in kinds:
            continue
        data = claim.get("derivation")
        if not isinstance(data, dict):
            return
        if not _verdict([cache], inputs, data, accepted if kind in CONCLUSIONS else {}).accepted:
            return
        accepted[kind] = data


def check_kernel(run: _Check, statement: dict[str, Any], inputs: CertificateInputs, derivation: Derivation) -> None:
    """Run the kernel on every PROVED claim with kernel rules (see the module docstring), recorded in ``run``;
    raises its stop, naming the claim, node, rule and reason, at the first claim that is not accepted."""
    if not enabled:
        return
    kinds = kernel_kinds()
    accepted: dict[str, Any] = {}  # kind -> derivation the kernel accepted: the premises of the later claims (re-derived order)
    for claim in statement["predicate"]["claims"]:
        kind = derivation_kind(claim, posterior=isinstance(inputs.quality, LogLikelihood))
        if claim.get("status") != "PROVED" or kind not in kinds:
            continue
        name = f"claim {claim['id']}: kernel"
        data = claim.get("derivation")
        if not isinstance(data, dict):
            run.kernel_rows.append({"claim": claim["id"], "kind": kind, "accepted": False, "node": None, "rule": None, "reason": "no derivation", "queries": 0, "nodes": 0})
            raise run.fail(name, f"PROVED without a derivation: the kernel has rules for {kind} claims, so without one the claim is not PROVED")
        problem = _binding(claim, kind, inputs, data, derivation)
        if problem is not None:
            run.kernel_rows.append({"claim": claim["id"], "kind": kind, "accepted": False, "node": None, "rule": None, "reason": problem, "queries": 0, "nodes": 0})
            raise run.fail(name, problem)
        verdict = _verdict([run.ahead, *([run.cache] if run.cache is not None else [])], inputs, data, accepted if kind in CONCLUSIONS else {})
        nodes = sum(1 for _ in _nodes(data.get("root")))
        rule = _rule_of(data, verdict.node)
        run.kernel_rows.append(
            {"claim": claim["id"], "kind": kind, "accepted": verdict.accepted, "node": verdict.node, "rule": rule, "reason": verdict.reason, "queries": verdict.queries, "nodes": nodes}
        )
        if not verdict.accepted:
            where = f"node {verdict.node}" + (f" (rule {rule})" if rule else "") if verdict.node is not None else "the derivation"
            raise run.fail(name, f"the kernel rejects the derivation at {where}: {verdict.reason}; the claim is not PROVED")
        accepted[kind] = data
        rules = sorted({node["rule"] for node in _nodes(data.get("root")) if isinstance(node.get("rule"), str)})
        run.passed(name, f"accepted by the proof kernel: {nodes} nodes ({', '.join(rules)}), {verdict.queries} queries of its own")


def _binding(claim: dict[str, Any], kind: str, inputs: CertificateInputs, data: dict[str, Any], derivation: Derivation) -> str | None:
    """Why ``data`` is not a derivation of ``claim`` (None when it is): its kind, relation and concluded bound."""
    if data.get("claim") != kind:
        return f"the derivation is of a {str(data.get('claim'))[:40]} claim, not of the {kind} claim it is attached to"
    if data.get("relation") != inputs.neighbours.value:
        return f"the derivation is for {str(data.get('relation'))[:40]} neighbours, the certificate's are {inputs.neighbours.value}"
    claimed = CLAIMED_BOUND.get(kind)
    if claimed is None:
        return f"check has no link between a {kind} derivation's bound and its claim, so the claim cannot rest on it"
    problem = binding_problem(kind, inputs, data) if kind in CONCLUSIONS else None
    if problem is not None:
        return problem
    expected = claimed(claim, derivation)
    if expected is None or data.get("bound") != expected:
        return "the derivation's bound is not the claim's bound (root ≠ claim)"
    return None
