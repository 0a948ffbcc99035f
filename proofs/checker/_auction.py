"""An auction's block as a certificate writes it (``options.auction``): prices, reports and ε₀, bound to the range."""

from __future__ import annotations

from typing import Any

from ._numbers import render_rational

__all__ = ["is_auction_of"]


def is_auction_of(auction: Any, quality: Any, rng: Any, epsilon0: Any) -> bool:
    """Whether ``auction`` is the block an auction over this quality and range records: its prices the listed
    outputs of the one output variable (in any order), its reports every value of the one bid field in increasing
    order, and ε₀ written as the mechanism's."""
    if not (isinstance(auction, dict) and set(auction) == {"prices", "reports", "epsilon0"} and auction["epsilon0"] == epsilon0
            and rng.kind == "finite" and len(quality.outputs) == 1 and len(quality.fields) == 1):
        return False
    (price, _), (_, domain) = quality.outputs[0], quality.fields[0]
    if domain.kind == "Grid":
        reports = list(domain.items)
    elif domain.kind == "IntRange" and domain.lo is not None and domain.hi is not None and domain.hi - domain.lo <= 10**6:
        reports = [domain.lo + k for k in range(int(domain.hi - domain.lo) + 1)]
    else:
        return False
    prices = auction["prices"]
    return (auction["reports"] == [render_rational(v) for v in reports] and isinstance(prices, list)
            and sorted(map(str, prices)) == sorted(render_rational(o[price]) for o in rng.outputs))
