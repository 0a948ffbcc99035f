"""Faithfulness: the traced quality is compared with the Python function it came from, before any proof.

:func:`check_faithful` evaluates both on generated datasets — the empty one,
every single record, ties, records at the ends of each field's domain and at
the expression's constants, and seeded pseudo-random datasets of up to seven
records — and on every output of a small output space (else its ends,
constants and midpoints).  They must agree everywhere:

* a value of the function that is an ``int``, ``bool``, ``Fraction`` (or a
  numpy integer) must *equal* the trace's exact value;
* a ``float`` stands for the exact value the code computes with rounding, and
  must lie within ``1e-9`` relative of it (``/`` is exact in the trace);
* where the function raises, or returns ``nan`` or an infinity, the trace
  must be undefined there (a :class:`~._errors.QualityError`), and the other
  way round.

The first disagreement is a :class:`~._errors.TraceError` that shows the
dataset, the output and both values.  The proof that follows is of the traced
expression; this check is what ties it to the code, and it is a test, not a
proof: the number of datasets it ran on is recorded with the trace.
"""

from __future__ import annotations

import hashlib
import itertools
import random
import warnings
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import sympy

from ._domains import Booleans, Categories, Domain, Grid, IntRange
from ._errors import QualityError, TraceError, readable
from ._quality import QualityFunction
from ._trace_source import FunctionSource

__all__ = ["FLOAT_TOLERANCE", "check_faithful", "faithfulness_datasets", "faithfulness_outputs"]

#: The relative tolerance of a float result against the trace's exact value.
FLOAT_TOLERANCE = Fraction(1, 10**9)
#: Outputs listed in full up to this many; larger spaces are represented.
ALL_OUTPUTS = 32
RANDOM_DATASETS = 60
LARGEST_RANDOM = 7


class RecordView(dict):  # type: ignore[type-arg]
    """A record of several fields as the function sees it: ``rec["x"]`` and ``rec.x``."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


class OutputView(tuple):  # type: ignore[type-arg]
    """An output of several variables as the function sees it: a tuple, also ``r["a"]`` and ``r.a``."""

    _names: tuple[str, ...] = ()

    def __new__(cls, values: Sequence[Any], names: tuple[str, ...]) -> OutputView:
        view = super().__new__(cls, values)
        view._names = names
        return view

    def __getitem__(self, key: Any) -> Any:  # type: ignore[override]
        if isinstance(key, str):
            return tuple.__getitem__(self, self._names.index(key))
        return tuple.__getitem__(self, key)

    def __getattr__(self, name: str) -> Any:
        if name in self._names:
            return tuple.__getitem__(self, self._names.index(name))
        raise AttributeError(name)


def _field_values(domain: Domain, constants: list[Fraction]) -> list[Any]:
    """A few values of a domain worth testing: all of a small one, else its ends, midpoints, 0, ±1 and the constants."""
    if isinstance(domain, Booleans):
        return [False, True]
    if isinstance(domain, Categories):
        labels = list(domain.labels)
        return labels if len(labels) <= 8 else labels[:3] + labels[len(labels) // 2 : len(labels) // 2 + 1] + labels[-3:]
    if isinstance(domain, Grid):
        points = list(domain.points)
        chosen = points if len(points) <= 8 else points[:3] + [points[len(points) // 2]] + points[-3:]
        return [domain.decode(domain.encode(p, name="point")) for p in chosen]
    lo, hi = domain.bounds()
    candidates: list[Fraction] = []
    if isinstance(domain, IntRange) and domain.lo is not None and domain.hi is not None and domain.hi - domain.lo < 8:
        return list(range(domain.lo, domain.hi + 1))
    for end in (lo, hi):
        if end is not None:
            candidates.append(end)
    if lo is not None and hi is not None:
        candidates += [(lo + hi) / 2, lo + (hi - lo) / 4, hi - (hi - lo) / 4]
    else:
        candidates += [Fraction(v) for v in (-(10**9), -7, 10**9, 7)]
    candidates += [Fraction(0), Fraction(1), Fraction(-1), Fraction(2)]
    for constant in constants:
        candidates += [constant, constant + 1, constant - 1]
    if isinstance(domain, IntRange):
        candidates += [Fraction(int(c)) for c in list(candidates)] + [Fraction(int(c) + 1) for c in list(candidates)]
        if lo is not None:
            candidates.append(lo + 1)
        if hi is not None:
            candidates.append(hi - 1)
    values: list[Any] = []
    for candidate in candidates:
        if (lo is not None and candidate < lo) or (hi is not None and candidate > hi):
            continue
        if isinstance(domain, IntRange) and candidate.denominator != 1:
            continue
        value: Any = int(candidate) if isinstance(domain, IntRange) else candidate
        if value not in values:
            values.append(value)
    return values[:12]


def _constants(quality: QualityFunction) -> list[Fraction]:
    found = {Fraction(int(a.p), int(a.q)) for a in quality.expr.atoms(sympy.Rational)}
    return sorted(found)[:8]


def _records(quality: QualityFunction) -> list[Any]:
    """Records worth testing: every combination of the fields' values, or corners of them when too many."""
    constants = _constants(quality)
    names = list(quality.schema.names)
    per_field = [_field_values(quality.schema.domain(name), constants) for name in names]
    total = 1
    for values in per_field:
        total *= len(values)
    if total <= 64:
        combos = list(itertools.product(*per_field))
    else:
        base = [values[0] for values in per_field]
        combos = [tuple(base)]
        for index, values in enumerate(per_field):
            for value in values[1:]:
                combo = list(base)
                combo[index] = value
                combos.append(tuple(combo))
        draw = random.Random(repr(per_field))
        for _ in range(32):
            combos.append(tuple(draw.choice(values) for values in per_field))
    if len(names) == 1:
        return [combo[0] for combo in combos]
    return [dict(zip(names, combo)) for combo in combos]


