"""``trace``: a quality function written as plain Python, turned into the language and checked against itself.

Library authors write scores as Python and numpy::

    def median_score(data, r):
        return -abs(sum(1 for x in data if x <= r) - len(data) / 2)

    quality = trace(median_score, schema=RecordSchema(x=IntRange(0, 15)), outputs=OutputSpace(r=IntRange(0, 15)))

:func:`trace` reads the function's source (:mod:`._trace_source`), runs it on
symbolic values (:mod:`._trace_exec`, :mod:`._trace_calls`) into an
expression of the language — ``-Abs(count(x <= r) - size()/2)`` — and then
compares the two on generated datasets (:mod:`._trace_check`).  Every
construct of the traceable subset (``docs/reference/traceable-python.md``)
translates exactly; anything else raises :class:`~._errors.TraceError` naming
the construct, the file and the line, never a silent approximation.

The result is an ordinary :class:`~._quality.QualityFunction`: whatever is
proved is proved of the traced expression, and its :attr:`trace` records the
function's source, its sha256, the expression and how many datasets the two
were compared on, so reports and certificates can say so.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sympy.logic.boolalg import ITE

from ._errors import InvalidArgument, InvalidType, TraceError, describe
from ._language import OutputSpace, RecordSchema
from ._quality import QualityFunction
from ._trace_check import check_faithful
from ._trace_exec import Tracer
from ._trace_source import source_of
from ._trace_values import Refused

__all__ = ["TraceRecord", "trace"]


@dataclass(frozen=True)
class TraceRecord:
    """Where a traced quality came from: provenance, never evidence.

    ``source`` is the function's source text (dedented), ``source_sha256`` its
    sha256, ``expression`` the traced expression as text, ``datasets_tested``
    the number of datasets on which the two were compared (on every tested
    output).  ``function``, ``filename`` and ``lineno`` say where it is defined.
    """

    source: str
    source_sha256: str
    expression: str
    datasets_tested: int
    function: str = ""
    filename: str = ""
    lineno: int = 0

    def to_json(self) -> dict[str, Any]:
        """The certificate's ``quality.trace`` block: source, its sha256, the traced expression, datasets tested."""
        return {"source": self.source, "source_sha256": self.source_sha256, "expression": self.expression, "datasets_tested": self.datasets_tested}

    @staticmethod
    def from_json(data: Any, expression: str) -> TraceRecord:
        """The record of a certificate's ``quality.trace`` block, checked for consistency with the quality it rides on.

        The sha256 must be the source's and the expression the quality's text;
        otherwise :class:`InvalidArgument`.  Nothing here re-runs the source:
        the block is provenance.
        """
        if not isinstance(data, dict) or set(data) != {"source", "source_sha256", "expression", "datasets_tested"}:
            raise InvalidArgument(f"quality.trace={describe(data)} must have source, source_sha256, expression and datasets_tested", parameter="trace", value=data)
        source, digest, text, tested = data["source"], data["source_sha256"], data["expression"], data["datasets_tested"]
        if not isinstance(source, str) or not isinstance(digest, str) or not isinstance(text, str):
            raise InvalidArgument("quality.trace: source, source_sha256 and expression must be strings", parameter="trace", value=data)
        if isinstance(tested, bool) or not isinstance(tested, int) or tested < 0:
            raise InvalidArgument(f"quality.trace.datasets_tested={describe(tested)} must be an int >= 0", parameter="trace", value=tested)
        if hashlib.sha256(source.encode("utf-8")).hexdigest() != digest:
            raise InvalidArgument("quality.trace.source_sha256 is not the sha256 of quality.trace.source", parameter="trace", value=digest)
        if text != expression:
            raise InvalidArgument(f"quality.trace.expression={describe(text)} is not the quality's expression {describe(expression)}", parameter="trace", value=text)
        return TraceRecord(source, digest, text, tested)


