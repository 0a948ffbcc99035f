"""The certificate as the verifier reads it: typed, frozen values parsed once, every field it relies on checked.

:func:`read_statement` reads the in-toto statement into a :class:`Statement` or raises :class:`Malformed`
naming the place.  Domains decode the values a certificate writes into codes: an int (``{"integer":
digits}`` past 2^53), ``{"rational": "p/q"}``, ``true``/``false`` (0/1), a category's label (its index), a
grid point.  The quality's ``sha256`` (of the RFC 8785 form of its kind, schema, outputs and expression)
and ``text`` (the verifier's rendering) are recomputed here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import rfc8785

from ._formula import Var
from ._numbers import TooLarge, rational
from ._read import Refused
from ._terms import Reader, Term, render

__all__ = ["FORMAT", "PREDICATE_TYPE", "Domain", "Malformed", "Quality", "Range", "Statement", "quality_digest", "read_statement"]

FORMAT, PREDICATE_TYPE = "4", "urn:expmech:dp-certificate:v4"


class Malformed(ValueError):
    """The certificate does not have the form the verifier reads: the message names the place."""


def need(condition: bool, where: str, what: str) -> None:
    """Raise :class:`Malformed` at ``where`` unless ``condition``."""
    if not condition:
        raise Malformed(f"{where}: {what}")


def number(text: Any, where: str) -> Fraction:
    """The rational text ``"p/q"`` at ``where``."""
    try:
        return rational(text, where)
    except TooLarge as error:
        raise Malformed(f"{where}: {error}") from None


def integer(value: Any, where: str) -> Fraction | None:
    """An integer written in a certificate: a JSON int, or ``{"integer": digits}`` past 2^53 (None stays None)."""
    if value is None:
        return None
    if isinstance(value, dict) and set(value) == {"integer"}:
        q = number(value["integer"], where)
        need(q.denominator == 1 and abs(q) >= 2**53, where, "an {'integer'} spelling is for an integer past 2**53")
        return q
    need(type(value) is int, where, "not an integer")
    return Fraction(value)


@dataclass(frozen=True)
class Domain:
    """A field's or output's domain: ``kind``, its ends, and its labels (Categories) or points (Grid)."""

    kind: str
    lo: Fraction | None = None
    hi: Fraction | None = None
    items: tuple[Any, ...] = ()

    @property
    def integer(self) -> bool:
        """Whether every code is an integer."""
        return self.kind in ("IntRange", "Booleans", "Categories") or (self.kind == "Grid" and all(p.denominator == 1 for p in self.items))

    def var(self, name: str) -> Var:
        """The variable of this domain's codes."""
        return Var(name, self.integer, self.lo, self.hi, self.items if self.kind == "Grid" else None)

    def code(self, value: Any, where: str) -> Fraction:
        """The code of a value written in a certificate; Malformed unless it is in the domain."""
        if self.kind in ("Booleans", "Categories"):
            need(isinstance(value, bool) if self.kind == "Booleans" else value in self.items and isinstance(value, str), where, "not a value of the domain")
            return Fraction(int(value) if self.kind == "Booleans" else self.items.index(value))
        code = number(value["rational"], where) if isinstance(value, dict) and set(value) == {"rational"} else integer(value, where)
        need(code is not None and (self.kind != "IntRange" or code.denominator == 1) and (self.lo is None or code >= self.lo)
             and (self.hi is None or code <= self.hi) and (self.kind != "Grid" or code in self.items), where, "not a value of the domain")
        return code  # type: ignore[return-value]


def read_domain(data: Any, where: str) -> Domain:
    """A domain written ``{"kind": …}``."""
    kind: Any = data.get("kind") if isinstance(data, dict) else None
    keys = {"IntRange": {"lo", "hi"}, "RationalRange": {"lo", "hi"}, "Booleans": set(), "Categories": {"labels"}, "Grid": {"points"}}.get(kind)  # type: ignore[arg-type]
    need(keys is not None and set(data) == {"kind", *keys}, where, "not a domain the verifier reads")
    if kind in ("IntRange", "RationalRange"):
        lo, hi = ((integer if kind == "IntRange" else lambda v, w: None if v is None else number(v, w))(data[e], f"{where}.{e}") for e in ("lo", "hi"))
        need(lo is None or hi is None or lo <= hi, where, "lo > hi")
        return Domain(kind, lo, hi)
    if kind == "Booleans":
        return Domain(kind, Fraction(0), Fraction(1))
    items = data["labels" if kind == "Categories" else "points"]
    need(isinstance(items, list) and bool(items), where, "needs labels or points")
    if kind == "Categories":
        need(all(isinstance(x, str) for x in items) and len(set(items)) == len(items), where, "labels must be distinct strings")
        return Domain(kind, Fraction(0), Fraction(len(items) - 1), tuple(items))
    points = tuple(number(p, f"{where}.points") for p in items)
    need(list(points) == sorted(set(points)), where, "grid points must be increasing")
    return Domain(kind, points[0], points[-1], points)


