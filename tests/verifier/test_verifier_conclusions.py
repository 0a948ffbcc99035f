"""The verifier's conclusions from other claims (privacy, zcdp, a posterior's bounded range, an auction's truthfulness):
right and wrong derivations, premises only from accepted claims of the same certificate, generated mutants, and wrong
provers caught by the verifier alone.

A wrong prover's certificate is written here by :func:`checker_tools.forging_finalise` — the certifier's last step
without its own run of the verifier's rules, which would demote the false claim (each such test also shows that the
real certifier does not issue it as PROVED) — and with the small-model net off, so the verifier alone stands in the way.
Certificates the verifier accepts are held to the independent oracle of ``certificate_oracle`` (every claim evaluated
on every neighbouring pair of at most two records, the mechanism's probabilities in 50-digit arithmetic).
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from certificate_oracle import claims_hold
from certificate_tools import catalogue_certificate
from checker_tools import forging_finalise, judge, rule_kinds
from derivation_mutants import derivation_mutants, operator
from expmech.impl import catalogue_entry
from expmech.proofs import CheckOutcome
from expmech.proofs.checker import RULES, verify
from expmech.proofs.checker._numbers import exp_compare
from expmech.spec import rule_statement
from strategies import positive_rationals

CONCLUSIONS = ("privacy", "zcdp", "posterior-range", "truthfulness")
#: the premise kinds each rule reads
USES = {
    "privacy-double": ("sensitivity",), "privacy-monotone": ("sensitivity", "monotonicity"), "privacy-normaliser": ("sensitivity", "normaliser"),
    "privacy-ratio": ("likelihood-ratio",), "zcdp-range": ("range-sensitivity", "posterior-range"), "range-enumerate": (), "range-ratio-double": ("likelihood-ratio",),
    "truthful-posted-price": ("privacy",),
}
#: rule -> the claim kind it proves (the conclusions' rules by their own claim)
KIND_OF = {**rule_kinds(),
           **{rule: "privacy" for rule in ("privacy-double", "privacy-monotone", "privacy-normaliser", "privacy-ratio")},
           "zcdp-range": "zcdp", "range-enumerate": "posterior-range", "range-ratio-double": "posterior-range", "truthful-posted-price": "truthfulness"}
#: certificates the oracle evaluates in a few seconds at most (the others: the slow test)
ORACLE = ("mode", "mode-add-remove", "predicate-query", "posterior-bernoulli", "posterior-beta-bernoulli")
FAST = ["median", "mode-add-remove", "laplace-line", "predicate-query", "posterior-bernoulli", "posterior-beta-bernoulli", "auction-price"]
ALL = FAST + ["mode", "top-item", "clamped-sum-threshold", "halfspace", "hyperparameter", "synthetic-data", "posterior-categorical-tempered",
              "median-interval", "quantile-interval", "count-geometric-measure", "geometric-mechanism"]


def _statement(name: str) -> dict[str, Any]:
    return copy.deepcopy(catalogue_certificate(name).statement)


def _derivations(name: str) -> dict[str, dict[str, Any]]:
    """The certificate's derivations by kind."""
    return {c["derivation"]["claim"]: copy.deepcopy(c["derivation"]) for c in catalogue_certificate(name).statement["predicate"]["claims"] if "derivation" in c}


def _check(name: str, derivation: Any, premises: dict[str, Any], *, epsilon0: Fraction | None = None, forge: bool = True) -> Any:
    """The verifier's rules on ``derivation`` over ``name``'s certificate (its ε₀ replaced when given), resting on ``premises``."""
    data = _statement(name)
    if epsilon0 is not None:
        data["predicate"]["mechanism"]["epsilon0"] = str(epsilon0)
    return judge(data, derivation, premises, forge=forge)


def test_each_rule_has_its_statement():
    """Every conclusion rule is in RULES and names a Statement of expmech.spec listed by rule name."""
    for rule in USES:
        assert rule in RULES and KIND_OF[rule] in CONCLUSIONS and rule_statement(rule).id == rule


