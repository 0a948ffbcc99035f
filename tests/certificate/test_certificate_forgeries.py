"""Every forgery of issue 9 is rejected and names the claim it breaks (each was accepted with exit 0 before)."""

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
    assert "recorded 'PROVED', re-derived 'REFUTED'" in report.problems[0]
    entry = catalogue_entry("median")
    mech = ExponentialMechanism(entry.quality, epsilon=entry.epsilon, outputs=entry.quality.outputs())
    loss = mech.privacy_loss([0, 5, 5], [15, 5, 5])
    assert loss > Fraction(63, 100)  # the forged certificate claimed ε = 1/2: it was false


@pytest.mark.parametrize(
    "mutate, failed, words",
    [
        (lambda s: s["predicate"]["mechanism"].__setitem__("weight", "exp(10 * epsilon0 * q(d, r))"), "mechanism", "weight"),
        (lambda s: s["predicate"]["quality"].__setitem__("canonical_text", "anything at all"), "quality", "canonical_text"),
        (lambda s: s["predicate"]["mechanism"]["range"]["base_measure"].__setitem__(0, "-1"), "inputs", "must be >= 0"),
        (lambda s: s["predicate"]["mechanism"]["range"].__setitem__("base_measure", ["1"]), "inputs", "1 values for 16 outputs"),
        (
            lambda s: claim(s, "sensitivity")["evidence"]["queries"][0].__setitem__("smt2", "(set-logic QF_LIA)\n(assert false)\n(check-sat)\n"),
            "claim sensitivity",
            "not the regenerated query",
        ),
        (lambda s: s["predicate"]["claims"].insert(1, dict(claim(s, "sensitivity"), bound="1/2")), "claim sensitivity", "appears 2 times"),
        (lambda s: claim(s, "sensitivity").__setitem__("witness", None), "claim sensitivity", "witness"),
        (lambda s: claim(s, "conformance").__setitem__("largest_loss_upper_bound", "5"), "claim conformance", "largest_loss_upper_bound"),
        (lambda s: claim(s, "conformance")["checks"][0].__setitem__("loss_upper_bound", "3"), "claim conformance", "loss_upper_bound"),
        (lambda s: claim(s, "sensitivity").__setitem__("bound", "9**9**9**9"), "claim sensitivity", "bound"),
        (lambda s: s["predicate"].__setitem__("epsilon", "1/2"), "predicate.epsilon", "re-derived '1'"),
        (lambda s: claim(s, "privacy").__setitem__("epsilon", "1/2"), "claim privacy", "epsilon"),
        (lambda s: claim(s, "sensitivity").__setitem__("extra", 1), "schema", "claim sensitivity"),
        (lambda s: s["predicate"]["claims"].append({"id": "lemma", "status": "PROVED"}), "schema", "claim lemma"),
    ],
    ids=[
        "weight",
        "canonical-text",
        "negative-base-measure",
        "truncated-base-measure",
        "assert-false-query",
        "duplicate-claim",
        "witness-removed-still-tight",
        "conformance-above-epsilon",
        "conformance-pair-loss",
        "huge-bound-text",
        "epsilon",
        "privacy-epsilon",
        "unknown-field",
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


def test_duplicate_json_keys_are_rejected(median, tmp_path):
    """A certificate file that repeats a key is malformed: exit 1, before anything else is read."""
    text = json.dumps(median.data)
    path = tmp_path / "dup.json"
    path.write_text(text[:-1] + ', "digest": ' + json.dumps(median.data["digest"]) + "}")
    report = check_certificate(path)
    assert report.outcome is CheckOutcome.INVALID and report.failed == "json" and "repeats the JSON key 'digest'" in report.problems[0]


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
