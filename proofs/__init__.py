"""expmech.proofs: evidence (sensitivity proofs, falsifiers, certificates, the command)."""

__all__: list[str] = []
