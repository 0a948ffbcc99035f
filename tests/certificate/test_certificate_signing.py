"""Provenance: DSSE envelopes signed with Ed25519 (securesystemslib); a signature says who, never that a claim is true."""

import base64
import copy
import json

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from certificate_tools import catalogue_certificate, claim
from expmech.proofs import CheckOutcome, check_certificate
from expmech.proofs.certificate import sign
from expmech.proofs.certificate.format._canonical import canonical_bytes
from expmech.proofs.certificate.format._signing import load_signing_key
from expmech.proofs.checker.signature import PAYLOAD_TYPE
from expmech.proofs.cli import main
from expmech.spec import InvalidArgument


def _keypair(directory, name):
    key = Ed25519PrivateKey.generate()
    private = directory / f"{name}.pem"
    public = directory / f"{name}.pub.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return private, public


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    directory = tmp_path_factory.mktemp("keys")
    return {"issuer": _keypair(directory, "issuer"), "other": _keypair(directory, "other")}


@pytest.fixture(scope="module")
def signed(keys):
    return sign(catalogue_certificate("median"), keys["issuer"][0])


def test_a_signed_certificate_is_a_dsse_envelope_over_the_canonical_statement(signed):
    """The file holds an in-toto DSSE envelope (readable by securesystemslib) and the digest of its payload."""
    from securesystemslib.dsse import Envelope

    envelope = Envelope.from_dict(copy.deepcopy(signed.data["envelope"]))
    assert envelope.payload_type == PAYLOAD_TYPE and len(envelope.signatures) == 1
    assert envelope.payload == canonical_bytes(catalogue_certificate("median").statement)
    assert signed.statement == catalogue_certificate("median").statement and signed.signed


def test_signed_by_a_trusted_key_checks_out(signed, keys, tmp_path):
    """With the issuer's key trusted, the signature verifies first and every claim is re-derived: exit 0."""
    report = check_certificate(signed.write(tmp_path / "s.json"), trusted_keys=[keys["issuer"][1]])
    assert report.outcome is CheckOutcome.CERTIFIES_DP, report.problems
    assert report.checks[0][0] == "signature" and report.checks[0][1]


def test_without_a_trusted_key_the_signature_is_only_noted(signed):
    """No key given: a signed certificate is still re-derived, and the report says the signature was not verified."""
    report = check_certificate(signed.data)
    assert report.certifies_dp and any("not verified" in note for note in report.notes)


def test_a_key_given_rejects_other_signers_and_unsigned_certificates(signed, keys):
    """Signed by an untrusted key, or not signed at all: exit 1 at the signature."""
    report = check_certificate(signed.data, trusted_keys=[keys["other"][1]])
    assert report.outcome is CheckOutcome.INVALID and report.failed == "signature" and "not signed by a trusted key" in report.problems[0]
    report = check_certificate(catalogue_certificate("median").data, trusted_keys=[keys["issuer"][1]])
    assert report.outcome is CheckOutcome.INVALID and report.failed == "signature"


def test_an_edited_payload_breaks_the_signature(signed, keys):
    """Editing the signed statement (and its digest) cannot keep the signature valid."""
    data = copy.deepcopy(signed.data)
    statement = json.loads(base64.b64decode(data["envelope"]["payload"]))
    statement["predicate"]["epsilon"] = "1/2"
    payload = canonical_bytes(statement)
    data["envelope"]["payload"] = base64.b64encode(payload).decode()
    import hashlib

    data["digest"]["value"] = hashlib.sha256(payload).hexdigest()
    assert check_certificate(data, trusted_keys=[keys["issuer"][1]]).failed == "signature"
    assert check_certificate(data).failed == "claim privacy"  # unsigned trust: the verifier still catches it


def test_a_trusted_signature_does_not_make_a_forgery_true(keys):
    """A trusted issuer who signs a false claim is still refused: only re-derivation makes a claim true."""
    from certificate_tools import resealed
    from expmech.proofs.certificate.make._build import Certificate

    forged = resealed(catalogue_certificate("median").data, lambda s: claim(s, "sensitivity").__setitem__("bound", "1/2"))
    signed_forgery = sign(Certificate(forged), keys["issuer"][0])
    report = check_certificate(signed_forgery.data, trusted_keys=[keys["issuer"][1]])
    assert report.checks[0][:2] == ("signature", True)
    assert report.outcome is CheckOutcome.INVALID and report.failed == "claim sensitivity"


def test_a_non_canonical_payload_is_refused(signed, keys):
    """The payload must be exactly the canonical statement (so the digest and the signature cover the same bytes)."""
    from securesystemslib.dsse import Envelope

    statement = catalogue_certificate("median").statement
    payload = json.dumps(statement, indent=1).encode()
    envelope = Envelope(payload, PAYLOAD_TYPE, {})
    envelope.sign(load_signing_key(keys["issuer"][0]))
    import hashlib

    data = {"envelope": envelope.to_dict(), "digest": {"algorithm": "sha256", "canonicalization": "RFC 8785", "value": hashlib.sha256(payload).hexdigest()}}
    report = check_certificate(data, trusted_keys=[keys["issuer"][1]])
    assert report.outcome is CheckOutcome.INVALID and report.failed == "file" and "not the RFC 8785 form of its statement" in report.problems[0], report.problems


def test_bad_keys_are_refused_by_name(tmp_path, keys):
    """A missing or non-Ed25519 key file is a usage error naming the parameter."""
    with pytest.raises(InvalidArgument, match="trusted_key="):
        check_certificate(catalogue_certificate("median").data, trusted_keys=[tmp_path / "missing.pem"])
    with pytest.raises(InvalidArgument, match="sign_key="):
        load_signing_key(keys["issuer"][1])  # a public key is not a signing key


def test_cli_signs_and_checks_with_keys(keys, tmp_path, capsys):
    """certify --sign-key writes signed certificates; check --trusted-key: 0 for the issuer, 1 for another key, 2 for a bad key."""
    directory = tmp_path / "out"
    assert main(["certify", "expmech.impl:WRONG_CATALOGUE", "-o", str(directory), "--sign-key", str(keys["issuer"][0])]) == 1
    path = directory / "median-half.cert.json"
    assert "envelope" in json.loads(path.read_text())
    capsys.readouterr()
    assert main(["check", str(path), "--trusted-key", str(keys["issuer"][1])]) == 3  # valid and signed, but REFUTED
    assert main(["check", str(path), "--trusted-key", str(keys["other"][1])]) == 1
    assert "not signed by a trusted key" in capsys.readouterr().out
    assert main(["check", str(path), "--trusted-key", str(tmp_path / "nope.pem")]) == 2
    assert main(["certify", "expmech.impl:CATALOGUE", "-o", str(directory), "--sign-key", str(tmp_path / "nope.pem")]) == 2
