"""`expmech synth` checks every argument before any work, prices the run, writes atomically, certifies on request."""

import os
import re
from fractions import Fraction
from math import comb

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from expmech.impl.applications._synthetic import SyntheticDataMechanism, conjunctions, halfspaces
from expmech.proofs.cli import main
from expmech.proofs.cli._synth_cost import CERTIFICATE_UNITS_PER_MULTISET, DEFAULT_BUDGET, estimate_cost

ROWS = ["1,0,1", "0,1,1", "1,1,0", "0,0,1", "1,0,0", "1,1,1"]
FIXTURES = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


def run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def assert_usage_error(code, out, err, *fragments):
    """Exit 2, nothing on stdout, one line on stderr holding every fragment."""
    assert code == 2 and out == "", (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def released(out):
    return out.split("synthetic dataset:\n")[1].split()


@given(st.integers(1, 6), st.integers(1, 5), st.sampled_from(["halfspaces", "conjunctions"]), st.integers(0, 45), st.booleans())
def test_the_cost_estimate_counts_the_work(k, m, queries, prefixes, certificate):
    """multisets and |H| in the estimate are exactly the mechanism's; units = multisets × (|H| × passes + certificate)."""
    if queries == "halfspaces" and k < 2:
        return
    cost = estimate_cost(k=k, m=m, queries=queries, prefixes=prefixes, certificate=certificate)
    assert cost.multisets == comb(2**k + m - 1, m)
    assert cost.queries == len(halfspaces(k) if queries == "halfspaces" else conjunctions(k))
    assert cost.units == cost.multisets * (cost.queries * (2 + prefixes) + (CERTIFICATE_UNITS_PER_MULTISET if certificate else 0))
    if k <= 3 and m <= 3:
        mech = SyntheticDataMechanism([(0,) * k], k=k, m=m, epsilon=1, queries=halfspaces(k) if queries == "halfspaces" else conjunctions(k))
        assert cost.multisets == sum(1 for _ in mech.multisets())


@settings(max_examples=20, suppress_health_check=FIXTURES)
@given(st.integers(2, 4), st.integers(1, 40), st.integers(1, 10**7))
def test_a_run_above_the_budget_is_refused_with_the_estimate_and_the_flag(tmp_path, capsys, k, m, budget):
    """Above --budget: exit 2 before any work, naming the estimate and the --budget that proceeds; at it, the run proceeds."""
    data = tmp_path / "bits.csv"
    data.write_text("\n".join(",".join("01"[(i >> j) & 1] for j in range(k)) for i in range(5)) + "\n")
    cost = estimate_cost(k=k, m=m, queries="halfspaces", prefixes=0, certificate=False)
    code, out, err = run(["synth", str(data), "--m", str(m), "--budget", str(budget), "--seed", "1"], capsys)
    if cost.units > budget:
        assert_usage_error(code, out, err, f"{cost.multisets:,} multisets", f"--budget {cost.units}")
    else:
        assert code == 0 and len(released(out)) == m and f"= {cost.units:,} evaluations" in err


def test_huge_m_is_refused_at_once(tmp_path, capsys):
    """A huge --m (or k) is refused immediately with its estimate, never a hang."""
    data = tmp_path / "bits.csv"
    data.write_text("\n".join(ROWS) + "\n")
    code, out, err = run(["synth", str(data), "--m", str(10**30)], capsys)
    assert_usage_error(code, out, err, "beyond any budget")
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join("1" * 1) * 0 + ",".join(["1"] * 2000) + "\n")
    code, out, err = run(["synth", str(wide), "--m", "1"], capsys)
    assert_usage_error(code, out, err, "beyond any budget")


