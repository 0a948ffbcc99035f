"""The cost of an ``expmech synth`` run, estimated from k, m and the query class before any work.

The unit is one evaluation of one query on one synthetic multiset.  A pass
over the output space costs multisets × queries; a run makes two (the exact
q-levels and one draw) plus one per prefix of the data when plotting.  The
certificate's exact witness search and conformance are priced per multiset.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["CERTIFICATE_UNITS_PER_MULTISET", "DEFAULT_BUDGET", "Cost", "estimate_cost"]

DEFAULT_BUDGET = 10**8
# The certificate's exact witness search and conformance, vectorised, cost about as much per multiset as
# this many query evaluations (measured on 2 cores at (k, m) = (5, 4): ~3 s of CPU for 52,360 multisets,
# ~60 µs per multiset, against ~1 µs per evaluation), with some room to spare.
CERTIFICATE_UNITS_PER_MULTISET = 100


def _log10_comb(top: int, choose: int) -> float:
    """log10 of C(top, choose), accurate at any size (a sum of logs for a small side, lgamma otherwise)."""
    side = min(choose, top - choose)
    if side <= 100_000:
        return sum(math.log10((top - i) / (i + 1)) for i in range(side))
    return (math.lgamma(top + 1) - math.lgamma(choose + 1) - math.lgamma(top - choose + 1)) / math.log(10)


@dataclass(frozen=True)
class Cost:
    """The work ``expmech synth`` will do, in query evaluations: multisets × queries × passes (+ the certificate)."""

    multisets: int | None
    queries: int | None
    passes: int
    units: int | None
    log10_units: float
    certificate: int = 0

    def text(self) -> str:
        """``330 multisets × 9 queries × 2 passes = 5,940 evaluations`` (powers of ten when astronomical)."""
        if self.units is None:
            power = "more than 10^300" if self.log10_units > 300 else f"about 10^{self.log10_units:.0f}"
            return f"{power} evaluations (multisets × queries × {self.passes} passes)"
        work = f"{self.queries:,} queries × {self.passes} passes"
        if self.certificate:
            work = f"({work} + {self.certificate:,} for the certificate's exact search)"
        return f"{self.multisets:,} multisets × {work} = {self.units:,} evaluations"


def estimate_cost(*, k: int, m: int, queries: str, prefixes: int, certificate: bool) -> Cost:
    """The cost of a run before any of it is done, from k, m and the query class alone (exact when not astronomical)."""
    if k >= 1000:  # 2^k records: beyond any budget (and beyond float range)
        return Cost(None, None, 2 + prefixes, None, math.inf)
    log_multisets = _log10_comb(2**k + m - 1, m)
    log_queries = (k - 1) * math.log10(3) if queries == "halfspaces" else math.log10(max(1, k + k * (k - 1) // 2))
    passes = 2 + prefixes
    extra = CERTIFICATE_UNITS_PER_MULTISET if certificate else 0
    log_units = log_multisets + math.log10(10 ** min(log_queries, 300) * passes + extra)
    if log_units > 60:
        return Cost(None, None, passes, None, log_units)
    multisets = math.comb(2**k + m - 1, m)
    count = 3 ** (k - 1) if queries == "halfspaces" else k + k * (k - 1) // 2
    return Cost(multisets, count, passes, multisets * (count * passes + extra), log_units, extra)
