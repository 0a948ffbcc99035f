"""Privacy curves of compositions: δ(ε) and ε(δ) as exact enclosures.

Four families, each a frozen object answering ``delta(epsilon)`` and
``epsilon(delta)`` with an :class:`~expmech.proofs.accounting.Enclosure`
``[lower, upper]`` whose upper end is the sound value:

* :class:`OptimalComposition` — non-adaptive composition of η-bounded-range
  mechanisms.  Homogeneous (one η): the exact optimum of Dong–Durfee–Rogers
  (2020), enclosed to relative width 1e-10.  Heterogeneous: δ(ε) of at most two
  mechanisms is the exact optimum too, certified to relative width 1e-9 by branch
  and bound over both windows (:mod:`._windows`; :meth:`OptimalComposition.delta_case`
  says ``"exact"`` where the search reaches that width within its box budget).
  Otherwise a sound bound (``"bound"``): upper = the least of the
  homogeneous optimum at ``max η``, the adaptive bound and the zCDP bound; lower =
  the largest of: the homogeneous optimum of a sub-family (each group alone, and all
  k at ``min η``); for at most 3 groups and 40,000 count vectors, the exact δ of the
  best two-outcome pair family a float search finds (:mod:`._heterogeneous`).
* :class:`AdaptiveComposition` — adaptive composition (and peeling top-k):
  the moment bound on the worst two-outcome pair (Dong–Durfee–Rogers 2020's
  reduction), the Azuma bound of Durfee–Rogers (2019), the zCDP bound and pure
  ``Σ η``, whichever is least (each named by ``bounds_delta``/``bounds_epsilon``);
  lower = the non-adaptive lower end (adaptive is no better).
* :class:`ZCDPComposition` — ρ-zCDP (ρ = Σ ρᵢ) converted to (ε, δ).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from flint import arb

from expmech.spec import InvalidArgument
from expmech.spec.internal import describe
from expmech.spec.internal import as_rational, positive_rational, positive_rational_input

from ._balls import RELATIVE_WIDTH, Enclosure, ball, endpoints, finite_ends, refine
from ._optimal import FLOAT_FAILURES, MAX_TIMES, optimal_delta, optimal_delta_float
from ._heterogeneous import pair_family_lower
from ._windows import heterogeneous_windows
from ._moments import moment_delta, moment_epsilon
from ._zcdp import zcdp_delta, zcdp_epsilon

__all__ = [
    "AdaptiveComposition",
    "OptimalComposition",
    "ZCDPComposition",
    "brief_components",
    "peeling_top_k",
]


def _times(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)
    return value


def brief_components(components: Sequence[tuple[Any, Any]]) -> tuple[tuple[Fraction, int], ...]:
    """Validate ``[(eta, times), …]``: each η a rational > 0, each times an int >= 1; merge equal η."""
    if isinstance(components, str | bytes) or not components:
        raise InvalidArgument(f"components={describe(components)} must be a non-empty list of (eta, times)", parameter="components", value=components)
    merged: dict[Fraction, int] = {}
    for item in components:
        if not isinstance(item, tuple | list) or len(item) != 2:
            raise InvalidArgument(f"components item {describe(item)} must be a pair (eta, times)", parameter="components", value=item)
        eta = positive_rational(item[0], name="eta")
        merged[eta] = merged.get(eta, 0) + _times(item[1], "times")
    return tuple(sorted(merged.items()))


def _epsilon_arg(epsilon: Any) -> Fraction:
    return positive_rational_input(epsilon, name="epsilon")


def _delta_arg(delta: Any) -> Fraction:
    value = as_rational(delta, name="delta")
    if not 0 < value < 1:
        raise InvalidArgument(f"delta={describe(delta)} must be in (0, 1)", parameter="delta", value=delta)
    return value


def _rational_near(value: float) -> Fraction:
    return Fraction(value).limit_denominator(10**15) if value > 0 else Fraction(0)


@dataclass(frozen=True)
class _Curve:
    components: tuple[tuple[Fraction, int], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "components", brief_components(self.components))

    @property
    def total_eta(self) -> Fraction:
        """``Σ ηᵢ``: every η-BR mechanism is η-DP, so δ = 0 from here on."""
        return sum((eta * k for eta, k in self.components), Fraction(0))

    @property
    def rho(self) -> Fraction:
        """``Σ ηᵢ² / 8``, the zCDP of the composition (Cesar–Rogers 2021)."""
        return sum((eta * eta * k / 8 for eta, k in self.components), Fraction(0))

    def delta(self, epsilon: Any) -> Enclosure:
        """An enclosure of δ(ε) for ``epsilon > 0`` (rational); ``upper`` is the sound value."""
        eps = _epsilon_arg(epsilon)
        if eps >= self.total_eta:
            return Enclosure(Fraction(0), Fraction(0))
        return self._delta(eps)

    def _delta(self, epsilon: Fraction, hint: int | None = None) -> Enclosure:
        raise NotImplementedError

    def _guess(self, delta: float) -> tuple[float, int | None]:
        """A float estimate of ε(δ) and a hint for the exact evaluation (a filter: re-checked exactly)."""
        raise NotImplementedError

    def epsilon(self, delta: Any) -> Enclosure:
        """An enclosure of ε(δ) = inf{ε >= 0 : δ(ε) <= δ} for ``0 < delta < 1``; ``upper`` is the sound value.

        δ(ε) is non-increasing in ε (each hockey-stick divergence is), so
        ``delta(hi).upper <= δ`` proves ε(δ) <= hi and ``delta(lo).lower > δ``
        proves ε(δ) >= lo.  A float guess brackets first; exact bisection
        follows where the bracket fails.
        """
        target = _delta_arg(delta)
        top = self.total_eta
        try:  # a float guess only: past float64 (δ below 1e-308, ε or η past 1e308) the exact bisection decides
            guess, hint = self._guess(float(target))
            _rational_near(guess * 2)
        except FLOAT_FAILURES:
            guess, hint = 0.0, None
        for rel in (1e-11, 1e-10, 3e-10):
            hi = min(_rational_near(guess * (1 + rel)), top)
            lo = _rational_near(guess * (1 - rel))
            if (
                hi > 0
                and (hi == top or self._delta(hi, hint).upper <= target)
                and lo > 0
                and self._delta(lo, hint).lower > target
            ):
                if hi - lo <= RELATIVE_WIDTH * 10 * lo:
                    return Enclosure(lo, hi)
        return self._bisect(target)

    def _bisect(self, target: Fraction) -> Enclosure:
        lo, hi = Fraction(0), self.total_eta
        while True:
            if lo > 0 and hi - lo <= RELATIVE_WIDTH * 10 * lo:
                return Enclosure(lo, hi)
            if lo == 0 and hi < Fraction(1, 10**40):
                return Enclosure(Fraction(0), hi)
            mid = (lo + hi) / 2
            mid = Fraction(mid).limit_denominator(max(10**12, 10 * mid.denominator // 2**8 or 1)) if mid.denominator > 2**200 else mid
            value = self.delta(mid)
            if value.upper <= target:
                hi = mid
            elif value.lower > target:
                lo = mid
            else:  # δ(mid) within its enclosure of the target: both sides are close
                return Enclosure(lo, hi) if lo > 0 else Enclosure(Fraction(0), hi)


@dataclass(frozen=True)
class ZCDPComposition(_Curve):
    """The composition as ρ-zCDP, ρ = Σ ηᵢ²/8 (η-BR ⇒ η²/8-zCDP, Cesar–Rogers 2021), converted to (ε, δ).

    The conversion is the least of Bun–Steinke (2016, Prop. 1.3)
    ``δ = exp(−(ε − ρ)²/(4ρ))`` and Canonne–Kamath–Steinke (2020, Prop. 12 with
    RDP ``αρ``) ``δ = exp((α−1)(αρ − ε))/α · (1 − 1/α)^{α−1}`` at a rational
    ``α > 1`` chosen numerically; each is a sound bound at every α, and the
    enclosure is of that least value.
    """

    def _delta(self, epsilon: Fraction, hint: int | None = None) -> Enclosure:
        return zcdp_delta(self.rho, epsilon)

    def epsilon(self, delta: Any) -> Enclosure:
        """ε(δ) of the zCDP conversion (closed form at the chosen α), enclosed; capped at Σ η."""
        target = _delta_arg(delta)
        value = zcdp_epsilon(self.rho, target)
        return value if value.upper <= self.total_eta else Enclosure(min(value.lower, self.total_eta), self.total_eta)

    def _guess(self, delta: float) -> tuple[float, int | None]:  # pragma: no cover - epsilon() is closed form
        return float(self.epsilon(delta).upper), None


def _kl_bound(eta: Fraction) -> arb:
    """The largest KL divergence (mean privacy loss) of an η-BR pair, Durfee–Rogers (2019).

    ``η/(1 − e^{−η}) − 1 − ln(η/(1 − e^{−η}))``: the mean ``t + pη`` of the
    two-outcome pair, maximised at ``e^{t+η} = (e^η − 1)/η``.
    """
    x = ball(eta) / (-(-ball(eta)).expm1())
    return x - 1 - x.log()


#: Names of the adaptive bounds, as :meth:`AdaptiveComposition.bounds_delta` reports them.
MOMENT, AZUMA, ZCDP, PURE = "moment", "azuma", "zcdp", "pure"


@dataclass(frozen=True)
class AdaptiveComposition(_Curve):
    """A sound bound on adaptive composition of η-BR mechanisms (and peeling top-k).

    The upper end is the least of four sound bounds (:meth:`bounds_delta` names each):

    * ``moment``: the Chernoff bound on the exact moment of the worst two-outcome
      BR pair, from the reduction of Dong–Durfee–Rogers (2020) (:mod:`._moments`);
    * ``azuma``: each loss term (given the past) lies in a window of width ηᵢ with
      mean at most ``m(ηᵢ)`` (:func:`_kl_bound`), so Azuma–Hoeffding gives
      ``P[L > Σm + a] <= exp(−2a²/Σηᵢ²)`` (Durfee–Rogers 2019, Thm. 3);
    * ``zcdp``: the zCDP bound (zCDP composes adaptively);
    * ``pure``: 0 from ``ε >= Σ η``.

    The lower end is the non-adaptive one (adaptive is no better).
    """

    def _azuma_ends(self, epsilon: Fraction) -> tuple[Fraction, Fraction]:
        mean = sum((k * _kl_bound(eta) for eta, k in self.components), arb(0))
        spread = sum((ball(eta * eta * k) for eta, k in self.components), arb(0))
        gap = ball(epsilon) - mean
        if not gap > 0:
            return Fraction(1), Fraction(1)
        return endpoints((-2 * gap * gap / spread).exp())

    def bounds_delta(self, epsilon: Any) -> dict[str, Fraction]:
        """Each sound bound's upper end on δ(ε), by name (``moment``, ``azuma``, ``zcdp``, ``pure``)."""
        eps = _epsilon_arg(epsilon)
        return {
            MOMENT: moment_delta(self.components, eps).upper,
            AZUMA: refine(lambda: self._azuma_ends(eps), "the adaptive bound").upper,
            ZCDP: zcdp_delta(self.rho, eps).upper,
            PURE: Fraction(0) if eps >= self.total_eta else Fraction(1),
        }

    def bounds_epsilon(self, delta: Any) -> dict[str, Fraction]:
        """Each sound bound's upper end on ε(δ), by name (``moment``, ``azuma``, ``zcdp``, ``pure``)."""
        target = _delta_arg(delta)

        def azuma_value() -> arb:
            mean = sum((k * _kl_bound(eta) for eta, k in self.components), arb(0))
            spread = sum((ball(eta * eta * k) for eta, k in self.components), arb(0))
            return mean + (spread * (1 / ball(target)).log() / 2).sqrt()

        azuma = finite_ends(azuma_value, "the Azuma bound's epsilon")[1]
        return {
            MOMENT: moment_epsilon(self.components, target),
            AZUMA: azuma,
            ZCDP: zcdp_epsilon(self.rho, target).upper,
            PURE: self.total_eta,
        }

    def _upper(self, epsilon: Fraction) -> Fraction:
        return min(self.bounds_delta(epsilon).values())

    def _delta(self, epsilon: Fraction, hint: int | None = None) -> Enclosure:
        upper = self._upper(epsilon)
        lower = _lower_delta(self.components, epsilon)
        return Enclosure(min(lower, upper), upper)

    def _guess(self, delta: float) -> tuple[float, int | None]:  # pragma: no cover - epsilon() is closed form
        return float(self._upper_epsilon(Fraction(delta))), None

    def _upper_epsilon(self, target: Fraction) -> Fraction:
        return min(self.bounds_epsilon(target).values())

    def epsilon(self, delta: Any) -> Enclosure:
        """ε(δ): the upper end from the closed forms, the lower end from the non-adaptive curve."""
        target = _delta_arg(delta)
        upper = self._upper_epsilon(target)
        lower = _lower_epsilon(self.components, target)
        return Enclosure(min(lower, upper), upper)


