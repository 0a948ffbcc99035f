"""Certificates: round trip certify → check, the format, canonical JSON, no claim without a proof."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, claim, resealed
from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE, catalogue_entry
from expmech.proofs import CheckOutcome, Status, certify, check_certificate
from expmech.proofs.certificate import PREDICATE_TYPE, certificate_schema
from expmech.proofs.certificate.format._canonical import canonical_bytes, reduced_canonical_bytes, sha256_hex
from expmech.spec import InvalidArgument, InvalidType


@pytest.fixture(scope="module")
def median_certificate():
    return catalogue_certificate("median")


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda e: e.name)
def test_round_trip_certify_then_check(entry, tmp_path):
    """Each correct entry's certificate is written, read back and decided by the verifier (exit 0), then reproduced:
    re-derived and its queries re-run on z3 and cvc5."""
    certificate = catalogue_certificate(entry.name)
    assert certificate.status is Status.PROVED and certificate.epsilon is not None
    path = certificate.write(tmp_path / "c.json")
    report = check_certificate(path)
    assert report.ok and report.outcome is CheckOutcome.CERTIFIES_DP and report.exit_code == 0, report.problems
    assert report.epsilon == certificate.epsilon
    names = [name for name, _, _ in report.checks]
    assert names[:2] == ["digest", "inputs"] and "claim sensitivity" in names and "claim privacy" in names
    reproduced = check_certificate(path, reproduce=True)
    assert reproduced.outcome is CheckOutcome.CERTIFIES_DP and any(name.endswith(": cvc5") for name, _, _ in reproduced.checks)  # the second solver ran


@pytest.mark.parametrize("entry", WRONG_CATALOGUE, ids=lambda e: e.name)
def test_wrong_entries_get_no_claim(entry):
    """A refuted claim yields a REFUTED certificate with no ε, which itself checks out — as certifying nothing (exit 3)."""
    certificate = catalogue_certificate(entry.name)
    predicate = certificate.statement["predicate"]
    assert certificate.status is Status.REFUTED and predicate["epsilon"] is None and predicate["dp_claim"] is False
    report = check_certificate(certificate.data)
    assert report.ok and report.outcome is CheckOutcome.NO_DP_CLAIM and report.exit_code == 3
    assert claim(certificate.statement, "sensitivity")["counterexample"] is not None


def test_epsilon_is_derived_from_the_theorem(median_certificate):
    """ε = 2·ε₀·Δq (median: 2 · 1/2 · 1 = 1); the monotone mode under add-remove gets ε₀·Δq."""
    assert median_certificate.epsilon == "1"
    assert catalogue_certificate("mode-add-remove").epsilon == "1/2"
    assert catalogue_certificate("predicate-query").epsilon == "1/n"


def test_the_certificate_records_its_inputs(median_certificate):
    """Inputs: the range with its base measure, ε₀, the claim as a tree, and the prover's budget."""
    predicate = median_certificate.statement["predicate"]
    assert median_certificate.statement["predicateType"] == PREDICATE_TYPE
    assert predicate["mechanism"]["range"]["kind"] == "finite" and len(predicate["mechanism"]["range"]["outputs"]) == 16
    assert predicate["options"]["claimed"] == {"rational": "1"} and predicate["options"]["rlimit"] >= 1
    assert predicate["options"]["pairs"] == 20 and len(claim(median_certificate.statement, "conformance")["checks"]) == 20
    for query in claim(median_certificate.statement, "sensitivity")["evidence"]["queries"]:
        assert query["rlimit_used"] > 0 and query["smt2"].startswith("(set-logic ")


def test_a_tampered_byte_breaks_the_digest(median_certificate):
    """Changing one character of the statement without resealing is caught by the digest, and nothing else runs."""
    data = json.loads(json.dumps(median_certificate.data))
    data["certificate"]["predicate"]["mechanism"]["epsilon0"] = "1/3"
    report = check_certificate(data)
    assert not report.ok and report.failed == "digest" and report.exit_code == 1


