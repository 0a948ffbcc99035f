"""Values a certificate states in text (``"1/n"``, ``"log(81)"``, ``"9*(exp(1) - 1)"``), read and compared exactly.

:func:`parse_value` reads Python arithmetic syntax with :mod:`ast` (parsed, never evaluated): integers, ``n``,
``+ - * /``, ``**`` with an integer exponent, ``log``, ``exp``, ``E``.  :func:`same_value` decides equality:
as rational functions of n, or, without n, as forms ``r + Σ kᵢ·log cᵢ + Σ sⱼ·e^{aⱼ}`` over the rationals
(equal exactly when the forms are, by Lindemann–Weierstrass, once integer multiples of logs are merged).
:func:`at_most` decides ``a <= b`` at every size from a first one.
"""

from __future__ import annotations

import ast
from fractions import Fraction
from typing import Any

from ._encode import Encoder
from ._formula import FALSE, Obligation, Var, var
from ._numbers import TooLarge, add, exp_compare, mul, power
from ._terms import Reader, Term
from ._univariate import decide_univariate, poly_mul, rational_forms

__all__ = ["at_most", "parse_value", "same_value"]

_OPS = {ast.Add: "Add", ast.Sub: "Add", ast.Mult: "Mul", ast.Div: "Mul"}


def parse_value(text: Any, reader: Reader) -> Term:
    """The term written ``text`` (ValueError naming what is wrong)."""
    if not isinstance(text, str) or not text.strip() or len(text) > 2_000:
        raise ValueError(f"{str(text)[:40]!r} is not a value text")
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
        raise ValueError(f"{text[:60]!r} is not arithmetic: {error}") from None

    def read(node: ast.AST) -> Term:
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value.bit_length() < 13_000:
            return reader.make("rational", (), Fraction(node.value))
        if isinstance(node, ast.Name) and node.id in ("n", "E"):
            return reader.make("symbol", (), "n") if node.id == "n" else reader.make("exp", (read(ast.Constant(1)),))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return reader.make("Mul", (reader.make("rational", (), Fraction(-1)), read(node.operand)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("log", "exp") and len(node.args) == 1 and not node.keywords:
            return reader.make(node.func.id, (read(node.args[0]),))
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = read(node.left), read(node.right)
            if isinstance(node.op, ast.Sub):
                right = reader.make("Mul", (reader.make("rational", (), Fraction(-1)), right))
            elif isinstance(node.op, ast.Div):
                right = reader.make("Pow", (right, reader.make("rational", (), Fraction(-1))))
            return reader.make(_OPS[type(node.op)], (left, right))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = _constant(read(node.right))
            if exponent is None or exponent.denominator != 1 or abs(exponent) > 64:
                raise ValueError(f"a power needs an integer exponent up to ±64 in {text[:60]!r}")
            return reader.make("Pow", (read(node.left), reader.make("rational", (), exponent)))
        raise ValueError(f"{ast.dump(node)[:40]} is not allowed in a value ({text[:60]!r})")

    return read(tree)


def _constant(term: Term) -> Fraction | None:
    form = _form(term)
    return None if form is None or set(form) - {("1",)} else form.get(("1",), Fraction(0))


Form = dict[tuple[Any, ...], Fraction]


def _form(term: Term) -> Form | None:
    """``{("1",): r, ("log", c): k, ("exp", a): s}`` for a term without n; None when outside those forms."""
    op = term.op
    if op == "rational":
        return {("1",): term.value} if term.value else {}
    if op in ("log", "exp"):
        inner = _constant(term.args[0])
        if inner is None or (op == "log" and inner <= 0):
            return None
        return ({("1",): Fraction(1)} if inner == 0 else {("exp", inner): Fraction(1)}) if op == "exp" else {} if inner == 1 else {("log", inner): Fraction(1)}
    if op == "Pow":
        base = _constant(term.args[0])
        k = int(term.args[1].value)
        return None if base is None or (base == 0 and k < 0) else {("1",): power(base, k)} if base else {}
    if op not in ("Add", "Mul"):
        return None
    result: Form = {} if op == "Add" else {("1",): Fraction(1)}
    for arg in term.args:
        part = _form(arg)
        if part is None:
            return None
        if op == "Add":
            pairs = list(part.items())
            merged = dict(result)
        else:
            if any(k1[0] != "1" and k2[0] != "1" and "log" in (k1[0], k2[0]) for k1 in result for k2 in part):
                return None  # log·log and log·exp are not forms
            pairs = [(k2 if k1 == ("1",) else k1 if k2 == ("1",) else ("exp", add(k1[1], k2[1])), mul(v1, v2)) for k1, v1 in result.items() for k2, v2 in part.items()]
            merged = {}
        for key, value in pairs:
            key = ("1",) if key == ("exp", 0) else key
            merged[key] = add(merged.get(key, Fraction(0)), value)
        result = {key: v for key, v in merged.items() if v}
    whole = {key: v for key, v in result.items() if key[0] == "log" and v.denominator == 1}
    if len(whole) > 1 or any(v != 1 for v in whole.values()):  # merge integer multiples of logs into one
        argument = Fraction(1)
        for key, v in whole.items():
            argument = mul(argument, power(key[1], int(v)))
        result = {key: v for key, v in result.items() if key not in whole}
        if argument != 1:
            result[("log", argument)] = add(result.get(("log", argument), Fraction(0)), Fraction(1))
    return result


def _rational_function(term: Term, reader: Reader) -> Any:
    try:
        forms = rational_forms(Encoder({reader.make("symbol", (), "n"): ("n", var("n"), FALSE)}).number(term)[0], [])
    except Exception:  # noqa: BLE001 - anything outside rational functions of n (a log, a huge power) is "not one"
        return None
    return forms[0] if len(forms) == 1 else None


def same_value(a: Term, b: Term, reader: Reader) -> bool:
    """Whether the two value terms are equal (see the module docstring); False when undecided."""
    try:
        fa, fb = _form(a), _form(b)
        if fa is not None and fb is not None:
            return fa == fb
        ra, rb = _rational_function(a, reader), _rational_function(b, reader)
        return ra is not None and rb is not None and poly_mul(ra[0], rb[1]) == poly_mul(rb[0], ra[1])
    except (TooLarge, ZeroDivisionError):
        return False


def at_most(a: Term, b: Term, start: int, reader: Reader) -> bool | None:
    """Whether ``a <= b`` at every size ``n >= start`` (None: not decided exactly)."""
    try:
        fa, fb = _form(a), _form(b)
        if fa is not None and fa == fb:
            return True
        if fa and fb and len(fa) == len(fb) == 1 and next(iter(fa))[0] == next(iter(fb))[0] == "log" and min(*fa.values(), *fb.values()) > 0:
            (((_, c), k),), (((_, d), j),) = fa.items(), fb.items()  # k·log c <= j·log d iff c^(k·j.den) <= d^(j·k.den)
            return power(c, k.numerator * j.denominator) <= power(d, j.numerator * k.denominator)
        if fa is not None and fb is not None and set(fb) <= {("1",)}:
            bound = fb.get(("1",), Fraction(0))
            if set(fa) <= {("1",)}:
                return fa.get(("1",), Fraction(0)) <= bound
            if len(fa) == 1 and next(iter(fa))[0] == "log" and next(iter(fa.values())) > 0:  # k·log c <= b iff c^p <= e^{q·b}
                ((_, c), k), = fa.items()
                sign = exp_compare(k.denominator * bound, power(c, k.numerator))
                return None if sign is None else sign >= 0
            return None
        if _rational_function(a, reader) is None or _rational_function(b, reader) is None:
            return None
        enc = Encoder({reader.make("symbol", (), "n"): ("n", var("n"), FALSE)})
        (va, ua), (vb, ub) = enc.number(a), enc.number(b)
        return decide_univariate(Obligation("epsilon", "a <= b", ("or", ua, ub, ("<", vb, va)), (Var("n", True, Fraction(start), None),))) is None
    except (TooLarge, ZeroDivisionError):
        return None
