"""Where is q defined?  Divisions by zero, the empty dataset.

A quality function of the language is partial only through division (a
negative power): by an output-dependent expression that can be 0, by an
aggregate that can be 0, by ``size()`` on the empty dataset — and ``mean`` is
undefined on the empty dataset.  Before bounding Δq the prover settles this:

* **every non-empty dataset and output** — one z3 query over the outputs, a
  record and the aggregates as bounded unknowns asks whether some division on
  the evaluator's path (``Piecewise`` and ``And``/``Or`` are lazy) can see a
  zero.  Unsatisfiable: q is total.  Satisfiable: the model's output and
  record are tried on small concrete datasets, and a real division by zero is
  reported as a :class:`~expmech.spec.QualityError` naming the subexpression;
  if none is found, the doubt is carried into the result (no PROVED).
* **the empty dataset** (add-remove) — the same question with every aggregate
  at its empty value.  Where q is defined there, the empty dataset is a
  neighbour like any other (the standard definition); where it is not, the
  result states ``n >= 1`` as a hypothesis of its claim.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.spec import Count, InvalidArgument, Mean, OrderStatistic, QualityError, QualityFunction, RationalRange, Size, Total
from expmech.spec.internal import order_index
from expmech.spec.internal import compile_expression

from ._encoding import Codes, codes_from_model, domain_constraint, interesting_codes, variables
from ._search import decode_output, decode_record
from ._z3bridge import Query, Translator, bool_val, check, int_val, int_var, partial_nodes, q, real_val, real_var

__all__ = ["Definedness", "analyse_definedness"]

AGGREGATES = (Count, Total, Mean, Size, OrderStatistic)


@dataclass(frozen=True)
class Definedness:
    """Where q is defined: ``total`` — on every non-empty dataset and output (proved);
    ``empty`` — on the empty dataset, for every output (proved); ``doubt`` — why
    totality could not be shown (empty when it was); the queries relied on."""

    total: bool
    empty: bool
    doubt: str
    queries: tuple[Query, ...]


def _field_bounds(body: sympy.Basic, quality: QualityFunction) -> tuple[Fraction, Fraction] | None:
    """Per-record range of a body that is a single bounded field, else None."""
    for _, sym, domain in quality.schema.items():
        if body == sym:
            lo, hi = domain.bounds()
            if lo is not None and hi is not None:
                return lo, hi
    return None


def _aggregate_environment(quality: QualityFunction, size: Any, empty: bool) -> tuple[dict[sympy.Basic, Any], list[Any]]:
    """z3 unknowns for every aggregate with the constraints every dataset of ``size`` records meets."""
    env: dict[sympy.Basic, Any] = {Size(): size}
    constraints: list[Any] = []
    nodes = sorted(quality.expr.atoms(Count, Total, Mean, OrderStatistic), key=sympy.default_sort_key)
    for index, node in enumerate(nodes):
        if empty:
            env[node] = int_val(0) if isinstance(node, Count) else real_val(0)
            continue
        if isinstance(node, Count):
            value = int_var(f"agg_{index}")
            constraints += [value >= 0, value <= size]
        else:
            value = real_var(f"agg_{index}")
            bounds = _field_bounds(node.args[0], quality)
            if bounds is not None:
                lo, hi = bounds
                scale = 1 if isinstance(node, Mean | OrderStatistic) else size
                constraints += [value >= scale * q(lo), value <= scale * q(hi)]
        env[node] = value
    return env, constraints


def analyse_definedness(quality: QualityFunction, *, add_remove: bool, rlimit: int, timeout_ms: int) -> Definedness:
    """Settle where ``quality`` is defined (see the module docstring); raise QualityError at a real division by zero."""
    expr = quality.expr
    queries: list[Query] = []
    outputs = variables("out_", quality.output_space)
    output_domain = [domain_constraint(outputs[sym], d) for _, sym, d in quality.output_space.items()]
    record = variables("y_", quality.schema)
    record_domain = [domain_constraint(record[sym], d) for _, sym, d in quality.schema.items()]
    body = Translator({**record, **outputs})
    suspects = partial_nodes(expr)
    total, doubt = True, ""
    if suspects:
        size = int_var("n")
        env, constraints = _aggregate_environment(quality, size, empty=False)

        def aggregate_undefined(node: sympy.Basic) -> Any:
            inner = body.undefined(node.args[0]) if node.args else bool_val(False)
            if isinstance(node, OrderStatistic):
                return z3.Or(inner, outside_ranks(node, size))
            return inner

        outer = Translator({**env, **outputs}, aggregate_undefined=aggregate_undefined)
        try:
            undefined = outer.undefined(expr)
        except InvalidArgument as error:
            undefined, doubt = None, f"the divisions could not be translated: {error}"
        if undefined is not None and not z3.is_false(undefined):
            answer = check([size >= 1, *output_domain, *record_domain, *constraints, undefined], rlimit=rlimit, timeout_ms=timeout_ms)
            if answer.status == "unsat":
                queries.append(Query("q divides by zero on some non-empty dataset", "unsat", answer))
            else:
                if answer.status == "sat" and answer.model is not None:
                    _raise_if_concrete(quality, answer.model, suspects)
                total = False
                doubt = doubt or (
                    f"could not show that q is defined everywhere: {', '.join(str(s) for s in suspects)} may divide by zero"
                    + (f" ({answer.reason})" if answer.status == "unknown" else "")
                )
    empty = False
    if add_remove:
        empty, query = _defined_when_empty(quality, outputs, output_domain, rlimit, timeout_ms)
        if query is not None:
            queries.append(query)
    return Definedness(total, empty, doubt, tuple(queries))


def outside_ranks(node: sympy.Basic, size: Any) -> Any:
    """The z3 condition: the rank ``k = floor((a·n + b)/c)`` of an order statistic is not in ``[0, n)``."""
    a, b, c = order_index(node.args[1])
    rank = (size * a + b) / c if c != 1 else size * a + b  # z3's integer division: the floor, for c > 0
    return z3.Or(rank < 0, rank >= size)


def _defined_when_empty(
    quality: QualityFunction, outputs: dict[sympy.Symbol, Any], output_domain: list[Any], rlimit: int, timeout_ms: int
) -> tuple[bool, Query | None]:
    expr = quality.expr
    env, _ = _aggregate_environment(quality, int_val(0), empty=True)

    def aggregate_undefined(node: sympy.Basic) -> Any:
        return bool_val(isinstance(node, Mean | OrderStatistic))  # no mean and no order statistic of no records

    try:
        undefined = Translator({**env, **outputs}, aggregate_undefined=aggregate_undefined).undefined(expr)
    except InvalidArgument:
        return True, None  # not translated: ∅ stays a neighbour (the cautious side)
    if z3.is_false(undefined):
        return True, None
    if z3.is_true(undefined):
        return False, None
    if any(isinstance(domain, RationalRange) for _, _, domain in quality.output_space.items()):
        # a continuous output: a point has μ-measure 0, so ∅ leaves the mechanism's domain only where q(∅, r) is
        # undefined at every r; otherwise ∅ stays a neighbour (the cautious side: the claim then covers n = 0)
        answer = check([*output_domain, z3.Not(undefined)], rlimit=rlimit, timeout_ms=timeout_ms)
        if answer.status == "unsat":
            return False, Query("q is defined on the empty dataset at some output", "unsat", answer)
        return True, None
    answer = check([*output_domain, undefined], rlimit=rlimit, timeout_ms=timeout_ms)
    if answer.status == "unsat":
        return True, Query("q divides by zero on the empty dataset", "unsat", answer)
    return False, None


def _raise_if_concrete(quality: QualityFunction, model: dict[str, Any], suspects: list[sympy.Basic]) -> None:
    """Evaluate q on small datasets at the model's output; a real division by zero raises QualityError."""
    output = codes_from_model(model, "out_", quality.output_space)
    seed = codes_from_model(model, "y_", quality.schema)
    if output is None:
        return
    records: list[Codes] = [seed] if seed is not None else []
    per_field = [
        interesting_codes(domain, [seed[sym]] if seed is not None else [], limit=3) for _, sym, domain in quality.schema.items()
    ]
    symbols = [sym for _, sym, _ in quality.schema.items()]
    for combo in itertools.islice(itertools.product(*per_field), 8):
        codes = dict(zip(symbols, combo))
        if codes not in records:
            records.append(codes)
    for dataset in _candidate_datasets(records, model.get("n")):
        try:
            quality.evaluate_codes(dataset, output)
        except QualityError as error:
            culprit = _culprit(quality, dataset, output, suspects)
            what = f"{culprit} divides by zero" if culprit is not None else str(error)
            shown_output = decode_output(quality, output)
            shown_data = _dataset_text([decode_record(quality, codes) for codes in dataset])
            raise QualityError(
                f"{quality.name or 'the quality function'} is undefined: {what} at r={shown_output!r} on the "
                f"dataset {shown_data}; q must be defined on every dataset and output (guard the division, "
                "e.g. with a Piecewise branch, and give every Piecewise a default (expr, True) branch)",
                output=shown_output,
                value=str(culprit),
            ) from None


