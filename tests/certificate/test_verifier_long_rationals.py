"""A rational text with a part past Python's 4,300-digit conversion limit: rejected, never a traceback.

The verifier admits a rational text of up to MAX_BITS // 3 characters, but ``Fraction(text)`` raises ``ValueError``
for a part of more than ``sys.get_int_max_str_digits()`` digits (4,300 by default): a resealed certificate holding
one raised out of ``verify`` and ``check_certificate``.
"""

from __future__ import annotations

import json
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, claim, resealed
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.checker import verify

PLACES = {  # rational texts the verifier reads, in the statement
    "epsilon0": lambda s, t: s["predicate"]["mechanism"].__setitem__("epsilon0", t),
    "base measure": lambda s, t: s["predicate"]["mechanism"]["range"]["base_measure"].__setitem__(0, t),
    "sensitivity bound": lambda s, t: claim(s, "sensitivity").__setitem__("bound", t),
    "witness difference": lambda s, t: claim(s, "sensitivity")["witness"].__setitem__("difference", t),
    "predicate epsilon": lambda s, t: s["predicate"].__setitem__("epsilon", t),
}


@st.composite
def long_rationals(draw):
    """``p``, ``-p`` or ``p/q`` with a part of 4,301 to 10,000 digits (the verifier's own length bound is 10,922)."""
    limit = sys.get_int_max_str_digits()
    big = draw(st.integers(limit + 1, 10_000).map(lambda k: "7" * k))
    form = draw(st.sampled_from(["p", "-p", "1/q", "p/3"]))
    return {"p": big, "-p": "-" + big, "1/q": "1/" + big, "p/3": big + "/3"}[form]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(sorted(PLACES)), long_rationals())
def test_a_rational_past_the_conversion_limit_is_rejected(place, text):
    """INVALID or REFUSED from verify and check_certificate, naming a failed check; never an exception."""
    raw = json.dumps(resealed(catalogue_certificate("median").data, lambda s: PLACES[place](s, text))).encode()
    for report in (verify(raw), check_certificate(raw)):
        assert report.outcome in (CheckOutcome.INVALID, CheckOutcome.REFUSED) and report.failed is not None, report.problems
