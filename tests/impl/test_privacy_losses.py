"""``ExponentialMechanism.privacy_losses`` (one vectorised batch) equals ``privacy_loss`` pair by pair."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, ExponentialMechanism
from expmech.proofs.strategies import datasets, neighbouring_datasets, outputs
from expmech.spec import ExpMechError, Neighbours
from strategies import language_quality_functions as quality_functions


def _one_by_one(mechanism, pairs):
    """The losses pair by pair, or the type and message of the first error."""
    try:
        return [mechanism.privacy_loss(a, b) for a, b in pairs]
    except ExpMechError as error:
        return (type(error), str(error))


def _batched(mechanism, pairs):
    try:
        return mechanism.privacy_losses(pairs)
    except ExpMechError as error:
        return (type(error), str(error))


def _same(first, second):
    """Equal losses: the same enclosure, output, side, and the same exact comparisons."""
    if isinstance(first, tuple) or isinstance(second, tuple):
        return first == second
    return len(first) == len(second) and all(
        a.enclose(30) == b.enclose(30) and a.output == b.output and a.larger_on_first == b.larger_on_first
        and all((a <= t) == (b <= t) for t in (Fraction(0), Fraction(1, 3), Fraction(1), b.enclose(30)[0], b.enclose(30)[1]))
        for a, b in zip(first, second)
    )


@settings(max_examples=60, deadline=None)
@given(st.data(), quality_functions(max_depth=2), st.sampled_from(list(Neighbours)), st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3)]))
def test_generated_qualities_batched_equal_one_by_one(data, quality, neighbours, epsilon):
    """Generated qualities, neighbouring pairs of either relation, invalid records too: equal losses or the same error."""
    points = data.draw(st.lists(outputs(quality.output_space), min_size=1, max_size=5, unique=True))
    try:
        mechanism = ExponentialMechanism(quality, epsilon=epsilon, outputs=points)
    except ExpMechError:
        return
    pairs = data.draw(st.lists(neighbouring_datasets(quality.schema, neighbours=neighbours, max_size=4), min_size=0, max_size=5))
    if pairs and data.draw(st.booleans()):  # an ill-formed dataset somewhere: the same error as pair by pair
        index = data.draw(st.integers(0, len(pairs) - 1))
        pairs[index] = (pairs[index][0], [*pairs[index][1], {"no such field": 1}])
    assert _same(_batched(mechanism, pairs), _one_by_one(mechanism, pairs))


@settings(max_examples=10, deadline=None)
@given(st.data())
def test_catalogue_batched_equal_one_by_one(data):
    """Every finite catalogue entry: equal losses on generated pairs."""
    for entry in CATALOGUE:
        quality = entry.quality
        if not getattr(quality, "output_space", None) or not quality.output_space.is_finite or len(quality.outputs()) > 200:
            continue
        mechanism = ExponentialMechanism(quality, epsilon=1, outputs=quality.outputs())
        pairs = [(d, d[:-1] + d[-1:]) for d in data.draw(st.lists(datasets(quality.schema, max_size=4), max_size=3))]
        pairs += data.draw(st.lists(neighbouring_datasets(quality.schema, neighbours=entry.neighbours, max_size=4), min_size=1, max_size=3))
        assert _same(_batched(mechanism, pairs), _one_by_one(mechanism, pairs)), entry.name
