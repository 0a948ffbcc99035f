"""The built-in catalogue of quality functions, and a catalogue of deliberately wrong claims.

Each :class:`CatalogueEntry` is a quality function in the spec language with
the neighbour relation it is meant for and its *claimed* sensitivity Δq (a
rational, or an expression in ``n`` = :data:`~expmech.spec.DATASET_SIZE`).
A claim is only a claim: ``expmech.proofs.prove_sensitivity`` proves or
refutes it.  :data:`CATALOGUE` holds correct claims, :data:`WRONG_CATALOGUE`
claims that are wrong on purpose, each saying why, for refutation demos.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import (
    BetaPrior,
    DATASET_SIZE,
    Booleans,
    Categories,
    Geometric,
    Grid,
    IntRange,
    InvalidArgument,
    LogLikelihood,
    Neighbours,
    OutputSpace,
    QualityFunction,
    RationalRange,
    RecordSchema,
    count,
    max_over,
    mean,
    size,
    total,
)

from ..applications._auction import DigitalGoodsAuction

__all__ = ["CATALOGUE", "POSTERIOR_CATALOGUE", "RANGE_CATALOGUE", "WRONG_CATALOGUE", "CatalogueEntry", "catalogue_entry"]

n = DATASET_SIZE


@dataclass(frozen=True)
class CatalogueEntry:
    """A quality function with its intended neighbour relation and claimed Δq.

    ``epsilon`` is the mechanism's default ε₀ (weight ``e^{ε₀ q}``);
    ``wrong`` says why the claim is deliberately wrong (empty for a correct one).
    ``base_measure`` maps outputs to μ (``None``: counting measure; over a
    range, a :class:`~expmech.spec.BaseMeasure`); for a
    :class:`~expmech.spec.LogLikelihood` quality it is the prior, and the
    claimed Δq is ``ln ρ``.  ``auction`` marks the quality as the revenue of
    this digital-goods auction, so its certificate also states the
    truthfulness guarantee of statement ``auctions``.
    """

    name: str
    description: str
    quality: QualityFunction | LogLikelihood
    neighbours: Neighbours
    claimed_sensitivity: sympy.Expr
    epsilon: Fraction = Fraction(1, 2)
    wrong: str = ""
    base_measure: Any = None
    auction: DigitalGoodsAuction | None = None


def _median() -> QualityFunction:
    schema, outputs = RecordSchema(x=IntRange(0, 15)), OutputSpace(r=IntRange(0, 15))
    x, r = schema["x"], outputs["r"]
    return QualityFunction(-sympy.Abs(count(x <= r) - size() / 2), schema=schema, outputs=outputs, name="median")


def _mode() -> QualityFunction:
    labels = ("a", "b", "c", "d", "e")
    schema, outputs = RecordSchema(c=Categories(labels)), OutputSpace(r=Categories(labels))
    return QualityFunction(count(sympy.Eq(schema["c"], outputs["r"])), schema=schema, outputs=outputs, name="mode")


def _top_item() -> QualityFunction:
    schema = RecordSchema(i1=Booleans(), i2=Booleans(), i3=Booleans(), i4=Booleans())
    outputs = OutputSpace(r=IntRange(1, 4))
    r = outputs["r"]
    chosen = sympy.Or(*[sympy.And(sympy.Eq(r, j), sympy.Eq(schema[f"i{j}"], 1)) for j in range(1, 5)])
    return QualityFunction(count(chosen), schema=schema, outputs=outputs, name="top-item")


def _clamped_sum() -> QualityFunction:
    schema, outputs = RecordSchema(v=IntRange(0, 20)), OutputSpace(r=IntRange(1, 10))
    v, r = schema["v"], outputs["r"]
    return QualityFunction(
        total(sympy.Min(v, r)) - r * size() / 2, schema=schema, outputs=outputs, name="clamped-sum-threshold"
    )


def _predicate_query() -> QualityFunction:
    schema = RecordSchema(b1=Booleans(), b2=Booleans(), b3=Booleans())
    outputs = OutputSpace(a=Grid(tuple(Fraction(i, 4) for i in range(5))))
    phi = sympy.And(sympy.Eq(schema["b1"], 1), sympy.Eq(schema["b2"], 0))
    return QualityFunction(
        -sympy.Abs(count(phi) / size() - outputs["a"]), schema=schema, outputs=outputs, name="predicate-query"
    )


def _halfspace() -> QualityFunction:
    schema = RecordSchema(x1=Booleans(), x2=Booleans(), x3=Booleans())
    outputs = OutputSpace(p1=IntRange(-1, 1), p2=IntRange(-1, 1))
    agree = outputs["p1"] * schema["x1"] + outputs["p2"] * schema["x2"] >= schema["x3"]
    return QualityFunction(count(agree), schema=schema, outputs=outputs, name="halfspace")


#: McSherry–Talwar's digital-goods auction: prices 1…10, bids 0…10, ε₀ = 1/20.
AUCTION = DigitalGoodsAuction(outputs=range(1, 11), epsilon=Fraction(1, 20), reports=range(0, 11))


def _auction() -> QualityFunction:
    return AUCTION.quality(name="auction-price")


def _hyperparameter() -> QualityFunction:
    schema = RecordSchema(l1=RationalRange(0, 1), l2=RationalRange(0, 1), l3=RationalRange(0, 1))
    outputs = OutputSpace(h=IntRange(1, 3))
    h = outputs["h"]
    loss = sympy.Piecewise((schema["l1"], sympy.Eq(h, 1)), (schema["l2"], sympy.Eq(h, 2)), (schema["l3"], True))
    return QualityFunction(-total(loss), schema=schema, outputs=outputs, name="hyperparameter")


def _synthetic() -> QualityFunction:
    """q(D, D̂) = −max_h |Q_h(D) − Q_h(D̂)| for D̂ of m = 2 records of k = 2 bits, H = {x1, x2, x1∧x2}."""
    schema = RecordSchema(x1=Booleans(), x2=Booleans())
    outputs = OutputSpace(y11=Booleans(), y12=Booleans(), y21=Booleans(), y22=Booleans())
    x1, x2 = schema["x1"], schema["x2"]
    y = outputs
    index = sympy.Symbol("h", integer=True)
    on_data = sympy.Piecewise(
        (count(sympy.Eq(x1, 1)), sympy.Eq(index, 0)),
        (count(sympy.Eq(x2, 1)), sympy.Eq(index, 1)),
        (count(sympy.And(sympy.Eq(x1, 1), sympy.Eq(x2, 1))), True),
    )
    on_synthetic = sympy.Piecewise(
        ((y["y11"] + y["y21"]) / 2, sympy.Eq(index, 0)),
        ((y["y12"] + y["y22"]) / 2, sympy.Eq(index, 1)),
        ((y["y11"] * y["y12"] + y["y21"] * y["y22"]) / 2, True),
    )
    expr = -max_over(sympy.Abs(on_data / size() - on_synthetic), index, range(3))
    return QualityFunction(expr, schema=schema, outputs=outputs, name="synthetic-data")


def _unclamped_sum() -> QualityFunction:
    schema, outputs = RecordSchema(v=IntRange(None, None)), OutputSpace(r=IntRange(0, 10))
    return QualityFunction(-sympy.Abs(total(schema["v"]) - outputs["r"]), schema=schema, outputs=outputs, name="unclamped-sum")


def _signed_mean() -> QualityFunction:
    schema = RecordSchema(v=RationalRange(-1, 1))
    outputs = OutputSpace(r=Grid(tuple(Fraction(i, 2) for i in range(-2, 3))))
    return QualityFunction(-sympy.Abs(mean(schema["v"]) - outputs["r"]), schema=schema, outputs=outputs, name="signed-mean")


CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry("median", "median by rank: −|#{x <= r} − n/2|", _median(), Neighbours.REPLACE_ONE, sympy.Integer(1)),
    CatalogueEntry("mode", "most frequent category: #{c = r}", _mode(), Neighbours.REPLACE_ONE, sympy.Integer(1)),
    CatalogueEntry("top-item", "item with the largest count", _top_item(), Neighbours.REPLACE_ONE, sympy.Integer(1)),
    CatalogueEntry(
        "clamped-sum-threshold",
        "clamping threshold r: Σ min(v, r) − r·n/2",
        _clamped_sum(),
        Neighbours.REPLACE_ONE,
        sympy.Integer(10),
        epsilon=Fraction(1, 20),
    ),
    CatalogueEntry(
        "predicate-query",
        "answer a ∈ {0, 1/4, …, 1} to Q_φ, φ = b1 ∧ ¬b2: −|Q_φ(D) − a|",
        _predicate_query(),
        Neighbours.REPLACE_ONE,
        1 / n,
    ),
    CatalogueEntry(
        "halfspace",
        "halfspace π1·x1 + π2·x2 >= x3 agreeing with most records (π on {−1, 0, 1}²)",
        _halfspace(),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
    ),
    CatalogueEntry(
        "auction-price",
        "digital-goods price p with revenue p·#{b >= p}; Δq depends on p, largest at p = 10; approximately truthful",
        _auction(),
        Neighbours.REPLACE_ONE,
        sympy.Integer(10),
        epsilon=Fraction(1, 20),
        auction=AUCTION,
    ),
    CatalogueEntry(
        "hyperparameter",
        "hyperparameter h with the least total loss, per-record losses in [0, 1]",
        _hyperparameter(),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
    ),
    CatalogueEntry(
        "synthetic-data",
        "synthetic D̂ (m = 2, k = 2): −max_h |Q_h(D) − Q_h(D̂)| over H = {x1, x2, x1∧x2}",
        _synthetic(),
        Neighbours.REPLACE_ONE,
        1 / n,
    ),
    CatalogueEntry("mode-add-remove", "mode under add-remove", _mode(), Neighbours.ADD_REMOVE, sympy.Integer(1)),
)

def _bernoulli_grid() -> LogLikelihood:
    """ℓ(x, θ) = θ for x = 1, 1 − θ for x = 0; θ on the clipped grid 1/10, …, 9/10."""
    schema = RecordSchema(x=Booleans())
    outputs = OutputSpace(theta=Grid(tuple(Fraction(i, 10) for i in range(1, 10))))
    x, theta = schema["x"], outputs["theta"]
    return LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs, name="posterior-bernoulli")


_CATEGORY_MODELS = (  # four candidate distributions over the categories a, b, c
    (Fraction(1, 2), Fraction(1, 4), Fraction(1, 4)),
    (Fraction(1, 4), Fraction(1, 2), Fraction(1, 4)),
    (Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)),
    (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)),
)


def _categorical_models() -> LogLikelihood:
    """ℓ(c, k) = the probability of category c under candidate distribution k (a finite hypothesis class)."""
    schema, outputs = RecordSchema(c=Categories(("a", "b", "c"))), OutputSpace(k=IntRange(1, len(_CATEGORY_MODELS)))
    c, k = schema["c"], outputs["k"]
    branches = [
        (sympy.Rational(p.numerator, p.denominator), sympy.And(sympy.Eq(k, i + 1), sympy.Eq(c, j)))
        for i, model in enumerate(_CATEGORY_MODELS)
        for j, p in enumerate(model)
        if (i, j) != (len(_CATEGORY_MODELS) - 1, 2)
    ]
    last = _CATEGORY_MODELS[-1][2]
    likelihood = sympy.Piecewise(*branches, (sympy.Rational(last.numerator, last.denominator), True))
    return LogLikelihood(likelihood, schema=schema, outputs=outputs, name="posterior-categorical")


def _bernoulli_interval() -> LogLikelihood:
    """ℓ(x, θ) = θ for x = 1, 1 − θ for x = 0; θ continuous on the clipped interval [1/10, 9/10]."""
    schema = RecordSchema(x=Booleans())
    outputs = OutputSpace(theta=RationalRange(Fraction(1, 10), Fraction(9, 10)))
    x, theta = schema["x"], outputs["theta"]
    return LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs, name="posterior-beta-bernoulli")


POSTERIOR_CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "posterior-bernoulli",
        "one posterior sample of a Bernoulli θ on the grid 1/10, …, 9/10, prior ∝ θ(1 − θ): Δq = ln 9",
        _bernoulli_grid(),
        Neighbours.REPLACE_ONE,
        sympy.log(9),
        epsilon=Fraction(1),
        base_measure={Fraction(i, 10): Fraction(i * (10 - i), 100) for i in range(1, 10)},
    ),
    CatalogueEntry(
        "posterior-categorical-tempered",
        "a posterior over four candidate category distributions, tempered by ε₀ = 1/2, uniform prior: Δq = ln 2",
        _categorical_models(),
        Neighbours.REPLACE_ONE,
        sympy.log(2),
        epsilon=Fraction(1, 2),
    ),
    CatalogueEntry(
        "posterior-beta-bernoulli",
        "one posterior sample of a continuous Bernoulli θ ∈ [1/10, 9/10], Beta(2, 2) prior: Δq = ln 9",
        _bernoulli_interval(),
        Neighbours.REPLACE_ONE,
        sympy.log(9),
        epsilon=Fraction(1),
        base_measure=BetaPrior(2, 2),
    ),
)

def _quantile_interval(p: Fraction, name: str) -> QualityFunction:
    """Smith (2011), as diffprivlib's ``tools.quantile``: r in [0, 100], q = −|#{x <= r} − p·n|, Lebesgue μ."""
    schema, outputs = RecordSchema(x=RationalRange(0, 100)), OutputSpace(r=RationalRange(0, 100))
    rank = count(schema["x"] <= outputs["r"])
    return QualityFunction(-sympy.Abs(rank - sympy.Rational(p.numerator, p.denominator) * size()), schema=schema, outputs=outputs, name=name)