#: The largest dataset size a definedness model may name for it to be tried concretely (a pole at size() = 5000).
MODEL_SIZE_LIMIT = 10_000


def _candidate_datasets(records: list[Codes], size: Any) -> Iterator[list[Codes]]:
    """Every dataset of 1 to 3 of ``records``, then each record repeated ``size`` times (the solver's model's size)."""
    for count in range(1, 4):
        for data in itertools.combinations_with_replacement(range(len(records)), count):
            yield [records[i] for i in data]
    if isinstance(size, int) and 3 < size <= MODEL_SIZE_LIMIT:
        for codes in records:
            yield [codes] * size


def _dataset_text(values: list[Any]) -> str:
    """A dataset as text; a long run of one record as ``[v] * k``."""
    if len(values) > 6 and all(v == values[0] for v in values):
        return f"[{values[0]!r}] * {len(values)}"
    return repr(values)


def _culprit(quality: QualityFunction, dataset: list[Codes], output: Codes, suspects: list[sympy.Basic]) -> str | None:
    """The first suspected division whose base is 0 here (by exact evaluation), as text."""
    for node in suspects:
        if not isinstance(node, sympy.Pow):
            continue
        base = node.base
        try:
            if base.atoms(*AGGREGATES) or isinstance(base, Size):
                value = compile_expression(base)(dict(output), dataset)
                if value == 0:
                    return str(node)
            elif not base.free_symbols & set(quality.schema.symbols):
                if compile_expression(base)(dict(output), []) == 0:
                    return str(node)
            else:
                for codes in dataset:
                    if compile_expression(base)({**output, **codes}, []) == 0:
                        return str(node)
        except (ZeroDivisionError, QualityError, KeyError):
            continue
    return None
