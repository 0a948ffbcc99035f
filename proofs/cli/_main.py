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
from typing import Any, NoReturn

from expmech.spec import ExpMechError, InvalidArgument, PrecisionExhausted

from ._argtypes import Z3_LIMIT, bounded_int
from ._progress import Progress
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


class _ParserError(Exception):
    """argparse refused the command line; the message is one line naming the option and its value."""


class _HelpFormatter(argparse.HelpFormatter):
    """Help that shows every default: ``(default: X)`` is appended unless the help text already states its default."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" in text or any(action.default is nothing for nothing in (None, False, argparse.SUPPRESS)) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (``expmech verify: argument --rlimit: '0' must be …``), exit code 2.

    A subcommand's parser refuses its own unrecognised arguments, so the message names the subcommand and its
    ``--help`` (argparse would pass them up and let the top-level ``expmech`` parser report them)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise _ParserError(f"{self.prog}: {message} (see {self.prog} --help)")

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:  # argparse's own overloads, unchanged
        parsed, extras = super().parse_known_args(*args, **kwargs)
        if extras and self.prog != "expmech":
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return parsed, extras


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
    from ._formats import render
    from ._targets import load_targets
    from ._verify import exit_code, verify_targets

    loaded = load_targets(args.targets)
    with Progress(len(loaded.targets), "verifying") as progress:
        verdicts = verify_targets(loaded.targets, progress=progress.step, **_work_options(args, loaded.options))
    print(render(verdicts, args.format, version=_version()))
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
    from ..certificate._build import sign
    from ..certificate._report import write_report
    from ._targets import load_targets, slug
    from ._verify import exit_code, verify_targets

    loaded = load_targets([args.target])
    directory = _output_directory(args.output)
    signer = None
    if args.sign_key is not None:
        from ..certificate._signing import load_signing_key

        signer = load_signing_key(args.sign_key)
    with Progress(len(loaded.targets), "certifying") as progress:
        verdicts = verify_targets(loaded.targets, progress=progress.step, command="certify", **_work_options(args, loaded.options))
    for verdict in verdicts:
        if verdict.certificate is None:
            last = (verdict.error or "").strip().splitlines()[-1:] or [""]
            print(f"ERROR    {verdict.target.name}: {verdict.failure} error: {last[0]}", file=sys.stderr)
            continue
        stem = slug(verdict.target.name)
        written = verdict.certificate if signer is None else sign(verdict.certificate, signer)
        path = write_atomically(directory / f"{stem}.cert.json", written.to_json())
        md, page = write_report(verdict.certificate, directory, stem, title=verdict.target.name)
        print(f"{verdict.status!s:8} {verdict.target.name}: {path} ({md.name}, {page.name})")
    return exit_code(verdicts)


def _check(args: argparse.Namespace) -> int:
    """Exit codes: 0 valid and certifies ε-DP (ε <= --max-epsilon); 1 forged, tampered or inconsistent;
    2 usage error or input refused by a limit; 3 valid but certifies no ε-DP; 4 could not be re-derived here.
    With several certificates the first of 1, 2, 4, 3, 0 present wins."""
    from ..certificate._check import CheckOutcome, check_certificate, validate_max_epsilon
    from ..certificate._limits import CertificateLimits, parse_limit
    from ..certificate._check_json import json_text, kernel_lines, report_json
    from ._account import check_composition_file

    try:
        raised = dict(parse_limit(text) for text in args.limit or ())
        if args.max_bytes is not None:
            raised["max_bytes"] = args.max_bytes
        if args.budget is not None:
            raised["max_memory_mb"] = args.budget
        limits = CertificateLimits(**raised)
        options: dict[str, Any] = {"limits": limits, "trusted_keys": args.trusted_key or (), "max_epsilon": args.max_epsilon, "jobs": args.jobs}
        if args.trusted_key:
            from ..certificate._signing import load_trusted_key

            options["trusted_keys"] = [load_trusted_key(path) for path in args.trusted_key]
        validate_max_epsilon(args.max_epsilon)
    except ExpMechError as error:
        print(f"expmech check: {_as_flag(error)}", file=sys.stderr)
        return EXIT_USAGE
    labels = {
        CheckOutcome.CERTIFIES_DP: "OK",
        CheckOutcome.NO_DP_CLAIM: "NO-DP",
        CheckOutcome.INVALID: "INVALID",
        CheckOutcome.REFUSED: "REFUSED",
        CheckOutcome.INCONCLUSIVE: "UNKNOWN",
    }
    codes = []
    documents: list[dict[str, Any]] = []
    for item in args.certificates:
        composed = check_composition_file(item)
        if composed is not None:  # a composition certificate of expmech account
            documents.append({"certificate": item, "outcome": "OK" if composed[0] == 0 else "INVALID", "exit_code": composed[0], "summary": composed[1]})
            if args.format == "text":
                print(f"{'OK' if composed[0] == 0 else 'INVALID':8} {item}: {composed[1]} (exit {composed[0]})")
            codes.append(composed[0])
            continue
        try:
            report = check_certificate(item, **options)
        except ExpMechError as error:
            documents.append({"certificate": item, "outcome": "REFUSED", "exit_code": EXIT_USAGE, "summary": str(error)})
            if args.format == "text":
                print(f"REFUSED  {item}: {error}")
            codes.append(EXIT_USAGE)
            continue
        codes.append(report.exit_code)
        if args.format == "json":
            documents.append(report_json(report, item))
            continue
        label, summary = labels[report.outcome], report.summary
        if report.above_max_epsilon is not None:  # valid, and certifies an ε: only not within the flag's bound
            label, summary = "ABOVE", report.notes[0].replace("max_epsilon = ", "--max-epsilon ") + f" (status {report.status})"
        if summary.lower().startswith(f"{label.lower()}: "):  # the label says it once
            summary = summary[len(label) + 2 :]
        print(f"{label:8} {item}: {summary} (exit {report.exit_code})")
        for note in report.notes[1:] if report.above_max_epsilon is not None else report.notes:
            if note.removeprefix(f"{report.outcome.value}: ") not in report.summary:  # the summary already says it
                print(f"         note: {note}")
        for line in kernel_lines(report):
            print(f"         kernel: {line}")
    if args.format == "json":
        print(json_text(documents))
    for code in (EXIT_VIOLATION, EXIT_USAGE, EXIT_INTERNAL, EXIT_INCONCLUSIVE):
        if code in codes:
            return code
    return EXIT_VERIFIED


def _as_flag(error: ExpMechError) -> str:
    """The message of ``error`` with its parameter written as the flag that set it (``max_epsilon=`` -> ``--max-epsilon=``)."""
    parameter = getattr(error, "parameter", None)
    text = str(error)
    if isinstance(parameter, str) and parameter.isidentifier() and text.startswith(f"{parameter}="):
        return f"--{parameter.replace('_', '-')}=" + text[len(parameter) + 1 :]
    return text


def _spec(args: argparse.Namespace) -> int:
    from ._spec_report import LISTED, render_json, render_text, spec_reports

    with Progress(len(LISTED), "checking statements") as progress:
        reports = spec_reports(instances=args.instances, attempts=args.attempts, seed=args.seed, progress=progress.step)
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
    check = commands.add_parser(
        "check",
        help="re-derive every claim of certificates independently",
        description="Exit 0: valid, certifies ε-DP (ε <= --max-epsilon); 1: forged, tampered or inconsistent; "
        "2: usage error or refused by a limit; 3: valid but certifies no ε-DP, or an ε above --max-epsilon; 4: could not be re-derived here.",
    )
    check.add_argument("certificates", nargs="+", metavar="CERT", help="certificate files (.cert.json) written by expmech certify, synth or account")
    check.add_argument("--max-epsilon", dest="max_epsilon", default=None, help="exit 0 only if the certified ε is <= this (p/q, or an expression in n; default: any ε)")
    check.add_argument("--trusted-key", dest="trusted_key", action="append", default=None, help="Ed25519 PEM public key; repeatable. Only certificates signed by one of them are valid (default: signatures not required)")
    check.add_argument("--budget", type=bounded_int(1), default=None, help="refuse a certificate whose re-derivation is estimated above this many MB of memory (default 8192)")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output on stdout: a line per certificate for people, or JSON with every check and the proof kernel's verdicts")
    check.add_argument("--jobs", type=bounded_int(1, 2), default=None,
                       help="processes for a large certificate: 2 shares the checks that need no re-derivation (digest, inputs, conformance losses, small-model check, kernel, solver re-runs) with a second process (Linux); "
                       "1 runs everything in one process; the verdict is the same (default: 2 when two CPUs are available)")
    check.add_argument("--max-bytes", dest="max_bytes", type=bounded_int(1), default=None, help="refuse certificates larger than this (default 1 MiB)")
    check.add_argument(
        "--limit",
        action="append",
        metavar="NAME=VALUE",
        help="raise (or lower) one input limit, e.g. max_outputs=1000000 for a large certificate you trust; repeatable "
        "(default: the limits listed in the documentation's limits reference)",
    )
    spec = commands.add_parser("spec", help="list every statement of the source with its status")
    spec.add_argument("--format", choices=("text", "json"), default="text", help="output on stdout")
    spec.add_argument("--instances", type=bounded_int(1, 10**6), default=200, help="random instances per statement")
    spec.add_argument("--attempts", type=bounded_int(1, 10**7), default=2000, help="draws per dropped-hypothesis search")
    spec.add_argument("--seed", type=int, default=0, help="seed of the random instances, for a reproducible run")
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
    synth.add_argument("--budget", type=bounded_int(1), default=DEFAULT_BUDGET, help=f"refuse a run whose estimated cost exceeds this many query evaluations (default {DEFAULT_BUDGET:,})")
    synth.add_argument("--limit", action="append", metavar="NAME=VALUE", help="raise (or lower) one certificate limit for the certificate's own checks, as expmech check --limit (e.g. max_small_model_evaluations=10000000); repeatable, with --certificate; the printed check command repeats it (default: the limits listed in the documentation's limits reference)")
    from ._audit import add_audit_parser

    add_audit_parser(commands)
    from ._account import add_account_parser

    add_account_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``expmech`` command with ``argv`` (default ``sys.argv[1:]``); return its exit code."""
    try:
        args = build_parser().parse_args(argv)
    except _ParserError as error:
        print(str(error), file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exit_:  # --help and --version
        return EXIT_USAGE if exit_.code not in (0, None) else EXIT_VERIFIED
    handlers = {"verify": _verify, "certify": _certify, "check": _check, "spec": _spec, "synth": _synth, "audit": _audit, "account": _account}
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