def _laplace_line() -> QualityFunction:
    schema, outputs = RecordSchema(v=RationalRange(0, 1)), OutputSpace(r=RationalRange(None, None))
    return QualityFunction(-sympy.Abs(outputs["r"] - total(schema["v"])), schema=schema, outputs=outputs, name="laplace-line")


def _count_integers(name: str) -> QualityFunction:
    schema, outputs = RecordSchema(b=Booleans()), OutputSpace(k=IntRange(None, None))
    return QualityFunction(-sympy.Abs(outputs["k"] - count(schema["b"])), schema=schema, outputs=outputs, name=name)


#: Mechanisms over an interval of the reals or an infinite set of integers (their ranges are their output
#: spaces; ``base_measure`` is μ).  Draws over an interval are released on a grid (post-processing).
RANGE_CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "median-interval",
        "DP median over [0, 100] (Smith 2011; diffprivlib's median at ε = 1): −|#{x <= r} − n/2|, Lebesgue μ",
        _quantile_interval(Fraction(1, 2), "median-interval"),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
    ),
    CatalogueEntry(
        "quantile-interval",
        "DP first quartile over [0, 100] (Smith 2011, as diffprivlib's quantile): −|#{x <= r} − n/4|, Lebesgue μ",
        _quantile_interval(Fraction(1, 4), "quantile-interval"),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
    ),
    CatalogueEntry(
        "laplace-line",
        "the Laplace mechanism on Σ v, v in [0, 1], as the EM over ℝ: −|r − Σ v|, Lebesgue μ; "
        "the normaliser is 2/ε₀ for every dataset, so ε = ε₀·Δq (not 2ε₀·Δq)",
        _laplace_line(),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
        epsilon=Fraction(1),
    ),
    CatalogueEntry(
        "count-geometric-measure",
        "a count released over ℤ with base measure μ(k) = 2^{−|k|}: −|k − #b|; μ is not translation invariant, so ε = 2ε₀·Δq",
        _count_integers("count-geometric-measure"),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
        base_measure=Geometric(Fraction(1, 2)),
    ),
    CatalogueEntry(
        "geometric-mechanism",
        "the geometric mechanism on a count as the EM over ℤ with counting μ: −|k − #b|; ε = ε₀·Δq (invariant normaliser)",
        _count_integers("geometric-mechanism"),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
    ),
)

