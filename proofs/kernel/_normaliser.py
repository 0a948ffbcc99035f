"""The normaliser rule: ``Z(D) = Σ/∫ e^{ε q(D, r)} μ(dr)`` is the same for every dataset.

The claim ``normaliser`` has one node, the root, of rule ``normaliser-translate``
and bound 0 (``Z(D) − Z(D′) = 0``), with ``data`` = ``{"shift": f, "profile":
h, "line": "reals" | "integers"}`` (``f`` and ``h`` the JSON text of the trees
:func:`expmech.spec.internal.expression_to_json` writes; ``h`` in the output
variable; read with ``json.loads`` and rebuilt exactly, never parsed as code).
The kernel checks that the one output variable ranges over all of ℝ (``"reals"``:
the caller's μ must be Lebesgue) or all of ℤ (``"integers"``: counting μ), that
f holds aggregates and no output, h no aggregate, and with z3, the aggregates
free variables (every dataset's values among them):

* wherever q(D, r) is defined, ``q(D, r) = h(r − f(D))``, both defined;
* on ℤ, f(D) is an integer (counts and sizes are; a total's record term must be).

Then ``r ↦ r − f(D)`` maps the line onto itself and preserves μ, so ``Z(D) =
Σ/∫ e^{ε h(s)} μ(ds)`` for every D.  Which μ and range the mechanism uses is the
certificate's input: whoever calls the kernel binds them to ``data["line"]``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import sympy
import z3

from expmech.spec import Count, InvalidArgument, IntRange, Mean, RationalRange, Size, Total
from expmech.spec.internal import expression_from_json

from ._derivation import Context, Node, Rule, read_node
from ._monotone import never
from ._terms import Encoder, has_aggregate
from ._verdict import Rejected, RuleInfo

__all__ = ["NORMALISER_RULES", "NORMALISER_TABLE", "check_normaliser"]


def _expression(ctx: Context, node: Node, key: str) -> sympy.Basic:
    symbols = {name: sym for name, sym, _ in [*ctx.quality.schema.items(), *ctx.quality.output_space.items()]}
    text = node.data.get(key)
    try:
        if not isinstance(text, str) or len(text) > 100_000:
            raise TypeError("not the JSON text of an expression tree")
        return expression_from_json(json.loads(text), symbols)
    except (InvalidArgument, RecursionError, TypeError, ValueError) as error:
        raise Rejected(node.id, f"data[{key!r}] is not an expression of the language: {str(error)[:120]}") from None


def translate(ctx: Context, node: Node) -> None:
    """q(D, r) = h(r − f(D)) over the whole line (f integer-valued on ℤ): Z(D) does not depend on D."""
    if node.path or node.args is not None or node.premises or node.bound != ("num", 0):
        raise Rejected(node.id, "normaliser-translate is the root (term []), without premises, of bound 0")
    items = list(ctx.quality.output_space.items())
    line = node.data.get("line")
    whole = {"reals": RationalRange(None, None), "integers": IntRange(None, None)}.get(line if isinstance(line, str) else "")
    if len(items) != 1 or whole is None or items[0][2] != whole:
        raise Rejected(node.id, f"the outputs must be one variable over all of ℝ or ℤ, as data['line'] says ({str(line)[:20]!r})")
    r = items[0][1]
    shift, profile = _expression(ctx, node, "shift"), _expression(ctx, node, "profile")
    if not has_aggregate(shift) or r in shift.free_symbols or has_aggregate(profile):
        raise Rejected(node.id, "the shift must depend on the data and not on r, the profile not on the data")
    s, integers = ctx.session, line == "integers"
    env: dict[Any, tuple[Any, Any]] = {}
    for index, atom in enumerate(sorted(shift.atoms(Count, Total, Mean, Size) | ctx.quality.expr.atoms(Count, Total, Mean, Size), key=str)):
        whole_number = isinstance(atom, Count | Size) or (integers and isinstance(atom, Total))
        value = s.integer(f"agg_{index}") if whole_number else s.real(f"agg_{index}")
        env[atom] = (value, s.boolean(False))
        if isinstance(atom, Count | Size):
            s.background.append(value >= 0)
        if integers and isinstance(atom, Mean):
            raise Rejected(node.id, "a mean is not integer-valued: the shift on ℤ may not use one")
        if integers and isinstance(atom, Total) and atom in shift.atoms(Total):
            term, undefined = ctx.encoder("a").number(atom.args[0])
            real = z3.ToReal(term) if z3.is_int(term) else term
            never(ctx, node, f"the record term of {atom} is an integer", z3.And(z3.Not(undefined), z3.Not(z3.IsInt(real))))
    q_value, q_undefined = Encoder(s, {**ctx.outputs, **env}).number(ctx.quality.expr)
    f_value, f_undefined = Encoder(s, {**ctx.outputs, **env}).number(shift)
    moved = ctx.outputs[r][0] - f_value
    h_value, h_undefined = Encoder(s, {r: (moved, s.boolean(False))}).number(profile)
    differs = z3.And(z3.Not(q_undefined), z3.Or(f_undefined, h_undefined, q_value != h_value))
    never(ctx, node, "q(D, r) = h(r − f(D)) wherever q is defined", differs)
    if integers:
        real_shift = z3.ToReal(f_value) if z3.is_int(f_value) else f_value
        never(ctx, node, "f(D) is an integer", z3.And(z3.Not(f_undefined), z3.Not(z3.IsInt(real_shift))))


def check_normaliser(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``normaliser``: one root node, bound 0, covering every dataset."""
    if start != (1 if ctx.replace else 0) or derivation["bound"] != {"rational": "0"}:
        raise Rejected(None, "a normaliser claim has bound 0 and covers every n")
    root = read_node(ctx, derivation["root"])
    if root.lo > start or root.hi is not None:
        raise Rejected(root.id, "the root must cover every n")
    ctx.session.discharge()


#: rule name -> the function checking it
NORMALISER_RULES: dict[str, Rule] = {"normaliser-translate": translate}

#: rule name -> (claim, statement name, one-line statement)
NORMALISER_TABLE: dict[str, RuleInfo] = {
    "normaliser-translate": RuleInfo("normaliser", "normaliser-translate", "q(D, r) = h(r − f(D)) over all of ℝ (Lebesgue) or ℤ (counting, f integer): Z(D) = Z"),
}
