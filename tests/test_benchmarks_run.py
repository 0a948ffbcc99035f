"""The benchmark scripts stay runnable (slow tier: they time real work)."""

import importlib.util
import pathlib

import pytest

BENCH = pathlib.Path(__file__).parent / "benchmarks" / "bench_sampling.py"


@pytest.mark.slow
def test_sampling_benchmark_exact_case_runs():
    """bench_exact decides its privacy-loss bound on a small instance."""
    spec = importlib.util.spec_from_file_location("bench_sampling", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seconds, loss = module.bench_exact(200, 200)
    assert seconds > 0 and 0 < loss <= 0.4
