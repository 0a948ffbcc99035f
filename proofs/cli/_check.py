"""``expmech check CERT …``: each certificate decided by the verifier alone; ``--reproduce`` also re-runs the prover.

Exit codes: 0 valid and certifies ε-DP (ε <= --max-epsilon); 1 forged, tampered or inconsistent; 2 usage error
or input refused by a limit; 3 valid but certifies no ε-DP, or an ε above --max-epsilon; 4 could not be checked
here.  With several certificates, the first of 1, 2, 4, 3, 0 present wins.

Without ``--reproduce`` this module and the verifier are all that runs: no prover, no ``expmech.impl``, no sympy.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from ._argtypes import bounded_int
from ._parser import Parser, ParserError

__all__ = ["add_check_parser", "main_check", "run_check"]

_LABELS = {"CERTIFIES_DP": "OK", "NO_DP_CLAIM": "NO-DP", "INVALID": "INVALID", "REFUSED": "REFUSED", "INCONCLUSIVE": "UNKNOWN"}


def add_check_parser(commands: Any) -> None:
    """Add the ``check`` subcommand to ``commands`` (an argparse subparsers object)."""
    check = commands.add_parser("check", help="decide certificates from their content alone (the verifier); --reproduce also re-runs the prover",
                                description=" ".join(__doc__.split("\n\n")[1].split()))  # the exit codes, as above
    check.add_argument("certificates", nargs="+", metavar="CERT", help="certificate files (.cert.json) written by expmech certify, synth or account")
    check.add_argument("--max-epsilon", dest="max_epsilon", default=None, help="exit 0 only if the certified ε is <= this (p/q, or an expression in n; default: any ε)")
    check.add_argument("--trusted-key", dest="trusted_key", action="append", default=None,
                       help="Ed25519 PEM public key, repeatable (--trusted-key A --trusted-key B): only certificates signed by one of them are valid (default: signatures not required)")
    check.add_argument("--format", choices=("text", "json"), default="text", help="output on stdout: a line per certificate for people, or JSON with every check and claim")
    check.add_argument("--reproduce", action="store_true", help="also re-run the prover on each certificate's inputs and require the same statement (reproducibility; the verdict's soundness never rests on it)")
    check.add_argument("--budget", type=bounded_int(1), default=None, help="with --reproduce: refuse a re-derivation estimated above this many MB of memory (default 8192)")
    check.add_argument("--max-bytes", dest="max_bytes", type=bounded_int(1), default=None, help="refuse certificates larger than this (default 1 MiB)")
    check.add_argument("--limit", action="append", metavar="NAME=VALUE",
                       help="raise (or lower) one input limit, e.g. max_outputs=1000000 for a large certificate you trust; repeatable (--limit A=1 --limit B=2; "
                       "default: the limits listed in the documentation's limits reference)")


def main_check(argv: Sequence[str]) -> int:
    """``expmech check`` on its own: parse ``argv`` (after ``check``) and run, without the other subcommands."""
    parser = Parser(prog="expmech")
    add_check_parser(parser.add_subparsers(dest="command", required=True))
    try:
        return run_check(parser.parse_args(["check", *argv]))
    except ParserError as error:
        print(str(error), file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help
        return 2 if exit_.code not in (0, None) else 0
    except BrokenPipeError:
        return 141
    except KeyboardInterrupt:
        print("expmech check: interrupted", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - exit code 4, never a silent success
        print(f"expmech check: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 4


def run_check(args: argparse.Namespace) -> int:
    """Check every certificate named in ``args``; the exit code (see the module docstring)."""
    from .. import checker  # its signature half (securesystemslib) loads only for --trusted-key
    from ..checker._values import parse_value

    try:
        raised, others = {}, {}
        for text in args.limit or ():
            try:
                name, value = checker.parse_limit(text)
                raised[name] = value
            except ValueError:
                if not args.reproduce:
                    raise
                from ..certificate.format._limits import parse_limit as reproduce_limit

                name, value = reproduce_limit(text)
                others[name] = value
        raised.update({"max_bytes": args.max_bytes} if args.max_bytes is not None else {})
        others.update({"max_memory_mb": args.budget} if args.budget is not None else {})
        if args.trusted_key:  # the signature half of the verifier, loaded for trusted keys only
            from ..checker.signature import load_trusted_key
        keys: list[Any] = [load_trusted_key(path) for path in args.trusted_key or ()]
        if args.max_epsilon is not None:
            try:
                if len(args.max_epsilon) > 200 or not set(args.max_epsilon) <= set("0123456789n+-*/() "):
                    raise ValueError("integers, n, + - * / and parentheses only")
                parse_value(args.max_epsilon, checker.Reader({"n"}))
            except ValueError as error:
                raise ValueError(f"--max-epsilon={args.max_epsilon!r} must be a rational >= 0 or an expression in n ({error})") from None
    except Exception as error:  # noqa: BLE001 - a usage error, named: exit 2
        print(f"expmech check: {error}", file=sys.stderr)
        return 2
    codes: list[int] = []
    documents: list[dict[str, Any]] = []
    for item in args.certificates:
        try:
            if args.reproduce:
                from ..certificate import CertificateLimits, check_certificate

                report = check_certificate(item, trusted_keys=keys, max_epsilon=args.max_epsilon, limits=CertificateLimits(**raised, **others), reproduce=True)
            else:
                report = checker.verify(item, max_epsilon=args.max_epsilon, limits=checker.Limits(**raised), trusted_keys=keys)
        except Exception as error:  # noqa: BLE001 - a path that is not a readable file, named
            _other(item, 2, "REFUSED", str(error), args.format, codes, documents)
            continue
        if report.failed == "file" and "'composition'" in report.problems[0]:  # a composition certificate of expmech account
            from ._account import check_composition_file

            code, summary = check_composition_file(item, max_bytes=raised.get("max_bytes")) or (1, report.summary)
            _other(item, code, "OK" if code == 0 else "INVALID", summary, args.format, codes, documents)
            continue
        codes.append(report.exit_code)
        documents.append(report.to_json(item))
        if args.format == "text":
            _print(item, report)
    if args.format == "json":
        print(json.dumps({"certificates": documents}, indent=2, ensure_ascii=False))
    return next((code for code in (1, 2, 4, 3) if code in codes), 0)


def _other(item: str, code: int, outcome: str, summary: str, form: str, codes: list[int], documents: list[dict[str, Any]]) -> None:
    """Record a file the verifier's report does not describe: refused unread, or a composition certificate."""
    codes.append(code)
    documents.append({"certificate": item, "outcome": outcome, "exit_code": code, "summary": summary})
    if form == "text":
        print(f"{outcome:8} {item}: {summary}" + (f" (exit {code})" if outcome != "REFUSED" else ""))


def _print(item: str, report: Any) -> None:
    label, summary = _LABELS[report.outcome.name], report.summary
    if report.above_max_epsilon is not None:
        label, summary = "ABOVE", report.notes[0].replace("max_epsilon = ", "--max-epsilon ") + f" (status {report.status})"
    if summary.lower().startswith(f"{label.lower()}: "):
        summary = summary[len(label) + 2 :]
    print(f"{label:8} {item}: {summary} (exit {report.exit_code})")
    for note in report.notes[1:] if report.above_max_epsilon is not None else report.notes:
        if note.removeprefix(f"{report.outcome.value}: ") not in report.summary:
            print(f"         note: {note}")
    if report.ok:
        print(f"         verifier: {report.obligations} side conditions checked, {report.solver} of them by a solver")
