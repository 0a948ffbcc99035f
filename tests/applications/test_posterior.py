"""Posterior sampling as an exponential mechanism: the exact law, the likelihood-ratio proof, ε = 2·ε₀·ln ρ."""

import copy
import doctest
import json
import random
from collections import Counter
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import expmech.impl.exact._loglinear
import expmech.impl.applications._posterior
import expmech.spec._likelihood
from expmech.impl import POSTERIOR_CATALOGUE, LogLinear, PosteriorSampling
from expmech.proofs import Status, certify, check_certificate
from expmech.proofs.cli import main
from expmech.proofs.conformance import FAMILIES, Finding, search_dropped_hypothesis
from expmech.proofs.conformance._posterior_family import bernoulli_likelihood
from expmech.proofs.prover._likelihood import prove_likelihood_ratio
from expmech.spec import (
    BetaPrior,
    Booleans,
    Categories,
    Grid,
    IntRange,
    InvalidArgument,
    InvalidType,
    LogLikelihood,
    OutputSpace,
    QualityError,
    RationalRange,
    RecordSchema,
    count,
    statement,
)
from stats import chi_square_pvalue

ALPHA = 1e-3


@st.composite
def bernoulli_cases(draw, clipped=True):
    """A clipped grid of tenths, a prior, an integer ε₀ and two neighbouring bit datasets."""
    tenths = draw(st.lists(st.integers(1, 9) if clipped else st.integers(0, 10), min_size=2, max_size=5, unique=True))
    grid = tuple(sorted(Fraction(t, 10) for t in tenths))
    prior = draw(st.lists(st.integers(1, 5), min_size=len(grid), max_size=len(grid)))
    data = draw(st.lists(st.integers(0, 1), min_size=1, max_size=6))
    position = draw(st.integers(0, len(data) - 1))
    other = list(data)
    other[position] = 1 - other[position]
    eps0 = draw(st.integers(1, 3))
    return grid, [Fraction(p) for p in prior], data, other, eps0


def _sympy_law(grid, prior, data, eps0):
    """The posterior by sympy rationals: an independent path."""
    weights = []
    for theta, m in zip(grid, prior):
        theta = sympy.Rational(theta.numerator, theta.denominator)
        lik = sympy.Integer(1)
        for x in data:
            lik *= theta if x else 1 - theta
        weights.append(sympy.Rational(m.numerator, m.denominator) * lik**eps0)
    total = sum(weights)
    return [w / total for w in weights]


@settings(max_examples=60, deadline=None)
@given(case=bernoulli_cases())
def test_law_is_the_tempered_posterior_exactly(case):
    """p(θ) = π(θ) L(d|θ)^{ε₀} / Σ, equal to a sympy computation to the last digit, and it sums to 1."""
    grid, prior, data, _, eps0 = case
    dist = PosteriorSampling(bernoulli_likelihood(grid), epsilon=eps0, base_measure=dict(zip(grid, prior))).distribution(data)
    expected = _sympy_law(grid, prior, data, eps0)
    for theta, p in zip(grid, expected):
        assert dist.probability(theta) == Fraction(int(p.p), int(p.q))
    assert dist.mass(grid) == 1


@settings(max_examples=60, deadline=None)
@given(case=bernoulli_cases())
def test_privacy_loss_is_exact_and_within_the_certified_epsilon(case):
    """The exact loss between neighbours is max_θ |ln p1 − ln p2| (checked at 60 digits) and <= 2·ε₀·ln ρ."""
    grid, prior, data, other, eps0 = case
    mech = PosteriorSampling(bernoulli_likelihood(grid), epsilon=eps0, base_measure=dict(zip(grid, prior)))
    loss = mech.privacy_loss(data, other)
    mpmath.mp.dps = 60
    p1, p2 = _sympy_law(grid, prior, data, eps0), _sympy_law(grid, prior, other, eps0)
    exact = max(abs(mpmath.log(mpmath.mpf(int(a.p)) / int(a.q)) - mpmath.log(mpmath.mpf(int(b.p)) / int(b.q))) for a, b in zip(p1, p2))
    lo, hi = loss.enclose(150)
    assert mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf(10) ** -40 <= exact <= mpmath.mpf(hi.numerator) / hi.denominator + mpmath.mpf(10) ** -40
    rho = max(max(t / (1 - t), (1 - t) / t) for t in grid)
    assert loss <= 2 * eps0 * sympy.log(sympy.Rational(rho.numerator, rho.denominator))
    assert loss <= hi and loss >= lo and not loss < lo


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(case=bernoulli_cases(clipped=False))
def test_unclipped_grids_can_lose_everything(case):
    """With θ = 0 or 1 on the grid (positive prior there), the pair [1], [0] has an infinite loss."""
    grid, prior, _, _, eps0 = case
    assume(grid[0] == 0 or grid[-1] == 1)
    mech = PosteriorSampling(bernoulli_likelihood(grid), epsilon=eps0, base_measure=dict(zip(grid, prior)))
    loss = mech.privacy_loss([1], [0])
    assert loss.value.infinite and loss > 10**9 and loss.output in (0, 1)


