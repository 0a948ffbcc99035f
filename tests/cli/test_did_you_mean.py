"""A misspelt subcommand, flag or choice gets "did you mean", and every repeating flag says how it repeats.

Checked exhaustively over the parser itself: every subcommand and every long
flag of every subcommand, with each pair of adjacent letters swapped and each
letter dropped; every choice of every flag likewise.  A list given to a flag
that repeats (``--times 2,3``) is refused with the repeated form
(``--times 2 --times 3``), and the help of every such flag shows it.
"""

from __future__ import annotations

import argparse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from expmech.proofs.cli import build_parser, main


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _misspellings(word: str) -> set[str]:
    """Each adjacent swap and each dropped letter of ``word`` (the leading dashes of a flag kept)."""
    head = len(word) - len(word.lstrip("-"))
    found = set()
    for i in range(head, len(word) - 1):
        found.add(word[:i] + word[i + 1] + word[i] + word[i + 2 :])
    for i in range(head, len(word)):
        found.add(word[:i] + word[i + 1 :])
    return {w for w in found if w != word and len(w.lstrip("-")) >= 3}


COMMANDS = sorted(_subparsers())
FLAGS = sorted(
    {(command, flag) for command, parser in _subparsers().items() for action in parser._actions for flag in action.option_strings if flag.startswith("--") and flag != "--help"}
)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_misspelt_subcommand_is_named(command, capsys):
    """expmech verfiy: exit 2, and the message suggests the subcommand meant."""
    for wrong in sorted(_misspellings(command) - set(COMMANDS)):
        assert main([wrong]) == 2
        err = capsys.readouterr().err
        assert f"did you mean {command!r}?" in err, (wrong, err)


@pytest.mark.parametrize(("command", "flag"), FLAGS)
def test_a_misspelt_flag_is_named(command, flag, capsys):
    """expmech check --max-epsilonn: exit 2, naming the flag meant (an unambiguous prefix is argparse's own abbreviation)."""
    flags = {f for c, f in FLAGS if c == command}
    for wrong in sorted(_misspellings(flag)):
        if any(other.startswith(wrong) for other in flags) or wrong in flags:
            continue  # a prefix argparse accepts as an abbreviation, or another flag
        assert main([command, f"{wrong}=1", "x"]) == 2
        err = capsys.readouterr().err
        assert "did you mean" in err and repr(flag) in err, (wrong, err)


CHOICES = sorted(
    {(command, action.option_strings[-1], choice) for command, parser in _subparsers().items() for action in parser._actions
     if action.choices and action.option_strings for choice in action.choices}
)


@pytest.mark.parametrize(("command", "flag", "choice"), CHOICES)
def test_a_misspelt_choice_is_named(command, flag, choice, capsys):
    """--format jsn: exit 2, and the message suggests 'json'."""
    choices = {c for cmd, f, c in CHOICES if cmd == command and f == flag}
    for wrong in sorted(_misspellings(choice) - choices):
        assert main([command, flag, wrong, "x"]) == 2
        err = capsys.readouterr().err
        assert "did you mean" in err and repr(choice) in err, (wrong, err)


@given(st.lists(st.integers(1, 10**6), min_size=2, max_size=6), st.sampled_from([",", ", ", ";", " "]))
def test_a_list_given_to_times_says_that_the_flag_repeats(values, separator):
    """--times 2,3 (or "2 3"): exit 2, showing --times 2 --times 3, not "invalid int value"."""
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["account", "a.json", "b.json", "--times", separator.join(map(str, values)), "--delta", "1/2"]) == 2
    text = err.getvalue()
    assert "invalid int value" not in text and "repeats" in text
    assert " ".join(f"--times {v}" for v in values[:4]) in text


def test_every_repeating_flag_says_how_it_repeats():
    """The help of each flag that may be given more than once shows it given twice."""
    seen = 0
    for command, parser in _subparsers().items():
        help_text = " ".join(parser.format_help().split())
        for action in parser._actions:
            if isinstance(action, argparse._AppendAction):
                seen += 1
                flag = action.option_strings[-1]
                assert help_text.count(f"{flag} ") >= 3, (command, flag)  # the usage line, and flag X flag Y
    assert seen >= 4  # account --times, check --trusted-key and --limit, synth --limit
