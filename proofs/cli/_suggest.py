"""The command line's suggestions for a usage error: a close subcommand, choice or flag (difflib)."""

from __future__ import annotations

import argparse
import difflib
import re

__all__ = ["did_you_mean"]

_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")
_UNRECOGNIZED = re.compile(r"unrecognized arguments: (.*)")


def did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    """``; did you mean 'verify'?`` for ``parser``'s misspelt subcommand, choice or flag in ``message``, else ``""``.

    A misspelt flag is named whatever argparse reported first (a missing required flag, say)."""
    choice = _INVALID_CHOICE.search(message)
    if choice is not None:
        options = re.findall(r"'([^']*)'", choice.group(2))
        close = difflib.get_close_matches(choice.group(1), options, n=1, cutoff=0.6)
        return f"; did you mean {close[0]!r}?" if close else ""
    unknown = _UNRECOGNIZED.search(message)
    words = unknown.group(1).split() if unknown is not None else getattr(parser, "_given", [])
    flags = [flag for flag in parser._option_string_actions if flag.startswith("--")]
    hints = []
    for word in words:
        flag = word.split("=", 1)[0]
        if not flag.startswith("--") or flag in flags or sum(f.startswith(flag) for f in flags) == 1:
            continue  # not a flag, or one argparse knows (a unique prefix is its abbreviation)
        close = difflib.get_close_matches(flag, flags, n=1, cutoff=0.6)
        if close:
            hints.append(f"{close[0]!r} for {flag!r}")
    if not hints:
        return ""
    if unknown is not None and len(words) == 1:
        return f"; did you mean {hints[0].split(' for ')[0]}?"
    return f"; did you mean {', '.join(hints)}?"