def test_sampler_fits_the_exact_law_and_has_power():
    """Draws fit the exact law; the same draws are rejected against the law tempered by ε₀·(1 ± 0.3)."""
    grid = tuple(Fraction(i, 10) for i in range(1, 10))
    mech = PosteriorSampling(bernoulli_likelihood(grid), epsilon=1)
    data = [1, 1, 0, 1, 0, 1, 1, 1]
    dist = mech.distribution(data)
    rng = random.Random(7)
    counts = Counter(dist.sample(rng=rng) for _ in range(20_000))
    truth = {theta: float(dist.probability(theta)) for theta in grid}
    assert chi_square_pvalue(counts, truth) > ALPHA
    for factor in (0.7, 1.3):
        weights = {t: float(t) ** (6 * factor) * (1 - float(t)) ** (2 * factor) for t in grid}
        total = sum(weights.values())
        assert chi_square_pvalue(counts, {t: w / total for t, w in weights.items()}) < ALPHA


@settings(max_examples=40, deadline=None)
@given(tenths=st.lists(st.integers(0, 10), min_size=1, max_size=6, unique=True), relation=st.sampled_from(["replace-one", "add-remove"]))
def test_likelihood_ratio_is_proved_exactly_or_refuted(tenths, relation):
    """On a grid, ρ is the brute-force maximum ratio (tight witness); with θ = 0 or 1 it is refuted (Δq = ∞)."""
    grid = tuple(sorted(Fraction(t, 10) for t in tenths))
    result = prove_likelihood_ratio(bernoulli_likelihood(grid), neighbours=relation)
    if grid[0] == 0 or grid[-1] == 1:
        assert result.status is Status.REFUTED and result.bound is sympy.oo and result.counterexample.ratio == 0
        return
    if relation == "replace-one":
        brute = max(max(t / (1 - t), (1 - t) / t) for t in grid)
    else:
        brute = max(max(1 / t, 1 / (1 - t)) for t in grid)
    assert result.status is Status.PROVED and result.ratio == brute and result.tight
    assert result.witness.ratio == brute and result.bound == sympy.log(sympy.Rational(brute.numerator, brute.denominator))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lo=st.integers(1, 8), width=st.integers(1, 8))
def test_continuous_parameter_interval_is_proved_at_its_ends(lo, width):
    """θ ∈ [a, b] (continuous): z3 proves ρ = max(b/(1−b), (1−a)/a), attained at an end."""
    a, b = Fraction(lo, 10), Fraction(min(lo + width, 9), 10)
    schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=RationalRange(a, b))
    x, theta = schema["x"], outputs["theta"]
    ell = LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs)
    result = prove_likelihood_ratio(ell, neighbours="replace-one")
    assert result.status is Status.PROVED and result.ratio == max(b / (1 - b), (1 - a) / a, Fraction(1))


def test_an_interior_maximum_is_never_proved_wrong():
    """When the largest ratio is inside the interval, the answer is the exact maximum or UNKNOWN — never a wrong ρ."""
    schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=RationalRange(Fraction(1, 5), Fraction(9, 10)))
    x, theta = schema["x"], outputs["theta"]
    ell = LogLikelihood(sympy.Piecewise((4 * theta * (1 - theta), sympy.Eq(x, 1)), (sympy.Rational(1, 2), True)), schema=schema, outputs=outputs)
    result = prove_likelihood_ratio(ell, neighbours="replace-one")
    assert result.status is Status.UNKNOWN or (result.status is Status.PROVED and result.ratio == 2)


def test_claims_are_compared_exactly_with_ln_rho():
    """ln 9 is PROVED against claims ln 9, 2·ln 3 and 3, and REFUTED against ln 8 and 2 (e² < 9)."""
    ell = bernoulli_likelihood(tuple(Fraction(i, 10) for i in range(1, 10)))
    for claim in (sympy.log(9), 2 * sympy.log(3), 3):
        assert prove_likelihood_ratio(ell, neighbours="replace-one", claimed=claim).status is Status.PROVED
    for claim in (sympy.log(8), 2):
        result = prove_likelihood_ratio(ell, neighbours="replace-one", claimed=claim)
        assert result.status is Status.REFUTED and result.counterexample.ratio == 9
    with pytest.raises(InvalidArgument, match="claimed="):
        prove_likelihood_ratio(ell, neighbours="replace-one", claimed=sympy.sqrt(2))


def test_a_categorical_likelihood_is_a_finite_hypothesis_class():
    """A likelihood table over categories gives ρ = the largest column ratio."""
    entry = next(e for e in POSTERIOR_CATALOGUE if e.name == "posterior-categorical-tempered")
    result = prove_likelihood_ratio(entry.quality, neighbours="replace-one")
    assert result.status is Status.PROVED and result.ratio == 2


