"""Hypothesis strategies shared by the project's own tests."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import strategies as st

from expmech.impl import ExpSum, ExponentialMechanism


def rationals(min_value: int = -4, max_value: int = 4, max_denominator: int = 12) -> st.SearchStrategy[Fraction]:
    """Fractions in [min_value, max_value] with small denominators."""
    return st.builds(
        lambda n, d: Fraction(n, d),
        st.integers(min_value * max_denominator, max_value * max_denominator),
        st.integers(1, max_denominator),
    ).filter(lambda x: min_value <= x <= max_value)


def positive_rationals(max_value: int = 3, max_denominator: int = 8) -> st.SearchStrategy[Fraction]:
    """Fractions in (0, max_value]."""
    return st.builds(
        lambda n, d: Fraction(n, d), st.integers(1, max_value * max_denominator), st.integers(1, max_denominator)
    ).filter(lambda x: x <= max_value)


def big_integers(min_bits: int = 0, max_bits: int = 200) -> st.SearchStrategy[int]:
    """Integers whose magnitude is about 2**k, k from ``min_bits`` to ``max_bits`` (0 included)."""
    return st.integers(min_bits, max_bits).flatmap(lambda k: st.integers(-(2**k), 2**k))


def big_rationals(max_bits: int = 200) -> st.SearchStrategy[Fraction]:
    """Rationals p/q with |p| and q each drawn from 2**0 to 2**max_bits."""
    return st.builds(Fraction, big_integers(0, max_bits), st.integers(0, max_bits).flatmap(lambda k: st.integers(1, 2**k)))


def positive_big_rationals(max_bits: int = 200) -> st.SearchStrategy[Fraction]:
    """Rationals p/q > 0 as :func:`big_rationals`."""
    return big_rationals(max_bits).map(abs).filter(lambda v: v > 0)


def exp_sums(max_terms: int = 6) -> st.SearchStrategy[ExpSum]:
    """Exponential sums with small rational coefficients and exponents."""
    return st.lists(st.tuples(rationals(), rationals(-3, 3, 4)), max_size=max_terms).map(ExpSum)


def positive_exp_sums(max_terms: int = 4) -> st.SearchStrategy[ExpSum]:
    """Exponential sums with positive coefficients (so positive values)."""
    return st.lists(st.tuples(positive_rationals(), rationals(-3, 3, 4)), min_size=1, max_size=max_terms).map(ExpSum)


class TableQuality:
    """``q(d, r) = Σ_{x in d} table[x][r]``: per-record contributions, so Δq (replace-one) is their spread."""

    def __init__(self, table: list[list[Fraction]]) -> None:
        self.table = table

    def __call__(self, dataset: tuple[int, ...], r: int) -> Fraction:
        return sum((self.table[x][r] for x in dataset), Fraction(0))

    def sensitivity(self) -> Fraction:
        """The exact replace-one sensitivity: the largest spread of a column."""
        columns = zip(*self.table)
        return max(max(col) - min(col) for col in columns)

    def __repr__(self) -> str:
        return f"TableQuality({self.table})"


@st.composite
def mechanisms(draw: st.DrawFn, max_outputs: int = 5, max_records: int = 3) -> tuple[ExponentialMechanism, TableQuality]:
    """A mechanism over range(m) with a table quality on records in range(max_records)."""
    m = draw(st.integers(1, max_outputs))
    table = draw(st.lists(st.lists(rationals(-2, 2, 4), min_size=m, max_size=m), min_size=max_records, max_size=max_records))
    quality = TableQuality(table)
    epsilon = draw(positive_rationals())
    measure = draw(st.none() | st.lists(rationals(0, 3, 4), min_size=m, max_size=m).filter(any))
    mech = ExponentialMechanism(quality, epsilon=epsilon, outputs=range(m), base_measure=None if measure is None else dict(enumerate(measure)))
    return mech, quality


def datasets(max_records: int = 3, max_size: int = 4) -> st.SearchStrategy[tuple[int, ...]]:
    """Datasets as tuples of record ids."""
    return st.lists(st.integers(0, max_records - 1), min_size=1, max_size=max_size).map(tuple)


@st.composite
def neighbouring_pairs(draw: st.DrawFn, max_records: int = 3, max_size: int = 4) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Two datasets that differ in exactly one position (replace-one)."""
    first = draw(datasets(max_records, max_size))
    position = draw(st.integers(0, len(first) - 1))
    replacement = draw(st.integers(0, max_records - 1))
    second = first[:position] + (replacement,) + first[position + 1 :]
    return first, second


# -- generated quality functions over random schemas (prover fuzzing) ---------------------------------------------

import sympy  # noqa: E402

from hypothesis import reject  # noqa: E402

