"""The fresh draw walks Knuth and Yao's tree over the score levels: exact on every path, one map, H + 2 bits.

Every path of :func:`draw_levels` (the top level alone, the sorted walk for a few outputs, the levels
counted by ``bincount`` or by a 16-bit sort, the integer walk and the float walk with its resolver, the
``unique`` levels, the exact walk with each floor decided by exponential-sum signs) must return, for the
same random bits, the same output after reading the same number of bits as an independent Knuth–Yao walk
computed here with mpmath at 300 digits.  The fit tests run each path through
``ExponentialMechanism.sample`` and must reject the same sampler at 0.7ε and 1.3ε.
"""

from __future__ import annotations

import math
import os
import random
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import expmech.impl.sampling._knuth_yao as ky
from expmech.impl import ExponentialMechanism
from expmech.impl.sampling._bits import RandomBits, bits_of
from stats import chi_square_pvalue

SEED = 20261207
ALPHA = 1e-3
WRONG_FACTORS = (Fraction(7, 10), Fraction(13, 10))


class StreamRandom(random.Random):
    """One fixed stream of bits, the same whatever sizes ``getrandbits`` is asked for."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self._buffer, self._count = 0, 0

    def getrandbits(self, k: int) -> int:  # noqa: D102 - the stream, k bits at a time
        while self._count < k:
            self._buffer = (self._buffer << 32) | super().getrandbits(32)
            self._count += 32
        self._count -= k
        value = self._buffer >> self._count
        self._buffer &= (1 << self._count) - 1
        return value


def reference_walk(gaps: list[int], rate: Fraction, stream: StreamRandom) -> tuple[int, int]:
    """Knuth–Yao over the outputs ordered by (gap, index), in mpmath at 300 digits: ``(output, bits read)``."""
    with mpmath.workdps(300):
        lam = mpmath.mpf(rate.numerator) / rate.denominator
        weights = [mpmath.exp(-lam * g) for g in gaps]
        total = mpmath.fsum(weights)
        probabilities = [w / total for w in weights]
        order = sorted(range(len(gaps)), key=lambda i: (gaps[i], i))
        value, k = 0, 0
        while True:
            k += 1
            value = 2 * value + stream.getrandbits(1)
            floors = {i: int(mpmath.floor(probabilities[i] * mpmath.mpf(2) ** k)) for i in order}
            live = 2**k - sum(floors.values())
            if value >= live:
                leaf = value - live
                for i in order:
                    if floors[i] % 2:
                        if leaf == 0:
                            return i, k
                        leaf -= 1
                raise AssertionError("no leaf")


PATHS = ["top", "small", "levels", "sorted-counts", "float-floors", "unique", "exact", "sorted-counts+float-floors", "sorted-counts+exact"]


def force_path(patch: pytest.MonkeyPatch, path: str) -> None:
    """Make ``draw_levels`` take ``path``: the top level alone, the sorted walk, the levels counted by ``bincount`` or
    by a 16-bit sort, the float walk with its resolver (the integer walk declining every draw), ``unique``; paths
    joined by ``+`` are taken together (the 16-bit gaps of the sort carried on to the float and exact walks)."""
    for part in path.split("+")[:-1]:
        force_path(patch, part)
    path = path.split("+")[-1]
    if path == "small":
        patch.setattr(ky, "_draw_top", lambda *arguments: None)
    elif path != "top":
        patch.setattr(ky, "SMALL_OUTPUTS", 0)
    if path == "sorted-counts":
        patch.setattr(ky, "_SORT_COUNT", 0)
        patch.setattr(ky, "_SORT_RATIO", 0)
    if path == "float-floors":
        patch.setattr(ky, "walk_integers", lambda *arguments, **keywords: None)
    if path == "unique":
        patch.setattr(ky, "_TABLE_CAP", 0)


@settings(max_examples=60, deadline=None)
@given(gaps=st.lists(st.integers(0, 70_000), min_size=1, max_size=300), cut=st.integers(0, 80_000), sort=st.booleans())
def test_level_counts_are_bincounts(gaps: list[int], cut: int, sort: bool) -> None:
    """Every way of counting the levels gives ``bincount``'s counts of the gaps up to ``min(spread, cut)``."""
    array = np.array(gaps, dtype=np.int64)
    spread = int(array.max())
    limit = min(spread, cut)
    with pytest.MonkeyPatch.context() as patch:
        if sort:
            patch.setattr(ky, "_SORT_COUNT", 0)
            patch.setattr(ky, "_SORT_RATIO", 0)
        counts = ky._level_counts(array, spread, limit)
    assert counts.tolist() == np.bincount(array, minlength=limit + 1)[: limit + 1].tolist()