@pytest.mark.parametrize("entry", POSTERIOR_CATALOGUE, ids=lambda e: e.name)
def test_catalogue_certificates_check(entry, tmp_path):
    """Each posterior entry is certified with ε = 2·ε₀·ln ρ, and the independent checker accepts it."""
    cert = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, base_measure=entry.base_measure)
    assert cert.status is Status.PROVED
    assert LogLinear.from_sympy(sympy.sympify(cert.epsilon, locals={"log": sympy.log})) == LogLinear.from_sympy(2 * entry.epsilon * entry.claimed_sensitivity)
    report = check_certificate(json.loads(cert.to_json()))
    assert report.ok, report.problems
    ids = [c["id"] for c in cert.statement["predicate"]["claims"]]
    assert ids[:2] == ["sensitivity", "privacy"]
    conformance = next(c for c in cert.statement["predicate"]["claims"] if c["id"] == "conformance")
    assert conformance["status"] == "TESTED" and not conformance["violations"]


def _reseal(data):
    from expmech.proofs.certificate.make._build import seal

    return {**data, **seal(data["certificate"])}


@pytest.mark.parametrize(
    "tamper, problem, reproduce",
    [
        (lambda p: p["claims"][0].update(ratio="8"), "claim sensitivity: rejected: tight without a ratio witness attaining the root's ρ", False),
        (lambda p: p.update(epsilon="log(80)"), "claim privacy: dp_claim is true, but ε is not an accepted privacy claim's", False),
        (lambda p: p["claims"][1].update(sensitivity="log(8)"), "claim privacy: rejected: sensitivity = 'log(8)' is not the accepted derivation's value", False),
        (lambda p: p["claims"][0]["ratio_witness"].update(output={"rational": "1/2"}), "claim sensitivity: rejected: the ratio witness does not re-evaluate to ρ", False),
        (lambda p: p["mechanism"].update(neighbours="add-remove"), "claim sensitivity: rejected: relation 'replace-one' is not the mechanism's 'add-remove'", False),
        # a recorded solver query is provenance: the verifier does not read it, check --reproduce regenerates it
        (lambda p: p["claims"][0]["evidence"]["queries"][2].update(smt2="(set-logic QF_LRA)\n(declare-fun q () Real)\n(assert (> q 0))\n(check-sat)\n"),
         "claim sensitivity: evidence.queries[2].smt2: not the regenerated query", True),
    ],
)
def test_tampered_posterior_certificates_are_rejected(tamper, problem, reproduce):
    """A changed ρ, ε, witness or relation — even re-sealed with a fresh digest — is rejected by the verifier; a changed
    solver query (provenance) by check --reproduce, which regenerates it."""
    entry = POSTERIOR_CATALOGUE[0]
    cert = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, base_measure=entry.base_measure, pairs=3)
    data = copy.deepcopy(cert.data)
    tamper(data["certificate"]["predicate"])
    report = check_certificate(_reseal(data), reproduce=reproduce)
    assert not report.ok and report.exit_code == 1 and any(problem in p for p in report.problems), report.problems


def test_unclipped_posterior_gets_no_certificate(capsys, tmp_path):
    """θ reaching 0 gives REFUTED with the vanishing likelihood as counterexample, no ε; verify exits 1."""
    ell = bernoulli_likelihood((Fraction(0), Fraction(1, 2), Fraction(9, 10)))
    cert = certify(ell, epsilon=1, neighbours="replace-one")
    assert cert.status is Status.REFUTED and cert.epsilon is None
    assert check_certificate(json.loads(cert.to_json())).ok
    module = tmp_path / "unclipped_model.py"
    module.write_text(
        "from fractions import Fraction\nfrom expmech.proofs.conformance._posterior_family import bernoulli_likelihood\n"
        "TARGET = {'quality': bernoulli_likelihood((Fraction(0), Fraction(1, 2))), 'epsilon': 1, 'neighbours': 'replace-one'}\n"
    )
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        assert main(["verify", "unclipped_model:TARGET"]) == 1
    finally:
        sys.path.remove(str(tmp_path))
    assert "no ε-DP claim" in capsys.readouterr().out


def test_verify_lists_the_posterior_catalogue(capsys):
    """`expmech verify expmech.impl:POSTERIOR_CATALOGUE` certifies both entries with a logarithmic ε."""
    assert main(["verify", "expmech.impl:POSTERIOR_CATALOGUE"]) == 0
    out = capsys.readouterr().out
    assert "posterior-bernoulli  ε = log(81)" in out and "posterior-categorical-tempered  ε = log(2)" in out