from expmech.spec import (  # noqa: E402
    Booleans,
    InvalidArgument,
    Categories,
    Grid,
    IntRange,
    OutputSpace,
    QualityFunction,
    RationalRange,
    RecordSchema,
    count,
    mean,
    size,
    total,
)

LABELS = ("a", "b", "c")


def field_domains(finite: bool = False) -> st.SearchStrategy:
    """A field's domain: small integer ranges (often without 0), rational ranges, Booleans, Categories."""
    small = st.builds(lambda lo, width: IntRange(lo, lo + width), st.integers(-3, 3), st.integers(0, 3))
    options = [small, small, st.just(Booleans()), st.just(Categories(LABELS))]
    if not finite:
        options += [
            st.builds(lambda lo, width: RationalRange(Fraction(lo, 2), Fraction(lo + width, 2)), st.integers(-3, 3), st.integers(1, 4)),
            st.builds(lambda lo: IntRange(lo, None), st.integers(-2, 3)),
        ]
    return st.one_of(*options)


def output_domains(finite: bool = False) -> st.SearchStrategy:
    """An output variable's domain: small integer ranges, grids, Booleans, Categories (and an infinite range)."""
    options = [
        st.builds(lambda lo, width: IntRange(lo, lo + width), st.integers(-2, 2), st.integers(0, 3)),
        st.lists(st.fractions(-2, 2, max_denominator=3), min_size=1, max_size=4, unique=True).map(lambda ps: Grid(tuple(ps))),
        st.just(Booleans()),
        st.just(Categories(LABELS)),
    ]
    if not finite:
        options.append(st.builds(lambda lo: RationalRange(Fraction(lo), None), st.integers(-2, 2)))
    return st.one_of(*options)


@st.composite
def schemas(draw: st.DrawFn, finite: bool = False) -> tuple[RecordSchema, OutputSpace]:
    """A record schema of 1–2 fields and an output space of 1–2 variables."""
    fields = {f"x{i}": draw(field_domains(finite)) for i in range(draw(st.integers(1, 2)))}
    outs = {f"r{i}": draw(output_domains(finite)) for i in range(draw(st.integers(1, 2)))}
    return RecordSchema(**fields), OutputSpace(**outs)


def _symbols(space, *, categorical: bool) -> list:
    return [sym for _, sym, domain in space.items() if isinstance(domain, Categories) == categorical]


#: The prover's options for generated quality functions: an rlimit that keeps the plain checks deterministic, and at
#: most 3 s for each z3 Optimize *guess* (it runs with 20× that rlimit, so otherwise its 20 s timeout binds: one
#: expression generated under --hypothesis-seed=4242 spent 60 s in three guesses).  A guess cut short is only a guess
#: lost, never a verdict changed to a wrong one, and soundness is what the tests using these options hold.
GENERATED_PROVER_OPTIONS = {"rlimit": 1_000_000, "search_budget": 20_000, "timeout_ms": 3_000}


