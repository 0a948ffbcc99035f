"""The kernel's conclusions from other claims (privacy, zcdp, a posterior's bounded range, an auction's truthfulness):
right and wrong derivations, premises only from accepted claims of the same certificate, generated mutants, and wrong
provers caught by ``check``."""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certificate_tools import catalogue_certificate
from derivation_mutants import derivation_mutants, operator
from expmech.impl import catalogue_entry
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.kernel import RULES, check_derivation
from expmech.proofs.kernel._conclusions import exp_at_least
from expmech.spec import rule_statement
from strategies import positive_rationals

CONCLUSIONS = ("privacy", "zcdp", "posterior-range", "truthfulness")
#: the premise kinds each rule reads
USES = {
    "privacy-double": ("sensitivity",), "privacy-monotone": ("sensitivity", "monotonicity"), "privacy-normaliser": ("sensitivity", "normaliser"),
    "privacy-ratio": ("likelihood-ratio",), "zcdp-range": ("range-sensitivity", "posterior-range"), "range-enumerate": (), "range-ratio-double": ("likelihood-ratio",),
    "truthful-posted-price": ("privacy",),
}
FAST = ["median", "mode-add-remove", "laplace-line", "predicate-query", "posterior-bernoulli", "posterior-beta-bernoulli", "auction-price"]
ALL = FAST + ["mode", "top-item", "clamped-sum-threshold", "halfspace", "hyperparameter", "synthetic-data", "posterior-categorical-tempered",
              "median-interval", "quantile-interval", "count-geometric-measure", "geometric-mechanism"]


def _derivations(name: str) -> dict[str, dict[str, Any]]:
    """The certificate's derivations by kind."""
    return {c["derivation"]["claim"]: copy.deepcopy(c["derivation"]) for c in catalogue_certificate(name).statement["predicate"]["claims"] if "derivation" in c}


def _check(name: str, derivation: dict[str, Any], premises: dict[str, Any]) -> Any:
    entry = catalogue_entry(name)
    return check_derivation(entry.quality, entry.neighbours, derivation, premises=premises)


def test_each_rule_has_its_statement():
    """Every new rule names its claim and a Statement of spec/ listed by rule name."""
    for rule in USES:
        assert RULES[rule].claim in CONCLUSIONS and rule_statement(rule).id == RULES[rule].statement == rule


@pytest.mark.parametrize("name", ALL)
def test_every_catalogue_conclusion_is_accepted_on_its_certificates_premises(name):
    """Every PROVED privacy, zcdp and posterior bounded-range claim carries a derivation the kernel accepts, resting on
    the same certificate's other derivations."""
    held = _derivations(name)
    proved = [c for c in catalogue_certificate(name).statement["predicate"]["claims"] if c["status"] == "PROVED" and c["id"] in ("privacy", "zcdp", "bounded-range", "truthfulness")]
    assert {"privacy", "zcdp"} <= {c["id"] for c in proved}
    for item in proved:
        assert "derivation" in item, (name, item["id"])
    for kind in CONCLUSIONS:
        if kind in held:
            verdict = _check(name, held[kind], held)
            assert verdict.accepted, (kind, verdict)


@pytest.mark.parametrize("name", ["median", "mode-add-remove", "laplace-line", "posterior-bernoulli", "auction-price"])
def test_a_conclusion_without_its_premise_or_on_a_rejected_premise_is_rejected(name):
    """The premises come only from the certificate's claims, accepted by the kernel itself: one missing, of another
    kind, or wrong (its bound halved) rejects the conclusion, naming the premise."""
    held = _derivations(name)
    for kind in CONCLUSIONS:
        if kind not in held:
            continue
        for premise in USES[held[kind]["root"]["rule"]]:
            if premise not in held:
                continue
            missing = {k: v for k, v in held.items() if k != premise}
            verdict = _check(name, held[kind], missing)
            assert not verdict.accepted and premise in verdict.reason, (kind, premise, verdict)
            wrong = copy.deepcopy(held)
            wrong[premise]["bound"] = wrong[premise]["root"]["bound"] = {"node": "Mul", "args": [{"rational": "1/2"}, wrong[premise]["bound"]]}
            verdict = _check(name, held[kind], wrong)
            assert not verdict.accepted and "not accepted" in verdict.reason, (kind, premise, verdict)
            other = {**held, premise: held[kind]}  # a derivation of another kind in its place
            assert not _check(name, held[kind], other).accepted


