"""Hypothesis strategies shared by the project's own tests."""

from __future__ import annotations

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
