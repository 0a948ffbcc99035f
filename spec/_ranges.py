"""Base measures μ on continuous and countable output ranges.

The source defines the mechanism for any range R with a base measure μ and
requires ``∫ e^{ε q(d, r)} μ(r) dr`` to be finite.  Finite ranges carry μ as a
table (``base_measure=`` of :class:`~expmech.impl.ExponentialMechanism`); an
interval or an infinite set of integers carries one of these:

* :class:`PiecewiseDensity` — a density with rational breakpoints, constant and
  rational on each piece (``Lebesgue()`` is density 1 everywhere), for outputs
  in a :class:`~expmech.spec.RationalRange`;
* :class:`PiecewiseGeometric` — ``μ(k) = w_i · ρ_i^{k − a_i}`` on integer pieces,
  with rational weights ``w_i >= 0`` and ratios ``ρ_i > 0`` (``Counting()`` is
  ``μ(k) = 1``; ``Geometric(1/2)`` is ``μ(k) = 2^{−|k|}``), for outputs in an
  :class:`~expmech.spec.IntRange`.

Both are exact and rational, so every integral or series the mechanism needs
is a finite sum of exponentials with rational coefficients, and whether it is
finite is decided exactly.  Measures compare equal by their canonical text.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ._errors import InvalidArgument, InvalidType, describe
from ._validate import as_rational, nonnegative_rational, positive_rational

__all__ = [
    "BaseMeasure",
    "Counting",
    "Geometric",
    "Lebesgue",
    "PiecewiseDensity",
    "PiecewiseGeometric",
    "measure_from_json",
    "measure_to_json",
]


class BaseMeasure:
    """A base measure μ on an infinite or continuous range.

    ``kind`` is ``"continuous"`` (a density on the reals) or ``"countable"``
    (point masses on the integers).  Instances are immutable and compare equal
    by :meth:`describe`.
    """

    kind: str = ""

    def describe(self) -> str:
        """Canonical text of the measure."""
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, BaseMeasure) and other.describe() == self.describe()

    def __hash__(self) -> int:
        return hash(self.describe())

    def __repr__(self) -> str:
        return self.describe()


def _increasing(values: Any, name: str, *, integers: bool) -> tuple[Any, ...]:
    if isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
        raise InvalidType(f"{name}={describe(values)} must be a sequence", parameter=name, value=values)
    items: list[Any] = []
    for index, value in enumerate(values):
        if integers:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidType(f"{name}[{index}]={describe(value)} must be an int", parameter=name, value=value)
            items.append(int(value))
        else:
            items.append(as_rational(value, name=f"{name}[{index}]"))
    for index in range(1, len(items)):
        if items[index] <= items[index - 1]:
            raise InvalidArgument(
                f"{name}={describe(tuple(values))} must be strictly increasing", parameter=name, value=values
            )
    return tuple(items)


def _per_piece(values: Any, name: str, pieces: int, convert: Any) -> tuple[Fraction, ...]:
    if isinstance(values, str | bytes) or not hasattr(values, "__iter__"):
        raise InvalidType(f"{name}={describe(values)} must be a sequence", parameter=name, value=values)
    items = tuple(convert(v, name=f"{name}[{i}]") for i, v in enumerate(values))
    if len(items) != pieces:
        raise InvalidArgument(
            f"{name} has {len(items)} values; {pieces} pieces need one each (breakpoints + 1)", parameter=name, value=values
        )
    return items


class PiecewiseDensity(BaseMeasure):
    """A piecewise-constant density on the reals.

    ``breakpoints`` ``b_1 < … < b_m`` are rationals; ``densities`` has ``m + 1``
    rationals ``>= 0``: ``d_0`` on ``(−∞, b_1)``, ``d_i`` on ``[b_i, b_{i+1})``,
    ``d_m`` on ``[b_m, ∞)``.  μ(A) is ``∫_A d(r) dr``.  Raises
    :class:`~expmech.spec.InvalidArgument` naming the parameter for a bad
    value.

    >>> PiecewiseDensity((0, 1), (0, 2, 0)).density(Fraction(1, 2))
    Fraction(2, 1)
    """

    kind = "continuous"

    __slots__ = ("breakpoints", "densities")

    breakpoints: tuple[Fraction, ...]
    densities: tuple[Fraction, ...]

    def __init__(self, breakpoints: Any = (), densities: Any = (1,)) -> None:
        self.breakpoints = _increasing(breakpoints, "breakpoints", integers=False)
        self.densities = _per_piece(densities, "densities", len(self.breakpoints) + 1, nonnegative_rational)

    def density(self, r: Any) -> Fraction:
        """The density at ``r`` (right-continuous at each breakpoint)."""
        value = as_rational(r, name="r")
        index = sum(1 for b in self.breakpoints if b <= value)
        return self.densities[index]

    def describe(self) -> str:
        points = ", ".join(str(b) for b in self.breakpoints)
        values = ", ".join(str(d) for d in self.densities)
        return f"PiecewiseDensity(breakpoints=({points}), densities=({values}))"

    def __repr__(self) -> str:
        return "Lebesgue()" if self.breakpoints == () and self.densities == (1,) else self.describe()


class Lebesgue(PiecewiseDensity):
    """Lebesgue measure on the reals: density 1 everywhere (``μ([a, b]) = b − a``)."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__((), (1,))