@dataclass(frozen=True)
class Quality:
    """The quality (or a posterior's record likelihood ℓ, q = Σ ln ℓ): fields and outputs by name, its expression."""

    kind: str
    name: str | None
    fields: tuple[tuple[str, Domain], ...]
    outputs: tuple[tuple[str, Domain], ...]
    expr: Term
    reader: Reader

    @property
    def likelihood(self) -> bool:
        """Whether this is a posterior's record likelihood."""
        return self.kind == "log-likelihood"

    def symbol(self, name: str) -> Term:
        """The symbol term ``name``."""
        return self.reader.make("symbol", (), name)

    def record(self, value: Any, where: str) -> dict[str, Fraction]:
        """A record written in a certificate (a value, or an object by field), as codes by field name."""
        if len(self.fields) == 1:
            return {self.fields[0][0]: self.fields[0][1].code(value, where)}
        need(isinstance(value, dict) and set(value) == {n for n, _ in self.fields}, where, "a record names every field")
        return {n: d.code(value[n], f"{where}.{n}") for n, d in self.fields}

    def output(self, value: Any, where: str) -> dict[str, Fraction]:
        """An output written in a certificate (a value, or a list by output variable), as codes."""
        if len(self.outputs) == 1:
            return {self.outputs[0][0]: self.outputs[0][1].code(value, where)}
        need(isinstance(value, list) and len(value) == len(self.outputs), where, "an output lists every output variable")
        return {n: d.code(v, f"{where}[{i}]") for i, ((n, d), v) in enumerate(zip(self.outputs, value))}


def quality_digest(quality: dict[str, Any]) -> str:
    """The SHA-256 of the RFC 8785 form of the quality's ``kind``, ``schema``, ``outputs`` and ``expression``."""
    return hashlib.sha256(rfc8785.dumps({key: quality[key] for key in ("kind", "schema", "outputs", "expression")})).hexdigest()


def _named(data: Any, where: str) -> tuple[tuple[str, Domain], ...]:
    need(isinstance(data, list) and bool(data) and all(isinstance(i, list) and len(i) == 2 and isinstance(i[0], str) and i[0].isidentifier() for i in data), where, "[name, domain] pairs")
    need(len({i[0] for i in data}) == len(data), where, "names must be distinct")
    return tuple((i[0], read_domain(i[1], f"{where}.{i[0]}")) for i in data)


def read_quality(data: Any, max_nodes: int) -> Quality:
    """The quality object: fields, outputs and expression read; its text and sha256 recomputed and compared."""
    where = "predicate.quality"
    need(isinstance(data, dict) and data.get("kind") in ("quality", "log-likelihood") and isinstance(data.get("name"), str | None), where, "kind and name")
    fields, outputs = _named(data.get("schema"), where + ".schema"), _named(data.get("outputs"), where + ".outputs")
    need(not {n for n, _ in fields} & {n for n, _ in outputs}, where, "a name is both a field and an output")
    reader = Reader({n for n, _ in fields + outputs}, max_nodes=max_nodes)
    try:
        expr = reader.read(data.get("expression"))
    except ValueError as error:
        if reader.nodes > max_nodes:  # a limit the user sets: refused (exit 2), never called forged
            raise Refused("max_expression_nodes", f"{where}.expression has more than max_expression_nodes={max_nodes} nodes") from None
        raise Malformed(f"{where}.expression: {error}") from None
    need(data.get("sha256") == quality_digest(data), where + ".sha256", "not the SHA-256 of the quality's canonical form")
    need(data.get("text") == render(expr), where + ".text", "not the verifier's rendering of the expression")
    return Quality(data["kind"], data["name"], fields, outputs, expr, reader)


