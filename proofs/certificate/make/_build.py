"""Certificates of ε-differential privacy: build, canonicalise, digest, sign, write.

A certificate is an in-toto Statement v1 whose predicate (type
:data:`PREDICATE_TYPE`, described by the JSON Schema shipped as
``certificate.schema.json``) records the certificate's *inputs* — the quality
function (expression tree, canonical text and sha256), ε₀, the neighbour
relation, the range with its base measure, the claimed Δq and the prover's
budget — and every claim *derived* from them (:mod:`._derive`): each with its
method and evidence (the SMT-LIB2 text of each z3 query, its answer and the
resources z3 needs for it; witnesses and counterexamples as concrete data; the
exact conformance check), the derived ε, and, as provenance only, tool
versions and a hash of the implementation source.  The file wraps the
statement with a sha256 over its RFC 8785 canonical form, or — signed — with a
DSSE envelope (:mod:`..format._signing`).

No ε-DP claim is written unless the sensitivity is PROVED: otherwise the
certificate says exactly what was established instead (BOUNDED, TESTED,
UNKNOWN or REFUTED) and ``epsilon`` is null.
"""

from __future__ import annotations

import base64
import hashlib
import json
import platform
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from expmech.spec import InvalidArgument, InvalidType, LogLikelihood, Neighbours, QualityFunction
from expmech.spec.internal import describe, positive_rational_input

from ..._files import write_atomically
from ..._outcome import Status
from ..._traced import traced_quality
from ...prover._likelihood import parse_log_claim
from ...prover._claims import parse_claim
from ..format._canonical import canonical_bytes, sha256_hex
from ._derive import PREDICATE_TYPE, SCHEMA_VERSION, derive
from ._finalise import settle
from ..format._layout import readable_json
from ..format._limits import CertificateLimits, check_exact_powers
from ..check._smallmodel import certify_small_model
from ..format._inputs import CertificateInputs, FiniteRange, IntervalRange, ProverBudget, Range, SetRange, encode_value, inputs_to_json
from ..format._signing import sign_statement

__all__ = [
    "PREDICATE_TYPE",
    "SCHEMA_VERSION",
    "Certificate",
    "certify",
    "encode_value",
    "implementation_sha256",
    "seal",
    "sign",
]


def implementation_sha256() -> str:
    """sha256 over every source file of ``expmech.impl``, its rooms included (sorted by relative path), so a change is visible."""
    digest = hashlib.sha256()
    for name, entry in sorted(_sources(resources.files("expmech.impl"), "")):
        digest.update(name.encode())
        digest.update(b"\0")
        digest.update(entry.read_bytes())
    return digest.hexdigest()


def _sources(folder: Any, prefix: str) -> list[tuple[str, Any]]:
    """``(relative path, file)`` of every ``.py`` file under ``folder``, subfolders (the rooms) included."""
    found: list[tuple[str, Any]] = []
    for entry in folder.iterdir():
        if entry.is_dir() and entry.name != "__pycache__":
            found.extend(_sources(entry, f"{prefix}{entry.name}/"))
        elif entry.name.endswith(".py"):
            found.append((f"{prefix}{entry.name}", entry))
    return found


def _versions() -> dict[str, str]:
    names = {
        "expmech": "expmech",
        "sympy": "sympy",
        "z3": "z3-solver",
        "cvc5": "cvc5",
        "python-flint": "python-flint",
        "hypothesis": "hypothesis",
        "numpy": "numpy",
    }
    versions = {"python": platform.python_version()}
    for label, dist in names.items():
        try:
            versions[label] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[label] = "not installed"
    return versions


