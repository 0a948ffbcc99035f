"""The command line's parser: one-line usage errors naming the subcommand (exit 2), help that shows every default.

Light (argparse only), so ``expmech check`` builds its parser without the other subcommands' imports.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

__all__ = ["HelpFormatter", "Parser", "ParserError"]




class ParserError(Exception):
    """argparse refused the command line; the message is one line naming the option and its value."""


class HelpFormatter(argparse.HelpFormatter):
    """Help that shows every default: ``(default: X)`` is appended unless the help text already states its default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if isinstance(action, argparse._AppendAction) and action.option_strings and " --" not in text:
            flag, value = action.option_strings[-1], action.metavar or action.dest.upper()
            text += f" (repeat the flag for several: {flag} {value} {flag} {value})"
        if "default" in text or any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS)) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (``expmech verify: argument --rlimit: '0' must be …``), exit code 2.

    A subcommand's parser refuses its own unrecognised arguments, so the message names the subcommand and its
    ``--help`` (argparse would pass them up and let the top-level ``expmech`` parser report them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        from ._suggest import did_you_mean  # loaded on an error only

        raise ParserError(f"{self.prog}: {message}{did_you_mean(self, message)} (see {self.prog} --help)")

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:  # argparse's own overloads, unchanged
        given = args[0] if args else kwargs.get("args")
        self._given = [str(word) for word in given] if given is not None else sys.argv[1:]  # for did_you_mean
        parsed, extras = super().parse_known_args(*args, **kwargs)
        if extras and self.prog != "expmech":
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras
