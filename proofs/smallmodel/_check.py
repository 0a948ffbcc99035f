"""The small-model check of a certificate's PROVED claims: the spec interpreter alone, exactly.

:func:`small_model_check` reads a certificate predicate (what ``certify``
writes and ``check`` reads) and the quality it is about, and evaluates every
PROVED claim it knows on the small model of :mod:`._model` — every dataset of
at most two records (∅ included under add-remove), every neighbouring pair of
them, every output of a finite range or the breakpoints, ends and interior
points of a range — with ``fractions`` and the quality's own interpreter.  No
prover code, no z3, no simplification of a bound: a bound is read as written
and computed at each ``n`` (:mod:`._exact`).

Claims checked (status PROVED only):

* ``sensitivity`` — ``|q(D, r) − q(D', r)| <= B(n)`` for the recorded bound
  and the claim, ``n`` the size of the smaller dataset (replace-one: the common
  size); where it is ``tight``, the witness is re-evaluated, is a neighbouring
  pair, and its gap is ``B`` at its ``n``.  For a log-likelihood quality the
  claim is the likelihood ratio ρ: ``L(D', θ)/L(D, θ)`` within ``[1/ρ, ρ]``,
  every likelihood positive, and a tight witness attains ρ.
* ``monotonicity`` — adding a record moves ``q(·, r)`` the stated way for
  every output (``non-decreasing``, ``non-increasing``, ``constant``), or a
  replacement moves every output by the same amount (``uniform``).
* ``normaliser`` — ``q(D, r) = h(r − f(D))`` at every model point, with the
  recorded shift ``f`` and profile ``h``, ``f(D)`` an integer over the
  integers, over the whole line with a translation-invariant μ: so the
  normaliser ``∫ h(r − f(D)) dμ(r)`` does not depend on ``D``.

A finite range with too many outputs for the budget, even on the corner
records, is sampled: every output a witness or counterexample names, the first
and the last, and a pseudo-random sample seeded by the quality's sha256 (the
report states it: ``range_outputs``, ``output_scope``).

A claim the model contradicts raises :class:`InternalInconsistency` naming
the claim, the pair, the output, the gap, the bound and ``n``.  The work is
counted before any of it is done, and refused (:class:`SmallModelBudget`)
above ``max_evaluations``: nothing is PROVED by omission.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import operator
import random
from collections import Counter
from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import (
    Counting,
    ExpMechError,
    InvalidArgument,
    IntRange,
    Lebesgue,
    LogLikelihood,
    Multiset,
    Neighbours,
    QualityError,
    QualityFunction,
    RationalRange,
    measure_from_json,
    rational_from_text,
)
from expmech.spec.internal import domain_from_json, expression_from_json

from ._exact import Undefined, evaluate, evaluate_at, parse_bound
from ._truthful import check_truthfulness_claim, truthfulness_work
from ._model import LEVELS, MAX_SIZE, Pair, count_datasets, datasets, listable, pairs, range_points, record_codes

__all__ = ["DEFAULT_MAX_EVALUATIONS", "InternalInconsistency", "SmallModelBudget", "SmallModelReport", "small_model_check"]

#: The default budget: exact evaluations of q, each weighted by the number of nodes of q's expression tree (the
#: interpreter's work per evaluation), plus comparisons of a pair at an output, plus an auction's exp-sum terms.
DEFAULT_MAX_EVALUATIONS = 2_000_000
#: Below this many outputs a finite range is not sampled: the check is refused instead.
MIN_OUTPUTS = 4
#: How a sampled finite range's outputs are chosen (the report's ``output_scope``).
SAMPLED = "witness, ends and a seeded sample"
#: Interior points of a bounded interval of θ (posterior sampling), besides its ends and the likelihood's constants.
INTERVAL_POINTS = 8

CHECKED = ("sensitivity", "monotonicity", "normaliser", "truthfulness")

Codes = dict[sympy.Symbol, Any]


class InternalInconsistency(ExpMechError, RuntimeError):
    """A PROVED claim is contradicted by the small-model check: a prover bug, never a proof.

    ``claim`` names the claim; ``pair`` is ``(D, D', r)`` in user-facing form
    (None when the contradiction is not about a pair); ``gap``, ``bound`` and
    ``size`` (the ``n`` the bound was evaluated at) are what was compared.
    """

    def __init__(self, message: str, *, claim: str, pair: tuple[Any, Any, Any] | None = None, gap: Any = None, bound: Any = None, size: int | None = None) -> None:
        super().__init__(message)
        self.claim = claim
        self.pair = pair
        self.gap = gap
        self.bound = bound
        self.size = size


class SmallModelBudget(InvalidArgument):
    """The small-model check would need more work than ``max_small_model_evaluations`` allows: refused up front."""


@dataclass(frozen=True)
class SmallModelReport:
    """What the small-model check covered: the claims, the model's size, and the work it did.

    ``level`` says how the records were chosen (:data:`._model.LEVELS`:
    ``"exhaustive"`` lists every finite field domain in full);
    ``evaluations`` counts exact
    evaluations of q (or of the likelihood), each weighted by the number of
    nodes of its expression tree, plus comparisons of a pair at an output and
    an auction's exp-sum terms: the quantity the budget bounds.
    ``range_outputs`` is 0 when every output listed (or chosen, for an
    interval or an infinite set) was checked; otherwise the finite range had
    that many outputs, too many for the budget, and only ``outputs`` of them
    were checked — those ``output_scope`` names: every output a claim's
    witness or counterexample names, the first and the last, and a
    pseudo-random sample seeded by the quality's sha256 (so ``check``
    evaluates the same subset as ``certify``).
    """

    claims: tuple[str, ...]
    records: int = 0
    level: str = "exhaustive"
    datasets: int = 0
    outputs: int = 0
    pairs: int = 0
    evaluations: int = 0
    range_outputs: int = 0
    output_scope: str = "every output"


# -- reading the certificate ------------------------------------------------------------------


def _decode(value: Any) -> Any:
    """A certificate value in user-facing form: ``{"rational": "p/q"}``, ``{"integer": "…"}``, lists as lists,
    ``{"multiset": [[record, count], …]}`` as a :class:`~expmech.spec.Multiset`."""
    if isinstance(value, dict) and set(value) == {"rational"}:
        return rational_from_text(value["rational"], name="rational")
    if isinstance(value, dict) and set(value) == {"integer"}:
        return int(value["integer"])
    if isinstance(value, dict) and set(value) == {"multiset"} and isinstance(value["multiset"], list):
        return Multiset([(_decode(record), _decode(count)) for record, count in value["multiset"]])  # a witness held by counts
    if isinstance(value, dict):
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _output(value: Any) -> Hashable:
    decoded = _decode(value)
    return tuple(decoded) if isinstance(decoded, list) else decoded


def _start(claims: dict[str, dict[str, Any]]) -> int:
    """The smallest ``n`` the claims are stated for: 1 when the sensitivity claim carries the hypothesis ``n >= 1``."""
    hypotheses = claims.get("sensitivity", {}).get("hypotheses") or []
    return 1 if any(str(h).startswith("n >= 1") for h in hypotheses) else 0


# -- the model ------------------------------------------------------------------------------------


@dataclass
class _Model:
    records: list[Codes]
    level: str
    keys: list[tuple[int, ...]]
    outputs: list[Any]
    output_codes: list[Codes]
    pairs: list[Pair]
    weight: int
    range_outputs: int = 0

    @property
    def evaluations(self) -> int:
        """The work: evaluations of q weighted by its size, plus comparisons of a pair at an output."""
        return (len(self.keys) * self.weight + len(self.pairs)) * len(self.outputs)


def _range_outputs(quality: Any, mechanism: dict[str, Any], records: list[Codes], keys: list[tuple[int, ...]]) -> list[Any]:
    """The outputs the model evaluates at: a finite range's list, or points of an interval / infinite set."""
    rng = mechanism["range"]
    kind = rng["kind"]
    if kind == "finite":
        listed = rng["outputs"]
        if set(map(type, listed)) == {list} and set(map(type, itertools.chain.from_iterable(listed))) <= {int}:
            return [tuple(r) for r in listed]  # rows of plain ints (a product range): what _output makes of each, in bulk
        return [_output(r) for r in listed]
    if kind == "IntRange":
        ends = domain_from_json({key: rng.get(key) for key in ("kind", "lo", "hi")}).bounds()
        lo, hi = (None if v is None else Fraction(v) for v in ends)
    else:
        lo = None if rng.get("lo") is None else rational_from_text(rng["lo"], name="lo")
        hi = None if rng.get("hi") is None else rational_from_text(rng["hi"], name="hi")
    if kind == "interval":  # θ of posterior sampling over [lo, hi]
        assert lo is not None and hi is not None
        points = {lo + (hi - lo) * Fraction(k, INTERVAL_POINTS) for k in range(INTERVAL_POINTS + 1)}
        points |= {Fraction(int(a.p), int(a.q)) for a in quality.expr.atoms(sympy.Rational) if lo <= a <= hi}
        return sorted(points)
    if len(quality.output_space.symbols) != 1:
        raise InvalidArgument(f"a range of kind {kind!r} needs one output variable", parameter="range", value=kind)
    domain: IntRange | RationalRange = IntRange(None if lo is None else int(lo), None if hi is None else int(hi)) if kind == "IntRange" else RationalRange(lo, hi)
    return range_points(quality, domain, records, [[records[i] for i in key] for key in keys])