@pytest.mark.parametrize(
    "mutate, failed",
    [
        (lambda s: claim(s, "sensitivity")["witness"].__setitem__("difference", "2"), "claim sensitivity"),
        (lambda s: claim(s, "sensitivity")["witness"]["dataset2"].__setitem__(0, 5), "claim sensitivity"),
        (lambda s: claim(s, "sensitivity")["evidence"]["queries"][0].__setitem__("result", "unknown"), "claim sensitivity"),
        (lambda s: s["predicate"]["quality"]["expression"]["args"][0].__setitem__("rational", "-2"), "inputs"),
        (lambda s: s["subject"][0]["digest"].__setitem__("sha256", "0" * 64), "inputs"),
        (lambda s: s["predicate"]["options"].__setitem__("claimed", {"rational": "1/2"}), "claim sensitivity"),
        (lambda s: s["predicate"]["mechanism"].__setitem__("epsilon0", "1/4"), "claim privacy"),
        (lambda s: s["predicate"]["mechanism"]["range"]["outputs"].__setitem__(0, 16), "inputs"),
        (lambda s: claim(s, "privacy").__setitem__("monotone", True), "claim privacy"),
        (lambda s: s["predicate"].__setitem__("status", "PROBABLY"), "inputs"),
    ],
    ids=["witness-difference", "witness-data", "query-result", "expression", "subject", "claimed", "epsilon0", "output", "monotone", "status"],
)
def test_every_tamper_is_caught(median_certificate, mutate, failed):
    """Resealed tampering of witnesses, inputs, claims or their evidence fails at the named check."""
    report = check_certificate(resealed(median_certificate.data, mutate))
    assert not report.ok and report.outcome is CheckOutcome.INVALID
    assert report.failed == failed, report.problems


@pytest.mark.parametrize(
    "mutate",
    [
        lambda s: claim(s, "sensitivity")["evidence"]["queries"][0].__setitem__("rlimit_used", 1),
        lambda s: s["predicate"]["claims"].reverse(),
        lambda s: s["predicate"]["claims"].pop(3),
        lambda s: s["predicate"]["tools"].__setitem__("z3", "0.0"),
    ],
    ids=["rlimit-used", "claim-order", "claim-missing", "tools"],
)
def test_provenance_and_order_are_reproduced_not_verified(median_certificate, mutate):
    """Edits that leave every claim true (provenance, the order of the claims, a non-proof claim dropped) are accepted by
    the verifier, and reported by ``--reproduce``, which re-derives the statement member by member."""
    data = resealed(median_certificate.data, mutate)
    assert check_certificate(data).outcome is CheckOutcome.CERTIFIES_DP
    reproduced = check_certificate(data, reproduce=True)
    assert not reproduced.ok or any("z3" in note for note in reproduced.notes), reproduced.checks


def test_a_claim_without_proof_is_refused(median_certificate):
    """A certificate claiming ε-DP on an UNKNOWN sensitivity fails: its privacy claim has no accepted premise."""
    report = check_certificate(resealed(median_certificate.data, lambda s: claim(s, "sensitivity").__setitem__("status", "UNKNOWN")))
    assert report.failed == "claim privacy" and "no PROVED sensitivity claim" in report.problems[0], report.problems


def test_schema_is_closed_and_published(median_certificate):
    """The schema is draft 2020-12, every object closed; honest certificates validate."""
    import jsonschema

    schema = certificate_schema()
    assert schema["$schema"].endswith("2020-12/schema")
    jsonschema.validate(median_certificate.data, schema)
    bad = json.loads(json.dumps(median_certificate.data))
    bad["certificate"]["predicate"]["mechanism"]["range"]["kind"] = "interval"
    assert not jsonschema.Draft202012Validator(schema).is_valid(bad)


