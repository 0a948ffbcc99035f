"""The ``expmech`` command: ``verify``, ``certify``, ``check``, ``spec``.

Exit codes: 0 verified, 1 violation, 2 usage or config error, 3 inconclusive,
4 internal error.  Machine output goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from expmech.spec import ExpMechError

__all__ = ["main"]

EXIT_VERIFIED, EXIT_VIOLATION, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4


def _version() -> str:
    try:
        return metadata.version("expmech")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


class _Progress:
    """A rich progress bar on stderr, shown only once a run has taken more than a second."""

    def __init__(self, total: int, label: str) -> None:
        self.total, self.label, self.done, self.start = total, label, 0, time.monotonic()
        self.bar: Any = None
        self.task: Any = None

    def __call__(self) -> None:
        self.done += 1
        if self.bar is None and time.monotonic() - self.start > 1.0 and self.done < self.total:
            try:
                from rich.console import Console
                from rich.progress import Progress
            except ImportError:
                return
            self.bar = Progress(console=Console(stderr=True), transient=True)
            self.bar.start()
            self.task = self.bar.add_task(self.label, total=self.total, completed=self.done)
        elif self.bar is not None:
            self.bar.update(self.task, completed=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


def _prover_options(args: argparse.Namespace) -> dict[str, Any]:
    options = {}
    if getattr(args, "rlimit", None) is not None:
        options["rlimit"] = args.rlimit
    if getattr(args, "timeout_ms", None) is not None:
        options["timeout_ms"] = args.timeout_ms
    return options


def _verify(args: argparse.Namespace) -> int:
    from ._verify import load_targets, render, verify_targets
    from ._verify import exit_code as aggregate

    try:
        targets = load_targets(args.targets)
    except ExpMechError as error:
        print(f"expmech verify: {error}", file=sys.stderr)
        return EXIT_USAGE
    progress = _Progress(len(targets), "verifying")
    try:
        verdicts = verify_targets(targets, progress=progress, **_prover_options(args))
    finally:
        progress.close()
    print(render(verdicts, args.format, version=_version()))
    return aggregate(verdicts)


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "mechanism"


def _certify(args: argparse.Namespace) -> int:
    from ..certificate._report import write_report
    from ._verify import load_targets, verify_targets
    from ._verify import exit_code as aggregate

    try:
        targets = load_targets([args.target])
    except ExpMechError as error:
        print(f"expmech certify: {error}", file=sys.stderr)
        return EXIT_USAGE
    directory = Path(args.output)
    directory.mkdir(parents=True, exist_ok=True)
    verdicts = verify_targets(targets, **_prover_options(args))
    for verdict in verdicts:
        if verdict.certificate is None:
            print(f"ERROR    {verdict.target.name}: {verdict.error}", file=sys.stderr)
            continue
        stem = _slug(verdict.target.name)
        path = verdict.certificate.write(directory / f"{stem}.cert.json")
        md, page = write_report(verdict.certificate, directory, stem)
        print(f"{verdict.status!s:8} {verdict.target.name}: {path} ({md.name}, {page.name})")
    return aggregate(verdicts)


def _check(args: argparse.Namespace) -> int:
    from ..certificate._check import check_certificate

    code = EXIT_VERIFIED
    for item in args.certificates:
        try:
            report = check_certificate(item)
        except ExpMechError as error:
            print(f"INVALID  {item}: {error}")
            code = max(code, EXIT_VIOLATION)
            continue
        verdict = "OK" if report.ok else "INVALID"
        print(f"{verdict:8} {item}: status {report.status}, ε = {report.epsilon}, {len(report.checks)} checks")
        for problem in report.problems:
            print(f"         problem: {problem}")
        for note in report.notes:
            print(f"         note: {note}")
        if not report.ok:
            code = max(code, EXIT_VIOLATION)
    return code


def _spec(args: argparse.Namespace) -> int:
    from ._spec_report import render_json, render_text, spec_reports

    for name in ("instances", "attempts"):
        if getattr(args, name) < 1:
            print(f"expmech spec: --{name}={getattr(args, name)} must be >= 1", file=sys.stderr)
            return EXIT_USAGE
    reports = spec_reports(instances=args.instances, attempts=args.attempts, seed=args.seed)
    print(render_json(reports) if args.format == "json" else render_text(reports))
    return EXIT_VERIFIED if all(r.holds for r in reports) else EXIT_VIOLATION


def _synth(args: argparse.Namespace) -> int:
    from ._synth import run_synth

    try:
        return run_synth(args)
    except ExpMechError as error:
        print(f"expmech synth: {error}", file=sys.stderr)
        return EXIT_USAGE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="expmech", description="Verify the exponential mechanism of differential privacy, exactly.")
    parser.add_argument("--version", action="version", version=f"expmech {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="verify mechanisms (default: [tool.expmech] of ./pyproject.toml, else the built-in catalogue)")
    verify.add_argument("targets", nargs="*", help="module:attr or a pyproject.toml with [tool.expmech]")
    verify.add_argument("--format", choices=("text", "json", "sarif", "junit"), default="text")
    certify = commands.add_parser("certify", help="write certificates and reports for a target")
    certify.add_argument("target", help="module:attr or a pyproject.toml with [tool.expmech]")
    certify.add_argument("-o", "--output", required=True, help="directory for the certificates and reports")
    for sub in (verify, certify):
        sub.add_argument("--rlimit", type=int, default=None, help="z3 resource limit per query (deterministic)")
        sub.add_argument("--timeout-ms", dest="timeout_ms", type=int, default=None, help="z3 wall-clock safety net per query")
    check = commands.add_parser("check", help="re-verify certificates independently")
    check.add_argument("certificates", nargs="+")
    spec = commands.add_parser("spec", help="list every statement of the source with its status")
    spec.add_argument("--format", choices=("text", "json"), default="text")
    spec.add_argument("--instances", type=int, default=200, help="random instances per statement")
    spec.add_argument("--attempts", type=int, default=2000, help="draws per dropped-hypothesis search")
    spec.add_argument("--seed", type=int, default=0)
    synth = commands.add_parser("synth", help="release a synthetic dataset for a CSV of bit records (Blum–Ligett–Roth)")
    synth.add_argument("input", help="CSV of 0/1 records, one per line")
    synth.add_argument("--k", type=int, default=None, help="bits per record (default: the CSV's width)")
    synth.add_argument("--m", type=int, required=True, help="records in the synthetic dataset")
    synth.add_argument("--epsilon", default="1", help="target ε as p/q (default 1)")
    synth.add_argument("--alpha", default="1/2", help="usefulness α as p/q")
    synth.add_argument("--delta", default="1/10", help="usefulness δ as p/q")
    synth.add_argument("--queries", choices=("halfspaces", "conjunctions"), default="halfspaces")
    synth.add_argument("--seed", type=int, default=None, help="a seed for a reproducible release (default: secrets.SystemRandom)")
    synth.add_argument("--pairs", type=int, default=3, help="conformance pairs in the certificate")
    synth.add_argument("--search-budget", dest="search_budget", type=int, default=20_000, help="exact evaluations for the witness search")
    synth.add_argument("--certificate", default=None, help="write the certificate to this path")
    synth.add_argument("--plot", default=None, help="write a PNG of error vs n against the source's bound")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``expmech`` command with ``argv`` (default ``sys.argv[1:]``); return its exit code."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code not in (0, None) else EXIT_VERIFIED
    handlers = {"verify": _verify, "certify": _certify, "check": _check, "spec": _spec, "synth": _synth}
    try:
        return handlers[args.command](args)
    except Exception as error:  # noqa: BLE001 - exit code 4, never a silent success
        print(f"expmech {args.command}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