@pytest.mark.parametrize("hypothesis_id", [h.id for h in statement("posterior-sampling").hypotheses])
def test_every_hypothesis_of_posterior_sampling_is_needed(hypothesis_id):
    """Dropping any hypothesis gives a concrete instance beating 2·ε₀·ln ρ (or with no law), re-checked exactly."""
    result = search_dropped_hypothesis("posterior-sampling", hypothesis_id, attempts=2000, seed=1)
    assert result.finding is Finding.NEEDED, result.detail
    evaluation = FAMILIES["posterior-sampling"].evaluate(result.counterexample)
    assert evaluation.hypotheses[hypothesis_id] is False
    assert all(v for k, v in evaluation.hypotheses.items() if k != hypothesis_id)
    assert evaluation.conclusion is not True
    if hypothesis_id == "clipped":
        assert "loss ∞" in evaluation.detail


def test_log_linear_decides_equalities_without_factoring():
    """Sums of logs over different bases are compared exactly: equal ones are equal, near ones are told apart."""
    assert LogLinear.log(Fraction(9, 4)) == 2 * LogLinear.log(Fraction(3, 2))
    assert LogLinear.log(6) - LogLinear.log(2) - LogLinear.log(3) == 0
    assert LogLinear.log(2**64) == 64 * LogLinear.log(2)
    near = LogLinear.log(3**40) - 63 * LogLinear.log(2)  # 3^40 / 2^63 ≈ 1.3: positive but close to ln terms
    assert near > 0 and LogLinear.log(2**63 + 1) > 63 * LogLinear.log(2)
    assert 1 + LogLinear.log(Fraction(1, 3)) < 0 and LogLinear.log(3) > 1
    assert LogLinear.infinity() > 10**100 and LogLinear.infinity() == LogLinear.infinity()


@settings(max_examples=200, deadline=None)
@given(
    terms=st.lists(st.tuples(st.fractions(Fraction(1, 20), 50, max_denominator=20), st.integers(-4, 4)), min_size=1, max_size=4),
    constant=st.sampled_from([Fraction(0), Fraction(1, 3), Fraction(-2)]),
)
def test_log_linear_signs_agree_with_high_precision(terms, constant):
    """The exact sign agrees with a 100-digit mpmath evaluation whenever that one is clear of 0; zero only when exactly zero."""
    value = LogLinear(constant, [(rho, c) for rho, c in terms])
    mpmath.mp.dps = 100
    approx = mpmath.mpf(constant.numerator) / constant.denominator + sum(
        c * mpmath.log(mpmath.mpf(r.numerator) / r.denominator) for r, c in terms
    )
    if abs(approx) > mpmath.mpf(10) ** -80:
        assert value.sign() == (1 if approx > 0 else -1)
    else:
        product = Fraction(1)
        for r, c in terms:
            product *= r**c
        assert value.is_zero() == (constant == 0 and product == 1)


@given(numbers=st.lists(st.integers(1, 10**6), min_size=1, max_size=6))
def test_coprime_base_is_coprime_and_covers_its_inputs(numbers):
    """Every pair of the base is coprime, and every input is a product of its powers."""
    import math

    from expmech.impl.exact._loglinear import coprime_base

    base = coprime_base(numbers)
    assert all(math.gcd(a, b) == 1 for i, a in enumerate(base) for b in base[i + 1 :])
    for n in numbers:
        for b in base:
            while n % b == 0:
                n //= b
        assert n == 1


def test_bad_input_is_refused_by_name():
    """Aggregates in ℓ, floats, name clashes, a fractional ε₀ for the exact law, a negative likelihood, bad grids."""
    schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=Grid((Fraction(1, 4), Fraction(3, 4))))
    x, theta = schema["x"], outputs["theta"]
    with pytest.raises(InvalidArgument, match="aggregate count"):
        LogLikelihood(count(x) * theta, schema=schema, outputs=outputs)
    with pytest.raises(InvalidArgument, match="inexact number"):
        LogLikelihood(theta * 0.5, schema=schema, outputs=outputs)
    with pytest.raises(InvalidType, match="schema="):
        LogLikelihood(theta, schema="x", outputs=outputs)
    with pytest.raises(InvalidArgument, match="names both"):
        LogLikelihood(theta, schema=RecordSchema(theta=Booleans()), outputs=outputs)
    ell = LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs)
    with pytest.raises(InvalidArgument, match="epsilon"):
        PosteriorSampling(ell, epsilon=0)
    with pytest.raises(InvalidType, match="quality="):
        PosteriorSampling(lambda d, r: 0, epsilon=1)
    with pytest.raises(InvalidArgument, match=r"outputs\[0\]"):
        PosteriorSampling(ell, epsilon=1, outputs=[Fraction(1, 2)])
    with pytest.raises(InvalidArgument, match="dataset"):
        PosteriorSampling(ell, epsilon=1).distribution([2])
    negative = LogLikelihood(theta - sympy.Rational(1, 2), schema=schema, outputs=outputs)
    with pytest.raises(QualityError, match="< 0"):
        negative.likelihood([True], Fraction(1, 4))
    refuted = prove_likelihood_ratio(negative, neighbours="replace-one")
    assert refuted.status is Status.REFUTED and refuted.bound is sympy.oo
    with pytest.raises(InvalidArgument, match="must be a bounded interval"):
        PosteriorSampling(LogLikelihood(theta, schema=RecordSchema(c=Categories(("a",))), outputs=OutputSpace(theta=RationalRange(0, None))), epsilon=1)
    vanishing = LogLikelihood(sympy.Piecewise((theta - sympy.Rational(1, 4), sympy.Eq(x, 1)), (1, True)), schema=schema, outputs=outputs)
    with pytest.raises(InvalidArgument, match="weight 0"):  # the prior sits only where the data's likelihood is 0
        PosteriorSampling(vanishing, epsilon=1, base_measure={Fraction(1, 4): 1, Fraction(3, 4): 0}).distribution([True])
    with pytest.raises(InvalidArgument, match="must be a bounded interval"):
        certify(LogLikelihood(theta, schema=schema, outputs=OutputSpace(theta=RationalRange(1, None))), epsilon=1, neighbours="replace-one")
    with pytest.raises(InvalidArgument, match="parameter space must be finite"):
        integers = OutputSpace(k=IntRange(1, None))
        certify(LogLikelihood(1 / integers["k"], schema=schema, outputs=integers), epsilon=1, neighbours="replace-one")


