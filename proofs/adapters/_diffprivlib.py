"""diffprivlib's selection mechanisms, mapped onto expmech's exact laws.

Conventions (diffprivlib 0.6.6, ``mechanisms/exponential.py`` and
``tools/quantiles.py``), each checked by the tests against the library:

* ``Exponential(epsilon=ε, sensitivity=Δ, utility=u, monotonic=m, measure=μ)``
  samples ``r`` with probability ``∝ μ(r)·exp(s·u(r))``, ``s = ε/Δ/(2 − m)``
  computed in floats: expmech's :class:`ExponentialMechanism` with quality
  ``u`` and ``epsilon = s`` (the exact rational of that float).  Higher
  utility is better.
* ``PermuteAndFlip`` (same parameters, no measure): coins
  ``exp(s·(u(r) − max u))`` — :class:`PermuteAndFlip` with ``epsilon = s``.
* ``ExponentialCategorical(epsilon=ε, utility_list)``: local model, input
  ``x``; output ``y`` with probability ``∝ exp(−ε·u(x, y)/(b·Δ))``,
  ``Δ = max u``, and ``b = 1`` when the "tree is balanced" (every
  normaliser ``Σ_y exp(−ε u(x, y)/(2Δ))`` equal under ``numpy.isclose``),
  else ``b = 2``.  The adapter decides balance exactly and computes the exact
  worst-case loss of the law the library actually uses.
* ``tools.quantile(array, quant, epsilon=ε, bounds)`` (and ``median``):
  ``Exponential(ε, Δ = 1, utility −|i − quant·n|, measure = widths)`` over the
  intervals between sorted clipped points, then a uniform point —
  :class:`QuantileMechanism` with ``epsilon = ε/2``; the released value is
  mapped back to its interval.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from fractions import Fraction
from itertools import permutations
from typing import Any

import numpy as np

from expmech.impl import ExponentialMechanism, ExpSum, PermuteAndFlip, QuantileMechanism
from expmech.spec import InvalidArgument
from expmech.spec.internal import as_rational

from ..audit._cases import AuditCase
from ..audit._result import ExactFinding
from ._common import ScoreTable, exact_vector, finding, library_version, load, rational_text

__all__ = [
    "diffprivlib_exponential",
    "diffprivlib_exponential_categorical",
    "diffprivlib_median",
    "diffprivlib_permute_and_flip",
    "diffprivlib_quantile",
]


def _library_scale(epsilon: float, sensitivity: float, monotonic: bool) -> float:
    """The weight exponent's scale exactly as diffprivlib computes it (float division, left to right)."""
    return float(epsilon) / float(sensitivity) / (2 - int(monotonic))


def _scale_finding(epsilon: Any, sensitivity: Any, monotonic: bool, scale: float) -> ExactFinding:
    """Is the float scale at most ε/((2 − m)Δ)?  The exact ε it gives is (2 − m)·Δ·scale."""
    exact_scale = Fraction(scale)
    promised = as_rational(epsilon, name="epsilon")
    effective = (2 - int(monotonic)) * as_rational(sensitivity, name="sensitivity") * exact_scale
    violation = effective > promised
    return finding(
        "the weight's scale ε/(Δ·(2 − monotonic)), computed in floats",
        f"scale = {scale!r}",
        f"(2 − monotonic)·Δ·scale = {rational_text(effective)} "
        + ("> ε: the float scale is rounded up, the exact guarantee exceeds ε" if violation else "<= ε = " + rational_text(promised)),
        violation=violation,
    )


def _loss_finding(reference: Any, dataset: Any, neighbour: Any, epsilon: Fraction, detail: str) -> ExactFinding:
    loss = reference.privacy_loss(dataset, neighbour)
    violation = bool(loss > epsilon)
    return finding(
        f"the exact privacy loss between the dataset and its neighbour ({detail})",
        f"promises ε = {rational_text(epsilon)}",
        f"loss = {float(loss):.10g} " + ("> ε" if violation else "<= ε"),
        violation=violation,
    )


