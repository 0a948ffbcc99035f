"""What a certificate is *about*: its inputs, written to JSON and rebuilt from it.

Everything a certificate claims is derived from its inputs alone — the quality
function (expression tree, record schema, output space; or, for posterior
sampling, a log-likelihood), ε₀, the neighbour relation, the mechanism's range
with its base measure, the claimed Δq, the prover's budget, the conformance
check's pairs and seed, and, for a digital-goods auction, the auction.  :func:`inputs_to_json` writes them; :func:`inputs_from_json`
rebuilds them from an untrusted certificate, exactly, and requires that writing
them again gives back the same JSON (so every input has one spelling).

The range is dispatched on its ``kind``: :data:`RANGE_KINDS` maps each kind
to the function that reads it, and an unknown kind is an error.  A new kind of
range (a countable or continuous one) plugs in by adding a class with the
methods of :class:`Range` and a reader.  The quality function is dispatched
the same way on its ``kind`` (:data:`QUALITY_KINDS`).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol, TypeAlias

import sympy

from expmech.impl import DigitalGoodsAuction, ExponentialMechanism
from expmech.impl.internal import check_base_measure, check_outputs
from expmech.spec import (
    Multiset,
    DATASET_SIZE,
    BaseMeasure,
    BetaPrior,
    ExpMechError,
    IntRange,
    InvalidArgument,
    LogLikelihood,
    RationalRange,
    Neighbours,
    QualityFunction,
    likelihood_from_json,
    likelihood_to_json,
    measure_from_json,
    measure_to_json,
    quality_from_json,
    quality_to_json,
    rational_text,
)
from expmech.spec.internal import describe, expression_from_json, expression_to_json
from expmech.spec import rational_from_text

from ._canonical import integer_rows, safe_integer_rows, safe_integers

__all__ = [
    "POSTERIOR_WEIGHT",
    "QUALITY_KINDS",
    "quality_block",
    "RANGE_KINDS",
    "CertificateInputs",
    "FiniteRange",
    "IntervalRange",
    "SetRange",
    "ProverBudget",
    "Range",
    "auction_to_json",
    "decode_dataset",
    "decode_value",
    "encode_value",
    "inputs_from_json",
    "inputs_to_json",
]

#: The density of posterior sampling, as its certificates state it.
POSTERIOR_WEIGHT = "pi(theta) * L(d, theta)**epsilon0, L(d, theta) = prod over records x of l(x, theta)"

Quality: TypeAlias = QualityFunction | LogLikelihood

#: Quality kinds a certificate may hold, by ``quality.kind`` (absent: the spec language); anything else is refused.
QUALITY_KINDS: dict[str, Callable[[Any], Quality]] = {
    "quality": lambda data: quality_from_json(data, check_sha256=False),
    "log-likelihood": lambda data: likelihood_from_json(data, check_sha256=False),
}


def quality_block(quality: Quality) -> dict[str, Any]:
    """The certificate's ``quality``: kind, name, schema, outputs, the expression tree, and the verifier's ``text`` and
    ``sha256`` of it (:func:`expmech.proofs.checker.quality_digest`), which the verifier recomputes."""
    from ...checker import Reader, quality_digest, render

    data = likelihood_to_json(quality) if isinstance(quality, LogLikelihood) else {"kind": "quality", **quality_to_json(quality)}
    data.pop("canonical_text", None)
    reader = Reader({name for name, _ in data["schema"] + data["outputs"]}, max_nodes=10**7)
    data["text"] = render(reader.read(data["expression"]))
    data["sha256"] = quality_digest(data)
    return data


def encode_value(value: Any) -> Any:
    """A user-facing value (int, bool, str, Fraction, tuple) as JSON data; Fractions as ``{"rational": "p/q"}``.

    A dataset held by counts (a :class:`~expmech.spec.Multiset`) is ``{"multiset": [[record, count], …]}``.
    """
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, Multiset):
        return {"multiset": [[encode_value(record), encode_value(count)] for record, count in value.items()]}
    if isinstance(value, int):
        return value if abs(value) < 2**53 else {"integer": str(value)}
    if isinstance(value, Fraction):
        return {"rational": rational_text(value)}
    if isinstance(value, tuple | list):
        if safe_integers(value):
            return list(value)  # plain safe integers, in one pass (e.g. the outputs of a large range)
        if safe_integer_rows(value):
            return [list(row) for row in value]  # tuples of them (e.g. the outputs of a product range)
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode_value(v) for k, v in value.items()}
    raise InvalidArgument(f"cannot write {describe(value)} to a certificate", parameter="value", value=value)


def decode_value(value: Any) -> Any:
    """The inverse of :func:`encode_value` (lists stay lists); malformed numbers raise :class:`InvalidArgument`."""
    if isinstance(value, dict) and set(value) == {"rational"}:
        return rational_from_text(value["rational"], name="rational")
    if isinstance(value, dict) and set(value) == {"integer"}:
        text = value["integer"]
        if not isinstance(text, str) or not text.lstrip("-").isdigit():
            raise InvalidArgument(f"integer={describe(text)} must be a string of digits", parameter="integer", value=text)
        return int(text)
    if isinstance(value, dict):
        return {k: decode_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    return value


def decode_dataset(value: Any) -> Any:
    """A recorded dataset: a list of records, or — ``{"multiset": [[record, count], …]}`` — a :class:`~expmech.spec.Multiset`.

    (:func:`decode_value` leaves such an object a dict, as the checker of this format reads it.)
    """
    if isinstance(value, dict) and set(value) == {"multiset"}:
        entries = value["multiset"]
        if not isinstance(entries, list) or not all(isinstance(e, list) and len(e) == 2 for e in entries):
            raise InvalidArgument("multiset must be a list of [record, count] pairs", parameter="multiset", value=None)
        return Multiset([(decode_value(record), decode_value(count)) for record, count in entries])
    return decode_value(value)


def decode_output(value: Any) -> Hashable:
    """An output as the mechanism sees it: a bare value, or a tuple for several output variables."""
    decoded = decode_value(value)
    return tuple(decoded) if isinstance(decoded, list) else decoded


def _rationals(texts: list[Any], name: str) -> list[Fraction]:
    """``texts`` read by :func:`rational_from_text`, each distinct text once (a large range's base measure has few);
    a bad one raises its error naming ``name[index]``, as one at a time would."""
    try:
        read = {text: rational_from_text(text, name=name) for text in set(texts)}
    except (ExpMechError, TypeError):  # unhashable or malformed: one at a time, so the message names the index
        return [rational_from_text(text, name=f"{name}[{i}]") for i, text in enumerate(texts)]
    return [read[text] for text in texts]


class Range(Protocol):
    """A mechanism's range of outputs with its base measure, as a certificate records it."""

    @property
    def kind(self) -> str:
        """The range's kind, as :data:`RANGE_KINDS` names it."""

    def to_json(self) -> dict[str, Any]:
        """The range as JSON data, with its ``kind``."""

    def weight(self, quality: Quality) -> str:
        """The density the mechanism samples from, as the certificate states it."""

    def prover_outputs(self) -> list[Hashable] | None:
        """The outputs the provers' exact searches range over (None: the whole output space)."""

    def mechanism(self, quality: QualityFunction, epsilon0: Fraction) -> ExponentialMechanism:
        """The exact exponential mechanism ``E_q^{ε₀}`` over this range."""


@dataclass(frozen=True)
class FiniteRange:
    """A finite list of distinct outputs with a base measure ``μ(r) >= 0``, not all zero."""

    outputs: tuple[Hashable, ...]
    base_measure: tuple[Fraction, ...]
    kind: str = "finite"
    #: the outputs as a certificate wrote them, kept when they are rows of safe ints: then they are their own
    #: rendering (each row decodes to the tuple of its ints, which :func:`encode_value` writes back as that row)
    rows: list[list[int]] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        """``{"kind": "finite", "outputs": [...], "base_measure": ["p/q", ...]}``."""
        # one text per distinct object (few on a large range: values read or checked once each share their object),
        # found by identity (hashed in C; a Fraction's hash is Python code)
        texts = {key: rational_text(m) for key, m in {id(m): m for m in self.base_measure}.items()}
        outputs = self.rows if self.rows is not None else encode_value(list(self.outputs))
        return {"kind": self.kind, "outputs": outputs, "base_measure": [texts[id(m)] for m in self.base_measure]}

    def weight(self, quality: Quality) -> str:
        """``mu(r) * exp(epsilon0 * q(d, r))`` over the listed outputs (posterior sampling: :data:`POSTERIOR_WEIGHT`)."""
        return POSTERIOR_WEIGHT if isinstance(quality, LogLikelihood) else "mu(r) * exp(epsilon0 * q(d, r))"

    def prover_outputs(self) -> list[Hashable] | None:
        """The listed outputs."""
        return list(self.outputs)

    def mechanism(self, quality: QualityFunction, epsilon0: Fraction) -> ExponentialMechanism:
        """The exact mechanism over the listed outputs (validates them and the base measure)."""
        return ExponentialMechanism(quality, epsilon=epsilon0, outputs=self.outputs, base_measure=dict(zip(self.outputs, self.base_measure)))

    @classmethod
    def build(cls, quality: Quality, outputs: Sequence[Hashable] | None, base_measure: Any) -> FiniteRange:
        """From user arguments: ``outputs`` (default: the whole finite output space) and ``base_measure`` (default counting)."""
        if outputs is None:
            if not quality.output_space.is_finite:
                space = "parameter space must be finite (or outputs= given) to certify posterior sampling" if isinstance(quality, LogLikelihood) else "output space must be finite (or outputs= given) to certify a mechanism"
                raise InvalidArgument(f"the {space}", parameter="outputs", value=None)
            outputs = quality.outputs()
        grid = check_outputs(list(outputs))
        quality.output_space.encode_all(grid, name="outputs[…]")
        return cls(grid, check_base_measure(base_measure, grid))

    @staticmethod
    def read(data: dict[str, Any], quality: Quality) -> Range:
        """:meth:`from_json` typed as a :class:`Range` reader for :data:`RANGE_KINDS`."""
        return FiniteRange.from_json(data, quality)

    @classmethod
    def from_json(cls, data: dict[str, Any], quality: Quality) -> FiniteRange:
        """Rebuild from a certificate: outputs in the output space, distinct, one base-measure value >= 0 each, not all 0."""
        raw = data["outputs"]
        rows = raw if isinstance(raw, list) and safe_integer_rows(raw) else None
        if rows is not None or (isinstance(raw, list) and integer_rows(raw)):  # rows of plain ints decode to themselves, as tuples
            outputs: list[Hashable] = [tuple(r) for r in raw]
        else:
            outputs = [decode_output(r) for r in raw]
        measure = _rationals(data["base_measure"], "mechanism.range.base_measure")
        if len(measure) != len(outputs):
            raise InvalidArgument(
                f"mechanism.range.base_measure has {len(measure)} values for {len(outputs)} outputs", parameter="base_measure", value=len(measure)
            )
        quality.output_space.encode_all(outputs, name="mechanism.range.outputs[…]")
        grid = check_outputs(outputs)
        return cls(grid, check_base_measure(dict(zip(grid, measure)), grid), rows=rows)


@dataclass(frozen=True)
class IntervalRange:
    """A parameter θ on a bounded interval ``[lo, hi]`` with a Beta(α, β) prior: the range of posterior sampling over an interval."""

    lo: Fraction
    hi: Fraction
    alpha: int
    beta: int
    kind: str = "interval"

    def to_json(self) -> dict[str, Any]:
        """``{"kind": "interval", "lo": "p/q", "hi": "p/q", "prior": {"kind": "beta", "alpha": α, "beta": β}}``."""
        return {"kind": self.kind, "lo": rational_text(self.lo), "hi": rational_text(self.hi), "prior": {"kind": "beta", "alpha": self.alpha, "beta": self.beta}}

    def weight(self, quality: Quality) -> str:
        """:data:`POSTERIOR_WEIGHT`, π the Beta density."""
        return POSTERIOR_WEIGHT

    def prover_outputs(self) -> list[Hashable] | None:
        """None: the provers range over the whole (interval) parameter space."""
        return None

    def mechanism(self, quality: QualityFunction, epsilon0: Fraction) -> ExponentialMechanism:
        """Not available: an interval range is certified for posterior sampling only."""
        raise InvalidArgument("mechanism.range.kind='interval' is certified for posterior sampling (a log-likelihood) only", parameter="range", value="interval")

    def domain(self) -> RationalRange:
        """The interval as an output domain."""
        return RationalRange(self.lo, self.hi)

    def prior(self) -> BetaPrior:
        """The Beta prior."""
        return BetaPrior(self.alpha, self.beta)

    @classmethod
    def build(cls, quality: Quality, interval: RationalRange, base_measure: Any) -> IntervalRange:
        """From user arguments: a bounded interval of θ and a :class:`BetaPrior` (None: uniform, Beta(1, 1))."""
        if not isinstance(quality, LogLikelihood):
            raise InvalidArgument("an interval of outputs is certified for posterior sampling (a LogLikelihood) only", parameter="outputs", value=interval)
        if base_measure is not None and not isinstance(base_measure, BetaPrior):
            raise InvalidArgument(f"base_measure={describe(base_measure)} must be a BetaPrior (or None: uniform) for θ on an interval", parameter="base_measure", value=base_measure)
        lo, hi = interval.bounds()
        if lo is None or hi is None:
            raise InvalidArgument(f"outputs={interval.describe()} must be a bounded interval", parameter="outputs", value=interval)
        domains = [domain for _, _, domain in quality.output_space.items()]
        own_lo, own_hi = domains[0].bounds() if len(domains) == 1 and isinstance(domains[0], RationalRange) else (None, None)
        # the ratio ρ is proved over the likelihood's own domain, and a Beta prior is a density on [0, 1] only
        if not lo < hi or (own_lo is not None and lo < own_lo) or (own_hi is not None and hi > own_hi) or lo < 0 or hi > 1:
            inside = domains[0].describe() if len(domains) == 1 else "its parameter space"
            raise InvalidArgument(
                f"outputs={interval.describe()} must be an interval a < b inside the likelihood's domain {inside} and inside [0, 1] "
                "(the Beta prior's support): the likelihood ratio is proved only there",
                parameter="outputs",
                value=interval,
            )
        prior = base_measure or BetaPrior(1, 1)
        return cls(Fraction(lo), Fraction(hi), prior.alpha, prior.beta)

    @staticmethod
    def read(data: dict[str, Any], quality: Quality) -> Range:
        """Rebuild from a certificate: a log-likelihood over one interval variable, a valid interval and Beta prior."""
        if not isinstance(quality, LogLikelihood) or [type(d) for _, _, d in quality.output_space.items()] != [RationalRange]:
            raise InvalidArgument("mechanism.range.kind='interval' needs a log-likelihood over one interval variable θ", parameter="range", value="interval")
        lo = rational_from_text(data["lo"], name="mechanism.range.lo")
        hi = rational_from_text(data["hi"], name="mechanism.range.hi")
        prior = data["prior"]
        return IntervalRange.build(quality, RationalRange(lo, hi), BetaPrior(prior["alpha"], prior["beta"]))


@dataclass(frozen=True)
class SetRange:
    """An interval of the reals or an infinite set of integers, with a base measure (Lebesgue or counting by default).

    ``kind`` is the domain's type, ``RationalRange`` or ``IntRange``; the measure
    is a ``PiecewiseDensity`` / ``PiecewiseGeometric`` (see ``expmech.spec``).
    """

    domain: RationalRange | IntRange
    measure: BaseMeasure

    @property
    def kind(self) -> str:
        """``RationalRange`` or ``IntRange``."""
        return type(self.domain).__name__

    def to_json(self) -> dict[str, Any]:
        """``{"kind": …, "lo", "hi", "base_measure": {measure}}``: the ends as the output domain writes them (``"p/q"``; an IntRange's integers)."""
        from expmech.spec.internal import domain_to_json

        return {**domain_to_json(self.domain), "base_measure": measure_to_json(self.measure)}

    def weight(self, quality: Quality) -> str:
        """``mu(r) * exp(epsilon0 * q(d, r))``, μ a density or a weight per integer."""
        return "mu(r) * exp(epsilon0 * q(d, r))"

    def prover_outputs(self) -> list[Hashable] | None:
        """None: the provers range over every output of the range."""
        return None

    def mechanism(self, quality: QualityFunction, epsilon0: Fraction) -> ExponentialMechanism:
        """The exact mechanism over the range (its normaliser is decided finite or refused)."""
        return ExponentialMechanism(quality, epsilon=epsilon0, outputs=self.domain, base_measure=self.measure)

    @classmethod
    def build(cls, quality: Quality, outputs: Any, base_measure: Any) -> SetRange:
        """From user arguments: a range (or the quality's infinite output space) and its measure."""
        mech = ExponentialMechanism(quality, epsilon=1, outputs=quality.output_space if outputs is None else outputs, base_measure=base_measure)
        return cls(mech.outputs, mech.base_measure)  # type: ignore[arg-type]  # a range mechanism's outputs are its domain

    @staticmethod
    def read(data: dict[str, Any], quality: Quality) -> Range:
        """Rebuild from a certificate: the range's bounds and measure, validated for the quality."""
        from expmech.impl.internal import resolve_range

        from expmech.spec.internal import domain_from_json

        if not isinstance(data, dict) or data.get("kind") not in ("RationalRange", "IntRange"):
            raise InvalidArgument(f"mechanism.range={describe(data)} must be a RationalRange or IntRange object", parameter="mechanism.range", value=data)
        domain = domain_from_json({key: data[key] for key in ("kind", "lo", "hi")})
        measure = measure_from_json(data["base_measure"])
        resolve_range(quality, domain, measure)
        return SetRange(domain, measure)


#: Range kinds a certificate may use, by ``kind``; anything else is refused.
RANGE_KINDS: dict[str, Callable[[dict[str, Any], Quality], Range]] = {
    "finite": FiniteRange.read,
    "interval": IntervalRange.read,
    "RationalRange": SetRange.read,
    "IntRange": SetRange.read,
}


@dataclass(frozen=True)
class ProverBudget:
    """The prover's budget a certificate was made with, and is re-derived with."""

    rlimit: int
    timeout_ms: int
    search_size: int
    search_budget: int

    @classmethod
    def build(cls, options: dict[str, Any]) -> ProverBudget:
        """From ``certify``'s prover options, with :func:`prove_sensitivity`'s defaults for those not given.

        (Posterior sampling's prover uses ``rlimit`` and ``timeout_ms`` only.)
        """
        unknown = set(options) - {"rlimit", "timeout_ms", "search_size", "search_budget"}
        if unknown:
            name = sorted(unknown)[0]
            raise InvalidArgument(f"{name}= is not a prover option of certify", parameter=name, value=options[name])
        from ...prover import prove_sensitivity  # the prover loads only here: reading a certificate needs none of it

        defaults = inspect.signature(prove_sensitivity).parameters
        values = {name: options.get(name, defaults[name].default) for name in ("rlimit", "timeout_ms", "search_size", "search_budget")}
        for name, value in values.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)
        return cls(**values)


