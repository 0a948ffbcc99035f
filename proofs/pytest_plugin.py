"""The expmech pytest plugin (loaded through the ``pytest11`` entry point).

It registers the ``expmech`` marker and the ``expmech_unknown`` ini option:
``fail`` (the default) lets an inconclusive :func:`assert_dp` fail the test,
``skip`` turns it into a skip.  The helpers themselves live in
``expmech.proofs`` and work without the plugin.
"""

from __future__ import annotations

from typing import Any

import pytest

from ._dp_errors import DPInconclusive, DPViolation

__all__ = ["DPInconclusive", "DPViolation", "assert_dp", "assert_sensitivity"]


def __getattr__(name: str) -> Any:
    """``assert_dp`` and ``assert_sensitivity``, loaded (with the prover) when first named, not at pytest's start."""
    if name in ("assert_dp", "assert_sensitivity"):
        from . import _assertions

        return getattr(_assertions, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the ``expmech_unknown`` ini option."""
    parser.addini("expmech_unknown", "what an inconclusive DP check does: fail (default) or skip", default="fail")


def pytest_configure(config: pytest.Config) -> None:
    """Register the ``expmech`` marker and check the ini option's value."""
    config.addinivalue_line("markers", "expmech: a differential-privacy check made with expmech")
    value = config.getini("expmech_unknown")
    if value not in ("fail", "skip"):
        raise pytest.UsageError(f"expmech_unknown={value!r} must be 'fail' or 'skip'")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Turn :class:`DPInconclusive` into a skip when ``expmech_unknown = skip``."""
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is not None and call.excinfo.errisinstance(DPInconclusive):
        if item.config.getini("expmech_unknown") == "skip" and report.when == "call":
            report.outcome = "skipped"
            report.longrepr = (str(item.path), item.location[1] or 0, f"expmech: {call.excinfo.value}")
