"""SMT-LIB2 queries in certificates: one stated normalisation, and re-runs on z3 and cvc5.

**Normalisation** (:func:`normalise_smt2`).  A recorded query must *be* the
query the claim needs: its normal form must equal the normal form of the query
the checker regenerates.  The normal form drops comments and ``set-info``
commands, collapses white space between tokens, and writes each assertion's
``let`` sharing canonically: the term is read as a DAG (``let`` expanded by
reference, equal subterms merged), then every application used twice or more
is bound, in post-order, as ``_let1``, ``_let2``, …  (z3's printer shares a
subterm when anything else refers to it, so its ``let`` structure depends on
the process's state, not only on the query.)  Nothing else — no reordering, no
renaming of symbols, no logical equivalence.  Only the commands the prover
writes are admitted (``set-logic``, ``declare-fun``, ``declare-const``,
``assert``, one final ``check-sat``), and no binder but ``let``.  Tokenizer,
parser and printer are iterative and linear, so an oversized or deeply nested
text costs no more than its length.

**Re-runs.**  :func:`run_z3` solves a text in a fresh z3 context (parsed from
the text, not the prover's terms); :func:`run_cvc5` solves it with cvc5, an
independent solver, when the ``cvc5`` package is installed.  z3's resource
count for a query is not reproducible across processes (it depends on the
process's history), so a re-run compares answers, never counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import z3

from expmech.spec import InvalidArgument

from ..._interrupts import reraise_interrupt

__all__ = ["SolverRun", "cvc5_version", "normalise_smt2", "run_cvc5", "run_z3", "z3_label"]

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


def _commands(tokens: list[str]) -> list[list[str]]:
    """The top-level commands of a token list, each a list of tokens; unbalanced parentheses raise."""
    commands: list[list[str]] = []
    current: list[str] = []
    depth = 0
    for token in tokens:
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
    return commands


_BINDERS = ("forall", "exists", "match", "lambda", "!")


class _Dag:
    """Terms as a hash-consed DAG: an atom is its token, an application the tuple of its children's ids."""

    def __init__(self) -> None:
        self.nodes: list[str | tuple[int, ...]] = []
        self.ids: dict[str | tuple[int, ...], int] = {}

    def intern(self, node: str | tuple[int, ...]) -> int:
        found = self.ids.get(node)
        if found is None:
            found = self.ids[node] = len(self.nodes)
            self.nodes.append(node)
        return found


def _parse_term(tokens: list[str], dag: _Dag) -> int:
    """The DAG node of one term, its ``let`` bindings expanded by reference (never copied); iterative."""
    bound: dict[str, list[int]] = {}
    # a frame is (kind, items, names its let bound): kinds "list", "let", "bindings", "binding"
    frames: list[tuple[str, list[Any], list[str]]] = [("list", [], [])]
    i, size = 0, len(tokens)
    while i < size:
        token = tokens[i]
        kind, items, scope = frames[-1]
        if token == "(":
            head = tokens[i + 1] if i + 1 < size else ")"
            if head in _BINDERS:
                raise InvalidArgument(f"an SMT-LIB2 certificate query has no {head!r} binder", parameter="smt2", value=head)
            if kind == "bindings":
                if head in ("(", ")"):
                    raise InvalidArgument("a let binding must start with its variable", parameter="smt2", value=None)
                frames.append(("binding", [head], []))
                i += 2
            elif head == "let":
                if i + 2 >= size or tokens[i + 2] != "(":
                    raise InvalidArgument("a let must be followed by its bindings", parameter="smt2", value=None)
                frames.append(("let", [], []))
                frames.append(("bindings", [], []))
                i += 3
            else:
                frames.append(("list", [], []))
                i += 1
            continue
        if token == ")":
            frames.pop()
            if not frames:
                raise InvalidArgument("the SMT-LIB2 term closes a parenthesis it never opened", parameter="smt2", value=None)
            parent = frames[-1]
            if kind == "list":
                if not items:
                    raise InvalidArgument("an SMT-LIB2 term has an empty application ()", parameter="smt2", value=None)
                parent[1].append(dag.intern(tuple(items)))
            elif kind == "binding":
                if len(items) != 2:
                    raise InvalidArgument(f"the let binding of {str(items[0])[:40]!r} needs exactly one term", parameter="smt2", value=None)
                parent[1].append((items[0], items[1]))
            elif kind == "bindings":  # the bindings are in scope in the let's body only
                for name, node in items:
                    bound.setdefault(name, []).append(node)
                    parent[2].append(name)
            else:  # a let: its value is its body's, and its names go out of scope
                if len(items) != 1:
                    raise InvalidArgument("a let needs exactly one body", parameter="smt2", value=None)
                for name in reversed(scope):
                    bound[name].pop()
                parent[1].append(items[0])
            i += 1
            continue
        if kind == "bindings":
            raise InvalidArgument(f"a let binding list holds {token[:40]!r}", parameter="smt2", value=token[:40])
        stack = bound.get(token)
        items.append(stack[-1] if stack else dag.intern(token))
        i += 1
    if len(frames) != 1 or len(frames[0][1]) != 1:
        raise InvalidArgument("an SMT-LIB2 command holds exactly one term", parameter="smt2", value=None)
    root: int = frames[0][1][0]
    return root


