"""Reading a Python function for the tracer: its syntax tree, its lines, and the names it reads from outside.

:func:`source_of` finds the function's ``def`` (or its ``lambda``) with
:func:`inspect.getsource` and :mod:`ast`, so every error can name the file
and the line of the construct.  :meth:`FunctionSource.resolve` reads a name
the function does not assign — a closure variable, a global, a builtin — and
:func:`python_value` admits it only as something whose value cannot change
behind the trace: an exact constant, a tuple of them, a module or function
the tracer knows.  A list, dict, set or array is refused (it may change after
tracing); so is a float that is not finite.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import textwrap
import types
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ._trace_values import Callable_, Const, Module, Refused, Value, constants

__all__ = ["Frame", "FunctionSource", "KNOWN_MODULES", "python_value", "source_of"]

#: Modules whose attributes the tracer reads (their functions are in :mod:`._trace_calls`).
KNOWN_MODULES = ("numpy", "math", "bisect", "fractions", "statistics", "builtins", "random", "secrets", "time", "os", "sys")


@dataclass(frozen=True)
class FunctionSource:
    """A function's syntax tree (``def`` or ``lambda``) with its file, first line and namespace."""

    function: Any
    tree: ast.FunctionDef | ast.Lambda
    filename: str
    offset: int
    name: str
    text: str

    def line(self, node: ast.AST | None) -> int:
        """The line of ``node`` in the file (the ``def`` line when unknown)."""
        lineno = getattr(node, "lineno", None) if node is not None else None
        return self.offset + (lineno if isinstance(lineno, int) else self.tree.lineno) - 1

    def parameters(self) -> list[str]:
        """The names of the two parameters ``(data, r)``; anything else is refused."""
        args = self.tree.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            raise Refused("a signature other than (data, r)", "a quality function takes exactly two parameters, the dataset and the output")
        names = [a.arg for a in args.args]
        if len(names) != 2:
            raise Refused(f"a function of {len(names)} parameters", "a quality function takes exactly two parameters, the dataset and the output")
        return names

    def body(self) -> list[ast.stmt]:
        """The statements of the body (a lambda's expression as a return)."""
        if isinstance(self.tree, ast.Lambda):
            node = ast.Return(value=self.tree.body)
            ast.copy_location(node, self.tree.body)
            return [node]
        return list(self.tree.body)

    def resolve(self, name: str) -> Any:
        """The object ``name`` refers to outside the function: a closure variable, a global, a builtin."""
        function = self.function
        code = function.__code__
        if function.__closure__ and name in code.co_freevars:
            cell = function.__closure__[code.co_freevars.index(name)]
            try:
                return cell.cell_contents
            except ValueError:
                raise LookupError(name) from None
        if name in function.__globals__:
            return function.__globals__[name]
        if hasattr(builtins, name):
            return getattr(builtins, name)
        raise LookupError(name)


@dataclass
class Frame:
    """One function being traced: its source, and its local variables."""

    source: FunctionSource
    env: dict[str, Value] = field(default_factory=dict)


def source_of(function: Any) -> FunctionSource:
    """The :class:`FunctionSource` of a plain Python function; :class:`Refused` naming why it cannot be read."""
    if not isinstance(function, types.FunctionType):
        what = type(function).__name__
        raise Refused(f"a {what}", "trace() takes a plain Python function (def or lambda) whose source can be read")
    if inspect.iscoroutinefunction(function) or inspect.isgeneratorfunction(function):
        raise Refused("a generator or async function", "a quality returns one number")
    try:
        lines, start = inspect.getsourcelines(function)
    except (OSError, TypeError):
        raise Refused("a function without source", "its source could not be read (defined in a REPL or generated?); write it in a file") from None
    filename = inspect.getsourcefile(function) or function.__code__.co_filename
    text = textwrap.dedent("".join(lines))
    try:
        module = ast.parse(text)
    except SyntaxError:
        # a lambda inside a larger expression: the source lines are not a statement on their own
        module = ast.parse("(\n" + text + "\n)") if text.strip() else ast.parse("")
        start -= 1
    candidates: list[ast.FunctionDef | ast.Lambda] = []
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef) and node.name == function.__name__:
            candidates.append(node)
        elif isinstance(node, ast.Lambda) and function.__name__ == "<lambda>":
            candidates.append(node)
    if function.__name__ != "<lambda>":
        candidates = [c for c in candidates if c.lineno == 1 + min(getattr(c, "lineno", 1) - 1 for c in candidates)] if candidates else []
    if len(candidates) != 1:
        raise Refused("a function whose definition is ambiguous", f"{len(candidates)} definitions match {function.__name__} in its source lines (several lambdas on one line?)")
    tree = candidates[0]
    if isinstance(tree, ast.FunctionDef) and tree.decorator_list:
        raise Refused("a decorated function", "the decorator may change what it computes")
    return FunctionSource(function, tree, filename, start, function.__qualname__, text)


def python_value(obj: Any, name: str) -> Value:
    """A value the function reads from outside, as a traced value; refused unless it cannot change behind the trace."""
    if isinstance(obj, bool | int | str) or obj is None:
        return Const(obj)
    if isinstance(obj, Fraction):
        return Const(obj)
    if isinstance(obj, float):
        if obj != obj or obj in (float("inf"), float("-inf")):
            raise Refused(f"the global {name} = {obj!r}", "not a finite number")
        return Const(Fraction(obj))
    module = type(obj).__module__ or ""
    if module.startswith("numpy") and hasattr(obj, "dtype") and getattr(obj, "shape", None) == ():
        item = obj.item()
        return python_value(item, name)
    if module.startswith("sympy") and getattr(obj, "is_Rational", False) is True:
        return Const(Fraction(int(obj.p), int(obj.q)))
    if isinstance(obj, tuple | frozenset):
        items = [python_value(item, name) for item in obj]
        if all(isinstance(i, Const) for i in items):
            values = tuple(constants(items))
            return Const(values if isinstance(obj, tuple) else frozenset(values))
        raise Refused(f"the tuple {name}", "a tuple the function reads must hold constants")
    if isinstance(obj, range):
        return Const(obj)
    if isinstance(obj, types.ModuleType):
        root = obj.__name__.split(".")[0]
        if root in KNOWN_MODULES:
            return Module(obj, obj.__name__)
        raise Refused(f"the module {obj.__name__}", "outside the traceable subset")
    if isinstance(obj, list | dict | set | bytearray) or (module.startswith("numpy") and hasattr(obj, "shape")):
        raise Refused(f"the {type(obj).__name__} {name}", "it can change after tracing; use a tuple of constants")
    if callable(obj):
        return Callable_(obj, getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or name)
    raise Refused(f"the {type(obj).__name__} {name}", "outside the traceable subset")
