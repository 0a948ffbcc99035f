"""Helpers for the verifier's tests: statements written by hand or from a spec quality, the verifier's rules run alone.

Nothing here uses the prover: a test holds the verifier to an exact brute force (:mod:`brute_force`), not to the
code it checks.  :func:`judge` runs the verifier's rules on a derivation the way ``expmech check`` runs them on a
certificate's (premises accepted first, each side condition discharged from a recorded proof), with the best proofs
a certificate could record: the certifier's own, or else each a forger could write without one (Farkas multipliers
that prove nothing, an enumeration, a solver call: :func:`confirm`).  :func:`forging_finalise` writes a certificate the same way, without the certifier's demotion of the
claims the verifier would reject, so a wrong prover's claims reach the verifier.
"""

from __future__ import annotations

import copy
import importlib
import itertools
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from expmech.proofs.checker import CLAIMS, Reader, derive, quality_digest, read_statement, render
from expmech.proofs.checker._context import Rejected
from expmech.proofs.checker._claims import discharge
from expmech.proofs.checker._format import POSTERIOR_WEIGHT, WEIGHT
from expmech.proofs.checker._formula import Obligation
from expmech.proofs.checker._split import finite_values
from expmech.proofs.certificate.make._obligations import prove_obligation

RLIMIT = 1_000_000


def rule_table(kind: str) -> dict[str, Any]:
    """The rules of the claim ``kind`` by name, from its module as :data:`CLAIMS` names it (empty for a kind checked by
    one function without a rule table)."""
    where, rules_name, _, _ = CLAIMS[kind]
    return dict(getattr(importlib.import_module(where, "expmech.proofs.checker"), rules_name)) if rules_name else {}


def rule_kinds() -> dict[str, str]:
    """Every rule of a claim's rule table -> that claim's kind."""
    return {rule: kind for kind in CLAIMS for rule in rule_table(kind)}


def num(q: Fraction | int) -> dict[str, str]:
    """The tree of a rational."""
    q = Fraction(q)
    return {"rational": str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"}


def sym(name: str) -> dict[str, str]:
    """The tree of a symbol."""
    return {"symbol": name}


def node(name: str, *args: Any) -> dict[str, Any]:
    """The tree of a node."""
    return {"node": name, "args": list(args)}


def statement(expression: Any, schema: list[Any], outputs: list[Any], rng: Mapping[str, Any], *, relation: str = "replace-one",
              epsilon0: str = "1", claims: list[dict[str, Any]] | None = None, kind: str = "quality") -> dict[str, Any]:
    """A statement of the verifier's format around ``expression`` (claims: none unless given)."""
    quality = {"kind": kind, "name": "q", "schema": schema, "outputs": outputs, "expression": expression}
    reader = Reader({n for n, _ in schema + outputs})
    quality["text"] = render(reader.read(expression))
    quality["sha256"] = quality_digest(quality)
    return _wrap(quality, rng, relation, epsilon0, claims)


def statement_for(quality: Any, relation: Any = "replace-one", *, epsilon0: Any = 1, outputs: Any = None, base_measure: Any = None) -> dict[str, Any]:
    """The statement of the verifier's format about a spec quality (a QualityFunction or LogLikelihood), written by the
    certifier's own encoders: its whole finite output space (or ``outputs``, a range) with ``base_measure``."""
    from expmech.proofs.certificate.make._build import _range
    from expmech.proofs.certificate.format._inputs import quality_block

    rng = _range(quality, outputs, base_measure).to_json()
    eps = Fraction(epsilon0)
    return _wrap(quality_block(quality), rng, getattr(relation, "value", relation), f"{eps.numerator}" + (f"/{eps.denominator}" if eps.denominator != 1 else ""), None)


def _wrap(quality: dict[str, Any], rng: Mapping[str, Any], relation: str, epsilon0: str, claims: list[dict[str, Any]] | None) -> dict[str, Any]:
    weight = POSTERIOR_WEIGHT if quality["kind"] == "log-likelihood" else WEIGHT
    return {
        "_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": f"quality:{quality['name'] or 'unnamed'}", "digest": {"sha256": quality["sha256"]}}],
        "predicateType": "urn:expmech:dp-certificate:v4",
        "predicate": {"schema_version": "4", "status": "UNKNOWN", "epsilon": None, "dp_claim": False, "quality": quality,
                      "mechanism": {"epsilon0": epsilon0, "neighbours": relation, "range": dict(rng), "weight": weight}, "claims": claims or [],
                      "options": {"rlimit": 5_000_000}},
    }


def root_text(data: dict[str, Any]) -> str:
    """The verifier's text of a statement's whole quality (a root node's ``text``)."""
    quality = data["predicate"]["quality"]
    return render(Reader({n for n, _ in quality["schema"] + quality["outputs"]}).read(quality["expression"]), 200)


