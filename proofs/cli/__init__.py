"""The command-line room: ``expmech verify | certify | check | spec | synth``."""

from ._main import build_parser, main

__all__ = ["build_parser", "main"]
