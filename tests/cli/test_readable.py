"""Values, results and messages print in mathematical form: ``-1``, ``1/2``, exact form ≈ approximation."""

import itertools
import re
from decimal import Decimal
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, WRONG_CATALOGUE, ExponentialMechanism, ExpRatio, ExpSum, LogExpRatio
from expmech.proofs import Status, Witness, certify, exhaustive_check, falsify, prove_monotone, prove_sensitivity
from expmech.spec import DATASET_SIZE, ExpMechError, IntRange, QualityError, RecordSchema
from expmech.spec._errors import approximate, describe, readable
from expmech.spec._validate import positive_rational

rationals = st.fractions(max_denominator=10**6).filter(lambda f: abs(f) < 10**12)
small_rationals = st.fractions(min_value=-4, max_value=4, max_denominator=12)
atoms = st.one_of(rationals, st.integers(-(10**30), 10**30), st.text(max_size=4), st.booleans(), st.none())
values = st.recursive(
    atoms,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner, inner), st.dictionaries(st.text(max_size=2), inner, max_size=2)),
    max_leaves=8,
)


def _sympy_of(text):
    """Parse the mathematical form back (×, −, e^(x), ln) into a sympy expression."""
    text = text.replace("·", "*").replace("−", "-").replace("…", "")
    text = re.sub(r"e\^\(([^)]*)\)", r"exp(\1)", text)
    text = re.sub(r"e\^(\d+)", r"exp(\1)", text)
    text = re.sub(r"\be\b", "E", text)
    return sympy.sympify(text.replace("ln(", "log("), locals={"E": sympy.E})


@given(values)
def test_readable_never_shows_a_fraction_constructor(value):
    """Any nesting of rationals is written without Fraction(…), and describe() caps the length."""
    assert "Fraction(" not in readable(value)
    assert "Fraction(" not in describe(value) and len(describe(value)) <= 120


class _RaisingRepr:
    def __init__(self, error):
        self.error = error

    def __repr__(self):
        raise self.error("repr raised")


huge_integers = st.integers(4000, 9000).flatmap(lambda digits: st.sampled_from([10**digits, -(10**digits) + 7, 3**digits]))
unprintable = st.sampled_from([RuntimeError, ValueError, TypeError, RecursionError]).map(_RaisingRepr)


@given(st.recursive(huge_integers | huge_integers.map(lambda i: Fraction(1, i)) | huge_integers.map(sympy.Integer) | unprintable | atoms,
                    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner), max_leaves=5))
def test_readable_never_raises(value):
    """Past Python's 4300-digit int-to-str limit, or on an object whose repr raises, a message is still written."""
    text = describe(value)
    assert len(text) <= 120 and "Fraction(" not in text


@given(huge_integers)
def test_a_huge_integer_reads_back_exactly(value):
    """readable() of a 5000-digit integer is its exact digits (str() would raise)."""
    text = readable(value)
    assert text.lstrip("-").isdigit() and len(text.lstrip("-")) == len(format(Decimal(value), "f").lstrip("-"))
    assert Decimal(text) == Decimal(value)


@given(rationals)
def test_a_rational_reads_back_exactly(value):
    """readable(p/q) is 'p/q' (or 'p'), which Fraction parses back to the same value."""
    text = readable(value)
    assert Fraction(text) == value and ("/" in text) == (value.denominator != 1)


@given(st.fractions().filter(lambda f: f != 0), st.integers(-400, 400))
def test_approximation_is_close_at_any_magnitude(value, exponent):
    """approximate() keeps 4 significant digits at any magnitude (no float overflow)."""
    scaled = value * Fraction(10) ** exponent
    shown = Decimal(approximate(scaled))
    assert abs(Fraction(shown) - scaled) <= abs(scaled) / 1000


sums = st.lists(st.tuples(small_rationals.filter(bool), small_rationals), min_size=1, max_size=5).map(ExpSum)


@given(sums)
def test_expsum_text_is_the_exact_value(value):
    """str(ExpSum) parses back to exactly the same sum."""
    assume_nonzero = value.terms
    text = str(value)
    assert "Fraction(" not in text and "Fraction(" not in repr(value)
    expected = sum((sympy.Rational(c.numerator, c.denominator) * sympy.exp(sympy.Rational(b.numerator, b.denominator)) for c, b in assume_nonzero), sympy.Integer(0))
    assert sympy.simplify(_sympy_of(text) - expected) == 0


