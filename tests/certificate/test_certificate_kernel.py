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
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, claim, resealed
from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.certificate import SCHEMA_VERSION, DerivationCache
from expmech.proofs.certificate._build import seal
from expmech.proofs.cli._main import main
from strategies import language_quality_functions

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


# -- the catalogue: derivations the kernel accepts -------------------------------------------------------


def _kinds() -> frozenset[str]:
    from expmech.proofs.certificate._kernel_check import kernel_kinds

    return kernel_kinds()


@pytest.mark.parametrize("name", NAMES)
def test_every_catalogue_certificate_carries_derivations_the_kernel_accepts(name):
    """Each PROVED claim of a kind with kernel rules carries a derivation; `check` runs the kernel on each, every
    verdict is an acceptance, and the certificate still checks as before."""
    from expmech.proofs.certificate._kernel_check import derivation_kind

    certificate = catalogue_certificate(name)
    predicate = certificate.statement["predicate"]
    posterior = predicate["quality"].get("kind") == "log-likelihood"
    expected = [c["id"] for c in predicate["claims"] if c["status"] == "PROVED" and derivation_kind(c, posterior=posterior) in _kinds()]
    for claim_id in expected:
        assert "derivation" in claim(certificate.statement, claim_id), claim_id
    report = check_certificate(certificate.data, cache=CACHE)
    assert report.ok, report.problems
    assert [row["claim"] for row in report.kernel] == expected
    assert all(row["accepted"] and row["nodes"] >= 1 for row in report.kernel), report.kernel
    for claim_id in expected:
        assert (f"claim {claim_id}: kernel", True) in [(name, passed) for name, passed, _ in report.checks]


def test_the_catalogue_has_proved_claims_the_kernel_checks():
    """Not vacuous: the sensitivity claims of the catalogue are kernel-checked."""
    assert "sensitivity" in _kinds()
    assert claim(catalogue_certificate("median").statement, "sensitivity")["status"] == "PROVED"
    assert "derivation" in claim(catalogue_certificate("median").statement, "sensitivity")


