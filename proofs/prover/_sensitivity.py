"""Sensitivity Δq as a proof: per-record bounds proved with z3, lifted to every dataset size.

For a quality function ``q`` of the spec language and a neighbour relation,
:func:`prove_sensitivity` bounds ``Δq = sup |q(D, r) − q(D', r)|`` over
neighbouring ``D, D'`` of every size ``n`` and every output ``r``.  Under
add-remove the empty dataset is a neighbour like any other wherever q is
defined on it; where it is not (a ``mean``, a division by ``size()``), the
result states ``n >= 1`` as a hypothesis of its claim.

1. **Definedness** (:mod:`._partial`): a division that can see a zero on some
   dataset and output is a :class:`~expmech.spec.QualityError` naming it.
2. **Rules** (:mod:`._rules`): per-record bounds certified by z3 and lifted
   by sound rules, per output for linear forms (so ``mean(x − r)`` under
   add-remove gets ``2/(n+1)``).
3. **The joint encoding** (:mod:`._joint`) where n enters linearly: all
   aggregates in one query, tightened through concrete pairs built from its
   models.
4. **Witnesses and counterexamples**: a vectorised exact search over records
   and outputs taken from the solver's models and the domains' edges, then
   the exact encoding of q on datasets of a given size (:mod:`._bounded`) —
   at small sizes, where the claim and the bound cross, and where the joint
   model points.  Every witness and counterexample is re-evaluated with the
   quality function's exact interpreter from its user-facing form.
5. ``claim >= bound`` for every n is decided by z3 over an integer n (or an
   exact case analysis), with sympy only as a shortcut (:mod:`._claims`).

Where no rule applies the result is at best BOUNDED: an exhaustive exact check
over every dataset up to a stated size.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import sympy

from expmech.spec import DATASET_SIZE, LARGEST_LISTED, InvalidArgument, InvalidType, Multiset, Neighbours, QualityError, QualityFunction, Total, rational_text
from expmech.spec.internal import WeightedRecords, describe, readable

from .._display import sensitivity_text, witness_text
from .._outcome import Status
from ._bounded import ConcretePair, search_sizes
from ._claims import Comparison, at_least, parse_claim, value_at
from ._derivation import Step, derivation_json, weakened
from ._encoding import Codes, interesting_codes
from ._joint import applies, tighten
from ._partial import analyse_definedness
from ._rules import NoRule, Prover, Unknown, rational
from ._symbolic import symbolic_pair
from ._search import SearchSummary, all_records, count_multisets, decode_output, decode_record, record_space_size, search_pairs
from ._z3bridge import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Query, fresh_context, z3_version
from .._traced import traced_quality

__all__ = ["SensitivityResult", "Witness", "prove_sensitivity"]

n = DATASET_SIZE
#: Records and outputs tried by the quick search that follows the solver's models.
QUICK_RECORDS = 6
QUICK_OUTPUTS = 12
#: Larger sizes the exact encoding tries when looking for a counterexample without a crossing point.
GROWTH_SIZES = (5, 6, 8, 12, 16, 24, 32, 64)
#: The budget of one query looking for a witness of a proved bound (a witness only shows tightness).
WITNESS_RLIMIT = 200_000
#: Record spaces up to this size are searched exhaustively for a BOUNDED answer.
EXHAUSTIVE_RECORDS = 64

# kept importable under their old names (the falsifiers parse claims the same way)
_parse_claim = parse_claim


@dataclass(frozen=True)
class Witness:
    """Two concrete neighbouring datasets, an output, and the exact ``|q(D1, r) − q(D2, r)|``.

    A counterexample also holds the ``claimed`` bound it exceeds.  ``quantity``
    words what ``difference`` measures.  A pair too large to list (a claim that
    fails only past a size limit such as 2⁶²) holds each dataset as a
    :class:`~expmech.spec.Multiset` — records with their counts — which the
    quality evaluates directly: ``quality(w.dataset1, w.output)``.  ``str()`` gives the mathematical form,
    ``|q(D, r) − q(D', r)| = 1 > 1/2 at D = [0, 0], D' = [0, 1], r = 0``.
    """

    dataset1: tuple[Any, ...] | Multiset
    dataset2: tuple[Any, ...] | Multiset
    output: Hashable
    difference: Fraction
    size: int
    claimed: Any = None
    quantity: str = "|q(D, r) − q(D', r)| = {value}"

    def __str__(self) -> str:
        return witness_text(self)

    def __repr__(self) -> str:
        return f"<Witness {witness_text(self)}>"


@dataclass(frozen=True)
class SensitivityResult:
    """The outcome of :func:`prove_sensitivity`.

    ``bound`` is the proved Δq (a sympy rational, an expression in ``n``, or
    ``None``); ``tight`` says a witness attains it; ``counterexample`` refutes
    ``claimed``.  ``queries`` are every solver query the result relies on, with
    their SMT-LIB2 text.  ``bounded_size`` is the dataset size up to which a
    BOUNDED result was checked exhaustively.  ``hypotheses`` are conditions
    the claim is stated under (``"n >= 1"`` when q is undefined on the empty
    dataset, under add-remove).  ``derivation`` (PROVED only, else None) is how
    the bound was reached, as JSON data that :func:`expmech.proofs.check_derivation`
    checks; its bound is the claim when one is given and proved (a ``weaken``
    at the root), else ``bound``.  ``tight_at`` lists the dataset sizes ``n`` at
    which a witness seen attains the bound's value at that ``n`` exactly (for a
    bound in ``n`` such as ``Max(2, 11/((n + 1)(n + 2)))``: which of its cases
    are shown attained); ``tight`` says that list is not empty.  ``trace`` is the
    :class:`~expmech.spec.TraceRecord` of a quality traced from Python (the
    result is about the traced expression), else None.
    """

    status: Status
    neighbours: Neighbours
    bound: sympy.Expr | None
    claimed: sympy.Expr | None
    tight: bool
    witness: Witness | None
    counterexample: Witness | None
    reason: str
    method: str
    queries: tuple[Query, ...] = ()
    bounded_size: int | None = None
    solver: str = field(default_factory=lambda: f"z3 {z3_version()}")
    hypotheses: tuple[str, ...] = ()
    tight_at: tuple[int, ...] = ()
    derivation: dict[str, Any] | None = None
    trace: Any = field(default=None, compare=False)

    def __str__(self) -> str:
        return sensitivity_text(self)

    def __repr__(self) -> str:
        return f"<SensitivityResult {sensitivity_text(self).splitlines()[0]}; {len(self.queries)} solver queries>"

    @property
    def proved_bound(self) -> sympy.Expr | None:
        """The Δq an ε-DP claim may use: the claim when PROVED against it, else the proved bound; None otherwise."""
        if self.status is not Status.PROVED:
            return None
        return self.claimed if self.claimed is not None else self.bound


def _aligned(first: Sequence[Codes], second: Sequence[Codes]) -> tuple[list[Codes], list[Codes]]:
    """The pair with its common records in one order: the changed record first (replace-one) or the added one last."""
    rest = list(second)
    only_first: list[Codes] = []
    common: list[Codes] = []
    for codes in first:
        if codes in rest:
            rest.remove(codes)
            common.append(codes)
        else:
            only_first.append(codes)
    if only_first:
        return only_first + common, rest + common
    return common, common + rest


def _user_witness(quality: QualityFunction, first: Any, second: Any, output: Codes) -> Witness:
    """A witness in user-facing form, re-evaluated exactly through the public call (datasets by counts as a Multiset)."""
    if type(first) is WeightedRecords or type(second) is WeightedRecords:
        m1, m2 = (Multiset([(decode_record(quality, codes), count) for codes, count in data.pairs]) for data in (first, second))
        r = decode_output(quality, output)
        return Witness(m1, m2, r, abs(quality(m1, r) - quality(m2, r)), m1.size)
    first, second = _aligned(first, second)
    d1 = tuple(decode_record(quality, codes) for codes in first)
    d2 = tuple(decode_record(quality, codes) for codes in second)
    r = decode_output(quality, output)
    exact = abs(quality(list(d1), r) - quality(list(d2), r))
    return Witness(d1, d2, r, exact, len(d1))


def _from_search(quality: QualityFunction, summary: SearchSummary, size: int) -> Witness:
    pair = summary.best[size]
    witness = _user_witness(
        quality, [summary.records[i] for i in pair.first], [summary.records[i] for i in pair.second], summary.outputs[pair.output]
    )
    if witness.difference != pair.difference:
        raise RuntimeError(f"internal error: a witness re-evaluates to {witness.difference}, not {pair.difference}")
    return witness


def _from_pair(quality: QualityFunction, pair: ConcretePair) -> Witness:
    witness = _user_witness(quality, pair.first, pair.second, pair.output)
    if witness.difference != pair.difference:
        raise RuntimeError(f"internal error: a pair re-evaluates to {witness.difference}, not {pair.difference}")
    return witness


def _quick_records(prover: Prover) -> list[Codes]:
    """Records worth trying: the solver's, then combinations of each field's edges."""
    quality = prover.quality
    found: list[Codes] = [codes for codes in prover.record_seeds[:QUICK_RECORDS]]
    symbols = [sym for _, sym, _ in quality.schema.items()]
    constants = _constants(quality)
    per_field = [
        interesting_codes(domain, [seed[sym] for seed in prover.record_seeds], limit=3, constants=constants) for _, sym, domain in quality.schema.items()
    ]
    for combo in itertools.product(*per_field):
        if len(found) >= QUICK_RECORDS:
            break
        codes = dict(zip(symbols, combo))
        if codes not in found:
            found.append(codes)
    return found


def _quick_outputs(prover: Prover, restricted: Sequence[Codes] | None) -> list[Codes]:
    """Outputs worth trying: the solver's, their neighbours and each variable's edges (within ``restricted`` if given)."""
    quality = prover.quality
    space = quality.output_space
    if restricted is not None and len(restricted) <= QUICK_OUTPUTS:
        return list(restricted)
    if restricted is None and space.size is not None and space.size <= QUICK_OUTPUTS:
        return [space.encode(r) for r in quality.outputs()]
    symbols = [sym for _, sym, _ in space.items()]
    constants = _constants(quality)
    per_variable = [
        interesting_codes(domain, [seed[sym] for seed in prover.output_seeds], limit=6, constants=constants) for _, sym, domain in space.items()
    ]
    found: list[Codes] = [seed for seed in prover.output_seeds if restricted is None or seed in restricted][:QUICK_OUTPUTS]
    for combo in itertools.product(*per_variable):
        if len(found) >= QUICK_OUTPUTS:
            break
        codes = dict(zip(symbols, combo))
        if codes not in found and (restricted is None or codes in restricted):
            found.append(codes)
    if restricted is not None:
        step = max(1, len(restricted) // 4)
        for codes in restricted[::step]:
            if len(found) >= QUICK_OUTPUTS:
                break
            if codes not in found:
                found.append(codes)
    return found


def _constants(quality: QualityFunction) -> list[Fraction]:
    """The rational constants of the expression, in a fixed order: values near them are worth trying in a large domain."""
    found = {Fraction(int(atom.p), int(atom.q)) for atom in quality.expr.atoms(sympy.Rational)}
    return sorted(found)


def _bound_text(bound: sympy.Expr | None) -> str:
    return "unbounded" if bound is sympy.oo else str(bound)


def _validate_options(**options: Any) -> None:
    for name, value in options.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)


class _Run:
    """One prove_sensitivity call's evidence as it accumulates."""

    def __init__(self, quality: QualityFunction, relation: Neighbours, claim: sympy.Expr | None, prover: Prover) -> None:
        self.quality = quality
        self.relation = relation
        self.claim = claim
        self.prover = prover
        self.best: dict[int, Witness] = {}  # largest exact change seen per size
        self.counterexample: Witness | None = None

    def offer(self, witness: Witness) -> None:
        """Keep a concretely evaluated pair: the largest per size, and the first that exceeds the claim."""
        current = self.best.get(witness.size)
        if current is None or witness.difference > current.difference:
            self.best[witness.size] = witness
        if self.counterexample is None and self.claim is not None:
            limit = value_at(self.claim, witness.size)
            if limit is not None and witness.difference > limit:
                self.counterexample = replace(witness, claimed=self.claim)

    def offer_summary(self, summary: SearchSummary) -> None:
        for size in sorted(summary.best):
            self.offer(_from_search(self.quality, summary, size))

    def attaining(self, bound: sympy.Expr) -> Witness | None:
        """A seen pair whose difference equals the bound at its size (non-empty datasets first)."""
        for size, witness in sorted(self.best.items(), key=lambda item: (item[0] == 0, item[0])):
            if witness.difference == value_at(bound, size):
                return witness
        return None

    def sizes_attaining(self, bound: sympy.Expr) -> tuple[int, ...]:
        """Every size at which a seen pair's difference equals the bound's value there."""
        return tuple(size for size, witness in sorted(self.best.items()) if witness.difference == value_at(bound, size))

    def largest(self) -> Witness | None:
        if not self.best:
            return None
        return max(self.best.values(), key=lambda w: (w.difference, -w.size))


