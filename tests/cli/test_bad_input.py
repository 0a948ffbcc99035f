"""Every bad input gets a clear error naming the parameter and its value."""

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expmech.impl import ExponentialMechanism, PermuteAndFlip, sample_bernoulli, sample_bernoulli_exp
from expmech.spec import ExpMechError, InexactFloatWarning, InvalidArgument, InvalidType, QualityError


def q(d, r):
    return r


@pytest.mark.parametrize(
    "epsilon, error, text",
    [
        (0, InvalidArgument, "epsilon=0 must be > 0"),
        (Fraction(-1, 2), InvalidArgument, r"epsilon=-1/2 must be > 0"),
        (float("nan"), InvalidArgument, "epsilon=nan must be finite"),
        (math.inf, InvalidArgument, "epsilon=inf must be finite"),
        (Decimal("NaN"), InvalidArgument, "epsilon=Decimal"),
        ("one", InvalidArgument, "epsilon='one' must be a rational written"),
        (True, InvalidType, "epsilon=True must be a rational number, not bool"),
        (None, InvalidType, "epsilon=None"),
    ],
)
def test_bad_epsilon(epsilon, error, text):
    """ε must be a finite rational > 0."""
    with pytest.raises(error, match=text) as info:
        ExponentialMechanism(q, epsilon=epsilon, outputs=[0, 1])
    assert info.value.parameter == "epsilon"
    assert isinstance(info.value, ExpMechError) and isinstance(info.value, ValueError)


def test_exact_epsilon_conversions():
    """Floats and Decimals become the exact rationals they denote (a float warned about); sympy and numpy rationals and "p/q" are accepted."""
    import numpy as np
    import sympy

    with pytest.warns(InexactFloatWarning, match="3602879701896397/36028797018963968"):
        assert ExponentialMechanism(q, epsilon=0.1, outputs=[0]).epsilon == Fraction(0.1)
    assert ExponentialMechanism(q, epsilon="1/10", outputs=[0]).epsilon == Fraction(1, 10)
    assert ExponentialMechanism(q, epsilon=Decimal("0.1"), outputs=[0]).epsilon == Fraction(1, 10)
    assert ExponentialMechanism(q, epsilon=sympy.Rational(2, 3), outputs=[0]).epsilon == Fraction(2, 3)
    assert ExponentialMechanism(q, epsilon=np.int64(3), outputs=[0]).epsilon == 3


@pytest.mark.parametrize(
    "outputs, error, text",
    [
        ([], InvalidArgument, "must not be empty"),
        ([1, 2, 1], InvalidArgument, r"outputs\[2\]=1 duplicates outputs\[0\]"),
        ([[1], [2]], InvalidType, r"outputs\[0\]=\[1\] is not hashable"),
        ({1, 2}, InvalidType, "must be a sequence"),
        ("abc", InvalidType, "must be a sequence"),
        (5, InvalidType, "outputs=5 must be a sequence"),
    ],
)
def test_bad_outputs(outputs, error, text):
    """The range must be a non-empty sequence of distinct hashable outputs."""
    with pytest.raises(error, match=text):
        ExponentialMechanism(q, epsilon=1, outputs=outputs)


@pytest.mark.parametrize(
    "measure, text",
    [
        ({0: -1, 1: 1}, r"base_measure\[0\]=-1 must be >= 0"),
        ({0: 0, 1: 0}, "0 at every output"),
        ({0: 1}, "no value for output 1"),
        ({0: 1, 1: 1, 7: 1}, "key 7 that is not an output"),
        (lambda r: float("nan"), r"base_measure\(0\)=nan must be finite"),
        (lambda r: 1 / 0, "base_measure raised ZeroDivisionError"),
        ([1, 1], "must be None, a mapping or a callable"),
    ],
)
def test_bad_base_measure(measure, text):
    """μ must be >= 0 everywhere, defined at every output, and not all zero."""
    with pytest.raises(InvalidArgument, match=text):
        ExponentialMechanism(q, epsilon=1, outputs=[0, 1], base_measure=measure)