@pytest.mark.parametrize(
    ("flag", "value"),
    [("--alpha", "2"), ("--alpha", "0"), ("--alpha", "1"), ("--alpha", "-1/2"), ("--alpha", "x"), ("--delta", "1"), ("--delta", "0"),
     ("--delta", "3/2"), ("--epsilon", "0"), ("--epsilon", "-1"), ("--epsilon", "nan"), ("--m", "0"), ("--k", "0"), ("--pairs", "-1"),
     ("--budget", "0"), ("--search-budget", "0")],
)
def test_every_argument_is_checked_before_any_work(tmp_path, capsys, flag, value):
    """A bad argument is exit 2 in one line naming it — even when the input does not exist (no work was done)."""
    argv = ["synth", str(tmp_path / "missing.csv"), "--m", "2", flag, value]
    code, out, err = run(argv, capsys)
    assert_usage_error(code, out, err, flag)


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda p: p.mkdir(), "is not a file"),
        (lambda p: p.write_bytes(b"1,0\n\xff\xfe,1\n"), "is not UTF-8"),
        (lambda p: p.write_text(""), "has no records"),
        (lambda p: p.write_text("a,b\n"), "has no records"),
        (lambda p: p.write_text("1,0\n1,2\n"), "line 2: '1,2'"),
        (lambda p: p.write_text("1,0\n1,0,1\n"), "line 2"),
        (lambda p: p.write_text("2,0\n1,0\n"), "line 1: '2,0'"),
    ],
)
def test_bad_input_files_exit_2(tmp_path, capsys, make, fragment):
    """A directory, non-UTF-8 bytes, no records or a bad record: exit 2 naming the input (never 4)."""
    path = tmp_path / "input.csv"
    make(path)
    code, out, err = run(["synth", str(path), "--m", "1", "--queries", "conjunctions"], capsys)
    assert_usage_error(code, out, err, fragment)


@pytest.mark.parametrize(
    ("option", "value", "fragment"),
    [("--plot", "{tmp}/no/such/dir/e.png", "does not exist"), ("--plot", "{tmp}", "is a directory"), ("--plot", "{tmp}/e.txt", "must end in"),
     ("--certificate", "{tmp}/no/c.json", "does not exist"), ("--certificate", "{tmp}", "is a directory")],
)
def test_output_paths_are_checked_before_any_work(tmp_path, capsys, option, value, fragment):
    """A bad --plot or --certificate path is exit 2 before anything is computed or printed."""
    data = tmp_path / "bits.csv"
    data.write_text("\n".join(ROWS) + "\n")
    code, out, err = run(["synth", str(data), "--m", "1", option, value.format(tmp=tmp_path)], capsys)
    assert_usage_error(code, out, err, option, fragment)


@settings(max_examples=25, suppress_health_check=FIXTURES)
@given(
    st.lists(st.sampled_from(ROWS), min_size=1, max_size=6),
    st.sampled_from([None, "a,b,c", "x1, x2, x3", "bit,bit,bit", "1,0,1", "0,0,0", "-1,0,1", "2,1,1"]),
    st.booleans(),
)
def test_a_header_is_read_only_when_said_or_not_numeric(tmp_path_factory, capsys, rows, first, flag):
    """--header drops the first row; a non-numeric first row is dropped and said so; a numeric one is data (or an error)."""
    path = tmp_path_factory.mktemp("header") / "bits.csv"
    lines = ([first] if first is not None else []) + rows
    path.write_text("\n".join(lines) + "\n")
    argv = ["synth", str(path), "--m", "1", "--seed", "0"] + (["--header"] if flag else [])
    code, out, err = run(argv, capsys)
    numeric = first is None or re.fullmatch(r"[-0-9, ]+", first) is not None
    expected_n = len(lines) - (1 if (flag or not numeric) else 0)
    if not flag and first in ("-1,0,1", "2,1,1"):
        assert_usage_error(code, out, err, "line 1")
        return
    if expected_n == 0:
        assert_usage_error(code, out, err, "has no records")
        return
    assert code == 0, err
    assert f"n = {expected_n} records" in out
    assert ("read as a header" in err) == (not flag and not numeric)


def test_the_certificate_only_with_the_flag(tmp_path, capsys, monkeypatch):
    """Without --certificate nothing is proved or written (and the output says so); with it, the certificate checks."""
    from expmech.proofs import check_certificate
    from expmech.proofs.cli import _synth

    data = tmp_path / "bits.csv"
    data.write_text("\n".join(ROWS * 2) + "\n")

    def refuse(*_, **__):
        raise AssertionError("certify called without --certificate")

    with monkeypatch.context() as patch:
        patch.setattr(_synth, "certify", refuse)
        code, out, _ = run(["synth", str(data), "--m", "2", "--seed", "1"], capsys)
    assert code == 0 and "not proved in this run" in out and "certificate" not in os.listdir(tmp_path)
    cert = tmp_path / "s.cert.json"
    code, out, _ = run(["synth", str(data), "--m", "2", "--seed", "1", "--certificate", str(cert)], capsys)
    assert code == 0 and "certificate: PROVED" in out and check_certificate(cert).ok


