"""A posterior's range of θ as a certificate writes it: an ``interval`` inside θ's domain with a Beta(α, β) prior."""

from __future__ import annotations

from typing import Any

from ._domains import Domain, Range, need, number

__all__ = ["read_interval"]


def read_interval(data: Any, quality: Any, own: Domain, where: str) -> Range:
    """A posterior's θ range: ``lo < hi`` inside θ's domain, and a Beta(α, β) prior with integers α, β >= 1."""
    prior = data.get("prior")
    need(set(data) == {"kind", "lo", "hi", "prior"} and quality.likelihood and own.kind == "RationalRange", where, "an interval is a posterior's θ")
    lo, hi = number(data["lo"], where + ".lo"), number(data["hi"], where + ".hi")
    need(lo < hi and (own.lo is None or own.lo <= lo) and (own.hi is None or hi <= own.hi), where, "lo < hi inside θ's domain")
    need(isinstance(prior, dict) and set(prior) == {"kind", "alpha", "beta"} and prior["kind"] == "beta"
         and all(type(prior[p]) is int and prior[p] >= 1 for p in ("alpha", "beta")), where + ".prior", "a Beta(α, β) prior, integers >= 1")
    return Range("interval", domain=Domain("RationalRange", lo, hi), measure=prior)
