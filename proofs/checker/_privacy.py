"""``privacy``: ``ε >= 2·ε₀·Δq`` (``privacy-double``), ``ε₀·Δq`` with an accepted monotonicity or normaliser claim, or
``ε = k·ln e`` with ``e^k >= c^{2ε₀}`` for a posterior (``privacy-ratio``); ``zcdp``: ``ρ >= (ε₀·Δ̂)²/8``.  Both need
the mechanism defined: a finite normaliser for every dataset (:mod:`._tails`).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ._context import TEXT_LENGTH, Context, Node, Rejected, at_least
from ._numbers import TooLarge, power, rational
from ._terms import render

__all__ = ["check_privacy", "check_zcdp", "epsilon0_of", "log_argument", "premise_of", "rational_bound", "root_of"]

MAX_POWER = 4_096


def root_of(ctx: Context, derivation: Mapping[str, Any], rules: tuple[str, ...]) -> tuple[str, str, Mapping[str, Any]]:
    """The root's ``(id, rule, data)``; Rejected unless it is a premise-free node at term [] with the envelope's bound."""
    raw = derivation["root"]
    node = raw.get("id") if isinstance(raw, Mapping) else None
    if not isinstance(node, str) or not 0 < len(node) <= 100:
        raise Rejected(None, "the root must be an object with an id of 1 to 100 characters")
    rule, data = raw.get("rule"), raw.get("data", {})
    if rule not in rules or not isinstance(data, Mapping):
        raise Rejected(node, f"rule {str(rule)[:40]!r} is not one of {', '.join(rules)} (with an object of data)")
    if raw.get("term") != [] or raw.get("premises", []) != [] or raw.get("text") != render(ctx.quality.expr, TEXT_LENGTH):
        raise Rejected(node, "the root is about the whole quality (term [], its text) and has no premises of its own: they are the certificate's other claims")
    if raw.get("bound") != derivation["bound"] or raw.get("case") != {"from": derivation["start"]}:
        raise Rejected(node, "the derivation's bound and start are not the root's bound and case")
    return node, rule, data


def premise_of(ctx: Context, kind: str, node: str, start: int, *, same: bool = True) -> Mapping[str, Any]:
    """The accepted derivation of the certificate's ``kind`` claim, covering the same sizes as ``start`` (not ``same``:
    at least those)."""
    premise = ctx.premise(kind, node)
    if premise["start"] > start or (same and premise["start"] != start):
        raise Rejected(node, f"start={start}, but the {kind} claim it rests on starts at {premise['start']}")
    return premise


def rational_bound(node: str, tree: Any, what: str) -> Fraction:
    """The rational a bound tree ``{"rational": "p/q"}`` holds."""
    if not isinstance(tree, Mapping) or set(tree) != {"rational"}:
        raise Rejected(node, f"{what} must be a rational")
    try:
        return rational(tree["rational"], what)
    except TooLarge as error:
        raise Rejected(node, str(error)) from None


def epsilon0_of(ctx: Context, node: str, data: Mapping[str, Any]) -> Fraction:
    """``data["epsilon0"]``, which must be the mechanism's ε₀."""
    try:
        eps0 = rational(data.get("epsilon0"), "data['epsilon0']")
    except TooLarge as error:
        raise Rejected(node, str(error)) from None
    if eps0 != ctx.epsilon0:
        raise Rejected(node, f"data['epsilon0'] = {eps0} is not the mechanism's ε₀ = {ctx.epsilon0}")
    return eps0


def log_argument(tree: Any) -> Fraction | None:
    """``c`` for the tree of ``log(c)`` (``1`` for the tree ``0``), else None."""
    if tree == {"rational": "0"}:
        return Fraction(1)
    if isinstance(tree, Mapping) and set(tree) == {"node", "args"} and tree["node"] == "log" and isinstance(tree["args"], list) and len(tree["args"]) == 1:
        inner = tree["args"][0]
        if isinstance(inner, Mapping) and set(inner) == {"rational"}:
            try:
                return rational(inner["rational"], "log's argument")
            except TooLarge:
                return None
    return None



