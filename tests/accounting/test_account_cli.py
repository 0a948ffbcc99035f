"""expmech account: enclosures from certificates, the flags' errors, and composition certificates that check re-derives."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from expmech.impl import WRONG_CATALOGUE, catalogue_entry
from expmech.proofs import certify
from expmech.proofs.accounting import AdaptiveComposition, OptimalComposition
from expmech.proofs.certificate.format._canonical import sha256_hex
from expmech.proofs.cli import main


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Certificates of mode (η = 1) and mode add-remove (η = 1/2), and one certifying no ε."""
    root = tmp_path_factory.mktemp("account")
    out = {}
    for name in ("mode", "mode-add-remove"):
        e = catalogue_entry(name)
        out[name] = certify(e.quality, epsilon=e.epsilon, neighbours=e.neighbours, claimed=e.claimed_sensitivity, base_measure=e.base_measure).write(root / f"{name}.json")
    wrong = WRONG_CATALOGUE[0]
    out["wrong"] = certify(wrong.quality, epsilon=wrong.epsilon, neighbours=wrong.neighbours, claimed=wrong.claimed_sensitivity).write(root / "wrong.json")
    return out


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, (json.loads(out) if code == 0 else {})


def test_delta_is_the_optimal_curve_of_the_certified_eta(certs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """δ(ε) of K runs equals the exact optimal curve at the certificate's η, with the witness lower bound below it."""
    code, answer = _json(capsys, ["account", str(certs["mode"]), "--times", "5", "--epsilon", "2", "--format", "json"])
    assert code == 0 and answer["exact"] is True
    expected = OptimalComposition([(Fraction(1), 5)]).delta(Fraction(2))
    assert Fraction(answer["delta"]["upper"]) == expected.upper and Fraction(answer["delta"]["lower"]) == expected.lower
    assert Fraction(answer["witness_lower_bound"]["delta"]["lower"]) <= expected.upper
    assert Fraction(answer["zcdp_delta"]["upper"]) >= expected.upper


def test_epsilon_of_delta_and_adaptive(certs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """ε(δ) per certificate counts; --adaptive gives the adaptive bound, never below the non-adaptive optimum."""
    argv = ["account", str(certs["mode"]), str(certs["mode-add-remove"]), "--times", "3", "--times", "4", "--delta", "1/1000", "--format", "json"]
    code, plain = _json(capsys, argv)
    assert code == 0 and plain["exact"] is False
    assert [c["times"] for c in plain["components"]] == [3, 4] and [c["eta"] for c in plain["components"]] == ["1", "1/2"]
    code, adaptive = _json(capsys, argv + ["--adaptive"])
    assert code == 0
    assert Fraction(adaptive["epsilon"]["upper"]) >= Fraction(plain["epsilon"]["lower"])
    assert Fraction(adaptive["epsilon"]["upper"]) == AdaptiveComposition([(Fraction(1), 3), (Fraction(1, 2), 4)]).epsilon(Fraction(1, 1000)).upper
    named = adaptive["adaptive_bound"]
    assert Fraction(named["bounds"][named["tightest"]]) == Fraction(adaptive["epsilon"]["upper"]) == min(Fraction(v) for v in named["bounds"].values())
    assert "adaptive_bound" not in plain


@pytest.mark.parametrize("extra,flag", [
    (["--times", "0", "--epsilon", "1"], "--times"),
    (["--times", "2", "--epsilon", "0"], "--epsilon"),
    (["--times", "2", "--epsilon", "-1/2"], "--epsilon"),
    (["--times", "2", "--delta", "1"], "--delta"),
    (["--times", "2", "--delta", "0"], "--delta"),
    (["--times", "2", "--delta", "abc"], "--delta"),
    (["--times", "2", "--times", "3", "--epsilon", "1"], "--times"),
    (["--times", "2"], "--epsilon"),
])
def test_bad_flags_exit_2_naming_the_flag(certs: dict[str, Path], capsys: pytest.CaptureFixture[str], extra: list[str], flag: str) -> None:
    """ε <= 0, δ outside (0, 1), K < 1, a --times count that fits no certificate: exit 2 naming the flag."""
    assert main(["account", str(certs["mode"]), *extra]) == 2
    assert flag in capsys.readouterr().err


def test_a_certificate_certifying_no_epsilon_exits_2(certs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """A component that certifies no ε is a usage error naming the certificate."""
    assert main(["account", str(certs["wrong"]), "--times", "2", "--epsilon", "1"]) == 2
    assert "certifies no ε" in capsys.readouterr().err


def test_composition_certificate_is_rederived_by_check(certs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-o writes a composition certificate check accepts; a resealed edit of its result or a component is rejected."""
    path = tmp_path / "composition.json"
    assert main(["account", str(certs["mode"]), "--times", "4", "--epsilon", "3/2", "-o", str(path)]) == 0
    assert main(["check", str(path)]) == 0
    data = json.loads(path.read_text())
    data["composition"]["result"]["delta"]["upper"] = "1/1000000000"
    data["digest"]["value"] = sha256_hex(data["composition"])
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    assert main(["check", str(forged)]) == 1
    data = json.loads(path.read_text())
    data["composition"]["components"][0]["times"] = 1
    data["digest"]["value"] = sha256_hex(data["composition"])
    forged.write_text(json.dumps(data))
    assert main(["check", str(forged)]) == 1
    capsys.readouterr()


@pytest.mark.parametrize("spelling", ["\\u0063omposition", "comp\\u006fsition", "\\u0063\\u006F\\u006d\\u0070osition"])
def test_a_composition_key_written_with_escapes_is_still_a_composition(certs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], spelling: str) -> None:
    """check recognises a composition certificate by parsing it, not by its bytes: the key spelled with JSON escapes
    is the same key (its result is re-derived, and a forged one is still rejected)."""
    path = tmp_path / "composition.json"
    assert main(["account", str(certs["mode"]), "--times", "4", "--epsilon", "3/2", "-o", str(path)]) == 0
    text = path.read_text()
    escaped = tmp_path / "escaped.json"
    escaped.write_text(text.replace('"composition"', f'"{spelling}"'))
    assert '"composition"' not in escaped.read_text() and main(["check", str(escaped)]) == 0
    data = json.loads(text)
    data["composition"]["result"]["delta"]["upper"] = "1/1000000000"
    data["digest"]["value"] = sha256_hex(data["composition"])
    escaped.write_text(json.dumps(data).replace('"composition"', f'"{spelling}"'))
    assert main(["check", str(escaped)]) == 1
    capsys.readouterr()


@pytest.mark.parametrize(
    "text,limit",
    [
        ("[" * 5000 + "]" * 5000, "max_depth"),  # past check's depth limit (and Python's own stack at 100,000)
        ('{"a": ' * 200 + "1" + "}" * 200, "max_depth"),
        ('{"n": ' + "9" * 5000 + "}", "max_digits"),  # int() of a 10⁶-digit number is quadratic
        ('{"s": "' + "x" * (2**18 + 1) + '"}', "max_string"),
        ('{"n": 1.5}', "inexact number"),  # inexact numbers are refused, as check refuses them
        ('{"a": 1, "a": 2}', "repeats the JSON key"),
        (" " * (2**20 + 1) + "{}", "max_bytes"),
    ],
)
def test_account_reads_certificates_under_check_limits(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, limit: str) -> None:
    """Hostile certificates (deep nesting, huge numbers, long strings, floats, huge files) exit 2 naming the limit, before any check."""
    path = tmp_path / "hostile.json"
    path.write_text(text, encoding="utf-8")
    code = main(["account", str(path), "--times", "2", "--epsilon", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert limit in err


def test_the_witness_is_scored_by_the_verifier_as_by_the_quality() -> None:
    """The witness pair's k-fold law that ``account`` builds from the verifier's exact evaluation of the certificate's
    quality is the one the quality itself gives (sympy, through the certificate's inputs), on every catalogue
    certificate with a bounded-range witness on a finite range; the others give none."""
    from certificate_tools import catalogue_certificate
    from expmech.impl import CATALOGUE
    from expmech.proofs.accounting import WitnessComposition
    from expmech.proofs.certificate.format._inputs import FiniteRange, decode_value, inputs_from_json
    from expmech.proofs.cli._account import _component, _witness

    compared = 0
    for entry in CATALOGUE:
        data = json.loads(json.dumps(catalogue_certificate(entry.name).data))
        component = _component(data, entry.name)
        predicate = component["statement"]["predicate"]
        pair = {claim["id"]: claim for claim in predicate["claims"]}.get("bounded-range", {}).get("witness")
        inputs = inputs_from_json(predicate)
        found = _witness(component, 3)
        if pair is None or not isinstance(inputs.range, FiniteRange):
            assert found is None, entry.name
            continue
        d1, d2 = list(decode_value(pair["dataset1"])), list(decode_value(pair["dataset2"]))
        outputs, eps0 = inputs.range.outputs, inputs.epsilon0
        expected = WitnessComposition(
            tuple(inputs.range.base_measure),
            tuple(eps0 * Fraction(inputs.quality(d1, r)) for r in outputs),
            tuple(eps0 * Fraction(inputs.quality(d2, r)) for r in outputs),
            3,
        )
        assert found == expected, entry.name
        compared += 1
    assert compared >= 5, compared
