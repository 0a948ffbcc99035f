"""Exact powers a re-derivation would compute, estimated from a certificate before any of it is done.

Two kinds of certificate make the exact arithmetic raise a rational to a power
whose size the certificate chooses, with no bound on the work:

* a **piecewise-geometric base measure** on the integers, ``μ(k) = w·ρ^{k − a}``:
  the exact sums take ``ρ`` to the distance between the integers the
  mechanism meets (its breakpoints, the range's ends, the quality's constants
  and field domains).  A breakpoint near 2**52 asks for a number of 2**52 bits;
* **posterior sampling** over a finite grid with ``ε₀ = a/b``: every weight is
  ``L(d | θ)^a`` under a ``b``-th root, so a large ``a`` (a 60-digit numerator)
  asks for likelihoods raised to a 60-digit power.

:func:`exact_power_problem` reads those numbers from the (not yet
schema-validated) statement and says which limit refuses it:
``max_power_bits`` bounds the bits of ``ρ^{distance}`` (estimated as
``2 · distance · bits(ρ)``, the distance bounded by the largest magnitude among
the integers and constants the certificate names), and ``max_exponent`` bounds
a posterior's ``a``, as it bounds the quality's own powers.  Anything it cannot
read is left to the schema and the re-derivation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["PowerProblem", "exact_power_problem"]

_RATIONAL = re.compile(r"-?([0-9]+)(?:/([0-9]+))?")


@dataclass(frozen=True)
class PowerProblem:
    """The limit (``limit``) a certificate's exact powers exceed, the message naming the field, and the estimate."""

    limit: str
    message: str
    value: int


def _magnitude(text: Any) -> int | None:
    """``max(|p|, q)`` of a rational text ``"p/q"`` (digits already bounded by max_digits), else None."""
    match = _RATIONAL.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        return None
    return max(int(match.group(1)), int(match.group(2) or 1))


def _end(value: Any) -> int | None:
    """The magnitude of an integer range's end: a JSON integer or ``{"integer": "digits"}``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value)
    if isinstance(value, dict):
        return _magnitude(value.get("integer"))
    return None


def _constants(tree: Any) -> int:
    """The largest magnitude among the rational constants of an expression tree (iterative; 0 if none)."""
    largest, stack = 0, [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            found = _magnitude(node.get("rational"))
            largest = max(largest, found or 0)
            args = node.get("args")
            if isinstance(args, list):
                stack.extend(args)
    return largest


def _distance(predicate: dict[str, Any], measure: dict[str, Any], span: dict[str, Any]) -> int:
    """A bound on the integers the exact sums meet: the largest magnitude the certificate names (at least 1)."""
    found = [1]
    found += [abs(b) for b in measure.get("breakpoints", []) if isinstance(b, int) and not isinstance(b, bool)]
    found += [m for m in (_magnitude(v) if isinstance(v, str) else _end(v) for v in (span.get("lo"), span.get("hi"))) if m is not None]
    quality: dict[str, Any] = predicate["quality"] if isinstance(predicate.get("quality"), dict) else {}
    for side in ("schema", "outputs"):
        pairs = quality.get(side)
        for pair in pairs if isinstance(pairs, list) else []:
            domain = pair[1] if isinstance(pair, list) and len(pair) == 2 and isinstance(pair[1], dict) else {}
            found += [m for m in (_end(domain.get("lo")), _end(domain.get("hi"))) if m is not None]
    found.append(_constants(quality.get("expression")))
    return max(found)


def _geometric(predicate: dict[str, Any], span: dict[str, Any], max_bits: int) -> PowerProblem | None:
    measure = span.get("base_measure")
    if not isinstance(measure, dict) or measure.get("kind") != "PiecewiseGeometric" or not isinstance(measure.get("ratios"), list):
        return None
    ratios = [_RATIONAL.fullmatch(r) for r in measure["ratios"] if isinstance(r, str)]
    bits = max((max(int(m.group(1)).bit_length(), int(m.group(2) or 1).bit_length()) for m in ratios if m is not None and m.group(0) not in ("1", "1/1")), default=0)
    if bits == 0:
        return None  # every ratio is 1 (or unreadable, left to the schema): no power grows
    distance = _distance(predicate, measure, span)
    estimate = 2 * distance * bits
    if estimate <= max_bits:
        return None
    message = (
        f"mechanism.range.base_measure: a geometric ratio of {bits} bits over distances up to {distance} (breakpoints "
        f"{str(measure.get('breakpoints'))[:80]}) makes exact powers of about {estimate} bits, more than max_power_bits={max_bits}"
    )
    return PowerProblem("max_power_bits", message, estimate)


def _posterior(predicate: dict[str, Any], span: dict[str, Any], max_exponent: int) -> PowerProblem | None:
    quality = predicate.get("quality")
    if not isinstance(quality, dict) or quality.get("kind") != "log-likelihood" or span.get("kind") == "interval":
        return None
    mechanism: dict[str, Any] = predicate["mechanism"] if isinstance(predicate.get("mechanism"), dict) else {}
    text = mechanism.get("epsilon0")
    match = _RATIONAL.fullmatch(text) if isinstance(text, str) else None
    if match is None or int(match.group(1)) <= max_exponent:
        return None
    power = int(match.group(1))
    message = (
        f"mechanism.epsilon0={_short(str(text))!r}: posterior sampling raises every likelihood to the power a = {_short(str(power))} "
        f"(ε₀ = a/b), above max_exponent={max_exponent}"
    )
    return PowerProblem("max_exponent", message, power)


def _short(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}…{text[-12:]} ({len(text)} characters)"


def exact_power_problem(predicate: Any, max_bits: int, max_exponent: int) -> PowerProblem | None:
    """The first exact power of ``predicate`` (a certificate's predicate, any shape) past its limit, or None.

    A piecewise-geometric base measure whose estimated powers exceed
    ``max_bits`` bits, or posterior sampling over a grid whose ``ε₀ = a/b`` has
    ``a > max_exponent``, is a :class:`PowerProblem` naming the field, its value
    and the limit; anything else (including what the schema will refuse) is None.
    """
    if not isinstance(predicate, dict):
        return None
    mechanism = predicate.get("mechanism")
    span = mechanism.get("range") if isinstance(mechanism, dict) else None
    if not isinstance(span, dict):
        return None
    return _geometric(predicate, span, max_bits) or _posterior(predicate, span, max_exponent)