def _float_table_finding(cumulative: np.ndarray, exact_positive: Sequence[bool], outputs: Sequence[Hashable]) -> tuple[list[Hashable], ExactFinding]:
    steps = np.diff(np.concatenate([[0.0], cumulative]))
    lost = [r for r, step, positive in zip(outputs, steps, exact_positive) if positive and not step > 0]
    return lost, finding(
        "outputs the float cumulative table can return",
        f"{len(lost)} output(s) with a zero step in its table: {lost[:5]}" if lost else "every output has a positive step",
        "every output of positive measure has positive probability",
        violation=False,
    )


def _neighbour_checks(utility: Sequence[Any], neighbour: Sequence[Any], sensitivity: Any, monotonic: bool) -> str:
    u, v = exact_vector(utility, "utility"), exact_vector(neighbour, "neighbour")
    if len(u) != len(v):
        raise InvalidArgument("neighbour must have one utility per candidate", parameter="neighbour", value=neighbour)
    distance = max(abs(a - b) for a, b in zip(u, v))
    text = f"‖u − u'‖∞ = {rational_text(distance)}, Δ = {rational_text(as_rational(sensitivity, name='sensitivity'))}"
    if monotonic:
        ups, downs = any(b > a for a, b in zip(u, v)), any(b < a for a, b in zip(u, v))
        text += "; monotone" if not (ups and downs) else "; NOT monotone (utilities move both ways)"
    return text


def _selection_case(
    kind: str,
    utility: Sequence[Any],
    *,
    epsilon: Any,
    sensitivity: Any,
    monotonic: bool,
    measure: Sequence[Any] | None,
    candidates: Sequence[Hashable] | None,
    neighbour: Sequence[Any] | None,
    seed: int,
) -> AuditCase:
    mechanisms = load("diffprivlib.mechanisms")
    outputs = list(candidates) if candidates is not None else list(range(len(utility)))
    scale = _library_scale(epsilon, sensitivity, monotonic)
    quality = ScoreTable(outputs)
    random_state = np.random.RandomState(seed)
    built: dict[tuple[Any, ...], Any] = {}

    def build(values: Sequence[Any]) -> Any:
        options: dict[str, Any] = {"epsilon": epsilon, "sensitivity": sensitivity, "utility": list(values), "monotonic": monotonic}
        if candidates is not None:
            options["candidates"] = list(candidates)
        if kind == "Exponential" and measure is not None:
            options["measure"] = list(measure)
        return getattr(mechanisms, kind)(random_state=random_state, **options)

    def sampler(dataset: Sequence[Any]) -> Any:
        key = tuple(dataset)
        if key not in built:
            built[key] = build(key)
        return built[key].randomise()

    if kind == "Exponential":
        base = dict(zip(outputs, measure)) if measure is not None else None
        reference: Any = ExponentialMechanism(quality, epsilon=Fraction(scale), outputs=outputs, base_measure=base)
        law = "μ(r)·exp(scale·u(r))" if measure is not None else "exp(scale·u(r))"
        expmech_reference = f"ExponentialMechanism(quality=u, epsilon=scale{', base_measure=measure' if measure is not None else ''})"
    else:
        reference = PermuteAndFlip(quality, epsilon=Fraction(scale), outputs=outputs)
        law = "permute-and-flip with coins exp(scale·(u(r) − max u))"
        expmech_reference = "PermuteAndFlip(quality=u, epsilon=scale)"
    mapping = {
        "library": f"diffprivlib {library_version('diffprivlib')} mechanisms.{kind}",
        "parameters": f"ε = {epsilon!r}, sensitivity Δ = {sensitivity!r}, monotonic = {bool(monotonic)}",
        "law": f"{law}, scale = ε/Δ/(2 − monotonic) = {scale!r} (float, taken exactly)",
        "utility sign": "higher utility is better (no negation)",
        "expmech reference": expmech_reference,
        "dataset": "the utility vector itself; a neighbour is another utility vector",
    }
    findings = [_scale_finding(epsilon, sensitivity, monotonic, scale)]
    notes: list[str] = []
    if kind == "Exponential":
        library = build(utility)
        positive = [m > 0 for m in reference.base_measure]
        lost, table = _float_table_finding(library._probabilities, positive, outputs)
        if neighbour is not None and lost:
            lost_there, _ = _float_table_finding(build(neighbour)._probabilities, positive, outputs)
            if set(lost) != set(lost_there):
                table = finding(
                    table.question,
                    table.library + f"; on the neighbour: {lost_there[:5]}",
                    "an output impossible in one table and possible in the other: the float sampler's loss is infinite",
                    violation=True,
                )
        findings.append(table)
    if neighbour is not None:
        detail = _neighbour_checks(utility, neighbour, sensitivity, monotonic)
        findings.append(_loss_finding(reference, tuple(utility), tuple(neighbour), as_rational(epsilon, name="epsilon"), detail))
    return AuditCase(
        name=f"diffprivlib {kind}" + (" (monotonic)" if monotonic else "") + (" with measure" if measure is not None else ""),
        sampler=sampler,
        reference=reference,
        dataset=tuple(utility),
        neighbour=tuple(neighbour) if neighbour is not None else None,
        mapping=mapping,
        findings=tuple(findings),
        notes=tuple(notes),
    )


