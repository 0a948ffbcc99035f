"""expmech.proofs.kernel: a small, independent checker of the prover's derivations.

The prover records how it reached each PROVED bound as a tree over the
quality function's expression (a *derivation*); :func:`check_derivation`
accepts it only when every node's rule applies to its subterm and every side
condition holds by a z3 query the kernel writes itself from the spec's
semantics.  It imports only :mod:`expmech.spec`, the standard library and z3
— nothing of the prover, the certificate package or :mod:`expmech.impl` — so
a third party needs to trust this package and z3, not the prover.
:data:`RULES` is the rule table: name -> :class:`RuleInfo` (claim, statement
name in ``expmech.spec``, statement).
"""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._check": ("RULES", "check_derivation"),
    "._derivation": ("term_text",),
    "._verdict": ("KernelVerdict", "RuleInfo"),
}

if _typing.TYPE_CHECKING:
    from ._check import RULES, check_derivation
    from ._derivation import term_text
    from ._verdict import KernelVerdict, RuleInfo
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = ["RULES", "KernelVerdict", "RuleInfo", "check_derivation", "term_text"]
