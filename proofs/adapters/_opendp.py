"""OpenDP's noisy-max and top-k measurements, mapped onto expmech's exact laws.

Conventions (OpenDP 0.16, ``rust/src/measurements/noisy_max`` and
``noisy_top_k``), each checked by the tests against the library.  Releases
from 0.12 are covered as far as they have the measurement (:data:`SINCE`:
``make_noisy_max`` and ``make_noisy_top_k`` from 0.14,
``make_report_noisy_max_gumbel`` from 0.12); asking for one the installed
release lacks raises :class:`UnsupportedVersion` naming both versions.

* The input is a score vector under ``linf_distance`` (``monotonic=True`` or
  not); its privacy map first turns an L∞ distance ``d`` into a *range*
  distance, ``d`` if monotonic else ``2d``.
* ``make_noisy_max(…, MaxDivergence, scale=s, negate)`` adds exponential noise
  of scale ``s`` and reports the arg-max: permute-and-flip with coins
  ``exp((x − max x)/s)`` — :class:`PermuteAndFlip` with ``epsilon = 1/s``
  (spec identity ``rnm-exponential``); ``ε = range/s``.
* ``make_noisy_max(…, ZeroConcentratedDivergence, …)`` adds Gumbel noise:
  :class:`ExponentialMechanism` with ``epsilon = 1/s`` (identity
  ``rnm-gumbel``); ``ρ = (range/s)²/8``.
* ``make_noisy_top_k(…, k)``: peeling permute-and-flip under MaxDivergence
  (:class:`PermuteAndFlipTopK`), one-shot Gumbel top-k under zCDP
  (:class:`ExponentialTopK`, identity ``gumbel-top-k``); the map is ``k`` times
  the single one.
* ``make_report_noisy_max_gumbel(…, scale, optimize)`` (deprecated since 0.14):
  the exponential mechanism with ``epsilon = 1/s``; ``optimize="min"``
  negates the scores; ``ε = range/s``.
* ``negate=True`` negates the scores (noisy min / bottom k).

OpenDP draws from the operating system's randomness and cannot be seeded, so
an audit of it is reproducible only in distribution (its false-alarm rate is
still at most α).  The adapter calls ``opendp.prelude.enable_features("contrib")``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from expmech.impl import ExponentialMechanism, ExponentialTopK, PermuteAndFlip, PermuteAndFlipTopK
from expmech.spec import InvalidArgument

from ..audit._cases import AuditCase
from ..audit._result import ExactFinding
from ._common import ScoreTable, UnsupportedVersion, exact_vector, finding, library_version, load, rational_text

__all__ = ["SINCE", "opendp_noisy_max", "opendp_noisy_top_k", "opendp_report_noisy_max_gumbel", "supported"]

_MEASURES = ("max_divergence", "zero_concentrated_divergence")


def _prelude() -> Any:
    dp = load("opendp.prelude")
    dp.enable_features("contrib")
    return dp


#: The first OpenDP release with each measurement the adapters cover.
SINCE = {"make_noisy_max": "0.14", "make_noisy_top_k": "0.14", "make_report_noisy_max_gumbel": "0.12"}
_REMOVED = {"make_report_noisy_max_gumbel": "a later release"}


def _function(dp: Any, name: str) -> Any:
    """``dp.m.<name>``, or :class:`UnsupportedVersion` naming the installed release and the first that has it."""
    function = getattr(dp.m, name, None)
    if function is None:
        installed = library_version("opendp")
        raise UnsupportedVersion(
            f"opendp {installed} has no measurements.{name} (the adapter covers it from OpenDP {SINCE[name]}"
            + (f" until {_REMOVED[name]}" if name in _REMOVED else "")
            + f"); install a release that has it, e.g. pip install 'opendp>={SINCE[name]}'"
        )
    return function


def supported(name: str) -> bool:
    """Whether the installed OpenDP has the measurement ``name`` (a key of :data:`SINCE`)."""
    return hasattr(_prelude().m, name)


def _space(dp: Any, scores: Sequence[Any], monotonic: bool) -> tuple[Any, Any, type]:
    kind: type = int if all(isinstance(s, int) and not isinstance(s, bool) for s in scores) else float
    if kind is float:
        try:
            atom = dp.atom_domain(T=kind, nan=False)
        except TypeError:  # OpenDP < 0.13: no ``nan`` flag; its float atom domain is non-nullable by default
            atom = dp.atom_domain(T=kind)
    else:
        atom = dp.atom_domain(T=kind)
    domain = dp.vector_domain(atom)
    return domain, dp.linf_distance(T=kind, monotonic=monotonic), kind


def _measure(dp: Any, output_measure: str) -> Any:
    if output_measure not in _MEASURES:
        raise InvalidArgument(
            f"output_measure={output_measure!r} must be one of {_MEASURES}", parameter="output_measure", value=output_measure
        )
    return dp.max_divergence() if output_measure == "max_divergence" else dp.zero_concentrated_divergence()


def _map_findings(
    measurement: Any,
    *,
    d_in: Any,
    scale: float,
    monotonic: bool,
    rounds: int,
    pure: bool,
    reference: Any,
    scores: Sequence[Any],
    neighbour: Sequence[Any] | None,
) -> list[ExactFinding]:
    """The library's float privacy map against the exact one, and the exact loss of a neighbouring pair."""
    distance = Fraction(d_in)
    exact_range = distance if monotonic else 2 * distance
    ratio = exact_range / Fraction(scale)
    promised_float = float(measurement.map(d_in))
    promised = Fraction(promised_float)
    if pure:
        exact = rounds * ratio
        question = f"ε = k·range/scale for d_in = {d_in!r} (range = {'d_in' if monotonic else '2·d_in'})"
    else:
        exact = rounds * ratio * ratio / 8
        question = f"ρ = k·(range/scale)²/8 for d_in = {d_in!r} (range = {'d_in' if monotonic else '2·d_in'})"
    rounded_down = promised < exact
    findings = [
        finding(
            question + ", computed by the library in floats",
            f"map(d_in) = {promised_float!r}",
            f"{rational_text(exact)}; the float map is " + ("BELOW it (rounded down)" if rounded_down else "at or above it"),
            violation=rounded_down,
        )
    ]
    if neighbour is not None:
        u, v = exact_vector(scores, "scores"), exact_vector(neighbour, "neighbour")
        if len(u) != len(v):
            raise InvalidArgument("neighbour must have one score per candidate", parameter="neighbour", value=neighbour)
        gap = max(abs(a - b) for a, b in zip(u, v))
        if gap > distance:
            raise InvalidArgument(
                f"neighbour is at L∞ distance {gap} > d_in = {d_in!r}", parameter="neighbour", value=neighbour
            )
        loss = reference.privacy_loss(tuple(scores), tuple(neighbour))
        where = f"a neighbour at L∞ distance {rational_text(gap)}"
        if monotonic and any(b > a for a, b in zip(u, v)) and any(b < a for a, b in zip(u, v)):
            where += "; NOT monotone (scores move both ways), though the metric says monotonic"
        if pure:
            violation = bool(loss > promised)
            findings.append(
                finding(
                    f"the exact privacy loss between the scores and {where}",
                    f"promises ε = {promised_float!r}",
                    f"loss = {float(loss):.10g} " + ("> ε" if violation else "<= ε"),
                    violation=violation,
                )
            )
        else:
            findings.append(
                finding(
                    f"the exact pure-DP loss between the scores and {where} (zCDP is promised; shown for reference)",
                    f"promises ρ = {promised_float!r}",
                    f"loss = {float(loss):.10g} (range/scale = {float(rounds * ratio):.6g} bounds it)",
                    violation=False,
                )
            )
    return findings