def test_unknown_range_kinds_are_refused(median_certificate):
    """The range is dispatched on its kind: a kind the checker does not know is an error."""
    report = check_certificate(resealed(median_certificate.data, lambda s: s["predicate"]["mechanism"]["range"].__setitem__("kind", "interval")))
    assert report.outcome is CheckOutcome.INVALID and report.failed == "inputs"


@pytest.mark.parametrize("name", [e.name for e in CATALOGUE + WRONG_CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE])
def test_both_canonicalisers_agree_on_every_certificate(name):
    """rfc8785's canonical bytes equal the project's reduced canonicaliser on every certificate written."""
    statement = catalogue_certificate(name).statement
    assert canonical_bytes(statement) == reduced_canonical_bytes(statement)
    assert sha256_hex(statement) == catalogue_certificate(name).digest


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=25,
)


@given(_json)
def test_both_canonicalisers_agree_on_json(value):
    """rfc8785 and the reduced canonicaliser agree on any JSON certificates may hold (unicode keys and strings included)."""
    try:
        expected = reduced_canonical_bytes(value)
    except (InvalidArgument, UnicodeEncodeError):
        with pytest.raises(InvalidArgument):
            canonical_bytes(value)
        return
    assert canonical_bytes(value) == expected


def test_canonical_json_refuses_inexact_values():
    """Floats and integers beyond 2**53 are refused by both canonicalisers."""
    assert canonical_bytes({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()
    for function in (canonical_bytes, reduced_canonical_bytes):
        with pytest.raises(InvalidArgument, match="float"):
            function({"x": 0.5})
        with pytest.raises(InvalidArgument, match="too large"):
            function({"x": 2**60})


def test_solver_budget_exhaustion_yields_no_claim():
    """With rlimit=1 the certificate makes no ε-DP claim, records the budget, and re-checks as consistent."""
    certificate = catalogue_certificate("mode", rlimit=1)
    assert certificate.status is not Status.PROVED and certificate.epsilon is None
    assert certificate.statement["predicate"]["options"]["rlimit"] == 1
    assert check_certificate(certificate.data).outcome is CheckOutcome.NO_DP_CLAIM


def test_max_epsilon(median_certificate):
    """--max-epsilon: ε = 1 passes max 1 and 2, fails max 1/2 (valid, exit 3); ε = 1/n passes max 1 for every n."""
    assert check_certificate(median_certificate.data, max_epsilon=1).exit_code == 0
    report = check_certificate(median_certificate.data, max_epsilon="1/2")
    assert report.ok and report.outcome is CheckOutcome.NO_DP_CLAIM and "certifies ε = 1, above max_epsilon = 1/2" in report.summary and report.above_max_epsilon == "1/2"
    predicate = catalogue_certificate("predicate-query")
    assert check_certificate(predicate.data, max_epsilon=1).exit_code == 0
    assert check_certificate(predicate.data, max_epsilon="1/2").exit_code == 3
    with pytest.raises(InvalidArgument, match="max_epsilon"):
        check_certificate(predicate.data, max_epsilon="x")


def test_certify_bad_input():
    """Black boxes, ε <= 0, unknown options and missing files are refused by name."""
    entry = catalogue_entry("median")
    with pytest.raises(InvalidType, match="black boxes get falsify"):
        certify(lambda d, r: 0, epsilon=1, neighbours="replace-one")
    with pytest.raises(InvalidArgument, match="epsilon=0 must be > 0"):
        certify(entry.quality, epsilon=0, neighbours="replace-one")
    with pytest.raises(InvalidArgument, match="rlimt= is not a prover option"):
        certify(entry.quality, epsilon=1, neighbours="replace-one", rlimt=5)
    with pytest.raises(InvalidArgument, match="seed=-1"):
        certify(entry.quality, epsilon=1, neighbours="replace-one", seed=-1)
    with pytest.raises(InvalidArgument, match="does not exist"):
        check_certificate("no-such-file.json")