def prove_sensitivity(
    quality: QualityFunction,
    *,
    neighbours: Any,
    claimed: Any = None,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    search_size: int = 3,
    search_budget: int = 200_000,
    outputs: Any = None,
    schema: Any = None,
) -> SensitivityResult:
    """Prove, bound or refute the sensitivity of ``quality`` under ``neighbours``.

    ``quality`` is a :class:`~expmech.spec.QualityFunction` (black-box
    callables go to :func:`expmech.proofs.falsify`); ``neighbours`` a
    :class:`~expmech.spec.Neighbours` or its name; ``claimed`` ``None``, a
    rational, or a sympy expression in ``n``.  Returns a frozen
    :class:`SensitivityResult`:

    * PROVED — the bound holds for every n (and the claim, if given, is at
      least it for every n, decided exactly); ``tight`` when a witness attains
      the bound;
    * REFUTED — a concrete neighbouring pair exceeds the claim;
    * BOUNDED — no rule applies, but an exhaustive exact check over every
      dataset up to ``bounded_size`` records finds the claim (or the reported
      largest change) respected;
    * UNKNOWN — a solver was inconclusive, q could not be shown defined
      everywhere, or the proved bound exceeds the claim and no counterexample
      was found.

    Raises :class:`~expmech.spec.QualityError` when q divides by zero on some
    dataset and output (naming the subexpression), and
    :class:`~expmech.spec.InvalidArgument` for bad options.

    ``rlimit`` is z3's deterministic resource budget per call; ``timeout_ms`` a
    safety net.  ``search_size`` and ``search_budget`` bound the exhaustive
    exact search (datasets of at most ``search_size`` records, at most
    ``search_budget`` evaluations of q); ``outputs`` restricts the searches'
    outputs to a list (the proof still covers the whole output space).

    ``quality`` may also be a plain Python function ``fn(data, r)`` given with
    ``schema=`` (a RecordSchema) and ``outputs=`` (then the OutputSpace): it is
    traced by :func:`expmech.spec.trace` and checked against its trace first
    (a :class:`~expmech.spec.TraceError` otherwise); the result is about the
    traced expression and carries its ``trace``.
    """
    quality, outputs = traced_quality(quality, schema=schema, outputs=outputs, where="prove_sensitivity")
    if not isinstance(quality, QualityFunction):
        raise InvalidType(
            f"quality={describe(quality)} must be an expmech.spec.QualityFunction; pass schema= and outputs= (an OutputSpace) "
            "to trace a plain Python function, or use falsify() for a black-box callable",
            parameter="quality",
            value=quality,
        )
    relation = Neighbours.parse(neighbours)
    claim = parse_claim(claimed)
    _validate_options(rlimit=rlimit, timeout_ms=timeout_ms, search_size=search_size, search_budget=search_budget)
    restricted: Sequence[Codes] | None = None
    if outputs is not None:
        outputs = list(outputs)
        if not outputs:
            raise InvalidArgument("outputs must not be empty", parameter="outputs", value=outputs)
        restricted = quality.output_space.encode_all(outputs, name="outputs[…]")
    with fresh_context():
        result = _prove(quality, relation, claim, rlimit, timeout_ms, search_size, search_budget, restricted)
    return result if quality.trace is None else replace(result, trace=quality.trace)


