"""Certificates: round trip certify → check, every tamper caught, no claim without a proof."""

import copy

import pytest

from expmech.impl import CATALOGUE, WRONG_CATALOGUE, catalogue_entry
from expmech.proofs import Status, certify, check_certificate
from expmech.proofs.certificate._canonical import canonical_bytes, sha256_hex
from expmech.proofs.certificate._build import seal
from expmech.proofs.certificate import certificate_schema
from expmech.spec import InvalidArgument, InvalidType


@pytest.fixture(scope="module")
def median_certificate():
    entry = catalogue_entry("median")
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda e: e.name)
def test_round_trip_certify_then_check(entry, tmp_path):
    """Each correct entry's certificate is written, read back and re-verified on z3 and cvc5."""
    certificate = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    assert certificate.status is Status.PROVED and certificate.epsilon is not None
    path = certificate.write(tmp_path / "c.json")
    report = check_certificate(path)
    assert report.ok, report.problems
    assert any(name.endswith(": cvc5") for name, _, _ in report.checks)  # the second solver ran


@pytest.mark.parametrize("entry", WRONG_CATALOGUE, ids=lambda e: e.name)
def test_wrong_entries_get_no_claim(entry):
    """A refuted claim yields a REFUTED certificate with no ε, which itself checks out."""
    certificate = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    predicate = certificate.statement["predicate"]
    assert certificate.status is Status.REFUTED and predicate["epsilon"] is None and predicate["dp_claim"] is False
    assert check_certificate(certificate.data).ok


def test_epsilon_is_derived_from_the_theorem(median_certificate):
    """ε = 2·ε₀·Δq (median: 2 · 1/2 · 1 = 1); the monotone mode under add-remove gets ε₀·Δq."""
    assert median_certificate.epsilon == "1"
    mode = catalogue_entry("mode-add-remove")
    assert certify(mode.quality, epsilon=mode.epsilon, neighbours=mode.neighbours).epsilon == "1/2"
    predicate = catalogue_entry("predicate-query")
    assert certify(predicate.quality, epsilon=predicate.epsilon, neighbours=predicate.neighbours).epsilon == "1/n"


def _resealed(data, mutate):
    """Tamper with the statement and recompute the digest, so only the content checks can catch it."""
    statement = copy.deepcopy(data["certificate"])
    mutate(statement)
    return seal(statement)


def _claim(statement, claim_id):
    return next(c for c in statement["predicate"]["claims"] if c["id"] == claim_id)


def test_a_tampered_byte_breaks_the_digest(median_certificate):
    """Changing one character of the statement without resealing is caught by the digest."""
    data = copy.deepcopy(median_certificate.data)
    data["certificate"]["predicate"]["mechanism"]["epsilon0"] = "1/3"
    report = check_certificate(data)
    assert not report.ok and any(p.startswith("digest") for p in report.problems)


@pytest.mark.parametrize(
    "mutate, expected",
    [
        (lambda s: s["predicate"].__setitem__("epsilon", "1/2"), "ε re-derived"),
        (lambda s: _claim(s, "sensitivity")["witness"].__setitem__("difference", "2"), "exact difference"),
        (lambda s: _claim(s, "sensitivity")["witness"]["dataset2"].__setitem__(0, 5), "exact difference"),
        (lambda s: _claim(s, "sensitivity").__setitem__("bound", "1/2"), "witness attains"),
        (lambda s: _claim(s, "sensitivity")["evidence"]["queries"][1].__setitem__(
            "smt2", _claim(s, "sensitivity")["evidence"]["queries"][1]["smt2"].replace("(check-sat)", "(assert false)\n(check-sat)")), "z3"),
        (lambda s: _claim(s, "sensitivity")["evidence"]["queries"][1].__setitem__(
            "smt2", "(set-logic QF_LIA)\n(assert true)\n(check-sat)\n"), "queries are the ones the claim needs"),
        (lambda s: _claim(s, "sensitivity")["evidence"]["queries"][0].__setitem__("result", "unknown"), "recorded"),
        (lambda s: s["predicate"]["quality"]["expression"]["args"][0].__setitem__("rational", "-2"), "quality"),
        (lambda s: s["subject"][0]["digest"].__setitem__("sha256", "0" * 64), "subject"),
        (lambda s: _claim(s, "privacy").__setitem__("monotone", True), "monotonicity as used"),
    ],
    ids=["epsilon", "witness-difference", "witness-data", "bound", "smt-query", "swapped-query", "query-result", "expression", "subject", "monotone"],
)
def test_every_tamper_is_caught(median_certificate, mutate, expected):
    """Resealed tampering of ε, witnesses, bounds, queries or the quality is caught by re-checking."""
    report = check_certificate(_resealed(median_certificate.data, mutate))
    assert not report.ok
    assert any(expected in problem for problem in report.problems), report.problems


def test_a_claim_without_proof_is_refused(median_certificate):
    """A certificate claiming ε-DP on an UNKNOWN sensitivity fails the schema or the checks."""

    def mutate(s):
        _claim(s, "sensitivity")["status"] = "UNKNOWN"

    report = check_certificate(_resealed(median_certificate.data, mutate))
    assert not report.ok and any("PROVED sensitivity" in p for p in report.problems)


def test_schema_rejects_malformed_certificates(median_certificate):
    """Missing fields, floats and unknown statuses fail schema validation."""
    data = copy.deepcopy(median_certificate.data)
    del data["certificate"]["predicate"]["claims"]
    assert not check_certificate(data).ok
    data = _resealed(median_certificate.data, lambda s: s["predicate"].__setitem__("status", "PROBABLY"))
    assert any(p.startswith("schema") for p in check_certificate(data).problems)
    assert certificate_schema()["$schema"].endswith("2020-12/schema")


def test_certificate_json_is_canonical_and_exact(median_certificate):
    """The digest is over RFC 8785 bytes; floats are refused; rationals are strings."""
    statement = median_certificate.statement
    assert sha256_hex(statement) == median_certificate.digest
    assert canonical_bytes({"b": 1, "a": [True, None, "é"]}) == '{"a":[true,null,"é"],"b":1}'.encode()
    with pytest.raises(InvalidArgument, match="float"):
        canonical_bytes({"x": 0.5})
    with pytest.raises(InvalidArgument, match="too large"):
        canonical_bytes({"x": 2**60})
    assert statement["predicate"]["mechanism"]["epsilon0"] == "1/2"
    assert "implementation_sha256" in statement["predicate"]


def test_solver_budget_exhaustion_yields_no_claim():
    """With rlimit=1 the certificate makes no ε-DP claim."""
    entry = catalogue_entry("median")
    certificate = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=1, rlimit=1)
    assert certificate.status is not Status.PROVED and certificate.epsilon is None


def test_certify_bad_input():
    """Black boxes, ε <= 0 and unknown files are refused by name."""
    entry = catalogue_entry("median")
    with pytest.raises(InvalidType, match="black boxes get falsify"):
        certify(lambda d, r: 0, epsilon=1, neighbours="replace-one")
    with pytest.raises(InvalidArgument, match="epsilon=0 must be > 0"):
        certify(entry.quality, epsilon=0, neighbours="replace-one")
    with pytest.raises(InvalidArgument, match="does not exist"):
        check_certificate("no-such-file.json")
