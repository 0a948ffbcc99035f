"""A certificate of a quality traced from Python: the quality.trace block, what check makes of it, what reports say.

The block holds the function's source, its sha256, the traced expression and the number of datasets tested; it is
provenance — check accepts the certificate on the expression alone (its small verifier never reads the block),
check --reproduce refuses a block whose sha256 is not its source's, and the report says the proof is of the traced expression.  A counterexample past a size limit is written
by counts and re-read the same.
"""

import copy
import hashlib
import json
from fractions import Fraction

import pytest

from expmech.proofs import CheckOutcome, certify, check_certificate
from expmech.proofs.certificate.make._build import seal
from expmech.proofs.certificate.report._claims import recorded_pair
from expmech.proofs.certificate.report._report import render_report
from expmech.spec import IntRange, Multiset, OutputSpace, RecordSchema, trace

SCHEMA, OUTPUTS = RecordSchema(x=IntRange(0, 15)), OutputSpace(r=IntRange(0, 15))


def median_score(data, r):
    return -abs(sum(1 for x in data if x <= r) - len(data) / 2)


@pytest.fixture(scope="module")
def certificate():
    return certify(median_score, schema=SCHEMA, outputs=OUTPUTS, epsilon=Fraction(1, 2), neighbours="replace-one", claimed=1)


def test_the_certificate_records_the_trace(certificate):
    """quality.trace has the source, its sha256, the quality's expression and the datasets tested."""
    quality = certificate.statement["predicate"]["quality"]
    block = quality["trace"]
    assert set(block) == {"source", "source_sha256", "expression", "datasets_tested"}
    assert block["source"].startswith("def median_score(data, r):")
    assert block["source_sha256"] == hashlib.sha256(block["source"].encode("utf-8")).hexdigest()
    assert block["expression"] == str(trace(median_score, schema=SCHEMA, outputs=OUTPUTS).expr)
    assert block["datasets_tested"] > 100
    assert certificate.status.name == "PROVED" and certificate.epsilon == "1"


def test_check_accepts_it_on_the_expression(certificate):
    """check re-derives every claim from the expression and passes the block through as provenance."""
    assert check_certificate(certificate.data).outcome is CheckOutcome.CERTIFIES_DP


@pytest.mark.parametrize("field, value", [("source", "def other(data, r):\n    return 0\n"), ("expression", "0"), ("source_sha256", "0" * 64)])
def test_a_block_inconsistent_with_itself_or_the_quality_is_refused_on_reproduce(certificate, field, value):
    """The block is provenance: the small verifier decides on the expression without reading it; --reproduce, which
    rebuilds the inputs, refuses a source whose sha256 is not the recorded one, or an expression not the quality's."""
    statement = copy.deepcopy(certificate.statement)
    statement["predicate"]["quality"]["trace"][field] = value
    assert check_certificate(seal(statement)).outcome is CheckOutcome.CERTIFIES_DP
    report = check_certificate(seal(statement), reproduce=True)
    assert report.outcome is CheckOutcome.INVALID and "quality.trace" in " ".join(report.problems), report


def test_the_report_says_the_proof_is_of_the_traced_expression(certificate):
    """Markdown and HTML reports name the traced expression, the datasets tested and show the source."""
    markdown, page, _ = render_report(certificate, "median")
    for text in (markdown, page):
        assert "Traced from a Python function" in text and "traced expression" in text
        assert "def median_score(data, r):" in text


def test_an_untraced_quality_has_no_block():
    """A quality written in the language carries no trace block."""
    from expmech.impl import CATALOGUE

    statement = certify(CATALOGUE[0].quality, epsilon=Fraction(1, 2), neighbours="replace-one").statement
    assert "trace" not in statement["predicate"]["quality"]


@pytest.fixture(scope="module")
def opendp_certificate():
    """OpenDP 0.13's quantile score certified with its published Δq = 3 (REFUTED past a size limit), shared by the
    module's two tests of it (certify takes seconds, and is deterministic)."""
    from expmech.impl import LIBRARY_CATALOGUE

    entry = next(e for e in LIBRARY_CATALOGUE if e.name == "opendp-0.13-quantile-score")
    return certify(entry.function, schema=entry.schema, outputs=entry.outputs, epsilon=Fraction(1, 2), neighbours="add-remove", claimed=3)


def test_a_counterexample_past_a_size_limit_is_written_by_counts(opendp_certificate):
    """OpenDP 0.13's quantile score: the REFUTED claim's pair is {"multiset": …} with large counts as digits, re-read
    as the same Multisets, and its size as the number it is."""
    cert = opendp_certificate
    claim = next(c for c in cert.statement["predicate"]["claims"] if c["id"] == "sensitivity")
    pair = claim["counterexample"]
    assert "multiset" in pair["dataset1"] and pair["size"] == {"integer": str(2**62)}
    assert json.loads(json.dumps(pair)) == pair
    witness = recorded_pair(claim, "counterexample")
    assert isinstance(witness.dataset1, Multiset) and witness.size == 2**62 and witness.difference == 4
    markdown, _, _ = render_report(cert, "opendp")
    assert "×4611686018427387904" in markdown and "REFUTED" in markdown


def test_check_accepts_a_counterexample_held_by_counts(opendp_certificate):
    """check re-evaluates OpenDP 0.13's counterexample of 2^62 records from its counts: valid, no ε-DP (REFUTED)."""
    report = check_certificate(copy.deepcopy(opendp_certificate.data))
    assert report.ok and report.outcome is CheckOutcome.NO_DP_CLAIM and report.status == "REFUTED", report
    assert any(name == "claim sensitivity" and "counterexample re-evaluated" in what for name, _, what in report.checks), report.checks
