"""The solver log: certificates re-check whatever z3 did before in either process, and a forged log is rejected.

z3's resource count for a query depends on the history of the process, so at a
tight rlimit the same derivation can decide a query in one process and not in
another.  ``certify`` records every solver call; the log is provenance: the
verifier's verdict never rests on it, and ``check --reproduce`` replays it and
confirms what the prover relied on (see ``expmech.proofs.certificate.check._replay``).
"""

import copy
import json
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate, resealed
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.certificate.check._smt import normalise_smt2
from expmech.proofs.cli import main


@pytest.fixture(scope="module")
def median():
    return catalogue_certificate("median")


def _calls(statement):
    return statement["predicate"]["solver_calls"]


def _first(statement, result):
    return next(call for call in _calls(statement) if call.get("result") == result)


def test_a_certificate_from_a_fresh_process_checks_here_and_back(tmp_path):
    """Certified at tight budgets as a fresh process's first derivation (where z3 decides less), checked in this
    process (warm) — and this process's certificates checked by a fresh `expmech check`: all consistent."""
    script = textwrap.dedent(
        f"""
        import sys
        from expmech.impl import catalogue_entry
        from expmech.proofs import certify
        for name, rlimit in [("halfspace", 2000), ("top-item", 3500), ("median", 1000)]:
            e = catalogue_entry(name)
            certify(e.quality, epsilon=e.epsilon, neighbours=e.neighbours, claimed=e.claimed_sensitivity, rlimit=rlimit).write(
                {str(tmp_path)!r} + f"/{{name}}-{{rlimit}}.cert.json")
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=300)
    for path in sorted(tmp_path.glob("*.cert.json")):
        report = check_certificate(path)
        assert report.ok, (path.name, report.problems)
    here = [catalogue_certificate(name, rlimit=rlimit) for name, rlimit in [("halfspace", 2000), ("top-item", 3500), ("median", 1000)]]
    paths = [certificate.write(tmp_path / f"here-{index}.json") for index, certificate in enumerate(here)]
    done = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "check", *map(str, paths)], capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 3), done.stdout + done.stderr


def _set(path, value):
    def mutate(statement):
        target = statement
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda s: _first(s, "sat").update(result="unsat", model=None), "recorded unsat, but z3 finds it sat"),
        (lambda s: _first(s, "sat")["model"].update(out_r="99"), "recorded model does not satisfy the query"),
        (lambda s: _first(s, "unsat").update(result="sat", model={"a_x": "0", "b_x": "0", "out_r": "0"}), "does not satisfy the query"),
        (lambda s: _calls(s).__setitem__(slice(None), [c for c in _calls(s) if c["claim"] == "sensitivity"][:-1]), "not recorded"),
        (lambda s: _calls(s).append(copy.deepcopy(_calls(s)[0])), "never makes it"),
        (lambda s: _calls(s).reverse(), "of query"),
        (lambda s: _first(s, "unsat").update(query="0badc0de"), "of query 0badc0de"),
        (lambda s: _first(s, "unsat").update(claim="monotonicity"), "for claim monotonicity"),
        (lambda s: _first(s, "sat").update(reason="it was easy"), "has no reason"),
        (lambda s: _first(s, "sat").update(result="unknown", reason="canceled", model=None), "claim sensitivity"),
    ],
    ids=["unsat-for-sat", "false-model", "sat-for-unsat", "call-missing", "call-left-over", "calls-reordered", "other-query", "other-claim", "reason-on-sat", "unknown-for-sat"],
)
def test_a_forged_solver_log_is_rejected_naming_the_claim(median, edit, words):
    """Answers flipped, models made up, calls dropped, added, reordered or moved to another claim: the log is provenance,
    so the verifier decides ε from the derivations (the median's true ε = 1); ``reproduce=True`` replays the log and
    rejects it: invalid, exit 1, naming the claim."""
    forged = resealed(median.data, edit)
    plain = check_certificate(forged)
    assert plain.outcome is CheckOutcome.CERTIFIES_DP and plain.epsilon == "1", plain.problems
    report = check_certificate(forged, reproduce=True)
    assert report.outcome is CheckOutcome.INVALID and report.exit_code == 1, report.problems
    assert report.failed == "reproduce: claim sensitivity" and words in report.problems[0], report.problems


def test_an_answer_this_checker_cannot_confirm_is_inconclusive(median, monkeypatch):
    """A recorded unsat that z3 cannot decide here (within 4× the budget) when reproducing is neither valid nor forged:
    exit 4 (the verifier's own verdict, which rests on no replay, is unchanged)."""
    import expmech.proofs.certificate.check._replay as replay
    from expmech.proofs.prover._z3bridge import QueryResult

    monkeypatch.setattr(replay, "solve", lambda assertions, **options: QueryResult("unknown", None, "canceled", "", 0, "z3"))
    assert check_certificate(median.data).outcome is CheckOutcome.CERTIFIES_DP
    report = check_certificate(median.data, reproduce=True)
    assert report.outcome is CheckOutcome.INCONCLUSIVE and report.exit_code == 4
    assert report.failed == "reproduce: claim sensitivity" and "cannot decide it here" in report.problems[0], report.problems


# -- the SMT-LIB2 normal form: let-sharing is canonical ------------------------------------------------------


def _terms():
    leaves = st.sampled_from(["x", "y", "n", "0", "1", "(- 1)", "2.0"])

    def extend(children):
        return st.tuples(st.sampled_from(["+", "*", "-", "ite_", "<=", "to_real"]), st.lists(children, min_size=1, max_size=3)).map(
            lambda p: ("ite", *(p[1] * 3)[:3]) if p[0] == "ite_" else (p[0], *p[1])
        )

    return st.recursive(leaves, extend, max_leaves=25)


def _text(term, bind, counter):
    """``term`` as SMT-LIB2, let-binding the applications ``bind`` picks (any sharing a printer might choose)."""
    if isinstance(term, str):
        return term
    inner = "(" + " ".join(_text(t, bind, counter) for t in term) + ")"
    if bind(term):
        counter[0] += 1
        name = f"v!{counter[0]}"
        return f"(let (({name} {inner})) {name})"
    return inner


@settings(max_examples=60, deadline=None)
@given(_terms(), st.randoms(use_true_random=False))
def test_let_sharing_does_not_change_the_normal_form(term, random):
    """However a printer lets-binds subterms (z3's choice depends on live references), the normal form is one text;
    and a different term has a different normal form."""
    head = "(set-logic QF_NIRA)\n(declare-fun x () Int)\n(declare-fun y () Int)\n(declare-fun n () Int)\n"
    plain = normalise_smt2(head + f"(assert (= 0 {_text(term, lambda t: False, [0])}))\n(check-sat)\n")
    shared = normalise_smt2(head + f"; a comment\n(assert (= 0 {_text(term, lambda t: random.random() < 0.5, [0])}))\n(check-sat)")
    assert plain == shared
    other = normalise_smt2(head + f"(assert (= 1 {_text(term, lambda t: False, [0])}))\n(check-sat)\n")
    assert other != plain


def test_the_normal_form_keeps_scoping_and_shares_repeated_terms():
    """Nested and parallel lets resolve by scope; a term used twice is bound once, in post-order."""
    text = "(set-logic QF_LIA)\n(assert (let ((x 1) (y 2)) (let ((x y)) (+ x (let ((y x)) y)))))\n(check-sat)\n"
    assert normalise_smt2(text) == "(set-logic QF_LIA)\n(assert (+ 2 2))\n(check-sat)\n"
    text = "(set-logic QF_LIA)\n(declare-fun a () Int)\n(assert (> (+ (* a 3) (* a 3)) (- (* a 3) 1)))\n(check-sat)\n"
    assert "(assert (let ((_let1 (* a 3))) (> (+ _let1 _let1) (- _let1 1))))" in normalise_smt2(text)


@pytest.mark.parametrize(
    "text",
    [
        "(set-logic QF_LIA)\n(assert (forall ((x Int)) (> x 0)))\n(check-sat)\n",
        "(set-logic QF_LIA)\n(assert (let (1) 2))\n(check-sat)\n",
        "(set-logic QF_LIA)\n(assert (let ((x 1 2)) x))\n(check-sat)\n",
        "(set-logic QF_LIA)\n(assert ())\n(check-sat)\n",
        "(set-logic QF_LIA)\n(assert 1 2)\n(check-sat)\n",
    ],
)
def test_malformed_queries_are_refused(text):
    """Binders other than let, malformed lets and empty applications are not certificate queries."""
    with pytest.raises(ValueError):
        normalise_smt2(text)


def test_the_log_is_json_of_the_claims_calls(median, tmp_path, capsys):
    """Every call names its claim, its query's fingerprint and z3's answer; a sat call its model. The CLI re-checks it."""
    calls = _calls(median.statement)
    assert calls and all(call["claim"] in ("sensitivity", "bounded-range") and len(call["query"]) in (8, 16) for call in calls)
    assert all((call["model"] is not None) == (call["result"] == "sat") for call in calls if call["call"] == "check")
    path = median.write(tmp_path / "median.cert.json")
    assert json.loads(path.read_text())["certificate"]["predicate"]["solver_calls"] == calls
    assert main(["check", str(path)]) == 0
