"""Argument types shared by the subcommands' parsers: light (no sympy, z3, numpy), so a refusal costs nothing."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["Z3_LIMIT", "bounded_int"]

Z3_LIMIT = 2**32 - 1  # z3 reads rlimit and timeout as unsigned 32-bit integers


def bounded_int(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer in [low, high] (``high=None``: no upper end), refused with its value otherwise.

    The refusal is an :class:`argparse.ArgumentTypeError`, which the parser turns into one line naming the flag."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low or (high is not None and value > high):
            span = f"an integer in [{low}, {high}]" if high is not None else f"an integer >= {low}"
            raise argparse.ArgumentTypeError(f"{text!r} must be {span}")
        return value

    parse.__name__ = "integer"
    return parse
