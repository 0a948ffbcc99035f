"""Range sensitivity Δ̂: proved bounds hold on every small pair, witnesses attain them, wrong claims are refuted."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, given, settings

from expmech.impl import catalogue_entry
from expmech.proofs import Status
from expmech.proofs import prove_range_sensitivity
from expmech.spec import Categories, IntRange, InvalidArgument, InvalidType, Neighbours, OutputSpace, QualityError, QualityFunction, RecordSchema, count, size
from strategies import quality_functions


from hypothesis import strategies as st


def _records(quality: QualityFunction) -> list:
    items = list(quality.schema.items())
    values = [[domain.decode(c) for c in domain.codes()] for _, _, domain in items]
    if len(items) == 1:
        return list(values[0])
    return [dict(zip([name for name, _, _ in items], combo)) for combo in itertools.product(*values)]


def _spread(quality: QualityFunction, d1: list, d2: list, high: object, low: object) -> Fraction:
    return (Fraction(quality(d1, high)) - Fraction(quality(d2, high))) - (Fraction(quality(d1, low)) - Fraction(quality(d2, low)))


@pytest.mark.parametrize("name,expected", [("mode", 2), ("median", 2), ("mode-add-remove", 1), ("clamped-sum-threshold", 9), ("auction-price", 10)])
def test_catalogue_range_sensitivities_are_proved_tight(name: str, expected: int) -> None:
    """The catalogue's additive qualities get a tight Δ̂ with a witness re-evaluated exactly."""
    entry = catalogue_entry(name)
    result = prove_range_sensitivity(entry.quality, neighbours=entry.neighbours)
    assert result.status is Status.PROVED and result.bound == expected and result.tight
    w = result.witness
    assert w is not None
    assert _spread(entry.quality, list(w.dataset1), list(w.dataset2), w.output_high, w.output_low) == w.spread == expected


def test_add_remove_includes_the_empty_dataset() -> None:
    """Under add-remove a count's Δ̂ is 1, proved for every n >= 0."""
    schema, outputs = RecordSchema(c=Categories(("a", "b"))), OutputSpace(r=Categories(("a", "b")))
    q = QualityFunction(count(sympy.Eq(schema["c"], outputs["r"])), schema=schema, outputs=outputs)
    result = prove_range_sensitivity(q, neighbours="add-remove")
    assert result.status is Status.PROVED and result.bound == 1
    assert "n >= 0" in result.reason


def test_size_alone_has_range_sensitivity_zero() -> None:
    """A term moving every output by the same amount has Δ̂ = 0 (d(y) constant), below 2Δq = 2."""
    schema, outputs = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
    q = QualityFunction(size() + outputs["r"], schema=schema, outputs=outputs)
    result = prove_range_sensitivity(q, neighbours="add-remove")
    assert result.status is Status.PROVED and result.bound == 0


@pytest.mark.parametrize("claimed", [1, Fraction(3, 2), Fraction(199, 100)])
def test_a_claim_below_the_range_sensitivity_is_refuted(claimed: Fraction) -> None:
    """mode under replace-one has Δ̂ = 2: any smaller claim is REFUTED with a pair whose spread exceeds it."""
    entry = catalogue_entry("mode")
    result = prove_range_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=claimed)
    assert result.status is Status.REFUTED
    c = result.counterexample
    assert c is not None and c.spread > claimed
    assert _spread(entry.quality, list(c.dataset1), list(c.dataset2), c.output_high, c.output_low) == c.spread


def test_a_claim_at_or_above_is_proved() -> None:
    """A claim at least the proved bound is PROVED and is what proved_bound gives."""
    entry = catalogue_entry("mode")
    result = prove_range_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=3)
    assert result.status is Status.PROVED and result.proved_bound == 3


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(quality=quality_functions(finite=True, max_leaves=4), relation=st.sampled_from(list(Neighbours)))
def test_proved_bound_is_above_every_small_pair(quality: QualityFunction, relation: Neighbours) -> None:
    """On generated finite qualities, a PROVED Δ̂ is at least the spread of every neighbouring pair of <= 2 records."""
    try:
        result = prove_range_sensitivity(quality, neighbours=relation)
    except QualityError:
        return
    if result.status is not Status.PROVED:
        return
    assert result.bound is not None
    records = _records(quality)
    outputs = list(quality.outputs())
    sizes = range(0, 3) if relation is Neighbours.ADD_REMOVE else range(1, 3)
    for n in sizes:
        for first in itertools.combinations_with_replacement(range(len(records)), n):
            d1 = [records[i] for i in first]
            if relation is Neighbours.ADD_REMOVE:
                seconds = [d1 + [x] for x in records]
            else:
                seconds = [d1[:i] + [x] + d1[i + 1:] for i in range(n) for x in records]
            for d2 in seconds:
                try:
                    d = [Fraction(quality(d1, r)) - Fraction(quality(d2, r)) for r in outputs]
                except (QualityError, ZeroDivisionError):
                    continue
                assert max(d) - min(d) <= result.bound, (d1, d2)
    if result.tight:
        w = result.witness
        assert w is not None and w.spread == result.bound
        assert _spread(quality, list(w.dataset1), list(w.dataset2), w.output_high, w.output_low) == w.spread


def test_bad_input_names_the_parameter() -> None:
    """A negative claim, a black box and a bad budget are refused naming the parameter."""
    entry = catalogue_entry("mode")
    with pytest.raises(InvalidArgument) as info:
        prove_range_sensitivity(entry.quality, neighbours=entry.neighbours, claimed=-1)
    assert info.value.parameter == "claimed"
    with pytest.raises(InvalidType):
        prove_range_sensitivity(lambda d, r: 0, neighbours="replace-one")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument) as info:
        prove_range_sensitivity(entry.quality, neighbours=entry.neighbours, rlimit=0)
    assert info.value.parameter == "rlimit"
