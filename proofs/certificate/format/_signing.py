"""Optional provenance: a DSSE envelope signed with Ed25519, through the in-toto project's ``securesystemslib``.

A signed certificate file is ``{"envelope": DSSE, "digest": {...}}``: the
envelope's payload is the RFC 8785 canonical form of the in-toto Statement
(``payloadType`` ``application/vnd.in-toto+json``), signed with Ed25519 over
DSSE's pre-authentication encoding by ``securesystemslib``'s
``Envelope``/``CryptoSigner``; the digest is the sha256 of that payload, as for
an unsigned certificate.  The envelope can be handed as is to in-toto tooling.

What each part proves: the **digest** that the bytes are unchanged; the
**signature** who issued them; neither that a claim is true — only
re-derivation (:func:`~expmech.proofs.check_certificate`) does that.

Keys are PEM files: a PKCS#8 Ed25519 private key to sign
(``openssl genpkey -algorithm ed25519``), its SubjectPublicKeyInfo public key
to verify (``openssl pkey -pubout``).  Needs ``pip install "expmech[sign]"``.

This module is the signing half.  The verifying half — reading a trusted key,
verifying an envelope — is the verifier's own (:func:`expmech.proofs.checker.signature.load_trusted_key`,
:func:`expmech.proofs.checker.signature.verify_envelope`), so that ``expmech check --trusted-key``
loads neither ``expmech.spec`` nor this room; :func:`load_trusted_key` here raises its
refusals as the spec's errors.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import Any

from expmech.spec import InvalidArgument, InvalidType
from expmech.spec.internal import describe

from ..._inputlimits import InputRefused, read_limited_bytes
from ...checker.signature import PAYLOAD_TYPE
from ...checker.signature import load_trusted_key as verifier_trusted_key

__all__ = ["envelope_payload", "load_signing_key", "load_trusted_key", "sign_statement"]

MAX_KEY_BYTES = 65536  # a PEM key is a few hundred bytes; a larger file is refused before it is read


def _library() -> Any:
    try:
        from securesystemslib import dsse, signer
    except ImportError:
        raise InvalidArgument(
            'signing needs securesystemslib with cryptography: pip install "expmech[sign]"', parameter="securesystemslib", value=None
        ) from None
    return dsse, signer


def _read_pem(path: Any, what: str) -> bytes:
    if isinstance(path, bytes):
        return path
    if not isinstance(path, str | Path):
        raise InvalidType(f"{what}={describe(path)} must be a path to a PEM file", parameter=what, value=path)
    try:
        return read_limited_bytes(path, max_bytes=MAX_KEY_BYTES, what=what)
    except InputRefused as error:
        if error.parameter == "max_bytes":
            raise InvalidArgument(
                f"{what}={str(path)!r} has {error.value:,} bytes, more than {MAX_KEY_BYTES:,}: too large to be a PEM key (not read)",
                parameter=what,
                value=str(path),
            ) from None
        raise InvalidArgument(f"{what}={str(path)!r} cannot be read: {error}", parameter=what, value=str(path)) from None


def load_signing_key(path: Any) -> Any:
    """A ``securesystemslib`` ``CryptoSigner`` for the Ed25519 private key in the PEM file ``path``."""
    _, signer = _library()
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        key = load_pem_private_key(_read_pem(path, "sign_key"), password=None)
    except (ValueError, TypeError) as error:
        raise InvalidArgument(f"sign_key={str(path)!r} is not an unencrypted PEM private key: {error}", parameter="sign_key", value=str(path)) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise InvalidArgument(f"sign_key={str(path)!r} is a {type(key).__name__}, not an Ed25519 key", parameter="sign_key", value=str(path))
    return signer.CryptoSigner(key)


def load_trusted_key(path: Any) -> Any:
    """The verifier's :func:`~expmech.proofs.checker.signature.load_trusted_key`, its refusal raised as :class:`InvalidArgument` naming ``trusted_key``."""
    _library()
    try:
        return verifier_trusted_key(path)
    except ValueError as error:
        raise InvalidArgument(str(error), parameter="trusted_key", value=str(path)) from None


def sign_statement(payload: bytes, signing_key: Any) -> dict[str, Any]:
    """A DSSE envelope (as JSON data) over the canonical statement bytes ``payload``, signed with ``signing_key``."""
    dsse, signer = _library()
    if not isinstance(signing_key, signer.Signer):
        signing_key = load_signing_key(signing_key)
    envelope = dsse.Envelope(payload, PAYLOAD_TYPE, {})
    envelope.sign(signing_key)
    data: dict[str, Any] = envelope.to_dict()
    return data


def envelope_payload(envelope: dict[str, Any]) -> bytes:
    """The payload bytes of a DSSE envelope (JSON data); malformed base64 raises :class:`InvalidArgument`."""
    try:
        return base64.b64decode(envelope["payload"], validate=True)
    except (binascii.Error, ValueError, TypeError, KeyError) as error:
        raise InvalidArgument(f"the envelope's payload is not base64: {error}", parameter="envelope", value=None) from None
