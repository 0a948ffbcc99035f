"""Log-likelihood qualities: posterior sampling as an exponential mechanism.

Posterior sampling draws a parameter θ with density proportional to
``π(θ)·L(d | θ)^{ε₀}`` (``ε₀ = 1``: the posterior itself; other ``ε₀``: a
tempered posterior).  That is the exponential mechanism with base measure
``μ = π`` and quality ``q(d, θ) = ln L(d | θ) = Σ_{x ∈ d} ln ℓ(x, θ)``
(statement ``posterior-sampling``).

The quality's values are logarithms, but of *rationals*: ``ℓ(x, θ)`` is an
expression of the spec language in the record's fields and the output
variables (the parameter), evaluated exactly, so the mechanism's weights
``e^{ε₀ q} = L^{ε₀}`` are rationals for integer ``ε₀`` and nothing transcendental
enters until ε itself, ``2·ε₀·ln ρ`` with the rational ``ρ`` bounding the
likelihood ratio of two records.  :class:`LogLikelihood` holds ``ℓ``; its
sensitivity is the *multiplicative* one,
``ρ = max ℓ(x, θ)/ℓ(x', θ)`` over records ``x, x'`` and parameters θ (replace-one)
or ``max(ℓ, 1/ℓ)`` (add-remove), so ``Δq = ln ρ``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from ._errors import InvalidArgument, InvalidType, QualityError, describe
from ._language import OutputSpace, RecordSchema
from ._quality import Env, compile_expression, _SpecFunction
from ._serial import function_from_json, function_to_json

__all__ = ["BetaPrior", "LogLikelihood", "likelihood_from_json", "likelihood_to_json"]

CANONICAL_VERSION = "expmech-log-likelihood/1"


class LogLikelihood(_SpecFunction):
    """The quality ``q(d, θ) = Σ_{x ∈ d} ln ℓ(x, θ)`` for a per-record likelihood ``ℓ`` of the spec language.

    ``likelihood`` is a numeric sympy expression in the fields of ``schema``
    (used directly, without aggregates: it is one record's likelihood) and the
    variables of ``outputs`` (the parameter θ).  It must evaluate to a rational
    ``>= 0``; a zero likelihood makes ``q = −∞`` (that θ is impossible given the
    record), which is allowed in the mechanism but leaves ``Δq`` infinite.
    Powers need integer exponents, numbers must be exact; violations raise
    :class:`InvalidArgument` naming the offending part.

    >>> from expmech.spec import Booleans, Grid
    >>> schema, outputs = RecordSchema(x=Booleans()), OutputSpace(theta=Grid((Fraction(1, 4), Fraction(3, 4))))
    >>> x, theta = schema["x"], outputs["theta"]
    >>> bernoulli = LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=outputs)
    >>> bernoulli.likelihood([True, True, False], Fraction(1, 4))
    Fraction(3, 64)
    >>> bernoulli([True], Fraction(1, 4))
    -log(4)
    """

    __slots__ = ("_evaluate",)

    def __init__(self, likelihood: Any, *, schema: RecordSchema, outputs: OutputSpace, name: str | None = None) -> None:
        self._setup(likelihood, schema, outputs, name, parameter="likelihood", version=CANONICAL_VERSION, inside="likelihood")
        self._evaluate = compile_expression(self._expr)

    def record_likelihood_codes(self, record: Env, output: Env) -> Fraction:
        """``ℓ(x, θ)`` on an encoded record and parameter; a negative value raises :class:`QualityError`."""
        env: Env = {**record, **output}
        try:
            value = Fraction(self._evaluate(env, ()))
        except ZeroDivisionError:
            raise QualityError(f"division by zero evaluating the likelihood {self._label()} at θ={_show(output)}", output=output) from None
        if value < 0:
            raise QualityError(f"the likelihood {self._label()} is {value} < 0 at θ={_show(output)}, record {_show(record)}", output=output, value=value)
        return value

    def likelihoods(self, dataset: Any, outputs: Sequence[Any]) -> list[Fraction]:
        """``L(d | θ) = Π_{x ∈ d} ℓ(x, θ)`` for each θ in ``outputs``, exactly (equal records share one power)."""
        records = self._encode_dataset(dataset)
        groups = Counter(tuple(sorted(((s.name, v) for s, v in record.items()), key=lambda kv: kv[0])) for record in records)
        encoded = [dict(zip([self._schema[name] for name, _ in key], [v for _, v in key])) for key in groups]
        counts = list(groups.values())
        result = []
        for i, theta in enumerate(outputs):
            codes = self._outputs.encode(theta, name=f"outputs[{i}]")
            product = Fraction(1)
            for record, count in zip(encoded, counts):
                product *= self.record_likelihood_codes(record, codes) ** count
                if product == 0:
                    break
            result.append(product)
        return result

    def likelihood(self, dataset: Any, theta: Any) -> Fraction:
        """``L(d | θ)`` exactly."""
        return self.likelihoods(dataset, [theta])[0]

    def __call__(self, dataset: Any, theta: Any) -> sympy.Expr:
        """``q(d, θ) = ln L(d | θ)`` as an exact sympy number (``-oo`` where the likelihood is 0)."""
        value = self.likelihood(dataset, theta)
        return -sympy.oo if value == 0 else sympy.log(sympy.Rational(value.numerator, value.denominator))

    def _encode_dataset(self, dataset: Any) -> list[Env]:
        if isinstance(dataset, str | bytes) or not isinstance(dataset, Sequence):
            raise InvalidType(f"dataset={describe(dataset)} must be a sequence of records", parameter="dataset", value=dataset)
        return [self._schema.encode(record, name=f"dataset[{i}]") for i, record in enumerate(dataset)]

    def _label(self) -> str:
        return self._name or str(self._expr)

    def __repr__(self) -> str:
        label = f"{self._name}: " if self._name else ""
        return f"LogLikelihood({label}sum of log({self._expr}))"



def _show(codes: Env) -> str:
    return ", ".join(f"{k}={v}" for k, v in codes.items())


@dataclass(frozen=True)
class BetaPrior:
    """The prior density ``∝ θ^{α−1}(1−θ)^{β−1}`` of a continuous parameter θ, integer ``α, β >= 1``.

    The base measure of a posterior over a clipped interval ``[a, b] ⊂ (0, 1)``:
    with integer parameters it is a polynomial, so every integral of the
    posterior is a rational.  ``BetaPrior(1, 1)`` is the uniform prior.
    """

    alpha: int
    beta: int

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidType(f"{name}={describe(value)} must be an int (a polynomial density needs integer parameters)", parameter=name, value=value)
            if value < 1:
                raise InvalidArgument(f"{name}={value} must be >= 1", parameter=name, value=value)

    def describe(self) -> str:
        """Canonical text."""
        return f"BetaPrior({self.alpha}, {self.beta})"


def likelihood_to_json(quality: LogLikelihood) -> dict[str, Any]:
    """Schema, parameter space and the tree of ``ℓ``, with the canonical text and sha256 (``kind: log-likelihood``)."""
    return {"kind": "log-likelihood", **function_to_json(quality)}


def likelihood_from_json(data: Any, *, check_sha256: bool = True) -> LogLikelihood:
    """Rebuild a :class:`LogLikelihood` from :func:`likelihood_to_json` data without evaluating code; checks its sha256
    (unless ``check_sha256=False``)."""
    if not isinstance(data, dict) or data.get("kind") != "log-likelihood":
        raise InvalidArgument(f"quality {describe(data)} is not log-likelihood data", parameter="quality", value=data)
    quality: LogLikelihood = function_from_json(data, LogLikelihood, what="likelihood", check_sha256=check_sha256)
    return quality