def _named_outputs(claims: dict[str, dict[str, Any]]) -> list[Hashable]:
    """The outputs named by the claims' witnesses and counterexamples, in claim order."""
    found: list[Hashable] = []
    for claim in claims.values():
        for key in ("witness", "counterexample", "ratio_witness"):
            value = claim.get(key)
            if isinstance(value, dict) and value.get("output") is not None:
                found.append(_output(value["output"]))
    return found


def _output_subset(outputs: list[Any], fit: int, named: list[Hashable], seed: str) -> list[int] | None:
    """Indices (in range order) of at most ``fit`` outputs: the ``named`` ones, both ends, then a sample seeded by ``seed``.

    Deterministic in its arguments.  None when fewer than :data:`MIN_OUTPUTS`
    fit, or not even the named outputs and the ends.
    """
    required = {0, len(outputs) - 1}
    for value in named:
        required.update(i for i, r in enumerate(outputs) if r == value)
    if fit < MIN_OUTPUTS or fit < len(required):
        return None
    rest = [i for i in range(len(outputs)) if i not in required]
    rng = random.Random(int.from_bytes(hashlib.sha256(f"{seed}/{len(outputs)}".encode()).digest()[:8], "big"))
    return sorted(required | set(rng.sample(rest, min(len(rest), fit - len(required)))))