@dataclass(frozen=True)
class CertificateInputs:
    """Everything a certificate's claims are derived from."""

    quality: Quality
    epsilon0: Fraction
    neighbours: Neighbours
    range: Range
    claimed: sympy.Expr | None
    budget: ProverBudget
    pairs: int
    seed: int
    auction: DigitalGoodsAuction | None = None

    def __post_init__(self) -> None:
        if self.auction is None:
            return
        if not isinstance(self.auction, DigitalGoodsAuction):
            raise InvalidArgument(f"auction={describe(self.auction)} must be a DigitalGoodsAuction", parameter="auction", value=self.auction)
        if not isinstance(self.quality, QualityFunction) or self.auction.quality().sha256 != self.quality.sha256:
            raise InvalidArgument(
                f"auction={describe(self.auction)} does not match the quality {self.quality!r}: its revenue p·count(b >= p) over its "
                "reports and prices must be the certified quality",
                parameter="auction",
                value=self.auction,
            )
        _tie_auction(self.auction, self.epsilon0, self.neighbours, self.range)


def _tie_auction(auction: DigitalGoodsAuction, epsilon0: Fraction, neighbours: Neighbours, outputs: Range) -> None:
    """The truthfulness claim is about the auction's own price rule, and uses the certified ε: so the auction must
    BE the certified mechanism — its ε₀, its prices with the counting measure (any constant), and bids that differ
    in one bidder's report as neighbours (statement ``auctions``).  Anything else raises :class:`InvalidArgument`."""
    if auction.epsilon != epsilon0:
        raise InvalidArgument(
            f"auction={describe(auction)} has ε₀ = {auction.epsilon}, but the certified mechanism has epsilon={epsilon0}: "
            "the truthfulness claim needs the auction's own ε₀",
            parameter="auction",
            value=auction,
        )
    if neighbours is not Neighbours.REPLACE_ONE:
        raise InvalidArgument(
            f"neighbours={neighbours.value!r}: an auction's truthfulness (statement auctions) needs the ε of one bidder changing "
            "her report, neighbours='replace-one'",
            parameter="neighbours",
            value=neighbours.value,
        )
    if not isinstance(outputs, FiniteRange) or set(outputs.outputs) != set(auction.outputs) or len(set(outputs.base_measure)) != 1:
        raise InvalidArgument(
            f"outputs / base_measure must be the auction's prices {[str(p) for p in auction.outputs]} with a constant (counting) "
            "measure: the truthfulness claim is about the auction's own price rule",
            parameter="outputs",
            value=outputs.to_json().get("outputs") if isinstance(outputs, FiniteRange) else outputs.kind,
        )