@settings(max_examples=80, deadline=None)
@given(
    offset=st.sampled_from([0, -(2**63), 2**63 - 2**16, -(2**31), 2**16 - 7, -(2**16) + 3]) | st.integers(-(2**63), 2**63 - 2**16),
    gaps=st.lists(st.integers(0, 2**16 - 1), min_size=1, max_size=40),
)
def test_sixteen_bit_gaps_are_the_gaps(offset: int, gaps: list[int]) -> None:
    """The 16-bit gaps of the sorted count equal ``top − nums`` wherever the scores sit in int64, ends included."""
    nums = np.array([offset + (2**16 - 1) - g for g in gaps], dtype=np.int64)
    top, bottom = int(nums.max()), int(nums.min())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ky, "_SORT_COUNT", 0)
        patch.setattr(ky, "_SORT_RATIO", 0)
        sixteen = ky._gaps(nums, top, top - bottom)
    assert sixteen.dtype == np.uint16
    assert sixteen.tolist() == [top - int(x) for x in nums.tolist()]


def draw_on_path(path: str, nums: np.ndarray, rate: Fraction, rng: random.Random, bits: RandomBits) -> int:
    """One draw of ``draw_levels`` forced onto ``path``."""
    with pytest.MonkeyPatch.context() as patch:
        force_path(patch, path)
        found = ky.draw_levels(nums, int(nums.max()), int(nums.min()), rate, rng, bits, float_bits=4 if path.endswith("exact") else None)
    assert found is not None
    return found


@settings(max_examples=40, deadline=None)
@given(
    scores=st.lists(st.integers(-6, 6), min_size=2, max_size=9),
    far=st.booleans(),
    rate=st.sampled_from([Fraction(1, 3), Fraction(1), Fraction(5, 2), Fraction(1, 10)]),
    seed=st.integers(0, 2**32),
)
def test_every_path_is_the_same_knuth_yao_map(scores: list[int], far: bool, rate: Fraction, seed: int) -> None:
    """On the same bits, every path returns the output an independent 300-digit Knuth–Yao walk returns, after as many bits."""
    if far:  # an output past the cutoff (probability below 2^-64 / n), still within the reference's 300 digits
        scores = scores + [min(scores) - math.ceil(250 / rate)]
    nums = np.array(scores, dtype=np.int64)
    gaps = (nums.max() - nums).tolist()
    expected = []
    reference = StreamRandom(seed)
    for _ in range(12):
        expected.append(reference_walk(gaps, rate, reference))
    for path in PATHS:
        rng, bits = StreamRandom(seed), RandomBits()
        for output, used in expected:
            before = bits.consumed
            assert draw_on_path(path, nums, rate, rng, bits) == output, path
            assert bits.consumed - before == used, path


@pytest.mark.parametrize("n", [2, 3, 5, 8, 12, 255, 257])
def test_equal_scores_walk_the_same_map(n: int) -> None:
    """Equal scores (the uniform law, walked in integers) give the reference walk's output after as many bits."""
    nums = np.full(n, -4, dtype=np.int64)
    reference, rng, bits = StreamRandom(n), StreamRandom(n), RandomBits()
    for _ in range(30):
        output, used = reference_walk([0] * n, Fraction(1), reference)
        before = bits.consumed
        assert ky.draw_levels(nums, -4, -4, Fraction(1), rng, bits) == output
        assert bits.consumed - before == used