def diffprivlib_exponential(
    utility: Sequence[Any],
    *,
    epsilon: Any,
    sensitivity: Any,
    monotonic: bool = False,
    measure: Sequence[Any] | None = None,
    candidates: Sequence[Hashable] | None = None,
    neighbour: Sequence[Any] | None = None,
    seed: int = 0,
) -> AuditCase:
    """An audit case for ``diffprivlib.mechanisms.Exponential`` on ``utility`` (see the module for the mapping).

    ``neighbour`` (another utility vector) adds the exact privacy loss and the
    empirical bound.  ``seed`` seeds the library's ``random_state``.  Findings:
    the float scale against ε exactly, and outputs the float table can never
    return (with a neighbour: an output possible in one table only is an
    infinite loss).
    """
    return _selection_case(
        "Exponential", utility, epsilon=epsilon, sensitivity=sensitivity, monotonic=monotonic, measure=measure,
        candidates=candidates, neighbour=neighbour, seed=seed,
    )


def diffprivlib_permute_and_flip(
    utility: Sequence[Any],
    *,
    epsilon: Any,
    sensitivity: Any,
    monotonic: bool = False,
    candidates: Sequence[Hashable] | None = None,
    neighbour: Sequence[Any] | None = None,
    seed: int = 0,
) -> AuditCase:
    """An audit case for ``diffprivlib.mechanisms.PermuteAndFlip`` (coins ``exp(scale·(u − max u))``)."""
    return _selection_case(
        "PermuteAndFlip", utility, epsilon=epsilon, sensitivity=sensitivity, monotonic=monotonic, measure=None,
        candidates=candidates, neighbour=neighbour, seed=seed,
    )


# -- ExponentialCategorical ---------------------------------------------------------------------


class _Categorical:
    """``q(x, y) = −u(x, y)`` from a symmetric utility table (0 on the diagonal)."""

    def __init__(self, table: dict[tuple[str, str], Fraction]) -> None:
        self.table = table

    def __call__(self, x: str, y: str) -> Fraction:
        return -self.table.get((x, y), Fraction(0))