def text_at(data: dict[str, Any], path: Iterable[int], args: Iterable[int] | None = None) -> str:
    """The ``text`` of a node about the subterm at ``path`` (``args``: the partial sum of those summands of an Add)."""
    quality = data["predicate"]["quality"]
    reader = Reader({n for n, _ in quality["schema"] + quality["outputs"]})
    term = reader.read(quality["expression"])
    for step in path:
        term = term.args[step]
    if args is not None:
        parts = tuple(term.args[i] for i in args)
        term = parts[0] if len(parts) == 1 else reader.make("Add", parts)
    return render(term, 200)


def accepted(data: dict[str, Any], derivation: dict[str, Any], premises: Mapping[str, Any] | None = None) -> bool:
    """Whether the verifier's rules accept ``derivation`` alone, every side condition proved by the certifier's own search
    and then discharged by the verifier (a side condition the search cannot prove rejects)."""
    parsed = read_statement(data, max_nodes=100_000, max_outputs=100_000)

    def premise(kind: str, at: str) -> Mapping[str, Any]:
        if not premises or kind not in premises:
            raise Rejected(at, f"no {kind} premise")
        return premises[kind]

    try:
        obligations = derive(parsed, derivation, premise)
        proofs = [prove_obligation(o, rlimit=1_000_000) for o in obligations]
        if any(p is None for p in proofs):
            return False
        discharge(obligations, proofs, rlimit=1_000_000, solver_budget=64)
    except Rejected:
        return False
    return True


#: premises already judged: (the statement's inputs, the kind, every premise, forge) -> None (accepted) or the reason
_PREMISES: dict[str, str | None] = {}


@dataclass(frozen=True)
class Verdict:
    """The verifier's rules on one derivation: accepted, or the node (an id or None) and the reason of the rejection."""

    accepted: bool
    node: str | None = None
    reason: str = ""
    obligations: int = 0
    solver: int = 0


#: the forged proofs :func:`confirm` records where the certifier has none: what a forger may write for any side condition
FORGED: tuple[dict[str, Any], ...] = ({"method": "split", "proof": {"farkas": [[0, "1"]]}}, {"method": "split", "proof": {"farkas": [[0, "-1"]]}}, {"method": "enumerate"},
          {"method": "solver"})
FORGED_POINTS = 20_000  # the largest enumeration a forged proof names (the verifier's own limit is larger; this keeps tests fast)


def confirm(obligation: Obligation, *, forge: bool = True) -> int:
    """Discharge ``obligation`` as the verifier does, from the certifier's proof of it or (``forge``, when there is none)
    from each proof a forger could record without one — a Farkas multiplier that proves nothing, an enumeration, a
    solver call; the number of solver calls it took.  Rejected when no recorded proof confirms it."""
    proof = prove_obligation(obligation, rlimit=RLIMIT)
    if proof is not None:
        return discharge([obligation], [proof], rlimit=RLIMIT, solver_budget=1)
    tries: list[dict[str, Any]] = [{"method": "univariate"}] if [v.name for v in obligation.variables] == ["n"] else []
    if forge:
        points = math.prod(len(finite_values(v) or range(FORGED_POINTS + 1)) for v in obligation.variables)
        tries += [entry for entry in FORGED if entry["method"] != "enumerate" or points <= FORGED_POINTS]
    first = None
    for entry in tries:
        try:
            return discharge([obligation], [{"node": obligation.node, **entry}], rlimit=RLIMIT, solver_budget=1)
        except Rejected as rejected:
            first = first or rejected
    raise first or Rejected(obligation.node, f"{obligation.what}: the certifier finds no proof")


def judge(data: dict[str, Any], derivation: Any, premises: Mapping[str, Any] | Iterable[Any] | None = None, *, forge: bool = True) -> Verdict:
    """The verifier's rules on ``derivation`` against the statement ``data``, as ``expmech check`` runs them.

    ``premises`` are the certificate's other derivations (a mapping or a list; each found by its own ``claim``, as the
    verifier finds a certificate's PROVED claims): a rule that rests on one gets it only once it is accepted in turn.
    Every side condition is discharged by the verifier from the best proof a certificate could record (:func:`confirm`)."""
    parsed = read_statement(data, max_nodes=10**6, max_outputs=10**6)
    values = list(premises.values()) if isinstance(premises, Mapping) else list(premises or [])
    by_kind = {d["claim"]: d for d in values if isinstance(d, Mapping) and isinstance(d.get("claim"), str)}
    done: dict[str, Any] = {}
    active: set[str] = set()
    counts = [0, 0]

    def check(d: Any) -> None:
        obligations = derive(parsed, d, premise)
        for obligation in obligations:
            counts[1] += confirm(obligation, forge=forge)
        counts[0] += len(obligations)

    def premise(kind: str, at: str) -> Mapping[str, Any]:
        if kind in done:
            return done[kind]  # type: ignore[no-any-return]
        if kind not in by_kind or kind in active:
            raise Rejected(at, f"the certificate has no PROVED {kind} claim with a derivation to rest on")
        key = json.dumps([data["predicate"]["quality"]["sha256"], data["predicate"]["mechanism"], kind, by_kind, forge], sort_keys=True)
        if key not in _PREMISES:  # a premise is judged once per statement's inputs and set of premises
            active.add(kind)
            try:
                check(by_kind[kind])
                _PREMISES[key] = None
            except Rejected as rejected:
                _PREMISES[key] = rejected.reason
            finally:
                active.discard(kind)
        if _PREMISES[key] is not None:
            raise Rejected(at, f"its premise, the {kind} claim, is not accepted: {str(_PREMISES[key])[:200]}")
        done[kind] = by_kind[kind]
        return done[kind]  # type: ignore[no-any-return]

    try:
        check(derivation)
    except Rejected as rejected:
        return Verdict(False, rejected.node, rejected.reason)
    return Verdict(True, None, "", counts[0], counts[1])


