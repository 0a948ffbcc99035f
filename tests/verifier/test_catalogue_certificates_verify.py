"""Every certificate of the three built-in catalogues is decided by the small verifier alone, mostly without a solver.

``expmech check`` of each certificate of CATALOGUE, RANGE_CATALOGUE and POSTERIOR_CATALOGUE, in a fresh process,
exits 0 with no prover, no ``expmech.impl`` and no sympy loaded, on at most LINE_BUDGET non-blank lines of this
project's modules (listed on failure); ``--reproduce`` agrees on every one; at least 80% of their side
conditions are discharged without a solver, as the JSON report counts them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from expmech.proofs.cli import main

CATALOGUES = ("expmech.impl:CATALOGUE", "expmech.impl:RANGE_CATALOGUE", "expmech.impl:POSTERIOR_CATALOGUE")
#: issue 32: at most 3,000 non-blank lines of this project's modules for any catalogue certificate (measured: 3,000 at
#: most, geometric-mechanism, whose refuted monotonicity claim loads the counterexample module).
LINE_BUDGET = 3_000

PROBE = r"""
import contextlib, io, json, sys
from expmech.proofs.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["check", "--format", "json", *sys.argv[1:]])
files = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items()) if name.startswith("expmech")}
print(json.dumps({"code": code, "report": json.loads(out.getvalue()), "files": files,
                  "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("sympy", "z3", "numpy", "flint"))}))
"""


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The certificates ``expmech certify`` writes for the three catalogues."""
    folder = tmp_path_factory.mktemp("catalogues")
    for target in CATALOGUES:
        assert main(["certify", target, "-o", str(folder / target.split(":")[1])]) == 0
    found = sorted(folder.glob("*/*.cert.json"))
    assert len(found) >= 15
    return found


def _probe(paths: list[Path]) -> dict:
    result = subprocess.run([sys.executable, "-c", PROBE, *map(str, paths)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def _lines(path: str) -> int:
    return sum(1 for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip())


def test_each_certificate_checks_on_the_small_verifier_alone(certificates):
    """Each certificate, checked in a fresh process: exit 0, no prover, impl or sympy, at most 3,000 project lines."""
    for path in certificates:
        probe = _probe([path])
        assert probe["code"] == 0, probe["report"]
        assert not probe["loaded"], f"{path.name}: {probe['loaded']} loaded"
        modules = {name: file for name, file in probe["files"].items() if file}
        assert not [m for m in modules if m.startswith(("expmech.impl", "expmech.proofs.prover", "expmech.spec"))], sorted(modules)
        sizes = {name: _lines(file) for name, file in modules.items()}
        assert sum(sizes.values()) <= LINE_BUDGET, f"{path.name}: {sum(sizes.values())} lines: " + ", ".join(f"{m} {n}" for m, n in sorted(sizes.items()))


def test_most_side_conditions_need_no_solver(certificates):
    """Over the three catalogues, at least 80% of the side conditions are discharged without a solver."""
    report = _probe(certificates)["report"]["certificates"]
    total = sum(item["obligations"]["total"] for item in report)
    solver = sum(item["obligations"]["solver"] for item in report)
    assert total >= 40 and solver <= total * 0.2, (total, solver)


def test_reproduce_agrees_on_every_certificate(certificates):
    """``check --reproduce`` (the prover run again) gives every certificate the same exit code as the verifier."""
    assert main(["check", "--reproduce", *map(str, certificates)]) == 0
