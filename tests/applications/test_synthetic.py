"""The BLR synthetic-data mechanism: exact distribution, certificate, usefulness, sampling, the command."""

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
import sympy

from expmech.impl import ExponentialMechanism
from expmech.impl.applications._synthetic import SyntheticDataMechanism, conjunctions, halfspaces
from expmech.proofs import Status, certify, check_certificate, prove_sensitivity
from expmech.proofs.cli import main
from expmech.spec import DATASET_SIZE, InvalidArgument, derive_epsilon
from stats import chi_square_pvalue

DATA = [(1, 0, 1), (1, 1, 1), (0, 0, 1), (1, 0, 0), (1, 1, 0), (0, 1, 1)]


def test_multisets_with_multinomial_measure_equal_the_ordered_mechanism():
    """Aggregated over orderings, the multiset distribution is exactly the source's over ({0,1}^k)^m."""
    mech = SyntheticDataMechanism(DATA, k=3, m=2, epsilon=1, queries=halfspaces(3))
    records = mech.records

    def ordered_quality(_, synthetic):
        counts = tuple(sum(1 for y in synthetic if y == x) for x in records)
        return mech.quality(counts)

    tuples = list(itertools.product(records, repeat=2))
    ordered = ExponentialMechanism(ordered_quality, epsilon=mech.exponent_scale, outputs=tuples).distribution(None)
    for counts in mech.multisets():
        members = [t for t in tuples if tuple(sum(1 for y in t if y == x) for x in records) == counts]
        assert mech.probability(counts) == ordered.mass(members)


def test_quality_function_agrees_with_the_mechanism():
    """The spec-language q equals the mechanism's exact q on every multiset."""
    mech = SyntheticDataMechanism(DATA, k=3, m=2, epsilon=1, queries=conjunctions(3))
    q = mech.quality_function()
    records = mech.dataset_records()
    for counts in mech.multisets():
        assert q(records, counts) == mech.quality(counts)


def test_sensitivity_is_proved_one_over_n_and_epsilon_derived():
    """GS_q <= 1/n is PROVED and tight; ε·n/2 · 2 · 1/n = ε symbolically; the certificate checks."""
    mech = SyntheticDataMechanism(DATA, k=3, m=2, epsilon=Fraction(1, 2), queries=halfspaces(3))
    q, outputs = mech.quality_function(), mech.output_list()
    result = prove_sensitivity(q, neighbours="replace-one", claimed=1 / DATASET_SIZE, outputs=outputs)
    assert result.status is Status.PROVED and result.bound == 1 / DATASET_SIZE and result.tight
    eps = sympy.Symbol("epsilon", positive=True)
    assert derive_epsilon(eps * DATASET_SIZE / 2, 1 / DATASET_SIZE) == eps
    certificate = certify(q, epsilon=mech.exponent_scale, neighbours="replace-one", claimed=1 / DATASET_SIZE,
                          outputs=outputs, base_measure=mech.base_measure(), pairs=3)
    at_n = sympy.sympify(certificate.epsilon, locals={"n": DATASET_SIZE}).subs(DATASET_SIZE, mech.n)
    assert certificate.status is Status.PROVED and at_n == Fraction(1, 2)
    assert check_certificate(certificate.data).ok


def test_usefulness_is_exact_and_meets_the_source_bound():
    """With n above the source's sufficient size, Pr[q <= −α] <= δ, computed exactly."""
    rng = random.Random(5)
    alpha, delta, eps = Fraction(1, 2), Fraction(1, 4), Fraction(2)
    mech0 = SyntheticDataMechanism(DATA, k=3, m=1, epsilon=eps, queries=conjunctions(3, width=1))
    n = int(mech0.source_sufficient_n(alpha, delta)) + 1
    data = [tuple(rng.randint(0, 1) for _ in range(3)) for _ in range(n)]
    mech = SyntheticDataMechanism(data, k=3, m=1, epsilon=eps, queries=conjunctions(3, width=1))
    if max(mech.levels()) >= -alpha / 2:  # the source's "good D̂ exists" hypothesis
        assert mech.probability_error_at_least(alpha) <= delta
    assert mech.probability_error_above(0) <= 1 and mech.probability_error_at_least(0) == 1