@st.composite
def quality_functions(draw: st.DrawFn, finite: bool = False, max_leaves: int = 6) -> QualityFunction:
    """A quality function of the language over a random schema, using every construct the evaluator accepts.

    Includes the partial ones on purpose: division by an output expression or an
    aggregate that can be 0, ``Booleans`` fields used directly as conditions,
    ``Piecewise`` conditions on aggregates, powers.
    """
    schema, outputs = draw(schemas(finite))
    fields = _symbols(schema, categorical=False)
    outs = _symbols(outputs, categorical=False)
    cat_fields = _symbols(schema, categorical=True)
    cat_outs = _symbols(outputs, categorical=True)
    booleans = [sym for _, sym, domain in schema.items() if isinstance(domain, Booleans)]
    constants = st.sampled_from([sympy.Integer(k) for k in (-1, 0, 1, 2)] + [sympy.Rational(1, 2)])
    record_leaves = st.one_of(constants, *[st.just(s) for s in fields + outs]) if fields + outs else constants

    def record_terms(children):
        return st.one_of(
            st.tuples(children, children).map(lambda p: p[0] + p[1]),
            st.tuples(constants, children).map(lambda p: p[0] * p[1]),
            st.tuples(children, children).map(lambda p: sympy.Min(p[0], p[1])),
            st.tuples(children, children).map(lambda p: sympy.Max(p[0], p[1])),
        )

    terms = st.recursive(record_leaves, record_terms, max_leaves=3)
    comparisons = st.tuples(terms, terms, st.sampled_from([sympy.Le, sympy.Lt, sympy.Ge, sympy.Eq])).map(lambda t: t[2](t[0], t[1]))
    atoms = [comparisons]
    atoms += [st.just(b) for b in booleans]  # a Booleans field used directly as a condition
    atoms += [st.just(sympy.Eq(c, o)) for c in cat_fields for o in cat_outs]
    atoms += [st.just(sympy.Eq(c, 1)) for c in cat_fields]
    predicates = st.recursive(
        st.one_of(*atoms),
        lambda ch: st.one_of(st.tuples(ch, ch).map(lambda p: sympy.And(*p)), st.tuples(ch, ch).map(lambda p: sympy.Or(*p)), ch.map(sympy.Not)),
        max_leaves=3,
    ).filter(lambda p: isinstance(p, sympy.logic.boolalg.Boolean) and p not in (sympy.true, sympy.false))
    record_fields = set(fields + cat_fields)  # an aggregate's body must involve the record (total(0), count(r > 1) are refused)
    per_record = [predicates.filter(lambda p: bool(p.free_symbols & record_fields)).map(count), st.just(size())]
    if fields:
        bodies = st.tuples(terms, st.sampled_from(fields)).map(lambda p: p[0] if p[0].free_symbols & record_fields else p[0] + p[1])
        per_record += [bodies.map(total), bodies.map(mean)]
    aggregates = st.one_of(*per_record)
    out_terms = st.sampled_from(outs + [sympy.Integer(1), sympy.Integer(2)]) if outs else st.sampled_from([sympy.Integer(1), sympy.Integer(2)])
    leaves = st.one_of(aggregates, aggregates, out_terms, constants)
    out_booleans = [sym for _, sym, domain in outputs.items() if isinstance(domain, Booleans)]
    outer_atoms = [
        st.tuples(out_terms, st.one_of(constants, out_terms), st.sampled_from([sympy.Le, sympy.Lt, sympy.Eq])).map(lambda t: t[2](t[0], t[1])),
        st.tuples(aggregates, out_terms, st.sampled_from([sympy.Le, sympy.Gt])).map(lambda t: t[2](t[0], t[1])),
    ] + [st.just(b) for b in out_booleans]
    outer_conditions = st.one_of(*outer_atoms).filter(lambda c: c not in (sympy.true, sympy.false))

    def combine(children):
        return st.one_of(
            st.tuples(children, children).map(lambda p: p[0] + p[1]),
            st.tuples(constants, children).map(lambda p: p[0] * p[1]),
            st.tuples(out_terms, children).map(lambda p: p[0] * p[1]),
            children.map(sympy.Abs),
            st.tuples(children, children).map(lambda p: sympy.Max(p[0], p[1])),
            st.tuples(children, children).map(lambda p: sympy.Min(p[0], p[1])),
            children.map(lambda c: c / size()),
            st.tuples(children, out_terms).map(lambda p: p[0] / p[1]),  # may divide by zero
            st.tuples(children, aggregates).map(lambda p: p[0] / (p[1] + 1)),  # may divide by zero
            children.map(lambda c: c**2),
            st.tuples(children, children, outer_conditions).map(lambda p: sympy.Piecewise((p[0], p[2]), (p[1], True))),
            st.tuples(children, children, aggregates, aggregates).map(
                lambda p: sympy.Piecewise((p[0], p[2] >= p[3]), (p[1], True))
            ),
        )

    expr = draw(st.recursive(leaves, combine, max_leaves=max_leaves))
    try:
        return QualityFunction(expr, schema=schema, outputs=outputs)
    except InvalidArgument:
        reject()  # e.g. sympy folded the expression into something outside the language
        raise  # pragma: no cover


# -- wrong claims whose true sensitivity is known by construction (refutation completeness) ----------------------

from dataclasses import dataclass  # noqa: E402

from expmech.spec import DATASET_SIZE, Neighbours  # noqa: E402


@dataclass(frozen=True)
class WrongClaim:
    """A quality function, a relation, its true Δq (an expression in n) and a claim below it for some n."""

    family: str
    quality: QualityFunction
    neighbours: Neighbours
    truth: sympy.Expr
    claimed: sympy.Expr

    def __repr__(self) -> str:
        return f"WrongClaim({self.family}: {self.quality.expr} under {self.neighbours.value}, Δq = {self.truth}, claimed {self.claimed})"


