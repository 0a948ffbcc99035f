"""A quality given as a plain Python function: traced where a checker takes a quality function.

``prove_sensitivity``, ``certify`` and ``assert_dp`` take either a
:class:`~expmech.spec.QualityFunction` (or a likelihood) or a plain Python
function ``fn(data, r)`` with ``schema=`` and ``outputs=`` (an
:class:`~expmech.spec.OutputSpace`); the function is traced by
:func:`expmech.spec.trace` — and checked against its trace — before anything
else happens.  What is proved is the traced expression; results and
certificates carry its :class:`~expmech.spec.TraceRecord`.
"""

from __future__ import annotations

from typing import Any

from expmech.spec import InvalidArgument, LogLikelihood, OutputSpace, QualityFunction, RecordSchema, trace
from expmech.spec.internal import describe

__all__ = ["traced_quality"]


def traced_quality(quality: Any, *, schema: Any, outputs: Any, where: str) -> tuple[Any, Any]:
    """``(quality, outputs)`` with a plain function traced when ``schema`` is given (its ``outputs`` consumed).

    A quality function of the language passes through with ``outputs``
    unchanged; ``schema=`` with one is refused (:class:`InvalidArgument`), as
    is ``schema=`` with ``outputs`` that is not an :class:`OutputSpace`.
    Without ``schema`` the caller's own checks apply (a black box is refused there).
    """
    if schema is None:
        return quality, outputs
    if isinstance(quality, QualityFunction | LogLikelihood):
        raise InvalidArgument(f"{where}: schema={describe(schema)} is for a plain Python function; {describe(quality)} already has its schema", parameter="schema", value=schema)
    if not isinstance(schema, RecordSchema):
        raise InvalidArgument(f"{where}: schema={describe(schema)} must be a RecordSchema", parameter="schema", value=schema)
    if not isinstance(outputs, OutputSpace):
        raise InvalidArgument(
            f"{where}: a plain Python function needs outputs= an OutputSpace (the output variables and their domains), not {describe(outputs)}",
            parameter="outputs",
            value=outputs,
        )
    return trace(quality, schema=schema, outputs=outputs), None
