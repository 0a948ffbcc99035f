"""Making a certificate (``certify``): :mod:`._build` is ``certify`` and ``sign``; :mod:`._derive` runs the
provers and the exact conformance check and turns their results into claims, each with the derivation the
verifier follows (:mod:`._claim_derivation`, :mod:`._conclusion_derivations`); the claims of bounded range and
zCDP (:mod:`._accounting_claims`), of the digital-goods auction (:mod:`._auction`), of posterior sampling
(:mod:`._posterior`, :mod:`._posterior_range`) and of countable and interval ranges (:mod:`._ranges`) have
modules of their own; :mod:`._statement` assembles the in-toto statement, and :mod:`._finalise` writes it in the
verifier's terms with a recorded proof of every side condition (:mod:`._obligations`).  Its public names are
reached through the room's front, :mod:`expmech.proofs.certificate`.
"""

__all__: list[str] = []
