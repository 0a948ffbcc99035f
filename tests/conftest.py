"""Shared test configuration: hypothesis profiles.


``CI`` set (as in ``.ci/run``) selects hypothesis' built-in derandomised
``ci`` profile; otherwise ``dev``.  ``HYPOTHESIS_PROFILE`` overrides both.
"""

import os

pytest_plugins = ["pytester"]

from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "slow", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))
