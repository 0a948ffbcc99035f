"""A watch on the sympy constructors that erase a Python ``==`` as the user's code builds an expression.

sympy drops a ``False`` condition and stops at a ``True`` one as it builds a
Piecewise, and simplifies ``And(p, True)`` to ``p``, so
``Piecewise((count(x <= r), x == r), (0, True))`` is ``0`` and
``And(x <= r, x != r)`` is ``x <= r`` before any other code sees them: no
check of the finished expression can find the ``==``.  The command line
imports the user's targets inside :func:`constant_conditions_refused`, which
checks these constructors' arguments as written.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sympy

from ._booleans import boolean_error, is_constant_boolean

__all__ = ["constant_conditions_refused"]


_EXPMECH = Path(__file__).resolve().parent.parent  # spec/, impl/ and proofs/ are its folders, in a checkout and a wheel
_SYMPY = str(Path(sympy.__file__).resolve().parent)
_LIBRARIES = (_SYMPY, *(str(_EXPMECH / layer) for layer in ("spec", "impl", "proofs")))
# sympy's methods behind `p & q`, `p | q`, `~p`: the code that wrote the operator is their caller
_OPERATORS = frozenset(("__and__", "__rand__", "__or__", "__ror__", "__invert__", "__xor__", "__rxor__", "_func", "__sympifyit_wrapper", "binary_op_wrapper"))


def _user_frame(frame: Any) -> tuple[Any, bool]:
    """The frame of the code that asked for the object being built (None if it is sympy or expmech), and whether it
    asked through an operator (``&``, ``|``, ``~``: sympy then turned a Python bool into its ``true`` / ``false``)."""
    operator = False
    while frame is not None and frame.f_code.co_filename.startswith(_SYMPY) and frame.f_code.co_name in _OPERATORS:
        frame, operator = frame.f_back, True
    if frame is None or frame.f_code.co_filename.startswith(_LIBRARIES):
        return None, operator
    return frame, operator


def _python_boolean(value: Any, operator: bool) -> bool:
    """A Python bool (what ``==`` gives), or sympy's ``true`` / ``false`` where an operator made one of a Python bool.

    sympy's own ``true`` / ``false`` written directly are left to the checks of
    the finished expression (a claim, a quality): a Python ``==`` never gives them.
    """
    return isinstance(value, bool) or (operator and is_constant_boolean(value))


def _piecewise_constants(args: tuple[Any, ...], operator: bool) -> Iterator[tuple[str, Any]]:
    """Each Python bool among a Piecewise's values and its conditions, but a final ``True`` (the "otherwise")."""
    for index, pair in enumerate(args):
        value, condition = pair if isinstance(pair, tuple) and len(pair) == 2 else (getattr(pair, "expr", None), getattr(pair, "cond", None))
        if _python_boolean(value, operator):
            yield f"value {index + 1}", value
        otherwise = index == len(args) - 1 and (condition is True or condition is sympy.true)
        if _python_boolean(condition, operator) and not otherwise:
            yield f"condition {index + 1}", condition


def _connective_arguments(args: tuple[Any, ...], operator: bool) -> Iterator[tuple[str, Any]]:
    """Each Python bool among the arguments of And / Or / Not (or of Max / Min / Abs)."""
    for index, arg in enumerate(args):
        if _python_boolean(arg, operator):
            yield f"argument {index + 1}", arg


_WATCHED = {
    sympy.Piecewise: (_piecewise_constants, "sympy drops a False condition and stops at a True one, so this Piecewise would silently be "
                      "another; for a choice made in Python, write `a if flag else b` instead of a Piecewise"),
    sympy.And: (_connective_arguments, "And(p, True) is p and And(p, False) is False: the comparison would silently vanish"),
    sympy.Or: (_connective_arguments, "Or(p, False) is p and Or(p, True) is True: the comparison would silently vanish"),
    sympy.Not: (_connective_arguments, "Not(False) is True: the comparison would silently vanish"),
    sympy.Max: (_connective_arguments, "a bool is not a number"),
    sympy.Min: (_connective_arguments, "a bool is not a number"),
    sympy.Abs: (_connective_arguments, "a bool is not a number"),
}


@contextmanager
def constant_conditions_refused() -> Iterator[None]:
    """Within the block, a ``Piecewise``, ``And``, ``Or``, ``Not``, ``Max``, ``Min`` or ``Abs`` built by user code
    with a Python bool among its arguments raises :class:`InvalidType`.

    sympy drops a ``False`` condition and stops at a ``True`` one as it builds a
    Piecewise, and simplifies ``And(p, True)`` to ``p``, so
    ``Piecewise((count(x <= r), x == r), (0, True))`` is ``0`` and
    ``(x <= r) & (x != r)`` is ``x <= r`` before any other code sees them: no
    check of the finished expression can find the ``==``.  While the block runs,
    each of these built by code that is neither sympy nor expmech (the user's
    module, directly or through ``&``, ``|``, ``~``; sympy's own rebuilds, as a
    substitution makes, are left alone) is checked as written: a Python bool
    other than a Piecewise's final ``True`` condition is refused, naming the
    file and line (where sympy would raise its own error on ``Max(q, False)``
    or ``Abs(False)``, this one says what to write).  The command line uses it while it imports the user's
    targets.  Not thread-safe: it replaces the classes' ``__new__`` for the
    block's duration.
    """
    saved = {cls: cls.__dict__.get("__new__") for cls in _WATCHED}
    for cls, (constants, why) in _WATCHED.items():
        build = cls.__new__  # the function itself (a staticmethod read from the class)

        def watched(kind: Any, *args: Any, _build: Any = build, _constants: Any = constants, _why: str = why, _name: str = cls.__name__, **options: Any) -> Any:
            frame, operator = _user_frame(sys._getframe(1))
            if frame is not None:
                for place, value in _constants(args, operator):
                    raise boolean_error(value, where=f"{frame.f_code.co_filename}:{frame.f_lineno}: {_name}", parameter=place, instead=_why)
            return _build(kind, *args, **options)

        cls.__new__ = staticmethod(watched)  # type: ignore[assignment]
    try:
        yield
    finally:
        for cls, original in saved.items():
            if original is None:
                del cls.__new__
            else:
                cls.__new__ = original  # type: ignore[method-assign]
