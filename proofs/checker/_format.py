"""The certificate as the verifier reads it: typed, frozen values parsed once, every field it relies on checked.

:func:`read_statement` reads the in-toto statement into a :class:`Statement` or raises :class:`Malformed`
naming the place (domains, ranges and measures: :mod:`._domains`).  The quality's ``sha256`` (of the RFC 8785 form of its kind, schema, outputs and expression)
and ``text`` (the verifier's rendering) are recomputed here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import rfc8785

from ._domains import Domain, Malformed, Range, need, number, read_domain, read_measure
from ._read import Refused
from ._terms import Reader, Term, render

__all__ = ["FORMAT", "PREDICATE_TYPE", "Quality", "Statement", "quality_digest", "read_statement"]

FORMAT, PREDICATE_TYPE = "4", "urn:expmech:dp-certificate:v4"


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
    if kind == "interval":  # a posterior's θ: read with its claim kinds, loaded only for a posterior
        from ._interval import read_interval

        return read_interval(data, quality, own, where)
    need(kind in ("RationalRange", "IntRange") and set(data) == {"kind", "lo", "hi", "base_measure"} and not quality.likelihood, where, "not a range the verifier reads")
    domain = read_domain({"kind": kind, "lo": data["lo"], "hi": data["hi"]}, where)
    need(own.kind == kind and (own.lo is None or (domain.lo is not None and own.lo <= domain.lo))
         and (own.hi is None or (domain.hi is not None and domain.hi <= own.hi)), where, "the range lies outside the output's domain")
    return Range(kind, domain=domain, measure=read_measure(data["base_measure"], kind, where + ".base_measure"))


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
    if auction is not None:  # an auction's reading lives with its claim kind, loaded only for an auction
        from ._auction import is_auction_of
    need(auction is None or is_auction_of(auction, quality, rng, mechanism["epsilon0"]), "predicate.options.auction",
         "null, or the range's prices, the bid field's reports and the mechanism's ε₀")
    claims = predicate.get("claims")
    need(isinstance(claims, list) and all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in claims) and len({c["id"] for c in claims}) == len(claims),
         "predicate.claims", "a list of claims with distinct ids")
    need(predicate.get("status") in ("PROVED", "BOUNDED", "TESTED", "UNKNOWN", "REFUTED") and isinstance(predicate.get("dp_claim"), bool), "predicate.status", "a status and dp_claim")
    return Statement(quality, epsilon0, mechanism["neighbours"], rng, tuple(claims), auction, predicate.get("epsilon"), predicate["status"], predicate["dp_claim"])