def _prove(
    quality: QualityFunction,
    relation: Neighbours,
    claim: sympy.Expr | None,
    rlimit: int,
    timeout_ms: int,
    search_size: int,
    search_budget: int,
    restricted: Sequence[Codes] | None,
) -> SensitivityResult:
    """prove_sensitivity's work on validated arguments, inside the proof's own z3 context."""
    add_remove = relation is Neighbours.ADD_REMOVE
    prover = Prover(quality, relation, rlimit, timeout_ms)
    defined = analyse_definedness(quality, add_remove=add_remove, rlimit=rlimit, timeout_ms=timeout_ms)
    prover.queries.extend(defined.queries)
    prover.empty_defined = defined.empty
    start = 0 if add_remove and defined.empty else 1
    hypotheses: list[str] = []
    if add_remove and not defined.empty:
        hypotheses.append("n >= 1 (q is undefined on the empty dataset)")
    claim_start = start
    if start == 0 and claim is not None and value_at(claim, 0) is None:
        claim_start = 1
        hypotheses.append("n >= 1 (the claim is undefined at n = 0)")
    run = _Run(quality, relation, claim, prover)
    notes: list[str] = []

    # 2. rules: first with the indicator theorem (no solver call for counts)
    bound, failure, root = _lift(prover, quality.expr, theorem=True)
    attainable: bool | None = None
    if failure is None:
        try:
            attainable = prover.certify_theorem()
        except Unknown as error:
            bound, failure = None, f"solver inconclusive: {error}"
    finite = bound is not None and bound is not sympy.oo
    method = "lifted"

    # 4a. the quick search around the solver's models and the domains' edges
    quick_records, quick_outputs = _quick_records(prover), _quick_outputs(prover, restricted)
    for stage in ([s for s in range(start, 3) if s >= 1 or add_remove], [3]):
        try:
            run.offer_summary(search_pairs(quality, quick_records, quick_outputs, relation, stage, exhaustive=False))
        except QualityError as error:
            notes.append(f"the search could not evaluate q: {error}")
            break
        if run.counterexample is not None or (finite and bound is not None and run.attaining(bound) is not None):
            break
    witness = _witness_for(prover, run, bound, start) if attainable is not False else None
    # the theorem's bound is not attained: certify each form's exact maximum with z3 instead
    if witness is None and run.counterexample is None and failure is None and prover.used_theorem:
        refined, failure, refined_root = _lift(prover, quality.expr, theorem=False)
        if refined is not None and refined != bound:
            bound, root = refined, refined_root
            finite = bound is not sympy.oo
            witness = _witness_for(prover, run, bound, start)
    if failure is not None:
        notes.append(failure)

    # 3. the joint encoding, when the rules' bound is not attained and n enters linearly
    if witness is None and run.counterexample is None and (bound is None or not bound.free_symbols) and applies(quality.expr):
        best = run.largest()
        seed_pair = None if best is None else _as_pair(quality, best)
        try:
            found, outcome = tighten(prover, quality.expr, seed_pair, start=start)
        except Unknown as error:
            notes.append(f"joint encoding inconclusive: {error}")
        else:
            if found is not None:
                run.offer(_from_pair(quality, found))
            if outcome is not None and outcome.proved:
                candidate = found.difference if found is not None else Fraction(0)
                if bound is None or bound is sympy.oo or rational(candidate) < bound:
                    bound, method, finite = rational(candidate), "joint", True
                    root = Step("joint", bound, {"ranges": _joint_ranges(prover, quality.expr)})
                    prover.queries.extend(outcome.queries)
                    witness = run.attaining(bound)

    comparison: Comparison | None = None
    if claim is not None and finite:
        assert bound is not None
        comparison = at_least(claim, bound, start=claim_start)

    # 4c. refutation: where the claim is not proved, look for a pair exceeding it
    if claim is not None and run.counterexample is None and not (comparison is not None and comparison.holds):
        sizes: list[int] = list(range(claim_start, 5))
        if comparison is not None and comparison.fails_at is not None:
            at = comparison.fails_at
            sizes += [at, at + 1, 2 * at]
        sizes += list(GROWTH_SIZES)
        ordered = sorted(dict.fromkeys(s for s in sizes if s >= claim_start), key=lambda s: (s > 4, s))
        pair = search_sizes(prover, ordered, lambda s: value_at(claim, s), strict=True)
        if pair is None:  # beyond the sizes tried: n as an unknown of one query
            pair = symbolic_pair(prover, claim, start=claim_start)
        if pair is not None:
            run.offer(_from_pair(quality, pair))

    # exhaustive search: a counterexample, or a BOUNDED answer when nothing is proved
    summary: SearchSummary | None = None
    proved = finite and defined.total and (claim is None or (comparison is not None and comparison.holds))
    if run.counterexample is None and not proved:
        summary = _exhaustive(quality, relation, start, search_size, search_budget, restricted, notes)
        if summary is not None:
            run.offer_summary(summary)

    queries = tuple(prover.queries)
    hyps = tuple(hypotheses)

    def result(status: Status, reason: str, how: str, **extra: Any) -> SensitivityResult:
        return SensitivityResult(status, relation, bound, claim, extra.get("tight", False), extra.get("witness"),
                                 extra.get("counterexample"), reason, how, queries, extra.get("bounded_size"), hypotheses=hyps,
                                 tight_at=extra.get("tight_at", ()), derivation=extra.get("derivation"))

    if run.counterexample is not None:
        c = run.counterexample
        assert claim is not None
        text = (f"neighbouring datasets of size {c.size} differ by {readable(c.difference)} > claimed "
                f"{readable(value_at(claim, c.size))} at r={readable(c.output)}")
        tightness: dict[str, Any] = {}
        if finite and defined.total and bound is not None:  # the rules' (or the joint encoding's) bound still holds: say it
            attained = run.attaining(bound)
            text += f"; the proved bound is {bound}" + (", attained (tight)" if attained is not None else ", not shown tight")
            if attained is not None:
                tightness = {"tight": True, "witness": attained, "tight_at": run.sizes_attaining(bound)}
        return result(Status.REFUTED, text, "search", counterexample=c, **tightness)
    witness = run.attaining(bound) if finite else None
    tight = witness is not None
    scope = f" (hypothesis: {'; '.join(hyps)})" if hyps else ""
    if finite and not defined.total:
        reason = defined.doubt
    elif finite:
        assert bound is not None
        if claim is None or (comparison is not None and comparison.holds):
            tight_at = run.sizes_attaining(bound)
            note = "tight: a witness attains it" if tight else "not shown tight: no searched pair attains it"
            if tight and bound.free_symbols | bound.atoms(sympy.Piecewise):
                note += f" at n = {', '.join(map(str, tight_at))}"
            looser = ""
            if claim is not None and not at_least(bound, claim, start=claim_start).holds:
                looser = f"; the claim {claim} is looser than the proved {bound}"
            how = "joint z3 bound" if method == "joint" else "lifted bound"
            every = "every n >= 0" if claim_start == 0 or (claim is None and start == 0) else "every n"
            return result(Status.PROVED, f"{how} {bound} holds for {every} ({note}){looser}{scope}", method, tight=tight, witness=witness,
                          tight_at=tight_at, derivation=_derivation(quality, relation, root, start, claim if claim_start == start else None))
        assert comparison is not None
        if comparison.holds is None:
            reason = f"could not decide whether the claim {claim} is at least the proved bound {bound} for every n"
        else:
            reason = f"the proved bound {bound} exceeds the claim {claim} (at n={comparison.fails_at}) and no pair found exceeds the claim"
    elif bound is sympy.oo:
        reason = "the lifted bound is unbounded and no searched pair exceeds the claim"
    else:
        reason = "; ".join(notes) or "no proof and no counterexample"
    if notes and finite:
        reason += "; " + "; ".join(notes)
    if summary is not None and summary.exhaustive and summary.best and defined.total:
        size = max(summary.best)
        largest = max(p.difference for p in summary.best.values())
        limit = f"every dataset of at most {size} records"
        if claim is None:
            top = max(summary.best, key=lambda s: summary.best[s].difference)
            return result(Status.BOUNDED, f"{reason}; over {limit} the largest change is {largest}{scope}", "exhaustive",
                          bounded_size=size, witness=_from_search(quality, summary, top))
        return result(Status.BOUNDED, f"{reason}; the claim holds over {limit} (checked exhaustively){scope}", "exhaustive", bounded_size=size)
    return result(Status.UNKNOWN, reason, "none")