def _linear_parts(draw, schema, outputs):
    """Σ cᵢ·count(pᵢ) + Σ dⱼ·total(fⱼ): the sympy expression and its per-record term h(record, r) as a callable."""
    (xname, xsym, xdom), *rest = list(schema.items())
    rsym = next(iter(outputs.symbols))
    bsym = rest[0][1] if rest else None
    predicates = [xsym <= rsym, xsym >= 1, sympy.Eq(xsym, rsym), xsym < rsym] + ([sympy.Eq(bsym, 1), sympy.And(bsym, xsym <= rsym)] if bsym is not None else [])
    bodies = [xsym, sympy.Min(xsym, rsym), 2 * xsym - rsym] + ([bsym * 3] if bsym is not None else [])
    expr = sympy.Integer(0)
    pieces = []
    for _ in range(draw(st.integers(1, 3))):
        coefficient = draw(st.sampled_from([sympy.Integer(c) for c in (-2, -1, 1, 2, 3)] + [sympy.Rational(1, 2), rsym]))
        if draw(st.booleans()):
            predicate = draw(st.sampled_from(predicates))
            expr += coefficient * count(predicate)
            pieces.append(("count", coefficient, predicate))
        else:
            body = draw(st.sampled_from(bodies))
            expr += coefficient * total(body)
            pieces.append(("total", coefficient, body))
    return expr, pieces


def _term(pieces, codes):
    value = Fraction(0)
    for kind, coefficient, part in pieces:
        c = Fraction(str(coefficient.subs(codes)))
        if kind == "count":
            value += c if bool(part.subs(codes)) else 0
        else:
            value += c * Fraction(str(part.subs(codes)))
    return value