WRONG_CATALOGUE: tuple[CatalogueEntry, ...] = (
    CatalogueEntry(
        "unclamped-sum",
        "−|Σ v − r| with v unbounded",
        _unclamped_sum(),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
        wrong="v is not clamped: one record can move Σ v arbitrarily far",
    ),
    CatalogueEntry(
        "signed-mean-add-remove",
        "−|mean(v) − r|, v ∈ [−1, 1], under add-remove",
        _signed_mean(),
        Neighbours.ADD_REMOVE,
        1 / n,
        wrong="adding a record moves the mean by up to 2/(n+1) > 1/n for n >= 2 (v spans an interval of width 2)",
    ),
    CatalogueEntry(
        "median-half",
        "median by rank, claimed with half its Δq",
        _median(),
        Neighbours.REPLACE_ONE,
        sympy.Rational(1, 2),
        wrong="one replaced record moves #{x <= r} by 1, not 1/2",
    ),
    CatalogueEntry(
        "auction-unit",
        "digital-goods auction claimed with Δq = 1",
        _auction(),
        Neighbours.REPLACE_ONE,
        sympy.Integer(1),
        epsilon=Fraction(1, 20),
        wrong="one bid changes p·#{b >= p} by p, up to 10",
    ),
)


def catalogue_entry(name: str) -> CatalogueEntry:
    """The entry called ``name`` in any of the catalogues."""
    for entry in CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE + WRONG_CATALOGUE:
        if entry.name == name:
            return entry
    known = ", ".join(e.name for e in CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE + WRONG_CATALOGUE)
    raise InvalidArgument(f"name={name!r} is not in the catalogue; known: {known}", parameter="name", value=name)
