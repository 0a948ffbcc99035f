"""Derivations of the claims a certificate concludes from its other claims: ``privacy``, ``zcdp``, a posterior's
``bounded-range`` (and ``truthfulness``), and what ``check`` binds in them to the certificate's inputs.

Each is one root node (term ``[]``) whose rule names the claims it rests on; the
verifier reads the premises' bounds from those claims' own derivations, which it
accepts itself (:mod:`expmech.proofs.checker`'s ``_privacy``).  What the
verifier cannot see — ε₀, and the outputs of positive base measure a posterior's
ln R is taken over — is in the node's ``data`` and bound here by
:func:`binding_problem` to the certificate's inputs.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from expmech.spec import LogLikelihood, Neighbours, rational_text
from expmech.spec.internal import expression_to_json

from ...prover._text import term_text
from ..format._inputs import CertificateInputs, FiniteRange

__all__ = ["CONCLUSIONS", "attach_conclusion", "attach_privacy", "attach_truthfulness", "attach_zcdp", "binding_problem", "positive_outputs"]

#: the claim kinds whose derivation is a conclusion from the certificate's other claims
CONCLUSIONS = frozenset({"privacy", "zcdp", "posterior-range", "truthfulness"})


def attach_conclusion(
    claim: dict[str, Any], kind: str, rule: str, *, quality: Any, relation: Neighbours, start: int, bound: Any, data: dict[str, str]
) -> dict[str, Any]:
    """``claim`` with its ``derivation`` (in place; returned): the root node (term [] of ``quality``) of ``rule``
    concluding ``bound`` (an expression tree) from the certificate's other claims, ``data`` its exact values as strings."""
    root = {"id": kind, "term": [], "text": term_text(quality.expr), "case": {"from": start}, "rule": rule, "bound": bound, "data": data, "premises": []}
    claim["derivation"] = {"format": 1, "claim": kind, "relation": relation.value, "start": start, "bound": bound, "root": root}
    return claim


def attach_privacy(privacy: dict[str, Any], claims: list[dict[str, Any]], inputs: CertificateInputs, epsilon: Any) -> None:
    """Attach the ``privacy`` claim's derivation (ε, a sympy expression, from the claims before it) when the
    claims it rests on carry theirs: the normaliser's, the monotonicity's or the sensitivity's rule, as ε was derived."""
    held: dict[str, Any] = {claim["id"]: claim.get("derivation") for claim in claims}
    rule = "privacy-normaliser" if privacy.get("normaliser_invariant") else "privacy-monotone" if privacy["monotone"] else "privacy-double"
    premise = {"privacy-normaliser": "normaliser", "privacy-monotone": "monotonicity"}.get(rule, "sensitivity")
    if isinstance(inputs.quality, LogLikelihood):
        rule = premise = "privacy-ratio"
    if held.get("sensitivity") and (held.get(premise) or premise == "privacy-ratio"):
        attach_conclusion(privacy, "privacy", rule, quality=inputs.quality, relation=inputs.neighbours, start=held["sensitivity"]["start"], bound=expression_to_json(epsilon),
                          data={"epsilon0": rational_text(inputs.epsilon0)})


def attach_truthfulness(truthful: dict[str, Any], claims: list[dict[str, Any]], inputs: CertificateInputs) -> None:
    """Attach a PROVED ``truthfulness`` claim's derivation (rule ``truthful-posted-price``, bound U) when the
    privacy claim it rests on carries one."""
    privacy = next((claim.get("derivation") for claim in claims if claim["id"] == "privacy"), None)
    if truthful["status"] == "PROVED" and privacy:
        attach_conclusion(truthful, "truthfulness", "truthful-posted-price", quality=inputs.quality, relation=inputs.neighbours, start=privacy["start"],
                          bound={"rational": truthful["utility_bound"]}, data={})


def attach_zcdp(claims: list[dict[str, Any]], inputs: CertificateInputs) -> list[dict[str, Any]]:
    """``[bounded-range, zcdp]`` with the zcdp claim's derivation (rule ``zcdp-range``) when it is PROVED and the
    bounded-range claim carries one."""
    bounded, zcdp = claims
    if zcdp["status"] == "PROVED" and bounded.get("derivation"):
        attach_conclusion(zcdp, "zcdp", "zcdp-range", quality=inputs.quality, relation=inputs.neighbours, start=bounded["derivation"]["start"], bound={"rational": zcdp["rho"]},
                          data={"epsilon0": rational_text(inputs.epsilon0)})
    return claims


def positive_outputs(quality: LogLikelihood, outputs: Sequence[Any], measure: Sequence[Fraction]) -> str:
    """The JSON text of the codes of the outputs of positive base measure (θ over which a posterior's ln R is taken)."""
    symbols = [sym for _, sym, _ in quality.output_space.items()]
    codes = [quality.output_space.encode(o) for o, m in zip(outputs, measure) if m > 0]
    return json.dumps([[rational_text(Fraction(code[s])) for s in symbols] for code in codes])


def binding_problem(kind: str, inputs: CertificateInputs, data: dict[str, Any]) -> str | None:
    """Why the node data of a conclusion's derivation does not match the certificate's inputs (None when it does):
    ε₀ must be the mechanism's; a posterior's enumerated θ must be exactly its outputs of positive μ."""
    root = data.get("root")
    node = root.get("data") if isinstance(root, dict) else None
    if not isinstance(root, dict) or not isinstance(node, dict):
        return "the derivation's root has no data"
    if kind in ("privacy", "zcdp") and node.get("epsilon0") != rational_text(inputs.epsilon0):
        return f"the derivation's ε₀ {str(node.get('epsilon0'))[:40]} is not the mechanism's {rational_text(inputs.epsilon0)}"
    if kind == "posterior-range" and root.get("rule") == "range-enumerate":
        quality, outputs = inputs.quality, inputs.range
        if not isinstance(quality, LogLikelihood) or not isinstance(outputs, FiniteRange):
            return "an enumerated range needs a posterior over a finite list of outputs"
        if node.get("outputs") != positive_outputs(quality, outputs.outputs, outputs.base_measure):
            return "the derivation's θ are not the certificate's outputs of positive base measure"
    return None
