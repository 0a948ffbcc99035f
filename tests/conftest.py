"""Shared test configuration: hypothesis profiles.


``CI`` set (as in ``.ci/run``) selects hypothesis' built-in derandomised
``ci`` profile; otherwise ``dev``.  ``HYPOTHESIS_PROFILE`` overrides both.

The files are ordered longest first (``pytest_collection_modifyitems``):
``--dist loadfile`` sends whole files to the workers in collection order
(``--no-loadscope-reorder`` in pyproject keeps xdist from re-sorting them by
their number of tests, which sent the long files with few tests last), so no
long file starts when the other worker is nearly done.
"""

import os
from collections import Counter

pytest_plugins = ["pytester"]

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "slow", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


#: The files that take longest in the default suite (per-file totals of --durations=0, slowest first); the others follow,
#: those with more tests first.  A renamed file only loses its place in the order.
LONGEST_FIRST = (
    "test_certificate_mutations.py",
    "test_certificate_honest.py",
    "test_certificate_ties.py",
    "test_docs_pages.py",
    "test_docs_tutorials.py",
    "test_samplers.py",
    "test_cli.py",
    "test_large_domains.py",
    "test_readable.py",
    "test_certificate_kernel.py",
    "test_conformance.py",
    "test_small_model.py",
    "test_posterior.py",
    "test_certificate_layout.py",
    "test_synth_limits.py",
    "test_certificate_schema.py",
    "test_readme.py",
    "test_floatfilter.py",
    "test_large_n_refutation.py",
    "test_audit.py",
)


def pytest_collection_modifyitems(session, config, items):
    """Longest files first, each file's tests in their own order (see the module docstring)."""
    counts = Counter(item.path.name for item in items)
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: (rank.get(item.path.name, len(rank)), -counts[item.path.name], str(item.path)))
