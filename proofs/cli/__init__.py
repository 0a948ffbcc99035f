"""The command-line room: ``expmech verify | certify | check | spec | synth``."""

from ._main import main

__all__ = ["main"]
