"""Any key of the statement's inputs deleted, or its value replaced by another JSON type: rejected, never a traceback.

The verifier read the quality's ``name`` with ``data["name"]`` after checking ``data.get("name")``: a quality
without the key raised ``KeyError`` out of ``verify`` (found by the mutation tests).  Every shape error while the
inputs are read is now the failed check ``inputs``.
"""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, resealed
from expmech.proofs import CheckOutcome
from expmech.proofs.checker import verify

NAMES = ["median", "top-item", "posterior-bernoulli", "count-geometric-measure"]
_DELETE = object()
REPLACEMENTS = st.one_of(st.just(_DELETE), st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4), st.just([]), st.just({}), st.just([1, "a"]))


def _paths(value, path=()):
    """Every key path inside the predicate's quality and mechanism, and the subject."""
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    found = [path] if path else []
    for key, item in items:
        found += _paths(item, (*path, key))
    return found


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(NAMES), st.data(), REPLACEMENTS)
def test_a_damaged_input_is_rejected_not_raised(name, data, replacement):
    """The value at a generated path deleted or replaced, resealed: a report (INVALID or REFUSED naming the failed check,
    or valid for an edit of nothing the verifier reads), never an exception."""
    statement = catalogue_certificate(name).statement
    roots = [("predicate", "quality"), ("predicate", "mechanism"), ("subject",)]
    root = data.draw(st.sampled_from(roots), label="root")
    target = statement
    for key in root:
        target = target[key]
    path = root + data.draw(st.sampled_from([()] + _paths(target)), label="path")

    def mutate(s):
        holder = s
        for key in path[:-1]:
            holder = holder[key]
        if replacement is _DELETE:
            del holder[path[-1]]
        else:
            holder[path[-1]] = copy.deepcopy(replacement)

    raw = json.dumps(resealed(catalogue_certificate(name).data, mutate)).encode()
    report = verify(raw)  # returns, never raises
    assert report.ok or (report.outcome in (CheckOutcome.INVALID, CheckOutcome.REFUSED) and report.failed is not None), report
