"""The signature on a certificate, as the verifier checks it: a DSSE envelope signed with Ed25519 (``securesystemslib``).

The verifying half of a certificate's optional provenance (the signing half is
:mod:`expmech.proofs.certificate.format._signing`): :func:`load_trusted_key` reads an
Ed25519 public key from a PEM file (SubjectPublicKeyInfo, ``openssl pkey -pubout``), and
:func:`verify_envelope` names the trusted keys whose signature on an envelope (of
``payloadType`` :data:`PAYLOAD_TYPE`, over DSSE's pre-authentication encoding) verifies.

It imports the standard library and, once called, the in-toto project's ``securesystemslib``
(with ``cryptography``) — nothing of ``expmech.spec``, the prover or the certificate builder —
so ``expmech check --trusted-key`` still loads the verifier alone.  A refusal is a
:class:`ValueError` whose message names what was refused (``check_certificate`` raises a refused key
as the spec's :class:`~expmech.spec.InvalidArgument`).  Needs ``pip install "expmech[sign]"``.
"""

from __future__ import annotations

import binascii
import copy
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["MAX_KEY_BYTES", "PAYLOAD_TYPE", "load_trusted_key", "verify_envelope"]

PAYLOAD_TYPE = "application/vnd.in-toto+json"
MAX_KEY_BYTES = 65536  # a PEM key is a few hundred bytes; a larger file is refused before it is read


def _library() -> Any:
    try:
        from securesystemslib import dsse, signer
    except ImportError:
        raise ValueError('signing needs securesystemslib with cryptography: pip install "expmech[sign]"') from None
    return dsse, signer


def _shown(value: Any) -> str:
    """``value`` for a message: its ``repr``, shortened to at most 120 characters."""
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _read_pem(path: Any, what: str) -> bytes:
    """The bytes of the PEM file ``path`` (bytes are the PEM itself), its size read from the file system first: a
    file over :data:`MAX_KEY_BYTES` is refused unread, and none is read past ``MAX_KEY_BYTES + 1`` bytes."""
    if isinstance(path, bytes):
        return path
    if not isinstance(path, str | Path):
        raise TypeError(f"{what}={_shown(path)} must be a path to a PEM file")
    named, unreadable = f"{what}={str(path)!r}", f"{what}={str(path)!r} cannot be read: {what} {str(path)!r}"
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise ValueError(f"{unreadable} does not exist") from None
    except (OSError, ValueError) as error:
        raise ValueError(f"{unreadable} cannot be read: {error.strerror if isinstance(error, OSError) and error.strerror else error}") from None
    if not stat.S_ISREG(status.st_mode):
        raise ValueError(f"{unreadable} is not a regular file")
    size = status.st_size
    if size <= MAX_KEY_BYTES:
        try:
            with Path(path).open("rb") as handle:
                raw = handle.read(MAX_KEY_BYTES + 1)
        except OSError as error:
            raise ValueError(f"{unreadable} cannot be read: {error.strerror or error}") from None
        if len(raw) <= MAX_KEY_BYTES:
            return raw
        size = len(raw)  # it grew while being read
    raise ValueError(f"{named} has {size:,} bytes, more than {MAX_KEY_BYTES:,}: too large to be a PEM key (not read)")


def load_trusted_key(path: Any) -> Any:
    """A ``securesystemslib`` ``SSlibKey`` for the Ed25519 public key in the PEM file ``path`` (PEM bytes read as
    such, a key object returned as is); a :class:`ValueError` naming ``trusted_key`` for anything else."""
    _, signer = _library()
    if isinstance(path, signer.Key):
        return path
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    try:
        key = load_pem_public_key(_read_pem(path, "trusted_key"))
    except (ValueError, TypeError) as error:
        raise ValueError(f"trusted_key={str(path)!r} is not a PEM public key: {error}") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(f"trusted_key={str(path)!r} is a {type(key).__name__}, not an Ed25519 key")
    return signer.SSlibKey.from_crypto(key)


def verify_envelope(envelope: dict[str, Any], keys: list[Any]) -> list[str]:
    """The key ids among ``keys`` whose signature on ``envelope`` (a DSSE envelope as JSON data) verifies; a
    :class:`ValueError` if none does, or if the envelope is malformed or of another ``payloadType``."""
    dsse, _ = _library()
    from securesystemslib.exceptions import FormatError, VerificationError

    if envelope.get("payloadType") != PAYLOAD_TYPE:
        raise ValueError(f"the envelope's payloadType is {_shown(envelope.get('payloadType'))}, not {PAYLOAD_TYPE!r}")
    try:
        parsed = dsse.Envelope.from_dict(copy.deepcopy(envelope))
        accepted = parsed.verify(keys, 1)
    except VerificationError:
        signers = ", ".join(str(s.get("keyid"))[:16] for s in envelope.get("signatures", []) if isinstance(s, dict)) or "nobody"
        raise ValueError(f"not signed by a trusted key (signed by: {signers})") from None
    except (FormatError, KeyError, ValueError, TypeError, binascii.Error) as error:
        raise ValueError(f"the envelope is malformed: {error}") from None
    return sorted(accepted)
