"""What a certificate file is: the sub-room every other one reads.  It holds the RFC 8785 canonical bytes and
the sha256 digest over them (:mod:`._canonical`), the encoding of a certificate's inputs (:mod:`._inputs`), the
indented file layout (:mod:`._layout`), the limits an untrusted certificate is held to before it reaches sympy
or z3 (:mod:`._limits`), the JSON Schema ``certificate.schema.json`` and its fast checks (:mod:`._schema`), the
format's version (:mod:`._version`), and the signing half of the optional DSSE envelope (:mod:`._signing`; the
verifying half is the verifier's own, :mod:`expmech.proofs.checker`).  Its public names are reached through
the room's front, :mod:`expmech.proofs.certificate`.
"""

__all__: list[str] = []