@dataclass(frozen=True)
class Range:
    """The range: ``finite`` (outputs listed, μ of each), ``interval`` (a posterior's θ, Beta prior), or a whole
    ``RationalRange``/``IntRange`` with a piecewise ``measure`` (breakpoints, densities or weights and ratios)."""

    kind: str
    outputs: tuple[dict[str, Fraction], ...] = ()
    weights: tuple[Fraction, ...] = ()
    domain: Domain | None = None
    measure: dict[str, Any] | None = None


def read_range(data: Any, quality: Quality, max_outputs: int) -> Range:
    """The range, validated against the quality's output domains."""
    where = "predicate.mechanism.range"
    kind: Any = data.get("kind") if isinstance(data, dict) else None
    if kind == "finite":
        need(set(data) == {"kind", "outputs", "base_measure"}, where, "a finite range holds outputs and base_measure")
        listed, mu = data["outputs"], data["base_measure"]
        if isinstance(listed, list) and len(listed) > max_outputs:
            raise Refused("max_outputs", f"{where} lists {len(listed)} outputs, more than max_outputs={max_outputs}")
        need(isinstance(listed, list) and isinstance(mu, list) and 0 < len(listed) == len(mu) <= max_outputs, where, f"1 to {max_outputs} outputs, one μ each")
        outputs = tuple(quality.output(v, f"{where}.outputs[{i}]") for i, v in enumerate(listed))
        need(len({tuple(o.values()) for o in outputs}) == len(outputs), where, "outputs must be distinct")
        cache: dict[Any, Fraction] = {}
        weights = tuple(cache[t] if isinstance(t, str) and t in cache else cache.setdefault(t, number(t, f"{where}.base_measure")) for t in mu)
        need(all(w >= 0 for w in weights) and any(weights), where, "μ must be >= 0 and not all 0")
        return Range(kind, outputs, weights)
    need(len(quality.outputs) == 1, where, f"a range of kind {str(kind)[:20]!r} has one output variable")
    own = quality.outputs[0][1]
    if kind == "interval":
        prior = data.get("prior")
        need(set(data) == {"kind", "lo", "hi", "prior"} and quality.likelihood and own.kind == "RationalRange", where, "an interval is a posterior's θ")
        lo, hi = number(data["lo"], where + ".lo"), number(data["hi"], where + ".hi")
        need(lo < hi and (own.lo is None or own.lo <= lo) and (own.hi is None or hi <= own.hi), where, "lo < hi inside θ's domain")
        need(isinstance(prior, dict) and set(prior) == {"kind", "alpha", "beta"} and prior["kind"] == "beta"
             and all(type(prior[p]) is int and prior[p] >= 1 for p in ("alpha", "beta")), where + ".prior", "a Beta(α, β) prior, integers >= 1")
        return Range(kind, domain=Domain("RationalRange", lo, hi), measure=prior)
    need(kind in ("RationalRange", "IntRange") and set(data) == {"kind", "lo", "hi", "base_measure"} and not quality.likelihood, where, "not a range the verifier reads")
    domain = read_domain({"kind": kind, "lo": data["lo"], "hi": data["hi"]}, where)
    need(own.kind == kind and (own.lo is None or (domain.lo is not None and own.lo <= domain.lo))
         and (own.hi is None or (domain.hi is not None and domain.hi <= own.hi)), where, "the range lies outside the output's domain")
    return Range(kind, domain=domain, measure=read_measure(data["base_measure"], kind, where + ".base_measure"))


def read_measure(data: Any, kind: str, where: str) -> dict[str, Any]:
    """A ``PiecewiseDensity`` (reals) or ``PiecewiseGeometric`` (integers): breakpoints and one rational per piece each."""
    per = ("densities",) if kind == "RationalRange" else ("weights", "ratios")
    need(isinstance(data, dict) and set(data) == {"kind", "breakpoints", *per} and data["kind"] == ("PiecewiseDensity" if kind == "RationalRange" else "PiecewiseGeometric")
         and isinstance(data["breakpoints"], list), where, f"a {'PiecewiseDensity' if kind == 'RationalRange' else 'PiecewiseGeometric'}")
    points = [number(b, where) if kind == "RationalRange" else integer(b, where) for b in data["breakpoints"]]
    need(points == sorted(set(points)), where, "breakpoints must be increasing")  # type: ignore[type-var]
    out: dict[str, Any] = {"breakpoints": points}
    for name in per:
        need(isinstance(data[name], list) and len(data[name]) == len(points) + 1, where, f"one of {name} per piece")
        out[name] = [number(t, f"{where}.{name}") for t in data[name]]
        need(all(v > 0 if name == "ratios" else v >= 0 for v in out[name]), where, f"{name} must be >= 0 (ratios > 0)")
    return out


