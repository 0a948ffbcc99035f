"""The ``bounded-range`` and ``zcdp`` claims of a posterior-sampling certificate, from its inputs alone.

Posterior sampling draws θ with weight ``μ(θ)·Π_{x∈D} ℓ(x, θ)^{ε₀}``: the exponential
mechanism with the log-likelihood quality ``q(D, θ) = Σ ln ℓ(x, θ)``.  Between neighbours
only the changed record survives in ``d(θ) = q(D, θ) − q(D′, θ)``:

* add-remove: ``d(θ) = ±ln ℓ(x, θ)``, spread ``ln(max_θ ℓ(x, θ) / min_θ ℓ(x, θ))``;
* replace-one: ``d(θ) = ln(ℓ(x, θ)/ℓ(x′, θ))``, spread ``ln(max_θ r / min_θ r)`` with ``r = ℓ(x, ·)/ℓ(x′, ·)``.

So the range sensitivity is ``Δ̂ = ln R`` with R the largest such ratio of ratios
(whatever the other records and n, the empty dataset included), and the mechanism is
``ε₀·Δ̂``-bounded-range (Durfee–Rogers 2019).  Two ways to prove it:

* **exact**, when the range is a finite list and every record field is a finite domain
  with at most :data:`LIMIT` (record, record, θ) points: every ratio is evaluated
  exactly over the outputs of positive base measure;
* **through Δq** otherwise: ``d(θ)`` lies in ``[−Δq, Δq]`` with ``Δq = ln ρ`` the
  certificate's proved likelihood ratio, so ``Δ̂ <= 2 ln ρ``.

Δ̂ is a logarithm; the claim records the rational ``⌈ln R · 2⁴⁰⌉ / 2⁴⁰`` (an outward-
rounded ball's upper end), which is at or above it, and η = ε₀ times that (a larger η
is still a valid BR parameter), ρ = η²/8 (Cesar–Rogers 2021).  ``check`` re-derives both.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

from flint import arb, ctx, fmpq

from expmech.spec import LogLikelihood, Neighbours, SMALL_DOMAIN, rational_text

from ..._outcome import Status
from ...prover._likelihood import LikelihoodRatioResult
from ._accounting_claims import zcdp_claim
from ._conclusion_derivations import attach_conclusion, attach_zcdp, positive_outputs
from ..format._inputs import CertificateInputs, FiniteRange
from ..check._smt import z3_label

__all__ = ["LIMIT", "posterior_range_claims"]

#: Largest number of (record, record, θ) evaluations of the exact route.
LIMIT = 200_000
_GRID = 2**40


def _log_upper(value: Fraction) -> Fraction:
    """A rational at or above ``ln(value)`` (``value >= 1``), on the grid ``2⁻⁴⁰``."""
    with ctx.workprec(200):
        ball = arb(fmpq(value.numerator, value.denominator)).log()
        if not ball.is_finite():
            raise ValueError(f"ln {value} is not finite")  # pragma: no cover - value >= 1 is a positive rational
        high = _exact(ball.mid()) + _exact(ball.rad())
    return Fraction(math.ceil(high * _GRID), _GRID)


def _exact(value: arb) -> Fraction:
    mantissa, exponent = value.man_exp()
    m, e = int(mantissa), int(exponent)
    return Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)


def _records(quality: LogLikelihood) -> list[dict[Any, Any]] | None:
    """Every record's codes, or None if a field is infinite, larger than SMALL_DOMAIN, or the product is past LIMIT."""
    per_field = []
    total = 1
    for _, sym, domain in quality.schema.items():
        size = domain.size
        if not domain.is_finite or size is None or size > SMALL_DOMAIN:
            return None
        total *= size
        if total > LIMIT:
            return None
        per_field.append([(sym, code) for code in domain.codes()])
    return [dict(combo) for combo in itertools.product(*per_field)]


def _show(quality: LogLikelihood, record: dict[Any, Any]) -> str:
    return "record (" + ", ".join(f"{name}={domain.decode(record[sym])!r}" for name, sym, domain in quality.schema.items()) + ")"