@pytest.mark.parametrize(
    "quality, text",
    [
        (lambda d, r: float("nan") if r == 1 else 0, r"quality\(dataset, 1\)=nan must be finite \(at r=1\)"),
        (lambda d, r: math.inf if r == 1 else 0, r"inf must be finite \(at r=1\)"),
        (lambda d, r: 1 // (r - 1), "quality raised ZeroDivisionError: integer division or modulo by zero at r=1"),
        (lambda d, r: "x", "must be a rational number"),
        (lambda d, r: r == 1, "not bool"),
    ],
)
def test_bad_quality_values_name_the_output(quality, text):
    """A quality that raises or returns a non-finite or non-number names the output r."""
    mech = ExponentialMechanism(quality, epsilon=1, outputs=[0, 1, 2])
    with pytest.raises(QualityError, match=text) as info:
        mech.distribution([])
    assert info.value.output in (0, 1)


def test_quality_must_be_callable():
    """A non-callable quality is refused by name."""
    with pytest.raises(InvalidType, match="quality=3 must be callable"):
        ExponentialMechanism(3, epsilon=1, outputs=[0])  # type: ignore[arg-type]


def test_batch_scores_must_match_the_range():
    """A scores() method that returns the wrong number of values is refused."""

    class Bad:
        def __call__(self, d, r):
            return 0

        def scores(self, d, outputs):
            return [0]

    with pytest.raises(QualityError, match="returned 1 values for 3 outputs"):
        ExponentialMechanism(Bad(), epsilon=1, outputs=[0, 1, 2]).distribution(())


def test_unknown_output_and_bad_rng():
    """Asking about a non-output, or passing a non-Random rng, is refused by name."""
    mech = ExponentialMechanism(q, epsilon=1, outputs=[0, 1])
    with pytest.raises(InvalidArgument, match="r=5 is not an output"):
        mech.distribution(()).probability(5)
    with pytest.raises(InvalidType, match="rng=42 must be a random.Random"):
        mech.sample((), rng=42)  # type: ignore[arg-type]


def test_bad_bernoulli_parameters():
    """γ must be >= 0 and p in [0, 1]."""
    with pytest.raises(InvalidArgument, match="gamma=-1 must be >= 0"):
        sample_bernoulli_exp(-1)
    with pytest.raises(InvalidArgument, match=r"p=3/2 must be in \[0, 1\]"):
        sample_bernoulli(Fraction(3, 2))


def test_permute_and_flip_validates_like_the_mechanism():
    """PermuteAndFlip refuses the same bad ε and outputs."""
    with pytest.raises(InvalidArgument, match="epsilon=0"):
        PermuteAndFlip(q, epsilon=0, outputs=[0])
    with pytest.raises(InvalidArgument, match="empty"):
        PermuteAndFlip(q, epsilon=1, outputs=[])


@given(
    st.lists(
        st.one_of(
            st.integers(-3, 40),
            st.fractions(min_value=-2, max_value=9, max_denominator=7),
            st.sampled_from([0, Fraction(0), 1.5, True, -0.0, "2", None]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_base_measure_mappings_of_ints_and_fractions_equal_the_per_value_check(values):
    """A mapping of ints and Fractions (one conversion per distinct value) gives what checking each value gives:
    the same Fractions, or the same error naming the first bad output."""
    from expmech.impl.quality._inputs import check_base_measure
    from expmech.spec._validate import nonnegative_rational

    outputs = tuple(range(len(values)))
    mapping = dict(zip(outputs, values))
    try:
        expected = tuple(nonnegative_rational(mapping[r], name=f"base_measure[{r!r}]") for r in outputs)
        if not any(expected):
            raise InvalidArgument("base_measure is 0 at every output", parameter="base_measure", value=None)
    except (InvalidArgument, TypeError) as error:
        with pytest.raises(type(error)) as raised:
            check_base_measure(mapping, outputs)
        assert str(raised.value).split(";")[0] == str(error).split(";")[0]
        return
    result = check_base_measure(mapping, outputs)
    assert result == expected and all(type(v) is Fraction for v in result)
