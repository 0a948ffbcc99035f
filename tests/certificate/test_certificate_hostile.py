"""Untrusted input is cheap to reject: every limit is a clear error (exit 2), in well under a second, in bounded memory."""

import copy
import hashlib
import json
import statistics
import sys
import time
import tracemalloc

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, claim, resealed
from expmech.proofs import CertificateLimits, CheckOutcome, check_certificate
from expmech.proofs.cli import main
from expmech.proofs.certificate.make._build import seal

SECOND = 1.0
MEMORY = 64 * 2**20
#: A refusal may cost UNITS reference workloads of CPU (about a second on an idle machine), never less than SECOND:
#: CPU time (time.process_time) does not count waiting for a core, and what contention still adds to it (shared
#: caches, a busy sibling thread) the reference, measured just before, pays too, so the budget grows with the load.
UNITS = 100
_REFERENCE_TEXT = json.dumps([{"id": i, "values": [str(i), i * 7, [i, -i]], "even": i % 2 == 0} for i in range(1000)])


def _reference_cpu():
    """CPU seconds of a fixed workload of the kind a refusal does: parse, walk, canonicalise and hash JSON."""
    started = time.process_time()
    data = json.loads(_REFERENCE_TEXT)
    stack, seen = [data], 0
    while stack:
        value = stack.pop()
        seen += 1
        stack.extend(value.values() if isinstance(value, dict) else value if isinstance(value, list) else ())
    hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return time.process_time() - started


def cpu_budget():
    """The CPU seconds a refusal may cost now: UNITS reference workloads (median of three), at least SECOND."""
    return max(SECOND, UNITS * statistics.median(_reference_cpu() for _ in range(3)))


@pytest.fixture(scope="module")
def median():
    return catalogue_certificate("median")


def _timed(source, **options):
    """check_certificate's report, its CPU seconds, the budget measured just before, and (in a second, traced run)
    the peak of Python allocations."""
    budget = cpu_budget()
    started = time.process_time()
    report = check_certificate(source, **options)
    elapsed = time.process_time() - started
    tracemalloc.start()
    try:
        again = check_certificate(source, **options)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert again.problems == report.problems
    return report, elapsed, budget, peak


def _expression(depth):
    tree = {"symbol": "r"}
    for _ in range(depth):
        tree = {"node": "Abs", "args": [tree]}
    return tree


def _wide(nodes):
    return {"node": "Add", "args": [{"rational": str(i)} for i in range(nodes)]}


def _set_expression(tree):
    return lambda s: s["predicate"]["quality"].__setitem__("expression", tree)


HOSTILE = {  # name: (edit, outcome, words) under check_certificate(reproduce=True): the verifier refuses a limit of its own
    # or rejects what it reads as forged (the test edits an expression without its quality's sha256), and the reproduction
    # refuses the budgets only it spends
    "huge-integer-exponent": (_set_expression({"node": "Pow", "args": [{"rational": "3"}, {"rational": str(10**14)}]}), "INVALID", "exponent up to ±64"),
    "tower-of-exponents": (_set_expression({"node": "Pow", "args": [{"rational": "9"}, {"node": "Pow", "args": [{"rational": "9"}, {"rational": "99999"}]}]}), "INVALID", "exponent up to ±64"),
    "nested-powers": (_set_expression({"node": "Pow", "args": [{"node": "Pow", "args": [{"node": "Pow", "args": [{"symbol": "r"}, {"rational": "64"}]}, {"rational": "64"}]}, {"rational": "64"}]}), "INVALID", "predicate.quality.sha256"),
    "power-of-constants": (_set_expression({"node": "Pow", "args": [{"node": "Pow", "args": [{"rational": "9" * 90}, {"rational": "-64"}]}, {"rational": "64"}]}), "INVALID", "predicate.quality.sha256"),
    "product-of-powers": (_set_expression({"node": "Mul", "args": [{"node": "Pow", "args": [{"symbol": "r"}, {"rational": "64"}]}] * 5}), "INVALID", "predicate.quality.sha256"),
    "exponent-expression": (_set_expression({"node": "Pow", "args": [{"rational": "9"}, {"node": "Pow", "args": [{"rational": "9"}, {"rational": "15"}]}]}), "INVALID", "exponent up to ±64"),
    "rational-digits": (lambda s: s["predicate"]["mechanism"].__setitem__("epsilon0", "1/" + "9" * 5000), "INVALID", "predicate.mechanism.epsilon0"),
    "expression-nodes": (_set_expression(_wide(5_000)), "REFUSED", "max_expression_nodes"),
    "expression-depth": (_set_expression(_expression(70)), "INVALID", "predicate.quality.sha256"),
    "witness-records": (lambda s: claim(s, "sensitivity")["witness"].__setitem__("dataset1", list(range(5000))), "INVALID", "claim sensitivity"),
    "rlimit": (lambda s: s["predicate"]["options"].__setitem__("rlimit", 10**12), "REFUSED", "max_rlimit"),
    "search-budget": (lambda s: s["predicate"]["options"].__setitem__("search_budget", 10**12), "REFUSED", "max_search_budget"),
    "pairs": (lambda s: s["predicate"]["options"].__setitem__("pairs", 10**9), "REFUSED", "max_pairs"),
}


