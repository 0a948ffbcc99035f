"""Checking a certificate (``check_certificate``) and ``--reproduce``: :mod:`._check` is ``check_certificate``,
the verifier's verdict and, with ``reproduce=True``, a gate that bounds hostile input (signature, digest,
limits, schema) before :mod:`._rederive` runs the prover again on the certificate's inputs and requires the same
statement.  One run's state and report live in :mod:`._run`, the digest check in :mod:`._digest`, the replay of
the solver log a derivation records in :mod:`._replay`, SMT-LIB2 normalisation and re-runs on z3 and cvc5 in
:mod:`._smt`, the small-model check that ``certify`` and ``check`` run in :mod:`._smallmodel`, and the work a
run would do, estimated before it is done, in :mod:`._cost` and :mod:`._powers`.  Its public names are reached
through the room's front, :mod:`expmech.proofs.certificate`.
"""

__all__: list[str] = []
