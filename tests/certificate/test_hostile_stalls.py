"""Hostile stalls: certificates whose exact arithmetic would never end are refused up front, by name.

A piecewise-geometric base measure with a breakpoint near 2**52 makes the exact
sums raise its ratio to a 2**52-bit power; posterior sampling whose ε₀ = a/b has
a 60-digit numerator raises every likelihood to that power.  Both hung
``expmech check`` (and ``certify``).  Generated hostile certificates, resealed
as anyone can, are decided by the verifier (which does no exact power) within a
wall-clock limit; the reproduction's content limits refuse them (exit 2, naming
the field and the limit: ``max_power_bits``, ``max_exponent``), and ``certify``
refuses the same inputs before deriving anything.
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import POSTERIOR_CATALOGUE
from expmech.proofs import CertificateLimits, certify
from expmech.proofs.certificate.make._build import seal
from expmech.proofs.certificate.format._limits import CertificateRefused, check_content_limits
from expmech.spec import IntRange, OutputSpace, PiecewiseGeometric, QualityFunction, RecordSchema, count

#: Wall-clock seconds a refused certificate may take as a whole ``expmech check`` process (it takes about one).
REFUSAL_SECONDS = 60
SCHEMA = RecordSchema(x=IntRange(0, 10))
INTEGERS = OutputSpace(r=IntRange(None, None))


def _geometric_quality() -> QualityFunction:
    return QualityFunction(-sympy.Abs(INTEGERS["r"] - count(SCHEMA["x"] >= 5)), schema=SCHEMA, outputs=INTEGERS)


@functools.lru_cache(maxsize=None)
def _honest(kind: str) -> dict:
    """An honest certificate: a geometric μ on ℤ (breakpoint 0), or the first posterior catalogue entry."""
    if kind == "geometric":
        measure = PiecewiseGeometric(breakpoints=(0,), weights=(1, 1), ratios=(2, Fraction(1, 2)))
        return certify(_geometric_quality(), epsilon=Fraction(1, 2), neighbours="replace-one", claimed=1, base_measure=measure, pairs=3).data
    entry = POSTERIOR_CATALOGUE[0]
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, base_measure=entry.base_measure, pairs=3).data


def _resealed(kind: str, value: object) -> dict:
    """The honest certificate with its breakpoint (geometric) or ε₀ (posterior) replaced, and a fresh digest."""
    statement = copy.deepcopy(_honest(kind)["certificate"])
    mechanism = statement["predicate"]["mechanism"]
    if kind == "geometric":
        mechanism["range"]["base_measure"]["breakpoints"] = [value]
    else:
        mechanism["epsilon0"] = value
    return seal(statement)


def hostile() -> st.SearchStrategy[tuple[str, object, str]]:
    """(kind, value, the limit that must refuse it): breakpoints of magnitude 2**20 to 2**53 − 1 (2**52 ± a little
    among them), and ε₀ = a/b with a from 65 to 60 digits and b from 1 to 60 digits."""
    near = st.integers(-3, 3).map(lambda d: 2**52 + d)
    breakpoint_ = st.one_of(near, st.integers(2**20, 2**53 - 1), st.integers(-(2**53 - 1), -(2**20)))  # a JSON integer's range
    epsilon0 = st.builds(lambda a, b: f"{a}/{b}" if b > 1 else str(a), st.one_of(st.integers(65, 10**6), st.integers(10**59, 10**60)), st.one_of(st.just(1), st.integers(2, 10**60)))
    return st.one_of(
        breakpoint_.map(lambda b: ("geometric", b, "max_power_bits")),
        epsilon0.filter(lambda e: Fraction(e).numerator > 64).map(lambda e: ("posterior", e, "max_exponent")),
    )


@settings(max_examples=40, deadline=None)
@given(hostile())
def test_the_content_limits_refuse_every_hostile_power(case):
    """Generated hostile values: the content limits refuse each, naming the field and the limit (no arithmetic done)."""
    kind, value, limit = case
    with pytest.raises(CertificateRefused) as caught:
        check_content_limits(_resealed(kind, value)["certificate"], CertificateLimits())
    assert caught.value.parameter == limit
    assert ("mechanism.range.base_measure" if kind == "geometric" else "mechanism.epsilon0") in str(caught.value)


@settings(max_examples=4, deadline=None)
@given(hostile())
def test_expmech_check_decides_them_within_a_wall_clock_limit(tmp_path_factory, case):
    """The whole command, on a generated hostile certificate written to a file, decides it in time.  The verifier does
    no exact power: the moved breakpoint leaves a true ε-DP claim (ε = 2·ε₀·Δq for any μ of finite mass: exit 0), the
    replaced ε₀ is not the derivation's (exit 1).  ``--reproduce`` refuses the breakpoint by its limit (exit 2)."""
    kind, value, limit = case
    path = tmp_path_factory.mktemp("hostile") / "hostile.cert.json"
    path.write_text(json.dumps(_resealed(kind, value)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "check", str(path)], capture_output=True, text=True, timeout=REFUSAL_SECONDS)
    if kind == "geometric":
        assert done.returncode == 0 and "ε = 1" in done.stdout, done.stdout + done.stderr
    else:
        assert done.returncode == 1 and "is not the mechanism's ε₀" in done.stdout, done.stdout + done.stderr
    done = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "check", "--reproduce", str(path)], capture_output=True, text=True, timeout=REFUSAL_SECONDS)
    if kind == "geometric":
        assert done.returncode == 2 and limit in done.stdout and "REFUSED" in done.stdout, done.stdout + done.stderr
    else:
        assert done.returncode == 1, done.stdout + done.stderr