def _mapping(function: str, scale: float, negate: bool, monotonic: bool, law: str, reference: str, extra: str = "") -> dict[str, str]:
    return {
        "library": f"opendp {library_version('opendp')} measurements.{function}",
        "parameters": f"scale = {scale!r}{extra}, linf_distance(monotonic={monotonic})",
        "law": law,
        "utility sign": "scores negated (noisy min)" if negate else "higher score is better",
        "expmech reference": reference + f", epsilon = 1/scale = {rational_text(1 / Fraction(scale))}",
        "dataset": "the score vector itself; a neighbour is another score vector",
    }


_UNSEEDED = "OpenDP cannot be seeded: this audit is reproducible in distribution only"


def _case(
    name: str, measurement: Any, reference: Any, scores: Sequence[Any], neighbour: Sequence[Any] | None,
    mapping: dict[str, str], findings: list[ExactFinding],
) -> AuditCase:
    """An OpenDP audit case: the measurement called on the score vector as a list."""
    return AuditCase(
        name=name,
        sampler=lambda values: measurement(list(values)),
        reference=reference,
        dataset=tuple(scores),
        neighbour=tuple(neighbour) if neighbour is not None else None,
        mapping=mapping,
        findings=tuple(findings),
        notes=(_UNSEEDED,),
    )