@pytest.mark.parametrize("name", ALL)
def test_every_catalogue_conclusion_is_accepted_on_its_certificates_premises(name):
    """Every PROVED privacy, zcdp and posterior bounded-range claim carries a derivation the verifier accepts, resting on
    the same certificate's other derivations; the certificate is certified, and (the small ones) the oracle agrees."""
    statement = catalogue_certificate(name).statement
    held = _derivations(name)
    proved = [c for c in statement["predicate"]["claims"] if c["status"] == "PROVED" and c["id"] in ("privacy", "zcdp", "bounded-range", "truthfulness")]
    assert {"privacy", "zcdp"} <= {c["id"] for c in proved}
    for item in proved:
        assert "derivation" in item, (name, item["id"])
    for kind in CONCLUSIONS:
        if kind in held:
            verdict = _check(name, held[kind], held, forge=False)
            assert verdict.accepted, (kind, verdict)
    report = verify(catalogue_certificate(name).data)
    assert report.outcome is CheckOutcome.CERTIFIES_DP and report.solver == 0, report.problems
    if name in ORACLE:
        holds, why = claims_hold(statement)
        assert holds, why


@pytest.mark.slow
@pytest.mark.parametrize("name", ["median", "auction-price", "top-item", "count-geometric-measure", "geometric-mechanism"])
def test_slow_the_oracle_agrees_with_the_accepted_certificates(name):
    """Slow: the oracle finds every claim of the larger certificates the verifier accepts true on small pairs."""
    assert verify(catalogue_certificate(name).data).outcome is CheckOutcome.CERTIFIES_DP
    holds, why = claims_hold(catalogue_certificate(name).statement)
    assert holds, why


@pytest.mark.parametrize("name", ["median", "mode-add-remove", "laplace-line", "posterior-bernoulli", "auction-price"])
def test_a_conclusion_without_its_premise_or_on_a_rejected_premise_is_rejected(name):
    """The premises come only from the certificate's claims, accepted by the verifier itself: one missing, of another
    kind, or wrong (its bound halved) rejects the conclusion, naming the premise."""
    held = _derivations(name)
    tried = 0
    for kind in CONCLUSIONS:
        if kind not in held:
            continue
        for premise in USES[held[kind]["root"]["rule"]]:
            if premise not in held:
                continue
            tried += 1
            missing = {k: v for k, v in held.items() if k != premise}
            verdict = _check(name, held[kind], missing)
            assert not verdict.accepted and premise in verdict.reason, (kind, premise, verdict)
            wrong = copy.deepcopy(held)
            wrong[premise]["bound"] = wrong[premise]["root"]["bound"] = {"node": "Mul", "args": [{"rational": "1/2"}, wrong[premise]["bound"]]}
            verdict = _check(name, held[kind], wrong)
            assert not verdict.accepted and "not accepted" in verdict.reason, (kind, premise, verdict)
            other = {**missing, f"{premise} (in its place)": held[kind]}  # a derivation of another kind in its place
            assert not _check(name, held[kind], other).accepted
    assert tried


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
    """median (Δq = 1): ε = 2·ε₀ + s is accepted exactly when s >= 0; predicate-query (Δq = 1/n): ε = (2·ε₀ + s)/n likewise
    (the mechanism's ε₀ is the one the derivation states)."""
    epsilon = 2 * eps0 + slack
    verdict = _check("median", _privacy_of("median", {"rational": str(epsilon)}, epsilon0=str(eps0)), _derivations("median"), epsilon0=eps0)
    assert verdict.accepted == (slack >= 0), verdict
    over_n = {"node": "Mul", "args": [{"rational": str(epsilon)}, {"node": "Pow", "args": [{"symbol": "n"}, {"rational": "-1"}]}]}
    verdict = _check("predicate-query", _privacy_of("predicate-query", over_n, epsilon0=str(eps0)), _derivations("predicate-query"), epsilon0=eps0)
    assert verdict.accepted == (slack >= 0), verdict


def test_the_derivations_epsilon0_is_the_mechanisms():
    """A privacy or zcdp derivation stating another ε₀ than the mechanism's is rejected, even with the ε it implies."""
    held = _derivations("median")
    assert not _check("median", _privacy_of("median", {"rational": "1/2"}, epsilon0="1/4"), held).accepted
    zcdp = copy.deepcopy(held["zcdp"])
    zcdp["root"]["data"]["epsilon0"] = "1/4"
    verdict = _check("median", zcdp, held)
    assert not verdict.accepted and "ε₀" in verdict.reason, verdict