def _lift(prover: Prover, expr: sympy.Expr, *, theorem: bool) -> tuple[sympy.Expr | None, str | None, Step | None]:
    """The rules' bound and its derivation step (None with the reason when no rule applies or a solver is inconclusive)."""
    prover.theorem_bounds = theorem
    prover.used_theorem = False
    try:
        step = prover.step(expr)
    except NoRule as error:
        return None, f"no lifting rule: {error}", None
    except Unknown as error:
        return None, f"solver inconclusive: {error}", None
    except InvalidArgument as error:
        return None, f"not translatable: {error}", None
    bound = step.bound
    if bound is not sympy.oo and bound.free_symbols:
        bound = sympy.simplify(bound)
    return bound, None, weakened(step, bound)


def _joint_ranges(prover: Prover, expr: sympy.Expr) -> dict[str, list[str]]:
    """Each total's per-record range ``[lo, hi]`` the joint encoding used (cached: no new query)."""
    ranges: dict[str, list[str]] = {}
    for node in expr.atoms(Total):
        found = prover.term_range(node.args[0], sympy.Integer(0), f"total({node.args[0]})")
        if found is not None:
            ranges[str(node)] = [rational_text(-found[1].value), rational_text(found[0].value)]
    return ranges


def _derivation(quality: QualityFunction, relation: Neighbours, root: Step | None, start: int, claim: sympy.Expr | None) -> dict[str, Any] | None:
    """The JSON derivation of a PROVED result, weakened to the claim when one is given (and written in n alone)."""
    if root is None:
        return None
    if claim is not None and claim.free_symbols <= {n} and not claim.has(sympy.log, sympy.exp):
        root = weakened(root, claim)
    return derivation_json(quality, relation, root, start=start)


