"""An honest certificate over a limit the user lowered is refused (exit 2, the limit named), never called forged.

The verifier's ``max_outputs`` (outputs a finite range lists) and ``max_expression_nodes`` (nodes of the quality's
expression) are limits a user sets with ``expmech check --limit``; a certificate over one is REFUSED with the flag
that admits it, and at its exact size it is valid.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate
from expmech.proofs import CertificateLimits, CheckOutcome, check_certificate
from expmech.proofs.checker import Limits, Reader, verify

NAMES = ("median", "top-item")


def _sizes(name: str) -> tuple[bytes, int, int]:
    """The certificate's bytes, its range's listed outputs and its expression's nodes as the verifier counts them."""
    data = catalogue_certificate(name).data
    predicate = data["certificate"]["predicate"]
    quality = predicate["quality"]
    reader = Reader({n for n, _ in quality["schema"] + quality["outputs"]}, max_nodes=10**9)
    reader.read(quality["expression"])
    return json.dumps(data).encode(), len(predicate["mechanism"]["range"]["outputs"]), reader.nodes


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(NAMES), st.sampled_from(["max_outputs", "max_expression_nodes"]), st.data())
def test_a_lowered_limit_refuses_an_honest_certificate(name, limit, data):
    """Under a limit below its size: REFUSED, exit 2, naming the limit and the flag; at its size: certifies ε-DP."""
    raw, outputs, nodes = _sizes(name)
    size = outputs if limit == "max_outputs" else nodes
    lowered = data.draw(st.integers(1, size - 1), label="limit")
    report = verify(raw, limits=Limits(**{limit: lowered}))
    assert report.outcome is CheckOutcome.REFUSED and report.exit_code == 2 and report.failed == "input limits", report.problems
    assert f"{limit}={lowered}" in report.problems[0] and f"expmech check --limit {limit}=…" in report.problems[0], report.problems
    assert verify(raw, limits=Limits(**{limit: size})).outcome is CheckOutcome.CERTIFIES_DP
    through = check_certificate(raw, limits=CertificateLimits(**{limit: lowered}))  # the public API passes the limit on
    assert through.outcome is CheckOutcome.REFUSED and through.failed == "input limits", through.problems


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53 - 1), 2**53 - 1) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=60,
)


@given(_JSON)
def test_the_in_memory_size_bound_never_exceeds_the_json_text(value):
    """The verifier's size counted for data in memory is a lower bound of its compact JSON (whatever fits a file fits
    in memory), and not vacuous: eight copies of the text are over four times its length."""
    from expmech.proofs.checker._read import _json_size_over

    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert not _json_size_over({"v": value}, len(text.encode()) + 6)
    assert _json_size_over({"v": [text] * 8}, 4 * len(text) + 6)


def test_a_huge_object_in_memory_is_refused_before_it_is_serialised():
    """A dict whose witness has 12 million records is refused by max_bytes after counting about max_bytes items."""
    import copy

    data = copy.deepcopy(catalogue_certificate("median").data)
    data["certificate"]["predicate"]["claims"][0]["witness"]["dataset1"] = [7] * (12 * 10**6)
    report = verify(data, limits=Limits(max_bytes=2**16))
    assert report.outcome is CheckOutcome.REFUSED and "max_bytes=65536" in report.problems[0], report.problems