def _utility_table(utility_list: Sequence[Any]) -> tuple[list[str], dict[tuple[str, str], Fraction]]:
    domain: list[str] = []
    table: dict[tuple[str, str], Fraction] = {}
    for value1, value2, utility in utility_list:
        for v in (value1, value2):
            if v not in domain:
                domain.append(v)
        if value1 != value2:
            exact = as_rational(utility, name=f"utility({value1!r}, {value2!r})")
            table[(value1, value2)] = table[(value2, value1)] = exact
    return domain, table


def diffprivlib_exponential_categorical(
    utility_list: Sequence[Any],
    *,
    epsilon: Any,
    value: str,
    neighbour: str | None = None,
    seed: int = 0,
) -> AuditCase:
    """An audit case for ``diffprivlib.mechanisms.ExponentialCategorical`` randomising the input ``value``.

    The library halves its exponent unless its float test finds the
    normalisers equal ("balanced"); the adapter decides balance exactly
    (canonical :class:`ExpSum` equality), and computes the exact privacy loss
    of the library's law over every pair of inputs (local model: any two
    inputs are neighbours) against ε.  ``neighbour`` defaults to the input
    farthest from ``value`` in exact loss.
    """
    mechanisms = load("diffprivlib.mechanisms")
    random_state = np.random.RandomState(seed)
    library = mechanisms.ExponentialCategorical(epsilon=epsilon, utility_list=list(utility_list), random_state=random_state)
    domain, table = _utility_table(utility_list)
    if value not in domain:
        raise InvalidArgument(f"value={value!r} is not in the utility list's domain", parameter="value", value=value)
    sensitivity = max(table.values(), default=Fraction(0))
    if sensitivity == 0:
        raise InvalidArgument("utility_list has no positive utility", parameter="utility_list", value=utility_list)
    eps = as_rational(epsilon, name="epsilon")
    halved = eps / (2 * sensitivity)
    normalisers = [
        ExpSum.weighted_exps([(Fraction(1), -halved * table.get((x, y), Fraction(0))) for y in domain]) for x in domain
    ]
    balanced_exactly = all(z == normalisers[0] for z in normalisers)
    balanced_library = bool(library._balanced_tree)
    factor = 1 if balanced_library else 2
    reference = ExponentialMechanism(_Categorical(table), epsilon=eps / (factor * sensitivity), outputs=domain)
    losses = {(x, y): reference.privacy_loss(x, y) for x, y in permutations(domain, 2)}
    worst_pair = max(losses, key=lambda pair: float(losses[pair]))
    worst = losses[worst_pair]
    exceeds = [pair for pair, loss in losses.items() if loss > eps]
    findings = [
        finding(
            "is the utility tree balanced (every normaliser equal)?",
            f"{'balanced' if balanced_library else 'not balanced'} (numpy.isclose), so exponent ε·u/({factor}·Δ)",
            f"{'balanced' if balanced_exactly else 'not balanced'} (exact equality of the normalisers)",
            violation=False,
        ),
        finding(
            "the exact worst-case privacy loss of the library's law over every pair of inputs",
            f"promises ε = {rational_text(eps)}",
            f"max loss {float(worst):.12g} at {worst_pair} " + (f"> ε for {len(exceeds)} pair(s)" if exceeds else "<= ε"),
            violation=bool(exceeds),
        ),
    ]
    if neighbour is None:
        candidates = [pair for pair in losses if pair[0] == value]
        neighbour = max(candidates, key=lambda pair: float(losses[pair]))[1]
    mapping = {
        "library": f"diffprivlib {library_version('diffprivlib')} mechanisms.ExponentialCategorical",
        "parameters": f"ε = {epsilon!r}, Δ = max utility = {rational_text(sensitivity)}",
        "law": f"y with probability ∝ exp(−ε·u(x, y)/({factor}·Δ)) (factor {factor}: the library's balance test)",
        "utility sign": "utility is a distance: lower is better (quality = −utility)",
        "expmech reference": f"ExponentialMechanism(quality=−u, epsilon=ε/({factor}·Δ)) over the domain; dataset = the input",
    }
    return AuditCase(
        name=f"diffprivlib ExponentialCategorical (input {value!r})",
        sampler=lambda x: library.randomise(x),
        reference=reference,
        dataset=value,
        neighbour=neighbour,
        mapping=mapping,
        findings=tuple(findings),
    )