def _privacy_of(name: str, epsilon: Any, rule: str = "privacy-double", epsilon0: str | None = None) -> dict[str, Any]:
    derivation = _derivations(name)["privacy"]
    derivation["bound"] = derivation["root"]["bound"] = epsilon
    derivation["root"]["rule"] = rule
    if epsilon0 is not None:
        derivation["root"]["data"]["epsilon0"] = epsilon0
    return derivation


@settings(max_examples=40, deadline=None)
@given(eps0=positive_rationals(4, 12), slack=st.fractions(-2, 2, max_denominator=50))
def test_the_privacy_comparison_is_exact_in_epsilon0_and_epsilon(eps0, slack):
    """median (Δq = 1): ε = 2·ε₀ + s is accepted exactly when s >= 0; predicate-query (Δq = 1/n): ε = (2·ε₀ + s)/n likewise."""
    held = _derivations("median")
    epsilon = 2 * eps0 + slack
    verdict = _check("median", _privacy_of("median", {"rational": str(epsilon)}, epsilon0=str(eps0)), held)
    assert verdict.accepted == (slack >= 0), verdict
    over_n = {"node": "Mul", "args": [{"rational": str(epsilon)}, {"node": "Pow", "args": [{"symbol": "n"}, {"rational": "-1"}]}]}
    verdict = _check("predicate-query", _privacy_of("predicate-query", over_n, epsilon0=str(eps0)), _derivations("predicate-query"))
    assert verdict.accepted == (slack >= 0), verdict


def test_the_halving_rules_need_their_premise_and_the_relation():
    """privacy-monotone and privacy-normaliser halve ε only on an accepted monotonicity / normaliser claim; ε₀·Δq
    with the plain rule, or either rule on a certificate without that claim, is rejected."""
    assert _check("mode-add-remove", _privacy_of("mode-add-remove", {"rational": "1/2"}, "privacy-monotone"), _derivations("mode-add-remove")).accepted
    assert not _check("mode-add-remove", _privacy_of("mode-add-remove", {"rational": "1/2"}, "privacy-double"), _derivations("mode-add-remove")).accepted
    assert not _check("median", _privacy_of("median", {"rational": "1/2"}, "privacy-monotone"), _derivations("median")).accepted
    assert not _check("median", _privacy_of("median", {"rational": "1/2"}, "privacy-normaliser"), _derivations("median")).accepted
    assert _check("laplace-line", _privacy_of("laplace-line", {"rational": "1"}, "privacy-normaliser"), _derivations("laplace-line")).accepted
    assert not _check("laplace-line", _privacy_of("laplace-line", {"rational": "1"}, "privacy-double"), _derivations("laplace-line")).accepted


def _log(c: Fraction, k: Fraction = Fraction(1)) -> dict[str, Any]:
    tree = {"node": "log", "args": [{"rational": str(c)}]}
    return tree if k == 1 else {"node": "Mul", "args": [{"rational": str(k)}, tree]}


@settings(max_examples=40, deadline=None)
@given(k=positive_rationals(3, 6), e=st.integers(2, 200), eps0=positive_rationals(2, 4))
def test_the_posterior_epsilon_is_compared_as_exact_powers(k, e, eps0):
    """ε = k·ln e against 2·ε₀·ln 9 (posterior-bernoulli, Δq = ln 9): accepted exactly when e^k >= 9^(2ε₀), decided
    by integer powers (the oracle: logs in floats where they are far apart, else the same powers)."""
    held = _derivations("posterior-bernoulli")
    verdict = _check("posterior-bernoulli", _privacy_of("posterior-bernoulli", _log(Fraction(e), k), "privacy-ratio", str(eps0)), held)
    gap = float(k) * math.log(e) - 2 * float(eps0) * math.log(9)
    truth = gap > 0 if abs(gap) > 1e-9 else Fraction(e) ** (k.numerator * (2 * eps0).denominator) >= Fraction(9) ** ((2 * eps0).numerator * k.denominator)
    assert verdict.accepted == truth, (k, e, eps0, verdict)


