"""The range search picks the same neighbouring pair whether it forms the differences pair by pair or a block at a time."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.prover import _range_sensitivity
from expmech.proofs.prover._search import ScoreTable


def _pair_by_pair(table: ScoreTable, pairs: list, claim: Fraction | None) -> object:
    """The search's original loop: the first pair past the claim, else the first of the widest."""
    best, chosen = None, None
    for first, second in pairs:
        d = table.values[table.rows[first]] - table.values[table.rows[second]]
        spread = d.max() - d.min()
        if best is None or spread > best:
            best, chosen = spread, (first, second)
        if claim is not None and Fraction(int(spread), table.denominator) > claim:
            return first, second
    return chosen


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 6),
    outputs=st.integers(1, 5),
    data=st.data(),
    denominator=st.sampled_from([1, 2, 6]),
    claim=st.one_of(st.none(), st.fractions(min_value=0, max_value=8, max_denominator=6)),
    wide=st.booleans(),
)
def test_block_search_picks_the_pair_the_loop_picks(rows: int, outputs: int, data: st.DataObject, denominator: int, claim: Fraction | None, wide: bool) -> None:
    """Generated score tables and pair lists (int64, or Python integers past int64): the same pair, the same order rule."""
    top = 2**70 if wide else 9
    values = np.array([[data.draw(st.integers(-top, top)) for _ in range(outputs)] for _ in range(rows)], dtype=object if wide else np.int64)
    keys = [(i,) for i in range(rows)]
    table = ScoreTable({key: i for i, key in enumerate(keys)}, values, denominator)
    pairs = data.draw(st.lists(st.tuples(st.sampled_from(keys), st.sampled_from(keys)), max_size=12))
    assert _range_sensitivity._widest_pair(table, pairs, claim) == _pair_by_pair(table, pairs, claim)


def test_pairs_past_one_block_are_all_searched(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With blocks of two pairs (one output pair: two columns), the widest pair and the first past the claim lie past the first blocks."""
    monkeypatch.setattr(_range_sensitivity, "_PAIR_BLOCK", 2)
    values = np.array([[0, v] for v in (0, 1, 2, 3, 4, 5, 9, 20)], dtype=np.int64)  # the spread of a pair is |v_a − v_b|
    table = ScoreTable({(i,): i for i in range(8)}, values, 1)
    pairs = [((0,), (1,))] * 7 + [((7,), (6,))] + [((7,), (0,))] + [((0,), (0,))]
    assert _range_sensitivity._widest_pair(table, pairs, None) == _pair_by_pair(table, pairs, None)
    assert _range_sensitivity._widest_pair(table, pairs, Fraction(5)) == ((7,), (6,)) == _pair_by_pair(table, pairs, Fraction(5))
    assert _range_sensitivity._widest_pair(table, pairs, None) == ((7,), (0,))
