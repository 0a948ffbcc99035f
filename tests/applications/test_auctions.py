"""The digital-goods auction: exact expected utilities, misreport gains and McSherry–Talwar's bound."""

import json
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from expmech.impl import DigitalGoodsAuction, catalogue_entry, posted_price_utility
from expmech.proofs import Status, certify, check_certificate, check_truthfulness, prove_sensitivity
from expmech.proofs.conformance import FAMILIES, Finding, search_dropped_hypothesis
from expmech.spec import InvalidArgument, InvalidType, QualityError, statement


@st.composite
def auctions(draw):
    """A small auction and the bidders' true values."""
    top = draw(st.integers(2, 6))
    prices = draw(st.lists(st.integers(1, top), min_size=1, max_size=3, unique=True))
    eps0 = draw(st.sampled_from([Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(3, 2)]))
    values = draw(st.lists(st.integers(0, top), min_size=1, max_size=3))
    return DigitalGoodsAuction(outputs=sorted(prices), epsilon=eps0, reports=range(top + 1)), values


def _mp_expected_utility(auction, bids, bidder, value):
    """E[u] from mpmath at 80 digits: an independent path (no ExpSum)."""
    mpmath.mp.dps = 80
    eps0 = mpmath.mpf(auction.epsilon.numerator) / auction.epsilon.denominator
    weights, utilities = [], []
    for p in auction.outputs:
        revenue = p * sum(1 for b in bids if b >= p)
        weights.append(mpmath.exp(eps0 * mpmath.mpf(revenue.numerator) / revenue.denominator))
        u = value - p if bids[bidder] >= p else 0  # a bidder buys at p iff her bid is >= p (written out: independent of the impl)
        utilities.append(mpmath.mpf(u.numerator) / u.denominator if isinstance(u, Fraction) else mpmath.mpf(u))
    return sum(w * u for w, u in zip(weights, utilities)) / sum(weights)


def _contains(ratio, value):
    lo, hi = ratio.enclose(200) if ratio.sign() else (Fraction(0), Fraction(0))
    return mpmath.mpf(lo.numerator) / lo.denominator - mpmath.mpf(10) ** -60 <= value <= mpmath.mpf(hi.numerator) / hi.denominator + mpmath.mpf(10) ** -60


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=auctions())
def test_gains_agree_with_an_independent_computation(case):
    """Every misreport's exact gain agrees with an 80-digit mpmath computation of the same expectation."""
    auction, values = case
    for incentive in auction.incentives(values):
        i, v = incentive.bidder, incentive.value
        truthful = _mp_expected_utility(auction, values, i, v)
        assert _contains(incentive.truthful, truthful)
        for report, gain in incentive.gains:
            lied = list(values)
            lied[i] = report
            assert _contains(gain, _mp_expected_utility(auction, lied, i, v) - truthful)
        assert all(incentive.best_gain >= gain for _, gain in incentive.gains)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=auctions())
def test_mcsherry_talwar_bound_holds(case):
    """With ε = 2ε₀Δq and posted prices, no bidder gains more than (e^ε − 1)·E[u | v] or (e^ε − 1)·U by any report."""
    auction, values = case
    report = check_truthfulness(auction, values)
    assert report.epsilon == 2 * auction.epsilon * auction.sensitivity()
    assert report.holds


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(case=auctions())
def test_bound_is_decided_exactly_at_the_smallest_epsilon(case):
    """Just below ε* = ln max_b E[u|b]/E[u|v] the bound fails, just above it holds: the comparison has power."""
    auction, values = case
    mpmath.mp.dps = 80
    worst = None
    for incentive in auction.incentives(values):
        if incentive.truthful.sign() <= 0 or incentive.best_gain.sign() <= 0:
            continue
        lo, hi = incentive.truthful.enclose(250)
        glo, ghi = incentive.best_gain.enclose(250)
        ratio = 1 + mpmath.mpf(glo.numerator) / glo.denominator / (mpmath.mpf(hi.numerator) / hi.denominator)
        if worst is None or ratio > worst:
            worst = ratio
    assume(worst is not None)
    star = mpmath.log(worst)
    below = Fraction(str(mpmath.nstr(star * (1 - mpmath.mpf(10) ** -20), 40)))
    above = Fraction(str(mpmath.nstr(star * (1 + mpmath.mpf(10) ** -20), 40)))
    assert not check_truthfulness(auction, values, epsilon=below, utility_bound=10**6).holds
    assert check_truthfulness(auction, values, epsilon=above, utility_bound=10**6).holds