def _encoded(quality: Any, model: _Model, what: str) -> _Model:
    """``model`` with its outputs encoded; an output outside the quality's output space is an inconsistency."""
    try:
        model.output_codes = [quality.output_space.encode(r, name="r") for r in model.outputs]
    except InvalidArgument as error:
        raise InternalInconsistency(
            f"small-model check: {what} is PROVED over a range reaching outside the quality's output space: {error}", claim=what
        ) from None
    return model


def _build(quality: Any, mechanism: dict[str, Any], add_remove: bool, max_evaluations: int, what: str, sample: tuple[list[Hashable], str] | None = None) -> _Model:
    """The model within the budget: finite fields in full if that fits, else representative records, else corners;
    if the corners still do not fit because a finite range has too many outputs and ``sample`` (the named outputs and
    the seed) is given, a deterministic subset of the outputs (:func:`_output_subset`); else refused."""
    needed = None
    last = None
    least = ""
    weight = sum(1 for _ in sympy.preorder_traversal(quality.expr))  # the interpreter's work per evaluation grows with it
    for level in LEVELS:
        last = None  # only the last level's model (the corners) may have its outputs sampled
        if level == "exhaustive" and any(d.is_finite and not listable(d) for _, _, d in quality.schema.items()):
            continue  # a field too large to list (a large integer range) is never exhaustive
        records = record_codes(quality.schema, quality.expr, level=level)
        count = len(records)
        pair_count = count * count + count if add_remove else count * (count - 1) // 2 * (1 + count)
        if isinstance(quality, LogLikelihood):
            pair_count = 0  # likelihood ratios are compared per record: see _ratio
        if count_datasets(count, empty=add_remove) * weight + pair_count > max_evaluations:
            needed = count_datasets(count, empty=add_remove) * weight + pair_count
            continue
        keys = list(datasets(count, empty=add_remove))
        outputs = _range_outputs(quality, mechanism, records, keys)
        model = _Model(records, level, keys, outputs, [], list(pairs(count, add_remove=add_remove)), weight)
        if isinstance(quality, LogLikelihood):
            model.keys = [(i,) for i in range(count)]
        if model.evaluations <= max_evaluations:
            return _encoded(quality, model, what)
        needed = model.evaluations
        last = model
    if last is not None and sample is not None and mechanism["range"]["kind"] == "finite":
        fit = max_evaluations // (len(last.keys) * last.weight + len(last.pairs))
        chosen = _output_subset(last.outputs, fit, *sample)
        if chosen is not None:
            last.range_outputs = len(last.outputs)
            last.outputs = [last.outputs[i] for i in chosen]
            return _encoded(quality, last, what)
        least = f" (sampled, at least {MIN_OUTPUTS} of its {len(last.outputs)} outputs: {MIN_OUTPUTS * (len(last.keys) * last.weight + len(last.pairs))})"
    raise SmallModelBudget(
        f"the small-model check of {what} needs {needed} evaluations{least}, more than max_small_model_evaluations={max_evaluations} "
        "(to admit it: CertificateLimits(max_small_model_evaluations=…), expmech check --limit max_small_model_evaluations=…)",
        parameter="max_small_model_evaluations",
        value=needed,
    )