def test_the_halving_rules_need_their_premise_and_the_relation():
    """privacy-monotone and privacy-normaliser halve ε only on an accepted monotonicity / normaliser claim; ε₀·Δq
    with the plain rule, or either rule on a certificate without that claim, is rejected."""
    assert _check("mode-add-remove", _privacy_of("mode-add-remove", {"rational": "1/2"}, "privacy-monotone"), _derivations("mode-add-remove"), forge=False).accepted
    assert not _check("mode-add-remove", _privacy_of("mode-add-remove", {"rational": "1/2"}, "privacy-double"), _derivations("mode-add-remove")).accepted
    assert not _check("median", _privacy_of("median", {"rational": "1/2"}, "privacy-monotone"), _derivations("median")).accepted
    assert not _check("median", _privacy_of("median", {"rational": "1/2"}, "privacy-normaliser"), _derivations("median")).accepted
    assert _check("laplace-line", _privacy_of("laplace-line", {"rational": "1"}, "privacy-normaliser"), _derivations("laplace-line"), forge=False).accepted
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
    verdict = _check("posterior-bernoulli", _privacy_of("posterior-bernoulli", _log(Fraction(e), k), "privacy-ratio", str(eps0)), held, epsilon0=eps0)
    gap = float(k) * math.log(e) - 2 * float(eps0) * math.log(9)
    truth = gap > 0 if abs(gap) > 1e-9 else Fraction(e) ** (k.numerator * (2 * eps0).denominator) >= Fraction(9) ** ((2 * eps0).numerator * k.denominator)
    assert verdict.accepted == truth, (k, e, eps0, verdict)


def test_an_epsilon_of_another_form_is_rejected_not_guessed():
    """A posterior ε that is not k·ln e (a sum of logs, a rational, an exponential, a text) is rejected: nothing is guessed."""
    held = _derivations("posterior-bernoulli")
    for tree in ({"node": "Add", "args": [_log(Fraction(9)), _log(Fraction(9))]}, {"rational": "5"}, {"node": "exp", "args": [{"rational": "1"}]}, "log(81)"):
        assert not _check("posterior-bernoulli", _privacy_of("posterior-bernoulli", tree, "privacy-ratio"), held).accepted, tree


@settings(max_examples=60, deadline=None)
@given(x=st.fractions(0, 30, max_denominator=2**20), target=st.fractions(0, 10**12, max_denominator=1000))
def test_the_exponential_comparison_never_overstates_e_to_the_x(x, target):
    """exp_compare(x, t) >= 0 implies e^x >= t (against mpmath at 2,000 bits), and it decides every t at least 10⁻⁹
    below e^x."""
    sign = exp_compare(x, target)
    with mpmath.workprec(2_000):
        value = mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
        t = mpmath.mpf(target.numerator) / target.denominator
        if sign is not None and sign >= 0:
            assert t <= value
        if t < value * (1 - mpmath.mpf(10) ** -9):
            assert sign == 1


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
    """truthful-posted-price: accepted on auction-price with B = U = 9 or more; B below U, another quality (median), or
    a privacy claim of another ε₀ below the premise's is rejected."""
    held = _derivations("auction-price")
    derivation = held["truthfulness"]
    assert derivation["bound"] == {"rational": "9"} and _check("auction-price", derivation, held, forge=False).accepted
    for bound, accepted in (("10", True), ("9", True), ("35/4", False), ("0", False)):
        changed = copy.deepcopy(derivation)
        changed["bound"] = changed["root"]["bound"] = {"rational": bound}
        assert _check("auction-price", changed, held).accepted is accepted, bound
    median = copy.deepcopy(derivation)
    median["root"]["text"] = _statement("median")["predicate"]["quality"]["text"]
    assert not _check("median", median, _derivations("median")).accepted
    wrong_privacy = copy.deepcopy(held)
    wrong_privacy["privacy"]["root"]["data"]["epsilon0"] = "1"  # not the mechanism's ε₀: the privacy premise is rejected
    verdict = _check("auction-price", derivation, wrong_privacy)
    assert not verdict.accepted and "privacy" in verdict.reason, verdict