def test_every_limit_is_enforced_at_its_own_bound(median):
    """Small custom limits: one over each limit is refused naming it (the defaults above are the same code) — by the
    verifier for its own limits (outputs, expression nodes), by the reproduction for the others (records per dataset,
    pairs, listed domains: the honest median's witness has 2 records, its IntRange(0, 15) 16 values)."""
    cases = {
        "max_outputs": (17, lambda s: s["predicate"]["mechanism"]["range"].__setitem__("outputs", list(range(18))), ""),
        "max_expression_nodes": (20, _set_expression(_wide(25)), ""),
        "max_records": (1, lambda s: None, "reproduce: "),
        "max_pairs": (25, lambda s: s["predicate"]["options"].__setitem__("pairs", 26), "reproduce: "),
        "max_domain_size": (12, lambda s: None, "reproduce: "),
    }
    for limit, (bound, mutate, stage) in cases.items():
        report = check_certificate(resealed(median.data, mutate), limits=CertificateLimits(**{limit: bound}), reproduce=True)
        assert report.outcome is CheckOutcome.REFUSED and limit in report.problems[0], report.problems
        assert report.failed.startswith(stage), report.failed


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_resealed_hostile_content_is_refused_fast(median, name):
    """A correctly resealed hostile certificate, checked with reproduce=True, is rejected (exit 1) or refused (exit 2)
    as HOSTILE says before sympy or z3 see it, within the CPU budget and bounded memory."""
    mutate, outcome, words = HOSTILE[name]
    forged = resealed(median.data, mutate)
    report, elapsed, budget, peak = _timed(forged, limits=CertificateLimits(max_bytes=4 * 2**20), reproduce=True)
    assert report.outcome is CheckOutcome[outcome] and report.exit_code == (2 if outcome == "REFUSED" else 1), report.problems
    assert words in report.problems[0], report.problems
    assert elapsed < budget and peak < MEMORY


def test_an_oversized_file_is_refused_unread(median, tmp_path):
    """A 36 MB witness is refused from the file's size alone: nothing is read or parsed."""
    text = json.dumps(median.data)
    cut = text.index('"dataset1": [') + len('"dataset1": [')
    path = tmp_path / "big.json"
    path.write_text(text[:cut] + "7, " * (12 * 2**20) + text[cut:])
    assert path.stat().st_size > 36 * 10**6
    report, elapsed, budget, peak = _timed(path)
    assert report.outcome is CheckOutcome.REFUSED and "max_bytes" in report.problems[0]
    assert elapsed < budget / 10 and peak < 2**20