def opendp_noisy_max(
    scores: Sequence[Any],
    *,
    scale: float,
    output_measure: str = "max_divergence",
    negate: bool = False,
    monotonic: bool = False,
    d_in: Any = 1,
    neighbour: Sequence[Any] | None = None,
) -> AuditCase:
    """An audit case for ``opendp.measurements.make_noisy_max`` on ``scores`` (see the module for the mapping).

    ``output_measure`` is ``"max_divergence"`` (exponential noise:
    permute-and-flip) or ``"zero_concentrated_divergence"`` (Gumbel noise: the
    exponential mechanism).  Findings: the float privacy map at ``d_in``
    against its exact value, and with ``neighbour`` the exact loss of that pair.
    """
    dp = _prelude()
    domain, metric, _ = _space(dp, scores, monotonic)
    measurement = _function(dp, "make_noisy_max")(domain, metric, _measure(dp, output_measure), scale=scale, negate=negate)
    outputs = list(range(len(scores)))
    quality = ScoreTable(outputs, sign=-1 if negate else 1)
    pure = output_measure == "max_divergence"
    epsilon = 1 / Fraction(scale)
    reference: Any = (
        PermuteAndFlip(quality, epsilon=epsilon, outputs=outputs)
        if pure
        else ExponentialMechanism(quality, epsilon=epsilon, outputs=outputs)
    )
    findings = _map_findings(
        measurement, d_in=d_in, scale=scale, monotonic=monotonic, rounds=1, pure=pure, reference=reference,
        scores=scores, neighbour=neighbour,
    )
    law = "exponential noise of scale s, arg-max = permute-and-flip" if pure else "Gumbel noise of scale s, arg-max = exponential mechanism"
    return _case(
        f"OpenDP make_noisy_max ({'MaxDivergence' if pure else 'zCDP'}{', negate' if negate else ''})",
        measurement, reference, scores, neighbour,
        _mapping("make_noisy_max", scale, negate, monotonic, law, type(reference).__name__ + "(quality=scores)"),
        findings,
    )


def opendp_noisy_top_k(
    scores: Sequence[Any],
    *,
    k: int,
    scale: float,
    output_measure: str = "max_divergence",
    negate: bool = False,
    monotonic: bool = False,
    d_in: Any = 1,
    neighbour: Sequence[Any] | None = None,
) -> AuditCase:
    """An audit case for ``opendp.measurements.make_noisy_top_k``: the ordered k-tuple of indices.

    MaxDivergence: peeling permute-and-flip; zCDP: one-shot Gumbel top-k (=
    peeling exponential mechanisms).  The privacy map is ``k`` times the
    single one; findings as for :func:`opendp_noisy_max`.
    """
    dp = _prelude()
    domain, metric, _ = _space(dp, scores, monotonic)
    measurement = _function(dp, "make_noisy_top_k")(domain, metric, _measure(dp, output_measure), k=k, scale=scale, negate=negate)
    outputs = list(range(len(scores)))
    quality = ScoreTable(outputs, sign=-1 if negate else 1)
    pure = output_measure == "max_divergence"
    epsilon = 1 / Fraction(scale)
    reference: Any = (
        PermuteAndFlipTopK(quality, epsilon=epsilon, outputs=outputs, k=k)
        if pure
        else ExponentialTopK(quality, epsilon=epsilon, outputs=outputs, k=k)
    )
    findings = _map_findings(
        measurement, d_in=d_in, scale=scale, monotonic=monotonic, rounds=k, pure=pure, reference=reference,
        scores=scores, neighbour=neighbour,
    )
    law = (
        f"{k} rounds of exponential-noise arg-max without replacement (peeling permute-and-flip)"
        if pure
        else f"the top {k} of Gumbel-noised scores, in order (= {k} peeled exponential mechanisms)"
    )
    return _case(
        f"OpenDP make_noisy_top_k (k = {k}, {'MaxDivergence' if pure else 'zCDP'}{', negate' if negate else ''})",
        measurement, reference, scores, neighbour,
        _mapping("make_noisy_top_k", scale, negate, monotonic, law, type(reference).__name__ + "(quality=scores)", f", k = {k}"),
        findings,
    )


def opendp_report_noisy_max_gumbel(
    scores: Sequence[Any],
    *,
    scale: float,
    optimize: str = "max",
    monotonic: bool = False,
    d_in: Any = 1,
    neighbour: Sequence[Any] | None = None,
) -> AuditCase:
    """An audit case for the deprecated ``make_report_noisy_max_gumbel``: the exponential mechanism, ε = 1/scale.

    ``optimize="min"`` negates the scores.  :class:`UnsupportedVersion` if the
    installed OpenDP does not have the function.
    """
    if optimize not in ("max", "min"):
        raise InvalidArgument(f"optimize={optimize!r} must be 'max' or 'min'", parameter="optimize", value=optimize)
    dp = _prelude()
    function = _function(dp, "make_report_noisy_max_gumbel")
    domain, metric, _ = _space(dp, scores, monotonic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        measurement = function(domain, metric, scale=scale, optimize=optimize)
    outputs = list(range(len(scores)))
    negate = optimize == "min"
    reference = ExponentialMechanism(ScoreTable(outputs, sign=-1 if negate else 1), epsilon=1 / Fraction(scale), outputs=outputs)
    findings = _map_findings(
        measurement, d_in=d_in, scale=scale, monotonic=monotonic, rounds=1, pure=True, reference=reference,
        scores=scores, neighbour=neighbour,
    )
    return _case(
        f"OpenDP make_report_noisy_max_gumbel (optimize = {optimize!r})",
        measurement, reference, scores, neighbour,
        _mapping(
            "make_report_noisy_max_gumbel", scale, negate, monotonic,
            "Gumbel noise of scale s, arg-max (arg-min for optimize='min') = exponential mechanism",
            "ExponentialMechanism(quality=scores)", f", optimize = {optimize!r}",
        ),
        findings,
    )
