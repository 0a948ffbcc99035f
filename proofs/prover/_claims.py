"""Claims about Δq: parsing, values at a dataset size, and ``claim >= bound`` for every n.

A claim or a bound is a rational, ``oo``, or an expression in ``n`` (see
:data:`expmech.spec.DATASET_SIZE`) built from rationals with ``+ − · /``,
``Max``, ``Min`` and ``Abs``.  Whether ``a(n) >= b(n)`` for every integer
``n >= start`` is decided exactly:

1. sympy as a shortcut only (constants; a difference sympy proves non-negative);
2. z3 over an integer ``n >= start`` (``Max``/``Min``/``Abs`` as ``If``):
   unsatisfiable ``a < b`` proves it; a model ``n₀`` is confirmed by exact
   evaluation and returned as the size where it fails;
3. if z3 cannot decide, an exact case analysis: the real solution set of
   ``a < b`` on ``[start, ∞)`` (sympy's exact univariate inequality solver over
   the ``Max``/``Min`` cases) is searched for an integer.

When none of them decides, the answer is ``None`` — never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import DATASET_SIZE, ExpMechError, InvalidArgument, InvalidType
from expmech.spec.internal import describe


__all__ = ["Comparison", "at_least", "parse_claim", "value_at"]

n = DATASET_SIZE


def value_at(expr: sympy.Expr, size: int) -> Fraction | None:
    """``expr`` at ``n = size`` as a Fraction; None where it is undefined (``1/n`` at 0) or infinite."""
    if expr is sympy.oo:
        return None
    try:
        value = expr.subs(n, size) if expr.free_symbols else expr
    except (ArithmeticError, TypeError, ValueError):
        return None  # sympy refusing a pole inside Max/Min ("zoo is not comparable"): undefined there
    if value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return None
    if not value.is_Rational:
        value = sympy.nsimplify(value)
        if not value.is_Rational:
            return None
    return Fraction(int(value.p), int(value.q))


#: The largest degree of a claim's powers (the product of the exponents of nested powers).
MAX_CLAIM_DEGREE = 256

_LANGUAGE = "rationals, n, + - * /, integer powers, Max, Min, Abs and Piecewise with conditions on n"
_RELATIONS = (sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge)


def _refused(written: Any, problem: str) -> InvalidArgument:
    return InvalidArgument(f"claimed={describe(written)} {problem}", parameter="claimed", value=written)


def _check_language(value: sympy.Basic, written: Any) -> None:
    """Refuse, naming the offending part, a claim not built from the claim language (iteratively).

    Number atoms other than rationals (``oo``, ``pi``, floats, …) pass here:
    the value checks refuse them by what they are worth.
    """
    stack: list[tuple[sympy.Basic, int, bool]] = [(value, 1, False)]  # (node, degree so far, a condition?)
    while stack:
        node, degree, condition = stack.pop()
        if condition:
            if isinstance(node, sympy.logic.boolalg.BooleanAtom):
                continue
            if isinstance(node, _RELATIONS):
                stack.extend((arg, degree, False) for arg in node.args)
                continue
            if isinstance(node, sympy.And | sympy.Or | sympy.Not):
                stack.extend((arg, degree, True) for arg in node.args)
                continue
            raise _refused(written, f"has the condition {describe(node)}; a Piecewise condition compares expressions in n (And, Or, Not of them)")
        if not isinstance(node, sympy.Expr):
            raise _refused(written, f"holds {describe(node)}, which is not a number; a claim is built from {_LANGUAGE}")
        if node.is_Atom:
            if node.is_Symbol and node != n:
                raise _refused(written, f"holds the symbol {node}; a claim's only variable is n (expmech.spec.DATASET_SIZE)")
            if not node.is_Symbol and not node.is_number:
                raise _refused(written, f"holds {describe(node)}; a claim is built from {_LANGUAGE}")
            continue
        if isinstance(node, sympy.Add | sympy.Mul | sympy.Max | sympy.Min | sympy.Abs):
            stack.extend((arg, degree, False) for arg in node.args)
        elif isinstance(node, sympy.Pow):
            exponent = node.exp
            if not isinstance(exponent, sympy.Integer):
                raise _refused(written, f"has the power {describe(node)}; a claim's exponents are integers")
            degree *= max(1, abs(int(exponent)))
            if degree > MAX_CLAIM_DEGREE:
                raise _refused(written, f"has powers of degree above {MAX_CLAIM_DEGREE} ({describe(node)})")
            stack.append((node.base, degree, False))
        elif isinstance(node, sympy.Piecewise):
            for pair in node.args:
                stack.append((pair.cond, degree, True))
                stack.append((pair.expr, degree, False))
        else:
            raise _refused(written, f"holds {describe(node)}; a claim is built from {_LANGUAGE}")


def parse_claim(claimed: Any) -> sympy.Expr | None:
    """A claimed Δq as a sympy expression in ``n`` (None stays None); refused by name unless >= 0 and exact.

    A claim is built from :data:`_LANGUAGE`; anything else — another
    function or symbol, a boolean, a Piecewise whose condition is not one, a
    power of degree above :data:`MAX_CLAIM_DEGREE`, a value sympy cannot
    evaluate — raises :class:`InvalidArgument` naming ``claimed`` and its value.
    """
    if claimed is None:
        return None
    try:
        return _parse_claim(claimed)
    except ExpMechError:
        raise
    except (ArithmeticError, AttributeError, LookupError, RecursionError, TypeError, ValueError, sympy.SympifyError) as error:
        # sympy refusing an ill-formed expression (a Piecewise condition that is a number, …): the claim's fault
        raise _refused(claimed, f"is not a claim sympy can evaluate ({type(error).__name__}: {' '.join(str(error).split())[:120]})") from None


#: A claim as text: integers, n, + - * /, Max( … , … ), Min( … , … ) and parentheses.
_CLAIM_TEXT = re.compile(r"(?:\s|\d|n|[-+*/(),]|Max|Min)+")


def _as_dataset_size(value: sympy.Expr, written: Any) -> sympy.Expr:
    """``value`` with a user's own symbol ``n`` read as :data:`DATASET_SIZE`; a positive one refused.

    A symbol named ``n`` without assumptions (``sympy.Symbol("n")``), or one
    declared integer and nonnegative, is the dataset size.  One declared
    positive is refused: sympy has already dropped the ``n = 0`` case from the
    claim (``Max(1, 2*n)`` built from it is ``2*n``).
    """
    others = [s for s in value.free_symbols if isinstance(s, sympy.Symbol) and s.name == "n" and s != n]
    for symbol in others:
        if symbol.is_positive or symbol.is_nonnegative is False or symbol.is_integer is False:
            raise InvalidArgument(
                f"claimed={describe(written)} uses a symbol n declared {'positive' if symbol.is_positive else 'negative or not an integer'}; write the claim with "
                "expmech.spec.DATASET_SIZE (a nonnegative integer: under add-remove n = 0 is the empty dataset, and a "
                "positive n lets sympy drop that case before expmech sees the claim, e.g. Max(1, 2*n) becomes 2*n)",
                parameter="claimed",
                value=written,
            )
    return value.xreplace({symbol: n for symbol in others}) if others else value


def _parse_claim(claimed: Any) -> sympy.Expr:
    written = claimed
    if isinstance(claimed, str):
        if not claimed.strip() or not _CLAIM_TEXT.fullmatch(claimed) or "**" in claimed or len(claimed) > 200:
            raise InvalidArgument(
                f"claimed={describe(written)} must be written with integers, n, + - * /, Max, Min, commas and parentheses "
                "(at most 200 characters)",
                parameter="claimed",
                value=written,
            )
        try:
            claimed = sympy.sympify(claimed, locals={"n": n, "Max": sympy.Max, "Min": sympy.Min})
        except (sympy.SympifyError, SyntaxError, TypeError, ValueError, ZeroDivisionError):
            raise InvalidArgument(f"claimed={describe(written)} is not an expression in n", parameter="claimed", value=written) from None
    try:
        value = sympy.sympify(claimed, strict=True) if not isinstance(claimed, Fraction) else sympy.Rational(claimed.numerator, claimed.denominator)
    except (sympy.SympifyError, TypeError):
        raise InvalidType(f"claimed={describe(written)} must be a rational or an expression in n", parameter="claimed", value=written) from None
    if isinstance(value, sympy.Expr):
        value = _as_dataset_size(value, written)
    if not isinstance(value, sympy.Expr) or value.free_symbols - {n} or value.has(sympy.Float) or value.has(sympy.zoo, sympy.nan):
        raise InvalidArgument(
            f"claimed={describe(written)} must be an exact rational or an expression in n (expmech.spec.DATASET_SIZE)",
            parameter="claimed",
            value=written,
        )
    _check_language(value, written)
    for size in (1, 2, 3, 10, 1000):
        at = value_at(value, size)
        if at is None or at < 0:
            raise InvalidArgument(
                f"claimed={describe(written)} is {value.subs(n, size)} at n={size}; it must be a rational >= 0",
                parameter="claimed",
                value=written,
            )
    return value


@dataclass(frozen=True)
class Comparison:
    """Whether ``a(n) >= b(n)`` for every integer ``n >= start``: ``holds`` True/False/None (undecided);
    ``fails_at`` an ``n`` where it fails (exactly checked); ``how`` the deciding method."""

    holds: bool | None
    fails_at: int | None
    how: str


def _to_z3(expr: sympy.Expr, size: Any) -> Any:
    from ._z3bridge import Translator, as_real

    return Translator({n: as_real(size)}).number(expr)


def at_least(a: sympy.Expr, b: sympy.Expr, *, start: int = 1, rlimit: int = 2_000_000, timeout_ms: int = 10_000) -> Comparison:
    """Decide ``a(n) >= b(n)`` for every integer ``n >= start`` (see the module docstring)."""
    if b is sympy.oo:
        return Comparison(a is sympy.oo, None if a is sympy.oo else start, "infinite bound")
    if a is sympy.oo:
        return Comparison(True, None, "infinite claim")
    if a.has(sympy.oo, -sympy.oo, sympy.zoo) or b.has(sympy.oo, -sympy.oo, sympy.zoo):
        return Comparison(None, None, "not a finite expression")
    # values at the first sizes, exactly: a cheap refutation, and n = 0 never goes to sympy's positive n
    for size in range(start, start + 3):
        left, right = value_at(a, size), value_at(b, size)
        if left is None or right is None:
            return Comparison(None, None, f"undefined at n={size}")
        if left < right:
            return Comparison(False, size, "exact value")
    first = max(start, 1)
    if not a.free_symbols and not b.free_symbols:
        return Comparison(True, None, "constants")
    difference = a - b
    if not difference.has(sympy.Max, sympy.Min, sympy.Abs, sympy.Piecewise):
        difference = sympy.cancel(difference)
    if difference == 0 or difference.is_nonnegative is True:
        return Comparison(True, None, "sympy")
    from ._z3bridge import Translator, check, int_var, real_var  # z3 loads only when a comparison needs it

    size = int_var("n")
    try:
        left, right = _to_z3(a, size), _to_z3(b, size)
    except InvalidArgument:
        left = right = None
    if left is not None:
        answer = check([size >= first, left < right], rlimit=rlimit, timeout_ms=timeout_ms, export=False)
        if answer.status == "unsat":
            return Comparison(True, None, "z3 over integers")
        if answer.status == "sat" and answer.model is not None and isinstance(answer.model.get("n"), int):
            at = int(answer.model["n"])
            l_at, r_at = value_at(a, at), value_at(b, at)
            if l_at is not None and r_at is not None and l_at < r_at:
                return Comparison(False, at, "z3 over integers, checked exactly")
        real = real_var("n")
        relaxed = check([real >= first, Translator({n: real}).number(a) < Translator({n: real}).number(b)], rlimit=rlimit, timeout_ms=timeout_ms, export=False)
        if relaxed.status == "unsat":
            return Comparison(True, None, "z3 over reals >= n")
    return _case_analysis(a, b, first)


def _case_analysis(a: sympy.Expr, b: sympy.Expr, start: int) -> Comparison:
    """Exact: the real set where a < b on [start, oo), searched for an integer."""
    x = sympy.Symbol("x", real=True)
    difference = (a - b).subs(n, x).rewrite(sympy.Piecewise)
    try:
        difference = sympy.piecewise_fold(difference)
        region = sympy.solveset(difference < 0, x, sympy.Interval(start, sympy.oo))
    except (NotImplementedError, TypeError, ValueError):
        return Comparison(None, None, "undecided")
    if region is sympy.S.EmptySet:
        return Comparison(True, None, "exact case analysis")
    intervals = region.args if isinstance(region, sympy.Union) else (region,)
    for interval in intervals:
        if isinstance(interval, sympy.FiniteSet):
            candidates = [p for p in interval if p.is_integer]
        elif isinstance(interval, sympy.Interval):
            low = sympy.ceiling(interval.start)
            if interval.left_open and low == interval.start:
                low += 1
            candidates = [low] if (interval.end is sympy.oo or low < interval.end or (low == interval.end and not interval.right_open)) else []
        else:
            return Comparison(None, None, "undecided")
        for candidate in candidates:
            at = int(candidate)
            l_at, r_at = value_at(a, at), value_at(b, at)
            if l_at is not None and r_at is not None and l_at < r_at:
                return Comparison(False, at, "exact case analysis")
        if candidates:
            return Comparison(None, None, "undecided")
    return Comparison(True, None, "exact case analysis")