@pytest.mark.parametrize("module", [expmech.spec._likelihood, expmech.impl.exact._loglinear, expmech.impl.applications._posterior])
def test_docstring_examples_run(module):
    """The examples in the docstrings are right."""
    assert doctest.testmod(module).failed == 0


# -- fractional tempering: the law of sums of radicals ------------------------------------------


@settings(max_examples=40, deadline=None)
@given(case=bernoulli_cases(), eps0=st.sampled_from([Fraction(1, 2), Fraction(1, 3), Fraction(3, 2), Fraction(2, 3)]))
def test_fractionally_tempered_law_is_exact(case, eps0):
    """With ε₀ = a/b every p(θ) = π L^{a/b} / Σ is enclosed around a 60-digit mpmath value, sums to 1 exactly, and the loss is <= 2ε₀ ln ρ."""
    grid, prior, data, other, _ = case
    mech = PosteriorSampling(bernoulli_likelihood(grid), epsilon=eps0, base_measure=dict(zip(grid, prior)))
    dist = mech.distribution(data)
    mpmath.mp.dps = 60
    power = mpmath.mpf(eps0.numerator) / eps0.denominator

    def weights(d):
        out = []
        for t, m in zip(grid, prior):
            lik = mpmath.mpf(1)
            for x in d:
                lik *= mpmath.mpf(t.numerator) / t.denominator if x else 1 - mpmath.mpf(t.numerator) / t.denominator
            out.append(m * lik**power)
        return out

    w1 = weights(data)
    for t, w in zip(grid, w1):
        lo, hi = dist.probability(t).enclose(120)
        value = w / sum(w1)
        assert mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf(10) ** -45 <= value <= mpmath.mpf(hi.numerator) / hi.denominator + mpmath.mpf(10) ** -45
    assert dist.mass(grid) == 1
    w2 = weights(other)
    exact = max(abs(mpmath.log(a / sum(w1)) - mpmath.log(b / sum(w2))) for a, b in zip(w1, w2))
    loss = mech.privacy_loss(data, other)
    lo, hi = loss.enclose(120)
    assert mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf(10) ** -45 <= exact <= mpmath.mpf(hi.numerator) / hi.denominator + mpmath.mpf(10) ** -45
    rho = max(max(t / (1 - t), (1 - t) / t) for t in grid)
    assert loss <= 2 * sympy.Rational(eps0.numerator, eps0.denominator) * sympy.log(sympy.Rational(rho.numerator, rho.denominator))


def test_fractional_sampler_fits_the_exact_law_and_has_power():
    """Lazy-bit draws at ε₀ = 1/2 fit the exact law and are rejected against the laws at ε₀·(1 ± 0.3)."""
    grid = tuple(Fraction(i, 10) for i in range(1, 10))
    mech = PosteriorSampling(bernoulli_likelihood(grid), epsilon=Fraction(1, 2))
    data = [1] * 14 + [0] * 4
    dist = mech.distribution(data)
    rng = random.Random(11)
    counts = Counter(dist.sample(rng=rng) for _ in range(20_000))
    assert chi_square_pvalue(counts, {t: float(dist.probability(t)) for t in grid}) > ALPHA
    for factor in (0.7, 1.3):
        weights = {t: (float(t) ** 14 * (1 - float(t)) ** 4) ** (0.5 * factor) for t in grid}
        total = sum(weights.values())
        assert chi_square_pvalue(counts, {t: w / total for t, w in weights.items()}) < ALPHA


