"""SMT-LIB2 queries in certificates: one stated normalisation, and re-runs on z3 and cvc5.

**Normalisation** (:func:`normalise_smt2`).  A recorded query must *be* the
query the claim needs: its normal form must equal the normal form of the query
the checker regenerates.  The normal form drops comments and ``set-info``
commands and collapses white space between tokens; nothing else — no
reordering, no renaming, no logical equivalence.  Only the commands the prover
writes are admitted (``set-logic``, ``declare-fun``, ``declare-const``,
``assert``, one final ``check-sat``).  The tokenizer is linear and iterative,
so an oversized or deeply nested text costs no more than its length.

**Re-runs.**  :func:`run_z3` solves a text in a fresh z3 context, so its
resource count (``rlimit_used``) is that query's alone and reproducible with
the same z3 version; :func:`run_cvc5` solves it with cvc5, an independent
solver, when the ``cvc5`` package is installed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import z3
import z3.z3 as _z3_module

from expmech.spec import InvalidArgument

__all__ = ["SolverRun", "cvc5_version", "fresh_z3_context", "normalise_smt2", "run_cvc5", "run_z3", "warm_up_z3", "z3_label"]

_COMMANDS = ("set-logic", "declare-fun", "declare-const", "assert", "check-sat")


def z3_label() -> str:
    """``"z3 <version>"`` of the installed z3."""
    return f"z3 {z3.get_version_string()}"


def cvc5_version() -> str | None:
    """The installed cvc5 version, or None."""
    try:
        from importlib import metadata

        return metadata.version("cvc5")
    except Exception:  # noqa: BLE001 - not installed, or no metadata
        return None


@contextmanager
def fresh_z3_context() -> Iterator[None]:
    """Run the body with a fresh z3 main context, restoring the previous one after.

    z3's models (and so the witnesses a prover reads from them) depend on the
    context's history: the same query in a used context may return another
    model.  A derivation run in a fresh context starts from the same state
    every time, so ``certify`` and ``check`` derive the same certificate in
    any process.  No z3 object may cross the boundary.
    """
    saved = _z3_module._main_ctx
    _z3_module._main_ctx = None
    try:
        yield
    finally:
        _z3_module._main_ctx = saved


_WARM: list[bool] = []


def warm_up_z3() -> None:
    """Solve a few small queries once per process, before the first derivation.

    z3 charges some one-time initialisation to the resource limit of the first
    calls a process makes, so at a tight ``rlimit`` the first query of a process
    can come back ``unknown`` where every later identical one is decided.  After
    this warm-up every derivation sees the same budget, in any process.
    """
    if _WARM:
        return
    with fresh_z3_context():
        x, y, r = z3.Int("x"), z3.Int("y"), z3.Real("r")
        body = [x >= 0, x <= 3, y >= -1, y <= 1, r >= 0]
        solver = z3.Solver()
        solver.add(*body, z3.If(x <= y, 1, 0) - z3.If(y <= x, 1, 0) + z3.ToReal(x) / 2 >= r + 1)
        if solver.check() == z3.sat:
            solver.model().eval(x + y, model_completion=True)
        solver = z3.Solver()
        solver.add(*body, x * y > r)
        solver.check()
        optimiser = z3.Optimize()
        optimiser.add(*body)
        optimiser.maximize(z3.ToReal(x - y) + r / 3 - r)
        optimiser.check()
    _WARM.append(True)


def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    i, size = 0, len(text)
    while i < size:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == ";":
            end = text.find("\n", i)
            i = size if end < 0 else end + 1
        elif c in "()":
            tokens.append(c)
            i += 1
        elif c == "|":
            end = text.find("|", i + 1)
            if end < 0:
                raise InvalidArgument("an SMT-LIB2 quoted symbol is not closed", parameter="smt2", value=None)
            tokens.append(text[i : end + 1])
            i = end + 1
        elif c == '"':
            j = i + 1
            while True:
                end = text.find('"', j)
                if end < 0:
                    raise InvalidArgument("an SMT-LIB2 string is not closed", parameter="smt2", value=None)
                if end + 1 < size and text[end + 1] == '"':
                    j = end + 2
                    continue
                break
            tokens.append(text[i : end + 1])
            i = end + 1
        else:
            j = i
            while j < size and text[j] not in " \t\r\n();|\"":
                j += 1
            tokens.append(text[i:j])
            i = j
    return tokens


def normalise_smt2(text: str) -> str:
    """The normal form of an SMT-LIB2 query (see the module docstring); raise :class:`InvalidArgument` if it is not one."""
    commands: list[list[str]] = []
    current: list[str] = []
    depth = 0
    for token in _tokens(text):
        if token == "(":
            depth += 1
        elif token == ")":
            depth -= 1
            if depth < 0:
                raise InvalidArgument("the SMT-LIB2 text closes a parenthesis it never opened", parameter="smt2", value=None)
        elif depth == 0:
            raise InvalidArgument(f"the SMT-LIB2 text has {token[:40]!r} outside any command", parameter="smt2", value=token[:40])
        current.append(token)
        if depth == 0:
            commands.append(current)
            current = []
    if depth != 0:
        raise InvalidArgument("the SMT-LIB2 text has an unclosed parenthesis", parameter="smt2", value=None)
    names: dict[str, str] = {}
    for command in commands:
        for index in range(len(command) - 3):
            if command[index] == "(" and command[index + 1] == "let" and command[index + 2] == "(":
                depth_here, j = 0, index + 2
                while j < len(command):
                    token = command[j]
                    if token == "(":
                        depth_here += 1
                        if depth_here == 2 and j + 1 < len(command) and command[j + 1] not in "()":
                            names.setdefault(command[j + 1], f"_let{len(names) + 1}")
                    elif token == ")":
                        depth_here -= 1
                        if depth_here == 0:
                            break
                    j += 1
    lines = []
    for command in commands:
        command = [names.get(token, token) for token in command]
        name = command[1] if len(command) > 1 else ""
        if name == "set-info":
            continue
        if name not in _COMMANDS:
            raise InvalidArgument(f"the SMT-LIB2 command {name[:40]!r} is not one a certificate query may hold", parameter="smt2", value=name[:40])
        out: list[str] = []
        for index, token in enumerate(command):
            if index and token != ")" and command[index - 1] != "(":
                out.append(" ")
            out.append(token)
        lines.append("".join(out))
    if not lines or lines[-1] != "(check-sat)" or sum(1 for line in lines if line == "(check-sat)") != 1:
        raise InvalidArgument("an SMT-LIB2 certificate query must end with its one (check-sat)", parameter="smt2", value=None)
    if not lines[0].startswith("(set-logic "):
        raise InvalidArgument("an SMT-LIB2 certificate query must start with (set-logic …)", parameter="smt2", value=None)
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class SolverRun:
    """One solver's answer on a query text: ``sat``, ``unsat`` or ``unknown`` (with the reason), and z3's resource count."""

    answer: str
    reason: str
    rlimit_used: int | None


def run_z3(text: str, *, rlimit: int, timeout_ms: int) -> SolverRun:
    """Solve ``text`` in a fresh z3 context within ``rlimit`` (and ``timeout_ms`` as a safety net)."""
    context = z3.Context()
    solver = z3.Solver(ctx=context)
    solver.set("rlimit", rlimit)
    solver.set("timeout", timeout_ms)
    try:
        solver.add(z3.parse_smt2_string(text, ctx=context))
    except z3.Z3Exception as error:
        return SolverRun("unknown", f"z3 cannot parse the query: {error}", None)
    answer = solver.check()
    statistics = solver.statistics()
    used = int(statistics.get_key_value("rlimit count")) if "rlimit count" in statistics.keys() else None
    reason = solver.reason_unknown() if answer == z3.unknown else ""
    return SolverRun(str(answer), reason, used)


def run_cvc5(text: str, *, timeout_ms: int) -> SolverRun | None:
    """Solve ``text`` with cvc5 (None when the ``cvc5`` package is not installed)."""
    try:
        import cvc5
    except ImportError:
        return None
    manager = cvc5.TermManager()
    solver = cvc5.Solver(manager)
    solver.setOption("tlimit-per", str(timeout_ms))
    parser = cvc5.InputParser(solver)
    answer = None
    try:
        parser.setStringInput(cvc5.InputLanguage.SMT_LIB_2_6, text, "certificate")
        symbols = parser.getSymbolManager()
        while True:
            command = parser.nextCommand()
            if command.isNull():
                break
            output = command.invoke(solver, symbols)
            if str(command).startswith("(check-sat"):
                answer = output.strip()
    except RuntimeError as error:
        return SolverRun("unknown", f"cvc5 cannot parse the query: {error}", None)
    if answer not in ("sat", "unsat"):
        return SolverRun("unknown", f"cvc5 answered {answer!r}", None)
    return SolverRun(answer, "", None)