def in_verifier_terms(derivation: dict[str, Any], data: dict[str, Any], quality: Any) -> dict[str, Any]:
    """A copy of a prover's derivation about the spec quality ``quality`` with its texts (and the keys of
    ``data["ranges"]``) in the verifier's rendering, as the certifier writes them into a certificate."""
    from expmech.proofs.certificate.make._finalise import _quality, _retext, _totals

    predicate = data["predicate"]
    reader = _quality(predicate)
    root = reader.read(predicate["quality"]["expression"])
    found = copy.deepcopy(derivation)
    _retext(found["root"], root, reader, _totals(quality, reader))
    return found


def forging_finalise(statement: dict[str, Any], quality: Any, *, rlimit: int) -> dict[str, Any]:
    """The certifier's last step without its safety net: texts in the verifier's terms, and for every side condition
    of every PROVED claim the certifier's proof of it or else the best a forger could record, but no claim demoted — what a wrong
    prover would issue without the certifier's own run of the verifier's rules (a drop-in for ``_derive.finalise``)."""
    from expmech.proofs.certificate.make._finalise import _quality, _retext, _totals

    predicate = statement["predicate"]
    reader = _quality(predicate)
    root = reader.read(predicate["quality"]["expression"])
    ranges = _totals(quality, reader)
    claims = [c for c in predicate["claims"] if c.get("status") == "PROVED" and isinstance(c.get("derivation"), dict)]
    for claim in claims:
        _retext(claim["derivation"]["root"], root, reader, ranges)
    parsed = read_statement(statement, max_nodes=10**7, max_outputs=10**7)
    by_kind = {c["derivation"]["claim"]: c["derivation"] for c in claims}

    def premise(kind: str, at: str) -> Mapping[str, Any]:
        if kind not in by_kind:
            raise Rejected(at, f"no PROVED {kind} claim")
        return by_kind[kind]

    for claim in claims:
        try:
            obligations = derive(parsed, claim["derivation"], premise)
        except Rejected:
            obligations = []
        claim["derivation"]["obligations"] = [_best_proof(o, rlimit) for o in obligations]
    return statement


def _best_proof(obligation: Obligation, rlimit: int) -> dict[str, Any]:
    """The certifier's proof of ``obligation``, else the first forged one the verifier would take, else a solver call."""
    found = prove_obligation(obligation, rlimit=rlimit)
    if found is not None:
        return found
    for entry in FORGED:
        try:
            discharge([obligation], [{"node": obligation.node, **entry}], rlimit=rlimit, solver_budget=1)
            return {"node": obligation.node, **entry}
        except Rejected:
            continue
    return {"node": obligation.node, "method": "solver"}


def datasets(values: Iterable[Any], largest: int) -> Iterable[tuple[Any, ...]]:
    """Every multiset of at most ``largest`` of ``values`` (as sorted tuples)."""
    values = list(values)
    for size in range(largest + 1):
        yield from itertools.combinations_with_replacement(values, size)


def neighbours(values: Iterable[Any], largest: int, replace: bool) -> Iterable[tuple[tuple[Any, ...], tuple[Any, ...]]]:
    """Every neighbouring pair of datasets of at most ``largest`` records (replace-one or add-remove)."""
    values = list(values)
    for first in datasets(values, largest):
        if replace:
            for i, v in enumerate(first):
                for w in values:
                    yield first, first[:i] + (w,) + first[i + 1 :]
        elif len(first) < largest:
            for w in values:
                yield first, first + (w,)


def evaluate_on(q: Callable[[tuple[Any, ...], Any], Fraction | None], data: tuple[Any, ...], output: Any) -> Fraction | None:
    """``q(data, output)``, None where it is undefined (a division by zero)."""
    try:
        return q(data, output)
    except ZeroDivisionError:
        return None
