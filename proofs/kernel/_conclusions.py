"""Claims concluded from other claims of the same certificate: ε-DP, ρ-zCDP and a posterior's bounded range.

Each derivation has one root node (term ``[]``, no premises of its own) whose rule
names the claims it rests on.  The kernel takes each such claim's derivation from
the certificate (``premises`` of :func:`~expmech.proofs.kernel.check_derivation`),
accepts it itself, and reads the premise's bound from that accepted derivation —
never from this claim's text.  ε₀ is the node's ``data["epsilon0"]`` (the caller
binds it to the certificate's).  Then, by exact arithmetic:

* ``privacy-double``: ``ε(n) >= 2·ε₀·Δq(n)`` at every n the sensitivity covers
  (a z3 query over n when either mentions n); ``privacy-monotone``: ``ε >= ε₀·Δq``
  with an accepted monotonicity of this relation; ``privacy-normaliser``: the same
  with an accepted normaliser claim; ``privacy-ratio`` (a LogLikelihood): ε is
  ``k·ln e`` with ``e^k >= c^{2ε₀}``, ``ln c`` the accepted likelihood ratio,
  compared as integer powers;
* ``zcdp-range``: ``ρ >= (ε₀·Δ̂)²/8``, Δ̂ the accepted (posterior) range claim's bound;
* ``range-enumerate`` (claim ``posterior-range``): ``e^Δ̂ >= R``, R the largest
  ``max_θ r / min_θ r`` over every record (pair) of the schema and the θ listed in
  ``data["outputs"]`` (the caller binds them to the outputs of positive μ), with
  ``r = ℓ(x, θ)/ℓ(x′, θ)`` (add-remove: ``ℓ(x, θ)``) evaluated exactly by the spec;
  ``range-ratio-double``: ``e^Δ̂ >= c²``.  ``e^x`` is bounded below by partial sums
  of its series, so an undecided comparison rejects.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from expmech.spec import InvalidArgument, LogLikelihood, QualityError, rational_from_text

from ._bounds import read_bound
from ._derivation import Context, Node, at_least, term_text
from ._ratio import _log_argument
from ._verdict import Rejected, RuleInfo

__all__ = ["CONCLUSION_CHECKERS", "CONCLUSION_TABLE", "LIMIT", "exp_at_least", "premise_of", "rational_bound", "root_of"]

LIMIT = 200_000  # record (pairs) × θ evaluations of range-enumerate
MAX_POWER = 4_096  # exponents of privacy-ratio's integer powers
MAX_EXPONENT = 1_000  # the largest x of e^x compared


def _rational(node: str, text: Any, name: str) -> Fraction:
    try:
        return rational_from_text(text, name=name)
    except (InvalidArgument, ValueError, TypeError) as error:
        raise Rejected(node, f"{name} is not a rational: {str(error)[:120]}") from None


def root_of(ctx: Context, derivation: Mapping[str, Any], rules: tuple[str, ...]) -> tuple[str, str, Mapping[str, Any]]:
    """The root's ``(id, rule, data)``; Rejected unless it is a premise-free node at term [] with the envelope's bound."""
    raw, ctx.count = derivation["root"], 1
    node = raw.get("id") if isinstance(raw, Mapping) else None
    if not isinstance(node, str) or not 0 < len(node) <= 100:
        raise Rejected(None, "the root must be an object with an id of 1 to 100 characters")
    rule, data = raw.get("rule"), raw.get("data", {})
    if rule not in rules or not isinstance(data, Mapping):
        raise Rejected(node, f"rule {str(rule)[:40]!r} is not one of {', '.join(rules)} (with an object of data)")
    if raw.get("term") != [] or raw.get("premises", []) != [] or raw.get("text") != term_text(ctx.quality.expr):
        raise Rejected(node, "the root is about the whole quality (term [], its text) and has no premises of its own: they are the certificate's other claims")
    if raw.get("bound") != derivation["bound"] or raw.get("case") != {"from": derivation["start"]}:
        raise Rejected(node, "the derivation's bound and start are not the root's bound and case")
    return node, rule, data


def premise_of(ctx: Context, kind: str, node: str, start: int, *, same: bool = True) -> Mapping[str, Any]:
    """The accepted derivation of the certificate's ``kind`` claim, covering the same sizes as ``start`` (not
    ``same``: at least those)."""
    premise = ctx.premise(kind, node)
    if premise["start"] > start or (same and premise["start"] != start):
        raise Rejected(node, f"start={start}, but the {kind} claim it rests on starts at {premise['start']}")
    return premise


def rational_bound(node: str, tree: Any, what: str) -> Fraction:
    if not isinstance(tree, Mapping) or set(tree) != {"rational"}:
        raise Rejected(node, f"{what} must be a rational")
    return _rational(node, tree["rational"], what)


def _power(node: str, base: Fraction, k: int) -> Fraction:
    if k > MAX_POWER or k * max(base.numerator.bit_length(), base.denominator.bit_length()) > 2_000_000:
        raise Rejected(node, f"the powers compared exceed the kernel's limit (exponent {k}): the claim cannot be checked exactly")
    return base**k


def exp_at_least(x: Fraction, target: Fraction) -> bool:
    """Whether ``e^x >= target`` is shown by a partial sum ``Σ_{k<=K} x^k/k!`` (each a lower bound of ``e^x`` for
    ``x >= 0``); False when x is negative or past :data:`MAX_EXPONENT`, or no partial sum within ``2x + 200`` terms reaches it."""
    if x < 0 or x > MAX_EXPONENT:
        return False
    total = term = Fraction(1)
    for k in range(1, 2 * int(x) + 202):
        if total >= target:
            return True
        term = term * x / k
        total += term
    return total >= target


def _privacy(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    node, rule, data = root_of(ctx, derivation, ("privacy-double", "privacy-monotone", "privacy-normaliser", "privacy-ratio"))
    eps0 = _rational(node, data.get("epsilon0"), "data['epsilon0']")
    if eps0 <= 0:
        raise Rejected(node, "ε₀ must be > 0")
    if (rule == "privacy-ratio") != isinstance(ctx.quality, LogLikelihood):
        raise Rejected(node, "privacy-ratio is the rule of a log-likelihood, the others of a quality function")
    if rule == "privacy-ratio":
        c = _log_argument(premise_of(ctx, "likelihood-ratio", node, start)["bound"])
        form = _log_form(derivation["bound"])
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
        monotone = premise_of(ctx, "monotonicity", node, start, same=False)["root"].get("rule")
        if (monotone == "monotone-uniform") != ctx.replace:
            raise Rejected(node, "the monotonicity derivation is not one of this neighbour relation")
        factor = eps0
    elif rule == "privacy-normaliser":
        premise_of(ctx, "normaliser", node, start, same=False)
        factor = eps0
    try:
        epsilon, delta = read_bound(derivation["bound"]), read_bound(sensitivity["bound"])
    except (ValueError, RecursionError) as error:
        raise Rejected(node, f"ε or Δq is not a bound the kernel reads exactly: {str(error)[:120]}") from None
    scaled = ("Mul", (("num", factor), delta))
    claim = Node(node, (), None, ctx.quality.expr, (ctx.quality.expr,), start, None, epsilon, derivation["bound"], rule, data, [])
    at_least(ctx, claim, [scaled], f"{factor}·Δq (the accepted sensitivity claim's bound)")
    ctx.session.discharge()


def _log_form(tree: Any) -> tuple[Fraction, Fraction] | None:
    """``(k, e)`` for the tree of ``k·ln e`` (``ln e``: k = 1; ``0``: k = 0, e = 1), else None."""
    if tree == {"rational": "0"}:
        return Fraction(0), Fraction(1)
    e = _log_argument(tree)
    if e is not None:
        return Fraction(1), e
    if isinstance(tree, Mapping) and tree.get("node") == "Mul" and isinstance(tree.get("args"), list) and len(tree["args"]) == 2:
        factor, log = tree["args"]
        e = _log_argument(log)
        if isinstance(factor, Mapping) and set(factor) == {"rational"} and e is not None:
            return rational_from_text(factor["rational"], name="rational"), e
    return None


def _zcdp(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    node, _, data = root_of(ctx, derivation, ("zcdp-range",))
    eps0 = _rational(node, data.get("epsilon0"), "data['epsilon0']")
    kind = "posterior-range" if isinstance(ctx.quality, LogLikelihood) else "range-sensitivity"
    spread = rational_bound(node, premise_of(ctx, kind, node, start)["bound"], "the range claim's bound")
    rho = rational_bound(node, derivation["bound"], "ρ")
    if eps0 <= 0 or rho < (eps0 * spread) ** 2 / 8:
        raise Rejected(node, f"ρ = {rho} is below η²/8 = {(eps0 * spread) ** 2 / 8} (η = ε₀·Δ̂, ε₀ > 0)")


def _posterior_range(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    node, rule, data = root_of(ctx, derivation, ("range-enumerate", "range-ratio-double"))
    spread = rational_bound(node, derivation["bound"], "Δ̂")
    if start != (1 if ctx.replace else 0):
        raise Rejected(node, f"start={start}: a posterior's range claim covers every n >= {1 if ctx.replace else 0}")
    if rule == "range-ratio-double":
        c = _log_argument(premise_of(ctx, "likelihood-ratio", node, start)["bound"])
        if c is None or not exp_at_least(spread, c * c):
            raise Rejected(node, f"could not confirm e^Δ̂ >= c² (Δ̂ = {spread}, ln c the accepted likelihood ratio)")
        return
    ratio = _enumerate(ctx, node, data.get("outputs"))
    if not exp_at_least(spread, ratio):
        raise Rejected(node, f"could not confirm e^Δ̂ >= R = {ratio} (Δ̂ = {spread})")


def _enumerate(ctx: Context, node: str, text: Any) -> Fraction:
    """R: the largest max/min over the listed θ of ℓ(x, θ)/ℓ(x′, θ) (add-remove: ℓ(x, θ)) over every record (pair)."""
    quality = ctx.quality
    assert isinstance(quality, LogLikelihood)
    outputs, fields = list(quality.output_space.items()), list(quality.schema.items())
    try:
        rows = json.loads(text) if isinstance(text, str) and len(text) <= 1_000_000 else None
    except ValueError:
        rows = None
    if not isinstance(rows, list) or not rows or not all(isinstance(row, list) and len(row) == len(outputs) for row in rows):
        raise Rejected(node, "data['outputs'] must be the JSON text of a non-empty list of θ, each a list of codes")
    sizes = [domain.size for _, _, domain in fields + outputs]
    if not all(domain.is_finite for _, _, domain in fields + outputs) or any(s is None or s > LIMIT for s in sizes):
        raise Rejected(node, "range-enumerate needs finite record fields and outputs")
    allowed = [set(domain.codes()) for _, _, domain in outputs]
    thetas = []
    for row in rows:
        codes = [_rational(node, code, "a θ code") for code in row]
        if any(code not in ok for code, ok in zip(codes, allowed)):
            raise Rejected(node, f"θ {row} is not an output of the quality")
        thetas.append({sym: code for (_, sym, _), code in zip(outputs, codes)})
    records = [dict(zip([sym for _, sym, _ in fields], combo)) for combo in itertools.islice(itertools.product(*[d.codes() for _, _, d in fields]), LIMIT + 1)]
    if len(records) * (len(records) if ctx.replace else 1) * len(thetas) > LIMIT:
        raise Rejected(node, f"more than {LIMIT} (record, record, θ) evaluations")
    try:
        table = [[quality.record_likelihood_codes(record, theta) for theta in thetas] for record in records]
    except (QualityError, ZeroDivisionError) as error:
        raise Rejected(node, f"the likelihood is not defined everywhere: {str(error)[:120]}") from None
    if any(value <= 0 for row in table for value in row):
        raise Rejected(node, "the likelihood is 0 somewhere: the range is unbounded")
    best = Fraction(1)
    for row in table:
        for other in table if ctx.replace else [None]:
            ratios = row if other is None else [a / b for a, b in zip(row, other)]
            best = max(best, max(ratios) / min(ratios))
    return best


#: claim kind -> its checker (the root's rule picks the case)
CONCLUSION_CHECKERS = {"privacy": _privacy, "zcdp": _zcdp, "posterior-range": _posterior_range}

#: rule name -> (claim, statement name, one-line statement)
CONCLUSION_TABLE: dict[str, RuleInfo] = {
    "privacy-double": RuleInfo("privacy", "privacy-double", "ε >= 2·ε₀·Δq, Δq the certificate's accepted sensitivity claim"),
    "privacy-monotone": RuleInfo("privacy", "privacy-monotone", "ε >= ε₀·Δq with an accepted monotonicity claim of the relation"),
    "privacy-normaliser": RuleInfo("privacy", "privacy-normaliser", "ε >= ε₀·Δq with an accepted normaliser claim (Z(D) the same for every D)"),
    "privacy-ratio": RuleInfo("privacy", "privacy-ratio", "posterior: ε = k·ln e with e^k >= c^(2ε₀), ln c the accepted likelihood ratio"),
    "zcdp-range": RuleInfo("zcdp", "zcdp-range", "ρ >= (ε₀·Δ̂)²/8, Δ̂ the accepted range-sensitivity claim's bound"),
    "range-enumerate": RuleInfo("posterior-range", "range-enumerate", "e^Δ̂ >= R, the largest max/min over θ of ℓ(x, θ)/ℓ(x′, θ), every record enumerated"),
    "range-ratio-double": RuleInfo("posterior-range", "range-ratio-double", "e^Δ̂ >= c², ln c the accepted likelihood ratio: d(θ) ∈ [−ln c, ln c]"),
}
