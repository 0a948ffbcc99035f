"""The verifier against re-derivation: `expmech check` vs `expmech check --reproduce` vs `expmech certify`, side by side.

Run: ``python tests/benchmarks/record.py bench_verifier.py [--rounds R] [--synth K,M]``.  Not collected by pytest.

For the built-in catalogues (CATALOGUE, RANGE_CATALOGUE, POSTERIOR_CATALOGUE) and one `expmech synth --certificate`
release (K bits per record, M synthetic records; default 5,4: 52,360 outputs), each command is run as a user runs it,
a fresh process, in turn round after round (so a machine that speeds up or slows down between rounds moves all
three alike); each figure is the median of the rounds, and each ratio the median of the rounds' ratios.  It also
counts the verifier's side conditions and how many a solver decided, names those, and measures the verifier's size
(non-blank lines of the modules `expmech check` loads).  The figures go to
``docs/benchmarks/results/data/verifier.json``, which the trust page reads.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "benchmarks" / "results" / "data" / "verifier.json"
CATALOGUES = ("expmech.impl:CATALOGUE", "expmech.impl:RANGE_CATALOGUE", "expmech.impl:POSTERIOR_CATALOGUE")
PROBE = r"""
import contextlib, io, json, sys
from expmech.proofs.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(["check", "--format", "json", *sys.argv[1:]])
files = {n: getattr(m, "__file__", None) for n, m in list(sys.modules.items()) if n.startswith("expmech")}
print(json.dumps({"code": code, "report": json.loads(out.getvalue()), "files": files}))
"""


def _run(command: list[str]) -> tuple[float, float, int]:
    """(wall seconds, CPU seconds of the child, exit code) of one command run as a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def _lines(path: str) -> int:
    return sum(1 for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip())


def _synth(cli: list[str], folder: Path, k: int, m: int) -> tuple[list[str], list[str]]:
    """A CSV of 0/1 records and the `synth` command certifying a release of it; the `check` flags it prints."""
    rng = random.Random(0)
    data = folder / "data.csv"
    data.write_text("".join(",".join(str(rng.randint(0, 1)) for _ in range(k)) + "\n" for _ in range(200)), encoding="utf-8")
    command = [*cli, "synth", str(data), "--m", str(m), "--seed", "1", "--certificate", str(folder / "synth.cert.json")]
    printed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=True).stdout + ""
    flags = next((line.split("expmech check", 1)[1].split()[1:] for line in printed.splitlines() if "expmech check" in line), [])
    return command, flags


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--synth", default="5,4", help="K,M of the synth release (bits per record, synthetic records)")
    args = parser.parse_args(argv)
    k, m = (int(part) for part in args.synth.split(","))
    python, cli = sys.executable, [shutil.which("expmech") or sys.executable, *([] if shutil.which("expmech") else ["-m", "expmech.proofs.cli"])]
    rows, figures = [], {}
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        workloads = {}
        for target in CATALOGUES:
            out = folder / target.split(":")[1]
            certify = [*cli, "certify", target, "-o", str(out)]
            subprocess.run(certify, capture_output=True, check=True, cwd=ROOT)
            workloads[target.split(":")[1]] = (certify, sorted(str(p) for p in out.glob("*.cert.json")), [])
        synth, flags = _synth(cli, folder, k, m)
        workloads[f"synth ({k}, {m})"] = (synth, [str(folder / "synth.cert.json")], flags)
        probes = {name: json.loads(subprocess.run([python, "-c", PROBE, *flags, *paths], capture_output=True, text=True, cwd=ROOT, check=True).stdout.splitlines()[-1])
                  for name, (_, paths, flags) in workloads.items()}
        for name, (make, paths, flags) in workloads.items():
            times: dict[str, list[tuple[float, float]]] = {"check": [], "check --reproduce": [], "make": []}
            for _ in range(args.rounds):
                for label, command in (("check", [*cli, "check", *flags, *paths]), ("check --reproduce", [*cli, "check", "--reproduce", *flags, *paths]), ("make", make)):
                    wall, cpu, code = _run(command)
                    if code != 0:
                        raise SystemExit(f"{label} of {name} exited {code}")
                    times[label].append((wall, cpu))
            ratio = statistics.median(c[0] / r[0] for c, r in zip(times["check"], times["check --reproduce"]))
            versus_make = statistics.median(c[0] / mk[0] for c, mk in zip(times["check"], times["make"]))
            report = probes[name]["report"]["certificates"]
            rows.append({"workload": name, "certificates": len(paths),
                         **{f"{label} (s)": round(statistics.median(w for w, _ in t), 3) for label, t in times.items()},
                         "check / check --reproduce": round(ratio, 3), "check / make": round(versus_make, 3),
                         "side conditions": sum(item["obligations"]["total"] for item in report),
                         "by a solver": sum(item["obligations"]["solver"] for item in report)})
        loaded = {n: _lines(f) for probe in probes.values() for n, f in probe["files"].items() if f}
    figures["rows"] = rows
    figures["loaded_modules"] = dict(sorted(loaded.items()))
    figures["loaded_lines"] = sum(loaded.values())
    catalogue_rows = [row for row in rows if not row["workload"].startswith("synth")]
    figures["catalogue_side_conditions"] = sum(row["side conditions"] for row in catalogue_rows)
    figures["catalogue_by_a_solver"] = sum(row["by a solver"] for row in catalogue_rows)
    figures["rounds"] = args.rounds
    figures["load"] = "/".join(f"{v:.1f}" for v in os.getloadavg())
    DATA.parent.mkdir(parents=True, exist_ok=True)
    DATA.write_text(json.dumps(figures, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    columns = list(rows[0])
    print(f"Median of {args.rounds} interleaved rounds, each command a fresh process (wall time).\n")
    print("| " + " | ".join(columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in columns) + " |")
    print(f"\nThe modules `expmech check` loaded for all of these: {figures['loaded_lines']} non-blank lines of this project.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