CERTIFY = """
import sys
from fractions import Fraction
import sympy
from expmech.impl import POSTERIOR_CATALOGUE
from expmech.proofs import certify
from expmech.proofs.certificate.format._limits import CertificateRefused
from expmech.spec import IntRange, OutputSpace, PiecewiseGeometric, QualityFunction, RecordSchema, count

schema, integers = RecordSchema(x=IntRange(0, 10)), OutputSpace(r=IntRange(None, None))
quality = QualityFunction(-sympy.Abs(integers["r"] - count(schema["x"] >= 5)), schema=schema, outputs=integers)
entry = POSTERIOR_CATALOGUE[0]
cases = [
    lambda: certify(quality, epsilon=Fraction(1, 2), neighbours="replace-one", claimed=1,
                    base_measure=PiecewiseGeometric(breakpoints=(2**52,), weights=(1, 1), ratios=(2, Fraction(1, 2)))),
    lambda: certify(entry.quality, epsilon=Fraction(10**59 + 3, 10**59 + 7), neighbours=entry.neighbours, base_measure=entry.base_measure),
]
for case in cases:
    try:
        case()
    except CertificateRefused as error:
        print(error.parameter)
"""


def test_certify_refuses_the_same_inputs_up_front():
    """certify raises the same refusal before deriving (it hung too), in a process under a wall-clock limit."""
    done = subprocess.run([sys.executable, "-c", CERTIFY], capture_output=True, text=True, timeout=REFUSAL_SECONDS)
    assert done.stdout.split() == ["max_power_bits", "max_exponent"], done.stdout + done.stderr


def test_a_raised_limit_admits_what_it_names():
    """The refusal is a limit, not a verdict: raising it lets the certificate through the gate."""
    check_content_limits(_resealed("geometric", 2**30)["certificate"], CertificateLimits(max_power_bits=2**40))
    check_content_limits(_resealed("posterior", "65/7")["certificate"], CertificateLimits(max_exponent=65))


@pytest.mark.slow
@pytest.mark.parametrize("kind, value", [("geometric", 2**17), ("geometric", -(2**17)), ("posterior", f"64/{10**59 + 7}"), ("posterior", f"1/{10**60 - 1}")])
def test_admitted_values_near_the_limits_finish(tmp_path, kind, value):
    """Just inside the limits, the re-derivation runs and ends (tampered, so exit 1; never a hang) within minutes."""
    path = tmp_path / "near.cert.json"
    path.write_text(json.dumps(_resealed(kind, value)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "expmech.proofs.cli", "check", str(path)], capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1, 3), done.stdout + done.stderr