def test_an_epsilon_of_another_form_is_rejected_not_guessed():
    """A posterior ε that is not k·ln e (a sum of logs, a power, a float-looking tree) is rejected: no sympify."""
    held = _derivations("posterior-bernoulli")
    for tree in ({"node": "Add", "args": [_log(Fraction(9)), _log(Fraction(9))]}, {"rational": "5"}, {"node": "exp", "args": [{"rational": "1"}]}, "log(81)"):
        assert not _check("posterior-bernoulli", _privacy_of("posterior-bernoulli", tree, "privacy-ratio"), held).accepted, tree


@settings(max_examples=60, deadline=None)
@given(x=st.fractions(0, 30, max_denominator=2**20), target=st.fractions(0, 10**12, max_denominator=1000))
def test_the_series_lower_bound_never_overstates_e_to_the_x(x, target):
    """exp_at_least(x, t) implies e^x >= t (checked against the series' own tail bound), and it decides every t at
    least 10⁻⁹ below e^x."""
    answer = exp_at_least(x, target)
    value = math.exp(float(x))
    if answer:
        assert target <= Fraction(value) * (1 + Fraction(1, 10**9))
    if float(target) < value * (1 - 1e-9):
        assert answer


def test_the_posterior_range_is_recomputed_not_read():
    """range-enumerate recomputes R = 81 for posterior-bernoulli: Δ̂ below ln 81 (by 2^-40) is rejected; θ outside
    the outputs, an empty list and a non-JSON list are rejected."""
    held = _derivations("posterior-bernoulli")
    derivation = held["posterior-range"]
    assert derivation["root"]["rule"] == "range-enumerate"
    low = copy.deepcopy(derivation)
    low["bound"] = low["root"]["bound"] = {"rational": str(Fraction(math.floor(math.log(81) * 2**40) - 1, 2**40))}
    assert not _check("posterior-bernoulli", low, held).accepted
    for outputs in ('[["1/20"]]', "[]", "[[", '[["1/10", "1/5"]]'):
        bad = copy.deepcopy(derivation)
        bad["root"]["data"]["outputs"] = outputs
        assert not _check("posterior-bernoulli", bad, held).accepted, outputs


def test_truthfulness_is_checked_on_the_auction_itself():
    """truthful-posted-price: accepted on auction-price with B = U = 9 or more; B below U, another quality (median,
    the revenue's field renamed), or a privacy claim of another ε₀ below the premise's is rejected."""
    held = _derivations("auction-price")
    derivation = held["truthfulness"]
    assert derivation["bound"] == {"rational": "9"} and _check("auction-price", derivation, held).accepted
    for bound, accepted in (("10", True), ("9", True), ("35/4", False), ("0", False)):
        changed = copy.deepcopy(derivation)
        changed["bound"] = changed["root"]["bound"] = {"rational": bound}
        assert _check("auction-price", changed, held).accepted is accepted, bound
    median = copy.deepcopy(derivation)
    median["root"]["text"] = str(catalogue_entry("median").quality.expr)
    assert not _check("median", median, _derivations("median")).accepted
    wrong_privacy = copy.deepcopy(held)
    wrong_privacy["privacy"]["root"]["data"]["epsilon0"] = "1"  # ε = 1 is below 2·1·10: the privacy premise is rejected
    assert not _check("auction-price", derivation, wrong_privacy).accepted


def test_truthfulness_is_about_the_posted_price_revenue_only():
    """On p·count(b > p) (another quality over the same bids and prices, its privacy claim accepted) the same
    truthfulness derivation is rejected: the rule is about the auction's own revenue p·count(b >= p)."""
    from expmech.proofs import certify
    from expmech.spec import QualityFunction, count

    auction = catalogue_entry("auction-price").quality
    p, b = auction.output_space["p"], auction.schema["b"]
    strict = QualityFunction(p * count(b > p), schema=auction.schema, outputs=auction.output_space)
    held = {c["derivation"]["claim"]: c["derivation"] for c in certify(strict, epsilon=Fraction(1, 20), neighbours="replace-one").statement["predicate"]["claims"] if "derivation" in c}
    derivation = copy.deepcopy(_derivations("auction-price")["truthfulness"])
    derivation["root"]["text"] = str(strict.expr)
    assert check_derivation(strict, "replace-one", held["privacy"], premises=held).accepted
    verdict = check_derivation(strict, "replace-one", derivation, premises=held)
    assert not verdict.accepted and "revenue" in verdict.reason, verdict