# -- quantiles ----------------------------------------------------------------------------------


def diffprivlib_quantile(
    data: Sequence[Any],
    quant: Any,
    *,
    epsilon: Any,
    bounds: tuple[Any, Any],
    neighbour: Sequence[Any] | None = None,
    seed: int = 0,
    median: bool = False,
) -> AuditCase:
    """An audit case for ``diffprivlib.tools.quantile`` (or ``median``): the interval it releases a point from.

    The released value is mapped to its interval between the sorted clipped
    points; the reference is :class:`QuantileMechanism` with ``epsilon = ε/2``
    (diffprivlib's Exponential with Δ = 1).  With ``neighbour`` (another data
    vector) the exact loss of the released value's density is checked against
    ε.
    """
    tools = load("diffprivlib.tools")
    accountant_module = load("diffprivlib.accountant")
    random_state = np.random.RandomState(seed)
    accountant = accountant_module.BudgetAccountant()
    scale = _library_scale(epsilon, 1.0, False)
    reference = QuantileMechanism(quantile=0.5 if median else quant, epsilon=Fraction(scale), bounds=bounds)
    def sampler(dataset: Sequence[Any]) -> int:
        array = np.asarray(dataset, dtype=np.float64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if median:
                value = tools.median(array, epsilon=epsilon, bounds=bounds, random_state=random_state, accountant=accountant)
            else:
                value = tools.quantile(array, quant, epsilon=epsilon, bounds=bounds, random_state=random_state, accountant=accountant)
        return reference.interval_of(dataset, float(value))

    findings = [_scale_finding(epsilon, 1, False, scale)]
    if neighbour is not None:
        loss = reference.privacy_loss(tuple(data), tuple(neighbour))
        eps = as_rational(epsilon, name="epsilon")
        violation = bool(loss > eps)
        findings.append(
            finding(
                "the exact privacy loss of the released value's density between the data and its neighbour",
                f"promises ε = {rational_text(eps)}",
                f"loss = {float(loss):.10g} " + ("> ε" if violation else "<= ε"),
                violation=violation,
            )
        )
    function = "median" if median else "quantile"
    mapping = {
        "library": f"diffprivlib {library_version('diffprivlib')} tools.{function}",
        "parameters": f"{'' if median else f'quant = {quant!r}, '}ε = {epsilon!r}, bounds = {bounds!r}",
        "law": "interval i (between sorted clipped points and the bounds) ∝ width_i·exp((ε/2)·u_i), u_i = −|i − quant·n|; "
        "then a uniform point in it",
        "utility sign": "higher utility is better; Δ = 1",
        "expmech reference": f"QuantileMechanism(quantile, epsilon=ε/2 = {scale!r}, bounds); draws mapped to interval indices",
    }
    return AuditCase(
        name=f"diffprivlib tools.{function}" + ("" if median else f" (quant = {quant})"),
        sampler=sampler,
        reference=reference,
        dataset=tuple(data),
        neighbour=tuple(neighbour) if neighbour is not None else None,
        mapping=mapping,
        findings=tuple(findings),
        notes=("the released value is continuous; the audit tests the interval it falls in",),
    )


def diffprivlib_median(
    data: Sequence[Any], *, epsilon: Any, bounds: tuple[Any, Any], neighbour: Sequence[Any] | None = None, seed: int = 0
) -> AuditCase:
    """An audit case for ``diffprivlib.tools.median`` (``quantile`` at 1/2; see :func:`diffprivlib_quantile`)."""
    return diffprivlib_quantile(data, 0.5, epsilon=epsilon, bounds=bounds, neighbour=neighbour, seed=seed, median=True)
