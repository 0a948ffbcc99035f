"""``expmech synth``: release a synthetic dataset for a CSV of bit records, with its usefulness and, on request, a certificate.

Reads records of k bits (0/1, comma separated; the first row is a header with
``--header``, or when it is not numeric — and then it says so), builds the
Blum–Ligett–Roth mechanism over synthetic datasets of m records with weight
``e^{q·ε·n/2}``, and releases one exact draw.  It prints
``Pr[max_h |Q_h(D) − Q_h(D̂)| >= α]`` exactly against δ, the source's
sufficient n and the same bound with km·ln 2 in place of km.  ``--plot``
adds that probability on prefixes of the data against the source's bound
``2^{km} e^{−αεn/4}`` (and the smallest n meeting δ).  ``--certificate``
proves ``GS_q <= 1/n`` with the prover, derives ε symbolically
(``(ε n/2)·2·(1/n) = ε``) and writes the certificate.

Every argument is checked before any work, the cost (multisets × queries ×
passes) is estimated up front and refused above ``--budget``, and files are
written atomically.
"""

from __future__ import annotations

import csv
import math
import random
import re
import secrets
import shlex
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from expmech.impl.internal import SyntheticDataMechanism, conjunctions, halfspaces
from expmech.spec import DATASET_SIZE, derive_epsilon
from expmech.spec.internal import readable

from ..certificate.make._build import certify
from .._inputlimits import InputRefused, read_limited_bytes
from ..certificate.format._limits import CertificateLimits, parse_limit
from ._check_flags import check_flags
from ._files import check_output_path, write_atomically
from ._progress import Progress
from ._synth_cost import estimate_cost
from ._values import UsageError, parse_epsilon, parse_rational

__all__ = ["SynthOptions", "parse_options", "read_bits", "run_synth"]

PREFIXES = 40
#: The largest input CSV read by default (``--max-bytes``): about 6 million records of 5 bits.
DEFAULT_MAX_INPUT_BYTES = 64 << 20
_INTEGER = re.compile(r"[+-]?\d+")


@dataclass(frozen=True)
class SynthOptions:
    """The validated arguments of ``expmech synth``."""

    input: Path
    m: int
    k: int | None
    epsilon: Fraction
    alpha: Fraction
    delta: Fraction
    queries: str
    seed: int | None
    pairs: int
    search_budget: int
    certificate: Path | None
    plot: Path | None
    header: bool
    budget: int
    limits: dict[str, int]
    max_bytes: int = DEFAULT_MAX_INPUT_BYTES


def _unit_interval(text: str, name: str) -> Fraction:
    value = parse_rational(text, name=f"--{name}", where="")
    if not 0 < value < 1:
        raise UsageError(f"--{name}={text} must be in (0, 1)", parameter=name, value=text)
    return value


def parse_options(args: Any) -> SynthOptions:
    """Check every argument before any work: ε > 0, α and δ in (0, 1), writable output paths, a readable input file."""
    epsilon = parse_epsilon(args.epsilon, name="--epsilon", where="")
    alpha, delta = _unit_interval(args.alpha, "alpha"), _unit_interval(args.delta, "delta")
    plot = check_output_path(args.plot, name="plot", suffixes=(".png", ".svg", ".pdf")) if args.plot is not None else None
    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise UsageError("--plot needs matplotlib: pip install matplotlib", parameter="plot", value=args.plot) from None
    certificate = check_output_path(args.certificate, name="certificate") if args.certificate is not None else None
    if plot is not None and certificate is not None and plot.resolve() == certificate.resolve():
        raise UsageError(f"--plot and --certificate are the same file {args.plot!r}", parameter="plot", value=args.plot)
    source = Path(args.input)
    if not source.exists():
        raise UsageError(f"input={args.input!r} does not exist", parameter="input", value=args.input)
    if not source.is_file():
        raise UsageError(f"input={args.input!r} is not a file", parameter="input", value=args.input)
    limits = dict(parse_limit(text) for text in getattr(args, "limit", None) or ())
    if limits and certificate is None:
        raise UsageError(f"--limit={args.limit[0]!r} bounds the certificate's checks: it needs --certificate PATH", parameter="limit", value=args.limit[0])
    return SynthOptions(
        source, args.m, args.k, epsilon, alpha, delta, args.queries, args.seed, args.pairs, args.search_budget,
        certificate, plot, args.header, args.budget, limits, getattr(args, "max_bytes", None) or DEFAULT_MAX_INPUT_BYTES,
    )


