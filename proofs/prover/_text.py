"""The text a derivation node carries for its subterm: ``str(expr)``'s first 200 characters, printed once per subterm.

The prover writes it for readers of its derivations; a certificate's nodes carry the verifier's own rendering
instead (:func:`expmech.proofs.checker.render`, written by :mod:`expmech.proofs.certificate`), which the
verifier checks.
"""

from __future__ import annotations

import functools
from typing import Any

import sympy
from sympy.printing.str import StrPrinter

__all__ = ["TEXT_LENGTH", "term_text"]

TEXT_LENGTH = 200


def term_text(expr: sympy.Basic, args: tuple[int, ...] | None = None) -> str:
    """The ``text`` a node carries for a subterm (``args``: a partial sum of an ``Add``), cut to 200 characters:
    ``str(expr)``'s first characters.

    Printed once per subterm: the prover writes the text and the kernel reads it back for the same subterms,
    and sympy's printer (it orders the terms) costs seconds on a large expression.  A sympy expression is
    immutable and structurally equal ones print alike, so the cached text is the text.
    """
    return _printed(expr, args)


@functools.lru_cache(maxsize=4096)
def _printed(expr: sympy.Basic, args: tuple[int, ...] | None) -> str:
    text = _str(expr) if args is None else " + ".join(_str(expr.args[i]) for i in args)
    return text if len(text) <= TEXT_LENGTH else text[: TEXT_LENGTH - 1] + "…"


#: Texts of subexpressions already printed, by the object's identity and whether it was printed inside another
#: (the one thing besides the object that sympy's str printer reads: a Float's trailing zeros); each entry holds its
#: object, so an identity is never reused while it is here.
_MEMO: dict[tuple[int, bool], tuple[Any, str]] = {}
_MEMO_SIZE = 200_000


class _MemoPrinter(StrPrinter):  # type: ignore[misc]  # sympy is untyped
    """``str(expr)``, with each subexpression object printed once across calls (the terms of a derivation are nested
    subterms of one quality: printing each afresh prints the inner ones again and again)."""

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if kwargs or not isinstance(expr, sympy.Basic):
            return str(super()._print(expr, **kwargs))
        key = (id(expr), self._print_level > 0)
        found = _MEMO.get(key)
        if found is not None and found[0] is expr:
            return found[1]
        text = str(super()._print(expr))
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.clear()
        _MEMO[key] = (expr, text)
        return text


def _str(expr: sympy.Basic) -> str:
    """``str(expr)`` (sympy's ``sstr`` with its default settings), by :class:`_MemoPrinter`: a printer per call, so
    threads never share its nesting level."""
    return str(_MemoPrinter().doprint(expr))