@st.composite
def wrong_claims(draw: st.DrawFn) -> WrongClaim:
    """A wrong claim: linear forms, means, products with size(), suprema that are not attained, c/n claims,
    Piecewise conditions comparing two aggregates, and infinite output spaces."""
    family = draw(st.sampled_from(["linear", "linear-over-n", "mean", "size-product", "supremum", "comparison", "infinite-outputs"]))
    relation = draw(st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE]))
    n = DATASET_SIZE
    if family == "comparison":
        # k·[count(p) > count(not p) + c]: one record moves count(p) − count(not p) by 2 (replace-one) or 1
        # (add-remove), so at a size where the difference sits at the threshold the indicator flips: Δq = k.
        schema, outputs = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
        x, r = schema["x"], outputs["r"]
        inside, outside = draw(st.sampled_from([(x <= r, x > r), (sympy.Eq(x, r), sympy.Ne(x, r)), (x >= r, x < r)]))
        k, c = draw(st.sampled_from([1, 2, 3])), draw(st.integers(-2, 3))
        q = QualityFunction(k * sympy.Piecewise((1, count(inside) > count(outside) + c), (0, True)) + r, schema=schema, outputs=outputs)
        m = draw(st.integers(2, 6))  # the claim k·m/n is wrong from n = m + 1 (add-remove: k·m/(n + 1), from n = m)
        claimed = k * m / n if relation is Neighbours.REPLACE_ONE else k * m / (n + 1)
        return WrongClaim(family, q, relation, sympy.Integer(k), claimed)
    if family == "infinite-outputs":
        # total(x·[r beyond t]) − r over an unbounded range of r: only outputs past t see the data.
        xdom = draw(st.sampled_from([IntRange(0, 3), IntRange(1, 4), IntRange(-2, 1)]))
        rdom = draw(st.sampled_from([IntRange(0, None), IntRange(-5, None), IntRange(None, None), RationalRange(0, None)]))
        schema, outputs = RecordSchema(x=xdom), OutputSpace(r=rdom)
        x, r = schema["x"], outputs["r"]
        threshold = sympy.Rational(draw(st.sampled_from([Fraction(5), Fraction(50), Fraction(1000), Fraction(101, 2)])))
        beyond = r > threshold if draw(st.booleans()) else r >= threshold
        q = QualityFunction(total(sympy.Piecewise((x, beyond), (0, True))) - r, schema=schema, outputs=outputs)
        lo, hi = xdom.bounds()
        truth = sympy.Integer(int(hi - lo) if relation is Neighbours.REPLACE_ONE else int(max(abs(lo), abs(hi))))
        claimed = truth * draw(st.sampled_from([sympy.Rational(1, 2), sympy.Rational(9, 10)])) if draw(st.booleans()) else truth * draw(st.integers(1, 4)) / (n + 1)
        return WrongClaim(family, q, relation, truth, claimed)
    if family == "supremum":
        top = draw(st.integers(1, 4))
        cut = Fraction(draw(st.integers(1, 2 * top)), 2)
        schema, outputs = RecordSchema(x=RationalRange(0, top)), OutputSpace(r=IntRange(0, 2))
        x = schema["x"]
        scale = draw(st.sampled_from([1, 2]))
        q = QualityFunction(scale * total(sympy.Piecewise((x, x < sympy.Rational(cut.numerator, cut.denominator)), (0, True))) - outputs["r"],
                            schema=schema, outputs=outputs)
        truth = sympy.Rational(scale * cut.numerator, cut.denominator)  # sup, not attained
        gap = draw(st.sampled_from([sympy.Rational(1, 2), sympy.Rational(1, 10), sympy.Rational(1, 1000)]))
        return WrongClaim(family, q, relation, truth, sympy.Max(truth - gap * truth, 0))
    xdom = draw(st.sampled_from([IntRange(0, 3), IntRange(1, 4), IntRange(-2, 1), Booleans()]))
    fields = {"x": xdom}
    if draw(st.booleans()):
        fields["b"] = Booleans()
    schema = RecordSchema(**fields)
    outputs = OutputSpace(r=draw(st.sampled_from([IntRange(0, 3), IntRange(1, 2), Grid((Fraction(-1), Fraction(1, 2), Fraction(2)))])))
    records = [dict(zip(schema.symbols, combo)) for combo in itertools.product(*[d.codes() for _, _, d in schema.items()])]
    outs = [dict(zip(outputs.symbols, (c,))) for c in next(iter(outputs.items()))[2].codes()]
    if family == "size-product":
        x, r = schema["x"], outputs["r"]
        predicate = draw(st.sampled_from([x <= r, x >= 1, sympy.Eq(x, r)]))
        varies = any(bool(predicate.subs({**a, **o})) != bool(predicate.subs({**b, **o})) for o in outs for a in records for b in records)
        holds = any(bool(predicate.subs({**a, **o})) for o in outs for a in records)
        if relation is Neighbours.REPLACE_ONE:
            if not varies:
                reject()
            truth = n
        else:
            if not holds:
                reject()
            truth = 2 * n + 1
        q = QualityFunction(size() * count(predicate), schema=schema, outputs=outputs)
        return WrongClaim(family, q, relation, truth, sympy.Integer(draw(st.integers(2, 7))))
    expr, pieces = _linear_parts(draw, schema, outputs)
    terms = {(tuple(sorted(a.items(), key=str)), tuple(o.items())): _term(pieces, {**a, **o}) for a in records for o in outs}

    def h(a, o):
        return terms[(tuple(sorted(a.items(), key=str)), tuple(o.items()))]

    spread = max(h(b, o) - h(a, o) for o in outs for a in records for b in records)
    if family == "mean":
        q = QualityFunction(expr / size() + outputs["r"], schema=schema, outputs=outputs)
        if spread == 0:
            reject()
        m = sympy.Rational(spread.numerator, spread.denominator)
        truth = m / n if relation is Neighbours.REPLACE_ONE else m / (n + 1)
        wrong = draw(st.sampled_from(["shifted", "halved", "smaller"]))
        if wrong == "shifted":
            claimed = m / (n + 1) if relation is Neighbours.REPLACE_ONE else m / (n + 2)
        elif wrong == "halved":
            claimed = m / (2 * n)
        else:
            claimed = (m * sympy.Rational(3, 4)) / n if relation is Neighbours.REPLACE_ONE else (m * sympy.Rational(3, 4)) / (n + 1)
        if relation is Neighbours.ADD_REMOVE and wrong == "halved":
            claimed = m / (2 * n + 1)
        return WrongClaim(family, q, relation, truth, claimed)
    size_coefficient = draw(st.sampled_from([0, 0, 1, -1]))
    q = QualityFunction(expr + size_coefficient * size() - outputs["r"], schema=schema, outputs=outputs)
    if relation is Neighbours.REPLACE_ONE:
        value = spread
    else:
        value = max(abs(h(a, o) + size_coefficient) for o in outs for a in records)
    if value == 0:
        reject()
    truth = sympy.Rational(value.numerator, value.denominator)
    if family == "linear-over-n":
        k = draw(st.integers(1, 5))
        return WrongClaim(family, q, relation, truth, truth * k / (n + 1) if relation is Neighbours.ADD_REMOVE else truth * k / n)
    gap = draw(st.sampled_from([sympy.Rational(1, 2), sympy.Rational(1, 4), sympy.Rational(1, 100)]))
    return WrongClaim(family, q, relation, truth, truth * (1 - gap))

# -- qualities piecewise linear in one output r -------------------------------------------------


