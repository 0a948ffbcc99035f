"""Domains of any size: an integer range is never listed, large work is refused up front, never killed.

The README's median over ``IntRange(0, N)`` proves, certifies and checks at
N = 10⁹ and 10¹² as at N = 15 (a range certificate records the ends, not the
outputs); the prover's picks in an integer range are computed from its ends
(the same picks listing it gave, on every small range); listing a domain past
``LARGEST_LISTED`` is refused before anything is allocated; and the command
line, under a 3 GB address-space limit, ends every generated large
configuration with exit 0, 1, 2 or 3 — never 4, never a signal.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs import Status, certify, check_certificate, prove_sensitivity
from expmech.proofs.prover._encoding import _inside, interesting_codes
from expmech.spec import LARGEST_LISTED, BudgetExceeded, IntRange, OutputSpace, QualityFunction, RecordSchema, count, size

ADDRESS_SPACE = 3 * 2**30


def median(n: int) -> QualityFunction:
    """The README's median over ``IntRange(0, n)`` records and outputs."""
    schema, outputs = RecordSchema(x=IntRange(0, n)), OutputSpace(r=IntRange(0, n))
    return QualityFunction(-sympy.Abs(count(schema["x"] <= outputs["r"]) - size() / 2), schema=schema, outputs=outputs, name="median")


def _listed_picks(domain: IntRange, seeds: list[int], limit: int) -> list[int]:
    """What interesting_codes picked by listing the range's codes (the reference it must still agree with)."""
    found: list[int] = []

    def add(code: int) -> None:
        inside = _inside(domain, code)
        if inside is not None and inside not in found and len(found) < limit:
            found.append(inside)

    for seed in seeds:
        add(seed)
    codes = list(range(domain.lo, domain.hi + 1))  # type: ignore[arg-type]
    if len(codes) <= limit - len(found):
        for code in codes:
            add(code)
        return found
    for seed in seeds:
        if domain.lo <= seed <= domain.hi:  # type: ignore[operator]
            at = seed - domain.lo  # type: ignore[operator]
            for offset in (-1, 1):
                if 0 <= at + offset < len(codes):
                    add(codes[at + offset])
    for code in (codes[0], codes[-1], codes[len(codes) // 2], codes[min(1, len(codes) - 1)], codes[max(-2, -len(codes))]):
        add(code)
    return found


@given(st.integers(-50, 50), st.integers(0, 300), st.lists(st.integers(-60, 360), max_size=5), st.integers(1, 12))
def test_integer_picks_are_computed_from_the_ends(lo: int, width: int, seeds: list[int], limit: int) -> None:
    """On every range small enough to list, the computed picks equal the listed ones, in order."""
    domain = IntRange(lo, lo + width)
    assert interesting_codes(domain, seeds, limit=limit) == _listed_picks(domain, seeds, limit)


@given(st.integers(-(10**15), 10**15), st.integers(5000, 10**15), st.lists(st.integers(-(10**15), 10**15), max_size=4), st.lists(st.fractions(), max_size=4))
def test_large_integer_picks_stay_inside_and_near_the_constants(lo: int, width: int, seeds: list[int], constants: list[Fraction]) -> None:
    """Past SMALL_DOMAIN the picks lie inside, include both ends, and the floor of a constant inside the range."""
    domain = IntRange(lo, lo + width)
    picks = interesting_codes(domain, seeds, limit=64, constants=constants)
    assert all(lo <= p <= lo + width and type(p) is int for p in picks)
    assert lo in picks and lo + width in picks
    for c in constants:
        if lo <= (c.numerator // c.denominator) <= lo + width:
            assert c.numerator // c.denominator in picks
    assert picks == interesting_codes(domain, seeds, limit=64, constants=constants)  # seeded: the same in every process


@given(st.integers(-(10**30), 10**30), st.integers(0, 10**30))
def test_sizes_are_counted_never_listed(lo: int, width: int) -> None:
    """``size`` counts an integer range of any width; listing one past LARGEST_LISTED is refused, nothing allocated."""
    domain = IntRange(lo, lo + width)
    assert domain.size == width + 1
    space = OutputSpace(r=domain, s=IntRange(0, 2))
    assert space.size == 3 * (width + 1)
    if width >= LARGEST_LISTED:
        with pytest.raises(BudgetExceeded, match="values"):
            domain.codes()
    if space.size > LARGEST_LISTED:
        with pytest.raises(BudgetExceeded, match="output space"):
            space.outputs()


@pytest.mark.parametrize("n", [10**9, 10**12])
def test_median_over_a_huge_range_is_proved_and_refuted_as_over_a_small_one(n: int) -> None:
    """Δq = 1 PROVED and tight, and a claimed 1/2 REFUTED with a witness, at N = 10⁹ and 10¹² as at N = 15."""
    proved = prove_sensitivity(median(n), neighbours="replace-one", claimed=1)
    assert proved.status is Status.PROVED and proved.bound == 1 and proved.tight
    wrong = prove_sensitivity(median(n), neighbours="replace-one", claimed=Fraction(1, 2))
    assert wrong.status is Status.REFUTED and wrong.counterexample is not None and wrong.counterexample.difference == 1


def test_median_over_a_huge_range_is_certified_by_its_ends_and_checks() -> None:
    """The certificate records IntRange(0, 10⁹) as its ends with the small range's ε = 1, and check re-derives it."""
    certificate = certify(median(10**9), epsilon=Fraction(1, 2), neighbours="replace-one", claimed=1)
    predicate = certificate.statement["predicate"]
    assert predicate["mechanism"]["range"]["kind"] == "IntRange"
    assert (predicate["mechanism"]["range"]["lo"], predicate["mechanism"]["range"]["hi"]) == (0, 10**9)  # an IntRange range writes its ends as its output domain does
    assert certificate.epsilon == certify(median(15), epsilon=Fraction(1, 2), neighbours="replace-one", claimed=1).epsilon == "1"
    report = check_certificate(certificate.data)
    assert report.exit_code == 0, report.summary


# -- the command line, as a fresh process under an address-space limit -----------------------------------


def _command() -> list[str]:
    script = Path(sys.executable).with_name("expmech")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "expmech.proofs.cli"]


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*_command(), *args], capture_output=True, text=True, cwd=cwd, timeout=600, preexec_fn=_limited)