def test_sensitivity_is_exact_and_matches_the_prover():
    """The auction's Δq equals the z3-proved sensitivity of the catalogue's revenue quality, and brute force."""
    auction = DigitalGoodsAuction(outputs=range(1, 11), epsilon=Fraction(1, 20), reports=range(0, 11))
    proved = prove_sensitivity(catalogue_entry("auction-price").quality, neighbours="replace-one")
    assert proved.status is Status.PROVED and proved.bound == auction.sensitivity() == 10
    for reports in ([0, 3], [4, 7, 9], [2], [1, 2, 3]):
        a = DigitalGoodsAuction(outputs=[1, 3, 5, 8], epsilon=1, reports=reports)
        brute = max(
            (abs(a.revenue([b1], p) - a.revenue([b2], p)) for b1 in a.reports for b2 in a.reports for p in a.outputs),
            default=0,
        )
        assert a.sensitivity() == brute


def test_misreporting_pays_sometimes_but_within_the_bound():
    """A high-value bidder gains by shading her bid (truthfulness is only approximate), by less than the bound."""
    auction = DigitalGoodsAuction(outputs=range(1, 11), epsilon=Fraction(1, 20), reports=range(0, 11))
    report = check_truthfulness(auction, [10, 3, 7, 2, 9])
    top = report.bidders[0]
    assert top.best_report is not None and top.best_report < 10 and top.best_gain > 0
    assert report.epsilon == 1 and report.holds


@pytest.mark.parametrize("hypothesis_id", [h.id for h in statement("auctions").hypotheses])
def test_every_hypothesis_of_the_auction_statement_is_needed(hypothesis_id):
    """Dropping any hypothesis gives a concrete auction where a bidder beats the bound, re-checked exactly."""
    result = search_dropped_hypothesis("auctions", hypothesis_id, attempts=2000, seed=1)
    assert result.finding is Finding.NEEDED, result.detail
    evaluation = FAMILIES["auctions"].evaluate(result.counterexample)
    assert evaluation.hypotheses[hypothesis_id] is False
    assert all(v for k, v in evaluation.hypotheses.items() if k != hypothesis_id)
    assert evaluation.conclusion is False


def test_pay_your_bid_is_not_truthful_at_a_fixed_price():
    """Charging the bid instead of the price breaks dominance at a fixed price, and the bound with it."""
    auction = DigitalGoodsAuction(outputs=[1, 2], epsilon=1, reports=range(0, 6))
    pay_bid = lambda v, b, p: v - b if b >= p else Fraction(0)  # noqa: E731
    report = check_truthfulness(auction, [5, 1], utility=pay_bid)
    assert report.bidders[0].truthful == 0 and report.bidders[0].best_gain > 0 and not report.holds


def test_bad_input_is_refused_by_name():
    """Prices <= 0, repeated reports, unknown bids, a bad bidder and a utility returning NaN name the culprit."""
    with pytest.raises(InvalidArgument, match=r"outputs\[0\]=0 must be a price > 0"):
        DigitalGoodsAuction(outputs=[0, 1], epsilon=1, reports=[0, 1])
    with pytest.raises(InvalidArgument, match="reports"):
        DigitalGoodsAuction(outputs=[1], epsilon=1, reports=[1, Fraction(2, 2)])
    with pytest.raises(InvalidArgument, match="epsilon"):
        DigitalGoodsAuction(outputs=[1], epsilon=0, reports=[0, 1])
    auction = DigitalGoodsAuction(outputs=[1, 2], epsilon=1, reports=[0, 1, 2])
    with pytest.raises(InvalidArgument, match=r"bids\[1\]=7 is not one of the reports"):
        auction.price_distribution([1, 7])
    with pytest.raises(InvalidArgument, match="bidder=2"):
        auction.expected_utility([1, 2], bidder=2, value=1)
    with pytest.raises(InvalidType, match="bidder=True"):
        auction.expected_utility([1, 2], bidder=True, value=1)
    with pytest.raises(QualityError, match="utility returned nan"):
        auction.incentives([1], utility=lambda v, b, p: float("nan"))
    with pytest.raises(InvalidType, match="auction="):
        check_truthfulness("auction", [1])
    with pytest.raises(InvalidArgument, match="epsilon=-1"):
        check_truthfulness(auction, [1], epsilon=-1)
    for call in (lambda: auction.incentives([1], utility=3), lambda: check_truthfulness(auction, [1], utility="u")):
        with pytest.raises(InvalidType, match="utility=.* must be a callable"):
            call()


