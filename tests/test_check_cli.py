"""`expmech check` exit codes: 0 certifies ε-DP, 1 forged, 2 usage or refused, 3 certifies no ε, 4 not re-derivable here."""

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
    }
    paths["forged"].write_text(json.dumps(resealed(median.data, lambda s: claim(s, "sensitivity").__setitem__("bound", "1/2"))))
    paths["hostile"].write_text(json.dumps(resealed(median.data, lambda s: s["predicate"]["mechanism"].__setitem__("epsilon0", "1/" + "7" * 500))))
    return paths


@pytest.mark.parametrize(
    "names, options, code, words",
    [
        (["valid"], [], 0, "OK       "),
        (["valid"], ["--max-epsilon", "1"], 0, "ε = 1"),
        (["valid"], ["--max-epsilon", "1/2"], 3, "not <= max_epsilon"),
        (["refuted"], [], 3, "certifies no ε-DP"),
        (["unknown"], [], 3, "certifies no ε-DP"),
        (["forged"], [], 1, "claim sensitivity: bound: recorded '1/2', re-derived '1'"),
        (["hostile"], [], 2, "max_digits"),
        (["valid", "refuted"], [], 3, "NO-DP"),
        (["valid", "forged", "hostile", "refuted"], [], 1, "INVALID"),
        (["valid", "hostile"], [], 2, "REFUSED"),
        (["valid"], ["--max-epsilon", "one"], 2, "max_epsilon"),
        (["valid"], ["--max-bytes", "100"], 2, "max_bytes=100"),
    ],
    ids=["valid", "within-max", "above-max", "refuted", "bounded", "forged", "hostile", "mixed-3", "mixed-1", "mixed-2", "bad-max", "max-bytes"],
)
def test_exit_codes(files, names, options, code, words, capsys):
    """Each outcome has its exit code; with several certificates the worst wins (1, 2, 4, 3, then 0)."""
    assert main(["check", *[str(files[n]) for n in names], *options]) == code
    captured = capsys.readouterr()
    assert words in captured.out + captured.err
