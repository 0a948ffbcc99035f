"""The ``expmech`` command.

Exit codes: 0 verified, 1 violation, 2 usage or config error, 3 inconclusive,
4 internal error.  Machine output goes to stdout, progress to stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from fractions import Fraction

from expmech.impl import ExponentialMechanism

__all__ = ["main"]

EXIT_VERIFIED, EXIT_VIOLATION, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4


def _demo_median_quality(dataset: Sequence[int], r: int) -> Fraction:
    below = sum(1 for x in dataset if x < r)
    above = sum(1 for x in dataset if x > r)
    return -Fraction(abs(below - above), 2)


def _verify(args: argparse.Namespace) -> int:
    if args.targets:
        print("expmech verify: targets are not supported yet; only the built-in demo runs", file=sys.stderr)
        return EXIT_USAGE
    epsilon = Fraction(1, 2)
    mech = ExponentialMechanism(_demo_median_quality, epsilon=epsilon, outputs=range(8))
    d1, d2 = (1, 2, 2, 5, 6), (1, 2, 3, 5, 6)
    loss = mech.privacy_loss(d1, d2)
    bound = 2 * epsilon * Fraction(1, 2)
    verdict = "within" if loss <= bound else "EXCEEDS"
    print(
        f"median-rank (demo)  UNKNOWN  exact privacy loss on one neighbouring pair = {float(loss):.6f} "
        f"({verdict} 2·ε·Δq = {bound}); no sensitivity proof yet, so no ε-DP claim is made"
    )
    return EXIT_VIOLATION if verdict == "EXCEEDS" else EXIT_INCONCLUSIVE


def _spec(args: argparse.Namespace) -> int:
    from ._spec_report import render_json, render_text, spec_reports

    for name in ("instances", "attempts"):
        if getattr(args, name) < 1:
            print(f"expmech spec: --{name}={getattr(args, name)} must be >= 1", file=sys.stderr)
            return EXIT_USAGE
    reports = spec_reports(instances=args.instances, attempts=args.attempts, seed=args.seed)
    print(render_json(reports) if args.format == "json" else render_text(reports))
    return EXIT_VERIFIED if all(r.holds for r in reports) else EXIT_VIOLATION


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``expmech`` command with ``argv`` (default ``sys.argv[1:]``); return its exit code."""
    parser = argparse.ArgumentParser(prog="expmech", description="Verify the exponential mechanism exactly.")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="verify mechanisms (default: the built-in catalogue)")
    verify.add_argument("targets", nargs="*", help="module:attr or pyproject.toml")
    spec = commands.add_parser("spec", help="list every statement of the source with its status")
    spec.add_argument("--format", choices=("text", "json"), default="text")
    spec.add_argument("--instances", type=int, default=200, help="random instances per statement")
    spec.add_argument("--attempts", type=int, default=2000, help="draws per dropped-hypothesis search")
    spec.add_argument("--seed", type=int, default=0)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return EXIT_USAGE if exit_.code not in (0, None) else 0
    if args.command == "verify":
        return _verify(args)
    if args.command == "spec":
        return _spec(args)
    return EXIT_USAGE  # pragma: no cover - argparse enforces the choice


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
