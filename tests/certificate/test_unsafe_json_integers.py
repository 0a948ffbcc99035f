"""A JSON integer past 2**53 − 1 anywhere in a file: not a certificate (exit 1), never a traceback.

RFC 8785 writes numbers as IEEE doubles, so no certificate's digest covers such an integer; within ``max_digits``
(or with it raised) the verifier used to reach ``rfc8785.dumps`` with it and raise ``IntegerDomainError`` out of
``verify`` and ``check_certificate``.
"""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, claim
from expmech.proofs import CertificateLimits, CheckOutcome, check_certificate
from expmech.proofs.checker import Limits, verify

SAFE = 2**53 - 1

PLACES = {  # where a generated integer is written: inside the statement, or beside it in the file
    "witness size": lambda data, v: claim(data["certificate"], "sensitivity")["witness"].__setitem__("size", v),
    "options": lambda data, v: data["certificate"]["predicate"]["options"].__setitem__("rlimit", v),
    "dataset": lambda data, v: claim(data["certificate"], "sensitivity")["witness"]["dataset1"].__setitem__(0, v),
    "digest": lambda data, v: data["digest"].__setitem__("extra", v),
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(PLACES)), st.one_of(st.integers(SAFE + 1, 10**99), st.integers(-(10**99), -(SAFE + 1)), st.sampled_from([SAFE + 1, -(SAFE + 1), 2**63, 2**64])))
def test_an_integer_past_2_53_is_not_a_certificate(place, value):
    """INVALID ('file', the integer named), from verify and check_certificate, under limits that admit its digits."""
    data = copy.deepcopy(catalogue_certificate("median").data)
    PLACES[place](data, value)
    raw = json.dumps(data).encode()
    for report in (verify(raw, limits=Limits(max_digits=200)), check_certificate(raw, limits=CertificateLimits(max_digits=200))):
        assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1 and report.failed == "file", report.problems
        assert "past 2**53 − 1" in report.problems[0] and str(value)[:12] in report.problems[0], report.problems


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(PLACES)), st.integers(-SAFE, SAFE))
def test_a_safe_integer_is_read(place, value):
    """Any integer within ±(2**53 − 1) is read: the check goes on to the digest (or past it), never fails on the file."""
    data = copy.deepcopy(catalogue_certificate("median").data)
    PLACES[place](data, value)
    report = verify(json.dumps(data).encode())
    assert report.failed != "file", report.problems
