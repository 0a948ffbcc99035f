"""Every forgery of issue 9 is rejected and names the claim it breaks (each was accepted with exit 0 before); an edit of
what the verifier does not rely on (provenance, the conformance summary, a field it does not read) by ``--reproduce``."""

import json
import time
from fractions import Fraction

import pytest

from certificate_tools import catalogue_certificate, claim, resealed
from expmech.impl import ExponentialMechanism, catalogue_entry
from expmech.proofs import CheckOutcome, check_certificate


@pytest.fixture(scope="module")
def median():
    return catalogue_certificate("median")


def _halve_epsilon(statement):
    claim(statement, "monotonicity").update(status="PROVED", direction="uniform", counterexample=None)
    claim(statement, "privacy").update(monotone=True, formula="epsilon0*Delta_q", epsilon="1/2")
    statement["predicate"]["epsilon"] = "1/2"


def test_a_halved_epsilon_on_a_false_monotonicity_is_rejected(median):
    """Monotonicity set to PROVED and ε halved: refused at the monotonicity claim; the true loss exceeds the forged ε."""
    forged = resealed(median.data, _halve_epsilon)
    report = check_certificate(forged)
    assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1
    assert report.failed == "claim monotonicity", report.problems
    assert "a PROVED monotonicity claim needs its own derivation of monotonicity" in report.problems[0]
    entry = catalogue_entry("median")
    mech = ExponentialMechanism(entry.quality, epsilon=entry.epsilon, outputs=entry.quality.outputs())
    loss = mech.privacy_loss([0, 5, 5], [15, 5, 5])
    assert loss > Fraction(63, 100)  # the forged certificate claimed ε = 1/2: it was false


@pytest.mark.parametrize(
    "mutate, failed, words",
    [
        (lambda s: s["predicate"]["mechanism"].__setitem__("weight", "exp(10 * epsilon0 * q(d, r))"), "inputs", "predicate.mechanism.weight: not 'mu(r) * exp(epsilon0 * q(d, r))'"),
        (lambda s: s["predicate"]["mechanism"]["range"]["base_measure"].__setitem__(0, "-1"), "inputs", "must be >= 0"),
        (lambda s: s["predicate"]["mechanism"]["range"].__setitem__("base_measure", ["1"]), "inputs", "1 to 200000 outputs, one μ each"),
        (lambda s: s["predicate"]["claims"].insert(1, dict(claim(s, "sensitivity"), bound="1/2")), "inputs", "a list of claims with distinct ids"),
        (lambda s: claim(s, "sensitivity").__setitem__("witness", None), "claim sensitivity", "witness"),
        (lambda s: claim(s, "conformance")["checks"][0].__setitem__("loss_upper_bound", "3"), "claim conformance", "pair 1: recorded loss bounds are not within ε"),
        (lambda s: claim(s, "sensitivity").__setitem__("bound", "9**9**9**9"), "claim sensitivity", "bound"),
        (lambda s: s["predicate"].__setitem__("epsilon", "1/2"), "claim privacy", "dp_claim is true, but ε is not an accepted privacy claim's"),
        (lambda s: claim(s, "privacy").__setitem__("epsilon", "1/2"), "claim privacy", "epsilon"),
        (lambda s: s["predicate"]["claims"].append({"id": "lemma", "status": "PROVED"}), "claim lemma", "'lemma' of status 'PROVED' is not one the verifier knows"),
    ],
    ids=[
        "weight",
        "negative-base-measure",
        "truncated-base-measure",
        "duplicate-claim",
        "witness-removed-still-tight",
        "conformance-pair-loss",
        "huge-bound-text",
        "epsilon",
        "privacy-epsilon",
        "unknown-claim",
    ],
)
def test_each_forgery_is_rejected_naming_its_claim(median, mutate, failed, words):
    """Each resealed edit of the issue fails with exit 1, at the named check, with a message saying what differs."""
    started = time.perf_counter()
    report = check_certificate(resealed(median.data, mutate))
    assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1 and not report.ok
    assert report.failed == failed, report.problems
    assert words in report.problems[0], report.problems
    assert time.perf_counter() - started < 30


@pytest.mark.parametrize(
    "mutate, failed, words",
    [
        (lambda s: s["predicate"]["quality"].__setitem__("canonical_text", "anything at all"), "reproduce: schema", "'canonical_text' was unexpected"),
        (
            lambda s: claim(s, "sensitivity")["evidence"]["queries"][0].__setitem__("smt2", "(set-logic QF_LIA)\n(assert false)\n(check-sat)\n"),
            "reproduce: claim sensitivity",
            "not the regenerated query",
        ),
        (lambda s: claim(s, "conformance").__setitem__("largest_loss_upper_bound", "5"), "reproduce: claim conformance", "largest_loss_upper_bound"),
        (lambda s: claim(s, "sensitivity").__setitem__("extra", 1), "reproduce: schema", "'extra' was unexpected"),
    ],
    ids=["canonical-text", "assert-false-query", "conformance-above-epsilon", "unknown-field"],
)
def test_each_reproduce_only_forgery_is_rejected_by_reproduce(median, mutate, failed, words):
    """An edit of what the verifier does not rely on (a field it does not read, a recorded query — provenance —, the
    conformance summary): the plain check decides ε from the derivations (the true ε = 1 of the median), and
    ``reproduce=True`` rejects the edit with exit 1, at the named check."""
    forged = resealed(median.data, mutate)
    plain = check_certificate(forged)
    assert plain.outcome is CheckOutcome.CERTIFIES_DP and plain.epsilon == "1", plain.problems
    report = check_certificate(forged, reproduce=True)
    assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1 and not report.ok
    assert report.failed == failed, report.problems
    assert words in report.problems[0], report.problems


def test_duplicate_json_keys_are_rejected(median, tmp_path):
    """A certificate file that repeats a key is malformed: exit 1, before anything else is read."""
    text = json.dumps(median.data)
    path = tmp_path / "dup.json"
    path.write_text(text[:-1] + ', "digest": ' + json.dumps(median.data["digest"]) + "}")
    report = check_certificate(path)
    assert report.outcome is CheckOutcome.INVALID and report.failed == "file" and "repeats a JSON key" in report.problems[0], report.problems


def test_a_digest_mismatch_stops_everything(median):
    """An edit without resealing fails at the digest, and nothing after it runs."""
    data = json.loads(json.dumps(median.data))
    data["certificate"]["predicate"]["mechanism"]["epsilon0"] = "1/3"
    report = check_certificate(data)
    assert report.failed == "digest" and [name for name, _, _ in report.checks] == ["digest"]


def test_a_refuted_certificate_never_exits_0():
    """A valid REFUTED certificate is consistent, yet certifies no ε: its own exit code, 3."""
    report = check_certificate(catalogue_certificate("median-half").data)
    assert report.ok and report.outcome is CheckOutcome.NO_DP_CLAIM and report.exit_code == 3
    assert not report.certifies_dp and "certifies no ε-DP" in report.summary