def _table(quality: QualityFunction, model: _Model) -> dict[tuple[int, ...], list[Fraction | None]]:
    """``q(D, r)`` for every model dataset and output, exactly; ``None`` where q is undefined."""
    table: dict[tuple[int, ...], list[Fraction | None]] = {}
    for key in model.keys:
        records = [model.records[i] for i in key]
        try:
            table[key] = list(quality.evaluate_many(records, model.output_codes))
        except QualityError:
            row: list[Fraction | None] = []
            for codes in model.output_codes:
                try:
                    row.append(quality.evaluate_codes(records, codes))
                except QualityError:
                    row.append(None)
            table[key] = row
    return table


def _scaled(table: dict[tuple[int, ...], list[Fraction | None]]) -> tuple[dict[tuple[int, ...], list[int] | None], int]:
    """The table as integers over one common denominator ``L`` (rows where q is undefined somewhere: None), and ``L``.

    Exact, and it turns the pair loop's Fraction arithmetic into integer arithmetic.
    """
    common = 1
    for row in table.values():
        for value in row:
            if value is not None:
                common = math.lcm(common, value.denominator)
    scaled: dict[tuple[int, ...], list[int] | None] = {}
    for key, row in table.items():
        scaled[key] = None if any(v is None for v in row) else [v.numerator * (common // v.denominator) for v in row]  # type: ignore[union-attr]
    return scaled, common


# -- user-facing rendering of a pair ---------------------------------------------------------------


def _record(quality: Any, codes: Codes) -> Any:
    values = {name: domain.decode(codes[symbol]) for name, symbol, domain in quality.schema.items()}
    return next(iter(values.values())) if len(values) == 1 else values


def _dataset(quality: Any, model: _Model, key: tuple[int, ...]) -> list[Any]:
    return [_record(quality, model.records[i]) for i in key]


def _fail(quality: Any, model: _Model, claim: str, pair: Pair, index: int, detail: str, **data: Any) -> InternalInconsistency:
    first, second, r = _dataset(quality, model, pair.first), _dataset(quality, model, pair.second), model.outputs[index]
    message = f"small-model check: claim {claim} is PROVED, but {detail} at D = {first}, D' = {second}, r = {r} (n = {pair.size})"
    return InternalInconsistency(message, claim=claim, pair=(first, second, r), size=pair.size, **data)


# -- the claims ---------------------------------------------------------------------------------------


def _bounds(claim: dict[str, Any], start: int) -> list[tuple[str, list[Fraction | None]]]:
    """Each recorded bound (the proved one and the claim) with its value at n = 0 … MAX_SIZE (None: undefined)."""
    found = []
    for key in ("bound", "claimed"):
        text = claim.get(key)
        if text is None:
            continue
        expr = parse_bound(text)
        found.append((text, [evaluate_at(expr, size) if size >= start else None for size in range(MAX_SIZE + 1)]))
    return found


def _undefined(model: _Model, table: dict[tuple[int, ...], list[Fraction | None]], pair: Pair) -> int:
    """The first output where q is undefined on one of the pair's datasets."""
    return next(i for i, (a, b) in enumerate(zip(table[pair.first], table[pair.second])) if a is None or b is None)


def _at(text: str, bound: Any, size: int) -> str:
    """``"2"``, or ``"2n = 0 (the bound 2*n at n = 0)"``-style text of a bound's value at a size."""
    return str(bound) if text == str(bound) else f"{bound} (the bound {text} at n = {size})"


def _sensitivity(quality: QualityFunction, model: _Model, table: dict[tuple[int, ...], list[Fraction | None]], claim: dict[str, Any], start: int) -> None:
    bounds = _bounds(claim, start)
    scaled, common = _scaled(table)
    limits: list[Fraction | None] = []
    for size in range(MAX_SIZE + 1):
        at = [values[size] for _, values in bounds]
        limits.append(None if None in at else min(v for v in at if v is not None))
    for pair in model.pairs:
        if pair.size < start:
            continue
        limit = limits[pair.size]
        if limit is None:
            text = next(text for text, values in bounds if values[pair.size] is None)
            raise _fail(quality, model, "sensitivity", pair, 0, f"its bound {text} is undefined at n = {pair.size}", bound=text)
        first, second = scaled[pair.first], scaled[pair.second]
        if first is None or second is None:
            raise _fail(quality, model, "sensitivity", pair, _undefined(model, table, pair), "q is undefined there")
        gaps = list(map(abs, map(operator.sub, first, second)))
        worst = max(gaps)
        if worst > limit * common:
            gap = Fraction(worst, common)
            text, bound = next((text, values[pair.size]) for text, values in bounds if gap > values[pair.size])  # type: ignore[operator]
            raise _fail(quality, model, "sensitivity", pair, gaps.index(worst), f"|q(D, r) − q(D', r)| = {gap} > {_at(text, bound, pair.size)}", gap=gap, bound=bound)
    if claim.get("tight"):
        _witness(quality, claim, bounds, start)


def _neighbours(quality: Any, first: list[Any], second: list[Any], add_remove: bool) -> bool:
    def key(record: Any) -> tuple[Any, ...]:
        return tuple(sorted((s.name, v) for s, v in quality.schema.encode(record).items()))

    a, b = _counts(first, key), _counts(second, key)
    if add_remove:
        small, large = (a, b) if _size(first) <= _size(second) else (b, a)
        return abs(_size(first) - _size(second)) == 1 and not (small - large) and sum((large - small).values()) == 1
    return _size(first) == _size(second) and sum((a - b).values()) <= 1  # Hamming distance at most 1, as the source defines it


def _size(data: Any) -> int:
    """The number of records of a listed dataset or of a Multiset (a witness past a size limit, held by counts)."""
    return data.size if isinstance(data, Multiset) else len(data)


def _counts(data: Any, key: Any) -> Counter[Any]:
    """How many times each record occurs, read from the counts of a Multiset without listing it."""
    if isinstance(data, Multiset):
        counts: Counter[Any] = Counter()
        for record, count in data.items():
            counts[key(record)] += count
        return counts
    return Counter(key(r) for r in data)


def _witness(quality: QualityFunction, claim: dict[str, Any], bounds: list[tuple[str, list[Fraction | None]]], start: int) -> None:
    """A tight claim's witness: neighbours whose exact gap is the proved bound at their n."""
    witness = claim.get("witness")
    if witness is None:
        raise InternalInconsistency("small-model check: claim sensitivity is tight without a witness", claim="sensitivity")
    first, second, r = _decode(witness["dataset1"]), _decode(witness["dataset2"]), _output(witness["output"])
    add_remove = _size(first) != _size(second)
    size = min(_size(first), _size(second))
    try:
        gap = abs(quality(first, r) - quality(second, r))
    except ExpMechError as error:
        raise InternalInconsistency(f"small-model check: the tight witness of claim sensitivity does not evaluate: {error}", claim="sensitivity") from None
    text = claim["bound"]
    bound = evaluate_at(parse_bound(text), size)
    if not _neighbours(quality, first, second, add_remove) or gap != bound or gap != rational_from_text(witness["difference"], name="difference"):
        raise InternalInconsistency(
            f"small-model check: claim sensitivity is tight, but its witness D = {first}, D' = {second}, r = {r} has gap {gap}, "
            f"not the bound {text} = {bound} at n = {size} (or is not a neighbouring pair)",
            claim="sensitivity", pair=(first, second, r), gap=gap, bound=bound, size=size,
        )


def _monotone(quality: QualityFunction, model: _Model, table: dict[tuple[int, ...], list[Fraction | None]], claim: dict[str, Any], start: int) -> None:
    direction = claim.get("direction")
    if direction not in ("non-decreasing", "non-increasing", "constant", "uniform"):
        raise InternalInconsistency(f"small-model check: claim monotonicity is PROVED with the unknown direction {direction!r}", claim="monotonicity")
    scaled, common = _scaled(table)
    for pair in model.pairs:
        if pair.size < start:
            continue
        first, second = scaled[pair.first], scaled[pair.second]
        if first is None or second is None:
            raise _fail(quality, model, "monotonicity", pair, _undefined(model, table, pair), "q is undefined there")
        moves = list(map(operator.sub, second, first))
        low, high = min(moves), max(moves)
        wrong = {
            "non-decreasing": low if low < 0 else None,
            "non-increasing": high if high > 0 else None,
            "constant": (low if low != 0 else high) if low != 0 or high != 0 else None,
            "uniform": high if low != high else None,
        }[direction]
        if wrong is not None:
            index = moves.index(wrong)
            detail = f"q(D', r) − q(D, r) = {Fraction(wrong, common)} is not {direction}"
            if direction == "uniform":
                detail = f"q moves by {Fraction(wrong, common)} here and by {Fraction(low, common)} at r = {model.outputs[moves.index(low)]}"
            raise _fail(quality, model, "monotonicity", pair, index, detail, gap=Fraction(wrong, common))


def _normaliser(quality: QualityFunction, model: _Model, table: dict[tuple[int, ...], list[Fraction | None]], claim: dict[str, Any], mechanism: dict[str, Any], start: int) -> None:
    rng = mechanism["range"]
    measure = measure_from_json(rng.get("base_measure"))
    integer = rng["kind"] == "IntRange"
    whole = rng.get("lo") is None and rng.get("hi") is None
    if not whole or measure != (Counting() if integer else Lebesgue()):
        raise InternalInconsistency(
            f"small-model check: claim normaliser is PROVED over {rng['kind']}({rng.get('lo')}, {rng.get('hi')}) with μ = {measure!r}, "
            "not the whole line with its translation-invariant measure", claim="normaliser",
        )
    symbols = {s.name: s for s in (*quality.schema.symbols, *quality.output_space.symbols)}
    shift_expr = expression_from_json(claim["shift"], symbols)
    shift = QualityFunction(shift_expr, schema=quality.schema, outputs=quality.output_space)
    s = sympy.Symbol("s_shift")
    profile = parse_bound(claim["profile"], symbols={"s_shift": s})
    (variable,) = quality.output_space.symbols
    for key in model.keys:
        if len(key) < start:
            continue
        records = [model.records[i] for i in key]
        pair = Pair(key, key, len(key))
        try:
            f = shift.evaluate_codes(records, model.output_codes[0])
        except QualityError as error:
            raise _fail(quality, model, "normaliser", pair, 0, f"the shift f(D) = {shift_expr} is undefined ({error})") from None
        if integer and f.denominator != 1:
            raise _fail(quality, model, "normaliser", pair, 0, f"the shift f(D) = {f} is not an integer")
        for index, value in enumerate(table[key]):
            r = Fraction(model.output_codes[index][variable])
            try:
                expected = evaluate(profile, {s: r - f})
            except Undefined:
                expected = None
            if value is None or expected is None or value != expected:
                raise _fail(quality, model, "normaliser", pair, index, f"q(D, r) = {value} but h(r − f(D)) = {expected} with f(D) = {f}", gap=value, bound=expected)


def _ratio(quality: LogLikelihood, model: _Model, claim: dict[str, Any], add_remove: bool) -> None:
    """The likelihood ratio ρ on every pair of model datasets: ``L(D', θ)/L(D, θ)`` within ``[1/ρ, ρ]``."""
    rho = rational_from_text(claim["ratio"], name="ratio")
    ell = []
    for index, record in enumerate(model.records):
        row = []
        for j, theta in enumerate(model.output_codes):
            try:
                value = quality.record_likelihood_codes(record, theta)
            except QualityError as error:
                raise _fail(quality, model, "sensitivity", Pair((index,), (index,), 1), j, f"the likelihood is undefined ({error})") from None
            if value <= 0:
                raise _fail(quality, model, "sensitivity", Pair((index,), (index,), 1), j, f"the likelihood is {value}, not positive")
            row.append(value)
        ell.append(row)
    for pair in model.pairs:
        # datasets of at most two records: L(D') / L(D) is the ratio of the records not shared
        extra = Counter(pair.second) - Counter(pair.first)
        missing = Counter(pair.first) - Counter(pair.second)
        for j in range(len(model.outputs)):
            value = Fraction(1)
            for i in extra.elements():
                value *= ell[i][j]
            for i in missing.elements():
                value /= ell[i][j]
            if value > rho or value * rho < 1:
                raise _fail(quality, model, "sensitivity", pair, j, f"L(D', θ)/L(D, θ) = {value} lies outside [1/ρ, ρ], ρ = {rho}", gap=value, bound=rho)
    witness = claim.get("ratio_witness")
    if claim.get("tight"):
        if witness is None:
            raise InternalInconsistency("small-model check: claim sensitivity is tight without a ratio witness", claim="sensitivity")
        theta = quality.output_space.encode(_output(witness["output"]))
        first = quality.record_likelihood_codes(quality.schema.encode(_decode(witness["record1"])), theta)
        if witness["record2"] is None:
            value = max(first, 1 / first)
        else:
            value = first / quality.record_likelihood_codes(quality.schema.encode(_decode(witness["record2"])), theta)
        if value != rho:
            raise InternalInconsistency(f"small-model check: claim sensitivity is tight, but its witness has ratio {value}, not ρ = {rho}", claim="sensitivity", gap=value, bound=rho)


def _truthfulness(quality: QualityFunction, model: _Model, claim: dict[str, Any], mechanism: dict[str, Any]) -> None:
    epsilon0 = rational_from_text(mechanism["epsilon0"], name="epsilon0")
    measure = [rational_from_text(m, name="base_measure") for m in mechanism["range"]["base_measure"]]
    found = check_truthfulness_claim(claim, quality, epsilon0, model.outputs, measure)
    if found is not None:
        truthful, lied, detail = found
        raise InternalInconsistency(
            f"small-model check: claim truthfulness is PROVED, but {detail}, bids {truthful} against {lied}",
            claim="truthfulness", pair=(truthful, lied, None),
        )


def small_model_check(predicate: dict[str, Any], quality: QualityFunction | LogLikelihood, *, max_evaluations: int = DEFAULT_MAX_EVALUATIONS) -> SmallModelReport:
    """Evaluate every PROVED claim of ``predicate`` on the small model (module docstring), exactly.

    ``predicate`` is a certificate's predicate (its ``mechanism`` and
    ``claims``); ``quality`` the quality function (or log-likelihood) it is
    about.  Returns a :class:`SmallModelReport` of what was covered.  Raises
    :class:`InternalInconsistency` when the model contradicts a PROVED claim,
    naming the pair, the output, the gap, the bound and ``n``, and
    :class:`SmallModelBudget` (an :class:`InvalidArgument`, before any
    evaluation) when the model needs more than ``max_evaluations``.
    """
    if isinstance(max_evaluations, bool) or not isinstance(max_evaluations, int) or max_evaluations < 1:
        raise InvalidArgument(f"max_evaluations={max_evaluations!r} must be an int >= 1", parameter="max_evaluations", value=max_evaluations)
    claims = {claim["id"]: claim for claim in predicate["claims"]}
    proved = tuple(c for c in CHECKED if claims.get(c, {}).get("status") == "PROVED")
    if not proved:
        return SmallModelReport(())
    mechanism = predicate["mechanism"]
    add_remove = Neighbours.parse(mechanism["neighbours"]) is Neighbours.ADD_REMOVE
    start = _start(claims)
    what = "claims " + ", ".join(proved)
    # a finite range too large for the budget is sampled (not for truthfulness, which sums over the whole range)
    sample = None if "truthfulness" in proved or isinstance(quality, LogLikelihood) else (_named_outputs(claims), str(predicate.get("quality", {}).get("sha256", "")))
    model = _build(quality, mechanism, add_remove, max_evaluations, what, sample)
    work = model.evaluations
    if "truthfulness" in proved:
        work += truthfulness_work(claims["truthfulness"], len(model.outputs))
        if work > max_evaluations:
            raise SmallModelBudget(
                f"the small-model check of {what} needs {work} evaluations, more than max_small_model_evaluations={max_evaluations} "
                "(to admit it: CertificateLimits(max_small_model_evaluations=…), expmech check --limit max_small_model_evaluations=…)",
                parameter="max_small_model_evaluations", value=work,
            )
    if isinstance(quality, LogLikelihood):
        if "sensitivity" in proved:
            _ratio(quality, model, claims["sensitivity"], add_remove)
    else:
        table = _table(quality, model)
        if "sensitivity" in proved:
            _sensitivity(quality, model, table, claims["sensitivity"], start)
        if "monotonicity" in proved:
            _monotone(quality, model, table, claims["monotonicity"], start)
        if "normaliser" in proved:
            _normaliser(quality, model, table, claims["normaliser"], mechanism, start)
        if "truthfulness" in proved:
            _truthfulness(quality, model, claims["truthfulness"], mechanism)
    scope = SAMPLED if model.range_outputs else "every output"
    return SmallModelReport(proved, len(model.records), model.level, len(model.keys), len(model.outputs), len(model.pairs), work, model.range_outputs, scope)