@pytest.mark.parametrize("scores", [[0, 0, -250], [0, 0, 0, 0, -240, -250], [3, 3, -30, -250], [0, 0, -48, -49]])
def test_probabilities_next_to_a_dyadic_rational_walk_the_same_map(scores: list[int]) -> None:
    """Tied best outputs and the rest far below (p = 1/(2 + r), r below a float's ulp) give the reference's outputs and bit counts on every path."""
    nums = np.array(scores, dtype=np.int64)
    gaps = (nums.max() - nums).tolist()
    reference = StreamRandom(7)
    expected = [reference_walk(gaps, Fraction(1), reference) for _ in range(40)]
    for path in PATHS:
        rng, bits = StreamRandom(7), RandomBits()
        for output, used in expected:
            before = bits.consumed
            assert draw_on_path(path, nums, Fraction(1), rng, bits) == output, path
            assert bits.consumed - before == used, path


def test_one_output_and_equal_scores_read_no_extra_bits() -> None:
    """One output reads no bit; equal scores walk 1/n in integers (a power of two reads exactly log2 n bits)."""
    bits, rng = RandomBits(), random.Random(SEED)
    assert ky.draw_levels(np.array([5]), 5, 5, Fraction(1), rng, bits) == 0
    assert bits.consumed == 0
    draws = [ky.draw_levels(np.full(8, 3), 3, 3, Fraction(1), rng, bits) for _ in range(4000)]
    assert bits.consumed == 3 * 4000
    assert chi_square_pvalue(Counter(draws), {i: 1 / 8 for i in range(8)}) > ALPHA


def quality(dataset, r):
    """Rank quality of the median in halves: −|#{x < r} − #{x > r}| / 2, exactly."""
    below = sum(1 for x in dataset if x < r)
    above = sum(1 for x in dataset if x > r)
    return -Fraction(abs(below - above), 2)


DATA = (1, 2, 2, 3, 3, 3, 7)
OUTPUTS = range(9)