def faithfulness_datasets(quality: QualityFunction, seed: str) -> list[list[Any]]:
    """The datasets the check runs on (records as plain values, or field dicts), in a fixed order."""
    records = _records(quality)
    datasets: list[list[Any]] = [[]]
    datasets += [[record] for record in records[:64]]
    for record in records[:16]:
        datasets.append([record, record])
    for first, second in itertools.islice(itertools.combinations(records, 2), 48):
        datasets.append([first, second])
        datasets.append([first, first, second])
    if records:
        for size in (3, 4, 5):
            datasets.append([records[0]] * size)
            datasets.append([records[-1]] * size)
    draw = random.Random(seed)
    for _ in range(RANDOM_DATASETS):
        size = draw.randint(2, LARGEST_RANDOM)
        pool = draw.sample(records, min(len(records), draw.randint(1, 3)))
        datasets.append([draw.choice(pool) for _ in range(size)])
    unique: list[list[Any]] = []
    seen: set[str] = set()
    for dataset in datasets:
        key = repr(dataset)
        if key not in seen:
            seen.add(key)
            unique.append(dataset)
    return unique


def faithfulness_outputs(quality: QualityFunction) -> list[Any]:
    """Every output of a small finite space, else a few of each variable's values (ends, midpoints, constants)."""
    space = quality.output_space
    if space.is_finite and (space.size or 0) <= ALL_OUTPUTS:
        return list(quality.outputs())
    constants = _constants(quality)
    per_variable = [_field_values(domain, constants)[:6] for _, _, domain in space.items()]
    combos = list(itertools.product(*per_variable))[:ALL_OUTPUTS]
    if len(per_variable) == 1:
        return [combo[0] for combo in combos]
    return combos


def _as_exact(value: Any) -> tuple[str, Any]:
    """``("exact", Fraction)``, ``("float", float)``, ``("undefined", why)`` or ``("other", type name)`` for a result."""
    module = type(value).__module__ or ""
    if module.startswith("numpy") and hasattr(value, "item") and getattr(value, "shape", None) == ():
        value = value.item()
    if isinstance(value, bool | int | Fraction):
        return "exact", Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return "undefined", repr(value)
        return "float", value
    if module.startswith("sympy") and getattr(value, "is_Rational", False) is True:
        return "exact", Fraction(int(value.p), int(value.q))
    return "other", type(value).__name__


def _agrees(kind: str, value: Any, exact: Fraction) -> bool:
    if kind == "exact":
        return bool(value == exact)
    difference = abs(Fraction(value) - exact)
    return difference <= FLOAT_TOLERANCE * max(Fraction(1), abs(exact))


def check_faithful(fn: Callable[..., Any], quality: QualityFunction, source: FunctionSource) -> int:
    """Compare ``fn`` with its trace ``quality`` (see the module docstring); the number of datasets tested."""
    seed = hashlib.sha256(source.text.encode("utf-8")).hexdigest()
    datasets = faithfulness_datasets(quality, seed)
    outputs = faithfulness_outputs(quality)
    names = quality.output_space.names
    line = source.line(source.tree)

    def fail(dataset: list[Any], r: Any, got: str, traced: str) -> TraceError:
        shown = readable(dataset)
        return TraceError(
            f"{source.filename}:{line}: the trace of {source.name}() is not faithful: at data={shown}, r={readable(r)} the function gives "
            f"{got} and the trace {traced} (traced expression: {quality.expr}); the function is outside what the tracer reads exactly",
            construct="a mismatch between the function and its trace",
            filename=source.filename,
            lineno=line,
            value={"data": dataset, "r": r},
        )

    for dataset in datasets:
        encoded = quality.encode_dataset(dataset)
        for r in outputs:
            given_r = OutputView(r, names) if len(names) > 1 else r
            given = [RecordView(record) if isinstance(record, dict) else record for record in dataset]
            try:
                with warnings.catch_warnings():  # numpy warns of the nan it returns on no records: expected here
                    warnings.simplefilter("ignore", RuntimeWarning)
                    result = fn(given, given_r)
                kind, value = _as_exact(result)
            except Exception as error:  # noqa: BLE001 - the function raising is its own answer: undefined there
                kind, value = "undefined", f"{type(error).__name__}: {error}"
            try:
                exact: Fraction | None = quality.evaluate_codes(encoded, quality.output_space.encode(r))
            except QualityError:
                exact = None
            if kind == "other":
                raise fail(dataset, r, f"a {value}", "a number" if exact is not None else "undefined")
            if kind == "undefined":
                if exact is not None:
                    raise fail(dataset, r, f"no value ({value})", readable(exact))
                continue
            if exact is None:
                raise fail(dataset, r, readable(value) if kind == "float" else readable(value), "undefined (the language's value does not exist there)")
            if not _agrees(kind, value, exact):
                raise fail(dataset, r, repr(value) if kind == "float" else readable(value), readable(exact))
    return len(datasets)
