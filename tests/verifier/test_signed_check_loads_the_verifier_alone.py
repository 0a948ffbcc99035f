"""``expmech check --trusted-key`` of a signed catalogue certificate runs on the verifier alone.

The signature is checked by the verifier's own ``signature`` module (``securesystemslib`` and the standard library):
in a fresh process, the check exits 0 with the signature verified, and loads nothing of ``expmech.spec``,
``expmech.impl``, the prover or the certificate room, and neither sympy nor z3.  The same probe sees the signature
half and ``securesystemslib`` loaded, so it is not blind to what it looks for.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from certificate_tools import catalogue_certificate
from expmech.proofs.certificate import sign
from process_probe import loaded, probe

FORBIDDEN = ("expmech.spec", "expmech.impl", "expmech.proofs.prover", "expmech.proofs.certificate", "sympy", "z3")


def test_a_signed_certificate_is_checked_by_the_verifier_alone(tmp_path):
    """A catalogue certificate signed with an Ed25519 key, checked with its public key trusted: exit 0, signature
    verified, no module of the spec, impl, prover or certificate room, no sympy and no z3 loaded."""
    key = Ed25519PrivateKey.generate()
    private, public = tmp_path / "issuer.pem", tmp_path / "issuer.pub.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    path = sign(catalogue_certificate("median"), private).write(tmp_path / "median.cert.json")

    code, output, modules = probe(["check", "--format", "json", "--trusted-key", str(public), str(path)])
    report = output["certificates"][0]
    assert code == 0, report
    assert report["checks"][0]["name"] == "signature" and report["checks"][0]["passed"], report["checks"]
    assert "expmech.proofs.checker.signature" in modules and "securesystemslib" in modules  # the probe sees what loads
    assert not loaded(modules, FORBIDDEN), loaded(modules, FORBIDDEN)