def test_exact_sampler_fits_the_level_distribution():
    """Releases fit the exact distribution over multisets (chi-square, fixed seed)."""
    mech = SyntheticDataMechanism(DATA, k=3, m=2, epsilon=1, queries=halfspaces(3))
    rng = random.Random(11)
    counts = Counter()
    for _ in range(4000):
        released = mech.sample(rng=rng)
        counts[tuple(sum(1 for y in released if y == x) for x in mech.records)] += 1
    truth = {c: float(mech.probability(c)) for c in mech.multisets()}
    assert chi_square_pvalue(counts, truth) > 1e-3


def test_bad_input():
    """Bad records, k, m and empty classes are refused by name."""
    with pytest.raises(InvalidArgument, match=r"data\[0\]=\(1, 2\) must be 2 bits"):
        SyntheticDataMechanism([(1, 2)], k=2, m=1, epsilon=1, queries=halfspaces(2))
    with pytest.raises(InvalidArgument, match="m=0"):
        SyntheticDataMechanism([(1, 0)], k=2, m=0, epsilon=1, queries=halfspaces(2))
    with pytest.raises(InvalidArgument, match="queries must not be empty"):
        SyntheticDataMechanism([(1, 0)], k=2, m=1, epsilon=1, queries=[])


def test_synth_command(tmp_path, capsys):
    """`expmech synth` releases m records, prints the certified ε and the exact usefulness, and plots."""
    data = tmp_path / "bits.csv"
    data.write_text("a,b,c\n" + "\n".join(",".join(map(str, row)) for row in DATA * 3) + "\n")
    plot, cert = tmp_path / "err.png", tmp_path / "s.cert.json"
    code = main(["synth", str(data), "--m", "2", "--seed", "3", "--plot", str(plot), "--certificate", str(cert)])
    out = capsys.readouterr().out
    assert code == 0
    assert "certificate: PROVED" in out and "at n = 18: ε = 1" in out
    released = out.split("synthetic dataset:\n")[1].split("plot written")[0].split()
    assert len(released) == 2 and all(len(row.split(",")) == 3 for row in released)
    assert plot.read_bytes()[:4] == b"\x89PNG" and check_certificate(cert).ok
    bad = tmp_path / "bad.csv"
    bad.write_text("1,0\n1,2\n")
    assert main(["synth", str(bad), "--m", "1"]) == 2


@pytest.mark.parametrize("k, family", [(3, "halfspaces"), (3, "conjunctions"), (4, "halfspaces"), (4, "conjunctions")])
def test_vc_dimension_matches_the_definition(k, family):
    """The vectorised VC dimension equals a brute-force search over every subset of points."""
    queries = (halfspaces if family == "halfspaces" else conjunctions)(k)
    rng = random.Random(k)
    for subset_size in (len(queries), max(1, len(queries) // 3)):
        chosen = rng.sample(queries, subset_size)
        mech = SyntheticDataMechanism(DATA if k == 3 else [(1, 0, 1, 1)], k=k, m=1, epsilon=1, queries=chosen)
        points = mech.records
        best = 0
        for size in range(1, 7):
            if any(
                len({tuple(int(q.predicate(points[i])) for i in subset) for q in chosen}) == 2**size
                for subset in itertools.combinations(range(len(points)), size)
            ):
                best = size
            else:
                break
        assert mech.vc_dimension() == best


def test_vectorised_levels_equal_a_streamed_pass():
    """levels() and base_measure() equal the per-multiset definitions."""
    from expmech.impl.applications._synthetic import _compositions

    rng = random.Random(5)
    data = [tuple(rng.randint(0, 1) for _ in range(4)) for _ in range(17)]
    mech = SyntheticDataMechanism(data, k=4, m=3, epsilon=1, queries=conjunctions(4))
    assert list(mech.multisets()) == list(_compositions(3, 16))
    levels: dict = {}
    for counts in _compositions(3, 16):
        q = mech.quality(counts)
        levels[q] = levels.get(q, 0) + mech.multiplicity(counts)
    assert mech.levels() == levels
    assert all(w == mech.multiplicity(c) for c, w in mech.base_measure().items())
