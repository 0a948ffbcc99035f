"""Whole-process cost of the ``expmech`` command: hostile and honest ``expmech check FILE``, ``--help``, ``verify``.

Run: ``python tests/benchmarks/bench_check_process.py [--before REF] [--runs N]``.  Not collected by pytest.

Each command is run as a user runs it (the installed ``expmech`` console
script, a fresh interpreter each time) and timed by its wall-clock seconds and
by its CPU seconds (user + system of the child, from ``getrusage``); the
median of ``--runs`` runs (default 5; 3 for ``verify``) is printed.  With
``--before REF`` the same commands also run against the source tree of the
git revision REF (extracted into a temporary directory and put first on
``PYTHONPATH``), interleaved run by run with the working tree's, and the table
gives both and their ratios: the machine's noise falls on both alike.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path
from typing import Any

from expmech.impl import catalogue_entry
from expmech.proofs import certify
from expmech.proofs.certificate.make._build import seal

REPO = Path(__file__).resolve().parents[2]
PACKAGES = {"spec": "spec", "impl": "impl", "proofs": "proofs"}  # expmech.<name> -> the repository's directory


def _command() -> list[str]:
    script = Path(sys.executable).with_name("expmech")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "expmech.proofs.cli"]


def _tree_of(revision: str, into: Path) -> Path:
    """The packages of ``revision`` as ``into/expmech/{spec,impl,proofs}``: a PYTHONPATH entry that shadows the install."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", revision, *PACKAGES.values()], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into / "source", filter="data")
    (into / "expmech").mkdir()
    for name, directory in PACKAGES.items():
        (into / "source" / directory).rename(into / "expmech" / name)
    return into


def _timed(args: list[str], env: dict[str, str], cwd: Path, expected: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one run of the command with ``args``; checks its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([*_command(), *args], capture_output=True, env=env, cwd=cwd, timeout=1800)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert done.returncode == expected, (args, done.returncode, done.stdout[-500:], done.stderr[-500:])
    return wall, cpu


def _keys(directory: Path) -> tuple[Path, Path]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    paths = []
    for name in ("issuer", "other"):
        key = Ed25519PrivateKey.generate()
        private, public = directory / f"{name}.pem", directory / f"{name}.pub.pem"
        private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
        public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        paths.append((private, public))
    return paths[0][1], paths[1][0]  # the trusted public key; the other private key, which signs the forgery


def _cases(directory: Path) -> list[tuple[str, list[str], int]]:
    """(label, arguments, exit code) of every command timed; files are written into ``directory``."""
    from expmech.proofs.certificate import sign

    entry = catalogue_entry("median")
    honest = certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity)
    data = honest.data
    text = json.dumps(data)

    def write(name: str, content: bytes | str) -> str:
        path = directory / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        return name

    def resealed(edit: Callable[[dict[str, Any]], Any]) -> str:
        statement = copy.deepcopy(data["certificate"])
        edit(statement)
        return json.dumps(seal(statement))

    tampered = copy.deepcopy(data)
    tampered["certificate"]["predicate"]["epsilon"] = "1/2"
    cut = text.index('"dataset1": [') + len('"dataset1": [')
    trusted, other = _keys(directory)
    expression = lambda tree: resealed(lambda s: s["predicate"]["quality"].__setitem__("expression", tree))  # noqa: E731
    check = [
        ("digest mismatch (ε edited, not resealed)", write("tampered.json", json.dumps(tampered)), 1),
        ("signed by an untrusted key (--trusted-key)", write("untrusted.json", json.dumps(sign(honest, other).data)), 1),
        ("36 MB witness (max_bytes)", write("big.json", text[:cut] + "7, " * (12 * 2**20) + text[cut:]), 2),
        ("JSON nested 100,000 deep (max_depth)", write("deep.json", "[" * 100_000 + "]" * 100_000), 2),
        ("integer of 200,000 digits (max_digits)", write("digits.json", '{"certificate": ' + "9" * 200_000 + "}"), 2),
        ("duplicate JSON key", write("duplicate.json", text[:-1] + ', "digest": ' + json.dumps(data["digest"]) + "}"), 1),
        ("not JSON (truncated)", write("truncated.json", text[: len(text) // 2]), 2),
        ("Pow(3, 10**14), resealed (max_exponent)", write("pow.json", expression({"node": "Pow", "args": [{"rational": "3"}, {"rational": str(10**14)}]})), 2),
        ("expression of 5,000 nodes, resealed (max_expression_nodes)", write("wide.json", expression({"node": "Add", "args": [{"rational": str(i)} for i in range(5000)]})), 2),
        ("missing file", "missing.json", 2),
    ]
    rows = [("expmech --help", ["--help"], 0), ("expmech --version", ["--version"], 0), ("expmech check --max-bytes 0 FILE (bad flag)", ["check", "--max-bytes", "0", "x.json"], 2)]
    for label, name, code in check:
        extra = ["--trusted-key", str(trusted)] if "trusted" in label else []
        rows.append((f"expmech check FILE: {label}", ["check", name, *extra], code))
    rows.append(("expmech check FILE: honest (median, re-derived)", ["check", write("honest.json", text)], 0))
    rows.append(("expmech verify expmech.impl:CATALOGUE", ["verify", "expmech.impl:CATALOGUE"], 0))
    return rows


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--before", default=None, help="a git revision to compare with (e.g. main, or a commit)")
    options.add_argument("--runs", type=int, default=5)
    args = options.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        trees: dict[str, dict[str, str]] = {"now": dict(os.environ)}
        if args.before is not None:
            old = _tree_of(args.before, directory / "before")
            trees = {"before": {**os.environ, "PYTHONPATH": os.pathsep.join([str(old), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}, **trees}
        work = directory / "work"
        work.mkdir()
        rows = _cases(work)
        if args.before is None:
            print("| command | wall s | CPU s |")
            print("|---|---:|---:|")
        else:
            print(f"| command | wall s {args.before} | wall s now | CPU s {args.before} | CPU s now | wall ratio | CPU ratio |")
            print("|---|---:|---:|---:|---:|---:|---:|")
        for label, command, code in rows:
            runs = min(args.runs, 3) if command[0] == "verify" else args.runs
            measured: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
            for _ in range(runs):
                for name, env in trees.items():  # interleaved: before, now, before, now, ...
                    measured[name].append(_timed(command, env, work, code))
            wall = {name: statistics.median(w for w, _ in values) for name, values in measured.items()}
            cpu = {name: statistics.median(c for _, c in values) for name, values in measured.items()}
            if args.before is None:
                print(f"| `{label}` | {wall['now']:.2f} | {cpu['now']:.2f} |")
            else:
                print(
                    f"| `{label}` | {wall['before']:.2f} | {wall['now']:.2f} | {cpu['before']:.2f} | {cpu['now']:.2f} "
                    f"| {wall['before'] / wall['now']:.1f}× | {cpu['before'] / cpu['now']:.1f}× |"
                )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
