"""Hypothesis strategies for datasets, neighbouring pairs, outputs, ε and base measures.

Records follow a :class:`~expmech.spec.RecordSchema`: a dict per record, or a
bare value when the schema has a single field (the form quality functions of
the language accept).  Every strategy validates its arguments eagerly and
raises :class:`~expmech.spec.InvalidArgument` naming the bad one.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from expmech.spec import (
    Booleans,
    Categories,
    Domain,
    Grid,
    IntRange,
    InvalidArgument,
    InvalidType,
    Neighbours,
    OutputSpace,
    RationalRange,
    RecordSchema,
)
from expmech.spec.internal import describe

__all__ = [
    "base_measures",
    "datasets",
    "epsilons",
    "neighbouring_datasets",
    "outputs",
    "records",
    "values",
]


def _size(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidArgument(f"{name}={describe(value)} must be an int >= {minimum}", parameter=name, value=value)
    return value


def values(domain: Domain, *, max_denominator: int = 8) -> st.SearchStrategy[Any]:
    """User-facing values of one domain (bools for Booleans, labels for Categories)."""
    if isinstance(domain, Booleans):
        return st.booleans()
    if isinstance(domain, Categories):
        return st.sampled_from(domain.labels)
    if isinstance(domain, Grid):
        return st.sampled_from(domain.points)
    if isinstance(domain, IntRange):
        return st.integers(domain.lo, domain.hi)
    if isinstance(domain, RationalRange):
        return st.fractions(domain.lo, domain.hi, max_denominator=max_denominator)
    raise InvalidType(f"domain={describe(domain)} is not a known Domain", parameter="domain", value=domain)


def records(schema: RecordSchema) -> st.SearchStrategy[Any]:
    """One record of ``schema``."""
    if not isinstance(schema, RecordSchema):
        raise InvalidType(f"schema={describe(schema)} must be a RecordSchema", parameter="schema", value=schema)
    items = list(schema.items())
    if len(items) == 1:
        return values(items[0][2])
    return st.fixed_dictionaries({name: values(domain) for name, _, domain in items})


def datasets(schema: RecordSchema, *, min_size: int = 1, max_size: int = 8) -> st.SearchStrategy[list[Any]]:
    """Non-empty datasets (lists of records) of ``schema``."""
    low, high = _size("min_size", min_size, 1), _size("max_size", max_size, 1)
    if low > high:
        raise InvalidArgument(f"min_size={low} must be <= max_size={high}", parameter="min_size", value=low)
    return st.lists(records(schema), min_size=low, max_size=high)


def neighbouring_datasets(
    schema: RecordSchema, *, neighbours: Any, min_size: int = 1, max_size: int = 8
) -> st.SearchStrategy[tuple[list[Any], list[Any]]]:
    """Pairs ``(D, D')`` of neighbouring datasets.

    Replace-one: same size, one position replaced.  Add-remove: ``D'`` is ``D``
    with one record inserted at a drawn position (``|D| = n``, ``|D'| = n + 1``).
    """
    relation = Neighbours.parse(neighbours)
    base = datasets(schema, min_size=min_size, max_size=max_size)

    @st.composite
    def pairs(draw: st.DrawFn) -> tuple[list[Any], list[Any]]:
        first = draw(base)
        record = draw(records(schema))
        if relation is Neighbours.REPLACE_ONE:
            position = draw(st.integers(0, len(first) - 1))
            second = first[:position] + [record] + first[position + 1 :]
        else:
            position = draw(st.integers(0, len(first)))
            second = first[:position] + [record] + first[position:]
        return first, second

    return pairs()


def outputs(space: OutputSpace | Sequence[Hashable]) -> st.SearchStrategy[Any]:
    """Outputs of an :class:`OutputSpace` (or drawn from an explicit sequence of outputs)."""
    if isinstance(space, OutputSpace):
        items = list(space.items())
        if len(items) == 1:
            return values(items[0][2])
        return st.tuples(*[values(domain) for _, _, domain in items])
    choices = list(space)
    if not choices:
        raise InvalidArgument("outputs must not be empty", parameter="space", value=space)
    return st.sampled_from(choices)


def epsilons(*, min_value: Any = Fraction(1, 100), max_value: Any = 4, max_denominator: int = 100) -> st.SearchStrategy[Fraction]:
    """Rational ε in ``[min_value, max_value]``, all > 0."""
    low, high = Fraction(min_value), Fraction(max_value)
    if low <= 0:
        raise InvalidArgument(f"min_value={describe(min_value)} must be > 0", parameter="min_value", value=min_value)
    if low > high:
        raise InvalidArgument(f"min_value={low} must be <= max_value={high}", parameter="min_value", value=low)
    return st.fractions(low, high, max_denominator=max_denominator)


def base_measures(outputs: Sequence[Hashable], *, max_value: int = 4) -> st.SearchStrategy[dict[Hashable, Fraction]]:
    """Base measures ``{r: μ(r)}`` with rationals in ``[0, max_value]``, not all zero."""
    keys = list(outputs)
    if not keys:
        raise InvalidArgument("outputs must not be empty", parameter="outputs", value=outputs)
    weights = st.lists(st.fractions(0, max_value, max_denominator=8), min_size=len(keys), max_size=len(keys))
    return weights.filter(any).map(lambda ws: dict(zip(keys, ws)))
