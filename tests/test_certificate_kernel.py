"""Certificates carry derivations, and ``check`` runs the proof kernel on them (issue 23).

* format 3: a certificate of format 2 is refused at the gate with the remedy (re-certify);
* the certificate limits apply to derivations (depth, nodes, the expressions of their bounds);
* every catalogue certificate carries a derivation on each PROVED claim the kernel has rules for, the kernel
  accepts it, and ``check`` reports the kernel's verdicts;
* generated mutations of derivation nodes (bound, rule, term, case, data, premises dropped or duplicated, root not
  the claim) are each rejected — by the kernel itself when the prover wrote them (``check`` re-derives the same
  wrong derivation, so only the kernel stands between it and a PROVED), and by ``check`` when they are edits of an
  honest certificate.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from certificate_tools import catalogue_certificate, claim, resealed
from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.certificate import SCHEMA_VERSION, DerivationCache
from expmech.proofs.certificate._build import seal
from expmech.proofs.cli._main import main

NAMES = [entry.name for entry in CATALOGUE + WRONG_CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE]
CACHE = DerivationCache()


# -- format 3, and format 2 refused ----------------------------------------------------------------


def _as_version_2(statement: dict[str, Any], *, version: bool = True, kind: bool = True) -> None:
    if version:
        statement["predicate"]["schema_version"] = "2"
    if kind:
        statement["predicateType"] = "urn:expmech:dp-certificate:v2"
    for item in statement["predicate"]["claims"]:
        item.pop("derivation", None)


def test_certificates_are_written_in_format_3():
    """The statement says format 3 in both places a reader looks: schema_version and predicateType."""
    statement = catalogue_certificate("median").statement
    assert SCHEMA_VERSION == "3" and statement["predicate"]["schema_version"] == "3"
    assert statement["predicateType"] == "urn:expmech:dp-certificate:v3"


@pytest.mark.parametrize("version, kind", [(True, True), (True, False), (False, True)])
def test_a_format_2_certificate_is_refused_with_the_remedy(version, kind):
    """A certificate of format 2 (no derivations) is INVALID at the gate, before the schema, and the message says to
    re-certify; the same whichever of its two version marks says 2."""
    data = resealed(catalogue_certificate("median").data, lambda s: _as_version_2(s, version=version, kind=kind))
    report = check_certificate(data)
    assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1
    assert report.failed == "schema version"
    assert "format 2" in report.problems[0] and "Re-certify" in report.problems[0], report.problems
    assert not any(name == "schema" for name, _, _ in report.checks)


def test_the_command_refuses_a_format_2_certificate_saying_to_recertify(tmp_path, capsys):
    """`expmech check` on a format-2 file: exit 1, and the line says what to do."""
    path = tmp_path / "old.cert.json"
    path.write_text(json.dumps(resealed(catalogue_certificate("median").data, _as_version_2)), encoding="utf-8")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "INVALID" in out and "Re-certify" in out and "expmech certify" in out


# -- limits ------------------------------------------------------------------------------------------


def _node(node_id: str, premises: list[dict[str, Any]], bound: Any = None) -> dict[str, Any]:
    return {
        "id": node_id, "term": [], "text": "q", "case": {"from": 0}, "rule": "weaken", "bound": bound or {"rational": "1"},
        "data": {}, "premises": premises, "evidence": [],
    }


def _with_derivation(root: dict[str, Any], bound: Any = None) -> dict[str, Any]:
    def edit(statement: dict[str, Any]) -> None:
        claim(statement, "sensitivity")["derivation"] = {
            "format": 1, "claim": "sensitivity", "relation": "replace-one", "start": 1, "bound": bound or {"rational": "1"}, "root": root,
        }

    return resealed(catalogue_certificate("median").data, edit)


def _chain(depth: int) -> dict[str, Any]:
    node = _node(str(depth), [])
    for index in range(depth - 1, 0, -1):
        node = _node(str(index), [node])
    return node


@pytest.mark.parametrize(
    "source, limit",
    [
        (lambda: _with_derivation(_chain(70)), "max_expression_depth"),
        (lambda: _with_derivation(_node("0", [_node(str(i), []) for i in range(4001)])), "max_expression_nodes"),
        (lambda: _with_derivation(_node("0", [], {"node": "Pow", "args": [{"symbol": "n"}, {"rational": str(10**14)}]})), "max_exponent"),
        (lambda: _with_derivation(_node("0", []), {"node": "Pow", "args": [{"symbol": "n"}, {"rational": "65"}]}), "max_exponent"),
        (lambda: _with_derivation(_node("0", [], {"rational": "1/" + "9" * 101})), "max_digits"),
    ],
    ids=["70 deep", "4002 nodes", "a node's bound n**(10**14)", "the derivation's bound n**65", "101 digits"],
)
def test_the_certificate_limits_apply_to_derivations(source, limit):
    """A derivation over a limit is refused before the schema and the kernel (exit 2), naming the limit."""
    report = check_certificate(source())
    assert report.outcome is CheckOutcome.REFUSED and report.exit_code == 2, report.problems
    assert limit in report.problems[0]


def test_a_derivation_is_a_closed_object_of_the_schema():
    """An unknown key in a derivation node, or a node missing its rule, fails the schema (exit 1), naming the claim."""
    for edit in (lambda node: node.__setitem__("smt2", "(check-sat)"), lambda node: node.pop("rule")):
        root = _node("0", [])
        edit(root)
        report = check_certificate(_with_derivation(root))
        assert report.failed == "schema" and report.exit_code == 1, report.problems
        assert "claim sensitivity" in report.problems[0]