def test_truthfulness_is_about_the_posted_price_revenue_only():
    """On p·count(b > p) (another quality over the same bids and prices, its privacy claim accepted) the same
    truthfulness derivation is rejected: the rule is about the auction's own revenue p·count(b >= p)."""
    from expmech.proofs import certify
    from expmech.spec import QualityFunction, count

    auction = catalogue_entry("auction-price").quality
    p, b = auction.output_space["p"], auction.schema["b"]
    strict = QualityFunction(p * count(b > p), schema=auction.schema, outputs=auction.output_space)
    statement = certify(strict, epsilon=Fraction(1, 20), neighbours="replace-one").statement
    held = {c["derivation"]["claim"]: c["derivation"] for c in statement["predicate"]["claims"] if "derivation" in c}
    derivation = copy.deepcopy(_derivations("auction-price")["truthfulness"])
    derivation["root"]["text"] = statement["predicate"]["quality"]["text"]
    assert judge(statement, held["privacy"], held, forge=False).accepted
    verdict = judge(statement, derivation, held)
    assert not verdict.accepted and "revenue" in verdict.reason, verdict


def _certify(name: str, monkeypatch: pytest.MonkeyPatch, *, forged: bool) -> Any:
    """``name``'s certificate with the small-model net off, written by the real certifier or (``forged``) by
    :func:`forging_finalise`, which keeps every PROVED claim."""
    from expmech.proofs import certify
    from expmech.proofs.certificate.make import _build, _derive

    monkeypatch.setattr(_build, "certify_small_model", lambda *args, **kwargs: None)
    if forged:  # the certifier's two nets off: its finalise and its last verify before sealing
        monkeypatch.setattr(_derive, "finalise", forging_finalise)
        monkeypatch.setattr(_build, "_accepted", lambda statement, rlimit: statement)
    entry = catalogue_entry(name)
    extra = {"base_measure": entry.base_measure} if entry.base_measure is not None else {}
    if entry.auction is not None:
        extra["auction"] = entry.auction
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, **extra)


def _claim(certificate: Any, claim_id: str) -> dict[str, Any]:
    return next(c for c in certificate.statement["predicate"]["claims"] if c["id"] == claim_id)


