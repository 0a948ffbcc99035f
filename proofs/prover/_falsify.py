"""Falsifiers for black-box quality functions: guided search and exhaustive small-domain checks.

A Python callable ``q(dataset, r)`` cannot be proved; it can only be searched.
:func:`falsify` looks, with hypothesis guided by ``target()``, for neighbouring
datasets whose quality differs by more than a claimed Δq;
:func:`falsify_privacy` for datasets on which the exact privacy loss of the
exponential mechanism exceeds a claimed ε; :func:`exhaustive_check` tries
every dataset up to a size over a small finite set of records.  Their results
are TESTED (no violation found), BOUNDED (exhaustive, up to the stated size) or
REFUTED (a counterexample, re-evaluated exactly) — never PROVED.  Each records
the seed and the hypothesis version.  The floats passed to ``target()`` only
steer the search; every verdict is an exact comparison.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import hypothesis
import sympy
from hypothesis import HealthCheck, given, settings, target
from hypothesis import strategies as st

from expmech.impl import ExponentialMechanism
from expmech.impl.internal import evaluate_scores
from expmech.spec import InvalidArgument, InvalidType, Neighbours, QualityError, RecordSchema
from expmech.spec.internal import approximate, describe, rational_input, readable

from .. import strategies as strategies_module
from .._display import falsification_text
from .._outcome import Status
from ._claims import value_at
from ._sensitivity import Witness, _parse_claim

__all__ = ["FalsificationResult", "exhaustive_check", "falsify", "falsify_privacy"]


@dataclass(frozen=True)
class FalsificationResult:
    """What a falsifier found: TESTED, BOUNDED or REFUTED, never PROVED.

    ``largest`` is the largest exact difference (or loss enclosure's upper
    end, for privacy) seen; ``examples`` how many pairs were evaluated;
    ``seed`` and ``hypothesis_version`` make a hypothesis run reproducible.
    """

    status: Status
    method: str
    examples: int
    largest: Fraction
    counterexample: Witness | None
    reason: str
    seed: int | None = None
    hypothesis_version: str = hypothesis.__version__
    bounded_size: int | None = None
    found_at: int | None = None  # the example number of the first violation, before shrinking

    def __str__(self) -> str:
        return falsification_text(self)

    def __repr__(self) -> str:
        return f"<FalsificationResult {falsification_text(self).splitlines()[0]}; largest {readable(self.largest)}>"


class _Found(Exception):
    def __init__(self, witness: Witness) -> None:
        super().__init__(witness)
        self.witness = witness


def _check_callable(quality: Any) -> Callable[[Any, Any], Any]:
    if not callable(quality):
        raise InvalidType(f"quality={describe(quality)} must be callable as quality(dataset, r)", parameter="quality", value=quality)
    return quality


def _scores(quality: Callable[[Any, Any], Any], dataset: Any, outputs: tuple[Hashable, ...]) -> tuple[int | Fraction, ...]:
    """``q(dataset, r)`` for every output, exactly; a quality that raises gets a QualityError naming the dataset."""
    try:
        return evaluate_scores(quality, dataset, outputs)
    except QualityError as error:
        raise QualityError(f"{error} on dataset={describe(dataset)}", output=error.output, value=error.value) from error.__cause__


def _claim_at(claim: sympy.Expr, size: int) -> Fraction | None:
    """The claim at ``n = size``; None where it is undefined there (``1/n`` at the empty dataset): it says nothing."""
    return value_at(claim, size)


def _pair_strategy(schema: RecordSchema | None, pairs: st.SearchStrategy[Any] | None, relation: Neighbours, max_size: int) -> st.SearchStrategy[Any]:
    if pairs is not None:
        return pairs
    if schema is None:
        raise InvalidArgument("give schema= (a RecordSchema) or pairs= (a strategy of neighbouring pairs)", parameter="schema", value=None)
    return strategies_module.neighbouring_datasets(schema, neighbours=relation, max_size=max_size)


@dataclass(frozen=True)
class _Probe:
    """One evaluated pair: the value steering the search, the largest seen, and a violation if any."""

    steer: float
    largest: Fraction
    violation: Witness | None


def _guided_search(
    strategy: st.SearchStrategy[Any],
    probe: Callable[[Any], _Probe],
    label: str,
    max_examples: int,
    seed: int,
    *,
    refuted: Callable[[Witness], str],
    tested: Callable[[int, Fraction], str],
) -> FalsificationResult:
    """Run hypothesis over ``strategy``, steering with ``target(probe(pair).steer)``; REFUTED at a violation, else TESTED.

    ``refuted(witness)`` and ``tested(examples, largest)`` word the reason.
    """
    state: dict[str, Any] = {"examples": 0, "largest": Fraction(0), "found_at": None}

    @given(strategy)
    def test(pair: Any) -> None:
        state["examples"] += 1
        result = probe(pair)
        state["largest"] = max(state["largest"], result.largest)
        target(result.steer, label=label)
        if result.violation is not None:
            if state["found_at"] is None:
                state["found_at"] = state["examples"]
            raise _Found(result.violation)

    witness = _run(test, _check_examples(max_examples), seed)
    if witness is not None:
        return FalsificationResult(
            Status.REFUTED, "hypothesis", state["examples"], state["largest"], witness, refuted(witness), seed,
            found_at=state["found_at"],
        )
    return FalsificationResult(
        Status.TESTED, "hypothesis", state["examples"], state["largest"], None, tested(state["examples"], state["largest"]), seed
    )


def _run(test: Callable[[], None], max_examples: int, seed: int) -> Witness | None:
    configured = settings(
        max_examples=max_examples,
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        phases=[hypothesis.Phase.generate, hypothesis.Phase.target, hypothesis.Phase.shrink],
        report_multiple_bugs=False,
    )(test)
    try:
        hypothesis.seed(seed)(configured)()
    except _Found as found:
        return found.witness
    except hypothesis.errors.Flaky as error:
        raise QualityError(
            f"the quality gave different results for the same datasets ({type(error).__name__}); a falsifier needs a deterministic q",
            value=None,
        ) from None
    return None


def falsify(
    quality: Callable[[Any, Any], Any],
    *,
    neighbours: Any,
    claimed: Any,
    outputs: Sequence[Hashable],
    schema: RecordSchema | None = None,
    pairs: st.SearchStrategy[Any] | None = None,
    max_examples: int = 500,
    max_size: int = 6,
    seed: int = 0,
) -> FalsificationResult:
    """Search for neighbouring datasets with ``|q(D, r) − q(D', r)| > claimed``.

    Datasets come from ``schema`` (via :mod:`expmech.proofs.strategies`) or
    from ``pairs``, a strategy of neighbouring pairs.  ``claimed`` is a
    rational or an expression in ``n`` (the size of the first dataset).  The
    search maximises the difference with ``hypothesis.target``; a violation is
    shrunk and returned as REFUTED, otherwise the result is TESTED.
    """
    q = _check_callable(quality)
    relation = Neighbours.parse(neighbours)
    claim = _parse_claim(claimed)
    if claim is None:
        raise InvalidArgument("claimed must be given: a falsifier tests a claim", parameter="claimed", value=None)
    choices = list(outputs)
    if not choices:
        raise InvalidArgument("outputs must not be empty", parameter="outputs", value=outputs)
    strategy = _pair_strategy(schema, pairs, relation, max_size)

    outputs_tuple = tuple(choices)

    def probe(pair: Any) -> _Probe:
        first, second = pair
        best, at = Fraction(0), choices[0]
        for r, a, b in zip(choices, _scores(q, first, outputs_tuple), _scores(q, second, outputs_tuple)):
            gap = abs(Fraction(a) - b)
            if gap > best:
                best, at = gap, r
        limit = _claim_at(claim, len(first))
        if limit is None:
            return _Probe(0.0, best, None)
        violation = Witness(tuple(first), tuple(second), at, best, len(first), claimed=claim) if best > limit else None
        return _Probe(float(best - limit), best, violation)

    return _guided_search(
        strategy,
        probe,
        "difference above the claim",
        max_examples,
        seed,
        refuted=lambda w: f"|q(D, r) − q(D', r)| = {readable(w.difference)} > claimed {readable(_claim_at(claim, w.size))} at r={readable(w.output)}",
        tested=lambda count, largest: f"no violation in {count} neighbouring pairs (largest difference {largest})",
    )


def falsify_privacy(
    quality: Callable[[Any, Any], Any],
    *,
    epsilon: Any,
    outputs: Sequence[Hashable],
    claimed_epsilon: Any,
    neighbours: Any,
    schema: RecordSchema | None = None,
    pairs: st.SearchStrategy[Any] | None = None,
    base_measure: Any = None,
    max_examples: int = 300,
    max_size: int = 6,
    seed: int = 0,
) -> FalsificationResult:
    """Search for neighbouring datasets where the mechanism's exact privacy loss exceeds ``claimed_epsilon``.

    The mechanism is ``ExponentialMechanism(quality, epsilon=epsilon,
    outputs=outputs, base_measure=base_measure)``; each loss is exact and
    compared exactly with the claim.  REFUTED with the pair, or TESTED.
    """
    mech = ExponentialMechanism(_check_callable(quality), epsilon=epsilon, outputs=outputs, base_measure=base_measure)
    bound = rational_input(claimed_epsilon, name="claimed_epsilon")
    relation = Neighbours.parse(neighbours)
    strategy = _pair_strategy(schema, pairs, relation, max_size)

    def probe(pair: Any) -> _Probe:
        first, second = pair
        loss = mech.privacy_loss(first, second)
        high = loss.enclose(20)[1]
        violation = (
            Witness(tuple(first), tuple(second), loss.output, high, len(first), claimed=bound, quantity="privacy loss (<= {value})")
            if loss > bound
            else None
        )
        return _Probe(float(high), high, violation)

    return _guided_search(
        strategy,
        probe,
        "privacy loss",
        max_examples,
        seed,
        refuted=lambda w: f"exact privacy loss > {readable(bound)} (at most {approximate(w.difference)}) at r={readable(w.output)}",
        tested=lambda count, _largest: f"no pair in {count} had privacy loss > {readable(bound)}",
    )


def exhaustive_check(
    quality: Callable[[Any, Any], Any],
    *,
    neighbours: Any,
    claimed: Any,
    records: Sequence[Any],
    outputs: Sequence[Hashable],
    max_size: int = 3,
) -> FalsificationResult:
    """Try every dataset of at most ``max_size`` records drawn from ``records``, and every neighbour of it.

    BOUNDED when no pair exceeds ``claimed`` (the statement holds for those
    datasets, and says nothing beyond them), REFUTED otherwise.
    """
    q = _check_callable(quality)
    relation = Neighbours.parse(neighbours)
    claim = _parse_claim(claimed)
    if claim is None:
        raise InvalidArgument("claimed must be given", parameter="claimed", value=None)
    pool, choices = list(records), list(outputs)
    if not pool or not choices:
        raise InvalidArgument("records and outputs must not be empty", parameter="records", value=records)
    examples, largest = 0, Fraction(0)
    outputs_tuple = tuple(choices)
    add_remove = relation is Neighbours.ADD_REMOVE
    skipped = ""
    for size in range(0 if add_remove else 1, _check_examples(max_size) + 1):  # add-remove: (∅, one record) too
        limit = _claim_at(claim, size)
        if limit is None:
            skipped += f"; n = {size} skipped: the claim is undefined there"
            continue
        if size == 0:
            try:
                _scores(q, [], outputs_tuple)
            except QualityError:
                skipped += "; the empty dataset skipped: q is undefined there"
                continue
        for data in itertools.product(pool, repeat=size):
            first = list(data)
            if relation is Neighbours.REPLACE_ONE:
                others = [first[:i] + [rec] + first[i + 1 :] for i in range(size) for rec in pool]
            else:
                others = [first + [rec] for rec in pool]
            scores = _scores(q, first, outputs_tuple)
            for second in others:
                examples += 1
                for r, a, b in zip(choices, scores, _scores(q, second, outputs_tuple)):
                    gap = abs(Fraction(a) - b)
                    largest = max(largest, gap)
                    if gap > limit:
                        return FalsificationResult(
                            Status.REFUTED, "exhaustive", examples, largest, Witness(tuple(first), tuple(second), r, gap, size, claimed=claim),
                            f"|q(D, r) − q(D', r)| = {readable(gap)} > claimed {readable(limit)} at r={readable(r)}", bounded_size=size,
                            found_at=examples,
                        )
    return FalsificationResult(
        Status.BOUNDED, "exhaustive", examples, largest, None,
        f"holds for every dataset of at most {max_size} records from the {len(pool)} given"
        f"{' (the empty dataset included)' if add_remove and not skipped.startswith('; n = 0') and 'empty' not in skipped else ''}{skipped}", bounded_size=max_size,
    )


def _check_examples(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"max_examples={describe(value)} must be an int >= 1", parameter="max_examples", value=value)
    return value
