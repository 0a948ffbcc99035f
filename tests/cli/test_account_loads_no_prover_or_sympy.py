"""``expmech account`` loads no certifier, no prover, no sympy and no z3: its start-up stays a small part of its second.

In a fresh process, ``account`` of a catalogue certificate at k = 1,000 exits 0 with its enclosure and the witness
pair's exact lower bound (scored by the verifier's own evaluation of the quality), and loads no module of
``expmech.proofs.certificate.make`` (the certifier, 0.15 s of imports) or ``expmech.proofs.prover``, and neither
sympy (0.2 s) nor z3.  The same probe sees the accounting room and the verifier loaded, so it is not blind to what
it looks for.
"""

from __future__ import annotations

import json
import subprocess
import sys

from certificate_tools import catalogue_certificate

FORBIDDEN = ("expmech.proofs.certificate.make", "expmech.proofs.prover", "sympy", "z3")

PROBE = r"""
import contextlib, io, json, sys
from expmech.proofs.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["account", "--format", "json", *sys.argv[1:]])
print(json.dumps({"code": code, "answer": json.loads(out.getvalue()), "modules": sorted(sys.modules)}))
"""


def test_account_loads_no_certifier_prover_sympy_or_solver(tmp_path):
    """k = 1,000 folds of the median's certificate: exit 0, an ε enclosure and a witness bound, none of the four loaded."""
    path = catalogue_certificate("median").write(tmp_path / "median.cert.json")
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), "--times", "1000", "--delta", "1/1000000"], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    probe = json.loads(result.stdout.strip().splitlines()[-1])
    assert probe["code"] == 0, probe["answer"]
    assert probe["answer"]["epsilon"]["lower"] and probe["answer"]["epsilon"]["upper"], probe["answer"]
    assert probe["answer"]["witness_lower_bound"]["epsilon"], probe["answer"]
    modules = probe["modules"]
    assert "expmech.proofs.accounting" in modules and "expmech.proofs.checker" in modules  # the probe sees what loads
    loaded = [m for m in modules if any(m == name or m.startswith(name + ".") for name in FORBIDDEN)]
    assert not loaded, loaded
