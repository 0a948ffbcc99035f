"""`expmech check` exit codes: 0 certifies ε-DP, 1 forged, 2 usage or refused, 3 certifies no ε, 4 not re-derivable here."""

import copy
import json

import pytest

from certificate_tools import catalogue_certificate, claim, resealed
from expmech.proofs.cli import main


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    directory = tmp_path_factory.mktemp("certs")
    median = catalogue_certificate("median")
    paths = {
        "valid": median.write(directory / "median.json"),
        "refuted": catalogue_certificate("median-half").write(directory / "refuted.json"),
        "unknown": catalogue_certificate("top-item", rlimit=1000).write(directory / "bounded.json"),
        "forged": directory / "forged.json",
        "hostile": directory / "hostile.json",
        "huge-rational": directory / "huge-rational.json",
    }
    paths["forged"].write_text(json.dumps(resealed(median.data, lambda s: claim(s, "sensitivity").__setitem__("bound", "1/2"))))
    # a JSON integer of 501 digits (the witness's size; RFC 8785 cannot seal it): refused by max_digits before it is
    # parsed; admitted, it is not a certificate
    hostile = copy.deepcopy(median.data)
    claim(hostile["certificate"], "sensitivity")["witness"]["size"] = 10**500
    paths["hostile"].write_text(json.dumps(hostile))
    paths["huge-rational"].write_text(json.dumps(resealed(median.data, lambda s: s["predicate"]["mechanism"].__setitem__("epsilon0", "1/" + "7" * 500))))
    return paths


@pytest.mark.parametrize(
    "names, options, code, words",
    [
        (["valid"], [], 0, "OK       "),
        (["valid"], ["--max-epsilon", "1"], 0, "ε = 1"),
        (["valid"], ["--max-epsilon", "1/2"], 3, "ABOVE    "),
        (["refuted"], [], 3, "certifies no ε-DP"),
        (["unknown"], [], 3, "certifies no ε-DP"),
        (["forged"], [], 1, "claim sensitivity: rejected: bound = '1/2' is not the accepted derivation's value"),
        (["hostile"], [], 2, "max_digits"),
        (["valid", "refuted"], [], 3, "NO-DP"),
        (["valid", "forged", "hostile", "refuted"], [], 1, "INVALID"),
        (["valid", "hostile"], [], 2, "REFUSED"),
        (["valid"], ["--max-epsilon", "one"], 2, "--max-epsilon='one'"),
        (["valid"], ["--max-bytes", "100"], 2, "max_bytes=100"),
        (["valid"], ["--limit", "max_outputs=10"], 2, "expmech check --limit max_outputs=…"),
        (["valid"], ["--limit", "max_outputs=16", "--limit", "max-expression-nodes=1_000"], 0, "OK       "),
        (["hostile"], ["--limit", "max_digits=600"], 1, "file: the certificate holds the integer 1000"),
        (["huge-rational"], [], 1, "is not the mechanism's ε₀ = 1/777"),
        (["valid"], ["--limit", "max_output=10"], 2, "NAME one of max_bytes, "),
        (["valid"], ["--limit", "max_outputs"], 2, "must be NAME=VALUE"),
        (["valid"], ["--limit", "max_outputs=0"], 2, "max_outputs must be an int >= 1"),
        (["valid"], ["--limit", "max_outputs=many"], 2, "max_outputs must be an int >= 1"),
    ],
    ids=[
        "valid", "within-max", "above-max", "refuted", "bounded", "forged", "hostile", "mixed-3", "mixed-1", "mixed-2", "bad-max", "max-bytes",
        "limit-lowered", "limits-raised", "hostile-admitted-then-invalid", "huge-rational-forged", "limit-unknown", "limit-no-value", "limit-zero", "limit-not-int",
    ],
)
def test_exit_codes(files, names, options, code, words, capsys):
    """Each outcome has its exit code; with several certificates the worst wins (1, 2, 4, 3, then 0)."""
    assert main(["check", *[str(files[n]) for n in names], *options]) == code
    captured = capsys.readouterr()
    assert words in captured.out + captured.err


@pytest.mark.slow
def test_a_large_honest_synth_certificate_is_admitted_by_raised_limits(tmp_path, capsys):
    """Slow: `expmech synth` at (k, m) = (5, 4) writes a 6 MB certificate (52,360 outputs): refused by the default
    limits (exit 2, saying which flag admits it), valid with those limits raised (exit 0)."""
    import random

    rng = random.Random(1)
    data = tmp_path / "bits.csv"
    data.write_text("\n".join(",".join(str(rng.randint(0, 1)) for _ in range(5)) for _ in range(40)) + "\n")
    certificate = tmp_path / "synth.cert.json"
    assert main(["synth", str(data), "--m", "4", "--certificate", str(certificate)]) == 0
    capsys.readouterr()
    assert main(["check", str(certificate)]) == 2
    assert "expmech check --limit max_bytes=…" in capsys.readouterr().out
    raised = ["--max-bytes", "100000000", "--limit", "max_expression_nodes=1000000", "--limit", "max_outputs=1000000"]
    assert main(["check", str(certificate), *raised]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("name, options", [("refuted", []), ("unknown", []), ("valid", ["--max-epsilon", "1/2"])])
def test_a_certificate_of_no_epsilon_says_why_once(files, name, options, capsys):
    """Exit 3 with one line: the outcome, the status and the reason — not the reason again as a note."""
    assert main(["check", str(files[name]), *options]) == 3
    lines = capsys.readouterr().out.splitlines()
    reason = "certifies ε = 1, above --max-epsilon 1/2" if options else "no accepted privacy claim"
    label = "ABOVE" if options else "NO-DP"
    assert lines[0].startswith(label) and lines[0].count("valid, but") == int(not options) and reason in lines[0], lines
    assert not any(reason in line for line in lines[1:]), lines  # other notes (e.g. no cvc5) may follow