def _project(tmp: Path, fields: list[int], outputs: list[int], neighbours: str = "replace-one") -> Path:
    """A project whose [tool.expmech] lists a median-like quality over IntRange fields and output variables of these sizes."""
    schema = ", ".join(f"x{i}=IntRange(0, {n - 1})" for i, n in enumerate(fields))
    space = ", ".join(f"r{i}=IntRange(0, {n - 1})" for i, n in enumerate(outputs))
    rest = "".join(f" - sympy.Abs(o['r{i}'] - count(s['x0'] >= o['r{i}']))" for i in range(1, len(outputs)))
    (tmp / "big.py").write_text(
        textwrap.dedent(
            f"""
            import sympy
            from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, size
            s, o = RecordSchema({schema}), OutputSpace({space})
            q = QualityFunction(-sympy.Abs(count(s['x0'] <= o['r0']) - size() / 2){rest}, schema=s, outputs=o, name="big")
            """
        )
    )
    (tmp / "pyproject.toml").write_text(f'[tool.expmech]\nmechanisms = [{{ quality = "big:q", epsilon = "1/2", neighbours = "{neighbours}" }}]\n')
    return tmp


def _assert_clean(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode in (0, 1, 2, 3), (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    assert "MemoryError" not in done.stdout + done.stderr and "internal error" not in done.stdout + done.stderr


def test_median_at_a_billion_verifies_certifies_and_checks_under_3_gb(tmp_path: Path) -> None:
    """verify, certify and check of the README's median at N = 10⁹ exit 0 under a 3 GB address-space limit."""
    project = _project(tmp_path, [10**9 + 1], [10**9 + 1])
    verified = _run(["verify"], project)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    certified = _run(["certify", "pyproject.toml", "-o", "out"], project)
    assert certified.returncode == 0, certified.stdout + certified.stderr
    assert json.loads((project / "out" / "big.cert.json").read_text())["certificate"]["predicate"]["mechanism"]["range"]["kind"] == "IntRange"
    checked = _run(["check", "out/big.cert.json"], project)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_too_many_outputs_are_refused_up_front_naming_the_flag(tmp_path: Path) -> None:
    """Two output variables of 10⁶ values each: exit 2 at once, naming the mechanism, the estimate and the limit."""
    project = _project(tmp_path, [10], [10**6, 10**6])
    done = _run(["verify"], project)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "'big'" in done.stdout and "outputs listed one by one" in done.stdout and "MB at peak" in done.stdout
    budget = _run(["verify", "--budget", "421"], _project(tmp_path, [10], [100, 100]))  # 10,000 outputs: about 445 MB
    assert budget.returncode == 2 and "exceeds the budget 421 MB" in budget.stdout and "rerun with expmech verify --budget 445" in budget.stdout, budget.stdout


SIZES = st.one_of(st.integers(1, 6), st.integers(2 * 10**6, 10**12))


@pytest.mark.slow
@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(1, 10**12), min_size=1, max_size=4), st.lists(SIZES, min_size=1, max_size=3), st.data())
def test_no_large_configuration_runs_out_of_memory(fields: list[int], outputs: list[int], data: st.DataObject) -> None:
    """verify (the CLI reading [tool.expmech]), certify and check on generated large domains of records and outputs, under
    either neighbour relation, under RLIMIT_AS = 3 GB: exit 0–3, never 4 or a signal."""
    import tempfile

    neighbours = data.draw(st.sampled_from(["replace-one", "add-remove"]), label="neighbours")
    with tempfile.TemporaryDirectory() as folder:
        project = _project(Path(folder), fields, outputs, neighbours)
        _assert_clean(_run(["verify"], project))
        certified = _run(["certify", "pyproject.toml", "-o", "out"], project)
        _assert_clean(certified)
        if (project / "out" / "big.cert.json").exists():
            _assert_clean(_run(["check", "out/big.cert.json"], project))


