"""Every subcommand names itself in its usage errors, and every flag says what it does and what its default is.

The subcommands are read from the ``expmech`` parser itself, so a subcommand added later is covered without editing
this file; each one is tested (a parametrised test per subcommand, never a random sample of them), and the bad flags
and values are generated.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.proofs.cli import main
from expmech.proofs.cli import build_parser

HEAVY = ("sympy", "z3", "cvc5", "numpy", "flint", "matplotlib", "jinja2", "scipy", "mpmath")


def _subcommands() -> dict[str, argparse.ArgumentParser]:
    (action,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(action.choices)


SUBCOMMANDS = sorted(_subcommands())


def _options(sub: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in sub._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]


def _base_groups(name: str) -> list[list[str]]:
    """A command line of ``name`` that parses, as groups of words that belong together: the subcommand, a placeholder
    for each positional, each required option with its value."""
    groups = [[name]]
    for action in _subcommands()[name]._actions:
        if not action.option_strings:
            groups.append(["placeholder"])
        elif action.required:
            groups.append([action.option_strings[-1], "1"])
    for group in _subcommands()[name]._mutually_exclusive_groups:  # one member of each required either-or group
        if group.required:
            groups.append([group._group_actions[0].option_strings[-1], "1"])
    return groups


def _base_argv(name: str) -> list[str]:
    return [word for group in _base_groups(name) for word in group]


def _known_prefix(sub: argparse.ArgumentParser, flag: str) -> bool:
    """Whether argparse would read ``flag`` as (an abbreviation of) one of ``sub``'s options."""
    name = flag.split("=", 1)[0]
    return any(option.startswith(name) for action in sub._actions for option in action.option_strings)


@st.composite
def bad_command_lines(draw, name: str):
    """A command line of subcommand ``name`` with one bad flag (an unknown option, or a known one with a refused
    value) inserted anywhere after the subcommand: (argv, the text the message must name)."""
    sub = _subcommands()[name]
    groups = _base_groups(name)
    kinds = ["unknown"]
    choice_options = [a for a in _options(sub) if a.choices]
    integer_options = [a for a in _options(sub) if a.type is int or getattr(a.type, "__name__", "") == "integer"]
    kinds += ["choice"] * bool(choice_options) + ["integer"] * bool(integer_options)
    kind = draw(st.sampled_from(kinds))
    if kind == "unknown":
        word = draw(st.from_regex(r"[a-z][a-z0-9-]{0,15}", fullmatch=True).filter(lambda w: not _known_prefix(sub, "--" + w)))
        flag = ["--" + word]
        named = flag[0]
    elif kind == "choice":
        action = draw(st.sampled_from(choice_options))
        value = draw(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=8).filter(
            lambda v: v not in action.choices and not v.startswith("-")))
        flag, named = [action.option_strings[-1], value], action.option_strings[-1]
    else:
        action = draw(st.sampled_from(integer_options))
        value = draw(st.sampled_from(["x", "1.5", "", "1e3", "0x10", "one"]) | st.integers(max_value=-1).map(str).filter(
            lambda v: action.type is not int))
        flag, named = [action.option_strings[-1] + "=" + value], action.option_strings[-1]
    at = draw(st.integers(1, len(groups)))
    return [word for group in [*groups[:at], flag, *groups[at:]] for word in group], named


@pytest.mark.parametrize("name", SUBCOMMANDS)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_bad_flag_names_its_subcommand_and_its_help(name, data, capsys, tmp_path, monkeypatch):
    """``expmech SUB …`` with a bad flag: exit 2, nothing on stdout, one line ``expmech SUB: …`` naming the flag and
    pointing to ``expmech SUB --help``."""
    monkeypatch.chdir(tmp_path)
    argv, named = data.draw(bad_command_lines(name))
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, (argv, captured)
    assert captured.out == "" and captured.err.count("\n") == 1, captured
    line = captured.err.strip()
    assert line.startswith(f"expmech {name}: "), line
    assert line.endswith(f"(see expmech {name} --help)"), line
    assert named in line, line


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_every_argument_says_what_it_is_and_its_default(name):
    """Each positional and each option of every subcommand has help text; an option that is not required and takes a
    value states its default (shown by the parser, or written in the help when it is not a plain value)."""
    sub = _subcommands()[name]
    formatter = sub._get_formatter()
    either_or = {id(a) for group in sub._mutually_exclusive_groups if group.required for a in group._group_actions}
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        assert action.help and action.help.strip(), (name, action.dest)
        takes_value = action.nargs != 0
        if action.option_strings and takes_value and not action.required and id(action) not in either_or:
            shown = formatter._get_help_string(action) % {"default": action.default}
            assert "default" in shown, (name, action.option_strings, shown)
            if action.default is not None:
                assert str(action.default) in shown.replace(",", "") or f"{action.default:,}" in shown, (name, shown)
    assert main([name, "--help"]) == 0


@pytest.mark.parametrize("name", SUBCOMMANDS)
def test_a_bad_flag_imports_nothing_heavy(name, tmp_path):
    """As a whole process, a bad flag on any subcommand is refused before sympy, z3, numpy… are imported."""
    script = Path(sys.executable).with_name("expmech")
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "expmech.proofs.cli"]
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    done = subprocess.run([*command, *_base_argv(name), "--no-such-flag"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    imported = [line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    messages = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    assert imported, "the import log is empty: the detector would see nothing"
    assert done.returncode == 2 and messages == [f"expmech {name}: unrecognized arguments: --no-such-flag (see expmech {name} --help)"], messages
    assert not {module.split(".")[0] for module in imported} & set(HEAVY)