def _print_term(root: int, dag: _Dag) -> list[str]:
    """Tokens of the canonical text of a DAG: every application used twice or more is let-bound, in post-order,
    as ``_let1``, ``_let2``, … (nested single lets, each before its first use); all else written out."""
    uses: dict[int, int] = {}
    order: list[int] = []  # applications in post-order
    seen: set[int] = set()
    stack: list[tuple[int, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in seen:
            continue
        seen.add(node)
        children = dag.nodes[node]
        if isinstance(children, tuple):
            stack.append((node, True))
            for child in reversed(children):
                if isinstance(dag.nodes[child], tuple):
                    uses[child] = uses.get(child, 0) + 1
                    stack.append((child, False))
    names: dict[int, str] = {}
    out: list[str] = []
    lets = 0

    def write(node: int, top: bool) -> None:
        todo: list[int | str] = [node]
        first = top
        while todo:
            item = todo.pop()
            if isinstance(item, str):
                out.append(item)
                continue
            if item in names and not first:
                out.append(names[item])
                continue
            first = False
            value = dag.nodes[item]
            if isinstance(value, str):
                out.append(value)
                continue
            out.append("(")
            todo.append(")")
            todo.extend(reversed(value))

    for node in order:
        if uses.get(node, 0) >= 2 and node != root:
            out.extend(["(", "let", "(", "("])
            lets += 1
            name = f"_let{lets}"
            out.append(name)
            write(node, True)
            names[node] = name
            out.extend([")", ")"])
    write(root, False)
    out.extend([")"] * lets)
    return out


def _join(tokens: list[str]) -> str:
    out: list[str] = []
    for index, token in enumerate(tokens):
        if index and token != ")" and tokens[index - 1] != "(":
            out.append(" ")
        out.append(token)
    return "".join(out)


def normalise_smt2(text: str) -> str:
    """The normal form of an SMT-LIB2 query (see the module docstring); raise :class:`InvalidArgument` if it is not one."""
    lines = []
    for command in _commands(_tokens(text)):
        name = command[1] if len(command) > 1 else ""
        if name == "set-info":
            continue
        if name not in _COMMANDS:
            raise InvalidArgument(f"the SMT-LIB2 command {name[:40]!r} is not one a certificate query may hold", parameter="smt2", value=name[:40])
        if name == "assert":
            dag = _Dag()
            command = ["(", "assert", *_print_term(_parse_term(command[2:-1], dag), dag), ")"]
        lines.append(_join(command))
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
    reraise_interrupt(reason)
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