@pytest.mark.parametrize(
    "path,size",
    [("top", 4000), ("small", 4000), ("levels", 4000), ("sorted-counts", 4000), ("float-floors", 4000), ("unique", 4000),
     pytest.param("exact", 1500, marks=pytest.mark.slow)],
)
def test_fresh_draws_fit_and_have_power_on_every_path(path: str, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """ExponentialMechanism.sample fits the exact law on each path; at 0.7ε and 1.3ε the same test rejects it.

    At ε = 1 on this law the chi-square test at α = 10⁻³ has power above 1 − 10⁻⁵ against 0.7ε and 1.3ε from
    1,500 draws (noncentrality over 60), so the slow exact walk gets 1,500 and the float paths 4,000.  The exact
    walk's fit is in the slow tier (about 2 ms a draw); by default it is held to the reference walk, output by
    output and bit by bit, in ``test_every_path_is_the_same_knuth_yao_map``.
    """
    force_path(monkeypatch, path)
    if path == "exact":
        monkeypatch.setattr(ky, "FLOAT_BITS", 3)
    epsilon = Fraction(1)
    truth = ExponentialMechanism(quality, epsilon=epsilon, outputs=OUTPUTS).distribution(DATA).approximate()
    for factor, fits in [(1, True), *[(f, False) for f in WRONG_FACTORS]]:
        mech, rng = ExponentialMechanism(quality, epsilon=epsilon * factor, outputs=OUTPUTS), random.Random(SEED)
        counts = Counter(mech.sample(DATA, rng=rng) for _ in range(size))
        assert (chi_square_pvalue(counts, truth) > ALPHA) is fits, (path, factor)


def knuth_yao_expected_bits(probabilities: list[mpmath.mpf], depth: int = 200) -> mpmath.mpf:
    """``Σ_i Σ_k k·bit_k(p_i)·2^{−k}``: the expected number of bits of a Knuth–Yao walk (to 200 places)."""
    total = mpmath.mpf(0)
    for p in probabilities:
        for k in range(1, depth):
            if int(mpmath.floor(p * mpmath.mpf(2) ** k)) % 2:
                total += k * mpmath.mpf(2) ** -k
    return total


@settings(max_examples=8, deadline=None)
@given(scores=st.lists(st.integers(-8, 0), min_size=2, max_size=12), rate=st.sampled_from([Fraction(1, 4), Fraction(1), Fraction(3)]))
def test_bits_per_draw_are_knuth_yaos_below_entropy_plus_two(scores: list[int], rate: Fraction) -> None:
    """Draws read Knuth–Yao's expected number of bits (within 5 standard errors), and that is below H + 2."""
    with mpmath.workdps(60):
        weights = [mpmath.exp(-mpmath.mpf(rate.numerator) / rate.denominator * (max(scores) - s)) for s in scores]
        total = mpmath.fsum(weights)
        probabilities = [w / total for w in weights]
        entropy = -mpmath.fsum(p * mpmath.log(p, 2) for p in probabilities)
        expected = knuth_yao_expected_bits(probabilities)
        assert entropy <= expected < entropy + 2
    nums = np.array(scores, dtype=np.int64)
    bits, rng = RandomBits(), random.Random(SEED)
    counts = []
    for _ in range(3000):
        before = bits.consumed
        ky.draw_levels(nums, int(nums.max()), int(nums.min()), rate, rng, bits)
        counts.append(bits.consumed - before)
    mean = sum(counts) / len(counts)
    spread = math.sqrt(sum((c - mean) ** 2 for c in counts) / len(counts)) / math.sqrt(len(counts))
    assert abs(mean - float(expected)) <= 5 * spread + 1e-9


def test_a_draw_leaves_its_unread_bits_for_the_next() -> None:
    """Bits a draw does not read stay buffered: 1,000 draws from a law of 3 bits take far fewer than 1,000 × 64 bits from the generator."""

    class Counting(random.Random):
        drawn = 0

        def getrandbits(self, k: int) -> int:  # noqa: D102 - counts what is asked of the generator
            Counting.drawn += k
            return super().getrandbits(k)

    rng = Counting(SEED)
    mech = ExponentialMechanism(quality, epsilon=Fraction(1, 2), outputs=OUTPUTS)
    for _ in range(1000):
        mech.sample(DATA, rng=rng)
    assert bits_of(rng).consumed <= Counting.drawn < bits_of(rng).consumed + 2 * 256
    assert Counting.drawn < 1000 * 8


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_never_reuses_its_parents_buffered_bits() -> None:
    """After os.fork the child's buffers are empty, so parent and child never draw the same buffered bits."""
    rng = random.Random(SEED)
    bits = bits_of(rng)
    bits.peek(rng, 8)  # fills the buffer with 256 bits
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report whether its buffer is empty
        os.close(read)
        os.write(write, b"1" if bits_of(rng)._count == 0 else b"0")
        os._exit(0)
    os.close(write)
    answer = os.read(read, 1)
    os.waitpid(pid, 0)
    assert answer == b"1"
    assert bits._count >= 8  # the parent keeps its own


@pytest.mark.parametrize(
    "scores",
    [
        [0, 2**62, -(2**62)],  # past int64 after the shift: the general exact path
        [Fraction(1, 2**70), 0, Fraction(-3, 2**70)],  # a denominator past 2^63
        [10**30, 10**30 - 1],  # numerators past int64
    ],
)
def test_scores_the_walk_cannot_hold_go_to_the_general_exact_path(scores: list) -> None:
    """Scores past int64 (or whose rate leaves float range) are drawn by the general exact path, and still fit."""
    mech = ExponentialMechanism(lambda d, r: scores[r], epsilon=Fraction(1, 2), outputs=range(len(scores)))
    truth = mech.distribution(None).approximate()
    rng = random.Random(SEED)
    counts = Counter(mech.sample(None, rng=rng) for _ in range(3000))
    assert chi_square_pvalue(counts, truth) > ALPHA