class PiecewiseGeometric(BaseMeasure):
    """A measure on the integers, geometric on each piece: ``μ(k) = w_i · ρ_i^{k − a_i}``.

    ``breakpoints`` ``b_1 < … < b_m`` are ints; piece 0 is ``k <= b_1 − 1``
    (anchored at ``a_0 = b_1 − 1``, its largest integer; at 0 without
    breakpoints), piece ``i`` is ``b_i <= k <= b_{i+1} − 1`` (anchored at its
    smallest integer ``a_i = b_i``).  ``weights`` are rationals ``w_i >= 0`` (μ at
    the anchor), ``ratios`` rationals ``ρ_i > 0``; one of each per piece.
    Whether ``Σ_k μ(k) e^{ε q(d, k)}`` is finite depends on q as well and is
    decided by the mechanism.

    >>> Geometric(Fraction(1, 2)).value(-3)
    Fraction(1, 8)
    """

    kind = "countable"

    __slots__ = ("breakpoints", "weights", "ratios")

    breakpoints: tuple[int, ...]
    weights: tuple[Fraction, ...]
    ratios: tuple[Fraction, ...]

    def __init__(self, breakpoints: Any = (), weights: Any = (1,), ratios: Any = (1,)) -> None:
        self.breakpoints = _increasing(breakpoints, "breakpoints", integers=True)
        pieces = len(self.breakpoints) + 1
        self.weights = _per_piece(weights, "weights", pieces, nonnegative_rational)
        self.ratios = _per_piece(ratios, "ratios", pieces, positive_rational)

    def anchor(self, index: int) -> int:
        """The integer ``a_i`` at which piece ``index`` has weight ``w_i``."""
        if not self.breakpoints:
            return 0
        return self.breakpoints[0] - 1 if index == 0 else self.breakpoints[index - 1]

    def piece_of(self, k: int) -> int:
        """The index of the piece holding the integer ``k``."""
        return sum(1 for b in self.breakpoints if b <= k)

    def value(self, k: Any) -> Fraction:
        """``μ(k)`` exactly, for an integer ``k``."""
        if isinstance(k, bool) or not isinstance(k, int):
            raise InvalidType(f"k={describe(k)} must be an int", parameter="k", value=k)
        index = self.piece_of(k)
        return self.weights[index] * self.ratios[index] ** (k - self.anchor(index))

    def describe(self) -> str:
        points = ", ".join(str(b) for b in self.breakpoints)
        weights = ", ".join(str(w) for w in self.weights)
        ratios = ", ".join(str(r) for r in self.ratios)
        return f"PiecewiseGeometric(breakpoints=({points}), weights=({weights}), ratios=({ratios}))"

    def __repr__(self) -> str:
        return "Counting()" if self.breakpoints == () and self.weights == (1,) and self.ratios == (1,) else self.describe()


class Counting(PiecewiseGeometric):
    """Counting measure on the integers: ``μ(k) = 1``."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__((), (1,), (1,))


class Geometric(PiecewiseGeometric):
    """The two-sided geometric measure ``μ(k) = ratio^{|k − centre|}`` on the integers.

    ``ratio`` is a rational in ``(0, 1]`` (``Geometric(Fraction(1, 2))`` is
    ``2^{−|k|}``, summable on its own); ``centre`` an int.
    """

    __slots__ = ()

    def __init__(self, ratio: Any, *, centre: int = 0) -> None:
        rho = positive_rational(ratio, name="ratio")
        if rho > 1:
            raise InvalidArgument(f"ratio={describe(ratio)} must be in (0, 1]", parameter="ratio", value=ratio)
        if isinstance(centre, bool) or not isinstance(centre, int):
            raise InvalidType(f"centre={describe(centre)} must be an int", parameter="centre", value=centre)
        super().__init__((centre,), (rho, Fraction(1)), (1 / rho, rho))


def measure_to_json(measure: BaseMeasure) -> dict[str, Any]:
    """``measure`` as JSON data (rationals as ``"p/q"`` strings)."""
    from ._serial import rational_text

    if isinstance(measure, PiecewiseDensity):
        return {
            "kind": "PiecewiseDensity",
            "breakpoints": [rational_text(b) for b in measure.breakpoints],
            "densities": [rational_text(d) for d in measure.densities],
        }
    if isinstance(measure, PiecewiseGeometric):
        return {
            "kind": "PiecewiseGeometric",
            "breakpoints": list(measure.breakpoints),
            "weights": [rational_text(w) for w in measure.weights],
            "ratios": [rational_text(r) for r in measure.ratios],
        }
    raise InvalidType(f"measure={describe(measure)} is not a base measure", parameter="measure", value=measure)


def measure_from_json(data: Any) -> BaseMeasure:
    """The measure written by :func:`measure_to_json`; anything else is refused by name."""
    from ._serial import rational_from_text

    if not isinstance(data, dict):
        raise InvalidArgument(f"base_measure {describe(data)} must be an object", parameter="base_measure", value=data)
    kind = data.get("kind")
    if kind == "PiecewiseDensity":
        return PiecewiseDensity(
            tuple(rational_from_text(b, name="breakpoint") for b in data.get("breakpoints", ())),
            tuple(rational_from_text(d, name="density") for d in data.get("densities", ())),
        )
    if kind == "PiecewiseGeometric":
        return PiecewiseGeometric(
            tuple(data.get("breakpoints", ())),
            tuple(rational_from_text(w, name="weight") for w in data.get("weights", ())),
            tuple(rational_from_text(r, name="ratio") for r in data.get("ratios", ())),
        )
    raise InvalidArgument(f"unknown base measure kind {describe(kind)}", parameter="base_measure", value=kind)