def _witness_for(prover: Prover, run: _Run, bound: sympy.Expr | None, start: int) -> Witness | None:
    """A pair attaining the bound: among those seen, else from the exact encoding at small sizes."""
    if bound is None or bound is sympy.oo:
        return None
    witness = run.attaining(bound)
    if witness is None and run.counterexample is None:
        sizes = sorted({s for s in (start, 1, 2, 3) if s >= start})
        pair = search_sizes(prover, sizes, lambda s: value_at(bound, s), strict=False, all_patterns=False, budget=WITNESS_RLIMIT)
        if pair is not None:
            run.offer(_from_pair(quality=prover.quality, pair=pair))
            witness = run.attaining(bound)
    return witness


def _as_pair(quality: QualityFunction, witness: Witness) -> ConcretePair:
    if isinstance(witness.dataset1, Multiset) or isinstance(witness.dataset2, Multiset):
        encoded = [quality.encode_dataset(data) for data in (witness.dataset1, witness.dataset2)]
        return ConcretePair(encoded[0], encoded[1], quality.output_space.encode(witness.output), witness.difference)
    first = tuple(quality.schema.encode(record) for record in witness.dataset1)
    second = tuple(quality.schema.encode(record) for record in witness.dataset2)
    return ConcretePair(first, second, quality.output_space.encode(witness.output), witness.difference)


