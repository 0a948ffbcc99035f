"""Certificates for mechanisms over a range: an interval of the reals or an infinite set of integers.

The mechanism's range is ``{"kind": "RationalRange" | "IntRange", "lo", "hi",
"base_measure"}`` (``null`` for an infinite end; μ a ``PiecewiseDensity`` /
``PiecewiseGeometric`` object): the range kind :class:`~..format._inputs.SetRange`.
The sensitivity and monotonicity claims are the usual ones (their z3 queries
quantify over every output of the range).  One claim is added, ``normaliser``:
whether the normaliser is provably the same for every dataset
(:func:`~expmech.proofs.prover._continuous.prove_normaliser_invariance`), and
if so the privacy claim uses ``ε₀·Δq`` (``normaliser_invariant``), with the
reason.  ``check`` re-derives all of it from the certificate's inputs like any
other claim.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import sympy

from expmech.impl import ExponentialMechanism
from expmech.impl.internal import is_range
from expmech.spec import (
    DATASET_SIZE,
    LARGEST_LISTED,
    SMALL_DOMAIN,
    IntRange,
    QualityError,
    QualityFunction,
    measure_from_json,
    quality_from_json,
    rational_text,
)
from expmech.spec import rational_from_text
from expmech.spec.internal import domain_from_json
from expmech.spec.internal import expression_to_json

from ..._outcome import Status
from ...prover._continuous import InvarianceResult, prove_normaliser_invariance

__all__ = ["is_ranged", "normaliser_claim", "range_series"]


def is_ranged(quality: QualityFunction, outputs: Any) -> bool:
    """Whether a certificate for ``quality`` over ``outputs`` is for a range rather than a list of outputs.

    A range when ``outputs`` is one, or when it is None and the output space is infinite or one
    integer variable of more than :data:`~expmech.spec.SMALL_DOMAIN` values (recorded as its ends, never listed).
    """
    if is_range(outputs):
        return True
    if outputs is not None:
        return False
    space = quality.output_space
    domains = [domain for _, _, domain in space.items()]
    if not space.is_finite:
        return True
    if len(domains) != 1 or not isinstance(domains[0], IntRange) or (space.size or 0) <= SMALL_DOMAIN:
        return False
    # a large integer range: by its ends, unless q is not piecewise linear in r and the outputs may still be listed
    return (space.size or 0) > LARGEST_LISTED or _piecewise_linear(quality)


def _piecewise_linear(quality: QualityFunction) -> bool:
    """Whether q(d, ·) is piecewise linear in r on a few datasets built from the fields' ends (the range path needs it)."""
    def ends(domain: Any) -> list[Any]:
        if domain.is_finite and not isinstance(domain, IntRange):
            codes = domain.codes()
            return [domain.decode(codes[0]), domain.decode(codes[-1])]
        lo, hi = domain.bounds()
        values = [v for v in (lo, hi) if v is not None] or [Fraction(0)]
        return [int(v) if domain.sort == "int" else v for v in values]

    fields = [(name, ends(domain)) for name, _, domain in quality.schema.items()]
    records = [{name: values[i % len(values)] for name, values in fields} for i in range(2)]
    if len(fields) == 1:
        records = [record[fields[0][0]] for record in records]
    mech = ExponentialMechanism(quality, epsilon=1, outputs=quality.output_space)
    for dataset in ([records[0]], records):
        try:
            mech.scores(dataset)
        except QualityError as error:
            if "not piecewise linear" in str(error):
                return False
    return True


def _invariance_json(result: InvarianceResult) -> dict[str, Any]:
    normaliser = None
    if result.normaliser is not None:
        normaliser = {
            "numerator": [[rational_text(c), rational_text(b)] for c, b in result.normaliser.numerator.terms],
            "denominator": [[rational_text(c), rational_text(b)] for c, b in result.normaliser.denominator.terms],
        }
    return {
        "id": "normaliser",
        "statement": "privacy",
        "status": str(result.status),
        "method": "symbolic: q(D, r) = h(r − f(D)) with h free of the data, μ translation invariant on the whole line; Z exact",
        "shift": None if result.shift is None else expression_to_json(result.shift),
        "profile": None if result.profile is None else str(result.profile),
        "normaliser": normaliser,
        "reason": result.reason,
    }


def normaliser_claim(quality: QualityFunction, mech: Any, epsilon0: Fraction, *, neighbours: Any) -> tuple[dict[str, Any], bool]:
    """The ``normaliser`` claim (with its derivation when PROVED) and whether it is PROVED (so the privacy claim may use ε₀·Δq)."""
    result = prove_normaliser_invariance(quality, epsilon=epsilon0, outputs=mech.outputs, base_measure=mech.base_measure)
    claim = _invariance_json(result)
    derivation = result.derivation_for(quality, neighbours)
    if derivation is not None:
        claim["derivation"] = derivation
    return claim, result.status is Status.PROVED


def range_series(predicate: dict[str, Any], d1: Any, d2: Any) -> dict[str, Any]:
    """Plot data for a range certificate: masses of about 40 cells of a window of the range, and the loss there."""
    quality = quality_from_json(predicate["quality"], check_sha256=False)
    mechanism = predicate["mechanism"]
    domain = domain_from_json({key: mechanism["range"][key] for key in ("kind", "lo", "hi")})
    measure = measure_from_json(mechanism["range"]["base_measure"])
    mech = ExponentialMechanism(quality, epsilon=rational_from_text(mechanism["epsilon0"]), outputs=domain, base_measure=measure)
    p1, p2 = mech.distribution(d1), mech.distribution(d2)
    lo, hi = domain.bounds()
    cuts = p1.quality_pieces.cuts.fractions() + p2.quality_pieces.cuts.fractions()
    left = lo if lo is not None else (min(cuts) - 4 if cuts else Fraction(-10))
    right = hi if hi is not None else (max(cuts) + 4 if cuts else Fraction(10))
    integer = isinstance(domain, IntRange)
    count = 40 if not integer else min(40, int(right - left) + 1)
    step = (right - left) / count
    if integer:
        step = Fraction(max(1, math.ceil(step)))
    labels, first, second, loss = [], [], [], []
    for i in range(count):
        a = left + i * step
        b = min(a + step, right) if not integer else a + step - 1
        if a > right:
            break
        interval = (a, b) if not integer else (int(a), int(min(b, right)))
        m1, m2 = p1.mass(interval), p2.mass(interval)
        labels.append(f"{float(a):.3g}")
        first.append(float(m1))
        second.append(float(m2))
        point = a if integer else (a + b) / 2
        point = int(point) if integer else point
        density1 = p1.probability(point) if integer else p1.density(point)
        density2 = p2.probability(point) if integer else p2.density(point)
        loss.append(abs(float(density1.log()) - float(density2.log())) if density1.sign() > 0 and density2.sign() > 0 else 0.0)
    epsilon = predicate["epsilon"]
    bound = float(sympy.sympify(epsilon, locals={"n": DATASET_SIZE}).subs(DATASET_SIZE, len(d1))) if epsilon is not None else None
    return {"labels": labels, "p1": first, "p2": second, "loss": loss, "bound": bound, "d1": d1, "d2": d2}
