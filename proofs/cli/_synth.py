"""``expmech synth``: release a synthetic dataset for a CSV of bit records, with its certificate and usefulness.

Reads records of k bits (0/1, comma separated; a non-numeric first row is a
header), builds the Blum–Ligett–Roth mechanism over synthetic datasets of m
records with weight ``e^{q·ε·n/2}``, proves ``GS_q <= 1/n`` with the prover,
derives ε symbolically (``(ε n/2)·2·(1/n) = ε``), writes the certificate, and
releases one exact draw.  It prints ``Pr[max_h |Q_h(D) − Q_h(D̂)| >= α]``
exactly against δ, the source's sufficient n, the same bound with km·ln 2 in
place of km, and the smallest n (on prefixes of the data) at which the exact
probability is already below δ; ``--plot`` draws that error against n with the
source's bound ``2^{km} e^{−αεn/4}``.
"""

from __future__ import annotations

import csv
import math
import random
import secrets
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from expmech.impl._synthetic import SyntheticDataMechanism, conjunctions, halfspaces
from expmech.spec import DATASET_SIZE, InvalidArgument, derive_epsilon
from expmech.spec._serial import rational_from_text

from ..certificate._build import certify

__all__ = ["read_bits", "run_synth"]


def read_bits(path: Path, k: int | None) -> tuple[list[tuple[int, ...]], int]:
    """Bit records from a CSV file; errors name the row and the value."""
    try:
        rows = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    except FileNotFoundError:
        raise InvalidArgument(f"input={str(path)!r} does not exist", parameter="input", value=str(path)) from None
    rows = [[cell.strip() for cell in row] for row in rows if row and any(cell.strip() for cell in row)]
    if rows and not all(cell in ("0", "1") for cell in rows[0]):
        rows = rows[1:]  # a header
    if not rows:
        raise InvalidArgument(f"input={str(path)!r} has no records", parameter="input", value=str(path))
    width = len(rows[0]) if k is None else k
    data = []
    for number, row in enumerate(rows, start=1):
        if len(row) != width or any(cell not in ("0", "1") for cell in row):
            raise InvalidArgument(f"record {number} = {row!r} must be {width} bits 0/1", parameter="input", value=row)
        data.append(tuple(int(cell) for cell in row))
    return data, width


def _vc_dimension(mech: SyntheticDataMechanism, limit: int = 6) -> int:
    best = 0
    points = mech.records
    rows = [tuple(row) for row in mech._matrix]
    import itertools

    for size in range(1, min(limit, len(points)) + 1):
        shattered = False
        for subset in itertools.combinations(range(len(points)), size):
            patterns = {tuple(row[i] for i in subset) for row in rows}
            if len(patterns) == 2**size:
                shattered = True
                break
        if not shattered:
            break
        best = size
    return best