def _exhaustive(
    quality: QualityFunction,
    relation: Neighbours,
    start: int,
    search_size: int,
    budget: int,
    restricted: Sequence[Codes] | None,
    notes: list[str],
) -> SearchSummary | None:
    """Every dataset of at most ``search_size`` records over a small record space, at every output, within ``budget``."""
    space = record_space_size(quality)
    if space is None or space > EXHAUSTIVE_RECORDS:
        return None
    if restricted is None:
        if not quality.output_space.is_finite:
            return None
        total = quality.output_space.size
        if total is None or total > min(budget, LARGEST_LISTED):
            return None
        output_codes: Sequence[Codes] = [quality.output_space.encode(r) for r in quality.outputs()]
    else:
        output_codes = restricted
    records = all_records(quality)
    extra = 1 if relation is Neighbours.ADD_REMOVE else 0
    sizes, used = [], 0
    for size in range(max(start, 0 if extra else 1), search_size + 1):
        cost = count_multisets(len(records), size + extra) * len(output_codes)
        if used + cost > budget:
            break
        used += cost
        sizes.append(size)
    if not sizes or max(sizes) < 1:
        return None
    try:
        return search_pairs(quality, records, output_codes, relation, sizes, exhaustive=True)
    except QualityError as error:
        notes.append(f"the search could not evaluate q: {error}")
        return None