def _log_form(tree: Any) -> tuple[Fraction, Fraction] | None:
    """``(k, e)`` for the tree of ``k·ln e`` (``ln e``: k = 1; ``0``: k = 0, e = 1), else None."""
    e = log_argument(tree)
    if e is not None:
        return (Fraction(0) if tree == {"rational": "0"} else Fraction(1)), e
    if isinstance(tree, Mapping) and tree.get("node") == "Mul" and isinstance(tree.get("args"), list) and len(tree["args"]) == 2:
        factor, log = tree["args"]
        e = log_argument(log)
        if isinstance(factor, Mapping) and set(factor) == {"rational"} and e is not None:
            try:
                return rational(factor["rational"], "a factor"), e
            except TooLarge:
                return None
    return None


def _power(node: str, base: Fraction, k: int) -> Fraction:
    if k > MAX_POWER:
        raise Rejected(node, f"the powers compared exceed the verifier's limit (exponent {k})")
    try:
        return power(base, k)
    except TooLarge as error:
        raise Rejected(node, f"the powers compared are too large: {error}") from None


def _finite(ctx: Context, node: str) -> None:
    if ctx.range is not None and ctx.range.kind != "finite":  # the tails' module is loaded for a range only
        from ._tails import finite_normaliser

        finite_normaliser(ctx, node)


def check_privacy(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``privacy`` (see the module docstring)."""
    node, rule, data = root_of(ctx, derivation, ("privacy-double", "privacy-monotone", "privacy-normaliser", "privacy-ratio"))
    eps0 = epsilon0_of(ctx, node, data)
    if (rule == "privacy-ratio") != ctx.quality.likelihood:
        raise Rejected(node, "privacy-ratio is the rule of a log-likelihood, the others of a quality function")
    _finite(ctx, node)
    if rule == "privacy-ratio":
        c, form = log_argument(premise_of(ctx, "likelihood-ratio", node, start)["bound"]), _log_form(derivation["bound"])
        if c is None or form is None:
            raise Rejected(node, "ε must be k·ln e (k, e rational) and Δq = ln c: other forms are not checked exactly")
        (k, e), t = form, 2 * eps0
        if k < 0 or e <= 0 or c <= 0:
            raise Rejected(node, "ε must be k·ln e with k >= 0 and e > 0")
        if _power(node, e, k.numerator * t.denominator) < _power(node, c, t.numerator * k.denominator):  # e^k >= c^(2ε₀)
            raise Rejected(node, f"ε = {k}·ln {e} is below 2·ε₀·Δq = {t}·ln {c}")
        return
    sensitivity = premise_of(ctx, "sensitivity", node, start)
    factor = 2 * eps0
    if rule == "privacy-monotone":
        if (premise_of(ctx, "monotonicity", node, start, same=False)["root"].get("rule") == "monotone-uniform") != ctx.replace:
            raise Rejected(node, "the monotonicity derivation is not one of this neighbour relation")
        factor = eps0
    elif rule == "privacy-normaliser":
        premise_of(ctx, "normaliser", node, start, same=False)
        factor = eps0
    epsilon, delta = ctx.read_bound(derivation["bound"], node), ctx.read_bound(sensitivity["bound"], node)
    claim = Node(node, (), None, ctx.quality.expr, (ctx.quality.expr,), start, None, epsilon, derivation["bound"], rule, data)
    scaled = ctx.bounds.make("Mul", (ctx.bounds.make("rational", (), factor), delta))
    at_least(ctx, claim, [scaled], f"{factor}·Δq (the accepted sensitivity claim's bound)")


def check_zcdp(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    """The claim ``zcdp``: ``ρ >= (ε₀·Δ̂)²/8``."""
    node, _, data = root_of(ctx, derivation, ("zcdp-range",))
    eps0 = epsilon0_of(ctx, node, data)
    _finite(ctx, node)
    kind = "posterior-range" if ctx.quality.likelihood else "range-sensitivity"
    spread = rational_bound(node, premise_of(ctx, kind, node, start)["bound"], "the range claim's bound")
    rho = rational_bound(node, derivation["bound"], "ρ")
    if rho < (eps0 * spread) ** 2 / 8:
        raise Rejected(node, f"ρ = {rho} is below η²/8 = {(eps0 * spread) ** 2 / 8} (η = ε₀·Δ̂)")