def auction_to_json(auction: DigitalGoodsAuction | None) -> dict[str, Any] | None:
    """A digital-goods auction's prices, reports and ε₀ (None stays None)."""
    if auction is None:
        return None
    return {"prices": [rational_text(p) for p in auction.outputs], "reports": [rational_text(b) for b in auction.reports], "epsilon0": rational_text(auction.epsilon)}


def _auction_from_json(data: Any) -> DigitalGoodsAuction | None:
    if data is None:
        return None
    return DigitalGoodsAuction(
        outputs=[rational_from_text(p, name="options.auction.prices[…]") for p in data["prices"]],
        epsilon=rational_from_text(data["epsilon0"], name="options.auction.epsilon0"),
        reports=[rational_from_text(b, name="options.auction.reports[…]") for b in data["reports"]],
    )


def inputs_to_json(inputs: CertificateInputs) -> dict[str, Any]:
    """The ``quality``, ``mechanism`` and ``options`` members of a certificate's predicate."""
    return {
        "quality": quality_block(inputs.quality),
        "mechanism": {
            "epsilon0": rational_text(inputs.epsilon0),
            "neighbours": inputs.neighbours.value,
            "range": inputs.range.to_json(),
            "weight": inputs.range.weight(inputs.quality),
        },
        "options": {
            "claimed": None if inputs.claimed is None else expression_to_json(inputs.claimed),
            "rlimit": inputs.budget.rlimit,
            "timeout_ms": inputs.budget.timeout_ms,
            "search_size": inputs.budget.search_size,
            "search_budget": inputs.budget.search_budget,
            "pairs": inputs.pairs,
            "seed": inputs.seed,
            "auction": auction_to_json(inputs.auction),
        },
    }


