"""Plain assertion helpers to put a DP check in your own test suite (with or without the pytest plugin).

.. code-block:: python

    from expmech.proofs import assert_dp

    def test_my_mechanism_is_private():
        assert_dp(my_quality, epsilon=Fraction(1, 2), neighbours="replace-one", max_epsilon=1)

``assert_dp`` raises :class:`DPViolation` (an ``AssertionError``) with the
counterexample when the claim is refuted, and :class:`DPInconclusive` (also an
``AssertionError``) when nothing was proved — so UNKNOWN fails by default.
With the plugin loaded (it is, through the ``pytest11`` entry point), the ini
option ``expmech_unknown = skip`` turns inconclusive results into skips, and
the ``expmech`` marker tags DP tests for selection (``-m expmech``).
"""

from __future__ import annotations

from typing import Any

import sympy

from expmech.spec import DATASET_SIZE, QualityFunction
from expmech.spec.internal import readable

from .certificate.make._build import Certificate, certify
from ._dp_errors import DPInconclusive, DPViolation
from ._outcome import Status
from .prover._claims import at_least, parse_claim

__all__ = ["DPInconclusive", "DPViolation", "assert_dp", "assert_sensitivity"]


def _counterexample_text(certificate: Certificate) -> str:
    for claim in certificate.statement["predicate"]["claims"]:
        if claim["id"] == "sensitivity" and claim.get("counterexample"):
            c = claim["counterexample"]
            return f"counterexample: D = {c['dataset1']}, D' = {c['dataset2']}, r = {c['output']}, |q(D,r) − q(D',r)| = {c['difference']}"
        if claim["id"] == "conformance" and claim.get("violations"):
            pair = claim["checks"][claim["violations"][0]]
            return f"conformance violation: D = {pair['dataset1']}, D' = {pair['dataset2']}, privacy loss > ε = {pair['epsilon_at_n']}"
    return ""


def assert_dp(
    quality: QualityFunction,
    *,
    epsilon: Any,
    neighbours: Any,
    claimed: Any = None,
    max_epsilon: Any = None,
    **options: Any,
) -> Certificate:
    """Assert that ``E_q^ε₀`` with ``quality`` is proved ε-DP, with ε <= ``max_epsilon`` if given.

    Returns the certificate.  Raises :class:`DPViolation` with the
    counterexample if the sensitivity claim (or ε <= max_epsilon) is refuted,
    and :class:`DPInconclusive` if nothing was proved.  A plain Python
    function with ``schema=`` and ``outputs=`` is traced first (see :func:`certify`).
    """
    certificate = certify(quality, epsilon=epsilon, neighbours=neighbours, claimed=claimed, **options)
    status = certificate.status
    name = getattr(quality, "name", None) or getattr(quality, "__name__", None) or "quality"
    if status is Status.REFUTED:
        raise DPViolation(f"{name}: REFUTED — {_counterexample_text(certificate)}")
    if status is not Status.PROVED or certificate.epsilon is None:
        reason = certificate.statement["predicate"]["notes"]
        raise DPInconclusive(f"{name}: {status} — no ε-DP claim is made ({'; '.join(reason)})")
    if max_epsilon is not None:
        limit = parse_claim(max_epsilon)
        proved = sympy.sympify(certificate.epsilon, locals={"n": DATASET_SIZE})
        if limit is None or at_least(limit, proved).holds is not True:
            raise DPViolation(f"{name}: the proved ε = {certificate.epsilon} is not <= max_epsilon = {readable(max_epsilon)}")
    return certificate


def assert_sensitivity(quality: QualityFunction, *, neighbours: Any, claimed: Any, **options: Any) -> Any:
    """Assert that the sensitivity of ``quality`` is PROVED to be at most ``claimed``; return the result."""
    from .prover._sensitivity import prove_sensitivity

    result = prove_sensitivity(quality, neighbours=neighbours, claimed=claimed, **options)
    if result.status is Status.REFUTED and result.counterexample is not None:
        raise DPViolation(f"Δq <= {readable(claimed)} is REFUTED: {result.counterexample}")
    if result.status is not Status.PROVED:
        raise DPInconclusive(f"Δq <= {readable(claimed)} is {result.status}: {result.reason}")
    return result
