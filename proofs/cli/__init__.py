"""The command-line room: ``expmech verify | certify | check | spec | synth | audit | account``.

``expmech check`` runs on its own module (:mod:`._check`) and the verifier only: the other subcommands,
and so the prover, ``expmech.impl`` and sympy, are not imported for it.
"""

from __future__ import annotations

import sys as _sys
import typing as _typing

__all__ = ["build_parser", "main"]


def main(argv: _typing.Sequence[str] | None = None) -> int:
    """Run the ``expmech`` command with ``argv`` (default ``sys.argv[1:]``); return its exit code."""
    args = list(_sys.argv[1:] if argv is None else argv)
    if args[:1] == ["check"]:
        from ._check import main_check

        return main_check(args[1:])
    from ._main import main as full

    return full(args)


def build_parser() -> _typing.Any:
    """The ``expmech`` argument parser with every subcommand (for tools that document the flags)."""
    from ._main import build_parser as build

    return build()
