"""Range sensitivity Δ̂ as a proof: the spread of the change of q across outputs.

``Δ̂ = sup over neighbours D, D′ of max_y d(y) − min_y d(y)``, ``d(y) = q(D, y) − q(D′, y)``.
The exponential mechanism with weight ``e^{ε₀ q}`` is ``ε₀·Δ̂``-bounded-range
(Durfee–Rogers 2019), which is what :mod:`expmech.proofs.accounting` composes.

Two proof routes, the smaller proved bound wins:

1. **Direct** (where n and the aggregates enter q linearly, as for the joint
   encoding of :mod:`._joint`): one z3 query over two outputs ``y₁, y₂``
   sharing the changed records and a size ``n >= start``; each aggregate's
   contribution of the other records is a variable per output bounded by the
   necessary conditions of :mod:`._joint`.  ``d(y₁) − d(y₂) > B`` unsat proves
   ``Δ̂ <= B`` for every n (n = 0 included under add-remove where q is defined
   on the empty dataset).  z3 Optimize only guesses B.
2. **Through Δq** (always sound): ``|d(y)| <= Δq`` gives ``Δ̂ <= 2Δq``, and a
   monotone q (every d(y) of one sign) gives ``Δ̂ <= Δq``; Δq and monotonicity
   proved by :func:`prove_sensitivity` and :func:`prove_monotone`.

Tightness and refutation come from concrete neighbouring pairs (the direct
model's records on datasets of its size, and an exhaustive search over small
datasets), each re-evaluated exactly through the quality function's public call.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from expmech.spec import Count, InvalidArgument, InvalidType, Neighbours, QualityError, QualityFunction, Size, Total
from expmech.spec.internal import describe, expression_to_json, readable
from expmech.spec.internal import nonnegative_rational

from .._outcome import Status
from ._text import term_text
from ..smallmodel import InternalInconsistency
from ._claims import at_least, value_at
from ._encoding import Codes, codes_from_model, domain_constraint, interesting_codes, variables
from ._joint import applies
from ._monotone import prove_monotone
from ._partial import analyse_definedness
from ._rules import Prover, Unknown
from ._search import all_records, count_multisets, decode_output, decode_record, neighbour_index_pairs, record_space_size, score_table
from ._sensitivity import _joint_ranges, prove_sensitivity
from ._z3bridge import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Query, Translator, check, fresh_context, int_var, maximise, q, real_var, z3_version

__all__ = ["RangeSensitivityResult", "RangeWitness", "prove_range_sensitivity", "range_sensitivity_given"]

#: How the reason of a result contradicted by a concrete pair begins (the certificate's net raises on it).
INCONSISTENT = "internal inconsistency"

#: Records and outputs the concrete search uses at most.
SEARCH_RECORDS = 64
SEARCH_OUTPUTS = 256
SEARCH_BUDGET = 400_000


@dataclass(frozen=True)
class RangeWitness:
    """Neighbouring datasets and two outputs with ``d(y_high) − d(y_low) = spread``, evaluated exactly.

    ``claimed`` is set on a counterexample (the bound the spread exceeds).
    """

    dataset1: tuple[Any, ...]
    dataset2: tuple[Any, ...]
    output_high: Hashable
    output_low: Hashable
    spread: Fraction
    size: int
    claimed: Fraction | None = None

    def __str__(self) -> str:
        return (
            f"d(y) = q(D, y) − q(D', y): d({readable(self.output_high)}) − d({readable(self.output_low)}) = "
            f"{readable(self.spread)} at D = {readable(list(self.dataset1))}, D' = {readable(list(self.dataset2))}"
        )


@dataclass(frozen=True)
class RangeSensitivityResult:
    """The outcome of :func:`prove_range_sensitivity`.

    ``bound`` is the proved Δ̂ (a rational) or None; ``rule`` how it was proved
    (``"direct"``, ``"2·Δq"``, ``"Δq, monotone"``); ``tight`` says ``witness``
    attains it; ``counterexample`` refutes ``claimed``; ``queries`` every z3
    query the proof relies on (those of the Δq proof included).  ``derivation``
    (PROVED only, else None) is the proof of :attr:`proved_bound` as JSON data
    for the kernel's claim ``"range-sensitivity"``: one root node of rule
    ``range-direct`` (with the totals' per-record ``ranges``), ``range-double``
    or ``range-monotone`` (whose premises are the root nodes of the Δq and
    monotonicity derivations).
    """

    status: Status
    neighbours: Neighbours
    bound: Fraction | None
    claimed: Fraction | None
    tight: bool
    witness: RangeWitness | None
    counterexample: RangeWitness | None
    reason: str
    rule: str
    queries: tuple[Query, ...] = ()
    hypotheses: tuple[str, ...] = ()
    solver: str = field(default_factory=lambda: f"z3 {z3_version()}")
    derivation: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def proved_bound(self) -> Fraction | None:
        """The Δ̂ a bounded-range claim may use: the claim when PROVED against it, else the proved bound; None otherwise."""
        if self.status is not Status.PROVED:
            return None
        return self.claimed if self.claimed is not None else self.bound

    def __str__(self) -> str:
        text = f"range sensitivity: {self.status.name} — {self.reason}"
        if self.witness is not None:
            text += f"\n  witness: {self.witness}"
        if self.counterexample is not None:
            text += f"\n  counterexample: {self.counterexample}"
        return text


#: The share of a query's rlimit the direct query's check of the search's guess may spend (1/20).
GUESS_SHARE = 20


def _direct(prover: Prover, expr: sympy.Expr, start: int) -> tuple[Fraction | None, dict[str, Any] | None, list[Query], str]:
    """The direct two-output query: a proved bound, a model attaining it, the queries; or None and why.

    ``prover.range_guess``, when set, is the largest spread of a concrete pair of neighbouring datasets (exact): every such
    pair is a point of this query's relaxation, so its maximum is at least ``guess``, and if ``d(y₁) − d(y₂) >
    guess`` is unsat the maximum is ``guess`` itself — the value z3 Optimize would return, proved by the same plain
    check, without Optimize (slow on huge domains).  Otherwise Optimize guesses as before.
    """
    quality = prover.quality
    replace = prover.neighbours is Neighbours.REPLACE_ONE
    aggregates = sorted(expr.atoms(Count, Total), key=sympy.default_sort_key)
    size = int_var("n")
    second_out = variables("out2_", quality.output_space)
    constraints = [size >= start] + prover.output_domain + prover.record_domain["a"] + prover.record_domain["b"]
    constraints += [domain_constraint(second_out[sym], d) for _, sym, d in quality.output_space.items()]
    changes = []
    for tag, outputs in (("1", prover.output_vars), ("2", second_out)):
        before: dict[sympy.Basic, Any] = {}
        after: dict[sympy.Basic, Any] = {}
        on_a = Translator({**prover.records["a"], **outputs})
        on_b = Translator({**prover.records["b"], **outputs})
        for index, node in enumerate(aggregates):
            body = node.args[0]
            term = sympy.Piecewise((sympy.Integer(1), body), (sympy.Integer(0), True)) if isinstance(node, Count) else body
            others = size - 1 if replace else size
            if isinstance(node, Count):
                rest = int_var(f"rest{tag}_{index}")
                constraints += [rest <= others, rest >= 0]
            else:
                ranges = prover.term_range(term, sympy.Integer(0), f"total({body})")
                if ranges is None:
                    return None, None, [], f"the per-record term of total({body}) is unbounded"
                high, low = ranges
                rest = real_var(f"rest{tag}_{index}")
                constraints += [rest <= others * q(high.value), rest >= -(others * q(low.value))]
            a, b = on_a.number(term), on_b.number(term)
            if replace:
                before[node], after[node] = a + rest, b + rest
            else:
                before[node], after[node] = rest, rest + a
        before[Size()] = size
        after[Size()] = size if replace else size + 1
        changes.append(Translator({**before, **outputs}).number(expr) - Translator({**after, **outputs}).number(expr))
    objective = changes[0] - changes[1]
    above = None
    value: Fraction | None = None
    guess = prover.range_guess
    if guess is not None:
        # a right guess is proved in a few thousand units; a wrong one is not worth the full budget
        above = check(constraints + [objective > q(guess)], rlimit=max(prover.rlimit // GUESS_SHARE, 1), timeout_ms=prover.timeout_ms)
        if above.status == "unsat":
            value = guess
        else:
            # z3 answers by its history: a failed check can leave Optimize slow in the same context, so the
            # query is built again, without a guess, in a fresh one
            with fresh_context():
                again = Prover(prover.quality, prover.neighbours, prover.rlimit, prover.timeout_ms)
                found = _direct(again, expr, start)
            prover.queries.extend(again.queries)
            return found
    if value is None:
        kind, value = maximise(objective, constraints, rlimit=prover.rlimit, timeout_ms=prover.timeout_ms)
        if kind in ("unknown", "unbounded") or value is None:
            return None, None, [], f"z3 Optimize gave no bound ({kind})"
        above = check(constraints + [objective > q(value)], rlimit=prover.rlimit, timeout_ms=prover.timeout_ms)
    assert above is not None
    if above.status != "unsat":
        return None, None, [], f"z3 did not prove d(y₁) − d(y₂) <= {value} ({above.status} {above.reason})"
    queries = [Query(f"d(y1) - d(y2) between neighbours > {value}", "unsat", above)]
    attained = check(constraints + [objective >= q(value)], rlimit=prover.rlimit, timeout_ms=prover.timeout_ms)
    model = attained.model if attained.status == "sat" else None
    if model is not None:
        queries.append(Query(f"d(y1) - d(y2) between neighbours >= {value}", "sat", attained))
    return value, model, queries, ""


class _Pairs:
    """Concrete pairs seen: the largest spread, and the first above the claim."""

    def __init__(self, claim: Fraction | None) -> None:
        self.claim = claim
        self.best: RangeWitness | None = None
        self.counterexample: RangeWitness | None = None

    def offer(self, witness: RangeWitness) -> None:
        if self.best is None or (witness.spread, -witness.size) > (self.best.spread, -self.best.size):
            self.best = witness
        if self.counterexample is None and self.claim is not None and witness.spread > self.claim:
            self.counterexample = RangeWitness(**{**witness.__dict__, "claimed": self.claim})


class _Offered:
    """The pairs a search offers, kept in order to be offered to a :class:`_Pairs` later."""

    def __init__(self, claim: Fraction | None) -> None:
        self.claim = claim
        self.witnesses: list[RangeWitness] = []

    def offer(self, witness: RangeWitness) -> None:
        self.witnesses.append(witness)


def _witness(quality: QualityFunction, first: Sequence[Codes], second: Sequence[Codes], outputs: Sequence[Codes], change: Any = None) -> RangeWitness:
    """The spread of d over ``outputs`` on one pair, re-evaluated exactly through the public call.

    ``change``, when given, is d at every output from the exact score table (integers over one denominator): then
    only its first largest and first smallest outputs are re-evaluated, and the spread is theirs (two outputs, not
    every one: the same pair and outputs as evaluating all, and exact either way).
    """
    if change is not None and len(outputs) > 2:
        outputs = [outputs[int(change.argmax())], outputs[int(change.argmin())]]
    d1 = tuple(decode_record(quality, c) for c in first)
    d2 = tuple(decode_record(quality, c) for c in second)
    changes = []
    for codes in outputs:
        r = decode_output(quality, codes)
        changes.append((Fraction(quality(list(d1), r)) - Fraction(quality(list(d2), r)), r))
    high = max(changes, key=lambda c: c[0])
    low = min(changes, key=lambda c: c[0])
    return RangeWitness(d1, d2, high[1], low[1], high[0] - low[0], len(d1))


def _from_model(prover: Prover, model: dict[str, Any], start: int, pairs: _Pairs) -> None:
    """The direct model's records on datasets of its size (filled with either record), at its two outputs."""
    quality = prover.quality
    size = model.get("n")
    a = codes_from_model(model, "a_", quality.schema)
    b = codes_from_model(model, "b_", quality.schema)
    y1 = codes_from_model(model, "out_", quality.output_space)
    y2 = codes_from_model(model, "out2_", quality.output_space)
    if not isinstance(size, int) or size < start or size > 64 or None in (a, b, y1, y2):
        return
    assert a is not None and b is not None and y1 is not None and y2 is not None
    replace = prover.neighbours is Neighbours.REPLACE_ONE
    for filler in (a, b):
        others = [filler] * (size - 1 if replace else size)
        first = [a] + others if replace else others
        second = [b] + others if replace else others + [a]
        try:
            pairs.offer(_witness(quality, first, second, [y1, y2]))
        except (QualityError, ZeroDivisionError):
            continue


def _search(quality: QualityFunction, relation: Neighbours, start: int, pairs: _Pairs | _Offered, seeds: Sequence[Codes]) -> str:
    """Every neighbouring pair of small datasets over a small record set, at every output searched."""
    space = record_space_size(quality)
    if space is not None and space <= SEARCH_RECORDS:
        records = all_records(quality)
    else:
        symbols = [sym for _, sym, _ in quality.schema.items()]
        per_field = [interesting_codes(domain, [s[sym] for s in seeds if sym in s], limit=4) for _, sym, domain in quality.schema.items()]
        records = [dict(zip(symbols, combo)) for combo in itertools.islice(itertools.product(*per_field), SEARCH_RECORDS)]
    outputs: list[Codes]
    if quality.output_space.is_finite and (quality.output_space.size or 0) <= SEARCH_OUTPUTS:
        outputs = [quality.output_space.encode(r) for r in quality.outputs()]
    else:
        symbols = [sym for _, sym, _ in quality.output_space.items()]
        per_var = [interesting_codes(domain, limit=8) for _, sym, domain in quality.output_space.items()]
        outputs = [dict(zip(symbols, combo)) for combo in itertools.islice(itertools.product(*per_var), SEARCH_OUTPUTS)]
    extra = 1 if relation is Neighbours.ADD_REMOVE else 0
    sizes, used = [], 0
    for size in range(max(start, 0 if extra else 1), 4):
        cost = count_multisets(len(records), size + extra) * len(outputs) * max(1, len(records))
        if used + cost > SEARCH_BUDGET:
            break
        used += cost
        sizes.append(size)
    if not sizes:
        return "no concrete pair searched (budget)"
    needed: list[tuple[int, ...]] = []
    for size in sizes:
        needed += list(itertools.combinations_with_replacement(range(len(records)), size))
        if extra:
            needed += list(itertools.combinations_with_replacement(range(len(records)), size + 1))
    try:
        table = score_table(quality, records, outputs, needed)
    except QualityError as error:
        return f"the search could not evaluate q: {error}"
    for size in sizes:
        chosen = _widest_pair(table, list(neighbour_index_pairs(len(records), relation, size)), pairs.claim)
        if chosen is not None:
            change = table.values[table.rows[chosen[0]]] - table.values[table.rows[chosen[1]]]
            pairs.offer(_witness(quality, [records[i] for i in chosen[0]], [records[i] for i in chosen[1]], outputs, change))
    return ""


#: Neighbouring pairs whose score differences are formed at once (pairs × outputs entries, about 8 MB of int64).
_PAIR_BLOCK = 1 << 20


def _widest_pair(table: Any, pairs: list[tuple[tuple[int, ...], tuple[int, ...]]], claim: Fraction | None) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The first pair whose spread ``max_y d(y) − min_y d(y)`` exceeds ``claim`` (in the order given), else the first of
    the widest; None for no pair.  The differences of exact integer rows, a block of pairs at a time."""
    if not pairs:
        return None
    values, rows = table.values, table.rows
    if values.dtype == object:  # integers past int64: one pair at a time, exactly
        best, chosen = None, None
        for first, second in pairs:
            d = values[rows[first]] - values[rows[second]]
            spread = d.max() - d.min()
            if best is None or spread > best:
                best, chosen = spread, (first, second)
            if claim is not None and Fraction(int(spread), table.denominator) > claim:
                return first, second
        return chosen
    firsts = np.fromiter((rows[first] for first, _ in pairs), dtype=np.int64, count=len(pairs))
    seconds = np.fromiter((rows[second] for _, second in pairs), dtype=np.int64, count=len(pairs))
    block = max(1, _PAIR_BLOCK // max(values.shape[1], 1))
    # an integer spread s has s / denominator > claim  iff  s > ⌊claim·denominator⌋
    threshold = None if claim is None else (claim.numerator * table.denominator) // claim.denominator
    best_value, best_index = None, 0
    for start in range(0, len(pairs), block):
        d = values[firsts[start : start + block]] - values[seconds[start : start + block]]
        spreads = d.max(axis=1) - d.min(axis=1)
        if threshold is not None and threshold < (1 << 62):
            over = np.flatnonzero(spreads > threshold)
            if over.size:
                return pairs[start + int(over[0])]
        index = int(spreads.argmax())
        if best_value is None or spreads[index] > best_value:
            best_value, best_index = spreads[index], start + index
    return pairs[best_index]


def _supremum(bound: sympy.Expr, start: int) -> Fraction | None:
    """A rational at least ``bound(n)`` for every integer ``n >= start``, proved; None if none was shown.

    The candidate is the largest value at the first sizes; ``at_least`` decides it for every n.
    """
    if bound is sympy.oo:
        return None
    if not bound.free_symbols:
        value = value_at(bound, start)
        return value
    values = [v for v in (value_at(bound, size) for size in range(start, start + 8)) if v is not None]
    if not values:
        return None
    candidate = max(values)
    if at_least(sympy.Rational(candidate.numerator, candidate.denominator), bound, start=start).holds:
        return candidate
    return None


def prove_range_sensitivity(
    quality: QualityFunction,
    *,
    neighbours: Any,
    claimed: Any = None,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> RangeSensitivityResult:
    """Prove, or refute, the range sensitivity Δ̂ of ``quality`` under ``neighbours``.

    ``Δ̂ = sup_{D ~ D′} (max_y d(y) − min_y d(y))`` with ``d(y) = q(D, y) − q(D′, y)``,
    over every dataset size (n = 0 included under add-remove where q is defined
    on it).  ``claimed`` is ``None`` or a rational >= 0.  Returns a frozen
    :class:`RangeSensitivityResult`:

    * PROVED — a rational bound holds for every n, by the direct two-output z3
      query or through Δq (``2·Δq``, or ``Δq`` for a monotone q; ``rule`` says
      which), and ``claimed`` (if given) is at least it; ``tight`` when a
      concrete pair (``witness``, re-evaluated exactly) attains it;
    * REFUTED — a concrete neighbouring pair and two outputs exceed ``claimed``;
    * UNKNOWN — no route proved a rational bound (a Δq in n, a solver
      inconclusive), or the proved bound exceeds the claim and no pair does.

    Raises :class:`~expmech.spec.InvalidType` for a black-box quality and
    :class:`~expmech.spec.InvalidArgument` for a bad claim or neighbour relation, and
    :class:`~expmech.proofs.smallmodel.InternalInconsistency` (a prover bug, exit 4)
    where a concrete pair, re-evaluated exactly, exceeds a bound a route proved.
    """
    if not isinstance(quality, QualityFunction):
        raise InvalidType(f"quality={describe(quality)} must be an expmech.spec.QualityFunction", parameter="quality", value=quality)
    relation = Neighbours.parse(neighbours)
    claim = None if claimed is None else nonnegative_rational(claimed, name="claimed")
    for name, value in (("rlimit", rlimit), ("timeout_ms", timeout_ms)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)
    with fresh_context():
        return _prove(quality, relation, claim, rlimit, timeout_ms)


def _prove(
    quality: QualityFunction, relation: Neighbours, claim: Fraction | None, rlimit: int, timeout_ms: int, given: tuple[Any, Any] | None = None
) -> RangeSensitivityResult:
    add_remove = relation is Neighbours.ADD_REMOVE
    prover = Prover(quality, relation, rlimit, timeout_ms)
    defined = analyse_definedness(quality, add_remove=add_remove, rlimit=rlimit, timeout_ms=timeout_ms)
    start = 0 if add_remove and defined.empty else 1
    hypotheses = ("n >= 1 (q is undefined on the empty dataset)",) if add_remove and not defined.empty else ()
    pairs = _Pairs(claim)
    notes: list[str] = []
    candidates: list[tuple[Fraction, str, list[Query], dict[str, Any] | None]] = []
    # the concrete search runs first (no solver), its pairs offered later in their usual place: its widest spread
    # is the direct query's first guess
    searched = _Offered(claim)
    search_note = _search(quality, relation, start, searched, prover.record_seeds)
    prover.range_guess = max((w.spread for w in searched.witnesses), default=None)

    if defined.total and applies(quality.expr):
        try:
            value, model, queries, why = _direct(prover, quality.expr, start)
        except (Unknown, InvalidArgument) as error:
            value, model, queries, why = None, None, [], str(error)
        if value is not None:
            direct_root = _root("range-direct", quality, start, [], {"ranges": _joint_ranges(prover, quality.expr)})
            candidates.append((value, "direct", list(defined.queries) + list(prover.queries) + queries, direct_root))
            if model is not None:
                _from_model(prover, model, start, pairs)
        else:
            notes.append(f"direct: {why}")
    elif not defined.total:
        notes.append(defined.doubt)
    else:
        notes.append("direct: n or the aggregates enter q non-linearly")

    best_direct = min((c[0] for c in candidates), default=None)
    if best_direct is None or not (pairs.best is not None and pairs.best.spread >= best_direct):
        sens = prove_sensitivity(quality, neighbours=relation) if given is None else given[0]
        delta_q = sens.proved_bound
        dq = None if delta_q is None else _supremum(delta_q, 1 if sens.hypotheses else start)
        if dq is not None:
            mono = prove_monotone(quality, neighbours=relation) if given is None else given[1]
            premises = [None if sens.derivation is None else sens.derivation["root"]]
            if mono.status is Status.PROVED:
                premises.append(None if mono.derivation is None else mono.derivation["root"])
                candidates.append((dq, "Δq, monotone", list(sens.queries) + list(mono.queries), _root("range-monotone", quality, start, premises)))
            else:
                candidates.append((2 * dq, "2·Δq", list(sens.queries), _root("range-double", quality, start, premises)))
        elif delta_q is not None:
            notes.append(f"through Δq: no rational supremum over n of the proved Δq = {delta_q} was shown")
        else:
            notes.append(f"through Δq: Δq not proved ({sens.status.name}: {sens.reason})")

    for found in searched.witnesses:
        pairs.offer(found)
    notes.append(search_note)
    notes = [n for n in notes if n]

    def result(status: Status, reason: str, bound: Fraction | None, rule: str, queries: Sequence[Query], **extra: Any) -> RangeSensitivityResult:
        return RangeSensitivityResult(
            status, relation, bound, claim, extra.get("tight", False), extra.get("witness"), extra.get("counterexample"),
            reason, rule, tuple(queries), hypotheses, derivation=extra.get("derivation"),
        )

    if pairs.counterexample is not None:
        c = pairs.counterexample
        return result(Status.REFUTED, f"neighbouring datasets of size {c.size} have a spread {readable(c.spread)} > claimed {readable(claim)}",
                      None, "search", (), counterexample=c)
    if not candidates:
        return result(Status.UNKNOWN, "; ".join(notes) or "no proof", None, "none", (), witness=pairs.best)
    bound, rule, queries, root = min(candidates, key=lambda c: c[0])
    if pairs.best is not None and pairs.best.spread > bound:
        # A concrete pair, re-evaluated exactly, contradicts a proved bound: a prover bug, never a proof.
        message = (f"{INCONSISTENT}: a pair's spread {readable(pairs.best.spread)} exceeds the proved range sensitivity "
                   f"{readable(bound)} ({rule}): {pairs.best} (n = {pairs.best.size})")
        if given is None:
            raise InternalInconsistency(message, claim="range sensitivity", pair=(list(pairs.best.dataset1), list(pairs.best.dataset2),
                                        (pairs.best.output_high, pairs.best.output_low)), gap=pairs.best.spread, bound=bound, size=pairs.best.size)
        # Inside a certificate: nothing is claimed, and the net (the small-model check, which names the claim it
        # contradicts) raises InternalInconsistency on this reason — see expmech.proofs.certificate.check._smallmodel.
        return result(Status.UNKNOWN, message, None, rule, (), witness=pairs.best)
    witness = pairs.best if pairs.best is not None and pairs.best.spread == bound else None
    scope = f" (hypothesis: {hypotheses[0]})" if hypotheses else ""
    every = "every n >= 0" if start == 0 else "every n >= 1"
    if claim is not None and claim < bound:
        return result(Status.UNKNOWN, f"the proved bound {bound} ({rule}) exceeds the claim {claim} and no pair found exceeds the claim",
                      bound, rule, queries, witness=pairs.best)
    note = "tight: a witness attains it" if witness is not None else (
        f"not shown tight: the largest spread found is {pairs.best.spread}" if pairs.best is not None else "not shown tight")
    return result(Status.PROVED, f"Δ̂ <= {bound} by {rule} for {every} ({note}){scope}", bound, rule, queries,
                  tight=witness is not None, witness=witness or pairs.best, derivation=_envelope(relation, start, root, claim if claim is not None else bound))


def _root(rule: str, quality: QualityFunction, start: int, premises: list[Any], data: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The root of a range-sensitivity derivation (its bound is set by :func:`_envelope`); None if a premise is missing."""
    if None in premises:
        return None
    return {"id": "range", "term": [], "text": term_text(quality.expr), "case": {"from": start}, "rule": rule, "bound": None, "data": data or {}, "premises": premises}


def _envelope(relation: Neighbours, start: int, root: dict[str, Any] | None, bound: Fraction) -> dict[str, Any] | None:
    """The derivation of claim ``range-sensitivity`` proving ``bound`` (None when a route left no derivation)."""
    if root is None:
        return None
    value = expression_to_json(sympy.Rational(bound.numerator, bound.denominator))
    return {"format": 1, "claim": "range-sensitivity", "relation": relation.value, "start": start, "bound": value, "root": {**root, "bound": value}}


def range_sensitivity_given(
    quality: QualityFunction,
    *,
    neighbours: Neighbours,
    sensitivity: Any,
    monotone: Any,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> RangeSensitivityResult:
    """:func:`prove_range_sensitivity` with Δq and monotonicity already proved (a certificate's own results).

    ``sensitivity`` and ``monotone`` are the :class:`SensitivityResult` and
    :class:`MonotonicityResult` of the same quality and relation; the rule
    through Δq uses them instead of proving them again.
    """
    with fresh_context():
        return _prove(quality, neighbours, None, rlimit, timeout_ms, given=(sensitivity, monotone))
