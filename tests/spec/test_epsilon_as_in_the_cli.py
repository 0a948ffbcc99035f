"""ε in the Python API is read as the command line reads it: "1/4", "0.25", ints, Fractions; a float with a warning.

One reader (``expmech.spec.internal.read_rational``) serves the API
(``certify``, ``assert_dp``, ``ExponentialMechanism`` and every mechanism,
the accounting curves) and the command line (``--epsilon``, TOML, mechanism
dicts).  A float is accepted as its exact binary value, with an
:class:`InexactFloatWarning` naming that value and the decimal it prints as
whenever the two differ (``epsilon=0.1 is … 3602879701896397/36028797018963968
…; pass "1/10" …``).
"""

from __future__ import annotations

import warnings
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expmech.impl import ExponentialMechanism, PermuteAndFlip
from expmech.proofs import assert_dp, certify
from expmech.proofs.accounting import OptimalComposition
from expmech.proofs.cli._values import MAX_DIGITS, UsageError, parse_epsilon
from expmech.spec import InexactFloatWarning, IntRange, InvalidArgument, InvalidType, OutputSpace, QualityFunction, RecordSchema, count
from expmech.spec.internal import Refusal, positive_rational_input, read_rational

SCHEMA, OUTPUTS = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
MODE = QualityFunction(count(SCHEMA["x"] <= OUTPUTS["r"]), schema=SCHEMA, outputs=OUTPUTS, name="cdf")


def _score(data, r):
    return sum(1 for x in data if x == r)


WRITTEN = [("1/4", Fraction(1, 4)), ("0.25", Fraction(1, 4)), (" 3/12 ", Fraction(1, 4)), ("2.5e-1", Fraction(1, 4)),
           (Fraction(1, 4), Fraction(1, 4)), (Decimal("0.25"), Fraction(1, 4)), (1, Fraction(1)), ("1", Fraction(1)), ("0.1", Fraction(1, 10))]


@pytest.mark.parametrize(("written", "value"), WRITTEN)
def test_certify_and_the_mechanisms_take_epsilon_as_the_cli_does(written, value):
    """certify, assert_dp, ExponentialMechanism, PermuteAndFlip and the accounting curves read the same ε."""
    certificate = certify(MODE, epsilon=written, neighbours="replace-one")
    assert Fraction(certificate.statement["predicate"]["mechanism"]["epsilon0"]) == value
    assert assert_dp(MODE, epsilon=written, neighbours="replace-one").digest == certificate.digest
    assert ExponentialMechanism(_score, epsilon=written, outputs=[0, 1]).epsilon == value
    assert PermuteAndFlip(_score, epsilon=written, outputs=[0, 1]).epsilon == value
    curve = OptimalComposition(((Fraction(1, 10), 2),))
    assert curve.delta(written).upper == curve.delta(value).upper
    assert parse_epsilon(written, name="epsilon", where="") == value


def test_a_float_is_certified_exactly_and_named():
    """epsilon=0.1 certifies the float's exact value, and the warning names it and the "1/10" the user meant."""
    with pytest.warns(InexactFloatWarning) as caught:
        certificate = certify(MODE, epsilon=0.1, neighbours="replace-one")
    assert Fraction(certificate.statement["predicate"]["mechanism"]["epsilon0"]) == Fraction(3602879701896397, 36028797018963968)
    message = str(caught[0].message)
    assert message.startswith("epsilon=0.1 is ") and "3602879701896397/36028797018963968" in message and '"1/10"' in message
    assert caught[0].filename == __file__, "the warning points at the caller's line, not inside expmech"


@pytest.mark.parametrize("exact", [0.25, 0.5, 1.0, 2.0, 0.375, 1e22])
def test_a_float_that_is_its_decimal_is_taken_silently(exact):
    """A float whose binary value is the decimal it prints as (0.25) needs no warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", InexactFloatWarning)
        assert ExponentialMechanism(_score, epsilon=exact, outputs=[0]).epsilon == Fraction(exact)


@given(st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_every_float_is_its_exact_value_and_warned_iff_inexact(value):
    """Any positive float: the exact binary value is used; warned exactly when it differs from repr's decimal, and the
    warning names that exact value and a string that reads as the decimal."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = positive_rational_input(value, name="epsilon")
    assert result == Fraction(value)
    inexact = Fraction(repr(value)) != Fraction(value)
    found = [w for w in caught if issubclass(w.category, InexactFloatWarning)]
    assert bool(found) == inexact
    if found:
        message = str(found[0].message)
        assert f"{result.numerator}/{result.denominator}" in message
        suggested = message.rsplit('pass "', 1)[1].split('"', 1)[0]
        assert read_rational(suggested) == Fraction(repr(value))


numbers = st.fractions(min_value=Fraction(1, 10**6), max_value=10**6, max_denominator=10**6)


@given(numbers)
def test_every_written_form_reads_the_same_in_the_api_and_the_cli(value):
    """p/q, the int, a finite decimal (when there is one), Decimal and Fraction: one value, in the API and the CLI."""
    forms = [f"{value.numerator}/{value.denominator}", value, Decimal(value.numerator) / Decimal(value.denominator) if _finite_decimal(value) else value]
    if value.denominator == 1:
        forms += [str(value.numerator), value.numerator]
    if _finite_decimal(value):
        forms.append(format(Decimal(value.numerator) / Decimal(value.denominator), "f"))
    for form in forms:
        assert positive_rational_input(form, name="epsilon") == value
        assert parse_epsilon(form, name="--epsilon", where="") == value


def _finite_decimal(value: Fraction) -> bool:
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


numeric_texts = st.text(alphabet="0123456789./eE+- ", max_size=12)


@given(st.one_of(st.text(max_size=12), numeric_texts, st.sampled_from(["1/0", "nan", "inf", "-1", "0", "0/5", "1//2", "1/2/3", "0x10", "1_000", "", " ", "½", "1e200"])))
def test_the_api_and_the_cli_refuse_the_same_texts(text):
    """Whatever string is given, the API (held to the CLI's 100 digits) and the CLI accept the same ones with the same
    value, and refuse the rest by name."""
    try:
        api = positive_rational_input(text, name="epsilon", max_digits=MAX_DIGITS)
    except InvalidArgument as error:
        assert error.parameter == "epsilon" and "epsilon=" in str(error)
        api = None
    try:
        cli = parse_epsilon(text, name="--epsilon", where="")
    except UsageError as error:
        assert "--epsilon=" in str(error)
        cli = None
    assert api == cli


@pytest.mark.parametrize("value", [True, None, "one", b"1", [1], float("nan"), "1e999999999", "9" * 5000 + "/1"])
def test_what_is_not_a_rational_is_refused_by_name(value):
    """Never a silent default: bool, None, text that is not a number, NaN, and numbers past 4300 digits as text."""
    result = read_rational(value)
    assert isinstance(result, Refusal)
    with pytest.raises(InvalidType if result.wrong_type else InvalidArgument, match="epsilon="):
        ExponentialMechanism(_score, epsilon=value, outputs=[0])
