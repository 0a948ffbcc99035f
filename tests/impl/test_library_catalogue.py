"""LIBRARY_CATALOGUE: library scores as plain Python, their published sensitivities, and the verdicts recorded.

``expmech verify expmech.impl:LIBRARY_CATALOGUE`` exits 0 — every verdict the one recorded — while the wrong
published claim (OpenDP 0.10–0.13's quantile score) is still REFUTED with its counterexample, past the size limit.
Each entry names its library, path and version; each function traces and is checked against its trace.
"""

import pytest

from expmech.impl import LIBRARY_CATALOGUE
from expmech.proofs import Status
from expmech.proofs.cli import main
from expmech.spec import Multiset, trace


#: the entries whose certificates take longest (order statistics, the size limit), each proved or refuted by its
#: own test here and in tests/prover; the default run verifies the others through the command, the slow run all
LONG = ("opendp-0.13-quantile-score", "opendp-0.16-quantile-score", "inverse-sensitivity-median", "inverse-sensitivity-median-add-remove", "mwem-selection")


def _verify_recorded(capsys, target: str, entries: list) -> dict:
    """``expmech verify target --format json``: exit 0, one verdict per entry, each the one recorded."""
    import json

    code = main(["verify", target, "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["exit_code"] == 0
    verdicts = {m["name"]: m for m in report["mechanisms"]}
    assert set(verdicts) == {entry.name for entry in entries}
    for entry in entries:
        assert verdicts[entry.name]["status"] == entry.verdict and verdicts[entry.name]["as_expected"], verdicts[entry.name]
    return verdicts


def test_verify_reaches_the_recorded_verdicts_of_the_quicker_entries(capsys, tmp_path, monkeypatch):
    """Through the command, as a user's target: every entry but the LONG ones, each verdict as recorded (BOUNDED too)."""
    (tmp_path / "quicker_scores.py").write_text(
        "from expmech.impl import LIBRARY_CATALOGUE\n"
        f"QUICKER = [entry for entry in LIBRARY_CATALOGUE if entry.name not in {LONG!r}]\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    entries = [entry for entry in LIBRARY_CATALOGUE if entry.name not in LONG]
    assert len(entries) >= 6 and {entry.verdict for entry in entries} >= {"PROVED", "BOUNDED"}
    _verify_recorded(capsys, "quicker_scores:QUICKER", entries)


@pytest.mark.parametrize("name", LONG)
def test_the_longer_entries_reach_their_recorded_verdict_in_the_prover(name):
    """The LONG entries' sensitivity verdicts, from the prover (their certificates are the slow run's)."""
    from expmech.proofs import prove_sensitivity

    entry = next(e for e in LIBRARY_CATALOGUE if e.name == name)
    result = prove_sensitivity(entry.function, schema=entry.schema, outputs=entry.outputs, neighbours=entry.neighbours, claimed=entry.published)
    assert result.status.name == entry.verdict, (name, result.status, result.bound)


@pytest.mark.slow
def test_verify_exits_zero_with_every_verdict_as_recorded(capsys):
    """Slow: the whole catalogue through the command; every recorded verdict reached, the wrong claim refuted past l."""
    verdicts = _verify_recorded(capsys, "expmech.impl:LIBRARY_CATALOGUE", list(LIBRARY_CATALOGUE))
    wrong = verdicts["opendp-0.13-quantile-score"]
    assert wrong["status"] == "REFUTED" and wrong["sensitivity"] == "4" and wrong["tight"]
    assert "multiset" in wrong["counterexample"]["dataset1"]


def test_every_entry_names_where_it_comes_from_and_traces():
    """Library, path, version, published claim and finding are filled in; the function traces (checked faithful)."""
    names = [entry.name for entry in LIBRARY_CATALOGUE]
    assert len(names) == len(set(names)) >= 10
    for entry in LIBRARY_CATALOGUE:
        assert entry.library and entry.path and entry.version and entry.finding
        assert entry.verdict in {status.name for status in Status}
        quality = trace(entry.function, schema=entry.schema, outputs=entry.outputs)
        assert quality.trace.datasets_tested > 30


def test_opendp_013_counterexample_lies_past_its_size_limit():
    """The pair refuting 3 has at least l = (2**64 − 1) // 4 records, held by counts, and differs by 4."""
    from expmech.impl.catalogue._library import SIZE_LIMIT
    from expmech.proofs import prove_sensitivity

    entry = next(e for e in LIBRARY_CATALOGUE if e.name == "opendp-0.13-quantile-score")
    result = prove_sensitivity(entry.function, schema=entry.schema, outputs=entry.outputs, neighbours=entry.neighbours, claimed=entry.published)
    c = result.counterexample
    assert result.status is Status.REFUTED and isinstance(c.dataset1, Multiset) and c.size >= SIZE_LIMIT
    assert entry.function(_listed_head(c.dataset1), c.output) is not None  # the code itself runs on small data
    assert result.bound == 4 and result.tight


def _listed_head(multiset):
    return [record for record, _ in multiset.items()]


def test_the_opendp_016_score_matches_the_installed_library():
    """Where opendp 0.16 is installed, its quantile scores equal the catalogue's function's (negated) on a dataset."""
    from importlib import metadata

    dp = pytest.importorskip("opendp.prelude")
    version = metadata.version("opendp")
    if not version.startswith("0.16"):
        pytest.skip(f"opendp {version} installed, not 0.16")
    dp.enable_features("contrib")
    entry = next(e for e in LIBRARY_CATALOGUE if e.name == "opendp-0.16-quantile-score")
    candidates = [0, 10, 20, 30, 40, 55, 100]
    transformation = dp.t.make_quantile_score_candidates(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance(), candidates, alpha=0.25)
    data = [1, 5, 10, 10, 20, 33, 35, 40, 45, 2, 100, 0]
    assert list(transformation(data)) == [-entry.function(data, c) for c in candidates]
    assert transformation.map(1) == entry.published
