"""Monotonicity: does a change of one record move q(·, r) the same way for every r?

With a monotone quality the privacy theorem improves from ``2 ε₀ Δq`` to
``ε₀ Δq``.  :func:`prove_monotone` proves it by rules over the expression, with
z3 deciding the sign of each per-record term, or refutes it with a concrete
neighbouring pair on which two outputs move in opposite directions.

Under add-remove (adding a record): ``count`` and ``size`` never decrease;
``total(f)`` moves with the sign of ``f`` when z3 proves it constant over all
records and outputs; sums of terms moving the same way, multiples by a factor
of constant sign, ``Max``/``Min`` of terms moving the same way, and a
``Piecewise`` with data-free conditions whose branches move the same way keep
their direction.  Under replace-one the rule is that the data enter only
through terms free of ``r`` added to the rest, so a change moves every output
by the same amount.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import sympy

import numpy as np

from expmech.spec import LARGEST_LISTED, SMALL_DOMAIN, Count, InvalidArgument, InvalidType, Mean, Neighbours, OrderStatistic, QualityError, QualityFunction, Size, Total
from expmech.spec.internal import describe, expression_to_json, readable

from .._display import monotone_text
from .._outcome import Status
from ._text import term_text
from ._partial import analyse_definedness
from ._rules import NoRule as _NoRule
from ._rules import Prover as _Prover
from ._rules import Unknown as _Unknown
from ._search import all_records, count_multisets, decode_output, decode_record, neighbour_index_pairs, record_space_size, score_table
from ._z3bridge import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Query, check, fresh_context, z3_version

__all__ = ["DIRECTION_SIGN", "MonotonicityResult", "monotone_envelope", "prove_monotone"]

AGGREGATES = (Count, Total, Mean, Size, OrderStatistic)


@dataclass(frozen=True)
class MonotonicityResult:
    """The outcome of :func:`prove_monotone`.

    ``direction`` is ``"non-decreasing"`` / ``"non-increasing"`` /
    ``"constant"`` (adding a record, under add-remove) or ``"uniform"``
    (replace-one: every output moves by the same amount) when PROVED.
    ``counterexample`` holds two neighbouring datasets and two outputs that move
    in opposite directions.  ``derivation`` (PROVED only) is the proof as JSON
    data for the kernel's claim ``"monotonicity"``: each node's ``bound`` is its
    direction ``d`` (+1, −1, 0: adding a record moves the subterm so that
    ``d·change >= 0``, 0 meaning unchanged); under replace-one the root is one
    ``monotone-uniform`` node of bound 0 (the outputs' changes differ by 0).
    Its ``evidence`` indices point into ``queries``.
    """

    status: Status
    neighbours: Neighbours
    direction: str | None
    reason: str
    counterexample: tuple[tuple[Any, ...], tuple[Any, ...], Hashable, Hashable] | None = None
    queries: tuple[Query, ...] = ()
    solver: str = field(default_factory=lambda: f"z3 {z3_version()}")
    derivation: dict[str, Any] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return monotone_text(self)

    def __repr__(self) -> str:
        return f"<MonotonicityResult {monotone_text(self).splitlines()[0]}; {len(self.queries)} solver queries>"


def _has_data(expr: sympy.Basic) -> bool:
    return bool(expr.atoms(*AGGREGATES)) or isinstance(expr, Size)


#: The direction of a PROVED result, as the derivation's root bound.
DIRECTION_SIGN = {"non-decreasing": 1, "non-increasing": -1, "constant": 0, "uniform": 0}


def _node(path: tuple[int, ...], expr: sympy.Basic, rule: str, sign: int, premises: list[dict[str, Any]], evidence: list[int], ids: list[int]) -> dict[str, Any]:
    ids[0] += 1
    return {
        "id": str(ids[0]),
        "term": list(path),
        "text": term_text(expr),
        "case": {"from": 0},
        "rule": rule,
        "bound": expression_to_json(sympy.Integer(sign)),
        "data": {},
        "premises": premises,
        "evidence": evidence,
    }


def monotone_envelope(relation: Neighbours, root: dict[str, Any], sign: int) -> dict[str, Any]:
    """The derivation object of claim ``"monotonicity"`` around ``root`` (bound: the direction's sign)."""
    start = 0 if relation is Neighbours.ADD_REMOVE else 1
    return {"format": 1, "claim": "monotonicity", "relation": relation.value, "start": start, "bound": expression_to_json(sympy.Integer(sign)), "root": root}


class _Directions:
    def __init__(self, prover: _Prover) -> None:
        self.prover = prover
        self.ids = [0]
        self.evidence: list[int] = []

    def sign_of_term(self, body: sympy.Basic) -> int:
        """+1 if body >= 0 for every record and output, −1 if <= 0, else raise _NoRule."""
        prover = self.prover
        constraints = prover.output_domain + prover.record_domain["a"] + [prover.defined(body, "a")]
        term = prover.translate(body, "a")
        negative = check(constraints + [term < 0], rlimit=prover.rlimit, timeout_ms=prover.timeout_ms)
        prover.queries.append(Query(f"{body} < 0 somewhere", "unsat", negative))
        self.evidence = [len(prover.queries) - 1]
        if negative.status == "unsat":
            return 1
        positive = check(constraints + [term > 0], rlimit=prover.rlimit, timeout_ms=prover.timeout_ms)
        prover.queries.append(Query(f"{body} > 0 somewhere", "unsat", positive))
        self.evidence.append(len(prover.queries) - 1)
        if positive.status == "unsat":
            return -1
        if "unknown" in (negative.status, positive.status):
            raise _Unknown(f"z3 could not decide the sign of {body}")
        raise _NoRule(f"the record term {body} takes both signs")

    def sign_of_factor(self, factor: sympy.Expr) -> int:
        """The constant sign (+1, −1, or 0 when identically 0) of a data-free factor over the outputs."""
        low, high = self._range(factor)
        if low >= 0 and high > 0:
            return 1
        if high <= 0 and low < 0:
            return -1
        if low == high == 0:
            return 0
        raise _NoRule(f"the factor {factor} changes sign over the outputs")

    def _range(self, factor: sympy.Expr) -> tuple[Any, Any]:
        from expmech.spec.internal import compile_expression

        quality = self.prover.quality
        if factor.is_Rational:
            return factor, factor
        if (quality.output_space.size or SMALL_DOMAIN + 1) > SMALL_DOMAIN:  # an interval, an infinite or a large range: certified z3 bounds
            from ._continuous import range_factor_bounds

            return range_factor_bounds(self.prover, factor)
        evaluate = compile_expression(factor)
        values = []
        for r in quality.outputs():
            try:
                values.append(evaluate(quality.output_space.encode(r), []))
            except (ZeroDivisionError, QualityError):
                continue  # q is defined everywhere, so the factor is never used where it is not
        if not values:
            return 0, 0
        return min(values), max(values)

    def direction(self, expr: sympy.Basic, path: tuple[int, ...] = ()) -> tuple[int, dict[str, Any]]:
        """+1 (non-decreasing when a record is added), −1, or 0 (unchanged), with its derivation node; raise _NoRule otherwise."""
        if not _has_data(expr):
            return 0, _node(path, expr, "monotone-data-free", 0, [], [], self.ids)
        if isinstance(expr, Size | Count):
            return 1, _node(path, expr, "monotone-count", 1, [], [], self.ids)
        if isinstance(expr, Total):
            sign = self.sign_of_term(expr.args[0])
            return sign, _node(path, expr, "monotone-total", sign, [], self.evidence, self.ids)
        if isinstance(expr, Mean):
            raise _NoRule("a mean can move either way when a record is added")
        if isinstance(expr, sympy.Add | sympy.Max | sympy.Min):
            parts = [(self.direction(arg, (*path, i))) for i, arg in enumerate(expr.args) if _has_data(arg)]
            sign = _combine([d for d, _ in parts], expr)
            return sign, _node(path, expr, "monotone-combine", sign, [p for _, p in parts], [], self.ids)
        if isinstance(expr, sympy.Mul):
            data = [(i, f) for i, f in enumerate(expr.args) if _has_data(f)]
            constants = [f for f in expr.args if not _has_data(f)]
            if len(data) != 1:
                raise _NoRule(f"a product of data-dependent factors {expr}")
            sign = self.sign_of_factor(sympy.Mul(*constants)) if constants else 1
            inner, premise = self.direction(data[0][1], (*path, data[0][0]))
            return sign * inner, _node(path, expr, "monotone-scale", sign * inner, [premise], [], self.ids)
        if isinstance(expr, sympy.Piecewise):
            if any(_has_data(pair.cond) for pair in expr.args):
                raise _NoRule("a Piecewise condition depends on the data")
            parts = [self.direction(pair.expr, (*path, i, 0)) for i, pair in enumerate(expr.args) if _has_data(pair.expr)]
            sign = _combine([d for d, _ in parts], expr)
            return sign, _node(path, expr, "monotone-piecewise", sign, [p for _, p in parts], [], self.ids)
        raise _NoRule(f"no monotonicity rule for {type(expr).__name__}")


def _combine(directions: list[int], expr: sympy.Basic) -> int:
    moving = {d for d in directions if d != 0}
    if len(moving) > 1:
        raise _NoRule(f"the parts of {expr} move in opposite directions")
    return moving.pop() if moving else 0


def _uniform_in_r(quality: QualityFunction) -> bool:
    """Replace-one rule: every data-dependent additive term is free of the output variables."""
    outputs = set(quality.output_space.symbols)
    return not any(_has_data(term) and term.free_symbols & outputs for term in sympy.Add.make_args(quality.expr))


def prove_monotone(
    quality: QualityFunction,
    *,
    neighbours: Any,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    search_size: int = 2,
    outputs: Any = None,
    search_budget: int = 200_000,
) -> MonotonicityResult:
    """Prove or refute that neighbouring datasets move ``q(·, r)`` the same way for every ``r``.

    Returns a frozen :class:`MonotonicityResult`: PROVED with the direction;
    REFUTED with two neighbouring datasets and outputs ``r_up``, ``r_down``
    where ``q`` rises at one and falls at the other (found by an exact search
    over datasets of at most ``search_size`` records, restricted to the list
    ``outputs`` if given, within ``search_budget`` evaluations); otherwise
    UNKNOWN with the reason.
    """
    if not isinstance(quality, QualityFunction):
        raise InvalidType(f"quality={describe(quality)} must be an expmech.spec.QualityFunction", parameter="quality", value=quality)
    relation = Neighbours.parse(neighbours)
    for name, value in (("rlimit", rlimit), ("timeout_ms", timeout_ms), ("search_size", search_size), ("search_budget", search_budget)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)
    with fresh_context():
        return _prove(quality, relation, rlimit, timeout_ms, search_size, outputs, search_budget)


def _prove(
    quality: QualityFunction, relation: Neighbours, rlimit: int, timeout_ms: int, search_size: int, outputs: Any, search_budget: int
) -> MonotonicityResult:
    """prove_monotone's work on validated arguments, inside the proof's own z3 context."""
    prover = _Prover(quality, relation, rlimit, timeout_ms)
    defined = analyse_definedness(quality, add_remove=relation is Neighbours.ADD_REMOVE, rlimit=rlimit, timeout_ms=timeout_ms)
    prover.queries.extend(defined.queries)
    reason = ""
    try:
        if not defined.total:
            raise _NoRule(defined.doubt)
        if relation is Neighbours.ADD_REMOVE:
            sign, root = _Directions(prover).direction(quality.expr)
            direction = {1: "non-decreasing", -1: "non-increasing", 0: "constant"}[sign]
            derivation = monotone_envelope(relation, root, sign)
            return MonotonicityResult(
                Status.PROVED, relation, direction, f"adding a record: q is {direction} for every r", queries=tuple(prover.queries), derivation=derivation
            )
        if _uniform_in_r(quality):
            root = _node((), quality.expr, "monotone-uniform", 0, [], [], [0])
            root["case"] = {"from": 1}
            derivation = monotone_envelope(relation, root, 0)
            return MonotonicityResult(
                Status.PROVED, relation, "uniform", "every output moves by the same amount", queries=tuple(prover.queries), derivation=derivation
            )
        reason = "the data enter through terms that depend on r"
    except _NoRule as error:
        reason = str(error)
    except _Unknown as error:
        reason = f"solver inconclusive: {error}"
    except InvalidArgument as error:
        reason = f"not translatable: {error}"
    if outputs is None and not quality.output_space.is_finite:  # an interval or infinite range: search its breakpoints
        from ._continuous import range_search_outputs

        outputs = range_search_outputs(quality, prover)
    found = _search(quality, relation, search_size, outputs, search_budget, start=0 if relation is Neighbours.ADD_REMOVE and defined.empty else 1)
    if found is not None:
        d1, d2, up, down = found
        return MonotonicityResult(
            Status.REFUTED,
            relation,
            None,
            f"from {readable(list(d1))} to {readable(list(d2))}, q rises at r={readable(up)} and falls at r={readable(down)}",
            found,
            tuple(prover.queries),
        )
    return MonotonicityResult(Status.UNKNOWN, relation, None, reason or "no rule and no counterexample", queries=tuple(prover.queries))


def _search(
    quality: QualityFunction, relation: Neighbours, search_size: int, outputs: Any, search_budget: int, *, start: int
) -> tuple[tuple[Any, ...], tuple[Any, ...], Hashable, Hashable] | None:
    """Neighbouring datasets on which q rises at one output and falls at another (exhaustive, small spaces)."""
    space = record_space_size(quality)
    if outputs is None and quality.output_space.is_finite:
        width = quality.output_space.size
        outputs = quality.outputs() if width is not None and width <= min(search_budget, LARGEST_LISTED) else None
    if outputs is None or space is None or space > 64:
        return None
    outputs = list(outputs)
    output_codes = quality.output_space.encode_all(outputs, name="outputs[…]")
    records = all_records(quality)
    for size in range(start, search_size + 1):
        if size == 0 and relation is Neighbours.REPLACE_ONE:
            continue
        larger = size + (1 if relation is Neighbours.ADD_REMOVE else 0)
        if count_multisets(len(records), larger) * len(outputs) > search_budget:
            break
        pairs = list(neighbour_index_pairs(len(records), relation, size))
        if not pairs:
            continue
        try:
            table = score_table(quality, records, output_codes, [p for pair in pairs for p in pair])
        except QualityError:
            return None
        first = table.values[[table.rows[a] for a, _ in pairs]]
        second = table.values[[table.rows[b] for _, b in pairs]]
        rises, falls = second > first, second < first
        both = np.flatnonzero(rises.any(axis=1) & falls.any(axis=1))
        if both.size:
            index = int(both[0])
            a, b = pairs[index]
            up = int(np.argmax(rises[index]))
            down = int(np.argmax(falls[index]))
            d1 = tuple(decode_record(quality, records[i]) for i in a)
            d2 = tuple(decode_record(quality, records[i]) for i in b)
            return d1, d2, decode_output(quality, output_codes[up]), decode_output(quality, output_codes[down])
    return None