def inputs_from_json(predicate: dict[str, Any]) -> CertificateInputs:
    """Rebuild the inputs of a schema-valid predicate; raise :class:`InvalidArgument` naming what is wrong.

    The quality function is rebuilt from its tree without re-simplification and
    its canonical text and sha256 are re-rendered; the range is read by the
    class :data:`RANGE_KINDS` names for its kind.
    """
    kind = predicate["quality"].get("kind")
    reader = QUALITY_KINDS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise InvalidArgument(f"quality.kind={describe(kind)} is not a kind this checker knows ({', '.join(QUALITY_KINDS)})", parameter="quality", value=kind)
    quality = reader(predicate["quality"])
    mechanism = predicate["mechanism"]
    epsilon0 = rational_from_text(mechanism["epsilon0"], name="mechanism.epsilon0")
    if epsilon0 <= 0:
        raise InvalidArgument(f"mechanism.epsilon0={mechanism['epsilon0']!r} must be > 0", parameter="epsilon0", value=mechanism["epsilon0"])
    neighbours = Neighbours.parse(mechanism["neighbours"])
    range_kind = mechanism["range"].get("kind")
    range_reader = RANGE_KINDS.get(range_kind) if isinstance(range_kind, str) else None
    if range_reader is None:
        raise InvalidArgument(
            f"mechanism.range.kind={describe(range_kind)} is not a range kind this checker knows ({', '.join(RANGE_KINDS)})", parameter="range", value=range_kind
        )
    outputs_range = range_reader(mechanism["range"], quality)
    options = predicate["options"]
    claimed = None
    if options["claimed"] is not None:
        claimed = expression_from_json(options["claimed"], {"n": DATASET_SIZE})
        if not isinstance(claimed, sympy.Expr):
            raise InvalidArgument("options.claimed must be a numeric expression in n", parameter="claimed", value=None)
        if isinstance(quality, LogLikelihood):
            from ...prover._likelihood import parse_log_claim as parse_claim
        else:
            from ...prover._claims import parse_claim
        try:  # evaluated at a few n here, so an ill-formed tree (a Piecewise whose condition is not boolean) is named
            parse_claim(claimed)
        except (TypeError, ArithmeticError) as error:
            raise InvalidArgument(f"options.claimed is not a numeric expression in n: {type(error).__name__}", parameter="claimed", value=None) from None
    budget = ProverBudget(options["rlimit"], options["timeout_ms"], options["search_size"], options["search_budget"])
    auction = _auction_from_json(options["auction"])
    return CertificateInputs(quality, epsilon0, neighbours, outputs_range, claimed, budget, options["pairs"], options["seed"], auction)