@dataclass(frozen=True)
class Certificate:
    """A built certificate: the in-toto statement and its digest (signed: in a DSSE envelope). ``data`` is the file's JSON."""

    data: dict[str, Any]

    @property
    def statement(self) -> dict[str, Any]:
        """The in-toto Statement v1 (decoded from the envelope's payload when signed)."""
        if "certificate" in self.data:
            return self.data["certificate"]
        return json.loads(base64.b64decode(self.data["envelope"]["payload"]))

    @property
    def signed(self) -> bool:
        """Whether the file is a signed DSSE envelope."""
        return "envelope" in self.data

    @property
    def status(self) -> Status:
        """The certificate's overall status (PROVED only with a proved sensitivity)."""
        return Status[self.statement["predicate"]["status"]]

    @property
    def epsilon(self) -> str | None:
        """The certified ε as text (may be an expression in n), or None when no ε-DP claim is made."""
        return self.statement["predicate"]["epsilon"]

    @property
    def digest(self) -> str:
        """The sha256 over the canonical statement."""
        return self.data["digest"]["value"]

    def __str__(self) -> str:
        """One line: the subject, the status, ε (or that none is certified) and the digest."""
        try:
            subject = self.statement["subject"][0]["name"]
            epsilon = self.epsilon
            shown = f"ε = {epsilon}" if epsilon is not None else "no ε-DP claim"
            return f"certificate of {subject}: {self.status.name}, {shown}; sha256:{self.digest[:12]}…"
        except (KeyError, IndexError, TypeError, AttributeError):
            return "certificate (malformed: expmech check names what is missing)"

    def __repr__(self) -> str:
        return f"<{self}>"

    def to_json(self) -> str:
        """The file's text (indented; the digest covers the canonical form, not this layout)."""
        return readable_json(self.data) + "\n"

    def write(self, path: str | Path) -> Path:
        """Write the certificate to ``path`` and return it."""
        return write_atomically(Path(path), self.to_json())


def seal(statement: dict[str, Any]) -> dict[str, Any]:
    """Wrap an in-toto statement with its sha256 digest over the RFC 8785 canonical form."""
    return {"certificate": statement, "digest": {"algorithm": "sha256", "canonicalization": "RFC 8785", "value": sha256_hex(statement)}}


def sign(certificate: Certificate, signing_key: Any) -> Certificate:
    """The same certificate in a DSSE envelope signed with Ed25519 (``signing_key``: a PEM path or a securesystemslib signer).

    The payload is the canonical statement and the digest its sha256; see
    :mod:`expmech.proofs.certificate.format._signing`.  A signature says who issued
    the certificate, never that its claims are true.
    """
    payload = canonical_bytes(certificate.statement)
    envelope = sign_statement(payload, signing_key)
    return Certificate({"envelope": envelope, "digest": {"algorithm": "sha256", "canonicalization": "RFC 8785", "value": hashlib.sha256(payload).hexdigest()}})


def _range(quality: QualityFunction | LogLikelihood, outputs: Any, base_measure: Any) -> Range:
    """The range a certificate is about: a finite list of outputs, or — posterior sampling — an interval of θ with a Beta prior."""
    if isinstance(quality, LogLikelihood):
        from expmech.impl.internal import posterior_interval

        interval = posterior_interval(quality, outputs)
        if interval is not None:
            return IntervalRange.build(quality, interval, base_measure)
        return FiniteRange.build(quality, outputs, base_measure)
    from ._ranges import is_ranged

    if is_ranged(quality, outputs):
        return SetRange.build(quality, outputs, base_measure)
    return FiniteRange.build(quality, outputs, base_measure)


def _accepted(statement: dict[str, Any], rlimit: int) -> dict[str, Any]:
    """``statement`` with every PROVED claim the verifier rejects as a whole (a stated value it cannot read, say)
    demoted, one at a time: ``certify`` never writes a certificate ``expmech check`` calls INVALID."""
    from ...checker import CheckOutcome, verify

    for _ in range(len(statement["predicate"]["claims"]) + 1):
        report = verify(seal(statement))
        failed = report.failed or ""
        if report.outcome is not CheckOutcome.INVALID or not failed.startswith("claim "):
            break
        settle(statement, rlimit=rlimit, demote=failed.removeprefix("claim "), why=report.problems[0][:300])
    return statement


