"""Independent re-checking of a certificate: ``check_certificate`` and ``expmech check``.

The checker trusts nothing a certificate asserts.  In this order, stopping at
the first failure:

1. **Bounded input** — size, JSON depth, digits, strings; duplicate keys and
   floats are refused (:mod:`..format._limits`).
2. **Signature** — with trusted keys, the DSSE envelope must carry a valid
   Ed25519 signature by one of them; an unsigned certificate fails.
3. **Digest** — sha256 over the RFC 8785 canonical statement (integrity of the
   bytes, nothing more).
4. **Schema** — the published JSON Schema; every object is closed, so an
   unknown claim, field or key fails.  Then the content limits: expression
   size, depth and exponents, records per dataset, domain sizes, budgets.
5. **Inputs** — the quality function is rebuilt from its tree without
   re-simplification; its canonical text is re-rendered and compared byte for
   byte, as is its sha256 and the subject digest; the range (dispatched on its
   ``kind``) and its base measure are validated.
6. **Re-derivation** — every claim is derived afresh from the inputs alone
   (:func:`~..make._derive.derive`, with the recorded prover budget), replaying the
   certificate's solver log (:mod:`._replay`: recorded ``unknown`` answers
   stay unknown, recorded models are confirmed by substitution, recorded
   ``unsat`` answers are solved again), and the recorded statement must equal
   it, member by member: claims in order, no duplicate ids, every field; SMT
   queries after the normalisation of :func:`~._smt.normalise_smt2`.  Only
   provenance is not compared: tool versions, solver labels and
   ``implementation_sha256`` (differences become notes).
7. **Independent checks** — witnesses and counterexamples re-evaluated exactly
   with the rebuilt quality function (and shown to be neighbours); every
   conformance pair's recorded loss bound <= ε at its n; every recorded query
   re-run on z3 and on cvc5 (when installed) with the recorded answer; no
   PROVED claim resting on an ``unknown`` query; the ε-DP claim resting on a
   PROVED sensitivity; and the verifier (:mod:`expmech.proofs.checker`) accepting
   the derivation of every PROVED claim.

Stages 1 to 4, the gate, are this module's and import none of sympy, z3,
cvc5, numpy or the prover (jsonschema only for the schema stage): hostile
input is refused before those are loaded, which keeps ``expmech check`` on
it well under a second as a whole process.  Stages 5 to 7 are
:mod:`._rederive`'s, imported once the gate has passed.

The :class:`CheckReport` says which of :class:`CheckOutcome` applies; only
``CERTIFIES_DP`` (exit 0) means "a valid certificate of ε-DP" (with
``max_epsilon``, of an ε <= it).
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expmech.spec import ExpMechError, InvalidArgument, InvalidType
from expmech.spec.internal import describe

from ..format._canonical import canonical_bytes, sha256_hex
from ._digest import check_digest, compare_digest
from ..format._limits import CertificateLimits, CertificateMalformed, CertificateRefused, check_content_limits, check_shape, parse_json, read_limited
from ..format._version import older_format

from ...checker import LIMIT_NAMES, Limits, Reader, verify
from ...checker._values import parse_value
from ._run import CheckOutcome, CheckReport, DerivationCache, _Check, _Stop

if TYPE_CHECKING:
    import sympy

__all__ = ["CheckOutcome", "CheckReport", "DerivationCache", "certificate_schema", "check_certificate"]


_VALIDATOR: list[Any] = []
_SCHEMA_ERRORS = 100  # schema errors collected before the message is chosen


def certificate_schema() -> dict[str, Any]:
    """The published JSON Schema (draft 2020-12) of certificates."""
    text = resources.files("expmech.proofs.certificate.format").joinpath("certificate.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def _validator() -> Any:
    """A validator of ``{"certificate": statement, "digest": …}``: the schema's unsigned form, without the file-level
    ``anyOf``, which would build every error of its first form before reporting one (seconds for a hostile list of
    20 000 wrong items); errors then come one at a time and the gate stops after the first few."""
    if not _VALIDATOR:
        import jsonschema

        schema = certificate_schema()
        unsigned = next(form for form in schema["anyOf"] if "certificate" in form["properties"])
        _VALIDATOR.append(jsonschema.Draft202012Validator({**{k: v for k, v in schema.items() if k != "anyOf"}, **unsigned}))
    return _VALIDATOR[0]


def check_certificate(
    certificate: Any,
    *,
    solvers: tuple[str, ...] = ("z3", "cvc5"),
    trusted_keys: Sequence[Any] = (),
    max_epsilon: Any = None,
    limits: CertificateLimits | None = None,
    cache: DerivationCache | None = None,
    reproduce: bool = False,
) -> CheckReport:
    """Decide a certificate from its content alone, and say what it establishes.

    The verdict is the verifier's (:func:`expmech.proofs.checker.verify`): no prover, no ``expmech.impl``,
    no sympy; every PROVED claim's derivation accepted rule by rule, every side condition discharged from
    the proof the certificate records.  ``reproduce`` then also re-runs the prover on the certificate's
    inputs and requires the same statement, member by member (a reproducibility check: a difference is
    reported, but the soundness of the verdict never rests on it).

    ``certificate`` is a path, the file's bytes, its parsed JSON, or a :class:`Certificate` (checked on the bytes
    :meth:`Certificate.write` would write); ``solvers`` the solvers a reproduction
    re-runs recorded queries on; ``trusted_keys`` Ed25519 public keys (PEM paths or securesystemslib keys):
    when given, only a certificate signed by one of them can be valid; ``max_epsilon`` (a rational or an
    expression in ``n``) turns a valid certificate of a larger ε into ``NO_DP_CLAIM``; ``limits`` bounds
    untrusted input; ``cache`` reuses derivations across reproductions.  Returns a :class:`CheckReport`.

    Raises :class:`InvalidArgument` only for bad arguments: a path that does not exist, an unreadable key,
    a malformed ``max_epsilon``.
    """
    limits = CertificateLimits() if limits is None else limits
    if not isinstance(limits, CertificateLimits):
        raise InvalidType(f"limits={describe(limits)} must be a CertificateLimits", parameter="limits", value=limits)
    unknown = [s for s in solvers if s not in ("z3", "cvc5")]
    if unknown:
        raise InvalidArgument(f"solvers={solvers!r} may name only 'z3' and 'cvc5'", parameter="solvers", value=solvers)
    keys = []
    if trusted_keys:
        from ..format._signing import load_trusted_key

        keys = [load_trusted_key(k) for k in trusted_keys]
    bound = validate_max_epsilon(max_epsilon)
    if not isinstance(certificate, str | Path | bytes | dict):
        from ..make._build import Certificate

        if not isinstance(certificate, Certificate):
            raise InvalidType(f"certificate={describe(certificate)} must be a path, bytes, a dict or a Certificate", parameter="certificate", value=certificate)
        certificate = certificate.to_json().encode("utf-8")  # decided on the bytes a file of it would hold, as if read back
    if isinstance(certificate, str | Path) and not Path(certificate).is_file():
        raise InvalidArgument(f"certificate={str(certificate)!r} does not exist or is not a regular file", parameter="certificate", value=str(certificate))
    checked = verify(certificate, max_epsilon=bound, limits=verifier_limits(limits), trusted_keys=keys)
    if not reproduce or not checked.ok:
        return checked
    run = _Check(tuple(solvers), limits, cache)
    try:
        _run(run, certificate, keys, max_epsilon)
    except _Stop:
        pass
    again = run.report()
    if again.outcome is not checked.outcome or again.failed is not None:
        return dataclasses.replace(again, checks=checked.checks + tuple((f"reproduce: {n}", p, d) for n, p, d in again.checks), problems=again.problems,
                                   failed=f"reproduce: {again.failed}" if again.failed else "reproduce", claims=checked.claims, obligations=checked.obligations,
                                   solver=checked.solver)
    return dataclasses.replace(checked, checks=checked.checks + tuple((f"reproduce: {name}", True, detail) for name, _, detail in again.checks),
                               notes=checked.notes + tuple(note for note in again.notes if note not in checked.notes))


def verifier_limits(limits: CertificateLimits) -> Limits:
    """The verifier's limits from a :class:`CertificateLimits`: the input limits of the same names (the verifier's own
    solver budget, ``max_rlimit`` and ``max_solver_obligations``, keep their defaults)."""
    return Limits(**{name: getattr(limits, name) for name in LIMIT_NAMES if name not in ("max_rlimit", "max_solver_obligations")})


_RATIONAL = re.compile(r"\s*(0|[1-9][0-9]*)\s*(/\s*[1-9][0-9]*\s*)?")


def validate_max_epsilon(value: Any) -> str | None:
    """``max_epsilon`` as the text the verifier reads (None stays None); :class:`InvalidArgument` when it is not a
    rational >= 0 or an expression in ``n`` (read by the verifier's own parser, never by sympy)."""
    if value is None:
        return None
    if isinstance(value, int | Fraction) and not isinstance(value, bool) and value >= 0:
        return str(Fraction(value))
    problem = "must be a rational >= 0 or an expression in n: write it with integers, n, + - * / and parentheses (at most 200 characters)"
    if isinstance(value, str) and len(value) <= 200 and set(value) <= set("0123456789n+-*/() "):
        try:
            parse_value(value, Reader({"n"}))
            return value
        except ValueError as error:
            problem = f"is not an expression in n: {error}"
    raise InvalidArgument(f"max_epsilon={describe(value)} {problem}", parameter="max_epsilon", value=value)


def parse_max_epsilon(value: Any) -> sympy.Expr | None:
    """``max_epsilon`` as a sympy rational or expression in ``n`` (None stays None); anything else raises :class:`InvalidArgument`."""
    if value is None:
        return None
    from ...prover._claims import parse_claim

    try:
        return parse_claim(value)
    except ExpMechError as error:  # the claim parser's message, said of max_epsilon (its own name, claimed=, never leaks)
        reason = str(error).removeprefix(f"claimed={describe(value)} ").replace("claimed=", "")
        raise InvalidArgument(f"max_epsilon={describe(value)} {reason}", parameter="max_epsilon", value=value) from None


def _load(run: _Check, source: Any) -> Any:
    try:
        if isinstance(source, dict):
            check_shape(source, run.limits)
            return source
        if isinstance(source, bytes):
            return parse_json(source, run.limits)
        if isinstance(source, str | Path):
            return parse_json(read_limited(Path(source), run.limits), run.limits)
    except CertificateRefused as error:
        raise run.fail("input limits", str(error), CheckOutcome.REFUSED) from None
    except CertificateMalformed as error:
        raise run.fail("json", str(error)) from None
    raise InvalidType(f"certificate must be a path, bytes or a dict, not {type(source).__name__}", parameter="certificate", value=source)


def _unwrap(run: _Check, data: Any, keys: list[Any]) -> dict[str, Any]:
    """Signature and digest: the statement, or stop."""
    from ...checker.signature import verify_envelope
    from ..format._signing import envelope_payload

    if not isinstance(data, dict) or not isinstance(data.get("digest"), dict) or not isinstance(data["digest"].get("value"), str):
        raise run.fail("file", "not a certificate: the file needs a 'digest' object with a 'value'")
    if set(data) == {"envelope", "digest"} and isinstance(data["envelope"], dict):
        envelope = data["envelope"]
        if keys:
            try:
                accepted = verify_envelope(envelope, keys)
            except ValueError as error:  # the verifier's refusal
                raise run.fail("signature", str(error)) from None
            run.passed("signature", f"Ed25519 signature by trusted key {', '.join(k[:16] for k in accepted)}")
        else:
            signers = [str(s.get("keyid"))[:16] for s in envelope.get("signatures", []) if isinstance(s, dict)]
            run.notes.append(f"signed (key id {', '.join(signers) or 'none'}) but not verified: no trusted key was given")
        try:
            payload = envelope_payload(envelope)
            statement = parse_json(payload, run.limits, what="envelope payload")
        except CertificateRefused as error:
            raise run.fail("input limits", str(error), CheckOutcome.REFUSED) from None
        except InvalidArgument as error:
            raise run.fail("envelope", str(error)) from None
        try:
            canonical = canonical_bytes(statement)
        except InvalidArgument as error:
            raise run.fail("envelope", str(error)) from None
        if canonical != payload:
            raise run.fail("envelope", "the payload is not the RFC 8785 canonical form of its statement")
        compare_digest(run, sha256_hex(statement), data["digest"]["value"])
    elif set(data) == {"certificate", "digest"}:
        if keys:
            raise run.fail("signature", "the certificate is not signed, and trusted keys were given")
        statement = data["certificate"]
        check_digest(run, statement, data["digest"]["value"])
    else:
        raise run.fail("file", f"a certificate file holds 'certificate' (or 'envelope') and 'digest', not {sorted(data)}")
    _content(run, data, statement)
    return statement


def _content(run: _Check, data: dict[str, Any], statement: Any) -> None:
    """The checks of the gate after the digest: the format's version, the content limits and the schema."""
    older = older_format(statement)
    if older is not None:
        raise run.fail("schema version", older)
    try:
        check_content_limits(statement, run.limits)
    except CertificateRefused as error:
        raise run.fail("content limits", str(error), CheckOutcome.REFUSED) from None
    run.passed("content limits", "expression size and exponents, digits, records, domains, budgets")
    from ..format._schema import schema_errors

    # the first errors are enough to name the place; a list of 20 000 wrong items would otherwise cost seconds
    errors = schema_errors({"certificate": statement, "digest": data["digest"]}, _validator(), limit=_SCHEMA_ERRORS)
    if errors:
        raise run.fail("schema", _schema_message(statement, errors))
    run.passed("schema", "JSON Schema draft 2020-12, every object closed")


def _schema_message(statement: Any, errors: list[Any]) -> str:
    import jsonschema

    best = min(errors, key=lambda e: (-len(list(e.absolute_path)), list(map(str, e.absolute_path))))
    deepest = jsonschema.exceptions.best_match(errors) or best
    path = list(deepest.absolute_path)
    where = "/".join(map(str, path))
    if len(path) >= 4 and path[:3] == ["certificate", "predicate", "claims"] and isinstance(path[3], int):
        claims = statement.get("predicate", {}).get("claims", []) if isinstance(statement, dict) else []
        claim = claims[path[3]] if path[3] < len(claims) and isinstance(claims[path[3]], dict) else {}
        where = f"claim {claim.get('id', '?')} ({where})"
    return f"{where}: {deepest.message[:300]}"


def _run(run: _Check, source: Any, keys: list[Any], max_epsilon: Any) -> None:
    data = _load(run, source)
    statement = _unwrap(run, data, keys)
    from ._rederive import rederive  # sympy, z3 and the prover: imported only for input that passed the gate

    rederive(run, statement, parse_max_epsilon(max_epsilon))
