"""expmech.proofs.checker: the verifier under ``expmech check``, the project's root of trust.

It decides a certificate from its content alone, importing no prover, no ``expmech.impl`` and no sympy: each claim
is accepted only on a derivation its rules accept, every side condition discharged from a recorded proof.
Signatures are verified by :mod:`.signature` (securesystemslib), loaded for trusted keys only.
"""

from ._claims import CLAIMS, RULES, derive
from ._domains import Malformed
from ._evidence import pair_of, quality_at
from ._format import FORMAT, PREDICATE_TYPE, quality_digest, read_statement
from ._read import LIMIT_NAMES, Limits, canonical_digest, parse_limit
from ._report import CheckOutcome, CheckReport
from ._terms import Reader, Term, render
from ._verify import verify

__all__ = ["CLAIMS", "FORMAT", "LIMIT_NAMES", "PREDICATE_TYPE", "RULES", "CheckOutcome", "CheckReport", "Limits", "Malformed", "Reader",
           "Term", "canonical_digest", "derive", "pair_of", "parse_limit", "quality_at", "quality_digest", "read_statement", "render", "verify"]