def _caught(name: str, claim_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The wrong prover's claim is not issued as PROVED by the certifier, and, forged, the verifier rejects it there (and
    the independent oracle finds the forged certificate's claims not all true)."""
    honest = _certify(name, monkeypatch, forged=False)
    assert _claim(honest, claim_id)["status"] != "PROVED", _claim(honest, claim_id)
    forged = _certify(name, monkeypatch, forged=True)
    assert _claim(forged, claim_id)["status"] == "PROVED"
    report = verify(forged.data)
    assert report.outcome is CheckOutcome.INVALID and report.failed == f"claim {claim_id}", (report.failed, report.problems)


def test_the_verifier_rejects_a_prover_with_a_wrong_utility_bound(monkeypatch):
    """A prover bug in U (one less, its exhaustive check of u <= U skipped): the verifier, enumerating the utilities
    itself, rejects the truthfulness claim."""
    from expmech.impl import DigitalGoodsAuction
    from expmech.proofs.certificate.make import _auction

    honest, hypotheses = DigitalGoodsAuction.utility_bound, _auction._hypotheses
    monkeypatch.setattr(DigitalGoodsAuction, "utility_bound", lambda self: honest(self) - 1)
    monkeypatch.setattr(_auction, "_hypotheses", lambda auction: (True, True, True, hypotheses(auction)[3]))
    _caught("auction-price", "truthfulness", monkeypatch)


@pytest.mark.parametrize(("name", "kind", "key", "value", "failed"), [
    ("median", "privacy", "epsilon0", "1/4", "privacy"),
    ("median", "zcdp", "epsilon0", "1/4", "zcdp"),
    ("posterior-bernoulli", "posterior-range", "outputs", '[["1/2"], ["3/5"]]', "bounded-range"),
])
def test_the_verifier_binds_the_data_to_the_certificates_inputs(name, kind, key, value, failed, monkeypatch):
    """A prover that writes a smaller ε₀ (a weaker premise of the same ε), or a posterior's θ list narrowed to two
    outputs (R smaller), is rejected: the rules read ε₀ and the θ of positive μ from the mechanism itself."""
    from expmech.proofs.certificate.make import _conclusion_derivations, _posterior_range

    honest = _conclusion_derivations.attach_conclusion

    def wrong(claim: dict[str, Any], which: str, rule: str, **options: Any) -> dict[str, Any]:
        if which == kind:
            options["data"] = {**options["data"], key: value}
        return honest(claim, which, rule, **options)

    monkeypatch.setattr(_conclusion_derivations, "attach_conclusion", wrong)
    monkeypatch.setattr(_posterior_range, "attach_conclusion", wrong)
    _caught(name, failed, monkeypatch)


def test_the_verifier_rejects_a_prover_that_halves_epsilon(monkeypatch):
    """A prover bug — the privacy theorem's factor 2 dropped: the verifier rejects the privacy claim (ε₀·Δq proved by
    no rule of a quality that is not shown monotone)."""
    from expmech.proofs.certificate.make import _derive

    honest = _derive.derive_epsilon
    monkeypatch.setattr(_derive, "derive_epsilon", lambda e0, delta, **kw: honest(e0, delta, **kw) / 2)
    _caught("median", "privacy", monkeypatch)


def test_the_verifier_rejects_a_prover_with_a_wrong_zcdp_or_range(monkeypatch):
    """A ρ of η²/16 and a posterior's ln R rounded down are each rejected by the verifier."""
    from expmech.proofs.certificate.make import _accounting_claims, _posterior_range

    honest = _accounting_claims.zcdp_claim

    def wrong_zcdp(status: str, eta: Any) -> dict[str, Any]:
        result = honest(status, eta)
        if eta is not None:
            result["rho"] = str(Fraction(result["rho"]) / 2)
        return result

    monkeypatch.setattr(_accounting_claims, "zcdp_claim", wrong_zcdp)
    _caught("median", "zcdp", monkeypatch)
    monkeypatch.undo()
    monkeypatch.setattr(_posterior_range, "_log_upper", lambda value: Fraction(math.floor(math.log(value) * 2**40), 2**40) - Fraction(1, 2**40))
    _caught("posterior-bernoulli", "bounded-range", monkeypatch)


def _mutants(name: str) -> tuple[int, int, list[str]]:
    """(mutants, rejected by the verifier, accepted labels) over the conclusions of ``name``'s certificate: every mutant
    of derivation_mutants, ε₀ doubled, each premise the rule reads dropped or replaced by a wrong one."""
    held = _derivations(name)
    count = rejected = 0
    accepted = []
    for kind in CONCLUSIONS:
        if kind not in held:
            continue
        original = held[kind]
        cases = [(f"{kind}: {label}", mutant, held) for label, mutant in derivation_mutants(original, KIND_OF)]
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
    """An accepted mutant that is a valid proof of a true claim: root-larger (a weaker claim, which the verifier's
    binding to the claim's stated values refuses), or a posterior's range by ln R switched to 2 ln c where the recorded
    Δ̂ is at least 2 ln c too (R = c²: posterior-bernoulli's 81 = 9²), so both rules prove it."""
    if operator(label.split(": ")[1]) == "root-larger":
        return True
    if label != "posterior-range: rule posterior-range":
        return False
    c = Fraction(held["likelihood-ratio"]["bound"]["args"][0]["rational"])
    return float(Fraction(held["posterior-range"]["bound"]["rational"])) >= 2 * math.log(c) - 1e-12


@pytest.mark.parametrize("name", FAST)
def test_every_mutant_of_a_conclusion_is_rejected(name):
    """Generated wrong derivations of privacy, zcdp and posterior-range (bound, rule, term, text, case, data, root,
    start, relation, claim kind, ε₀, premises dropped or wrong) are each rejected by the verifier; only root-larger
    (a true, weaker claim, which the binding refuses as not the claim) may be accepted."""
    count, _, accepted = _mutants(name)
    assert count >= 20 and not accepted, accepted


@pytest.mark.slow
def test_every_mutant_of_every_catalogue_conclusion_is_rejected():
    """Slow: the same over the whole catalogue; prints the mutation figures."""
    total = rejected = 0
    for name in ALL:
        count, verifier, accepted = _mutants(name)
        assert not accepted, (name, accepted)
        total, rejected = total + count, rejected + verifier
    print(f"{total} conclusion mutants over {len(ALL)} certificates: {rejected} rejected by the verifier, {total - rejected} equivalent")


@settings(max_examples=20, deadline=None)
@given(a=st.integers(-2, 2), b=st.integers(-2, 2).filter(bool), relation=st.sampled_from(["replace-one", "add-remove"]))
@example(a=0, b=-1, relation="replace-one")
@example(a=1, b=-1, relation="add-remove")
@example(a=0, b=1, relation="replace-one")
def test_the_privacy_claim_needs_a_finite_normaliser(a, b, relation):
    """q = a·r + b·|r − total(v)| over all of ℝ: the privacy claim 2·ε₀·Δq, resting on an accepted sensitivity, is
    accepted exactly where the normaliser ∫ e^{ε₀ q} dr is finite for every dataset (b < −|a|), as expmech.impl's
    mechanism finds it (a DivergentNormaliser otherwise)."""
    import sympy

    from checker_tools import in_verifier_terms, statement_for, text_at
    from expmech.impl import ExponentialMechanism
    from expmech.proofs import prove_sensitivity
    from expmech.spec import DivergentNormaliser, OutputSpace, QualityFunction, RationalRange, RecordSchema, total

    schema, outputs = RecordSchema(v=RationalRange(0, 1)), OutputSpace(r=RationalRange(None, None))
    r, v = outputs["r"], schema["v"]
    q = QualityFunction(a * r + b * sympy.Abs(r - total(v)), schema=schema, outputs=outputs)
    data = statement_for(q, relation)
    sensitivity = in_verifier_terms(prove_sensitivity(q, neighbours=relation).derivation, data, q)
    bound = {"node": "Mul", "args": [{"rational": "2"}, sensitivity["bound"]]}
    root = {"id": "privacy", "term": [], "text": text_at(data, []), "case": {"from": sensitivity["start"]}, "rule": "privacy-double", "bound": bound,
            "data": {"epsilon0": "1"}, "premises": []}
    privacy = {"format": 1, "claim": "privacy", "relation": relation, "start": sensitivity["start"], "bound": bound, "root": root}
    verdict = judge(data, privacy, [sensitivity])
    try:
        ExponentialMechanism(q, epsilon=1, outputs=q.output_space).distribution([Fraction(1, 2)])
        finite = True
    except DivergentNormaliser:
        finite = False
    assert finite == (b < -abs(a))
    assert verdict.accepted == finite, verdict
    if not finite:
        assert verdict.node == "privacy" and "finite" in verdict.reason, verdict


def _defined_on_empty_but_at_one_point() -> Any:
    """q(D, r) = [n = 0]·r + Piecewise((0, r > 0 or n > 0)) over r in [0, 10] (Lebesgue μ), records v in {0, 1}: on ∅ it
    is undefined at r = 0 alone, a point of μ-measure 0, so expmech.impl's mechanism is defined on ∅ (Z = e^10 − 1)."""
    import sympy

    from expmech.spec import IntRange, OutputSpace, QualityFunction, RationalRange, RecordSchema, size

    schema, outputs = RecordSchema(v=IntRange(0, 1)), OutputSpace(r=RationalRange(0, 10))
    r = outputs["r"]
    return QualityFunction(sympy.Piecewise((r, sympy.Eq(size(), 0)), (0, True)) + sympy.Piecewise((0, (r > 0) | (size() > 0))), schema=schema, outputs=outputs)


def test_a_sensitivity_from_n_one_is_rejected_where_the_mechanism_is_defined_on_the_empty_dataset():
    """On a continuous range, a q undefined on ∅ at one output only (a null set) still has ∅ in the mechanism's domain:
    a size-only derivation of Δq = 0 from n = 1 (the change 10 between ∅ and {x} left out) is rejected."""
    from checker_tools import statement_for, text_at
    from expmech.impl import ExponentialMechanism

    q = _defined_on_empty_but_at_one_point()
    assert ExponentialMechanism(q, epsilon=1, outputs=q.output_space).distribution([]).normaliser  # defined on ∅
    data = statement_for(q, "add-remove")
    root = {"id": "g", "term": [], "text": text_at(data, []), "case": {"from": 1}, "rule": "size-only", "bound": {"rational": "0"}, "data": {}, "premises": []}
    verdict = judge(data, {"format": 1, "claim": "sensitivity", "relation": "add-remove", "start": 1, "bound": {"rational": "0"}, "root": root})
    assert not verdict.accepted, verdict


def test_no_certificate_of_an_epsilon_below_the_mechanisms_privacy_loss_is_certified():
    """End to end: the certificate of that quality (add-remove, ε₀ = 1) certifies no ε below the exact privacy loss of
    expmech.impl's mechanism between ∅ and {0}."""
    from expmech.impl import ExponentialMechanism
    from expmech.proofs import certify

    q = _defined_on_empty_but_at_one_point()
    low, _ = ExponentialMechanism(q, epsilon=1, outputs=q.output_space).privacy_loss([], [0]).enclose(64)
    assert low > 7
    report = verify(certify(q, epsilon=1, neighbours="add-remove").data)
    assert not (report.certifies_dp and Fraction(report.epsilon) < low), report.summary