def test_radical_sums_decide_zero_and_sign_exactly():
    """Equal radicals written differently are equal; close but unequal sums get the right sign."""
    from expmech.impl.exact._radical import RadicalSum, rational_root

    r2 = RadicalSum.root(2, 2)
    assert RadicalSum.root(8, 2) - 2 * r2 == 0 and r2 * RadicalSum.root(3, 2) == RadicalSum.root(6, 2)
    assert RadicalSum.root(2, 2) * RadicalSum.root(2, 3) == RadicalSum.root(32, 6)
    assert RadicalSum([(1, 2), (1, 3)], index=2) < RadicalSum.root(10, 2)  # 3.146 < 3.162
    assert RadicalSum.root(Fraction(10**20 + 1, 10**20), 2) > 1 and RadicalSum.root(Fraction(10**20 - 1, 10**20), 2) < 1
    assert rational_root(Fraction(27, 8), 3) == Fraction(3, 2) and rational_root(Fraction(28, 8), 3) is None
    assert rational_root(Fraction(3**60 * 7**3, 2**30), 3) == Fraction(3**20 * 7, 2**10)


@settings(max_examples=150, deadline=None)
@given(
    terms=st.lists(st.tuples(st.integers(-5, 5), st.integers(1, 60)), min_size=1, max_size=5),
    index=st.integers(1, 4),
)
def test_radical_sum_signs_agree_with_high_precision(terms, index):
    """The exact sign agrees with 80 digits of mpmath whenever that is clear of 0; a zero sum is found exactly zero."""
    from expmech.impl.exact._radical import RadicalSum

    value = RadicalSum(terms, index=index)
    mpmath.mp.dps = 80
    approx = sum(c * mpmath.root(s, index) for c, s in terms)
    if abs(approx) > mpmath.mpf(10) ** -60:
        assert value.sign() == (1 if approx > 0 else -1)
    else:
        assert value.is_zero()


# -- a continuous parameter: the Beta–Bernoulli polynomial law ----------------------------------


def _interval_likelihood(lo, hi):
    schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=RationalRange(lo, hi))
    x, theta = schema["x"], outputs["theta"]
    return LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs)


@st.composite
def interval_cases(draw, clipped=True):
    """A clipped [a, b] of tenths, Beta(α, β), ε₀ and two neighbouring bit datasets."""
    a = draw(st.integers(1 if clipped else 0, 8))
    b = draw(st.integers(a + 1, 9 if clipped else 10))
    data = draw(st.lists(st.integers(0, 1), min_size=1, max_size=6))
    other = list(data)
    position = draw(st.integers(0, len(data) - 1))
    other[position] = 1 - other[position]
    return Fraction(a, 10), Fraction(b, 10), draw(st.integers(1, 3)), draw(st.integers(1, 3)), data, other, draw(st.integers(1, 3))


@settings(max_examples=40, deadline=None)
@given(case=interval_cases())
def test_continuous_law_matches_sympy_integration(case):
    """Density, CDF and cell masses equal sympy's exact integrals of θ^A (1−θ)^B over [a, b]."""
    lo, hi, alpha, beta, data, _, eps0 = case
    dist = PosteriorSampling(_interval_likelihood(lo, hi), epsilon=eps0, base_measure=BetaPrior(alpha, beta)).distribution(data)
    t = sympy.Symbol("t")
    k = sum(data)
    density = t ** (alpha - 1 + eps0 * k) * (1 - t) ** (beta - 1 + eps0 * (len(data) - k))
    rational = lambda f: sympy.Rational(f.numerator, f.denominator)  # noqa: E731
    total = sympy.integrate(density, (t, rational(lo), rational(hi)))
    middle = (lo + hi) / 2
    assert dist.density(middle) == Fraction(str(density.subs(t, rational(middle)) / total))
    assert dist.cdf(middle) == Fraction(str(sympy.integrate(density, (t, rational(lo), rational(middle))) / total))
    assert dist.cdf(hi) == 1 and dist.cdf(lo) == 0 and dist.cdf(hi + 1) == 1
    cells = dist.cells(grid=Fraction(1, 20))
    assert sum(cells.values()) == 1 and min(cells) == lo
    for value, p in cells.items():
        assert dist.cell_probability(value, grid=Fraction(1, 20)) == p


@settings(max_examples=40, deadline=None)
@given(case=interval_cases())
def test_continuous_privacy_loss_is_exact_and_within_epsilon(case):
    """sup_θ |ln p1 − ln p2| is attained at an end (checked against a 50-digit scan) and is <= 2·ε₀·ln ρ."""
    lo, hi, alpha, beta, data, other, eps0 = case
    mech = PosteriorSampling(_interval_likelihood(lo, hi), epsilon=eps0, base_measure=BetaPrior(alpha, beta))
    d1, d2 = mech.distribution(data), mech.distribution(other)
    loss = mech.privacy_loss(data, other)
    mpmath.mp.dps = 50
    scan = [lo + (hi - lo) * Fraction(i, 64) for i in range(65)]
    largest = max(abs(mpmath.log(mpmath.mpf(d1.density(t).numerator) / d1.density(t).denominator) - mpmath.log(mpmath.mpf(d2.density(t).numerator) / d2.density(t).denominator)) for t in scan)
    lo_loss, hi_loss = loss.enclose(120)
    assert abs(largest - mpmath.mpf(hi_loss.numerator) / hi_loss.denominator) < mpmath.mpf(10) ** -30  # the ends are scanned
    rho = max(hi / (1 - hi), (1 - lo) / lo)
    assert loss <= 2 * eps0 * sympy.log(sympy.Rational(rho.numerator, rho.denominator))


