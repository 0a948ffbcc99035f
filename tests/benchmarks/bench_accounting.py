"""Accounting benchmark: k exponential mechanisms, each η-bounded-range, at δ = 1e-6.

Run: ``pip install -e ".[test,bench]" dp-accounting && python tests/benchmarks/bench_accounting.py``,
then ``python tools/gen_accounting.py`` (the table in the README and
``docs/explanation/accounting.md``, and the δ(ε) plot ``docs/explanation/accounting_curves.png``)
and ``python tools/gen_benchmarks.py`` (the benchmarks page).  Not collected by pytest.
Prints a Markdown table and writes ``docs/benchmarks/results/data/accounting.json``: the rows,
the table, and the δ(ε) points of the plot (k = 10 quantile mechanisms), with the date and load.

Columns, for η = 0.1 and k = 10, 100, 1000:

* expmech optimal — the exact optimum of non-adaptive composition of η-BR
  mechanisms (Dong–Durfee–Rogers 2020), upper end of its enclosure;
* expmech adaptive — the least sound adaptive bound (moment / Azuma / zCDP / pure; the
  tightest is named);
* dp_accounting PLD (pure ε) — each mechanism as an ε = η pure-DP event, the
  PLD accountant (how users account for an exponential mechanism there);
* dp_accounting RDP (ρ = η²/8) — the RDP accountant on a Gaussian event with
  the same zCDP (noise multiplier 2/η: RDP α·η²/8);
* OpenDP (ρ = η²/8) — OpenDP's zCDP → (ε, δ) map on the composed ρ = k·η²/8;
* k·ε — basic composition.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

from expmech.proofs.accounting import AdaptiveComposition, OptimalComposition, ZCDPComposition

ETA = Fraction(1, 10)
DELTA = Fraction(1, 10**6)
KS = (10, 100, 1000)
ROOT = Path(__file__).resolve().parents[2]


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def _pld_pure(k: int) -> float:
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pldlib

    pld = pldlib.from_privacy_parameters(common.DifferentialPrivacyParameters(epsilon=float(ETA), delta=0.0))
    return float(pld.self_compose(k).get_epsilon_for_delta(float(DELTA)))


def _rdp(k: int) -> float:
    from dp_accounting import dp_event
    from dp_accounting.rdp import rdp_privacy_accountant

    accountant = rdp_privacy_accountant.RdpAccountant()
    accountant.compose(dp_event.GaussianDpEvent(noise_multiplier=2 / float(ETA)), k)
    return float(accountant.get_epsilon(float(DELTA)))


def _opendp(k: int) -> float:
    import opendp.prelude as dp

    dp.enable_features("contrib", "honest-but-curious")
    rho = k * float(ETA) ** 2 / 8
    measurement = dp.m.make_user_measurement(
        dp.atom_domain(T=int), dp.absolute_distance(T=int), dp.zero_concentrated_divergence(), lambda x: x, lambda d_in: rho * d_in
    )
    curve = dp.c.make_zCDP_to_approxDP(measurement).map(1)
    return float(curve.epsilon(float(DELTA)))


def run() -> list[dict[str, object]]:
    rows = []
    for k in KS:
        optimal, t_opt = _timed(lambda: OptimalComposition([(ETA, k)]).epsilon(DELTA))
        at, t_delta = _timed(lambda: OptimalComposition([(ETA, k)]).delta(optimal.upper))
        adaptive, t_ad = _timed(lambda: AdaptiveComposition([(ETA, k)]).epsilon(DELTA))
        bounds = AdaptiveComposition([(ETA, k)]).bounds_epsilon(DELTA)
        zcdp, t_z = _timed(lambda: ZCDPComposition([(ETA, k)]).epsilon(DELTA))
        row: dict[str, object] = {
            "k": k,
            "eta": str(ETA),
            "delta": str(DELTA),
            "expmech_optimal": float(optimal.upper),
            "expmech_optimal_enclosure": optimal.as_json(),
            "expmech_optimal_seconds": t_opt,
            "expmech_optimal_relative_width": float((optimal.upper - optimal.lower) / optimal.lower),
            "expmech_optimal_delta_at_epsilon": float(at.upper),
            "expmech_optimal_delta_relative_width": float((at.upper - at.lower) / at.lower),
            "expmech_optimal_delta_seconds": t_delta,
            "expmech_adaptive": float(adaptive.upper),
            "expmech_adaptive_bound": min(bounds, key=lambda name: bounds[name]),
            "expmech_adaptive_bounds": {name: float(value) for name, value in bounds.items()},
            "expmech_adaptive_seconds": t_ad,
            "expmech_zcdp": float(zcdp.upper),
            "expmech_zcdp_seconds": t_z,
            "k_epsilon": float(k * ETA),
        }
        for name, fn in (("dp_accounting_pld_pure", _pld_pure), ("dp_accounting_rdp_zcdp", _rdp), ("opendp_zcdp", _opendp)):
            try:
                value, seconds = _timed(lambda: fn(k))
                row[name], row[f"{name}_seconds"] = value, seconds
            except Exception as error:  # noqa: BLE001 - a missing optional library is reported, not fatal
                row[name], row[f"{name}_seconds"] = None, f"{type(error).__name__}: {error}"[:120]
        rows.append(row)
    return rows


def markdown(rows: list[dict[str, object]]) -> str:
    """The comparison table: ε at δ = 1e-6 (the time to compute it in brackets)."""

    def cell(row: dict[str, object], key: str) -> str:
        value, seconds = row.get(key), row.get(f"{key}_seconds")
        if value is None:
            return "n/a"
        shown = f"{value:.4g}" if isinstance(value, float) else str(value)
        return f"{shown} ({seconds:.2g} s)" if isinstance(seconds, float) else shown

    head = "| k | expmech optimal | expmech adaptive | dp_accounting PLD (pure ε) | dp_accounting RDP (ρ = η²/8) | OpenDP (ρ = η²/8) | k·ε |"
    lines = [head, "|" + "---|" * 7]
    for row in rows:
        lines.append(
            f"| {row['k']:,} | {cell(row, 'expmech_optimal')} | {cell(row, 'expmech_adaptive')} [{row['expmech_adaptive_bound']}] | "
            f"{cell(row, 'dp_accounting_pld_pure')} | {cell(row, 'dp_accounting_rdp_zcdp')} | {cell(row, 'opendp_zcdp')} | {row['k_epsilon']:.4g} |"
        )
    return "\n".join(lines)


def curves(k: int = 10) -> dict[str, object]:
    """δ(ε) points for k quantile mechanisms, each η = 0.1 (the plot of tools/gen_accounting.py): upper ends."""
    grid = [Fraction(i, 100) * k * ETA for i in range(4, 100, 4)]  # δ = 0 from ε = kη on: not drawn on a log scale
    series: dict[str, list[float | None]] = {}
    for label, curve in (
        ("optimal (non-adaptive)", OptimalComposition([(ETA, k)])),
        ("adaptive bound", AdaptiveComposition([(ETA, k)])),
        ("zCDP (ρ = kη²/8)", ZCDPComposition([(ETA, k)])),
    ):
        series[label] = [float(curve.delta(e).upper) for e in grid]
    try:
        from dp_accounting.pld import common
        from dp_accounting.pld import privacy_loss_distribution as pldlib

        pld = pldlib.from_privacy_parameters(common.DifferentialPrivacyParameters(epsilon=float(ETA), delta=0.0)).self_compose(k)
        series["dp_accounting PLD (pure ε = η)"] = [float(pld.get_delta_for_epsilon(float(e))) for e in grid]
    except ImportError:  # dp_accounting is optional: the plot is drawn without it
        pass
    return {"k": k, "eta": str(ETA), "epsilon": [float(e) for e in grid], "delta": series}


def main() -> None:
    import datetime
    import os
    import subprocess

    rows = run()
    table = markdown(rows)
    print(table)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT, check=False).stdout.strip()
    out = ROOT / "docs" / "benchmarks" / "results" / "data" / "accounting.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": "tests/benchmarks/bench_accounting.py",
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores",
        "load": "/".join(f"{value:.1f}" for value in os.getloadavg()),
        "commit": commit,
        "rows": rows,
        "table": table,
        "curves": curves(),
    }
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