@st.composite
def piecewise_linear_expressions(draw: st.DrawFn, x: object, r: object) -> object:
    """A quality expression of the language, piecewise linear in ``r``, over one integer field ``x``.

    Built from rank counts, clamped totals, absolute deviations, means, Max/Min,
    Abs and Piecewise conditions on r, so that every kind of breakpoint occurs.
    """
    import sympy

    from expmech.spec import count, mean, size, total

    small = rationals(-3, 3, 4)

    def linear() -> object:
        return draw(small) * r + draw(small)

    def atom() -> object:
        kind = draw(st.integers(0, 7))
        if kind == 0:
            relation = draw(st.sampled_from([sympy.Le, sympy.Lt, sympy.Ge, sympy.Gt]))
            return count(relation(x + draw(st.integers(-2, 2)), r))
        if kind == 1:
            return total(sympy.Min(x, linear()))
        if kind == 2:
            return -total(sympy.Abs(x - r))
        if kind == 3:
            return mean(x) * draw(small) + linear()
        if kind == 4:
            return count(sympy.And(x - 2 <= r, r < x + draw(st.integers(1, 3))))
        if kind == 5:
            return -sympy.Abs(r - mean(x))
        if kind == 6:
            return sympy.Max(linear(), linear())
        return size() * draw(small) - sympy.Min(r, draw(small))

    body = sum((draw(small) * atom() for _ in range(draw(st.integers(1, 3)))), sympy.Integer(0))
    outer = draw(st.integers(0, 4))
    if outer == 1:
        body = -sympy.Abs(body - size() * draw(small))
    elif outer == 2:
        body = sympy.Piecewise((body, r <= draw(small)), (body * draw(small) + linear(), True))
    elif outer == 3:
        body = sympy.Min(body, linear())
    return body


# -- every operation of the language, for cross-checking the vectorised evaluator ---------------

_FIELD_DOMAINS = [IntRange(-3, 3), RationalRange(Fraction(-2), Fraction(2)), Booleans(), Categories(("a", "b", "c"))]
_OUTPUT_DOMAINS = [IntRange(-2, 3), Grid((Fraction(-1, 2), Fraction(0), Fraction(1, 3), Fraction(2))), Booleans()]
_CONSTANTS = st.sampled_from([0, 1, -1, 2, Fraction(1, 2), Fraction(-7, 3), 2**61, -(2**62) + 5, Fraction(2**40, 3), Fraction(1, 2**45)])


def _constant(draw: st.DrawFn) -> sympy.Expr:
    value = Fraction(draw(_CONSTANTS))
    return sympy.Rational(value.numerator, value.denominator)


def _numeric(draw: st.DrawFn, leaves: list[sympy.Expr], depth: int, aggregates: list[sympy.Expr] | None) -> sympy.Expr:
    """A numeric expression over ``leaves`` (and, outside aggregates, over generated aggregates)."""
    kinds = ["leaf", "constant"] + (["aggregate"] if aggregates is not None else [])
    if depth > 0:
        kinds += ["add", "mul", "pow", "abs", "max", "min", "piecewise"]
    kind = draw(st.sampled_from(kinds))
    if kind == "leaf":
        return draw(st.sampled_from(leaves))
    if kind == "constant":
        return _constant(draw)
    if kind == "aggregate":
        assert aggregates is not None
        return draw(st.sampled_from(aggregates))
    sub = lambda: _numeric(draw, leaves, depth - 1, aggregates)  # noqa: E731
    if kind == "add":
        return sub() + sub()
    if kind == "mul":
        return sub() * sub()
    if kind == "pow":
        return sub() ** draw(st.integers(-2, 3))
    if kind == "abs":
        return sympy.Abs(sub())
    if kind in ("max", "min"):
        op = sympy.Max if kind == "max" else sympy.Min
        return op(sub(), sub(), sub(), evaluate=False)
    condition = _predicate(draw, leaves, depth - 1, aggregates)
    return sympy.Piecewise((sub(), condition), (sub(), True), evaluate=False)


def _predicate(draw: st.DrawFn, leaves: list[sympy.Expr], depth: int, aggregates: list[sympy.Expr] | None) -> sympy.Basic:
    kind = draw(st.sampled_from(["relation", "relation", "and", "or", "not"] if depth > 0 else ["relation"]))
    if kind == "relation":
        op = draw(st.sampled_from([sympy.Eq, sympy.Ne, sympy.Lt, sympy.Le, sympy.Gt, sympy.Ge]))
        left = _numeric(draw, leaves, max(depth - 1, 0), aggregates)
        right = _numeric(draw, leaves, max(depth - 1, 0), aggregates)
        relation = op(left, right, evaluate=False) if op in (sympy.Eq, sympy.Ne) else op(left, right)
        return relation
    if kind == "not":
        return sympy.Not(_predicate(draw, leaves, depth - 1, aggregates))
    op = sympy.And if kind == "and" else sympy.Or
    return op(_predicate(draw, leaves, depth - 1, aggregates), _predicate(draw, leaves, depth - 1, aggregates))


