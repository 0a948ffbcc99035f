"""Synthetic-data mechanism: time for the exact release at growing (k, m).

Run: ``python tests/benchmarks/bench_synthetic.py``.  Not collected by pytest.
For each (k, m): the number of multisets, the number of q-levels kept in
memory, and the seconds for one streamed pass (exact levels), the exact
Pr[error >= α], and one exact draw (a second streamed pass); halfspaces over a
{−1, 0, 1} grid, n = 50 random records, ε = 1, α = 1/4.  The certificate (z3
proof of GS_q <= 1/n) is timed separately for the smaller sizes.
"""

from __future__ import annotations

import random
import time
from math import comb

from expmech.impl._synthetic import SyntheticDataMechanism, halfspaces
from expmech.spec import DATASET_SIZE
from expmech.proofs import certify


def main() -> None:
    rng = random.Random(1)
    print("| k | m | multisets | levels | release s | certificate s |")
    print("|---:|---:|---:|---:|---:|---:|")
    for k, m in [(2, 4), (3, 4), (3, 6), (4, 4), (4, 6), (5, 4), (5, 5)]:
        data = [tuple(rng.randint(0, 1) for _ in range(k)) for _ in range(50)]
        start = time.perf_counter()
        mech = SyntheticDataMechanism(data, k=k, m=m, epsilon=1, queries=halfspaces(k))
        levels = mech.levels()
        float(mech.probability_error_at_least("1/4"))
        mech.sample(rng=rng)
        release = time.perf_counter() - start
        certificate_time = "—"
        if comb(2**k + m - 1, m) <= 5_000:
            start = time.perf_counter()
            cert = certify(mech.quality_function(), epsilon=mech.exponent_scale, neighbours="replace-one", claimed=1 / DATASET_SIZE,
                           outputs=mech.output_list(), base_measure=mech.base_measure(), pairs=2, search_budget=20_000)
            assert cert.epsilon is not None
            certificate_time = f"{time.perf_counter() - start:.2f}"
        print(f"| {k} | {m} | {comb(2**k + m - 1, m):,} | {len(levels)} | {release:.2f} | {certificate_time} |")


if __name__ == "__main__":
    main()
