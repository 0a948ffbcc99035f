"""Posterior-sampling certificates carry proved bounded-range and zcdp claims that check re-derives, and `account` composes them."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest

from certificate_tools import resealed
from expmech.impl import POSTERIOR_CATALOGUE
from expmech.proofs import CheckOutcome, certify, check_certificate
from expmech.spec import Neighbours
from expmech.proofs.accounting import OptimalComposition
from expmech.proofs.certificate.make._posterior_range import posterior_range_claims  # the claim builder alone


def _claims(cert) -> dict:
    return {claim["id"]: claim for claim in cert.statement["predicate"]["claims"]}


def _certify(entry, **extra):
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity, base_measure=entry.base_measure, **extra)


def _brute_spread(entry) -> Fraction:
    """max over changed records of max_θ / min_θ of the likelihood (ratio), by direct evaluation of ℓ(x, θ) on user values."""
    quality, outputs = entry.quality, entry.quality.output_space
    thetas = [o for o in _outputs(entry)]
    fields = [(name, domain.values()) for name, _, domain in quality.schema.items()]
    records = [dict(zip([n for n, _ in fields], combo)) for combo in itertools.product(*[v for _, v in fields])]
    values = lambda r: [quality.likelihood([_record(r)], t) for t in thetas]  # noqa: E731
    best = Fraction(1)
    for a in records:
        la = values(a)
        partners = records if entry.neighbours is Neighbours.REPLACE_ONE else [None]
        for b in partners:
            ratios = la if b is None else [x / y for x, y in zip(la, values(b))]
            best = max(best, max(ratios) / min(ratios))
    return best


def _record(r: dict):
    return next(iter(r.values())) if len(r) == 1 else r


def _outputs(entry) -> list:
    if isinstance(entry.base_measure, dict):
        return [o for o, m in entry.base_measure.items() if m > 0]
    return list(entry.quality.output_space.items())[0][2].values()


@pytest.mark.parametrize("entry", POSTERIOR_CATALOGUE, ids=lambda e: e.name)
def test_posterior_certificates_carry_proved_bounded_range_and_zcdp(entry) -> None:
    """η = ε₀·Δ̂ with Δ̂ >= the true range sensitivity (and <= 2Δq), ρ = η²/8; the certificate checks."""
    cert = _certify(entry)
    claims = _claims(cert)
    br, z = claims["bounded-range"], claims["zcdp"]
    assert br["status"] == "PROVED" and z["status"] == "PROVED", br["reason"]
    eta, sensitivity = Fraction(br["eta"]), Fraction(br["range_sensitivity"])
    assert eta == Fraction(entry.epsilon) * sensitivity
    assert Fraction(z["rho"]) == eta * eta / 8 and z["eta"] == br["eta"]
    rho = Fraction(claims["sensitivity"]["ratio"])
    assert sensitivity <= Fraction(math.log(rho * rho)) + Fraction(1, 2**39)  # never looser than 2Δq (plus the grid)
    try:
        truth = _brute_spread(entry)
    except Exception:  # an interval range or an infinite field: only the Δq route applies
        truth = rho * rho
    assert math.log(truth) <= float(sensitivity) and float(sensitivity) - math.log(truth) < 2 ** -38
    assert check_certificate(cert.data).outcome is CheckOutcome.CERTIFIES_DP


@pytest.mark.parametrize("edit", [
    lambda s: _set(s, "bounded-range", "eta", "1/4"),
    lambda s: _set(s, "bounded-range", "range_sensitivity", "1/8"),
    lambda s: _set(s, "zcdp", "rho", "1/100"),
])
def test_a_resealed_edit_of_the_posterior_claims_is_caught(edit) -> None:
    """check re-derives η and ρ of a posterior certificate: an edited value, even resealed, is INVALID."""
    cert = _certify(POSTERIOR_CATALOGUE[0])
    report = check_certificate(resealed(cert.data, edit))
    assert report.outcome is CheckOutcome.INVALID, report.problems


def _set(statement: dict, claim_id: str, key: str, value: object) -> None:
    for claim in statement["predicate"]["claims"]:
        if claim["id"] == claim_id:
            claim[key] = value


def test_account_composes_a_posterior_certificate(tmp_path, capsys) -> None:
    """`expmech account` takes η from the posterior certificate's bounded-range claim (its ε is a logarithm)."""
    from expmech.proofs.cli import main

    entry = POSTERIOR_CATALOGUE[0]
    path = tmp_path / "posterior.cert.json"
    path.write_text(_certify(entry).to_json(), encoding="utf-8")
    code = main(["account", str(path), "--times", "5", "--delta", "1/1000000", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["components"][0]["eta_from"] == "bounded-range claim"
    eta = Fraction(out["components"][0]["eta"])
    assert Fraction(out["epsilon"]["upper"]) == OptimalComposition([(eta, 5)]).epsilon(Fraction(1, 10**6)).upper


def test_exact_route_is_tighter_than_twice_the_sensitivity() -> None:
    """Add-remove on θ ∈ {1/10, …, 5/10}: ρ = 10 (2Δq = ln 100), but the spread is ln 5 (ℓ(1, ·) from 1/10 to 1/2)."""
    from expmech.proofs.conformance._posterior_family import bernoulli_likelihood

    grid = tuple(Fraction(i, 10) for i in range(1, 6))
    cert = certify(bernoulli_likelihood(grid), epsilon=Fraction(1, 2), neighbours="add-remove", claimed="log(10)", base_measure={t: 1 for t in grid})
    br = _claims(cert)["bounded-range"]
    assert br["status"] == "PROVED" and "R = 5 " in br["reason"]
    assert math.log(5) <= float(Fraction(br["range_sensitivity"])) < math.log(5) + 2 ** -39
    assert Fraction(br["eta"]) == Fraction(1, 2) * Fraction(br["range_sensitivity"])
    assert check_certificate(cert.data).outcome is CheckOutcome.CERTIFIES_DP