@st.composite
def language_quality_functions(draw: st.DrawFn, max_depth: int = 3) -> QualityFunction:
    """A generated quality function of the spec language: every operation, aggregate and domain kind.

    Constants include values near and beyond the int64 range, so evaluators
    must stay exact where machine integers would overflow.
    """
    fields = draw(st.lists(st.sampled_from(range(len(_FIELD_DOMAINS))), min_size=1, max_size=3))
    schema = RecordSchema({f"f{i}": _FIELD_DOMAINS[k] for i, k in enumerate(fields)})
    variables = draw(st.lists(st.sampled_from(range(len(_OUTPUT_DOMAINS))), min_size=1, max_size=2))
    outputs = OutputSpace({f"r{i}": _OUTPUT_DOMAINS[k] for i, k in enumerate(variables)})
    try:
        return _build_quality(draw, schema, outputs, max_depth)
    except (TypeError, ValueError, KeyError):  # sympy refused a combination (Max of a non-comparable constant; a Piecewise condition without a symbol)
        reject()


def _build_quality(draw: st.DrawFn, schema: RecordSchema, outputs: OutputSpace, max_depth: int) -> QualityFunction:
    record_leaves = list(schema.symbols) + list(outputs.symbols)
    aggregates = []
    fields = set(schema.symbols)
    numeric_fields = [symbol for _, symbol, domain in schema.items() if not isinstance(domain, Categories)]
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["count", "total", "mean", "size"]))
        if kind == "size":
            aggregates.append(size())
        elif kind == "count":  # a predicate on the record: count(r > 1) is refused
            predicate = _predicate(draw, record_leaves, 2, None)
            if not predicate.free_symbols & fields:
                predicate = sympy.Or(predicate, sympy.Eq(draw(st.sampled_from(sorted(fields, key=str))), 0))
            aggregates.append(count(predicate))
        else:  # a body that involves the record: total(0) and total(r) are refused
            body = _numeric(draw, record_leaves, 2, None)
            if not body.free_symbols & fields:
                if not numeric_fields:
                    aggregates.append(size())
                    continue
                body = body + draw(st.sampled_from(numeric_fields))
            aggregates.append((total if kind == "total" else mean)(body))
    expr = _numeric(draw, list(outputs.symbols), max_depth, aggregates)
    return QualityFunction(expr, schema=schema, outputs=outputs, name="generated")


# -- plain Python quality functions, as source text (for expmech.spec.trace) ------------------------------------------

#: The schema and outputs of the generated Python functions: x ∈ {-3, …, 6}, r ∈ {-2, …, 5}.
TRACE_FIELD = (-3, 6)
TRACE_OUTPUT = (-2, 5)


def _py_constant(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["int", "int", "fraction", "float"]))
    if kind == "int":
        return str(draw(st.integers(-3, 4)))
    if kind == "fraction":
        return f"Fraction({draw(st.integers(-5, 5))}, {draw(st.integers(1, 6))})"
    return repr(draw(st.sampled_from([0.5, 0.25, -1.5, 2.0])))  # exact binary values


def _py_record(draw: st.DrawFn, depth: int) -> str:
    """A per-record expression of the loop variable x (and r)."""
    if depth <= 0:
        return draw(st.sampled_from(["x", "x", "r", _py_constant(draw)]))
    a, b = _py_record(draw, depth - 1), _py_record(draw, depth - 1)
    return draw(st.sampled_from([
        f"({a} + {b})", f"({a} - {b})", f"({draw(st.integers(-2, 3))} * {a})", f"abs({a})", f"min({a}, {b})", f"max({a}, {b})",
        f"({a} if {_py_record_condition(draw, depth - 1)} else {b})", a,
    ]))


def _py_record_condition(draw: st.DrawFn, depth: int) -> str:
    if depth <= 0 or draw(st.booleans()):
        op = draw(st.sampled_from(["<", "<=", "==", "!=", ">", ">="]))
        return f"{_py_record(draw, 0)} {op} {_py_record(draw, 0)}"
    a, b = _py_record_condition(draw, depth - 1), _py_record_condition(draw, depth - 1)
    return draw(st.sampled_from([f"({a} and {b})", f"({a} or {b})", f"(not {a})"]))


def _py_aggregate(draw: st.DrawFn) -> str:
    record, cond = _py_record(draw, draw(st.integers(0, 2))), _py_record_condition(draw, draw(st.integers(0, 1)))
    c1, c2 = sorted(draw(st.lists(st.integers(-3, 6), min_size=2, max_size=2)))
    return draw(st.sampled_from([
        "len(data)",
        f"sum(1 for x in data if {cond})",
        f"sum({record} for x in data)",
        f"sum({cond} for x in data)",
        f"sum({record} for x in data if {cond})",
        f"len([x for x in data if {cond}])",
        "np.sum(np.asarray(data) < r)",
        f"np.count_nonzero(np.asarray(data) >= {c1})",
        f"np.sum(np.clip(np.asarray(data), {c1}, {c2}))",
        "np.sum(np.abs(np.asarray(data) - r))",
        "(sorted(data)[len(data) // 2] if len(data) > 0 else 0)",
        f"max(data, default={c1})",
        "min(x - r for x in data)",
    ]))