def certify(
    quality: QualityFunction | LogLikelihood,
    *,
    epsilon: Any,
    neighbours: Any,
    claimed: Any = None,
    base_measure: Any = None,
    outputs: Any = None,
    pairs: int = 20,
    seed: int = 0,
    sign_key: Any = None,
    auction: Any = None,
    limits: CertificateLimits | None = None,
    schema: Any = None,
    **prover_options: Any,
) -> Certificate:
    """Build a certificate for ``E_q^{ε₀}`` with ``quality`` over a finite range.

    ``epsilon`` is ε₀ (the weight is ``μ(r)·e^{ε₀ q}``); ``neighbours`` the
    relation; ``claimed`` an optional claimed Δq; ``outputs`` the range (a list
    of outputs of the output space; default: the whole finite output space);
    ``base_measure`` a mapping over the outputs (counting measure when None;
    for posterior sampling over an interval of θ, a :class:`~expmech.spec.BetaPrior`).
    An infinite or continuous output space, or a range as ``outputs`` (a
    RationalRange or IntRange), certifies the mechanism over that range with
    ``base_measure`` a PiecewiseDensity / PiecewiseGeometric (Lebesgue or
    counting when None); where the normaliser is proved the same for every
    dataset, ε is ``ε₀ Δq`` (the ``normaliser`` claim, :mod:`._ranges`).
    The sensitivity is proved with :func:`prove_sensitivity`, monotonicity with
    :func:`prove_monotone` (both with ``prover_options``: ``rlimit``,
    ``timeout_ms``, ``search_size``, ``search_budget``, recorded in the
    certificate), ε derived from the spec's privacy statement (``2 ε₀ Δq``, or
    ``ε₀ Δq`` when monotone) and checked exactly on ``pairs`` neighbouring
    pairs drawn with ``seed``.  Unless the sensitivity is PROVED, no ε is
    certified.  With ``sign_key`` (an Ed25519 PEM private key) the certificate
    is signed (:func:`sign`).

    A :class:`~expmech.spec.LogLikelihood` is certified as posterior sampling
    (``base_measure`` is the prior, ``epsilon`` the tempering factor):
    ``ε = 2·ε₀·ln ρ`` from the proved likelihood ratio ρ (:mod:`._posterior`).
    ``auction`` (a :class:`~expmech.impl.DigitalGoodsAuction` whose revenue is
    ``quality``) adds the ``truthfulness`` claim of statement ``auctions``
    when ε is PROVED: no report gains more than ``(e^ε − 1)·U``.

    Before it is issued, every PROVED claim is evaluated on the small model
    (:mod:`expmech.proofs.smallmodel`, within ``limits``: a
    :class:`CertificateLimits`, its ``max_small_model_evaluations``); a
    disagreement raises :class:`~expmech.proofs.smallmodel.InternalInconsistency`.

    A plain Python function ``fn(data, r)`` with ``schema=`` and ``outputs=``
    (the OutputSpace) is traced by :func:`expmech.spec.trace` first; the
    certificate is about the traced expression, and records the function's
    source, its sha256, the expression and the datasets tested in ``quality.trace``.
    """
    quality, outputs = traced_quality(quality, schema=schema, outputs=outputs, where="certify")
    if not isinstance(quality, QualityFunction | LogLikelihood):
        raise InvalidType(
            f"quality={describe(quality)} must be an expmech.spec.QualityFunction or LogLikelihood (or a plain function with schema= "
            "and outputs=, to trace it); black boxes get falsify(), not certificates",
            parameter="quality",
            value=quality,
        )
    epsilon0 = positive_rational_input(epsilon, name="epsilon")
    relation = Neighbours.parse(neighbours)
    for name, value in (("pairs", pairs), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
            raise InvalidArgument(f"{name}={describe(value)} must be an int >= 0 (and < 2**53)", parameter=name, value=value)
    inputs = CertificateInputs(
        quality=quality,
        epsilon0=epsilon0,
        neighbours=relation,
        range=_range(quality, outputs, base_measure),
        claimed=parse_log_claim(claimed) if isinstance(quality, LogLikelihood) else parse_claim(claimed),
        budget=ProverBudget.build(prover_options),
        pairs=pairs,
        seed=seed,
        auction=auction,
    )
    if inputs.range.kind != "finite" or isinstance(quality, LogLikelihood):  # exact powers a derivation would take, refused up front
        check_exact_powers(inputs_to_json(inputs), CertificateLimits() if limits is None else limits)
    statement = _accepted(derive(inputs).statement, inputs.budget.rlimit)
    certify_small_model(statement, quality, limits)  # raises InternalInconsistency where the small model contradicts a PROVED claim
    statement["predicate"]["tools"] = _versions()
    statement["predicate"]["implementation_sha256"] = implementation_sha256()
    certificate = Certificate(seal(statement))
    return certificate if sign_key is None else sign(certificate, sign_key)