def run_synth(args: Any, out: Any = None) -> int:
    """Run ``expmech synth`` with parsed ``args``, printing to ``out`` (default: the current stdout); return the exit code."""
    out = sys.stdout if out is None else out
    data, k = read_bits(Path(args.input), args.k)
    epsilon = rational_from_text(args.epsilon, name="epsilon")
    alpha = rational_from_text(args.alpha, name="alpha")
    delta = rational_from_text(args.delta, name="delta")
    if not 0 < delta < 1 or alpha <= 0:
        raise InvalidArgument(f"--alpha={args.alpha} must be > 0 and --delta={args.delta} in (0, 1)", parameter="delta", value=args.delta)
    queries = halfspaces(k) if args.queries == "halfspaces" else conjunctions(k)
    mech = SyntheticDataMechanism(data, k=k, m=args.m, epsilon=epsilon, queries=queries)
    n = mech.n
    quality = mech.quality_function()
    outputs = mech.output_list()
    certificate = certify(
        quality,
        epsilon=mech.exponent_scale,
        neighbours="replace-one",
        claimed=1 / DATASET_SIZE,
        outputs=outputs,
        base_measure=mech.base_measure(),
        pairs=args.pairs,
        search_budget=args.search_budget,
    )
    symbolic = derive_epsilon(sympy.Symbol("epsilon", positive=True) * DATASET_SIZE / 2, 1 / DATASET_SIZE)
    print(f"data: n = {n} records of k = {k} bits; |H| = {len(queries)} {args.queries}; synthetic size m = {args.m}; {len(outputs)} multisets", file=out)
    print(f"sensitivity GS_q: {certificate.statement['predicate']['claims'][0]['status']} <= 1/n", file=out)
    if certificate.epsilon is None:
        print(f"certificate: {certificate.status} — no ε-DP claim", file=out)
    else:
        at_n = sympy.sympify(certificate.epsilon, locals={"n": DATASET_SIZE}).subs(DATASET_SIZE, n)
        print(f"certificate: {certificate.status}, ε = {certificate.epsilon} at ε₀ = εn/2 = {mech.exponent_scale}; at n = {n}: ε = {at_n} (symbolically (ε·n/2)·2·(1/n) = {symbolic})", file=out)
    if args.certificate:
        certificate.write(args.certificate)
        print(f"certificate written to {args.certificate}", file=out)
    bad = mech.probability_error_at_least(alpha)
    lo, hi = bad.enclose(40) if bad.sign() else (Fraction(0), Fraction(0))
    verdict = "<=" if bad <= delta else ">"
    print(f"Pr[max_h |Q_h(D) − Q_h(D̂)| >= α = {alpha}] = {float(hi):.6g} (exact, in [{float(lo):.6g}, {float(hi):.6g}]) {verdict} δ = {delta}", file=out)
    source_n = mech.source_sufficient_n(alpha, delta)
    tight_n = 4 / (float(epsilon) * float(alpha)) * (k * args.m * math.log(2) + math.log(1 / float(delta)))
    print(f"source's sufficient n = 4/(εα)(km + ln 1/δ) = {source_n:.1f}; with km·ln 2 (the union bound's true size) {tight_n:.1f}", file=out)
    smallest = None
    curve = []
    step = max(1, n // 40)
    for size in sorted(set(range(1, n + 1, step)) | {n}):
        prefix = SyntheticDataMechanism(data[:size], k=k, m=args.m, epsilon=epsilon, queries=queries)
        probability = prefix.probability_error_at_least(alpha)
        curve.append((size, float(probability)))
        if smallest is None and probability <= delta:
            smallest = size
    if smallest is not None:
        print(f"exactly, on prefixes of the data, Pr[error >= α] <= δ first at n = {smallest} (the source asks for n >= {math.ceil(source_n)})", file=out)
    else:
        print(f"on prefixes of the data up to n = {n}, Pr[error >= α] stays above δ (the source asks for n >= {math.ceil(source_n)})", file=out)
    vc = _vc_dimension(mech)
    if vc >= 1:
        bound = 2 * (math.e * args.m / vc) ** vc * math.exp(-float(alpha) ** 2 * args.m / 8)
        print(f"VCDim(H) = {vc}; uniform-convergence bound 2(em/VC)^VC e^(−α²m/8) at m = {args.m}: {bound:.4g}" + (" (vacuous: > 1)" if bound > 1 else ""), file=out)
    rng: random.Random = random.Random(args.seed) if args.seed is not None else secrets.SystemRandom()
    released = mech.sample(rng=rng)
    print("synthetic dataset:", file=out)
    for record in released:
        print(",".join(str(b) for b in record), file=out)
    if args.plot:
        _plot(curve, mech, alpha, Path(args.plot))
        print(f"plot written to {args.plot}", file=out)
    return 0


def _plot(curve: list[tuple[int, float]], mech: SyntheticDataMechanism, alpha: Fraction, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InvalidArgument("--plot needs matplotlib: pip install matplotlib", parameter="plot", value=str(path)) from None
    sizes = [s for s, _ in curve]
    exact = [max(p, 1e-300) for _, p in curve]
    km = mech.k * mech.m
    bound = [min(1.0, 2.0**km * math.exp(-float(alpha) * float(mech.epsilon) * s / 4)) for s in sizes]
    figure, axis = plt.subplots(figsize=(7, 4), constrained_layout=True)
    axis.semilogy(sizes, exact, "o-", label="exact Pr[max_h error >= α]")
    axis.semilogy(sizes, bound, "--", label="source: 2^{km} e^{−αεn/4}")
    axis.set_xlabel("n (prefix of the data)")
    axis.set_ylabel("probability")
    axis.set_title(f"k = {mech.k}, m = {mech.m}, ε = {mech.epsilon}, α = {alpha}")
    axis.legend()
    figure.savefig(path, dpi=90)
    plt.close(figure)