def test_outputs_are_written_atomically(tmp_path, capsys, monkeypatch):
    """A write that fails midway leaves the old file intact and no temporary file behind; it is exit 2 naming the path."""
    from expmech.proofs.cli import _synth

    data = tmp_path / "bits.csv"
    data.write_text("\n".join(ROWS) + "\n")
    plot = tmp_path / "error.png"
    plot.write_bytes(b"old plot")

    def broken(curve, mech, alpha, path):
        path.write_bytes(b"half a pl")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(_synth, "_plot", broken)
    code, out, err = run(["synth", str(data), "--m", "1", "--plot", str(plot)], capsys)
    assert code == 2 and "No space left on device" in err and str(plot) in err
    assert plot.read_bytes() == b"old plot" and sorted(os.listdir(tmp_path)) == ["bits.csv", "error.png"]


CELLS = st.sampled_from(["0", "1", "1", "0", "2", "a", "", " 1", "x1", "-1", "1.0"])
LINES = st.lists(CELLS, min_size=1, max_size=4).map(",".join)
VALID = st.lists(st.sampled_from(ROWS), min_size=1, max_size=6).map(lambda ls: ("\n".join(ls) + "\n").encode())
CONTENT = st.one_of(
    VALID,
    VALID,
    VALID,
    st.lists(LINES, max_size=6).map(lambda ls: ("\n".join(ls) + "\n").encode()),
    st.binary(max_size=30),
    st.just(b"\xef\xbb\xbf1,0\n0,1\n"),
)
VALUES = {
    "--m": ["0", "1", "2", "-3", "x", str(10**40)],
    "--k": ["1", "2", "3", "0", "99"],
    "--epsilon": ["1", "1/2", "0.1", "0", "-1", "nan", "inf", "1e-400", "1/0", "abc"],
    "--alpha": ["1/2", "0.25", "0", "1", "2", "x"],
    "--delta": ["1/10", "0", "1", "7/8", "-1"],
    "--queries": ["halfspaces", "conjunctions", "both"],
    "--budget": ["1", "100", "100000000", "0", "-1"],
    "--seed": ["0", "7", "x"],
    "--pairs": ["0", "1", "-1"],
    "--plot": ["{tmp}/e.png", "{tmp}/e.txt", "{tmp}", "{tmp}/no/e.png"],
    "--certificate": ["{tmp}/c.json", "{tmp}", "{tmp}/no/c.json"],
}
FLAGS = st.lists(st.sampled_from(sorted(VALUES)).flatmap(lambda f: st.sampled_from(VALUES[f]).map(lambda v: (f, v))), max_size=3, unique_by=lambda fv: fv[0])


@settings(max_examples=80, deadline=None, suppress_health_check=FIXTURES)
@given(CONTENT, FLAGS, st.booleans(), st.sampled_from(["file"] * 6 + ["missing", "dir"]))
def test_exit_4_is_unreachable_from_malformed_input_and_flags(tmp_path_factory, capsys, content, flags, header, kind):
    """Any CSV bytes, any flags: exit 0 or 2, never 4; a usage error is one line; a success prints a release."""
    tmp = tmp_path_factory.mktemp("synth")
    path = tmp / "input.csv"
    if kind == "file":
        path.write_bytes(content)
    elif kind == "dir":
        path.mkdir()
    options = dict(flags)
    options.setdefault("--m", "1")
    if "--certificate" in options and options["--certificate"] == "{tmp}/c.json":
        options["--m"], options["--pairs"] = "1", "1"  # keep the certificate's search small
    argv = ["synth", str(path)] + [part for flag, value in options.items() for part in (flag, value.format(tmp=tmp))] + (["--header"] if header else [])
    code = main(argv)
    captured = capsys.readouterr()
    event(f"exit {code}")
    assert code in (0, 2), captured.err
    assert "Traceback" not in captured.err and "internal error" not in captured.err
    if code == 2:
        assert captured.out == "" and captured.err.count("\n") == 1, captured.err
    else:
        assert "synthetic dataset:" in captured.out
