"""Goodness-of-fit helpers for the sampler tests (test-side statistics only)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping

import mpmath


def chi_square_pvalue(counts: Counter[Hashable], probabilities: Mapping[Hashable, float]) -> float:
    """Pearson's chi-square p-value of ``counts`` against ``probabilities`` (cells with p > 0).

    A draw in a cell of probability 0 gives p-value 0.
    """
    total = sum(counts.values())
    statistic = 0.0
    cells = 0
    for key, p in probabilities.items():
        observed = counts.get(key, 0)
        if p == 0:
            if observed:
                return 0.0
            continue
        expected = total * p
        statistic += (observed - expected) ** 2 / expected
        cells += 1
    if any(key not in probabilities for key in counts):
        return 0.0
    degrees = max(cells - 1, 1)
    return float(mpmath.gammainc(degrees / 2, statistic / 2, mpmath.inf, regularized=True))