def _exact_ratio(inputs: CertificateInputs) -> tuple[Fraction, str] | None:
    """``(R, where)``: the largest ratio of ratios by enumeration, or None when the exact route does not apply."""
    quality = inputs.quality
    assert isinstance(quality, LogLikelihood)
    if not isinstance(inputs.range, FiniteRange):
        return None
    thetas = [quality.output_space.encode(o) for o, m in zip(inputs.range.outputs, inputs.range.base_measure) if m > 0]
    records = _records(quality)
    if records is None or not thetas:
        return None
    replace = inputs.neighbours is Neighbours.REPLACE_ONE
    if len(records) * (len(records) if replace else 1) * len(thetas) > LIMIT:
        return None
    table = [[quality.record_likelihood_codes(r, theta) for theta in thetas] for r in records]
    if any(value <= 0 for row in table for value in row):
        return None
    best, where = Fraction(1), "every record gives the same likelihood at every θ"
    for i, row in enumerate(table):
        partners = range(len(table)) if replace else [None]
        for j in partners:
            ratios = row if j is None else [a / b for a, b in zip(row, table[j])]
            spread = max(ratios) / min(ratios)
            if spread > best:
                best = spread
                where = _show(quality, records[i]) if j is None else f"{_show(quality, records[i])} against {_show(quality, records[j])}"
    return best, where


def posterior_range_claims(inputs: CertificateInputs, ratio: LikelihoodRatioResult) -> list[dict[str, Any]]:
    """The ``bounded-range`` and ``zcdp`` claims of a posterior-sampling certificate (UNKNOWN with nulls when Δq is not proved)."""
    proved = ratio.status is Status.PROVED and ratio.ratio is not None and ratio.proved_bound is not None
    sensitivity: Fraction | None = None
    rule = "range-ratio-double"
    if proved:
        assert ratio.ratio is not None
        exact = _exact_ratio(inputs)
        if exact is not None:
            value, where = exact
            sensitivity, rule = _log_upper(value), "range-enumerate"
            method = "range sensitivity by exact enumeration: ln R, R the largest max/min over θ of the changed record's likelihood (ratio)"
            reason = f"R = {rational_text(value)} ({where}); ln R <= {rational_text(sensitivity)} (outward-rounded, grid 2^-40)"
        else:
            sensitivity = _log_upper(ratio.ratio * ratio.ratio)
            method = "range sensitivity <= 2*Delta_q: d(theta) lies in [-ln rho, ln rho]"
            reason = f"2 ln rho = ln {rational_text(ratio.ratio * ratio.ratio)} <= {rational_text(sensitivity)} (outward-rounded, grid 2^-40)"
    else:
        method = "range sensitivity from the likelihood ratio"
        reason = f"the likelihood ratio is {ratio.status}: no bounded range is claimed"
    eta = None if sensitivity is None else inputs.epsilon0 * sensitivity
    status = "PROVED" if eta is not None else "UNKNOWN"
    bounded: dict[str, Any] = {
        "id": "bounded-range",
        "statement": "bounded-range",
        "status": status,
        "method": f"{method}; eta = epsilon0 * range_sensitivity (Durfee–Rogers 2019)",
        "range_sensitivity": None if sensitivity is None else rational_text(sensitivity),
        "eta": None if eta is None else rational_text(eta),
        "tight": False,
        "hypotheses": [],
        "reason": reason,
        "witness": None,
        "evidence": {"solver": z3_label(), "queries": []},
    }
    if status == "PROVED":  # ln R by enumeration over the outputs of positive μ, or 2 ln ρ from the likelihood ratio
        outputs = inputs.range
        data = {"outputs": positive_outputs(inputs.quality, outputs.outputs, outputs.base_measure)} if isinstance(outputs, FiniteRange) and rule == "range-enumerate" else {}  # type: ignore[arg-type]
        attach_conclusion(bounded, "posterior-range", rule, quality=inputs.quality, relation=inputs.neighbours,
                          start=1 if inputs.neighbours is Neighbours.REPLACE_ONE else 0, bound={"rational": bounded["range_sensitivity"]}, data=data)
    return attach_zcdp([bounded, zcdp_claim(status, eta)], inputs)
