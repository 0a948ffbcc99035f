"""Domains, ranges and base measures as a certificate writes them, and the values they decode into codes: an int
(``{"integer": digits}`` past 2^53), ``{"rational": "p/q"}``, ``true``/``false`` (0/1), a category's label (its
index), a grid point.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ._formula import Var
from ._numbers import TooLarge, rational

__all__ = ["Domain", "Malformed", "Range", "integer", "need", "number", "read_domain", "read_measure"]


class Malformed(ValueError):
    """The certificate does not have the form the verifier reads: the message names the place."""


def need(condition: bool, where: str, what: str) -> None:
    """Raise :class:`Malformed` at ``where`` unless ``condition``."""
    if not condition:
        raise Malformed(f"{where}: {what}")


def number(text: Any, where: str) -> Fraction:
    """The rational text ``"p/q"`` at ``where``."""
    try:
        return rational(text, where)
    except TooLarge as error:
        raise Malformed(f"{where}: {error}") from None


def integer(value: Any, where: str) -> Fraction | None:
    """An integer written in a certificate: a JSON int, or ``{"integer": digits}`` past 2^53 (None stays None)."""
    if value is None:
        return None
    if isinstance(value, dict) and set(value) == {"integer"}:
        q = number(value["integer"], where)
        need(q.denominator == 1 and abs(q) >= 2**53, where, "an {'integer'} spelling is for an integer past 2**53")
        return q
    need(type(value) is int, where, "not an integer")
    return Fraction(value)


@dataclass(frozen=True)
class Domain:
    """A field's or output's domain: ``kind``, its ends, and its labels (Categories) or points (Grid)."""

    kind: str
    lo: Fraction | None = None
    hi: Fraction | None = None
    items: tuple[Any, ...] = ()

    @property
    def integer(self) -> bool:
        """Whether every code is an integer."""
        return self.kind in ("IntRange", "Booleans", "Categories") or (self.kind == "Grid" and all(p.denominator == 1 for p in self.items))

    def var(self, name: str) -> Var:
        """The variable of this domain's codes."""
        return Var(name, self.integer, self.lo, self.hi, self.items if self.kind == "Grid" else None)

    def code(self, value: Any, where: str) -> Fraction:
        """The code of a value written in a certificate; Malformed unless it is in the domain."""
        if self.kind in ("Booleans", "Categories"):
            need(isinstance(value, bool) if self.kind == "Booleans" else value in self.items and isinstance(value, str), where, "not a value of the domain")
            return Fraction(int(value) if self.kind == "Booleans" else self.items.index(value))
        code = number(value["rational"], where) if isinstance(value, dict) and set(value) == {"rational"} else integer(value, where)
        need(code is not None and (self.kind != "IntRange" or code.denominator == 1) and (self.lo is None or code >= self.lo)
             and (self.hi is None or code <= self.hi) and (self.kind != "Grid" or code in self.items), where, "not a value of the domain")
        return code  # type: ignore[return-value]


def read_domain(data: Any, where: str) -> Domain:
    """A domain written ``{"kind": …}``."""
    kind: Any = data.get("kind") if isinstance(data, dict) else None
    keys = {"IntRange": {"lo", "hi"}, "RationalRange": {"lo", "hi"}, "Booleans": set(), "Categories": {"labels"}, "Grid": {"points"}}.get(kind)  # type: ignore[arg-type]
    need(keys is not None and set(data) == {"kind", *keys}, where, "not a domain the verifier reads")
    if kind in ("IntRange", "RationalRange"):
        lo, hi = ((integer if kind == "IntRange" else lambda v, w: None if v is None else number(v, w))(data[e], f"{where}.{e}") for e in ("lo", "hi"))
        need(lo is None or hi is None or lo <= hi, where, "lo > hi")
        return Domain(kind, lo, hi)
    if kind == "Booleans":
        return Domain(kind, Fraction(0), Fraction(1))
    items = data["labels" if kind == "Categories" else "points"]
    need(isinstance(items, list) and bool(items), where, "needs labels or points")
    if kind == "Categories":
        need(all(isinstance(x, str) for x in items) and len(set(items)) == len(items), where, "labels must be distinct strings")
        return Domain(kind, Fraction(0), Fraction(len(items) - 1), tuple(items))
    points = tuple(number(p, f"{where}.points") for p in items)
    need(list(points) == sorted(set(points)), where, "grid points must be increasing")
    return Domain(kind, points[0], points[-1], points)


@dataclass(frozen=True)
class Range:
    """The range: ``finite`` (outputs listed, μ of each), ``interval`` (a posterior's θ, Beta prior), or a whole
    ``RationalRange``/``IntRange`` with a piecewise ``measure`` (breakpoints, densities or weights and ratios)."""

    kind: str
    outputs: tuple[dict[str, Fraction], ...] = ()
    weights: tuple[Fraction, ...] = ()
    domain: Domain | None = None
    measure: dict[str, Any] | None = None


def read_measure(data: Any, kind: str, where: str) -> dict[str, Any]:
    """A ``PiecewiseDensity`` (reals) or ``PiecewiseGeometric`` (integers): breakpoints and one rational per piece each."""
    per = ("densities",) if kind == "RationalRange" else ("weights", "ratios")
    need(isinstance(data, dict) and set(data) == {"kind", "breakpoints", *per} and data["kind"] == ("PiecewiseDensity" if kind == "RationalRange" else "PiecewiseGeometric")
         and isinstance(data["breakpoints"], list), where, f"a {'PiecewiseDensity' if kind == 'RationalRange' else 'PiecewiseGeometric'}")
    points = [number(b, where) if kind == "RationalRange" else integer(b, where) for b in data["breakpoints"]]
    need(points == sorted(set(points)), where, "breakpoints must be increasing")  # type: ignore[type-var]
    out: dict[str, Any] = {"breakpoints": points}
    for name in per:
        need(isinstance(data[name], list) and len(data[name]) == len(points) + 1, where, f"one of {name} per piece")
        out[name] = [number(t, f"{where}.{name}") for t in data[name]]
        need(all(v > 0 if name == "ratios" else v >= 0 for v in out[name]), where, f"{name} must be >= 0 (ratios > 0)")
    return out
