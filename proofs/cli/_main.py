"""The ``expmech`` command: ``verify``, ``certify``, ``check``, ``spec``, ``synth``, ``audit``, ``account``.

Exit codes: 0 verified, 1 violation, 2 usage or config error, 3 inconclusive,
4 internal error.  Machine output goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from expmech.spec import ExpMechError, InvalidArgument, PrecisionExhausted

from ._argtypes import Z3_LIMIT, bounded_int
from ._check import add_check_parser, run_check
from ._parser import Parser as _Parser, ParserError as _ParserError
from ._progress import Progress
from ._session import Session
from ._synth_cost import DEFAULT_BUDGET

__all__ = ["build_parser", "main"]

EXIT_VERIFIED, EXIT_VIOLATION, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a pipe closed by its reader


def _version() -> str:
    from importlib import metadata  # 30 ms: only for --version and the reports

    try:
        return metadata.version("expmech")
    except metadata.PackageNotFoundError:  # pragma: no cover
        return "unknown"


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked for."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, default: Any = argparse.SUPPRESS, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=default, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        print(f"expmech {_version()}")
        parser.exit()


def _prover_options(args: argparse.Namespace, configured: dict[str, int] | None = None) -> dict[str, Any]:
    options: dict[str, Any] = dict(configured or {})
    if getattr(args, "rlimit", None) is not None:
        options["rlimit"] = args.rlimit
    if getattr(args, "timeout_ms", None) is not None:
        options["timeout_ms"] = args.timeout_ms
    return options


def _work_options(args: argparse.Namespace, configured: dict[str, int] | None = None) -> dict[str, Any]:
    """The prover options and the work budget in MB (``--budget`` wins over ``[tool.expmech] budget``)."""
    options = _prover_options(args, configured)
    if getattr(args, "budget", None) is not None:
        options["budget"] = args.budget
    return options


def _verify(args: argparse.Namespace) -> int:
    """Each verdict is printed the moment it is decided: its lines on stdout for text, else a plain line on stderr
    (the machine formats stay one document on stdout, written at the end)."""
    from ._formats import render, summary_line, verdict_lines
    from ._targets import load_targets
    from ._verify import exit_code, verify_targets

    loaded = load_targets(args.targets)
    text = args.format == "text"
    with Progress(len(loaded.targets), "verifying", noun="targets") as progress:

        def decided(verdict: Any) -> None:
            lines = verdict_lines(verdict)
            if text:
                progress.print("\n".join(lines))
            else:
                progress.print(f"expmech verify: [{progress.done}/{progress.count}] {' '.join(lines[0].split())}", file=sys.stderr)
            progress.finish()

        verdicts = verify_targets(loaded.targets, progress=progress.step, on_verdict=decided, **_work_options(args, loaded.options))
    print(summary_line(verdicts) if text else render(verdicts, args.format, version=_version()))
    return exit_code(verdicts)


def _output_directory(text: str) -> Path:
    if not text.strip():  # Path("") is the current directory: never a silent default
        raise InvalidArgument(f"--output={text!r} is empty: name a directory", parameter="output", value=text)
    directory = Path(text)
    if directory.exists() and not directory.is_dir():
        raise InvalidArgument(f"--output={text!r} exists and is not a directory", parameter="output", value=text)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InvalidArgument(f"--output={text!r} cannot be created: {error.strerror or error}", parameter="output", value=text) from None
    return directory


def _certify(args: argparse.Namespace) -> int:
    from .._files import write_atomically
    from ..certificate.make._build import sign
    from ..certificate.report._report import write_report
    from ._targets import load_targets, slug
    from ._verify import exit_code, verify_targets

    loaded = load_targets([args.target])
    directory = _output_directory(args.output)
    signer = None
    if args.sign_key is not None:
        from ..certificate.format._signing import load_signing_key

        signer = load_signing_key(args.sign_key)
    with Progress(len(loaded.targets), "certifying", noun="targets") as progress:

        def decided(verdict: Any) -> None:  # written the moment it is decided: an interrupt keeps every finished one
            if verdict.certificate is None:
                last = (verdict.error or "").strip().splitlines()[-1:] or [""]
                progress.print(f"ERROR    {verdict.target.name}: {verdict.failure} error: {last[0]}", file=sys.stderr)
            else:
                stem = slug(verdict.target.name)
                written = verdict.certificate if signer is None else sign(verdict.certificate, signer)
                path = write_atomically(directory / f"{stem}.cert.json", written.to_json())
                md, page = write_report(verdict.certificate, directory, stem, title=verdict.target.name)
                progress.print(f"{verdict.status!s:8} {verdict.target.name}: {path} ({md.name}, {page.name})")
            progress.finish()

        verdicts = verify_targets(loaded.targets, progress=progress.step, on_verdict=decided, command="certify", **_work_options(args, loaded.options))
    return exit_code(verdicts)


def _as_flag(error: ExpMechError) -> str:
    """The message of ``error`` with its parameter written as the flag that set it (``max_epsilon=`` -> ``--max-epsilon=``)."""
    parameter = getattr(error, "parameter", None)
    text = str(error)
    if isinstance(parameter, str) and parameter.isidentifier() and text.startswith(f"{parameter}="):
        return f"--{parameter.replace('_', '-')}=" + text[len(parameter) + 1 :]
    return text


def _spec(args: argparse.Namespace) -> int:
    from ._spec_report import LISTED, render_json, render_text, spec_reports

    with Progress(len(LISTED), "checking statements", noun="statements") as progress:
        reports = spec_reports(instances=args.instances, attempts=args.attempts, seed=args.seed, progress=progress.step, jobs=args.jobs)
    print(render_json(reports) if args.format == "json" else render_text(reports))
    return EXIT_VERIFIED if all(r.holds for r in reports) else EXIT_VIOLATION


def _synth(args: argparse.Namespace) -> int:
    from ._synth import run_synth

    return run_synth(args)


def _audit(args: argparse.Namespace) -> int:
    from ._audit import run_audit

    return run_audit(args)


def _account(args: argparse.Namespace) -> int:
    from ._account import run_account

    return run_account(args)


def build_parser() -> argparse.ArgumentParser:
    """The ``expmech`` argument parser with every subcommand (for :func:`main`, and for tools that document the flags)."""
    parser = _Parser(prog="expmech", description="Verify the exponential mechanism of differential privacy, exactly.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="verify mechanisms (default: the [tool.expmech] table of the nearest pyproject.toml)")
    verify.add_argument("targets", nargs="*", help="module:attr or a pyproject.toml with [tool.expmech] (default: the nearest pyproject.toml)")
    verify.add_argument("--format", choices=("text", "json", "sarif", "junit"), default="text", help="output on stdout: text for people, json, SARIF 2.1.0 for code scanning, JUnit XML for CI test reports")
    certify = commands.add_parser("certify", help="write certificates and reports for a target")
    certify.add_argument("target", help="module:attr or a pyproject.toml with [tool.expmech]")
    certify.add_argument("-o", "--output", required=True, help="directory for the certificates and reports")
    certify.add_argument("--sign-key", dest="sign_key", default=None, help="sign each certificate (DSSE, Ed25519) with this PEM private key (default: unsigned)")
    for sub in (verify, certify):
        sub.add_argument("--rlimit", type=bounded_int(1, Z3_LIMIT), default=None, help="z3 resource limit per query, deterministic (default: rlimit of [tool.expmech], else 5000000)")
        sub.add_argument("--timeout-ms", dest="timeout_ms", type=bounded_int(1, Z3_LIMIT), default=None, help="z3 wall-clock safety net per query, in milliseconds (default: timeout-ms of [tool.expmech], else 20000)")
        sub.add_argument("--budget", type=bounded_int(1), default=None, help="refuse a mechanism whose estimated peak memory exceeds this many MB (default: budget of [tool.expmech], else 8192)")
    add_check_parser(commands)
    spec = commands.add_parser("spec", help="list every statement of the source with its status")
    spec.add_argument("--format", choices=("text", "json"), default="text", help="output on stdout")
    spec.add_argument("--instances", type=bounded_int(1, 10**6), default=200, help="random instances per statement")
    spec.add_argument("--attempts", type=bounded_int(1, 10**7), default=2000, help="draws per dropped-hypothesis search")
    spec.add_argument("--seed", type=int, default=0, help="seed of the random instances, for a reproducible run")
    spec.add_argument(
        "--jobs", type=bounded_int(1, 1024), default=None, help="processes to check in (default: the machine's cores; 1: this process alone)"
    )
    synth = commands.add_parser("synth", help="release a synthetic dataset for a CSV of bit records (Blum–Ligett–Roth)")
    synth.add_argument("input", help="CSV of 0/1 records, one per line (UTF-8)")
    synth.add_argument("--header", action="store_true", help="the first row is a header (a non-numeric first row is detected as one anyway, and said so)")
    synth.add_argument("--k", type=bounded_int(1), default=None, help="bits per record (default: the CSV's width; must match it)")
    synth.add_argument("--m", type=bounded_int(1), required=True, help="records in the synthetic dataset")
    synth.add_argument("--epsilon", default="1", help="target ε > 0, as p/q or a decimal")
    synth.add_argument("--alpha", default="1/2", help="usefulness α in (0, 1), as p/q")
    synth.add_argument("--delta", default="1/10", help="usefulness δ in (0, 1), as p/q")
    synth.add_argument("--queries", choices=("halfspaces", "conjunctions"), default="halfspaces", help="the query class the release must be useful for")
    synth.add_argument("--seed", type=int, default=None, help="a seed for a reproducible release (default: secrets.SystemRandom)")
    synth.add_argument("--certificate", default=None, help="prove GS_q <= 1/n and write the certificate to this path (default: no certificate)")
    synth.add_argument("--pairs", type=bounded_int(0, 10**4), default=3, help="conformance pairs in the certificate")
    synth.add_argument("--search-budget", dest="search_budget", type=bounded_int(1), default=20_000, help="exact evaluations for the certificate's witness search")
    synth.add_argument("--plot", default=None, help="write a plot (.png, .svg or .pdf) of Pr[error >= α] on prefixes of the data against the source's bound (default: no plot)")
    synth.add_argument("--max-bytes", dest="max_bytes", type=bounded_int(1), default=None, help="refuse an input CSV larger than this many bytes, before reading it (default 64 MiB)")
    synth.add_argument("--budget", type=bounded_int(1), default=DEFAULT_BUDGET, help=f"refuse a run whose estimated cost exceeds this many query evaluations (default {DEFAULT_BUDGET:,})")
    synth.add_argument("--limit", action="append", metavar="NAME=VALUE", help="raise (or lower) one certificate limit for the certificate's own checks, as expmech check --reproduce --limit (e.g. max_small_model_evaluations=10000000); repeatable, with --certificate; the printed check commands repeat it where they read it (default: the limits listed in the documentation's limits reference)")
    from ._audit import add_audit_parser

    add_audit_parser(commands)
    from ._account import add_account_parser

    add_account_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``expmech`` command with ``argv`` (default ``sys.argv[1:]``); return its exit code.

    Ctrl-C ends any command with one line on stderr (``expmech verify: interrupted after 7 of 10 targets``) and
    exit code 130, as a shell reports SIGINT; files are written whole or not at all, so none is left half-written
    (:mod:`._session`).
    """
    session = Session()
    code = EXIT_INTERNAL
    try:
        with session:  # absorbs Ctrl-C
            try:
                args = build_parser().parse_args(argv)
            except _ParserError as error:
                print(str(error), file=sys.stderr)
                return EXIT_USAGE
            except SystemExit as exit_:  # --help and --version
                return EXIT_USAGE if exit_.code not in (0, None) else EXIT_VERIFIED
            session.command = f"expmech {args.command}"
            code = _run(args)
    except KeyboardInterrupt:  # a second Ctrl-C while the first was being absorbed
        session.was_interrupted = True
    return session.interrupted() if session.was_interrupted else code


def _run(args: argparse.Namespace) -> int:
    handlers = {"verify": _verify, "certify": _certify, "check": run_check, "spec": _spec, "synth": _synth, "audit": _audit, "account": _account}
    try:
        return handlers[args.command](args)
    except BrokenPipeError:  # the reader of stdout went away (`| head`): not an internal error
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - silences the interpreter's final flush
        return EXIT_BROKEN_PIPE
    except InvalidArgument as error:  # a usage or configuration error: one line, exit 2
        print(f"expmech {args.command}: {' '.join(str(error).split())}", file=sys.stderr)
        return EXIT_USAGE
    except PrecisionExhausted as error:
        print(f"expmech {args.command}: inconclusive: {error}", file=sys.stderr)
        return EXIT_INCONCLUSIVE
    except Exception as error:  # noqa: BLE001 - exit code 4, never a silent success
        print(f"expmech {args.command}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