def _py_value(draw: st.DrawFn, depth: int, names: tuple[str, ...]) -> str:
    """A data-level expression: constants, r, aggregates, names bound before, combined."""
    if depth <= 0:
        return draw(st.sampled_from([_py_constant(draw), "r", _py_aggregate(draw), _py_aggregate(draw), *names]))
    a, b = _py_value(draw, depth - 1, names), _py_value(draw, depth - 1, names)
    return draw(st.sampled_from([
        f"({a} + {b})", f"({a} - {b})", f"({a} * {b})", f"abs({a})", f"min({a}, {b})", f"max({a}, {b})",
        f"({a} if {_py_condition(draw, names)} else {b})", f"({a} // {draw(st.integers(1, 3))})", a,
    ]))


def _py_condition(draw: st.DrawFn, names: tuple[str, ...]) -> str:
    # compared: counts, sizes, r and constants (a sum of conditional terms in a condition is refused: see traceable-python.md)
    op = draw(st.sampled_from(["<", "<=", "==", "!=", ">"]))
    side = st.sampled_from(["r", "len(data)", str(draw(st.integers(-2, 4))), f"sum(1 for x in data if {_py_record_condition(draw, 1)})",
                            "np.count_nonzero(np.asarray(data) > r)", "(len(data) // 2)"])
    first = f"{draw(side)} {op} {draw(side)}"
    return draw(st.sampled_from([first, f"({first} and r > {draw(st.integers(-2, 5))})", f"(not {first})", f"({first} or len(data) == 0)"]))


@st.composite
def traceable_sources(draw: st.DrawFn) -> str:
    """The source of a random quality function ``score(data, r)`` of the traceable subset (imports included)."""
    lines = ["from fractions import Fraction", "import numpy as np", "", "", "def score(data, r):"]
    names: tuple[str, ...] = ()
    if draw(st.booleans()):
        lines += [
            f"    acc = {draw(st.integers(-2, 2))}",
            "    for x in data:",
            f"        if {_py_record_condition(draw, 1)}:",
            f"            acc += {_py_record(draw, 1)}",
            "        else:",
            f"            acc -= {draw(st.integers(0, 2))}",
        ]
        names = ("acc",)
    if draw(st.booleans()):
        lines += [f"    if {_py_condition(draw, names)}:", f"        return {_py_value(draw, 1, names)}"]
    lines.append(f"    return {_py_value(draw, draw(st.integers(0, 2)), names)}")
    if draw(st.booleans()):
        lines[-1] = f"    return ({_py_value(draw, 1, names)}) / {draw(st.integers(1, 4))}"
    return "\n".join(lines) + "\n"


#: Statements outside the traceable subset, each with the construct its TraceError names.
UNTRACEABLE = (
    ("while len(data) < 0:\n        r += 1", "a while loop"),
    ("y = data[0]", "indexing the records by position"),
    ("z = random.random()", "randomness"),
    ("w = sorted(data, reverse=True)", "reverse=True"),
    ("v = MUTABLE[0]", "the list MUTABLE"),
    ("print(r)", "an expression statement"),
    ("u = [1 for x in data for y in data]", "several for clauses"),
    ("t = math.log(2)", "a logarithm"),
    ("s = list(enumerate(data))", "enumerate()"),
    ("k = lambda v: v", "a lambda"),
    ("import os", "an import"),
    ("try:\n        pass\n    except ValueError:\n        pass", "a try statement"),
    ("q = recurse(data, r)", "recursion"),
    ("p = np.percentile(data, 50)", "np.percentile"),
    ("o = [x for x in data][1:]", "a slice"),
)


@st.composite
def untraceable_sources(draw: st.DrawFn) -> tuple[str, int, str]:
    """``(source, line, construct)``: a traceable function with one untraceable statement inserted at ``line`` (1-based)."""
    statement, construct = draw(st.sampled_from(UNTRACEABLE))
    header = ["from fractions import Fraction", "import math", "import random", "import numpy as np", "", "MUTABLE = [1, 2]", "", "",
              "def recurse(data, r):", "    return recurse(data, r)", "", "", "def score(data, r):"]
    body = [
        f"    a = sum(1 for x in data if x < {draw(st.integers(-3, 6))})",
        "    b = len(data) - a",
        f"    c = a * r - b + {draw(st.integers(-2, 2))}",
    ]
    at = draw(st.integers(0, len(body)))
    body.insert(at, "    " + statement)
    lines = header + body + ["    return a + b + c"]
    line = header.index("    return recurse(data, r)") + 1 if construct == "recursion" else len(header) + at + 1  # recursion: the call inside
    return "\n".join(lines) + "\n", line, construct