def test_continuous_sampler_fits_the_cells_and_has_power():
    """Draws released on a 1/10 grid fit the exact cell masses and are rejected against the law tempered by 0.7 and 1.3."""
    lo, hi = Fraction(1, 10), Fraction(9, 10)
    mech = PosteriorSampling(_interval_likelihood(lo, hi), epsilon=1, base_measure=BetaPrior(2, 2))
    data = [1] * 9 + [0] * 3
    dist = mech.distribution(data)
    rng = random.Random(5)
    counts = Counter(dist.sample(rng=rng, grid=Fraction(1, 10)) for _ in range(20_000))
    cells = dist.cells(grid=Fraction(1, 10))
    assert chi_square_pvalue(counts, {v: float(p) for v, p in cells.items()}) > ALPHA
    mpmath.mp.dps = 30
    for factor in (0.7, 1.3):
        f = lambda t: t ** (1 + 9 * factor) * (1 - t) ** (1 + 3 * factor)  # noqa: E731
        bounds = sorted(cells) + [hi]
        masses = [mpmath.quad(f, [float(a), float(b)]) for a, b in zip(bounds, bounds[1:])]
        total = sum(masses)
        assert chi_square_pvalue(counts, {v: float(m / total) for v, m in zip(sorted(cells), masses)}) < ALPHA


@settings(max_examples=20, deadline=None)
@given(case=interval_cases(clipped=False))
def test_an_unclipped_interval_loses_everything(case):
    """[0, b] or [a, 1]: the records 1 and 0 give an infinite loss at the open end (the density ratio is unbounded)."""
    lo, hi, alpha, beta, _, _, eps0 = case
    assume(lo == 0 or hi == 1)
    mech = PosteriorSampling(_interval_likelihood(lo, hi), epsilon=eps0, base_measure=BetaPrior(alpha, beta))
    loss = mech.privacy_loss([1], [0])
    assert loss.value.infinite and loss.output in (0, 1)
    assert prove_likelihood_ratio(_interval_likelihood(lo, hi), neighbours="replace-one").status is Status.REFUTED


def test_continuous_bad_input_is_refused_by_name():
    """A fractional ε₀, a non-Beta prior, a likelihood negative on the interval, a non-monotone ratio, bad Beta parameters."""
    ell = _interval_likelihood(Fraction(1, 10), Fraction(9, 10))
    with pytest.raises(InvalidArgument, match="epsilon=1/2 must be an integer tempering factor for a continuous parameter"):
        PosteriorSampling(ell, epsilon=Fraction(1, 2))
    with pytest.raises(InvalidArgument, match="base_measure=.*must be a BetaPrior"):
        PosteriorSampling(ell, epsilon=1, base_measure={Fraction(1, 2): 1})
    with pytest.raises(InvalidType, match="alpha="):
        BetaPrior(Fraction(1, 2), 1)
    with pytest.raises(InvalidArgument, match="beta=0 must be >= 1"):
        BetaPrior(1, 0)
    schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=RationalRange(Fraction(1, 10), Fraction(9, 10)))
    x, theta = schema["x"], outputs["theta"]
    negative = LogLikelihood(sympy.Piecewise((theta - sympy.Rational(1, 2), sympy.Eq(x, 1)), (1, True)), schema=schema, outputs=outputs)
    with pytest.raises(InvalidArgument, match="negative somewhere"):
        PosteriorSampling(negative, epsilon=1).distribution([True])
    bump = LogLikelihood(sympy.Piecewise((4 * theta * (1 - theta), sympy.Eq(x, 1)), (sympy.Rational(1, 2), True)), schema=schema, outputs=outputs)
    with pytest.raises(InvalidArgument, match="extremum inside the interval"):
        PosteriorSampling(bump, epsilon=1).privacy_loss([True], [False])
    with pytest.raises(InvalidArgument, match="is not released on the grid"):
        PosteriorSampling(ell, epsilon=1).distribution([True]).cell_probability(Fraction(1, 3), grid=Fraction(1, 10))