@given(sums, sums)
def test_expratio_shows_exact_form_and_a_close_approximation(top, bottom):
    """str(ExpRatio) is the exact quotient ≈ a decimal within 10⁻³ relative of the true value."""
    assume(not bottom.is_zero())
    ratio = ExpRatio(top, bottom if bottom.sign() > 0 else -bottom)
    text = str(ratio)
    assert repr(ratio) == f"ExpRatio({text})" and "Fraction(" not in text
    exact, _, approx = text.partition(" ≈ ")
    lo, hi = ratio.enclose(60)
    if approx:
        assert abs(Fraction(Decimal(approx)) - lo) <= abs(lo) / 1000
    else:
        assert lo <= Fraction(exact) <= hi
    assert abs(float(_sympy_of(exact)) - float(lo)) <= abs(float(lo)) * 1e-9 + 1e-300


@given(sums.filter(lambda s: s.sign() > 0), sums.filter(lambda s: s.sign() > 0))
def test_logexpratio_shows_exact_form_and_a_close_approximation(top, bottom):
    """str(LogExpRatio) is ln(N / D) (or b + ln(c), or a rational) ≈ a close decimal."""
    loss = LogExpRatio.of(top, bottom)
    text = str(loss)
    assert repr(loss) == f"LogExpRatio({text})" and "Fraction(" not in text
    exact, _, approx = text.partition(" ≈ ")
    lo, hi = loss.enclose(60)
    if approx:
        assert abs(Fraction(Decimal(approx)) - lo) <= abs(lo) / 1000 + Fraction(1, 10**6)
    else:
        assert lo <= Fraction(exact) <= hi
    assert abs(float(_sympy_of(exact)) - float(lo)) <= 1e-6 * (1 + abs(float(lo)))


def test_privacy_loss_prints_its_value_and_output():
    """A failing `assert loss <= eps` shows the loss in mathematical form, not LogExpRatio(ExpSum…)."""
    median = CATALOGUE[0].quality
    mech = ExponentialMechanism(median, epsilon=Fraction(1, 2), outputs=median.outputs())
    loss = mech.privacy_loss([1, 2, 2, 5, 6], [1, 2, 9, 5, 6])
    assert re.fullmatch(r"PrivacyLoss\(ln\(.*\) ≈ 0\.3740 at r = 5\)", repr(loss))
    with pytest.raises(AssertionError) as failure:
        assert loss <= Fraction(1, 4)
    assert "ExpSum(" not in str(failure.value)


records = st.lists(st.integers(0, 5) | rationals, max_size=4).map(tuple)


@given(records, records, rationals | st.integers(0, 9), rationals.map(abs), st.integers(1, 9), st.one_of(st.none(), rationals.map(abs), st.just(1 / DATASET_SIZE)))
def test_witness_reads_as_mathematics(d1, d2, output, difference, size, claimed):
    """str(Witness) states |q(D, r) − q(D', r)| = d (> the claim, for a counterexample), D, D' and r readably."""
    witness = Witness(d1, d2, output, difference, size, claimed=claimed)
    text = str(witness)
    assert text.startswith(f"|q(D, r) − q(D', r)| = {readable(difference)}")
    assert f"D = {readable(list(d1))}, D' = {readable(list(d2))}, r = {readable(output)}" in text
    assert ("Fraction(" in text) is False
    if claimed is None:
        assert " > " not in text.split(" at D")[0]
    elif isinstance(claimed, sympy.Basic):
        assert f" > {claimed.subs(DATASET_SIZE, size)} (claimed 1/n at n = {size})" in text
    else:
        assert f" > {readable(claimed)} at D" in text


@given(records, records, rationals | st.integers(0, 9), rationals.map(abs), st.integers(1, 9), st.one_of(st.none(), rationals.map(abs)))
def test_reprs_read_as_mathematics_too(d1, d2, output, difference, size, claimed):
    """repr(Witness) — what a failing assert shows — holds its str, never Fraction(…) or a dataclass dump."""
    witness = Witness(d1, d2, output, difference, size, claimed=claimed)
    assert repr(witness) == f"<Witness {witness}>" and "Fraction(" not in repr(witness)


