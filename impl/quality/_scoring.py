"""Scores of a quality function over a fixed range, exactly and in one vector.

A :class:`ScoreFunction` binds a quality and a range; ``score_function(dataset)``
returns ``q(dataset, r)`` for every output as a 1-D
:class:`~expmech.impl.exact._rationals.RationalArray`.  Three kinds of quality are
evaluated, fastest first:

* a spec :class:`~expmech.spec.QualityFunction`: by the vectorised exact
  evaluator (:class:`~expmech.impl.quality._vectorised.VectorisedQuality`), with the
  outputs encoded once for the range;
* an object with a ``scores(dataset, outputs)`` method: called once (with the
  ``range`` object itself when the range was given as one); an integer numpy
  array is taken as it is, without a Python-level pass;
* any other callable: called once per output.

A quality that raises, or returns NaN, an infinity or a non-number, gets a
:class:`~expmech.spec.QualityError` naming the output.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.spec import ExpMechError, QualityError, QualityFunction
from expmech.spec.internal import as_rational, describe

from ..exact._rationals import LIMIT, RationalArray
from ._vectorised import OutputBatch, VectorisedQuality

__all__ = ["ScoreFunction"]

_INT64 = np.dtype(np.int64)


class ScoreFunction:
    """``dataset ↦ (q(dataset, r))_{r ∈ outputs}``, exact, as a :class:`RationalArray`."""

    __slots__ = ("_quality", "_outputs", "_given", "_vectorised", "_batch", "_scores_method")

    def __init__(self, quality: Callable[[Any, Any], Any], outputs: tuple[Hashable, ...], *, given: Any = None) -> None:
        """``outputs`` is the validated range; ``given``, if not None, the ``range`` object it came from.

        A ``scores`` method then receives the ``range`` itself (the same values
        in the same order), so it can build its output array without a pass
        over a tuple of Python ints.
        """
        self._quality = quality
        self._outputs = outputs
        self._given = given if isinstance(given, range) and len(given) == len(outputs) else outputs
        self._vectorised = VectorisedQuality(quality) if isinstance(quality, QualityFunction) else None
        self._batch: OutputBatch | None = None
        method = getattr(quality, "scores", None)
        self._scores_method = method if callable(method) and self._vectorised is None else None

    def __call__(self, dataset: Any) -> RationalArray:
        """The exact scores of every output on ``dataset``."""
        return self.with_extremes(dataset)[0]

    def with_extremes(self, dataset: Any) -> tuple[RationalArray, int | None, int | None]:
        """``(scores, top, bottom)``: the scores as by calling this, and, where they were read on the way (an
        int64 vector from a ``scores`` method), the largest and smallest numerator (else None, None)."""
        method = self._scores_method
        if method is not None:
            outputs = self._outputs
            raw = _guarded(method, dataset, self._given, label="quality.scores", output=None)
            if type(raw) is np.ndarray and raw.dtype == _INT64 and raw.ndim == 1 and raw.size == len(outputs) and raw.size:
                top, bottom = raw.item(raw.argmax()), raw.item(raw.argmin())  # argmax/argmin: cheaper calls than max/min
                bound = max(-bottom, top)
                if bound < LIMIT:
                    return RationalArray.trusted(raw, 1, bound), top, bottom
            return _convert_batch(raw, outputs), None, None
        return self._evaluate(dataset), None, None

    def _evaluate(self, dataset: Any) -> RationalArray:
        if self._vectorised is not None:
            if self._batch is None:
                self._batch = self._vectorised.encode_outputs(self._outputs)
            return self._vectorised.scores(dataset, self._batch)
        quality, outputs = self._quality, self._outputs
        values = []
        for r in outputs:
            values.append(_convert_one(_guarded(quality, dataset, r, label="quality", output=r), r))
        return RationalArray.of(values)


    def many(self, datasets: Sequence[Any]) -> list[RationalArray]:
        """The exact scores of every output on each dataset, equal to ``self(dataset)`` one by one; a spec
        quality scores them all in one vectorised batch (see :meth:`VectorisedQuality.scores_many`)."""
        if self._vectorised is None or len(datasets) < 2:
            return [self(dataset) for dataset in datasets]
        if self._batch is None:
            self._batch = self._vectorised.encode_outputs(self._outputs)
        matrix = self._vectorised.scores_many(datasets, self._batch)
        return [matrix[j] for j in range(len(datasets))]


def _guarded(function: Callable[..., Any], dataset: Any, argument: Any, *, label: str, output: Any) -> Any:
    """``function(dataset, argument)``; anything it raises but an ExpMechError becomes a QualityError."""
    try:
        return function(dataset, argument)
    except ExpMechError:
        raise
    except Exception as error:
        where = "" if output is None else f" at r={describe(output)}"
        raise QualityError(f"{label} raised {type(error).__name__}: {error}{where}", output=output) from error


def _convert_one(value: Any, r: Any) -> int | Fraction:
    kind = type(value)
    if kind is int or kind is Fraction:
        return value
    try:
        return as_rational(value, name=f"quality(dataset, {r!r})")
    except ExpMechError as error:
        raise QualityError(f"{error} (at r={describe(r)})", output=r, value=value) from None


def _convert_batch(raw: Any, outputs: tuple[Hashable, ...]) -> RationalArray:
    if isinstance(raw, np.ndarray):
        if raw.shape != (len(outputs),):
            raise QualityError(f"quality.scores returned shape {raw.shape}; expected ({len(outputs)},)", value=raw)
        if raw.dtype == np.int64:
            bound = max(-int(raw.min()), int(raw.max())) if raw.size else 0
            return RationalArray.integers(raw, bound=bound)
        if raw.dtype.kind in "iu":
            return RationalArray.integers(raw)
        if raw.dtype.kind == "f" and not np.isfinite(raw).all():
            index = int(np.flatnonzero(~np.isfinite(raw))[0])
            raise QualityError(
                f"quality.scores returned {raw[index]!r} at r={describe(outputs[index])}; it must be a finite rational",
                output=outputs[index],
                value=raw[index],
            )
        raw = raw.tolist()
    try:
        values = list(raw)
    except TypeError:
        raise QualityError(f"quality.scores returned {describe(raw)}, not a sequence", value=raw) from None
    if len(values) != len(outputs):
        raise QualityError(f"quality.scores returned {len(values)} values for {len(outputs)} outputs", value=raw)
    return RationalArray.of([_convert_one(v, r) for v, r in zip(values, outputs)])
