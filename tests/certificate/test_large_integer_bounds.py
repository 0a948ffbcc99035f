"""Integer ranges whose ends pass 2**53: written exactly, certified and checked.

A JSON (RFC 8785) integer is exact only up to 2**53 − 1, so an ``IntRange`` end
past it is written ``{"integer": "digits"}`` (a safe end stays a JSON integer,
so existing certificates are unchanged); reading refuses any other spelling of
a safe end.  The README's median over ranges with generated ends of up to 40
digits, of either sign, certifies and checks.  A range of more than
``SMALL_DOMAIN`` values is never listed, so its size is not limited: it checks
under the default limits; ``max_domain_size`` (a limit of ``--reproduce``: the
verifier lists no domain) bounds the domains the reproduction lists (a refusal
names it, exit 2).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, resealed
from expmech.proofs import CertificateLimits, CheckOutcome, certify, check_certificate
from expmech.spec import IntRange, InvalidArgument, OutputSpace, QualityFunction, RecordSchema, count, quality_from_json, quality_to_json, size

SAFE = 2**53 - 1

def median(lo: int, hi: int) -> QualityFunction:
    """The README's median over ``IntRange(lo, hi)`` records and outputs."""
    schema, outputs = RecordSchema(x=IntRange(lo, hi)), OutputSpace(r=IntRange(lo, hi))
    return QualityFunction(-sympy.Abs(count(schema["x"] <= outputs["r"]) - size() / 2), schema=schema, outputs=outputs, name="median")


def ends() -> st.SearchStrategy[tuple[int, int]]:
    """Ends of an integer range, at least one past 2**53 in magnitude: narrow ranges at huge offsets and huge widths."""
    big = st.one_of(st.integers(SAFE + 1, 10**40), st.integers(-(10**40), -(SAFE + 1)), st.sampled_from([SAFE + 1, -(SAFE + 1), 2**63, -(2**63), 2**64 + 1]))
    any_end = st.one_of(big, st.integers(-(2**60), 2**60), st.integers(-5, 5))
    return st.tuples(big, any_end).map(sorted).map(tuple).filter(lambda e: e[0] < e[1])


@settings(max_examples=300, deadline=None)
@given(ends())
def test_bounds_round_trip_through_the_quality_json(bounds):
    """Any ends: written as JSON integers while safe, as digits past 2**53 − 1, and read back to the same range."""
    lo, hi = bounds
    data = quality_to_json(median(lo, hi))
    written = data["schema"][0][1]
    for name, value in (("lo", lo), ("hi", hi)):
        assert written[name] == (value if abs(value) <= SAFE else {"integer": str(value)})
    json.dumps(data, allow_nan=False)  # plain JSON data
    back = quality_from_json(json.loads(json.dumps(data)))
    assert back.schema["x"] is not None and back.sha256 == data["sha256"]
    assert quality_to_json(back) == data


@pytest.mark.parametrize("spelling", [{"integer": "5"}, {"integer": str(SAFE)}, {"integer": "0" + str(2**60)}, {"integer": "+" + str(2**60)}, {"integer": 2**60}, {"integer": "1e30"}, {"integer": "１" * 20}])
def test_a_non_canonical_end_is_refused(spelling):
    """A safe end spelt as digits, a leading zero or sign, a non-string, a float text or non-ASCII digits: refused."""
    data = quality_to_json(median(0, 10**20))
    data["schema"][0][1]["lo"] = spelling
    with pytest.raises(InvalidArgument):
        quality_from_json(data)


def test_conformance_over_a_huge_range_with_a_large_negative_end():
    """The case the generated round trip found: the conformance pairs' records lie on both sides of 2**63, which numpy
    made float64 (rounded past 2**53), so a loss of 2.03 > ε = 2 was found; the records now stay exact."""
    cert = certify(median(-31143095728583420, 2**64 + 1), epsilon=1, neighbours="replace-one", claimed=1)
    assert cert.epsilon == "2"


@pytest.mark.slow
@settings(max_examples=4, deadline=None)
@given(ends())
def test_certify_and_check_round_trip(bounds):
    """Generated ends past 2**53: certify writes the certificate and check re-derives it (ε = 2, exit 0)."""
    lo, hi = bounds
    cert = certify(median(lo, hi), epsilon=1, neighbours="replace-one", claimed=1)
    assert cert.epsilon == "2"
    report = check_certificate(cert.to_json().encode())  # the default limits: a range too large to list is not limited
    assert report.outcome is CheckOutcome.CERTIFIES_DP, report.problems


@settings(max_examples=3, deadline=None)
@given(st.integers(-(10**6), 10**6), st.integers(10**15, 10**40))  # past the default max_domain_size
def test_a_huge_width_checks_under_the_default_limits(lo, width):
    """A generated range of 10**15 to 10**40 values is never enumerated: it checks under the default limits, exit 0."""
    cert = certify(median(lo, lo + width), epsilon=1, neighbours="replace-one", claimed=1)
    report = check_certificate(cert.to_json().encode())
    assert report.outcome is CheckOutcome.CERTIFIES_DP and report.exit_code == 0, report.problems


@settings(max_examples=5, deadline=None)
@given(st.integers(1, 15))
def test_a_listed_domain_over_the_limit_is_refused(limit):
    """IntRange(0, 15) is listed (16 values <= SMALL_DOMAIN): a reproduction under a lowered max_domain_size refuses it,
    exit 2 naming it; the verifier alone lists no domain, so the limit is not its own."""
    data = catalogue_certificate("median").data
    report = check_certificate(json.dumps(data).encode(), limits=CertificateLimits(max_domain_size=limit), reproduce=True)
    assert report.outcome is CheckOutcome.REFUSED and report.exit_code == 2 and "max_domain_size" in report.problems[0], report.problems
    assert check_certificate(json.dumps(data).encode(), limits=CertificateLimits(max_domain_size=16), reproduce=True).outcome is CheckOutcome.CERTIFIES_DP
    assert check_certificate(json.dumps(data).encode(), limits=CertificateLimits(max_domain_size=limit)).outcome is CheckOutcome.CERTIFIES_DP


def test_a_listed_domain_over_the_limit_is_refused_at_the_command_line(tmp_path):
    """``expmech check --reproduce --limit max_domain_size=8 FILE`` on the median over IntRange(0, 15): exit 2, refused
    by the reproduction's content limit (not a usage error), naming it."""
    path = tmp_path / "median.cert.json"
    path.write_text(json.dumps(catalogue_certificate("median").data))
    done = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "check", "--reproduce", "--limit", "max_domain_size=8", str(path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "REFUSED" in done.stdout and "more than max_domain_size=8" in done.stdout, (done.stdout, done.stderr)


def test_a_forged_digit_end_fails_the_check():
    """A certificate whose safe end is spelt as digits (resealed) is not valid: the verifier's reading of the inputs refuses it."""
    data = catalogue_certificate("median").data
    forged = resealed(data, lambda s: s["predicate"]["quality"]["schema"][0][1].__setitem__("lo", {"integer": "0"}))
    report = check_certificate(forged)
    assert report.outcome is CheckOutcome.INVALID and report.failed == "inputs" and "x.lo" in report.problems[0], report.problems