def test_falsification_results_and_certificates_repr_readably():
    """repr of a falsifier's result and of a certificate: one readable line, no Fraction(…), no JSON dump."""
    def quality(data, r):
        return -abs(sum(data) - r)

    found = falsify(quality, neighbours="replace-one", claimed=Fraction(1, 2), outputs=range(10), schema=RecordSchema(v=IntRange(0, 5)))
    assert repr(found).startswith("<FalsificationResult REFUTED") and "Fraction(" not in repr(found) and "\n" not in repr(found)
    certificate = certify(CATALOGUE[0].quality, epsilon=Fraction(1, 2), neighbours="replace-one")
    assert str(certificate) == f"certificate of quality:median: PROVED, ε = 1; sha256:{certificate.digest[:12]}…"
    assert repr(certificate) == f"<{certificate}>" and "{" not in repr(certificate)


@pytest.mark.parametrize("entry", CATALOGUE + WRONG_CATALOGUE, ids=lambda e: e.name)
def test_results_read_as_mathematics(entry):
    """Every catalogue verdict prints its status, Δq, and a witness or a counterexample, without Fraction(…)."""
    result = prove_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    text, short = str(result), repr(result)
    assert text.startswith(str(result.status)) and short.startswith(f"<SensitivityResult {result.status}")
    assert "Fraction(" not in text + short and "SMT" not in short
    if result.status is Status.REFUTED:
        assert f"counterexample: {result.counterexample}" in text and " > " in str(result.counterexample)
    if result.tight:
        assert f"witness: {result.witness}" in text
    monotone = prove_monotone(entry.quality, neighbours=entry.neighbours)
    assert str(monotone).startswith(str(monotone.status)) and "Fraction(" not in str(monotone)


@given(st.fractions(max_value=0) | st.integers(max_value=0))
def test_error_messages_show_rationals_readably(epsilon):
    """A bad ε is named as `epsilon=-1/2`, never `epsilon=Fraction(-1, 2)`."""
    median = CATALOGUE[0].quality
    with pytest.raises(ExpMechError) as error:
        ExponentialMechanism(median, epsilon=epsilon, outputs=median.outputs())
    assert f"epsilon={readable(epsilon)}" in str(error.value) and "Fraction(" not in str(error.value)
    with pytest.raises(ExpMechError) as error:
        positive_rational(epsilon, name="epsilon")
    assert str(error.value) == f"epsilon={readable(epsilon)} must be > 0"


ERRORS = [ZeroDivisionError, KeyError, TypeError, ValueError, IndexError, OverflowError, AttributeError, RuntimeError]


@settings(max_examples=25, suppress_health_check=[HealthCheck.nested_given])
@given(st.sampled_from(ERRORS), st.integers(0, 5), st.sampled_from(["add-remove", "replace-one"]))
def test_a_raising_black_box_gets_a_quality_error(error, trigger, neighbours):
    """falsify and exhaustive_check turn any exception of the quality into a QualityError naming D and r."""

    def quality(data, r):
        if sum(data) % 6 == trigger:
            raise error("boom")
        return sum(data) - r

    schema = RecordSchema(v=IntRange(0, 5))
    for check in (
        lambda: falsify(quality, neighbours=neighbours, claimed=100, outputs=range(3), schema=schema, max_examples=30),
        lambda: exhaustive_check(quality, neighbours=neighbours, claimed=100, outputs=range(3), records=range(6), max_size=2),
    ):
        with pytest.raises(QualityError) as caught:
            check()
        assert error.__name__ in str(caught.value) and "dataset=" in str(caught.value)


def test_a_nondeterministic_black_box_is_named():
    """A quality that answers differently for the same input is refused as such, never a bare hypothesis error."""
    counter = itertools.count()

    def quality(data, r):
        return next(counter) % 7

    try:
        result = falsify(quality, neighbours="replace-one", claimed=3, outputs=range(2), schema=RecordSchema(v=IntRange(0, 5)), max_examples=50)
    except QualityError as error:
        assert "deterministic" in str(error)
    else:
        assert result.status in (Status.REFUTED, Status.TESTED)
