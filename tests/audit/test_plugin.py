"""The pytest plugin and the plain assert_* helpers, tested with pytester."""

import pytest

from expmech.impl import catalogue_entry
from expmech.proofs import DPInconclusive, DPViolation, assert_dp, assert_sensitivity

MEDIAN = catalogue_entry("median")


def test_assert_dp_returns_the_certificate():
    """A proved mechanism passes and returns its certificate."""
    certificate = assert_dp(MEDIAN.quality, epsilon=MEDIAN.epsilon, neighbours="replace-one", max_epsilon=1)
    assert certificate.epsilon == "1"


def test_assert_dp_fails_with_the_counterexample():
    """A refuted claim raises DPViolation whose message holds the counterexample."""
    with pytest.raises(DPViolation, match="counterexample: D = "):
        assert_dp(MEDIAN.quality, epsilon=MEDIAN.epsilon, neighbours="replace-one", claimed="1/2")
    with pytest.raises(DPViolation, match="not <= max_epsilon"):
        assert_dp(MEDIAN.quality, epsilon=MEDIAN.epsilon, neighbours="replace-one", max_epsilon="1/2")
    with pytest.raises(DPViolation, match="REFUTED"):
        assert_sensitivity(MEDIAN.quality, neighbours="replace-one", claimed="1/2")


def test_assert_dp_inconclusive_is_an_assertion_error():
    """UNKNOWN is a failure by default: DPInconclusive is an AssertionError."""
    with pytest.raises(DPInconclusive):
        assert_dp(MEDIAN.quality, epsilon=MEDIAN.epsilon, neighbours="replace-one", rlimit=1)
    assert issubclass(DPInconclusive, AssertionError)


PLUGIN_TEST = """
import pytest
from expmech.impl import catalogue_entry
from expmech.proofs import assert_dp

MEDIAN = catalogue_entry("median")

@pytest.mark.expmech
def test_private():
    assert_dp(MEDIAN.quality, epsilon=MEDIAN.epsilon, neighbours="replace-one")

@pytest.mark.expmech
def test_wrong_claim():
    assert_dp(MEDIAN.quality, epsilon=MEDIAN.epsilon, neighbours="replace-one", claimed="1/2")

@pytest.mark.expmech
def test_inconclusive():
    assert_dp(MEDIAN.quality, epsilon=MEDIAN.epsilon, neighbours="replace-one", rlimit=1)
"""


def test_plugin_fails_unknown_by_default(pytester):
    """In a user's suite: proved passes, refuted fails with the counterexample, UNKNOWN fails."""
    pytester.makepyfile(PLUGIN_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--strict-markers")
    result.assert_outcomes(passed=1, failed=2)
    result.stdout.fnmatch_lines(["*DPViolation*counterexample: D = *"])


def test_plugin_ini_option_turns_unknown_into_skip(pytester):
    """expmech_unknown = skip makes an inconclusive check a skip (a refutation still fails)."""
    pytester.makeini("[pytest]\nexpmech_unknown = skip\n")
    pytester.makepyfile(PLUGIN_TEST)
    result = pytester.runpytest("-p", "no:cacheprovider", "--strict-markers")
    result.assert_outcomes(passed=1, failed=1, skipped=1)


def test_plugin_rejects_a_bad_ini_value(pytester):
    """An unknown expmech_unknown value is a usage error."""
    pytester.makeini("[pytest]\nexpmech_unknown = maybe\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*expmech_unknown='maybe' must be 'fail' or 'skip'*"])
