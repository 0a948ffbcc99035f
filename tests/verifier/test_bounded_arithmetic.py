"""Every arithmetic step of the verifier is bounded before it runs: hostile numbers get an answer, never a stall.

Issue 32's stalls: ``e^x >= 4 + 10^-2000`` undecided for a minute, and a bound summing 2,000 terms of
1,000 digits before its size guard looked.  The class — comparisons of ``e^x`` with rationals at any
distance, sums, products and powers of huge rationals, deep and wide bounds, large Farkas multipliers —
is generated, each call run under an alarm, and each exact answer checked against mpmath at high precision.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker_tools import node, num, root_text, statement, sym
from expmech.proofs.checker import read_statement
from expmech.proofs.checker._context import Rejected
from expmech.proofs.checker._numbers import MAX_BITS, TooLarge, add, exp_compare, mul, power
from expmech.proofs.checker._split import Atom, farkas_holds
from expmech.proofs.checker._terms import Reader, evaluate
from expmech.proofs.checker import derive

SECONDS = 2


@contextmanager
def answered_within(seconds: int = SECONDS) -> Iterator[None]:
    """Fail the test if the block runs longer than ``seconds`` (a stall, not a timing)."""

    def stalled(*_: Any) -> None:
        raise AssertionError(f"no answer within {seconds} s")

    previous = signal.signal(signal.SIGALRM, stalled)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_the_issues_exponential_is_answered_at_once():
    """e^(ln 4 to 50 digits) against 4 + 10^-2000: decided (below), in well under a second."""
    x = Fraction(138629436111989061883446424291635313615100026872051, 10**50)
    with answered_within():
        started = time.perf_counter()
        assert exp_compare(x, 4 + Fraction(1, 10**2000)) == -1
        assert time.perf_counter() - started < 1


@settings(max_examples=60, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(1, 10**6), st.integers(-400, 400), st.integers(1, 2**64))
def test_exponentials_are_exact_or_undecided_never_wrong(p, q, k, scale):
    """exp_compare agrees with mpmath at 20,000 bits wherever it answers, answers in time, and says None only at a near tie."""
    x = Fraction(p, q)
    with mpmath.workprec(20_000):
        target = Fraction(int(mpmath.nint(mpmath.exp(mpmath.mpf(p) / q) * scale)) + k, scale)
    with answered_within():
        try:
            sign = exp_compare(x, target)
        except TooLarge:
            assert max(target.numerator.bit_length(), target.denominator.bit_length()) > MAX_BITS
            return
    with mpmath.workprec(20_000):
        truth = mpmath.sign(mpmath.exp(mpmath.mpf(p) / q) - mpmath.mpf(target.numerator) / target.denominator)
    assert sign is None or sign == truth


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 3000), st.sampled_from([add, mul]))
def test_operations_past_the_limit_are_refused_before_they_run(digits_a, digits_b, operation):
    """add and mul refuse (TooLarge) exactly when their result could pass MAX_BITS, and otherwise are exact."""
    a, b = Fraction(10**digits_a + 1, 3**(digits_a // 2) + 1), Fraction(7**(digits_b // 2) + 1, 10**digits_b - 1)
    with answered_within():
        try:
            result = operation(a, b)
        except TooLarge:
            assert max(a.denominator.bit_length() + b.denominator.bit_length(), a.numerator.bit_length() + b.numerator.bit_length()) > MAX_BITS - 2
            return
    assert result == (a + b if operation is add else a * b)


def test_huge_powers_are_refused():
    """A power whose bits would pass the limit is refused up front."""
    with answered_within(), pytest.raises(TooLarge):
        power(Fraction(3**1000, 2**999), 64)


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 2000), st.integers(100, 1000))
def test_a_bound_of_many_long_terms_is_refused_or_summed_in_time(terms, digits):
    """A bound summing many terms of hundreds of digits (distinct denominators) is refused or summed, under the alarm."""
    reader = Reader({"n"}, max_nodes=10**6)
    tree = node("Add", *[num(Fraction(10**digits + i, 10**digits - i - 1)) for i in range(terms)])
    with answered_within():
        try:
            value = evaluate(reader.read(tree), {})
        except TooLarge:
            return
    assert isinstance(value, Fraction)


def test_a_hostile_sensitivity_bound_is_rejected_in_time():
    """A derivation whose bound sums 2,000 thousand-digit terms is rejected (or accepted) by the rules, under the alarm."""
    data = statement(node("Count", node("Le", sym("x"), sym("r"))), [["x", {"kind": "IntRange", "lo": 0, "hi": 3}]],
                     [["r", {"kind": "IntRange", "lo": 0, "hi": 3}]], {"kind": "finite", "outputs": [0, 1], "base_measure": ["1", "1"]})
    bound = node("Add", *[num(Fraction(10**1000 + i, 10**999 + 7 * i + 1)) for i in range(2000)])
    derivation = {"format": 1, "claim": "sensitivity", "relation": "replace-one", "start": 1, "bound": bound, "root": {
        "id": "1", "term": [], "text": root_text(data), "case": {"from": 1}, "bound": bound, "rule": "linear", "data": {"plain": "1", "mean": "0"}, "premises": []}}
    parsed = read_statement(data, max_nodes=10**5, max_outputs=10**5)
    with answered_within():
        try:
            derive(parsed, derivation, lambda kind, at: {})
        except Rejected:
            pass


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5), st.integers(0, 4000)), min_size=1, max_size=8), st.integers(1, 4000))
def test_farkas_checks_of_huge_multipliers_answer_in_time(rows, digits):
    """Multipliers of thousands of digits are checked (or refused) under the alarm; acceptance means a real contradiction."""
    atoms = [Atom(tuple(sorted({("x", Fraction(a)), ("y", Fraction(b))} - {("x", Fraction(0)), ("y", Fraction(0))})), Fraction(c, 7), "<=") for a, b, c in rows]
    multipliers = [[i, f"{10**digits + i}/{3**(digits // 3) + 1}"] for i in range(len(atoms))]
    with answered_within():
        try:
            holds = farkas_holds(atoms, multipliers)
        except TooLarge:
            return
    if holds:  # the weighted sum is a constant > 0 that must be <= 0
        weights = [Fraction(m[1]) for m in multipliers]
        total = sum((w * a.const for w, a in zip(weights, atoms)), Fraction(0))
        assert total > 0 and all(sum((w * dict(a.coeffs).get(v, 0) for w, a in zip(weights, atoms)), Fraction(0)) == 0 for v in "xy")
