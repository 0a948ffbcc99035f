"""The last step of making a statement: written in the verifier's terms, with a recorded proof of every side condition.

The prover writes derivations over sympy's expression; :func:`finalise` rewrites what the verifier
reads in its own terms — the quality's ``text`` and ``sha256`` (:func:`~expmech.proofs.checker.quality_digest`),
each node's ``text``, the keys of ``data["ranges"]`` — then runs the verifier's rules on every
PROVED claim and records a proof of each side condition they leave (:mod:`._obligations`).  A
claim the verifier would not accept is not issued as PROVED: it becomes UNKNOWN with the reason,
and so does every claim resting on it; ε and ``dp_claim`` follow the privacy claim.  So a
certificate ``certify`` writes is one ``expmech check`` accepts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from expmech.spec.internal import expression_to_json

from ...checker import Reader, derive, read_statement, render
from ...checker._context import TEXT_LENGTH, Rejected
from ._obligations import prove_obligation

__all__ = ["finalise", "settle"]

KINDS = {"sensitivity", "likelihood-ratio", "monotonicity", "normaliser", "privacy", "range-sensitivity", "posterior-range", "zcdp", "truthfulness"}


def _quality(predicate: dict[str, Any]) -> Reader:
    quality = predicate["quality"]
    return Reader({name for name, _ in quality["schema"] + quality["outputs"]}, max_nodes=10**7)


def _retext(node: Any, root: Any, reader: Reader, ranges: Mapping[str, str]) -> None:
    """Each node's text rendered by the verifier; ``data["ranges"]`` keyed by the verifier's text of each total."""
    stack = [node]
    while stack:
        item = stack.pop()
        if not isinstance(item, dict) or "term" not in item:
            continue
        term = root
        for step in item["term"]:
            term = term.args[step]
        args = item.get("args")
        if args is not None:
            parts = tuple(term.args[i] for i in args)
            term = parts[0] if len(parts) == 1 else reader.make("Add", parts)
        item["text"] = render(term, TEXT_LENGTH)
        data = item.get("data")
        if isinstance(data, dict) and isinstance(data.get("ranges"), dict):
            data["ranges"] = {ranges.get(key, key): value for key, value in data["ranges"].items()}
        stack.extend(item.get("premises", []))


def _totals(quality: Any, reader: Reader) -> dict[str, str]:
    """sympy's text of each total of the quality -> the verifier's."""
    from expmech.spec import Total

    expr = getattr(quality, "expr", None)
    if expr is None:
        return {}
    return {str(total): render(reader.read(expression_to_json(total))) for total in expr.atoms(Total)}


def finalise(statement: dict[str, Any], quality: Any, *, rlimit: int) -> dict[str, Any]:
    """``statement`` (as the derivation wrote it, for the sympy ``quality``) in the verifier's format, in place."""
    predicate = statement["predicate"]
    reader = _quality(predicate)
    root = reader.read(predicate["quality"]["expression"])
    ranges = _totals(quality, reader)
    claims = [c for c in predicate["claims"] if c.get("status") == "PROVED" and isinstance(c.get("derivation"), dict)]
    for claim in claims:
        claim["derivation"].pop("obligations", None)
        _retext(claim["derivation"]["root"], root, reader, ranges)
    settle(statement, rlimit=rlimit)
    return statement


def settle(statement: dict[str, Any], *, rlimit: int, demote: str | None = None, why: str = "") -> None:
    """Record the side conditions' proofs of every PROVED claim, demoting those the verifier's rules reject (and the
    claims resting on them); first the claim of id ``demote`` (the verifier rejects it: ``why``).  ε, ``dp_claim``
    and the status follow."""
    predicate = statement["predicate"]
    for claim in predicate["claims"]:
        if claim["id"] == demote and claim.get("status") == "PROVED":
            _demote(claim, f"the verifier rejects it: {why}")
    claims = [c for c in predicate["claims"] if c.get("status") == "PROVED" and isinstance(c.get("derivation"), dict)]
    while _settle(statement, claims, rlimit):
        claims = [c for c in claims if c.get("status") == "PROVED"]
    privacy = next((c for c in predicate["claims"] if c["id"] == "privacy"), None)
    if privacy is None or privacy.get("status") != "PROVED":
        predicate["epsilon"], predicate["dp_claim"] = None, False
    sensitivity = next((c for c in predicate["claims"] if c["id"] == "sensitivity"), None)
    if predicate["status"] == "PROVED" and sensitivity is not None and sensitivity["status"] != "PROVED":
        predicate["status"] = sensitivity["status"]


def _settle(statement: dict[str, Any], claims: list[dict[str, Any]], rlimit: int) -> bool:
    """Record the obligations' proofs of every claim; demote the first claim the verifier would reject (True)."""
    parsed = read_statement(statement, max_nodes=10**7, max_outputs=10**7)
    by_kind = {c["derivation"]["claim"]: c["derivation"] for c in claims}

    def premise(kind: str, node: str) -> Mapping[str, Any]:
        if kind not in by_kind:
            raise Rejected(node, f"the certificate has no PROVED {kind} claim to rest on")
        return by_kind[kind]

    for claim in claims:
        derivation = claim["derivation"]
        try:
            obligations = derive(parsed, derivation, premise)
        except Rejected as rejected:
            _demote(claim, f"the verifier does not accept its derivation: {rejected.reason}")
            return True
        proofs = []
        for obligation in obligations:
            proof = prove_obligation(obligation, rlimit=rlimit)
            if proof is None:
                _demote(claim, f"the side condition '{obligation.what}' is not confirmed")
                return True
            proofs.append(proof)
        derivation["obligations"] = proofs
    return False


def _demote(claim: dict[str, Any], why: str) -> None:
    claim["status"] = "UNKNOWN"
    claim.pop("derivation", None)
    claim["reason"] = f"{claim.get('reason', '')}; not issued as PROVED: {why}".lstrip("; ")
    if claim["id"] == "privacy":
        claim["epsilon"] = None