def test_check_rejects_a_prover_with_a_wrong_utility_bound(monkeypatch):
    """A prover bug in U (one less, its exhaustive check of u <= U skipped) is re-derived alike by check's comparison;
    with the small-model net also off (it catches this one at certify), the kernel, enumerating the utilities itself,
    rejects the truthfulness claim."""
    from expmech.impl import DigitalGoodsAuction
    from expmech.proofs import certify
    from expmech.proofs.certificate import _auction
    from expmech.proofs.smallmodel import _check as smallmodel

    monkeypatch.setattr(smallmodel, "check_truthfulness_claim", lambda *args, **kwargs: None)

    honest, hypotheses = DigitalGoodsAuction.utility_bound, _auction._hypotheses
    monkeypatch.setattr(DigitalGoodsAuction, "utility_bound", lambda self: honest(self) - 1)
    monkeypatch.setattr(_auction, "_hypotheses", lambda auction: (True, True, True, hypotheses(auction)[3]))
    entry = catalogue_entry("auction-price")
    certificate = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, auction=entry.auction)
    report = check_certificate(certificate.data)
    assert report.exit_code == 1 and report.failed == "claim truthfulness: kernel", (report.failed, report.problems)


def _mutants(name: str) -> tuple[int, int, list[str]]:
    """(mutants, rejected by the kernel, accepted labels) over the conclusions of ``name``'s certificate: every mutant
    of derivation_mutants, ε₀ doubled, each premise the rule reads dropped or replaced by a wrong one."""
    held, rules = _derivations(name), {rule: info.claim for rule, info in RULES.items()}
    count = rejected = 0
    accepted = []
    for kind in CONCLUSIONS:
        if kind not in held:
            continue
        original = held[kind]
        cases = [(f"{kind}: {label}", mutant, held) for label, mutant in derivation_mutants(original, rules)]
        if "epsilon0" in original["root"]["data"]:
            doubled = copy.deepcopy(original)
            doubled["root"]["data"]["epsilon0"] = str(2 * Fraction(doubled["root"]["data"]["epsilon0"]))
            cases.append((f"{kind}: epsilon0-doubled", doubled, held))
        shifted = copy.deepcopy(original)  # both the start and the root's case one size later: fewer n covered
        shifted["start"] += 1
        shifted["root"]["case"] = {"from": shifted["start"]}
        cases.append((f"{kind}: start-and-case", shifted, held))
        for premise in USES[original["root"]["rule"]]:
            if premise in held:
                cases.append((f"{kind}: premise-missing {premise}", original, {k: v for k, v in held.items() if k != premise}))
                wrong = copy.deepcopy(held)
                wrong[premise]["start"] += 1
                cases.append((f"{kind}: premise-wrong {premise}", original, wrong))
        for label, mutant, premises in cases:
            count += 1
            if not _check(name, mutant, premises).accepted:
                rejected += 1
            elif not _equivalent(label, held):
                accepted.append(label)
    return count, rejected, accepted


def _equivalent(label: str, held: dict[str, Any]) -> bool:
    """An accepted mutant that is a valid proof of a true claim: root-larger (a weaker claim, which check's binding
    refuses as not the claim), or a posterior's range by ln R switched to 2 ln c where the recorded Δ̂ is at least
    2 ln c too (R = c²: posterior-bernoulli's 81 = 9²), so both rules prove it."""
    if operator(label.split(": ")[1]) == "root-larger":
        return True
    if label != "posterior-range: rule posterior-range":
        return False
    c = Fraction(held["likelihood-ratio"]["bound"]["args"][0]["rational"])
    return float(Fraction(held["posterior-range"]["bound"]["rational"])) >= 2 * math.log(c) - 1e-12


@pytest.mark.parametrize("name", FAST)
def test_every_mutant_of_a_conclusion_is_rejected(name):
    """Generated wrong derivations of privacy, zcdp and posterior-range (bound, rule, term, text, case, data, root,
    start, relation, claim kind, ε₀, premises dropped or wrong) are each rejected by the kernel; only root-larger
    (a true, weaker claim, which check refuses as not the claim) may be accepted."""
    count, _, accepted = _mutants(name)
    assert count >= 20 and not accepted, accepted


