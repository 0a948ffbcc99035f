"""Validation of a mechanism's parameters, and exact evaluation of its quality function.

Shared by every mechanism in ``expmech.impl`` so that each bad input gets the
same clear error naming the parameter and its value.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from expmech.spec import ExpMechError, InvalidArgument, InvalidType
from expmech.spec.internal import describe, nonnegative_rational, positive_rational_input

__all__ = [
    "check_epsilon",
    "check_outputs",
    "check_base_measure",
    "check_quality",
    "evaluate_scores",
]


def check_epsilon(epsilon: Any) -> Fraction:
    """``epsilon`` as an exact Fraction > 0, read as the command line reads it: ``"1/4"``, ``"0.25"``, an int, a
    Fraction, a Decimal; a float is its exact binary value, with an :class:`~expmech.spec.InexactFloatWarning`
    where that is not the decimal it prints as (``0.1``)."""
    return positive_rational_input(epsilon, name="epsilon")


def check_outputs(outputs: Any) -> tuple[Hashable, ...]:
    """``outputs`` as a tuple: a finite, non-empty sequence of distinct hashable values.

    A ``str``, ``bytes``, set or mapping is refused (its order or its meaning as
    a range is ambiguous); a 1-D numpy array is accepted.
    """
    if isinstance(outputs, np.ndarray):
        if outputs.ndim != 1:
            raise InvalidArgument(
                f"outputs has shape {outputs.shape}; it must be one-dimensional",
                parameter="outputs",
                value=outputs,
            )
        items: tuple[Any, ...] = tuple(outputs.tolist())
    elif isinstance(outputs, str | bytes) or not isinstance(outputs, Sequence):
        raise InvalidType(
            f"outputs={describe(outputs)} must be a sequence (list, tuple, range) of outputs, "
            f"not {type(outputs).__name__}",
            parameter="outputs",
            value=outputs,
        )
    else:
        items = tuple(outputs)
    if not items:
        raise InvalidArgument("outputs=() must not be empty", parameter="outputs", value=outputs)
    seen: dict[Any, int] = {}
    for index, item in enumerate(items):
        try:
            first = seen.setdefault(item, index)
        except TypeError:
            raise InvalidType(
                f"outputs[{index}]={describe(item)} is not hashable", parameter="outputs", value=item
            ) from None
        if first != index:
            raise InvalidArgument(
                f"outputs[{index}]={describe(item)} duplicates outputs[{first}]",
                parameter="outputs",
                value=item,
            )
    return items


def check_base_measure(base_measure: Any, outputs: tuple[Hashable, ...]) -> tuple[Fraction, ...]:
    """The base measure ``μ(r)`` of each output, as exact Fractions, in output order.

    ``None`` means ``μ(r) = 1`` for every output.  A mapping must give every
    output and nothing else; a callable is called once per output.  Every value
    must be a finite rational >= 0, and not all may be 0.
    """
    if base_measure is None:
        return tuple(Fraction(1) for _ in outputs)
    if isinstance(base_measure, Mapping):
        known = set(outputs)
        extra = [key for key in base_measure if key not in known]
        if extra:
            raise InvalidArgument(
                f"base_measure has a key {describe(extra[0])} that is not an output",
                parameter="base_measure",
                value=extra[0],
            )
        fast = _natural_measure(base_measure, outputs)
        if fast is not None:
            return fast
        values = []
        for r in outputs:
            if r not in base_measure:
                raise InvalidArgument(
                    f"base_measure gives no value for output {describe(r)}",
                    parameter="base_measure",
                    value=r,
                )
            values.append(nonnegative_rational(base_measure[r], name=f"base_measure[{r!r}]"))
    elif callable(base_measure):
        values = []
        for r in outputs:
            try:
                raw = base_measure(r)
            except ExpMechError:
                raise
            except Exception as error:
                raise InvalidArgument(
                    f"base_measure raised {type(error).__name__}: {error} at r={describe(r)}",
                    parameter="base_measure",
                    value=r,
                ) from error
            values.append(nonnegative_rational(raw, name=f"base_measure({r!r})"))
    else:
        raise InvalidType(
            f"base_measure={describe(base_measure)} must be None, a mapping or a callable",
            parameter="base_measure",
            value=base_measure,
        )
    if not any(values):
        raise InvalidArgument(
            "base_measure is 0 at every output; at least one output needs positive measure",
            parameter="base_measure",
            value=base_measure,
        )
    return tuple(values)


def _natural_measure(base_measure: Mapping[Any, Any], outputs: tuple[Hashable, ...]) -> tuple[Fraction, ...] | None:
    """A mapping (keys already checked) of plain ints or Fractions >= 0, not all 0, as Fractions; None for every other case.

    One Fraction per distinct value: a large range with few distinct
    multiplicities (e.g. multinomial counts, or a certificate's measure read
    back as Fractions) is converted in a few passes.  Anything else — another
    type, a negative value, all zeros — is left to the per-value check, which
    names the output.
    """
    try:
        values = [base_measure[r] for r in outputs]
    except (KeyError, TypeError):
        return None
    if not values or not set(map(type, values)) <= {int, Fraction}:
        return None
    # by the values' identities (hashed in C; a Fraction's hash is Python code): each object is converted once, and
    # equal values given as one shared object (a certificate's texts read once each) are one conversion
    fractions = {key: Fraction(value) for key, value in {id(value): value for value in values}.items()}
    if min(fractions.values()) < 0 or not any(fractions.values()):
        return None
    return tuple([fractions[id(value)] for value in values])


def check_quality(quality: Any) -> Callable[[Any, Any], Any]:
    """``quality`` itself; it must be callable as ``quality(dataset, r)``."""
    if not callable(quality):
        raise InvalidType(
            f"quality={describe(quality)} must be callable as quality(dataset, r)",
            parameter="quality",
            value=quality,
        )
    return quality


def evaluate_scores(
    quality: Callable[[Any, Any], Any], dataset: Any, outputs: tuple[Hashable, ...]
) -> tuple[int | Fraction, ...]:
    """``q(dataset, r)`` for every output, as exact rationals (``int`` or ``Fraction``).

    A spec ``QualityFunction`` is evaluated by the vectorised exact evaluator;
    an object with a ``scores(dataset, outputs)`` method is called once and
    must return one value per output (a batch fast path); otherwise
    ``quality(dataset, r)`` is called per output.  A quality that raises, or
    returns NaN, an infinity or a non-number, gets a :class:`QualityError`
    naming the output.  (:class:`~expmech.impl.quality._scoring.ScoreFunction` is the
    vector form.)
    """
    from ._scoring import ScoreFunction

    return tuple(ScoreFunction(quality, outputs)(dataset).to_list())
