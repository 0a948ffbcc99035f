"""Older library releases, each installed in its own virtual environment and audited (slow tier: needs PyPI).

Each release is installed with ``pip install --no-deps`` into a fresh venv; the
audit runs in a subprocess with that venv's site-packages first on the path,
so the library comes from the venv and everything else (expmech, numpy, scipy)
from the test's own environment.  Every case the release's API covers gets a
verdict; an API the release lacks is an UnsupportedVersion error naming it.
"""

import json
import subprocess
import sys
import venv
from pathlib import Path

import pytest

SCRIPT = r"""
import json, sys
from importlib import metadata
from expmech.proofs.adapters import UnsupportedVersion, diffprivlib_cases, opendp_cases, opendp_noisy_max
library = sys.argv[1]
cases = opendp_cases() if library == "opendp" else diffprivlib_cases()
verdicts = {c.name: c.run(max_draws=1500, power_replicates=0, privacy_draws=200).status.name for c in cases}
unsupported = None
if library == "opendp":
    try:
        opendp_noisy_max([0, 1, 2], scale=1.0)
    except UnsupportedVersion as error:
        unsupported = str(error)
print(json.dumps({"version": metadata.version(library), "verdicts": verdicts, "unsupported": unsupported}))
"""


def _install(tmp_path: Path, requirement: str) -> Path:
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env)
    pip = env / ("Scripts" if sys.platform == "win32" else "bin") / "pip"
    subprocess.run([str(pip), "install", "--quiet", "--no-deps", requirement], check=True, timeout=600)
    return next(env.glob("lib/python*/site-packages")) if sys.platform != "win32" else env / "Lib" / "site-packages"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("library", "version"),
    [("opendp", "0.12.1"), ("opendp", "0.13.0"), ("opendp", "0.14.2"), ("opendp", "0.15.1"), ("diffprivlib", "0.6.0"), ("diffprivlib", "0.6.3")],
)
def test_release_is_audited_in_its_own_environment(tmp_path, library, version):
    """Each release installs alone, every covered case gets a verdict, and a missing API names the installed version."""
    site = _install(tmp_path, f"{library}=={version}")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, library], capture_output=True, text=True, timeout=1200,
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(library, version, json.dumps(report["verdicts"], indent=1))
    assert report["version"] == version and report["verdicts"]
    assert set(report["verdicts"].values()) <= {"CONSISTENT", "REJECTED", "VIOLATION"}
    if library == "opendp" and version < "0.14":
        assert report["unsupported"] is not None and f"opendp {version}" in report["unsupported"]
        assert set(report["verdicts"]) == {
            "OpenDP make_report_noisy_max_gumbel (optimize = 'max')", "OpenDP make_report_noisy_max_gumbel (optimize = 'min')"
        }