@pytest.mark.slow
def test_every_mutant_of_every_catalogue_conclusion_is_rejected():
    """Slow: the same over the whole catalogue; prints the mutation figures."""
    total = rejected = 0
    for name in ALL:
        count, kernel, accepted = _mutants(name)
        assert not accepted, (name, accepted)
        total, rejected = total + count, rejected + kernel
    print(f"{total} conclusion mutants over {len(ALL)} certificates: {rejected} rejected by the kernel, {total - rejected} equivalent")


def _certify(name: str) -> Any:
    from expmech.proofs import certify

    entry = catalogue_entry(name)
    extra = {"base_measure": entry.base_measure} if entry.base_measure is not None else {}
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **extra)


@pytest.mark.parametrize(("name", "kind", "key", "value", "failed"), [
    ("median", "privacy", "epsilon0", "1/4", "claim privacy: kernel"),
    ("median", "zcdp", "epsilon0", "1/4", "claim zcdp: kernel"),
    ("posterior-bernoulli", "posterior-range", "outputs", '[["1/2"], ["3/5"]]', "claim bounded-range: kernel"),
])
def test_check_binds_what_the_kernel_cannot_see(name, kind, key, value, failed, monkeypatch):
    """A prover that writes a smaller ε₀ (which the kernel accepts: a weaker premise of the same ε), or a posterior's θ
    list narrowed to two outputs (R smaller), gives a certificate whose re-derivation agrees with itself: check's
    binding to the certificate's inputs refuses it (an edit of an honest certificate is refused earlier, by the
    comparison with the re-derivation)."""
    from expmech.proofs.certificate import _conclusion_derivations, _posterior_range

    honest = _conclusion_derivations.attach_conclusion

    def wrong(claim: dict[str, Any], which: str, rule: str, **options: Any) -> dict[str, Any]:
        if which == kind:
            options["data"] = {**options["data"], key: value}
        return honest(claim, which, rule, **options)

    monkeypatch.setattr(_conclusion_derivations, "attach_conclusion", wrong)
    monkeypatch.setattr(_posterior_range, "attach_conclusion", wrong)
    report = check_certificate(_certify(name).data)
    assert report.outcome is CheckOutcome.INVALID and report.failed == failed, (report.failed, report.problems)


def test_check_rejects_a_prover_that_halves_epsilon(monkeypatch):
    """A prover bug — the privacy theorem's factor 2 dropped — gives a certificate whose re-derivation agrees with
    itself (the same bug), so only the kernel stands in the way: check exits 1 at the privacy claim."""
    from expmech.proofs.certificate import _derive

    honest = _derive.derive_epsilon
    monkeypatch.setattr(_derive, "derive_epsilon", lambda e0, delta, **kw: honest(e0, delta, **kw) / 2)
    report = check_certificate(_certify("median").data)
    assert report.exit_code == 1 and report.failed == "claim privacy: kernel", (report.failed, report.problems)


def test_check_rejects_a_prover_with_a_wrong_zcdp_or_range(monkeypatch):
    """A ρ of η²/16 and a posterior's ln R rounded down are each rejected by the kernel in check."""
    from expmech.proofs.certificate import _accounting_claims, _posterior_range

    honest = _accounting_claims.zcdp_claim

    def wrong_zcdp(status: str, eta: Any) -> dict[str, Any]:
        result = honest(status, eta)
        if eta is not None:
            result["rho"] = str(Fraction(result["rho"]) / 2)
        return result

    monkeypatch.setattr(_accounting_claims, "zcdp_claim", wrong_zcdp)
    report = check_certificate(_certify("median").data)
    assert report.exit_code == 1 and report.failed == "claim zcdp: kernel", (report.failed, report.problems)
    monkeypatch.undo()
    monkeypatch.setattr(_posterior_range, "_log_upper", lambda value: Fraction(math.floor(math.log(value) * 2**40), 2**40) - Fraction(1, 2**40))
    report = check_certificate(_certify("posterior-bernoulli").data)
    assert report.exit_code == 1 and report.failed == "claim bounded-range: kernel", (report.failed, report.problems)
