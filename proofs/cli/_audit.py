"""``expmech audit TARGET …``: audit samplers against expmech's exact laws.

A target is ``module:attr`` naming an :class:`~expmech.proofs.audit.AuditCase`,
an iterable of them, or a callable taking no arguments that returns either
(e.g. ``expmech.proofs.adapters:library_cases``).  Exit codes: 0 every sampler
CONSISTENT, 1 a sampler REJECTED or a library's promised ε exceeded exactly
(status VIOLATION), 2 a usage error or a sampler that could not be
audited (it raised, or returned a non-outcome), 4 internal error.

Cases run in parallel on a Dask ``LocalCluster`` over the machine's cores when
``distributed`` is installed (``--workers N``), on an existing cluster with
``--scheduler ADDRESS``, or one after another with ``--serial``; case ``i``
gets the seed ``--seed + i`` wherever it runs, and its verdict is printed on
stderr as it finishes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from expmech.spec import ExpMechError

from ._argtypes import bounded_int

if TYPE_CHECKING:  # the audit room (numpy, scipy) and the target loader are imported when the command runs
    from ..audit import AuditCase, AuditResult

__all__ = ["add_audit_parser", "load_cases", "run_audit"]


def load_cases(references: list[str]) -> list[AuditCase]:
    """The audit cases named by ``references`` (``module:attr``); :class:`UsageError` for anything else."""
    from ..audit import AuditCase
    from ._targets import _import, root_on_path
    from ._values import UsageError

    cases: list[AuditCase] = []
    for reference in references:
        with root_on_path(Path.cwd()):
            value, _ = _import(reference, reference, "target")
        if callable(value) and not isinstance(value, AuditCase):
            try:
                value = value()
            except ExpMechError as error:
                raise UsageError(f"target {reference!r}: {error}", parameter="target", value=reference) from None
        if isinstance(value, AuditCase):
            cases.append(value)
        elif isinstance(value, Iterable) and not isinstance(value, str | bytes):
            items = list(value)
            bad = [item for item in items if not isinstance(item, AuditCase)]
            if bad or not items:
                raise UsageError(
                    f"target {reference!r} must give AuditCase objects; got {type(bad[0]).__name__ if bad else 'none'}",
                    parameter="target",
                    value=reference,
                )
            cases.extend(items)
        else:
            raise UsageError(
                f"target {reference!r} is a {type(value).__name__}, not an AuditCase, a list of them or a callable "
                "returning them",
                parameter="target",
                value=reference,
            )
    return cases


def add_audit_parser(commands: Any) -> None:
    """Register the ``audit`` subcommand on an argparse subparsers object."""
    audit = commands.add_parser("audit", help="test samplers against the exact law they claim to sample")
    audit.add_argument("targets", nargs="+", help="module:attr naming an AuditCase, a list of them, or a callable returning them")
    audit.add_argument("--alpha", default="1/100", help="false-alarm rate α as p/q")
    audit.add_argument(
        "--max-draws", dest="max_draws", type=bounded_int(1), default=None,
        help="draws at most per sampler (default: from --detectable)",
    )
    audit.add_argument(
        "--detectable", default="1/50",
        help="target TV deviation p/q that the budget catches with power 0.8 (default 1/50)",
    )
    audit.add_argument("--privacy-draws", dest="privacy_draws", type=bounded_int(1), default=2_000, help="draws per dataset for the privacy bound")
    audit.add_argument("--power-replicates", dest="power_replicates", type=bounded_int(0), default=200, help="simulated runs per named alternative (0: skip)")
    audit.add_argument("--seed", type=int, default=0, help="seed of the campaign: case i gets seed + i (recorded in its result)")
    where = audit.add_mutually_exclusive_group()
    where.add_argument("--serial", action="store_true", help="run the cases one after another in this process")
    where.add_argument(
        "--scheduler", default=None, metavar="ADDRESS", help="run the cases on an existing Dask cluster (e.g. tcp://host:8786; default: a local cluster)"
    )
    audit.add_argument(
        "--workers", type=bounded_int(1), default=None,
        help="workers of the local Dask cluster (default: the machine's cores); the default runs cases in parallel "
        "when distributed is installed (pip install 'expmech[campaign]')",
    )
    audit.add_argument("--format", choices=("text", "json", "html"), default="text", help="format of the report")
    audit.add_argument("-o", "--output", default=None, help="write the report to this file (default: stdout)")


def _exit_code(results: list[AuditResult]) -> int:
    return 1 if any(r.rejected or r.violations for r in results) else 0


def _cluster(args: argparse.Namespace, cases: int) -> str:
    """Where the campaign runs: serial, a LocalCluster (the default when distributed is installed), or a scheduler."""
    import importlib.util

    if args.serial:
        return "serial"
    if args.scheduler is not None:
        return "scheduler"
    if importlib.util.find_spec("distributed") is None:
        if args.workers is not None:
            return "local"  # run_campaign raises MissingDependency naming the campaign extra
        print(
            f"expmech audit: distributed is not installed (pip install 'expmech[campaign]'); running {cases} case(s) serially",
            file=sys.stderr,
        )
        return "serial"
    return "local" if cases > 1 or args.workers is not None else "serial"


def run_audit(args: argparse.Namespace) -> int:
    """Run ``expmech audit`` for parsed ``args``; return the exit code."""
    from ..audit import SamplerError, render_html, render_json, render_text, run_campaign, verdict_line
    from .._files import write_atomically
    from ._progress import Progress

    from ._values import parse_rational

    try:
        alpha = parse_rational(args.alpha, name="--alpha", where="")
        detectable = parse_rational(args.detectable, name="--detectable", where="")
    except ExpMechError as error:
        print(f"expmech audit: {error}", file=sys.stderr)
        return 2
    if not 0 < alpha < 1:
        print(f"expmech audit: --alpha={args.alpha!r} must be a rational p/q in (0, 1)", file=sys.stderr)
        return 2
    if not 0 < detectable < Fraction(1, 2):
        print(f"expmech audit: --detectable={args.detectable!r} must be a TV distance in (0, 1/2)", file=sys.stderr)
        return 2
    try:
        cases = load_cases(args.targets)
        cluster = _cluster(args, len(cases))
        options = {
            "alpha": alpha,
            "max_draws": args.max_draws,
            "detectable": detectable,
            "privacy_draws": args.privacy_draws,
            "power_replicates": args.power_replicates,
        }
        with Progress(len(cases), "audit", noun="cases") as progress:

            def finished(index: int, result: AuditResult) -> None:
                progress.step(cases[index].name)
                progress.finish()
                progress.print(verdict_line(result), file=sys.stderr)

            results = run_campaign(
                cases, options=options, seed=args.seed, cluster=cluster, scheduler=args.scheduler,
                workers=args.workers, on_result=finished,
            )
    except SamplerError as error:
        print(f"expmech audit: the sampler could not be audited: {error}", file=sys.stderr)
        return 2
    except ExpMechError as error:
        print(f"expmech audit: {error}", file=sys.stderr)
        return 2
    renderers = {"text": render_text, "json": render_json, "html": render_html}
    report = renderers[args.format](results)
    if args.output:
        write_atomically(Path(args.output), report)
        print(f"expmech audit: report written to {args.output}", file=sys.stderr)
    else:
        print(report)
    return _exit_code(results)
