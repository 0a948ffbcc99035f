"""The benchmark scripts stay runnable (slow tier: they time real work)."""

import importlib.util
import pathlib

import pytest

BENCH = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_sampling.py"


@pytest.mark.slow
def test_sampling_benchmark_exact_case_runs():
    """bench_exact decides its privacy-loss bound on a small instance."""
    spec = importlib.util.spec_from_file_location("bench_sampling", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    row = module.bench_exact(200, 200, repeats=1)
    assert row["exact s"] > 0 and 0 < row["loss"] <= 0.4 and row["decided"]
    assert abs(row["loss"] - row["float loss"]) < 1e-9 and row["exact peak MB"] > 0


@pytest.mark.slow
def test_sampling_benchmark_fresh_and_repeated_run():
    """Every sampler of the fresh and repeated tables runs on a small range, and OpenDP's laws are audited."""
    spec = importlib.util.spec_from_file_location("bench_sampling", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fresh = module.bench_fresh(100)
    assert fresh["expmech default"] > 0 and fresh["numpy default"] > 0 and 0 < fresh["numpy share noise"] <= 1.5
    repeated = module.bench_repeated(100)
    assert repeated["expmech build"] > 0 and repeated["expmech seeded"] > 0
    lines = module.audit_opendp_laws(draws=3000)
    assert not lines or "CONSISTENT with the exponential mechanism" in lines[0]


@pytest.mark.slow
def test_audit_benchmark_runs():
    """bench_audit times the permute-and-flip law and finds a chi-square N for an obvious alternative."""
    import numpy as np

    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_audit.py"
    spec = importlib.util.spec_from_file_location("bench_audit", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = module.bench_permute_and_flip(1)
    assert [size for size, _, _ in rows] == [100, 1000, 10_000, 12, 16]
    null, swapped = np.array([0.7, 0.2, 0.1]), np.array([0.1, 0.2, 0.7])
    assert module.smallest_n(null, swapped, 0.8, replicates=500, seed=0) < 100


@pytest.mark.slow
def test_proofs_benchmark_families_run(capsys):
    """bench_proofs' families prove tight and check on small sizes (the full run is for README figures)."""
    spec = importlib.util.spec_from_file_location("bench_proofs", pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_proofs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert set(module.medians([1, 2, 3])) == {1, 2, 3}
    assert module.nestings([1])[1] > 0
    assert module.max_overs([5])[5] > 0
    assert module.grids([10])[10] > 0
    assert "max/median" in capsys.readouterr().out


@pytest.mark.slow
def test_continuous_benchmark_runs():
    """bench_continuous computes the exact median law and decides its loss on a small instance."""
    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_continuous.py"
    spec = importlib.util.spec_from_file_location("bench_continuous", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.bench_exact(500, repeats=1)
    assert result["distribution"] > 0 and 0 < result["loss value"] <= 1


@pytest.mark.slow
def test_synthetic_benchmark_runs():
    """bench_synthetic releases and certifies a small (k, m) in process, and times the command with its certificate and the check of it."""
    path = pathlib.Path(__file__).parents[1] / "benchmarks" / "bench_synthetic.py"
    spec = importlib.util.spec_from_file_location("bench_synthetic", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    levels, release, certificate = module.in_process(2, 2, repeats=1)
    assert levels > 0 and release >= 0 and certificate.wall > 0 and certificate.cpu > 0
    synth, check, reproduce, ratios = module.command_seconds(2, 2, certificate=True, repeats=1, check=True)
    assert synth.wall > 0 and synth.cpu > 0
    assert check is not None and check.wall > 0 and check.cpu > 0
    assert reproduce is not None and reproduce.wall > 0 and reproduce.cpu > 0
    assert ratios is not None and ratios.checked.wall > 0 and ratios.alone.wall > 0
