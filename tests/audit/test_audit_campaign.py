"""Campaigns on Dask: the same verdicts on a LocalCluster of 2 workers as serially, each case with its own recorded seed."""

import json

import pytest

from expmech.proofs.audit import case_seed, demo_cases, run_campaign
from expmech.proofs.cli import main

pytest.importorskip("distributed", reason="distributed is not installed (pip install 'expmech[campaign]')")

OPTIONS = {"max_draws": 1500, "power_replicates": 0, "privacy_draws": 200}


def _summary(results):
    return [(r.name, r.status, r.rejected_by, r.draws, r.log_e_value, r.seed) for r in results]


def test_local_cluster_of_two_gives_the_serial_verdicts():
    """Five demonstration cases on a 2-worker LocalCluster: same verdicts, draws, e-values and seeds as serially, streamed."""
    serial = run_campaign(demo_cases(seed=2), options=OPTIONS, seed=7)
    streamed = []
    parallel = run_campaign(
        demo_cases(seed=2), options=OPTIONS, seed=7, cluster="local", workers=2, processes=False,
        on_result=lambda index, result: streamed.append(index),
    )
    assert _summary(parallel) == _summary(serial)
    assert sorted(streamed) == list(range(5))
    assert [r.seed for r in serial] == [case_seed(7, i) for i in range(5)]
    assert [r.status.name for r in serial] == [c.expected for c in demo_cases()]


@pytest.mark.slow
def test_cli_runs_cases_on_a_local_cluster(capsys):
    """`expmech audit --workers 2` (worker processes: ~25 s to start under load) gives the same JSON verdicts as `--serial`."""
    fast = ["--max-draws", "1500", "--power-replicates", "0", "--privacy-draws", "200", "--format", "json"]
    assert main(["audit", "expmech.proofs.audit:demo_cases", "--serial", *fast]) == 1
    serial = json.loads(capsys.readouterr().out)["audits"]
    assert main(["audit", "expmech.proofs.audit:demo_cases", "--workers", "2", *fast]) == 1
    captured = capsys.readouterr()
    parallel = json.loads(captured.out)["audits"]
    key = [(a["name"], a["status"], a["draws"], a["seed"]) for a in serial]
    assert [(a["name"], a["status"], a["draws"], a["seed"]) for a in parallel] == key
    assert len([line for line in captured.err.splitlines() if line.startswith(("CONSISTENT", "REJECTED"))]) == 5


def test_bad_workers_exit_two(capsys):
    """--workers 0 is a usage error of ``expmech audit`` naming the flag and the value, before any work."""
    assert main(["audit", "expmech.proofs.audit:demo_cases", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("expmech audit: ") and "--workers" in err and "'0'" in err, err