def test_report_series_of_many_outputs_matches_the_exact_one() -> None:
    """Past 64 outputs the report's floats come from one vectorised pass; they equal the exact values to 1e-9."""
    from expmech.impl import ExponentialMechanism
    from expmech.proofs.certificate.report._report_plot import witness_series

    certificate = certify(median(99), epsilon=Fraction(1, 2), neighbours="replace-one", claimed=1, pairs=0)
    series = witness_series(certificate, epsilon_label=None, epsilon_at_n=None)
    witness = certificate.statement["predicate"]["claims"][0]["witness"]
    mech = ExponentialMechanism(median(99), epsilon=Fraction(1, 2), outputs=list(range(100)))
    p1, p2 = mech.distribution(witness["dataset1"]), mech.distribution(witness["dataset2"])
    assert series is not None and len(series.loss) == 100
    for r in range(100):
        exact = abs(float(p1.probability(r).log()) - float(p2.probability(r).log()))
        assert abs(series.loss[r] - exact) < 1e-9 and abs(series.p1[r] - float(p1.probability(r))) < 1e-12


def test_a_generous_search_budget_never_lists_past_the_limit() -> None:
    """With search_budget far above LARGEST_LISTED the exhaustive search is skipped, not refused (z3 starved: UNKNOWN, no error)."""
    from expmech.spec import Booleans

    schema, outputs = RecordSchema(b=Booleans()), OutputSpace(r=IntRange(0, 3 * LARGEST_LISTED))
    quality = QualityFunction(-sympy.Abs(count(schema["b"] > 0) - outputs["r"]), schema=schema, outputs=outputs)
    assert prove_sensitivity(quality, neighbours="replace-one", search_budget=10**8).status is Status.PROVED
    starved = prove_sensitivity(quality, neighbours="replace-one", search_budget=10**8, rlimit=1)  # nothing proved: the exhaustive step runs
    assert starved.status is not Status.PROVED