def _auction_certificate():
    entry = catalogue_entry("auction-price")
    return entry, certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, auction=entry.auction, pairs=3)


def test_the_catalogue_auction_is_certified_truthful():
    """The auction's certificate states McSherry–Talwar's bound from its ε, hypotheses checked exhaustively; the verifier
    accepts the claim's derivation, and check --reproduce re-derives it."""
    entry, cert = _auction_certificate()
    claim = next(c for c in cert.statement["predicate"]["claims"] if c["id"] == "truthfulness")
    assert claim["status"] == "PROVED" and claim["epsilon"] == cert.epsilon == "1"
    assert claim["utility_bound"] == "9" and claim["bound"] == "9*(exp(1) - 1)"
    assert claim["hypotheses"] == {"utility-nonnegative": True, "truthful-dominant": True, "utility-bounded": True, "points": 11 * 11 * 10}
    assert not claim["instances"]["violations"]
    report = check_certificate(json.loads(cert.to_json()))
    assert report.ok and report.exit_code == 0, report.problems
    assert ("claim truthfulness", True, "accepted: truthfulness derivation and its side conditions") in report.checks
    assert {"claim": "truthfulness", "kind": "truthfulness", "accepted": True, "obligations": 0, "solver": 0} in report.claims
    report = check_certificate(json.loads(cert.to_json()), reproduce=True)
    assert report.ok and ("reproduce: claim truthfulness", True, "PROVED, re-derived") in report.checks, report.problems


@pytest.mark.parametrize(
    "tamper, problem, reproduce",
    [
        (lambda c: c.update(bound="9*(exp(1/2) - 1)"), "claim truthfulness: rejected: bound = '9*(exp(1/2) - 1)' is not the accepted derivation's value", False),
        (lambda c: c.update(utility_bound="5"), "utility_bound", False),
        (lambda c: c.update(epsilon="1/2"), "claim truthfulness: rejected: epsilon = '1/2' is not the accepted derivation's value", False),
        (lambda c: c["auction"].update(reports=[str(b) for b in range(0, 12)]), "claim truthfulness: rejected: the claim's auction is not options.auction", False),
        (lambda c: c["hypotheses"].update(points=1), "claim truthfulness: rejected: the hypotheses are not the three checked at every one of the 1210", False),
        # the instances are evidence the verifier does not recompute: check --reproduce re-derives them
        (lambda c: c["instances"].update(largest_gain_upper_bound="0"), "claim truthfulness: instances.largest_gain_upper_bound: recorded '0', re-derived", True),
    ],
)
def test_a_tampered_truthfulness_claim_is_rejected(tamper, problem, reproduce):
    """A changed bound, U, ε, auction or hypotheses — re-sealed with a fresh digest — is rejected by the verifier; changed
    instances (evidence, not proof) by check --reproduce."""
    from expmech.proofs.certificate.make._build import seal

    _, cert = _auction_certificate()
    data = json.loads(cert.to_json())
    claim = next(c for c in data["certificate"]["predicate"]["claims"] if c["id"] == "truthfulness")
    tamper(claim)
    report = check_certificate({**data, **seal(data["certificate"])}, reproduce=reproduce)
    assert not report.ok and report.exit_code == 1 and any(problem in p for p in report.problems), report.problems


def test_an_auction_must_match_the_quality():
    """Certifying a quality with an auction whose revenue it is not is refused by name."""
    entry = catalogue_entry("median")
    with pytest.raises(InvalidArgument, match="auction=.*does not match the quality"):
        certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, auction=catalogue_entry("auction-price").auction)


def test_verify_prints_the_truthfulness_bound(capsys):
    """`expmech verify` shows the auction's truthfulness guarantee under its ε line."""
    from expmech.proofs.cli import main

    assert main(["verify", "expmech.impl:CATALOGUE"]) == 0
    assert "truthfulness PROVED: no report gains more than (e^ε − 1)·U = 9*(exp(1) - 1) ≈ 15.46" in capsys.readouterr().out
