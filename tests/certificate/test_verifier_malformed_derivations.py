"""A PROVED claim whose derivation names no claim kind (missing, or not a string) is rejected, never a traceback.

The verifier indexed the PROVED claims by ``derivation["claim"]`` before any claim was checked, outside the
handling of malformed claims: a derivation without that key raised ``KeyError`` out of ``verify`` (and a list
there, ``TypeError``).
"""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, resealed
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.checker import verify

_MISSING = object()
JUNK = st.one_of(st.just(_MISSING), st.none(), st.integers(-(2**53 - 1), 2**53 - 1), st.booleans(), st.lists(st.text(max_size=3), max_size=2),
                 st.dictionaries(st.text(max_size=3), st.integers(-5, 5), max_size=2), st.text(max_size=12))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["median", "top-item", "mode-add-remove"]), st.data(), JUNK)
def test_a_derivation_naming_no_claim_kind_is_rejected(name, data, junk):
    """Any PROVED claim's ``derivation.claim`` deleted or replaced by a generated value that is not its kind: INVALID
    (exit 1) from verify and check_certificate, naming a claim."""
    statement = catalogue_certificate(name).statement
    proved = [i for i, c in enumerate(statement["predicate"]["claims"]) if c.get("status") == "PROVED" and isinstance(c.get("derivation"), dict)]
    index = data.draw(st.sampled_from(proved), label="claim")
    kind = statement["predicate"]["claims"][index]["derivation"]["claim"]
    if junk == kind:
        return

    def mutate(s):
        derivation = s["predicate"]["claims"][index]["derivation"]
        if junk is _MISSING:
            del derivation["claim"]
        else:
            derivation["claim"] = copy.deepcopy(junk)

    raw = json.dumps(resealed(catalogue_certificate(name).data, mutate)).encode()
    for report in (verify(raw), check_certificate(raw)):
        assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1, report.problems
        assert report.failed is not None and report.failed.startswith("claim "), report.problems
