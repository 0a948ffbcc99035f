"""``check_certificate`` takes the object ``certify`` returns, as it takes the file: the same verdict, the same checks.

A :class:`Certificate` is checked on the bytes ``write`` would put in a file, so a tampered object fails as the
tampered file does; any other type is refused by name.
"""

from __future__ import annotations

import pytest

from certificate_tools import catalogue_certificate
from expmech.proofs import check_certificate
from expmech.proofs.certificate import CheckOutcome
from expmech.spec import InvalidType


@pytest.mark.parametrize("name", ["mode", "median"])
def test_an_object_checks_as_its_file(name: str, tmp_path) -> None:
    """The object and the file it writes get the same outcome and the same list of checks."""
    certificate = catalogue_certificate(name)
    from_object, from_file = check_certificate(certificate), check_certificate(certificate.write(tmp_path / "c.json"))
    assert from_object.outcome is from_file.outcome is CheckOutcome.CERTIFIES_DP
    assert from_object.checks == from_file.checks


def test_a_tampered_object_fails_as_its_file_would(tmp_path) -> None:
    """A certificate object whose statement was changed after sealing fails its digest check."""
    certificate = catalogue_certificate("mode")
    tampered = type(certificate)({**certificate.data, "certificate": {**certificate.data["certificate"], "subject": []}})
    report = check_certificate(tampered)
    assert not report.ok and report.failed == "digest", report.failed


@pytest.mark.parametrize("value", [3, None, 2.5, ["not", "a", "file"], bytearray(b"{}"), memoryview(b"{}")])
def test_other_types_are_refused_by_name(value: object) -> None:
    """Anything but a path, bytes, a dict or a Certificate is refused naming the parameter."""
    with pytest.raises(InvalidType, match="certificate="):
        check_certificate(value)