def _at_definition(function: Any, refused: Refused) -> TraceError:
    code = getattr(function, "__code__", None)
    filename = code.co_filename if code is not None else "<unknown>"
    lineno = code.co_firstlineno if code is not None else 0
    name = getattr(function, "__qualname__", None) or type(function).__name__
    return TraceError(
        f"{filename}:{lineno}: cannot trace {refused.construct} ({name}): {refused.why}".rstrip(": "),
        construct=refused.construct,
        filename=filename,
        lineno=lineno,
        value=function,
    )


def trace(fn: Callable[..., Any], *, schema: RecordSchema, outputs: OutputSpace, name: str | None = None) -> QualityFunction:
    """The quality function ``fn(data, r)`` as an expression of the language, checked faithful to ``fn``.

    ``fn`` is a plain Python function (``def`` or ``lambda``) of the dataset
    and the output: ``data`` is a list of records — a record is the value
    itself for a one-field ``schema``, and reads ``rec["name"]`` or
    ``rec.name`` otherwise — and ``r`` is the output (``r["name"]``,
    ``r.name`` or ``a, b = r`` for several variables).  The traceable subset
    (``len``, ``sum`` over comprehensions and generators with ``if`` filters,
    accumulating ``for`` loops, ``min``/``max``, ``sorted(data)[k]``, ``abs``,
    exact ``+ - * / //``, conditionals, ``and``/``or``/``not``, and numpy's
    ``asarray``, comparisons, ``sum``, ``mean``, ``clip``, ``abs``,
    ``minimum``/``maximum``, ``count_nonzero``) is listed in
    ``docs/reference/traceable-python.md``.

    Returns a :class:`QualityFunction` named ``name`` (default: the
    function's name) whose :attr:`~QualityFunction.trace` is the
    :class:`TraceRecord`.  Raises :class:`TraceError` (an
    :class:`InvalidArgument`) naming the construct, ``filename`` and
    ``lineno`` for anything outside the subset, and for a trace that
    disagrees with ``fn`` on a generated dataset (the dataset is in the
    message); :class:`InvalidType` for a schema or output space of the wrong type.
    """
    if not isinstance(schema, RecordSchema):
        raise InvalidType(f"schema={describe(schema)} must be a RecordSchema", parameter="schema", value=schema)
    if not isinstance(outputs, OutputSpace):
        raise InvalidType(f"outputs={describe(outputs)} must be an OutputSpace", parameter="outputs", value=outputs)
    if name is not None and not isinstance(name, str):
        raise InvalidType(f"name={describe(name)} must be a str or None", parameter="name", value=name)
    if not callable(fn):
        raise InvalidType(f"fn={describe(fn)} must be a Python function of (data, r)", parameter="fn", value=fn)
    try:
        source = source_of(fn)
        source.parameters()
    except Refused as refused:
        raise _at_definition(fn, refused) from None
    tracer = Tracer(schema, outputs)
    expr = tracer.trace(source)
    label = name if name is not None else (None if fn.__name__ == "<lambda>" else fn.__name__)
    line = source.line(source.tree)
    if expr.has(ITE):
        raise TraceError(
            f"{source.filename}:{line}: cannot trace {source.name}(): a condition reads a sum or count of conditional per-record "
            "terms (an accumulator updated under an if, then compared), and sympy rewrites it by moving the record's condition out "
            "of the aggregate; compare a count, a size or an unconditional sum instead",
            construct="a condition on an aggregate of conditional terms",
            filename=source.filename,
            lineno=line,
            value=str(expr),
        )
    try:
        quality = QualityFunction(expr, schema=schema, outputs=outputs, name=label)
    except InvalidArgument as error:
        raise TraceError(
            f"{source.filename}:{line}: the trace of {source.name}() is outside the quality-function language: {error}",
            construct="an expression outside the language",
            filename=source.filename,
            lineno=line,
            value=str(expr),
        ) from None
    tested = check_faithful(fn, quality, source)
    digest = hashlib.sha256(source.text.encode("utf-8")).hexdigest()
    quality._trace = TraceRecord(source.text, digest, str(quality.expr), tested, source.name, source.filename, line)
    return quality