def test_check_reports_the_kernel_in_text_and_json(tmp_path, capsys):
    """`expmech check` prints a kernel line per checked claim; `--format json` carries the verdicts and every check."""
    path = tmp_path / "median.cert.json"
    path.write_text(catalogue_certificate("median").to_json(), encoding="utf-8")
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "kernel: claim sensitivity: accepted" in out
    assert main(["check", "--format", "json", str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    (entry,) = document["certificates"]
    assert entry["outcome"] == "CERTIFIES_DP" and entry["exit_code"] == 0
    assert entry["kernel"] and entry["kernel"][0]["claim"] == "sensitivity" and entry["kernel"][0]["accepted"] is True
    assert any(item["name"] == "claim sensitivity: kernel" and item["passed"] for item in entry["checks"])


# -- mutants of derivations ----------------------------------------------------------------------------------


def _rules() -> dict[str, str]:
    from expmech.proofs.certificate._kernel_check import _rule_kind
    from expmech.proofs.kernel import RULES

    return {name: _rule_kind(info) for name, info in RULES.items()}


def _sensitivity_derivation(name: str) -> dict[str, Any]:
    return copy.deepcopy(claim(catalogue_certificate(name).statement, "sensitivity")["derivation"])


#: Certificates whose sensitivity derivations are mutated in the default suite: one per relation and shape of bound
#: (``-m slow``: every catalogue certificate with a derivation).
MUTATED = ["median", "mode-add-remove", "clamped-sum-threshold", "synthetic-data"]


def _subterm(quality: Any, node: dict[str, Any]) -> Any:
    term = quality.expr
    for index in node["term"]:
        term = term.args[index]
    return term


def _find_node(derivation: dict[str, Any], node_id: str) -> dict[str, Any]:
    from derivation_mutants import nodes

    return next(node for _, node in nodes(derivation["root"]) if node["id"] == node_id)


def _equivalent(label: str, original: dict[str, Any], quality: Any) -> bool:
    """An accepted mutant that is a valid proof of the same claim: a root made larger (a true, weaker bound, which
    `check` refuses as not the claim: see the next test), or a change of the mean spread ``S`` of a linear node whose
    subterm has no mean part (``D + S/n`` with no mean: S multiplies nothing)."""
    from derivation_mutants import operator

    if operator(label) == "root-larger":
        return True
    if operator(label) == "data-changed" and label.endswith(".mean"):
        from expmech.proofs.kernel._linear import linear_form

        node = _find_node(original, label.split(" ")[1].rsplit(".", 1)[0])
        form = linear_form(_subterm(quality, node)) if node["rule"] == "linear" and "args" not in node else None
        return form is not None and not form.normalised
    return False


def _mutants_rejected(name: str) -> tuple[int, list[str], set[str], int]:
    from derivation_mutants import derivation_mutants, operator
    from expmech.proofs.certificate._inputs import inputs_from_json
    from expmech.proofs.kernel import check_derivation

    certificate = catalogue_certificate(name)
    inputs = inputs_from_json(certificate.statement["predicate"])
    original = _sensitivity_derivation(name)
    assert check_derivation(inputs.quality, inputs.neighbours, original).accepted
    count, accepted, operators, equivalent = 0, [], set(), 0
    for label, mutant in derivation_mutants(original, _rules()):
        verdict = check_derivation(inputs.quality, inputs.neighbours, mutant)
        count += 1
        operators.add(operator(label))
        if verdict.accepted and not _equivalent(label, original, inputs.quality):
            accepted.append(label)
        elif verdict.accepted:
            equivalent += 1
        else:
            assert verdict.reason, label
    return count, accepted, operators, equivalent


@pytest.mark.parametrize("name", MUTATED)
def test_the_kernel_rejects_every_mutant_of_a_catalogue_derivation(name):
    """Generated wrong proofs (every node: bound, rule, term, text, case, data, premises dropped and duplicated; the
    root, start, relation, claim kind) are each rejected by the kernel, with a reason; only the equivalent mutants
    of `_equivalent` (valid proofs of the same claim) may be accepted."""
    count, accepted, operators, _ = _mutants_rejected(name)
    assert not accepted, f"{name}: the kernel accepts the wrong proofs {accepted}"
    assert count >= 15
    assert {"bound", "rule", "rule-unknown", "term-down", "text", "case", "root-smaller", "start", "relation", "claim"} <= operators


@pytest.mark.slow
def test_the_kernel_rejects_every_mutant_of_every_catalogue_derivation():
    """Slow: the same over every catalogue certificate whose sensitivity carries a derivation."""
    names = [n for n in NAMES if "derivation" in claim(catalogue_certificate(n).statement, "sensitivity")]
    assert len(names) >= 15
    total = equivalents = 0
    for name in names:
        count, accepted, _, equivalent = _mutants_rejected(name)
        total, equivalents = total + count, equivalents + equivalent
        assert not accepted, f"{name}: the kernel accepts the wrong proofs {accepted}"
    print(f"{total} derivation mutants over {len(names)} certificates: {total - equivalents} rejected, {equivalents} equivalent, 0 survived")


def _certify_with(name: str, mutate: Any, monkeypatch: Any) -> Any:
    """A certificate of catalogue entry ``name`` whose prover wrote ``mutate(derivation)`` for its sensitivity: what a
    prover bug produces.  ``check`` re-derives with the same prover, so the comparison passes; only the kernel can catch it."""
    from expmech.impl import catalogue_entry
    from expmech.proofs import certify
    from expmech.proofs.certificate import _claim_derivation

    honest = _claim_derivation.derivation_json

    def wrong(result: Any) -> Any:
        data = honest(result)
        return mutate(data) if data is not None and data.get("claim") == "sensitivity" else data

    monkeypatch.setattr(_claim_derivation, "derivation_json", wrong)
    entry = catalogue_entry(name)
    extra = {"base_measure": entry.base_measure} if entry.base_measure is not None else {}
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **extra)


def _replaced(mutant: dict[str, Any]) -> Any:
    return lambda data: copy.deepcopy(mutant)


@pytest.mark.parametrize("operator_name", ["bound", "rule", "term-next", "case", "data-changed", "premise-dropped", "premise-duplicated", "root-larger"])
def test_check_rejects_a_wrong_derivation_the_prover_wrote(operator_name, monkeypatch):
    """A prover that writes a wrong derivation (one mutant per operator, on `median`): the re-derivation agrees with
    the certificate, the small-model check passes, and the kernel alone rejects it — exit 1, naming the claim, and the
    node, rule and reason (or, for a root larger than the claim, that the root is not the claim)."""
    from derivation_mutants import derivation_mutants, operator

    original = _sensitivity_derivation("median")
    from expmech.impl import catalogue_entry

    quality = catalogue_entry("median").quality
    candidates = [
        (label, mutant)
        for label, mutant in derivation_mutants(original, _rules())
        if operator(label) == operator_name and (operator_name == "root-larger" or not _equivalent(label, original, quality))
    ]
    if not candidates:
        pytest.skip(f"the median derivation has no node {operator_name} applies to")
    label, mutant = candidates[len(candidates) // 2]
    certificate = _certify_with("median", _replaced(mutant), monkeypatch)
    assert claim(certificate.statement, "sensitivity")["derivation"] == mutant
    report = check_certificate(certificate.data)
    assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1, (label, report.summary)
    assert report.failed == "claim sensitivity: kernel", (label, report.problems)
    problem = report.problems[0]
    if operator_name == "root-larger":
        assert "root ≠ claim" in problem
    else:
        assert "kernel rejects the derivation at node" in problem and "not PROVED" in problem, problem
        row = report.kernel[-1]
        assert row["accepted"] is False and row["node"] is not None and f"node {row['node']}" in problem
        if row["rule"]:
            assert f"rule {row['rule']}" in problem


def test_check_rejects_a_proved_claim_without_its_derivation(monkeypatch):
    """A prover that stops writing derivations: every PROVED sensitivity is then not PROVED (exit 1), by name."""
    certificate = _certify_with("median", lambda data: None, monkeypatch)
    assert "derivation" not in claim(certificate.statement, "sensitivity")
    report = check_certificate(certificate.data)
    assert report.exit_code == 1 and report.failed == "claim sensitivity: kernel"
    assert "PROVED without a derivation" in report.problems[0]


def _data_free(node: dict[str, Any]) -> bool:
    """Whether a node's subterm holds no aggregate: then it does not move, and any rule that concludes 0 proves it."""
    return not any(name in node["text"] for name in ("Count(", "Total(", "Mean(", "Size("))


#: Mutants that are wrong proofs whatever the quality (a rule swapped on a subterm with data): the kernel must reject
#: each on any derivation.
STRUCTURAL = ("rule", "rule-unknown", "text", "term-next", "term-up", "term-down", "premise-dropped", "premise-duplicated", "relation", "claim", "bound-not-root")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(language_quality_functions(max_depth=3), st.sampled_from(["replace-one", "add-remove"]), st.randoms(use_true_random=False))
def test_the_kernel_rejects_wrong_proofs_of_generated_qualities(quality, relation, random):
    """Generated qualities: the derivation of each PROVED sensitivity is accepted; a sample of its structural mutants
    (every operator of STRUCTURAL, a few nodes each) is rejected; and where the bound is tight (a witness attains it),
    a root made smaller — a false claim — is rejected too."""
    from derivation_mutants import derivation_mutants, operator
    from expmech.proofs import Status, prove_sensitivity
    from expmech.proofs.kernel import check_derivation
    from expmech.spec import DATASET_SIZE, QualityError

    try:
        result = prove_sensitivity(quality, neighbours=relation, search_budget=2000)
    except QualityError:  # q undefined somewhere (1/r at r = 0): not a quality function, no claim
        assume(False)
    assume(result.status is Status.PROVED and result.derivation is not None)
    derivation = result.derivation
    assert check_derivation(quality, relation, derivation).accepted
    mutants = [
        (label, mutant)
        for label, mutant in derivation_mutants(derivation, _rules())
        if operator(label) in STRUCTURAL and not (operator(label) == "rule" and _data_free(_find_node(derivation, label.split(" ")[1])))
    ]
    if result.tight and result.claimed is None and any(result.bound.subs(DATASET_SIZE, k).is_zero is False for k in result.tight_at):
        # halving a bound attained at some n where it is not 0 is a false claim (half of a bound 0 is still true)
        mutants += [(label, mutant) for label, mutant in derivation_mutants(derivation, _rules()) if operator(label) == "root-smaller"]
    for label, mutant in random.sample(mutants, min(len(mutants), 25)):
        verdict = check_derivation(quality, relation, mutant)
        assert not verdict.accepted, f"the kernel accepts the wrong proof {label} of {quality.expr} ({relation})"
