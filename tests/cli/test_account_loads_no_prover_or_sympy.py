"""``expmech account`` loads no certifier, no prover, no sympy and no z3: its start-up stays a small part of its second.

In a fresh process, ``account`` of a catalogue certificate at k = 1,000 exits 0 with its enclosure and the witness
pair's exact lower bound (scored by the verifier's own evaluation of the quality), and loads no module of
``expmech.proofs.certificate.make`` (the certifier, 0.15 s of imports) or ``expmech.proofs.prover``, and neither
sympy (0.2 s) nor z3.  The same probe sees the accounting room and the verifier loaded, so it is not blind to what
it looks for.
"""

from __future__ import annotations

from certificate_tools import catalogue_certificate
from process_probe import loaded, probe

FORBIDDEN = ("expmech.proofs.certificate.make", "expmech.proofs.prover", "sympy", "z3")


def test_account_loads_no_certifier_prover_sympy_or_solver(tmp_path):
    """k = 1,000 folds of the median's certificate: exit 0, an ε enclosure and a witness bound, none of the four loaded."""
    path = catalogue_certificate("median").write(tmp_path / "median.cert.json")
    code, answer, modules = probe(["account", "--format", "json", str(path), "--times", "1000", "--delta", "1/1000000"])
    assert code == 0, answer
    assert answer["epsilon"]["lower"] and answer["epsilon"]["upper"], answer
    assert answer["witness_lower_bound"]["epsilon"], answer
    assert "expmech.proofs.accounting" in modules and "expmech.proofs.checker" in modules  # the probe sees what loads
    assert not loaded(modules, FORBIDDEN), loaded(modules, FORBIDDEN)