@dataclass(frozen=True)
class Statement:
    """The statement's parts the verifier decides on."""

    quality: Quality
    epsilon0: Fraction
    relation: str
    range: Range
    claims: tuple[dict[str, Any], ...]
    auction: dict[str, Any] | None
    epsilon: Any
    status: str
    dp_claim: bool


WEIGHT = "mu(r) * exp(epsilon0 * q(d, r))"
POSTERIOR_WEIGHT = "pi(theta) * L(d, theta)**epsilon0, L(d, theta) = prod over records x of l(x, theta)"


def is_auction_of(auction: Any, quality: Quality, rng: Range, epsilon0: Any) -> bool:
    """Whether ``auction`` is the block an auction over this quality and range records: its prices the listed
    outputs of the one output variable (in any order), its reports every value of the one bid field in increasing
    order, and ε₀ written as the mechanism's."""
    if not (isinstance(auction, dict) and set(auction) == {"prices", "reports", "epsilon0"} and auction["epsilon0"] == epsilon0
            and rng.kind == "finite" and len(quality.outputs) == 1 and len(quality.fields) == 1):
        return False
    (price, _), (_, domain) = quality.outputs[0], quality.fields[0]
    if domain.kind == "Grid":
        reports = list(domain.items)
    elif domain.kind == "IntRange" and domain.lo is not None and domain.hi is not None and domain.hi - domain.lo <= 10**6:
        reports = [domain.lo + k for k in range(int(domain.hi - domain.lo) + 1)]
    else:
        return False
    prices = auction["prices"]
    return (auction["reports"] == [_text(v) for v in reports] and isinstance(prices, list)
            and sorted(map(str, prices)) == sorted(_text(o[price]) for o in rng.outputs))


def _text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def read_statement(statement: Any, *, max_nodes: int, max_outputs: int) -> Statement:
    """The statement read and bound to its subject (see the module docstring); Malformed naming the place, Refused a limit."""
    need(isinstance(statement, dict) and statement.get("_type") == "https://in-toto.io/Statement/v1", "certificate", "not an in-toto Statement v1")
    need(statement.get("predicateType") == PREDICATE_TYPE, "certificate.predicateType", f"not {PREDICATE_TYPE} (this verifier reads format {FORMAT})")
    predicate = statement.get("predicate")
    need(isinstance(predicate, dict) and predicate.get("schema_version") == FORMAT, "predicate.schema_version", f"not {FORMAT!r}")
    quality = read_quality(predicate.get("quality"), max_nodes)
    need(statement.get("subject") == [{"name": f"quality:{quality.name or 'unnamed'}", "digest": {"sha256": predicate["quality"]["sha256"]}}],
         "certificate.subject", "not the quality's name and sha256")
    mechanism = predicate.get("mechanism")
    need(isinstance(mechanism, dict) and mechanism.get("neighbours") in ("replace-one", "add-remove"), "predicate.mechanism.neighbours", "replace-one or add-remove")
    epsilon0 = number(mechanism.get("epsilon0"), "predicate.mechanism.epsilon0")
    need(epsilon0 > 0, "predicate.mechanism.epsilon0", "must be > 0")
    rng = read_range(mechanism.get("range"), quality, max_outputs)
    weight = POSTERIOR_WEIGHT if quality.likelihood else WEIGHT
    need(set(mechanism) == {"epsilon0", "neighbours", "range", "weight"} and mechanism["weight"] == weight, "predicate.mechanism.weight", f"not {weight!r}")
    options = predicate.get("options")
    need(isinstance(options, dict), "predicate.options", "an object")
    auction = options.get("auction")
    need(auction is None or is_auction_of(auction, quality, rng, mechanism["epsilon0"]), "predicate.options.auction",
         "null, or the range's prices, the bid field's reports and the mechanism's ε₀")
    claims = predicate.get("claims")
    need(isinstance(claims, list) and all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in claims) and len({c["id"] for c in claims}) == len(claims),
         "predicate.claims", "a list of claims with distinct ids")
    need(predicate.get("status") in ("PROVED", "BOUNDED", "TESTED", "UNKNOWN", "REFUTED") and isinstance(predicate.get("dp_claim"), bool), "predicate.status", "a status and dp_claim")
    return Statement(quality, epsilon0, mechanism["neighbours"], rng, tuple(claims), auction, predicate.get("epsilon"), predicate["status"], predicate["dp_claim"])
