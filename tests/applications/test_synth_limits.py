"""``expmech synth --limit``: the certificate limits for the run's own checks, as ``check --limit``, and a check
command printed with exactly the flags the written certificate needs past the default limits."""

from __future__ import annotations

import random
import shlex

import pytest

from expmech.proofs.cli import main


def _csv(path, k: int, seed: int = 1):
    rng = random.Random(seed)
    path.write_text("\n".join(",".join(str(rng.randint(0, 1)) for _ in range(k)) for _ in range(30)) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("size, raised", [((3, 2), []), ((5, 2), ["--limit", "max_pairs=5000"])], ids=["within-defaults", "past-defaults-raised"])
def test_the_printed_check_command_checks_the_certificate(tmp_path, capsys, size, raised):
    """Both sides of the default limits: the command synth prints after writing the certificate exits 0, flags
    included; without them a certificate past the default limits is refused by check.  The run's own --limit of the
    re-derivation (max_pairs) is repeated in a printed `check --reproduce` command, which exits 0 too, and not in the
    plain one (whose --limit reads the verifier's input limits only).  (k = 5 columns is the smallest size past the
    defaults; each run costs about 20 s, so the two cases are enumerated rather than drawn: a draw of two could miss
    the side past the defaults.)"""
    k, m = size
    cert = tmp_path / "c.cert.json"
    capsys.readouterr()
    assert main(["synth", str(_csv(tmp_path / "bits.csv", k)), "--m", str(m), "--seed", "1", "--certificate", str(cert), *raised]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(text for text in lines if "check it with: " in text)
    argv = shlex.split(line.split("check it with: ", 1)[1])
    assert argv[:3] == ["expmech", "check", str(cert)] and "max_pairs=5000" not in argv
    assert (len(argv) > 3) == (k == 5)  # the flags the certificate needs past the defaults
    assert main(argv[1:]) == 0
    if len(argv) > 3:
        assert main(["check", str(cert)]) == 2
    again = [shlex.split(text.split(" with: ", 1)[1]) for text in lines if "check --reproduce" in text]
    assert len(again) == bool(raised)
    if raised:
        assert again[0] == ["expmech", "check", "--reproduce", *argv[2:], *raised]
        assert main(again[0][1:]) == 0


def test_a_lowered_limit_refuses_the_run_naming_it(tmp_path, capsys):
    """--limit bounds the certificate's small-model check as it bounds check's: exit 2 naming the limit."""
    code = main(["synth", str(_csv(tmp_path / "bits.csv", 3)), "--m", "2", "--certificate", str(tmp_path / "c.json"), "--limit", "max_small_model_evaluations=10"])
    assert code == 2 and "max_small_model_evaluations=10" in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("argv, fragment", [(["--limit", "max_outputs=10"], "needs --certificate"), (["--limit", "max_foo=1", "--certificate", "c.json"], "max_foo"), (["--limit", "max_outputs=0", "--certificate", "c.json"], "max_outputs")])
def test_bad_limits_are_usage_errors(tmp_path, capsys, argv, fragment):
    """A limit without a certificate, an unknown name or a value < 1: exit 2 naming it, before any work."""
    argv = [str(tmp_path / a) if a == "c.json" else a for a in argv]
    assert main(["synth", str(_csv(tmp_path / "bits.csv", 3)), "--m", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "cost" not in err
