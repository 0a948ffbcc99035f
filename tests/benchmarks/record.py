"""Run a benchmark script and record its printed Markdown for the documentation's benchmarks page.

    python tests/benchmarks/record.py bench_proofs.py [ARGS…]

runs ``tests/benchmarks/bench_proofs.py ARGS…`` with this interpreter, echoes its output, and writes
``docs/benchmarks/results/bench_proofs.json`` (title, command, date, machine, load averages before and after, commit,
output).  Then ``python tools/gen_benchmarks.py`` lays the page out.  Nothing is typed by hand.
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE.parent.parent / "docs" / "benchmarks" / "results"


def _load() -> str:
    try:
        return "/".join(f"{value:.1f}" for value in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "unknown"


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    script = HERE / argv[0]
    if not script.is_file():
        print(f"record.py: no benchmark script {argv[0]!r} in {HERE.name}/", file=sys.stderr)
        return 2
    title = (script.read_text(encoding="utf-8").split('"""')[1].strip().splitlines() or [script.stem])[0]
    before = _load()
    done = subprocess.run([sys.executable, str(script), *argv[1:]], capture_output=True, text=True, cwd=HERE.parent.parent)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    if done.returncode != 0:
        print(f"record.py: {script.name} exited {done.returncode}; nothing recorded", file=sys.stderr)
        return done.returncode
    entry = {
        "title": title.rstrip("."),
        "command": " ".join(["python", f"tests/benchmarks/{script.name}", *argv[1:]]),
        "recorded": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores",
        "load": f"1/5/15-minute load averages {before} before, {_load()} after",
        "commit": _commit(),
        "source": "recorded",
        "output": done.stdout,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{script.stem}.json"
    path.write_text(json.dumps(entry, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"record.py: wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