@pytest.mark.parametrize(
    "text, limit",
    [
        ("[" * 100_000 + "]" * 100_000, "max_depth"),
        ('{"a":' * 500 + "1" + "}" * 500, "max_depth"),
        ('{"certificate": ' + "9" * 200_000 + "}", "max_digits"),
        ('{"certificate": "' + "x" * 600_000 + '"}', "max_string"),
        ("{not json", "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
    ],
    ids=["array-depth", "object-depth", "integer-digits", "long-string", "not-json", "not-utf8"],
)
def test_hostile_json_is_refused_fast(text, limit):
    """Deep nesting, long numbers and strings, broken JSON: refused (exit 2) by the parser's limits."""
    raw = text if isinstance(text, bytes) else text.encode()
    report, elapsed, budget, peak = _timed(raw)
    assert report.outcome is CheckOutcome.REFUSED and limit in report.problems[0], report.problems
    assert elapsed < budget and peak < MEMORY


@pytest.mark.parametrize("text", ['{"a": 1.5}', '{"a": NaN}', '{"a": -Infinity}', '{"a": 1e400}'])
def test_inexact_numbers_are_malformed(text):
    """Floats, NaN and infinities have no place in a certificate: invalid (exit 1)."""
    report = check_certificate(text.encode())
    assert report.outcome is CheckOutcome.INVALID and report.failed == "file" and "inexact number" in report.problems[0], report.problems


def test_limits_are_validated():
    """A limit must be an int >= 1, named when it is not."""
    with pytest.raises(ValueError, match="max_bytes=0 must be an int >= 1"):
        CertificateLimits(max_bytes=0)


def test_cli_refuses_hostile_input_with_exit_2(median, tmp_path, capsys):
    """At the command line a refused certificate exits 2 and names the limit."""
    path = tmp_path / "pow.json"
    path.write_text(json.dumps(resealed(median.data, HOSTILE["expression-nodes"][0])))
    assert main(["check", str(path)]) == 2
    assert "max_expression_nodes" in capsys.readouterr().out
    path.write_text(json.dumps(resealed(median.data, HOSTILE["pairs"][0])))
    assert main(["check", "--reproduce", str(path)]) == 2
    assert "max_pairs" in capsys.readouterr().out


PATHS = [
    ("predicate", "quality", "expression"),
    ("predicate", "mechanism", "range", "outputs"),
    ("predicate", "options", "claimed"),
    ("predicate", "claims", 0, "witness", "dataset2"),
    ("predicate", "claims", 0, "evidence", "queries", 0, "smt2"),
    ("predicate", "claims", 3, "checks", 0, "dataset1"),
    ("predicate", "quality", "schema", 0, 1),
    ("predicate", "notes"),
    ("predicate", "solver_calls"),
    ("predicate", "solver_calls", 1, "model", "out_r"),
    ("predicate", "solver_calls", 0, "reason"),
]


def _hostile_values():
    deep = st.integers(60, 900).map(lambda d: json.loads("[" * d + "]" * d))
    long_text = st.integers(2**18 + 1, 2**19).map(lambda k: "(" * k)
    digits = st.integers(101, 20_000).map(lambda k: "7" * k)
    many = st.integers(70, 20_000).map(lambda k: [1] * k)
    trees = st.one_of(st.integers(65, 400).map(_expression), st.integers(4001, 8_000).map(_wide))
    powers = st.integers(65, 10**30).map(lambda e: {"node": "Pow", "args": [{"symbol": "r"}, {"rational": str(e)}]})
    towers = st.lists(st.integers(2, 64), min_size=2, max_size=8).filter(lambda es: _product(es) > 256).map(_tower)
    return st.one_of(deep, long_text, digits, many, trees, powers, towers)


def _product(exponents):
    result = 1
    for e in exponents:
        result *= e
    return result


def _tower(exponents):
    tree = {"symbol": "r"}
    for e in exponents:
        tree = {"node": "Pow", "args": [tree, {"rational": str(e)}]}
    return tree


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(PATHS), _hostile_values(), st.booleans())
def test_hostile_certificates_cost_bounded_time_and_memory(path, value, reseal):
    """Oversized or hostile values anywhere, resealed or not, checked with reproduce=True (a value in the provenance
    the verifier does not read is the reproduction's to reject): rejected (never valid) within the CPU budget (a second
    on an idle machine) and bounded memory."""
    data = copy.deepcopy(catalogue_certificate("median").data)
    target = data["certificate"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    try:
        source = seal(data["certificate"]) if reseal else data
    except RecursionError:  # the test's sealer recurses; so deep a value is past max_depth=160, refused before the digest
        source = data
    report, elapsed, budget, peak = _timed(json.dumps(source).encode(), reproduce=True)  # provenance edits: --reproduce's
    assert report.outcome in (CheckOutcome.REFUSED, CheckOutcome.INVALID), report.problems
    assert elapsed < budget, (path, elapsed, budget, report.problems)
    assert peak < MEMORY, (path, peak)


NODES = ["Add", "Mul", "Pow", "Abs", "Max", "Min", "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "And", "Or", "Not", "Count", "Total", "Mean", "Size", "log", "Piecewise"]


def _trees():
    leaves = st.one_of(
        st.sampled_from(["0", "1", "-1", "1/2", "7/3", "64", "-65"]).map(lambda t: {"rational": t}),
        st.booleans().map(lambda b: {"bool": b}),
        st.sampled_from(["x", "r", "n", "y"]).map(lambda t: {"symbol": t}),
    )

    def extend(children):
        nodes = st.tuples(st.sampled_from(NODES), st.lists(children, max_size=3)).map(lambda p: {"node": p[0], "args": p[1]})
        branches = st.lists(st.tuples(children, children).map(list), max_size=2).map(lambda b: {"node": "Piecewise", "args": b})
        return st.one_of(nodes, branches)

    return st.recursive(leaves, extend, max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(_trees(), st.sampled_from(["expression", "claimed"]))
def test_arbitrary_expression_trees_never_crash_the_checker(tree, where):
    """Any tree of the language's node names, arities and leaves, resealed: refused or invalid, never an exception
    (unless it is the tree the certificate holds: the median's claimed Δq is the tree of 1); a claimed Δq of the same
    value as a different tree is certified by the verifier (ε = 1, true) and rejected by ``reproduce=True``."""
    data = catalogue_certificate("median").data
    predicate = data["certificate"]["predicate"]
    assume(tree != (predicate["quality"]["expression"] if where == "expression" else predicate["options"]["claimed"]))
    if where == "expression":
        forged = resealed(data, lambda s: s["predicate"]["quality"].__setitem__("expression", tree))
    else:
        forged = resealed(data, lambda s: s["predicate"]["options"].__setitem__("claimed", tree))
    report = check_certificate(forged)
    if report.ok:  # a claimed Δq the verifier reads as the same value (e.g. {"bool": true}, the code 1): a true claim
        assert where == "claimed" and report.outcome is CheckOutcome.CERTIFIES_DP and report.epsilon == "1", report
        report = check_certificate(forged, reproduce=True)  # and the reproduction, which compares the tree, rejects it
    assert report.outcome in (CheckOutcome.INVALID, CheckOutcome.REFUSED), report.problems


def test_a_slow_refusal_would_fail_the_budget(median, monkeypatch):
    """The budget is not vacuous: a refusal made to burn three budgets of CPU in the gate (before the content limits)
    fails the very assertion the tests above make (at a twentieth of the scale, to keep the suite fast)."""
    from expmech.proofs.certificate.check import _check

    here = sys.modules[__name__]
    monkeypatch.setattr(here, "SECOND", SECOND / 20)
    monkeypatch.setattr(here, "UNITS", UNITS / 20)

    forged = resealed(median.data, HOSTILE["pairs"][0])  # valid to the verifier; the reproduction's content limits refuse it
    check_content_limits = _check.check_content_limits
    burns = [3 * cpu_budget()]  # the first (timed) check burns; the second (memory-traced) one does not

    def burn_then_check(statement, limits):
        until = time.process_time() + (burns.pop() if burns else 0)
        while time.process_time() < until:
            pass
        return check_content_limits(statement, limits)

    monkeypatch.setattr(_check, "check_content_limits", burn_then_check)
    report, elapsed, budget, _ = _timed(forged, reproduce=True)
    assert report.outcome is CheckOutcome.REFUSED and "max_pairs" in report.problems[0]
    assert not elapsed < budget, (elapsed, budget)


def test_an_oversized_certificate_in_memory_is_refused_at_once(median, monkeypatch):
    """A dict with a 12-million-record witness (36 MB as JSON) is refused by max_bytes from its size alone: it is
    never serialised, parsed or digested, and its records are not walked (a small fraction of the CPU budget)."""
    from expmech.proofs.checker import _read

    def unread(*args, **kwargs):
        raise AssertionError("the oversized certificate was read past its size")

    data = copy.deepcopy(median.data)
    claim(data["certificate"], "sensitivity")["witness"]["dataset1"] = [7] * (12 * 10**6)
    budget = cpu_budget()
    for name in ("parse", "canonical_digest"):
        monkeypatch.setattr(_read, name, unread)
    monkeypatch.setattr(_read.json, "dumps", unread)
    started = time.process_time()
    report = check_certificate(data)
    assert time.process_time() - started < budget / 10
    assert report.outcome is CheckOutcome.REFUSED and report.exit_code == 2 and "max_bytes" in report.problems[0]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=60,
)


@given(_JSON)
def test_the_in_memory_size_bound_never_exceeds_the_json_text(value):
    """The size counted for data in memory is a lower bound of its compact JSON: whatever fits a file fits in memory."""
    from expmech.proofs.certificate.format._limits import CertificateRefused, check_shape

    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    check_shape(value, CertificateLimits(max_bytes=len(text.encode())))
    with pytest.raises(CertificateRefused, match="max_bytes"):  # and it is not vacuous: eight copies of the text are too many
        check_shape([text] * 8, CertificateLimits(max_bytes=4 * len(text)))


@pytest.mark.parametrize(
    "path, failed",
    [
        (("predicate", "solver_calls"), "reproduce: schema"),
        (("predicate", "notes"), "reproduce: schema"),
        (("predicate", "claims", 0, "evidence", "queries"), "claim sensitivity"),
        (("subject",), "inputs"),
    ],
    ids=["solver-calls", "notes", "queries", "subject"],
)
def test_a_long_list_of_wrong_items_fails_the_schema_within_the_budget(median, path, failed):
    """20,000 items of the wrong type in a list, resealed, checked with reproduce=True: INVALID where the verifier reads
    the list (the subject, a PROVED claim's queries), else at the reproduction's schema, within the budget — the
    validator's errors are taken one at a time (the schema's file-level anyOf used to build all 20,000 first: 5 s)."""
    def mutate(statement):
        target = statement
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = [1] * 20_000

    report, elapsed, budget, peak = _timed(resealed(median.data, mutate), reproduce=True)
    assert report.outcome is CheckOutcome.INVALID and report.failed == failed, report.problems
    assert elapsed < budget / 4 and peak < MEMORY, (elapsed, budget)