def test_a_non_power_that_passes_the_residue_filter_has_no_root():
    """n ≡ 1 (or 0) modulo every filter prime passes the cheap residue test; only the exact root check rejects it."""
    from math import prod

    from expmech.impl.exact._radical import _FILTER_PRIMES, rational_root

    modulus = prod(_FILTER_PRIMES)
    for m in (2, 3, 4, 5, 6):
        assert rational_root(Fraction(modulus + 1), m) is None and rational_root(Fraction(modulus), m) is None
        assert rational_root(Fraction((modulus + 1) ** m, 7**m), m) == Fraction(modulus + 1, 7)


def test_the_ratio_search_refines_past_its_first_candidates():
    """A likelihood whose extreme ratio is inside the interval: z3's counterexamples raise the candidate to the exact ρ."""
    schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=RationalRange(0, 1))
    x, theta = schema["x"], outputs["theta"]
    third = sympy.Rational(1, 3)
    dip = sympy.Piecewise((1 - sympy.Rational(3, 2) * theta, theta <= third), (sympy.Rational(1, 4) + sympy.Rational(3, 4) * theta, True))
    ell = LogLikelihood(sympy.Piecewise((dip, sympy.Eq(x, 1)), (1, True)), schema=schema, outputs=outputs)
    for relation in ("add-remove", "replace-one"):
        result = prove_likelihood_ratio(ell, neighbours=relation)
        assert result.status is Status.PROVED and result.ratio == 2 and result.witness.output == third, (relation, result.reason)


class _ScriptedBits(random.Random):
    """A Random whose getrandbits returns scripted values (to put U exactly where a draw must look further)."""

    def __init__(self, values):
        super().__init__(0)
        self.values = list(values)

    def getrandbits(self, k):
        return self.values.pop(0)


def test_lazy_draws_reveal_more_bits_when_u_straddles_a_cell_boundary():
    """When the first 64 bits leave U on both sides of a CDF value, the draw is decided by the next bits, exactly."""
    interval = _interval_likelihood(Fraction(1, 10), Fraction(9, 10))
    dist = PosteriorSampling(interval, epsilon=1).distribution([1])
    boundary = dist.cdf(Fraction(1, 2))
    u = (boundary * 2**64).__floor__()
    assert Fraction(u, 2**64) < boundary < Fraction(u + 1, 2**64)
    assert dist.sample(rng=_ScriptedBits([u, 2**64 - 1]), grid=Fraction(1, 10)) == Fraction(1, 2)
    assert dist.sample(rng=_ScriptedBits([u, 0]), grid=Fraction(1, 10)) == Fraction(2, 5)
    grid = bernoulli_likelihood(tuple(Fraction(i, 10) for i in range(1, 10)))
    tempered = PosteriorSampling(grid, epsilon=Fraction(1, 2)).distribution([1, 0, 1])
    edge = tempered.mass([Fraction(i, 10) for i in range(1, 5)])
    lo, hi = edge.enclose(200)
    u = (lo * 2**64).__floor__()
    assert Fraction(u, 2**64) < lo and hi < Fraction(u + 1, 2**64)
    assert tempered.sample(rng=_ScriptedBits([u, 2**64 - 1] + [0] * 20)) == Fraction(1, 2)
    assert tempered.sample(rng=_ScriptedBits([u, 0] + [0] * 20)) == Fraction(2, 5)


@settings(max_examples=40, deadline=None)
@given(
    ends=st.lists(st.integers(1, 99), min_size=2, max_size=2, unique=True),
    step=st.builds(Fraction, st.integers(1, 60), st.integers(1, 40)),
)
def test_continuous_posterior_and_mechanism_release_on_the_same_grid(ends, step):
    """Both continuous samplers release [a, b] on the same values; a uniform posterior's cells are their lengths over b − a."""
    from expmech.impl import ExponentialMechanism
    from expmech.spec import QualityFunction, size

    lo, hi = (Fraction(e, 100) for e in sorted(ends))
    # the released values written out: a, then every multiple of the step strictly inside (a, b)
    expected = [lo] + [k * step for k in range(int(lo / step) + 1, -(-hi // step)) if lo < k * step < hi]
    posterior = PosteriorSampling(_interval_likelihood(lo, hi), epsilon=1, base_measure=BetaPrior(1, 1)).distribution([])
    cells = posterior.cells(grid=step)
    assert list(cells) == expected
    bounds = expected + [hi]
    assert cells == {s: (e - s) / (hi - lo) for s, e in zip(bounds, bounds[1:])}
    for s, e in zip(bounds, bounds[1:]):
        assert posterior.cell(s, grid=step) == (s, e) and posterior.cell_probability(s, grid=step) == (e - s) / (hi - lo)
    space = OutputSpace(r=RationalRange(lo, hi))
    schema = RecordSchema(x=IntRange(0, 3))
    flat = QualityFunction(-sympy.Abs(count(schema["x"] <= space["r"]) - size() / 2), schema=schema, outputs=space, name="median")
    mechanism = ExponentialMechanism(flat, epsilon=1, outputs=space).distribution([1, 2])
    assert list(mechanism.cells(grid=step)) == expected
