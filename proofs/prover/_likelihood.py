"""The sensitivity of a log-likelihood quality: the likelihood ratio ρ, proved with z3.

For ``q(d, θ) = Σ_{x ∈ d} ln ℓ(x, θ)`` one changed record moves ``q(·, θ)`` by
``ln ℓ(x, θ) − ln ℓ(x', θ)``, so (statement ``posterior-sampling``)

* replace-one: ``Δq = ln ρ`` with ``ρ = max ℓ(x, θ) / ℓ(x', θ)``;
* add-remove: ``Δq = ln ρ`` with ``ρ = max(max ℓ(x, θ), max 1/ℓ(x, θ))``;

over every record ``x, x'`` and parameter θ.  Both are finite only when the
likelihood stays away from 0 on the support (the hypothesis ``clipped``).
The ratio is a rational: it is guessed by exact evaluation (every point of a
finite domain, the bounds of an interval), then certified by plain z3 calls —
positivity ``ℓ <= 0`` unsat, ``ℓ(x, θ) > ρ·ℓ(x', θ)`` unsat, and
``ℓ(x, θ) >= ρ·ℓ(x', θ)`` sat with the model re-evaluated exactly as the
witness.  A sat answer to the second query yields a larger candidate, improved
by a Dinkelbach step (z3 ``Optimize`` maximising ``ℓ(x, θ) − r·ℓ(x', θ)``, a
guess whose point is re-evaluated exactly) and tried in turn.  The queries stay linear in ρ (a constant), so whatever ℓ's
arithmetic is, z3's answer is a decision or ``unknown`` — and ``unknown`` is
UNKNOWN, never a proof.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.impl import LogLinear
from expmech.spec import ExpMechError, InvalidArgument, InvalidType, LogLikelihood, Neighbours, QualityError
from expmech.spec import rational_text
from expmech.spec.internal import describe, expression_to_json, readable

from .._outcome import Status
from ._text import term_text
from ._encoding import default_code as _default_code
from ._encoding import domain_constraint as _domain_constraint
from ._encoding import variable as _var
from ._z3bridge import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Query, Translator, check, maximise, z3_version

__all__ = ["LikelihoodRatioResult", "RatioWitness", "parse_log_claim", "prove_likelihood_ratio"]

#: Exact evaluation enumerates finite domains up to this many (record, record, θ) points.
ENUMERATION_LIMIT = 200_000
_REFINEMENTS = 8


@dataclass(frozen=True)
class RatioWitness:
    """Records ``x``, ``x'`` (``x'`` is ``None`` under add-remove) and θ with ``ratio`` = ℓ(x, θ)/ℓ(x', θ) (or ℓ^{±1})."""

    record1: Any
    record2: Any
    output: Hashable
    ratio: Fraction


@dataclass(frozen=True)
class LikelihoodRatioResult:
    """The outcome of :func:`prove_likelihood_ratio`.

    ``ratio`` is the proved ρ (``None`` when it is infinite or unknown);
    ``bound`` the proved Δq = ``log(ρ)`` as sympy (``oo`` when the likelihood
    vanishes somewhere); ``claimed`` the claimed Δq; ``witness`` attains ρ;
    ``counterexample`` exceeds the claim (or shows ℓ = 0: a record that rules
    out a parameter another record allows).  ``derivation`` (PROVED only, else
    None) is the proof of :attr:`proved_bound` for the kernel's claim
    ``"likelihood-ratio"``: one ``ratio-clipped`` root of bound ρ; None too
    when the proved bound is not written ``log(c)`` for a rational c.
    """

    status: Status
    neighbours: Neighbours
    ratio: Fraction | None
    bound: sympy.Expr | None
    claimed: sympy.Expr | None
    tight: bool
    witness: RatioWitness | None
    counterexample: RatioWitness | None
    reason: str
    method: str
    queries: tuple[Query, ...] = ()
    solver: str = field(default_factory=lambda: f"z3 {z3_version()}")
    derivation: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def proved_bound(self) -> sympy.Expr | None:
        """The Δq an ε-DP claim may use: the claim when PROVED against it, else ``log(ρ)``; None otherwise."""
        if self.status is not Status.PROVED:
            return None
        return self.claimed if self.claimed is not None else self.bound


class _Unknown(Exception):
    """A solver call was inconclusive."""


class _RatioProver:
    def __init__(self, quality: LogLikelihood, neighbours: Neighbours, rlimit: int, timeout_ms: int) -> None:
        self.quality, self.neighbours, self.rlimit, self.timeout_ms = quality, neighbours, rlimit, timeout_ms
        self.queries: list[Query] = []
        self.theta = {sym: _var(f"out_{sym.name}", d) for _, sym, d in quality.output_space.items()}
        self.records = {tag: {sym: _var(f"{tag}_{sym.name}", d) for _, sym, d in quality.schema.items()} for tag in ("a", "b")}
        self.domain = [_domain_constraint(self.theta[sym], d) for _, sym, d in quality.output_space.items()]
        for tag in ("a", "b"):
            self.domain += [_domain_constraint(self.records[tag][sym], d) for _, sym, d in quality.schema.items()]
        self.ell = {tag: Translator({**self.records[tag], **self.theta})(quality.expr) for tag in ("a", "b")}

    def ask(self, constraints: list[Any], hoped: str, purpose: str) -> Any:
        """One z3 check, recorded; the result relies on whichever answer comes back (``unknown`` raises)."""
        result = check(self.domain + constraints, rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if result.status == "unknown":
            self.queries.append(Query(purpose, hoped, result))
            raise _Unknown(f"z3 was inconclusive on '{purpose}': {result.reason}")
        self.queries.append(Query(purpose if result.status == hoped else f"{purpose} (yes: a counterexample)", result.status, result))
        return result

    def dinkelbach(self, relation: Neighbours, ratio: Fraction) -> tuple[Any, Any, Any] | None:
        """A point maximising ``ℓ(x, θ) − r·ℓ(x', θ)`` (Dinkelbach's step towards the largest ratio), or None.

        z3 ``Optimize`` only *guesses* the point; its ratio is re-evaluated
        exactly, and the bound is certified by the plain queries afterwards.
        """
        rho = z3.Q(ratio.numerator, ratio.denominator)
        a, b = self.ell["a"], self.ell["b"]
        objectives = [a - rho, 1 - rho * a] if relation is Neighbours.ADD_REMOVE else [a - rho * b]
        best: tuple[Fraction, Any] | None = None
        for objective in objectives:
            kind, value = maximise(objective, self.domain, rlimit=self.rlimit, timeout_ms=self.timeout_ms)
            if kind != "bounded" or value is None or value <= 0:
                continue
            found = check(self.domain + [objective >= z3.Q(value.numerator, value.denominator)], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
            if found.status == "sat" and found.model is not None and (best is None or value > best[0]):
                best = (value, found.model)
        return None if best is None else self.point(best[1])

    def point(self, model: dict[str, Any]) -> tuple[dict[sympy.Symbol, Any], dict[sympy.Symbol, Any], dict[sympy.Symbol, Any]]:
        """Record codes for ``a``, ``b`` and θ codes from a model (completing what z3 left out)."""

        def codes(space: Any, prefix: str) -> dict[sympy.Symbol, Any]:
            out = {}
            for _, sym, domain in space.items():
                value = model.get(f"{prefix}_{sym.name}")
                if value is None:
                    value = _default_code(domain)
                out[sym] = Fraction(value) if domain.sort == "real" else int(value)
            return out

        return codes(self.quality.schema, "a"), codes(self.quality.schema, "b"), codes(self.quality.output_space, "out")

    def witness(self, a: dict[sympy.Symbol, Any], b: dict[sympy.Symbol, Any] | None, theta: dict[sympy.Symbol, Any], ratio: Fraction) -> RatioWitness:
        return RatioWitness(_record(self.quality.schema, a), None if b is None else _record(self.quality.schema, b), _output(self.quality.output_space, theta), ratio)


def _record(schema: Any, codes: dict[sympy.Symbol, Any]) -> Any:
    items = list(schema.items())
    values = {name: domain.decode(codes[sym]) for name, sym, domain in items}
    return values[items[0][0]] if len(items) == 1 else values


def _output(space: Any, codes: dict[sympy.Symbol, Any]) -> Hashable:
    values = [domain.decode(codes[sym]) for _, sym, domain in space.items()]
    return values[0] if len(values) == 1 else tuple(values)


def _candidates(space: Any) -> list[dict[sympy.Symbol, Any]]:
    """Points to evaluate exactly: every code of a finite domain, else the bounds (and 0 when unbounded)."""
    per_variable = []
    for _, sym, domain in space.items():
        if domain.is_finite:
            values = list(domain.codes())
        else:
            lo, hi = domain.bounds()
            values = [v for v in (lo, hi) if v is not None] or [Fraction(0)]
            if lo is not None and hi is not None:
                values.append((lo + hi) / 2)
            if domain.sort == "int":
                values = [int(v) for v in values]
        per_variable.append([(sym, v) for v in values])
    return [dict(combo) for combo in itertools.product(*per_variable)]


#: A claim's text: integers, log( ), + - * / and parentheses (no ``**``: sympify would evaluate a tower of powers).
_LOG_TEXT = re.compile(r"[0-9log()+\-*/ ]*")


def parse_log_claim(claimed: Any) -> sympy.Expr | None:
    """A claimed Δq ``c0 + Σ cᵢ·log(ρᵢ)`` >= 0 as a sympy expression (None stays None); anything else — a text
    with other characters, a boolean, a container, a value sympy cannot read — raises :class:`InvalidArgument`
    naming ``claimed`` and its value."""
    if claimed is None:
        return None
    refused = InvalidArgument(
        f"claimed={describe(claimed)} must be a Δq of the form c0 + sum c_i*log(rho_i) with rationals, e.g. sympy.log(9)",
        parameter="claimed",
        value=claimed,
    )
    if isinstance(claimed, str) and (len(claimed) > 200 or "**" in claimed or not _LOG_TEXT.fullmatch(claimed)):
        raise InvalidArgument(
            f"claimed={describe(claimed)} must be written with integers, log( ), + - * / and parentheses (at most 200 characters)",
            parameter="claimed",
            value=claimed,
        )
    try:
        value = sympy.sympify(claimed, locals={"log": sympy.log}) if isinstance(claimed, str) else sympy.sympify(claimed, strict=True)
        LogLinear.from_sympy(value)
    except ExpMechError:
        raise refused from None
    except (ArithmeticError, AttributeError, LookupError, RecursionError, SyntaxError, TypeError, ValueError, sympy.SympifyError):
        raise refused from None
    if LogLinear.from_sympy(value) < 0:
        raise InvalidArgument(f"claimed={describe(claimed)} must be >= 0", parameter="claimed", value=claimed)
    return value


def prove_likelihood_ratio(
    quality: LogLikelihood,
    *,
    neighbours: Any,
    claimed: Any = None,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> LikelihoodRatioResult:
    """Prove ``Δq = ln ρ`` for a log-likelihood quality, or refute a claimed Δq (see the module docstring).

    ``claimed`` is ``None`` or a Δq such as ``sympy.log(9)`` (any
    ``c₀ + Σ cᵢ·log(ρᵢ)``), compared with ``ln ρ`` exactly.  Returns a frozen
    :class:`LikelihoodRatioResult`: PROVED with the tight ρ and its witness;
    REFUTED when the claim is below ``ln ρ``, or when the likelihood vanishes
    (Δq = ∞: no finite ε) or is negative somewhere; UNKNOWN when z3 is
    inconclusive or the candidates do not converge.
    """
    if not isinstance(quality, LogLikelihood):
        raise InvalidType(f"quality={describe(quality)} must be an expmech.spec.LogLikelihood", parameter="quality", value=quality)
    relation = Neighbours.parse(neighbours)
    claim = parse_log_claim(claimed)
    for name, value in (("rlimit", rlimit), ("timeout_ms", timeout_ms)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)
    prover = _RatioProver(quality, relation, rlimit, timeout_ms)

    def result(status: Status, reason: str, *, ratio: Fraction | None = None, bound: sympy.Expr | None = None,
               witness: RatioWitness | None = None, counterexample: RatioWitness | None = None) -> LikelihoodRatioResult:
        return LikelihoodRatioResult(status, relation, ratio, bound, claim, witness is not None, witness, counterexample,
                                     reason, "z3: exact candidates certified by plain checks", tuple(prover.queries))

    try:
        # the clipped hypothesis: ℓ > 0 everywhere on the support
        vanishing = prover.ask([prover.ell["a"] <= 0], "unsat", "the likelihood is <= 0 somewhere")
        if vanishing.status == "sat":
            a, _, theta = prover.point(vanishing.model)
            try:
                value = quality.record_likelihood_codes(a, theta)
            except QualityError as error:  # negative: not a likelihood at all
                return result(Status.REFUTED, f"{error}: ln ℓ is undefined there, so no finite ε holds", bound=sympy.oo)
            if value > 0:
                raise _Unknown("z3's model of a vanishing likelihood does not re-evaluate to <= 0")
            point = prover.witness(a, None, theta, value)
            return result(Status.REFUTED, f"the likelihood is 0 at θ={readable(point.output)} for record {readable(point.record1)}: the support is not "
                          "clipped away from a zero likelihood, so Δq = ln ρ is infinite and no finite ε holds",
                          bound=sympy.oo, counterexample=point)
        ratio, best = _guess(quality, relation)
        for _ in range(_REFINEMENTS):
            rho = z3.Q(ratio.numerator, ratio.denominator)
            above = prover.ask(_exceeds(prover, relation, rho), "unsat", f"a likelihood ratio exceeds {ratio}")
            if above.status == "unsat":
                break
            a, b, theta = prover.point(above.model)
            found = _ratio_at(quality, relation, a, b, theta)
            if found <= ratio:
                raise _Unknown("z3's model of a larger likelihood ratio does not re-evaluate to one")
            steeper = prover.dinkelbach(relation, found)
            if steeper is not None and _ratio_at(quality, relation, *steeper) > found:
                a, b, theta = steeper
                found = _ratio_at(quality, relation, a, b, theta)
            ratio, best = found, (a, b, theta)
        else:
            raise _Unknown(f"the likelihood ratio kept growing past {ratio} after {_REFINEMENTS} refinements")
        attained = prover.ask(_attains(prover, relation, z3.Q(ratio.numerator, ratio.denominator)), "sat", f"a likelihood ratio attains {ratio}")
        a, b, theta = prover.point(attained.model) if attained.model is not None else best
        if _ratio_at(quality, relation, a, b, theta) != ratio:
            a, b, theta = best
        witness = prover.witness(a, None if relation is Neighbours.ADD_REMOVE else b, theta, ratio)
    except _Unknown as error:
        return result(Status.UNKNOWN, str(error))
    except QualityError as error:
        return result(Status.UNKNOWN, f"the likelihood could not be evaluated: {error}")
    bound = sympy.log(sympy.Rational(ratio.numerator, ratio.denominator))
    if claim is not None and LogLinear.from_sympy(claim) < LogLinear.log(ratio):
        return result(Status.REFUTED, f"the likelihood ratio {ratio} at θ={readable(witness.output)} gives a change ln {ratio} > claimed {claim}",
                      ratio=ratio, bound=bound, counterexample=witness)
    looser = "" if claim is None or LogLinear.from_sympy(claim) == LogLinear.log(ratio) else f"; the claim {claim} is looser than ln {ratio}"
    proved = result(Status.PROVED, f"Δq = ln {ratio}: no record pair and parameter exceed the likelihood ratio {ratio}, and a witness attains it{looser}",
                    ratio=ratio, bound=bound, witness=witness)
    return dataclasses.replace(proved, derivation=_derivation(quality, relation, ratio, bound))  # the tight ln ρ; a looser claim is bound to it by the verifier


def _derivation(quality: LogLikelihood, relation: Neighbours, ratio: Fraction, bound: Any) -> dict[str, Any] | None:
    """The ``likelihood-ratio`` derivation of ``bound`` (``log(c)`` or 0, c a rational) from the ratio ρ; None for any other bound."""
    written = expression_to_json(bound)
    inner = written.get("args", [None])[0] if written.get("node") == "log" else None
    if written != {"rational": "0"} and not (isinstance(inner, dict) and set(inner) == {"rational"}):
        return None
    start = 1 if relation is Neighbours.REPLACE_ONE else 0
    root = {"id": "ratio", "term": [], "text": term_text(quality.expr), "case": {"from": start}, "rule": "ratio-clipped",
            "bound": {"rational": rational_text(ratio)}, "data": {}, "premises": []}
    return {"format": 1, "claim": "likelihood-ratio", "relation": relation.value, "start": start, "bound": written, "root": root}


def _exceeds(prover: _RatioProver, relation: Neighbours, rho: Any) -> list[Any]:
    a, b = prover.ell["a"], prover.ell["b"]
    if relation is Neighbours.ADD_REMOVE:
        return [z3.Or(a > rho, a * rho < 1)]
    return [a > rho * b]


def _attains(prover: _RatioProver, relation: Neighbours, rho: Any) -> list[Any]:
    a, b = prover.ell["a"], prover.ell["b"]
    if relation is Neighbours.ADD_REMOVE:
        return [z3.Or(a >= rho, a * rho <= 1)]
    return [a >= rho * b]


def _ratio_at(quality: LogLikelihood, relation: Neighbours, a: dict[sympy.Symbol, Any], b: dict[sympy.Symbol, Any], theta: dict[sympy.Symbol, Any]) -> Fraction:
    la = quality.record_likelihood_codes(a, theta)
    if relation is Neighbours.ADD_REMOVE:
        return max(la, 1 / la)
    return la / quality.record_likelihood_codes(b, theta)


def _guess(quality: LogLikelihood, relation: Neighbours) -> tuple[Fraction, tuple[Any, Any, Any]]:
    """The largest exact ratio over candidate points (every point of finite domains, within the limit)."""
    records = _candidates(quality.schema)
    thetas = _candidates(quality.output_space)
    pairs = len(records) * (1 if relation is Neighbours.ADD_REMOVE else len(records)) * len(thetas)
    if pairs > ENUMERATION_LIMIT:
        records, thetas = records[:20], thetas[:50]
    best: tuple[Fraction, tuple[Any, Any, Any]] | None = None
    for theta in thetas:
        values = [(quality.record_likelihood_codes(r, theta), r) for r in records]
        high, low = max(values, key=lambda v: v[0]), min(values, key=lambda v: v[0])
        if relation is Neighbours.ADD_REMOVE:
            candidate = max((high[0], high[1]), (1 / low[0], low[1]), key=lambda v: v[0])
            point = (candidate[0], (candidate[1], candidate[1], theta))
        else:
            point = (high[0] / low[0], (high[1], low[1], theta))
        if best is None or point[0] > best[0]:
            best = point
    assert best is not None
    return best