def read_bits(path: Path, k: int | None, *, header: bool = False, max_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> tuple[list[tuple[int, ...]], int, str | None]:
    """Bit records from a UTF-8 CSV file, the width k, and the header row if one was skipped.

    The first row is a header with ``header=True``, or when it is not numeric
    (detected, and returned so the caller can say so); a numeric row that is
    not all bits is an error, never a header.  Errors name the line and value.
    """
    try:
        text = read_limited_bytes(path, max_bytes=max_bytes, what="input").decode("utf-8-sig")
    except InputRefused as error:
        if error.parameter == "max_bytes":
            raise UsageError(f"input={str(path)!r} has {error.value:,} bytes, more than --max-bytes={max_bytes:,}; it was not read", parameter="max_bytes", value=error.value) from None
        raise UsageError(f"input={str(path)!r} cannot be read: {error}", parameter="input", value=str(path)) from None
    except UnicodeDecodeError as error:
        raise UsageError(f"input={str(path)!r} is not UTF-8 text (byte {error.start})", parameter="input", value=str(path)) from None
    except OSError as error:
        raise UsageError(f"input={str(path)!r} cannot be read: {error.strerror or error}", parameter="input", value=str(path)) from None
    try:
        parsed = list(csv.reader(text.splitlines()))
    except csv.Error as error:
        raise UsageError(f"input={str(path)!r} is not CSV: {error}", parameter="input", value=str(path)) from None
    rows = [(number, [cell.strip() for cell in row]) for number, row in enumerate(parsed, start=1) if any(cell.strip() for cell in row)]
    skipped = None
    if rows and (header or not all(_INTEGER.fullmatch(cell) for cell in rows[0][1])):
        skipped = ",".join(rows[0][1])
        rows = rows[1:]
    if not rows:
        raise UsageError(f"input={str(path)!r} has no records", parameter="input", value=str(path))
    width = len(rows[0][1])
    if k is not None and k != width:
        raise UsageError(f"--k={k} does not match the {width} columns of {str(path)!r} (line {rows[0][0]})", parameter="k", value=k)
    data = []
    for number, row in rows:
        if len(row) != width or any(cell not in ("0", "1") for cell in row):
            shown = ",".join(row)
            raise UsageError(f"input {str(path)!r} line {number}: {shown!r} must be {width} bits 0/1", parameter="input", value=shown)
        data.append(tuple(int(cell) for cell in row))
    return data, width, skipped


def _prefix_sizes(n: int) -> list[int]:
    step = max(1, n // PREFIXES)
    return sorted(set(range(1, n + 1, step)) | {n})


def run_synth(args: Any, out: Any = None, err: Any = None) -> int:
    """Run ``expmech synth`` with parsed ``args``, printing to ``out`` (default: the current stdout); return the exit code."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    options = parse_options(args)
    data, k, header = read_bits(options.input, options.k, header=options.header, max_bytes=options.max_bytes)
    if options.queries == "halfspaces" and k < 2:
        raise UsageError(f"--queries=halfspaces needs records of k >= 2 bits; {str(options.input)!r} has {k}", parameter="queries", value=options.queries)
    n = len(data)
    prefixes = _prefix_sizes(n) if options.plot is not None else []
    cost = estimate_cost(k=k, m=options.m, queries=options.queries, prefixes=len(prefixes), certificate=options.certificate is not None)
    if cost.units is None:
        raise UsageError(
            f"the estimated cost, {cost.text()}, is beyond any budget: lower --m, or use records of fewer bits",
            parameter="m",
            value=options.m,
        )
    if cost.units > options.budget:
        raise UsageError(
            f"the estimated cost, {cost.text()}, exceeds --budget={options.budget:,}; to proceed, rerun with "
            f"--budget {cost.units} (or lower --m, or drop --plot or --certificate)",
            parameter="budget",
            value=options.budget,
        )
    if header is not None and not options.header:
        print(f"expmech synth: the first row {header!r} is not numeric: read as a header (--header says so explicitly)", file=err)
    print(f"expmech synth: cost {cost.text()}", file=err)
    steps = 3 + len(prefixes) + (1 if options.certificate is not None else 0)
    with Progress(steps, "synth") as progress:
        return _release(options, data, k, prefixes, progress, out)


def _release(options: SynthOptions, data: list[tuple[int, ...]], k: int, prefixes: list[int], progress: Progress, out: Any) -> int:
    queries = halfspaces(k) if options.queries == "halfspaces" else conjunctions(k)
    progress.step("exact q-levels")
    mech = SyntheticDataMechanism(data, k=k, m=options.m, epsilon=options.epsilon, queries=queries)
    n = mech.n
    mech.levels()
    print(f"data: n = {n} records of k = {k} bits; |H| = {len(queries)} {options.queries}; synthetic size m = {options.m}", file=out)
    symbolic = str(derive_epsilon(sympy.Symbol("epsilon", positive=True) * DATASET_SIZE / 2, 1 / DATASET_SIZE)).replace("epsilon", "ε")
    certificate = None
    if options.certificate is not None:
        progress.step("proving GS_q <= 1/n and building the certificate")
        certificate = certify(
            mech.quality_function(),
            epsilon=mech.exponent_scale,
            neighbours="replace-one",
            claimed=1 / DATASET_SIZE,
            outputs=mech.output_list(),
            base_measure=mech.base_measure(),
            pairs=options.pairs,
            search_budget=options.search_budget,
            limits=CertificateLimits(**options.limits),
        )
        print(f"sensitivity GS_q: {certificate.statement['predicate']['claims'][0]['status']} <= 1/n", file=out)
        if certificate.epsilon is None:
            print(f"certificate: {certificate.status} — no ε-DP claim", file=out)
        else:
            at_n = sympy.sympify(certificate.epsilon, locals={"n": DATASET_SIZE}).subs(DATASET_SIZE, n)
            print(
                f"certificate: {certificate.status}, ε = {certificate.epsilon} at ε₀ = εn/2 = {readable(mech.exponent_scale)}; "
                f"at n = {n}: ε = {at_n} (symbolically (ε·n/2)·2·(1/n) = {symbolic})",
                file=out,
            )
    else:
        print(
            f"privacy: ε = {readable(options.epsilon)} by the source's theorem (weight e^(q·ε·n/2) with GS_q <= 1/n: "
            f"(ε·n/2)·2·(1/n) = {symbolic}); not proved in this run: --certificate PATH proves GS_q <= 1/n and writes a certificate",
            file=out,
        )
    progress.step("exact usefulness")
    alpha, delta = options.alpha, options.delta
    bad = mech.probability_error_at_least(alpha)
    lo, hi = bad.enclose(40) if bad.sign() else (Fraction(0), Fraction(0))
    verdict = "<=" if bad <= delta else ">"
    print(
        f"Pr[max_h |Q_h(D) − Q_h(D̂)| >= α = {readable(alpha)}] = {float(hi):.6g} (exact, in [{float(lo):.6g}, {float(hi):.6g}]) "
        f"{verdict} δ = {readable(delta)}",
        file=out,
    )
    source_n = mech.source_sufficient_n(alpha, delta)
    tight_n = 4 / (float(options.epsilon) * float(alpha)) * (k * options.m * math.log(2) + math.log(1 / float(delta)))
    print(f"source's sufficient n = 4/(εα)(km + ln 1/δ) = {source_n:.1f}; with km·ln 2 (the union bound's true size) {tight_n:.1f}", file=out)
    curve = []
    smallest = None
    for size in prefixes:
        progress.step(f"prefix n = {size}")
        prefix = SyntheticDataMechanism(data[:size], k=k, m=options.m, epsilon=options.epsilon, queries=queries)
        probability = prefix.probability_error_at_least(alpha)
        curve.append((size, float(probability)))
        if smallest is None and probability <= delta:
            smallest = size
    if prefixes:
        if smallest is not None:
            print(f"exactly, on prefixes of the data, Pr[error >= α] <= δ first at n = {smallest} (the source asks for n >= {math.ceil(source_n)})", file=out)
        else:
            print(f"on prefixes of the data up to n = {n}, Pr[error >= α] stays above δ (the source asks for n >= {math.ceil(source_n)})", file=out)
    vc, exact = _vc_dimension(mech)
    if vc >= 1 and exact:
        bound = 2 * (math.e * options.m / vc) ** vc * math.exp(-float(alpha) ** 2 * options.m / 8)
        print(
            f"VCDim(H) = {vc}; uniform-convergence bound 2(em/VC)^VC e^(−α²m/8) at m = {options.m}: {bound:.4g}" + (" (vacuous: > 1)" if bound > 1 else ""),
            file=out,
        )
    elif vc >= 1:
        print(f"VCDim(H) >= {vc} (a larger shattered set was not searched for)", file=out)
    progress.step("one exact draw")
    rng: random.Random = random.Random(options.seed) if options.seed is not None else secrets.SystemRandom()
    released = mech.sample(rng=rng)
    if certificate is not None and options.certificate is not None:
        text = certificate.to_json()
        write_atomically(options.certificate, text)
        path = shlex.quote(str(options.certificate))
        flags = check_flags(text, certificate.statement, options.limits)
        print(f"certificate written to {options.certificate}; check it with: {' '.join(['expmech', 'check', path, *flags])}", file=out)
        again = check_flags(text, certificate.statement, options.limits, reproduce=True)
        if again != flags:  # a limit of the run's re-derivation only (the small-model budget, …): --reproduce reads it
            print(f"re-run the prover and the small-model check with: {' '.join(['expmech', 'check', '--reproduce', path, *again])}", file=out)
    if options.plot is not None:
        plot = options.plot
        write_atomically(plot, lambda scratch: _plot(curve, mech, alpha, scratch))
        print(f"plot written to {plot}", file=out)
    print("synthetic dataset:", file=out)
    for record in released:
        print(",".join(str(b) for b in record), file=out)
    return 0


def _vc_dimension(mech: SyntheticDataMechanism, limit: int = 6) -> tuple[int, bool]:
    """The largest shattered set of records, up to ``limit`` points (exact, vectorised in the mechanism),
    and whether that is the VC dimension exactly (no set one larger can be shattered, or none was)."""
    best = mech.vc_dimension(limit)
    exact = best < limit or best == len(mech.records) or 2 ** (best + 1) > len(mech.queries)
    return best, exact


def _plot(curve: list[tuple[int, float]], mech: SyntheticDataMechanism, alpha: Fraction, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [s for s, _ in curve]
    exact = [max(p, 1e-300) for _, p in curve]
    km = mech.k * mech.m
    bound = [min(1.0, 2.0**km * math.exp(-float(alpha) * float(mech.epsilon) * s / 4)) for s in sizes]
    figure, axis = plt.subplots(figsize=(7, 4), constrained_layout=True)
    axis.semilogy(sizes, exact, "o-", label="exact Pr[max_h error >= α]")
    axis.semilogy(sizes, bound, "--", label="source: 2^{km} e^{−αεn/4}")
    axis.set_xlabel("n (prefix of the data)")
    axis.set_ylabel("probability")
    axis.set_title(f"k = {mech.k}, m = {mech.m}, ε = {readable(mech.epsilon)}, α = {readable(alpha)}")
    axis.legend()
    figure.savefig(path, dpi=90)
    plt.close(figure)
