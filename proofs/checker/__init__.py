"""expmech.proofs.checker: the verifier under ``expmech check``, the project's root of trust.

It decides a certificate from its content alone, importing no prover, no ``expmech.impl`` and no sympy: each claim
is accepted only on a derivation its rules accept, every side condition discharged from a recorded proof.
"""

import typing as _typing

from ._claims import CLAIMS, RULES, derive
from ._domains import Malformed
from ._format import FORMAT, PREDICATE_TYPE, quality_digest, read_statement
from ._read import LIMIT_NAMES, Limits, canonical_digest, parse_limit
from ._report import CheckOutcome, CheckReport
from ._terms import Reader, Term, render
from ._verify import verify

if _typing.TYPE_CHECKING:
    from ._signature import PAYLOAD_TYPE, load_trusted_key, verify_envelope

__all__ = ["CLAIMS", "FORMAT", "LIMIT_NAMES", "PAYLOAD_TYPE", "PREDICATE_TYPE", "RULES", "CheckOutcome", "CheckReport", "Limits", "Malformed", "Reader",
           "Term", "canonical_digest", "derive", "load_trusted_key", "parse_limit", "quality_digest", "read_statement", "render", "verify", "verify_envelope"]


def __getattr__(name: str) -> _typing.Any:  # the signature half (._signature, securesystemslib) loads for trusted keys only
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import _signature

    return globals().setdefault(name, getattr(_signature, name))


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