def _lower_delta(components: tuple[tuple[Fraction, int], ...], epsilon: Fraction) -> Fraction:
    """A proved lower bound on the optimal non-adaptive δ(ε): the largest optimum of a homogeneous sub-family."""
    etas = [eta for eta, _ in components]
    total = sum(k for _, k in components)
    families = [f for f in dict.fromkeys([(min(etas), total), *components]) if f[1] <= MAX_TIMES]  # 0 is a lower bound too
    return max((optimal_delta(epsilon, eta, k).lower if epsilon < eta * k else Fraction(0) for eta, k in families), default=Fraction(0))


def _lower_epsilon(components: tuple[tuple[Fraction, int], ...], target: Fraction) -> Fraction:
    """A proved lower bound on the optimal non-adaptive ε(δ), from the same sub-families."""
    etas = [eta for eta, _ in components]
    total = sum(k for _, k in components)
    families = [f for f in dict.fromkeys([(min(etas), total), *components]) if f[1] <= MAX_TIMES]
    return max((OptimalComposition(((eta, k),)).epsilon(target).lower for eta, k in families), default=Fraction(0))


@dataclass(frozen=True)
class OptimalComposition(_Curve):
    """Non-adaptive composition of η-BR mechanisms, ``components = ((η, k), …)``.

    One η: the exact optimum (Dong–Durfee–Rogers 2020), ``exact`` is True.
    Several: a sound enclosure of the optimum, ``exact`` is False (see the
    module docstring for its two ends); :meth:`delta_case` says where δ(ε) is
    nevertheless exact (at most two mechanisms).
    """

    def __post_init__(self) -> None:
        super().__post_init__()
        total = sum(k for _, k in self.components)
        if total > MAX_TIMES:
            raise InvalidArgument(
                f"times={total} is above the budget of {MAX_TIMES} mechanisms for the optimal curve "
                "(use the adaptive or zCDP curve)",
                parameter="times",
                value=total,
            )

    @property
    def exact(self) -> bool:
        """Whether the enclosure is of the exact optimum (one η) rather than a sound bound."""
        return len(self.components) == 1

    def _delta(self, epsilon: Fraction, hint: int | None = None) -> Enclosure:
        return self._delta_case(epsilon)[0]

    def _delta_case(self, epsilon: Fraction) -> tuple[Enclosure, bool]:
        if self.exact:
            (eta, k), = self.components
            return optimal_delta(epsilon, eta, k), True
        etas = [eta for eta, _ in self.components]
        total = sum(k for _, k in self.components)
        upper = optimal_delta(epsilon, max(etas), total).upper
        upper = min(upper, AdaptiveComposition(self.components)._upper(epsilon))
        lower = max(_lower_delta(self.components, epsilon), pair_family_lower(self.components, epsilon))
        search = heterogeneous_windows(self.components, epsilon)
        if search is None:
            return Enclosure(min(lower, upper), upper), False
        # every window searched: both ends of the search's enclosure bound the optimum
        lower, upper = max(lower, search.enclosure.lower), min(upper, search.enclosure.upper)
        return Enclosure(min(lower, upper), upper), search.certified

    def delta_case(self, epsilon: Any) -> tuple[Enclosure, str]:
        """δ(ε) and which case its enclosure is: ``"exact"`` (of the optimum, relative width <= 1e-9: one η, or at
        most two mechanisms) or ``"bound"`` (a sound enclosure of the optimum, of the width it has)."""
        eps = _epsilon_arg(epsilon)
        if eps >= self.total_eta:
            return Enclosure(Fraction(0), Fraction(0)), "exact"
        enclosure, exact = self._delta_case(eps)
        return enclosure, "exact" if exact else "bound"

    def _guess(self, delta: float) -> tuple[float, int | None]:
        """Bisection on a thinned float curve, then regula falsi (Illinois) on ``ln δ(ε) − ln δ`` near ℓ*."""
        (eta, k), = self.components
        lo, hi = 0.0, float(eta) * k
        window: tuple[int, int] | None = None
        half = 2 * math.isqrt(k) + 10
        for _ in range(12):
            mid = (lo + hi) / 2
            value, best = optimal_delta_float(mid, float(eta), k, None, max(1, k // 64))
            if best:
                window = (best - half, best + half)
            lo, hi = (lo, mid) if value <= delta else (mid, hi)

        def gap(x: float) -> float:
            nonlocal window
            value, best = optimal_delta_float(x, float(eta), k, window)
            if best:  # the maximising ℓ moves little once the bracket is narrow
                window = (best - half, best + half)
            return (math.log(value) if value > 0 else -800.0) - math.log(delta)

        g_lo, g_hi = (gap(lo) if lo > 0 else 800.0), gap(hi)
        side = 0
        for _ in range(60):
            if hi - lo <= 1e-13 * hi or not (g_lo > 0 >= g_hi):
                break
            mid = hi - g_hi * (hi - lo) / (g_hi - g_lo)
            if not lo < mid < hi:
                mid = (lo + hi) / 2
            g_mid = gap(mid)
            if g_mid <= 0:
                hi, g_hi = mid, g_mid
                g_lo = g_lo / 2 if side == -1 else g_lo
                side = -1
            else:
                lo, g_lo = mid, g_mid
                g_hi = g_hi / 2 if side == 1 else g_hi
                side = 1
        return hi, (window[0] + half if window else None)

    def epsilon(self, delta: Any) -> Enclosure:
        """ε(δ); exact enclosure for one η, else from the two ends' own curves."""
        if self.exact:
            return super().epsilon(delta)
        target = _delta_arg(delta)
        etas = [eta for eta, _ in self.components]
        total = sum(k for _, k in self.components)
        upper = min(
            OptimalComposition(((max(etas), total),)).epsilon(target).upper,
            AdaptiveComposition(self.components)._upper_epsilon(target),
        )
        return Enclosure(min(_lower_epsilon(self.components, target), upper), upper)


def peeling_top_k(eta: Any, k: Any) -> AdaptiveComposition:
    """Peeling top-k (k exponential mechanisms, each η-BR, on shrinking ranges) as adaptive composition."""
    return AdaptiveComposition(brief_components([(eta, k)]))
