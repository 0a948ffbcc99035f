"""Limits on untrusted certificates: enforced before anything reaches sympy or z3.

A certificate is input from a third party, so the checker bounds it at every
stage, each bound with its own clear error:

1. **bytes** — the file size is read from the file system before the file is
   read (``max_bytes``);
2. **JSON** — strict parsing: UTF-8, no duplicate keys, no floats, ``NaN`` or
   ``Infinity``, integers of at most ``max_digits`` digits, nesting at most
   ``max_depth``, strings at most ``max_string`` characters;
3. **content** (after the digest, before the JSON Schema) — digits of every
   rational, the size, depth and exponents of expression trees, records per
   dataset, finite domain sizes, outputs, a Beta prior's parameters, and the
   prover budgets a certificate may ask the checker to spend.

:class:`CertificateRefused` (exit 2 at the command line) is raised for a
limit; :class:`CertificateMalformed` (exit 1) for JSON no honest certificate
contains (duplicate keys, floats).
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from expmech.spec import SMALL_DOMAIN, InvalidArgument
from expmech.spec.internal import describe

from ...checker import Limits
from ..check._cost import DEFAULT_BUDGET_MB, effective_budget, estimate_work
from ..check._powers import exact_power_problem

__all__ = [
    "CertificateLimits",
    "CertificateMalformed",
    "CertificateRefused",
    "LIMIT_NAMES",
    "check_content_limits",
    "check_exact_powers",
    "parse_json",
    "parse_limit",
    "read_limited",
]


class CertificateRefused(InvalidArgument):
    """A certificate exceeds a limit of :class:`CertificateLimits` (or is not JSON): refused unparsed.

    ``parameter`` names the limit (``"max_bytes"``, ``"max_depth"``, …) and
    ``value`` holds what was found.
    """


class CertificateMalformed(InvalidArgument):
    """A certificate's JSON holds what no certificate may: a duplicate key, a float, ``NaN``."""


@dataclass(frozen=True)
class CertificateLimits:
    """Bounds on an untrusted certificate; every field is an int >= 1.

    The defaults admit every certificate ``expmech`` writes for the catalogue
    (< 30 KB) and for ``expmech synth`` up to (k, m) = (3, 6) (350 KB) with room
    to spare, and keep the refusal of anything larger well under a second.
    ``max_small_model_evaluations`` bounds the work of the small-model check
    (:mod:`expmech.proofs.smallmodel`) that ``certify`` and ``check`` run on
    every PROVED claim; above it the work is refused up front.
    """

    max_bytes: int = Limits.max_bytes  # the input limits the verifier shares: its defaults, one source
    max_depth: int = Limits.max_depth
    max_string: int = Limits.max_string
    max_digits: int = Limits.max_digits
    max_expression_nodes: int = Limits.max_expression_nodes
    max_expression_depth: int = 64
    max_exponent: int = 64
    max_degree: int = 256
    max_records: int = 64
    max_domain_size: int = 10**15  # of a domain that is listed: Categories, Grid, an IntRange of <= expmech.spec.SMALL_DOMAIN values
    max_outputs: int = Limits.max_outputs
    max_rlimit: int = 10**9
    max_timeout_ms: int = 600_000
    max_search_size: int = 8
    max_search_budget: int = 10**7
    max_pairs: int = 10_000
    max_beta: int = 1_000
    max_small_model_evaluations: int = 2_000_000
    max_power_bits: int = 2**20  # an exact power's bits (._powers): a geometric μ's ratio over its distances, a posterior's L^a
    max_memory_mb: int = DEFAULT_BUDGET_MB  # the re-derivation's estimated peak memory (._cost), also under RLIMIT_AS

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgument(f"{item.name}={describe(value)} must be an int >= 1", parameter=item.name, value=value)


#: The names of :class:`CertificateLimits`' fields.
LIMIT_NAMES = tuple(item.name for item in fields(CertificateLimits))


def _refuse(limit: str, message: str, value: Any = None) -> CertificateRefused:
    if limit in LIMIT_NAMES:  # a size limit, not a broken file: say how a trusted larger certificate gets in
        message += f" (to admit a larger certificate you trust: CertificateLimits({limit}=…), expmech check --limit {limit}=…)"
    return CertificateRefused(message, parameter=limit, value=value)


def parse_limit(text: str) -> tuple[str, int]:
    """``"NAME=VALUE"`` (``expmech check --limit``) as a :class:`CertificateLimits` field name and an int >= 1."""
    name, equals, value = text.partition("=")
    name = name.strip().replace("-", "_")
    if not equals or name not in LIMIT_NAMES:
        known = ", ".join(LIMIT_NAMES)
        raise InvalidArgument(f"--limit={text!r} must be NAME=VALUE with NAME one of {known}", parameter="limit", value=text)
    try:
        number = int(value.strip().replace("_", ""))
    except ValueError:
        number = 0
    if number < 1:
        raise InvalidArgument(f"--limit={text!r}: {name} must be an int >= 1, not {value.strip()!r}", parameter=name, value=value.strip())
    return name, number


def read_limited(path: Path, limits: CertificateLimits) -> bytes:
    """The bytes of ``path``, refused by size before they are read."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise InvalidArgument(f"certificate={str(path)!r} does not exist", parameter="certificate", value=str(path)) from None
    except OSError as error:
        raise InvalidArgument(f"certificate={str(path)!r} cannot be read: {error}", parameter="certificate", value=str(path)) from None
    if not path.is_file():  # a directory (Path("") is "."), a FIFO that would block, a device
        raise InvalidArgument(f"certificate={str(path)!r} is not a regular file", parameter="certificate", value=str(path))
    if size > limits.max_bytes:
        raise _refuse("max_bytes", f"the certificate has {size} bytes, more than max_bytes={limits.max_bytes}", size)
    try:
        with path.open("rb") as handle:
            raw = handle.read(limits.max_bytes + 1)
    except OSError as error:
        raise InvalidArgument(f"certificate={str(path)!r} cannot be read: {error}", parameter="certificate", value=str(path)) from None
    if len(raw) > limits.max_bytes:
        raise _refuse("max_bytes", f"the certificate has more than max_bytes={limits.max_bytes} bytes", len(raw))
    return raw


class _Duplicate(Exception):
    pass


class _Inexact(Exception):
    pass


class _TooLong(Exception):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)  # built in C; a key given twice leaves the dict shorter than the pairs
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Duplicate(key)
            seen.add(key)
    return result


def parse_json(raw: bytes | str, limits: CertificateLimits, *, what: str = "certificate") -> Any:
    """Parse untrusted JSON strictly within ``limits`` (see the module docstring)."""
    if len(raw) > limits.max_bytes:
        raise _refuse("max_bytes", f"the {what} has {len(raw)} bytes, more than max_bytes={limits.max_bytes}", len(raw))
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise _refuse("encoding", f"the {what} is not UTF-8: {error}") from None
    else:
        text = raw

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > limits.max_digits:
            raise _TooLong(digits)
        return int(digits)

    def inexact(value: str) -> Any:
        raise _Inexact(value)

    # with no run of more than max_digits digits anywhere in the text, no integer can be too long: int() parses
    # each, without a Python call per integer (a 10⁵-row certificate holds millions)
    long_digits = re.search("[0-9]{%d}" % (limits.max_digits + 1), text) is not None
    try:
        data = json.loads(text, object_pairs_hook=_pairs, parse_float=inexact, parse_constant=inexact, parse_int=integer if long_digits else int)
    except _Duplicate as error:
        raise CertificateMalformed(f"the {what} repeats the JSON key {str(error)!r}", parameter="json", value=str(error)) from None
    except _Inexact as error:
        raise CertificateMalformed(
            f"the {what} holds the inexact number {str(error)[:40]!r}; certificates hold exact values only", parameter="json", value=str(error)[:40]
        ) from None
    except _TooLong as error:
        raise _refuse("max_digits", f"an integer in the {what} has {len(str(error))} digits, more than max_digits={limits.max_digits}") from None
    except RecursionError:
        raise _refuse("max_depth", f"the {what} is nested deeper than max_depth={limits.max_depth}") from None
    except json.JSONDecodeError as error:
        raise _refuse("json", f"the {what} is not JSON: {error}") from None
    check_shape(data, limits, what=what)
    return data


def check_shape(data: Any, limits: CertificateLimits, *, what: str = "certificate") -> None:
    """Depth, string length, integer digits and exactness of already parsed JSON data (iteratively), and its size:
    data handed over in memory (not read from a file) is refused by ``max_bytes`` as soon as a lower bound on its
    compact JSON text (a byte a value, a string's and a key's characters) exceeds it."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    size = 1  # a byte for every value, counted as it is pushed, plus the characters of strings and keys

    def too_big() -> CertificateRefused:
        return _refuse("max_bytes", f"the {what} has more than max_bytes={limits.max_bytes} bytes as JSON", size)

    while stack:
        value, depth = stack.pop()
        if isinstance(value, str | dict | list):
            size += len(value) + (sum(len(key) for key in value if isinstance(key, str)) if isinstance(value, dict) else 0)
            if size > limits.max_bytes:
                raise too_big()
        if depth > limits.max_depth:
            raise _refuse("max_depth", f"the {what} is nested deeper than max_depth={limits.max_depth}", depth)
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise CertificateMalformed(f"the {what} has a non-string key {describe(key)}", parameter="json", value=key)
                if len(key) > limits.max_string:
                    raise _refuse("max_string", f"a key in the {what} is longer than max_string={limits.max_string}", len(key))
                stack.append((item, depth + 1))
        elif isinstance(value, list):
            if depth < limits.max_depth and _small_ints(value, limits.max_digits):
                continue  # a row of plain ints within max_digits: nothing below it to check
            if depth + 1 < limits.max_depth and _small_int_rows(value, limits.max_digits):
                size += sum(map(len, value))  # rows of them (a finite range's outputs): the rows' sizes, in one pass
                if size > limits.max_bytes:
                    raise too_big()
                continue
            if depth < limits.max_depth and _short_texts(value, limits.max_string):
                size += sum(map(len, value))  # strings within max_string (a finite range's base measure), in one pass
                if size > limits.max_bytes:
                    raise too_big()
                continue
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            if len(value) > limits.max_string:
                raise _refuse("max_string", f"a string in the {what} has {len(value)} characters, more than max_string={limits.max_string}", len(value))
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, int):
            if value.bit_length() > 4 * limits.max_digits or len(str(abs(value))) > limits.max_digits:
                raise _refuse("max_digits", f"an integer in the {what} has more than max_digits={limits.max_digits} digits")
        else:
            raise CertificateMalformed(f"the {what} holds {describe(value)}; certificates hold exact JSON values only", parameter="json", value=value)


def _small_ints(values: list[Any], digits: int) -> bool:
    """Whether ``values`` holds only ints (not bools) of at most ``min(digits, 15)`` digits, checked in bulk."""
    bound = 10 ** min(digits, 15)
    return bool(values) and set(map(type, values)) == {int} and -bound < min(values) and max(values) < bound


def _short_texts(values: list[Any], length: int) -> bool:
    """Whether ``values`` holds only strings, each of at most ``length`` characters, checked in bulk."""
    return bool(values) and set(map(type, values)) == {str} and max(map(len, values)) <= length


def _small_int_rows(rows: list[Any], digits: int) -> bool:
    """Whether ``rows`` is a non-empty list of lists holding only ints (not bools) of at most ``min(digits, 15)``
    digits, checked in bulk."""
    if not rows or not all(type(row) is list for row in rows):
        return False
    flat = list(itertools.chain.from_iterable(rows))
    return not flat or _small_ints(flat, digits)


_RATIONAL = re.compile(r"-?([0-9]+)(?:/([0-9]+))?")


def _digits(text: str, limits: CertificateLimits, where: str) -> None:
    match = _RATIONAL.fullmatch(text)
    if match is not None and max(len(match.group(1)), len(match.group(2) or "")) > limits.max_digits:
        raise _refuse("max_digits", f"{where} has a number with more than max_digits={limits.max_digits} digits")


def _expression(tree: Any, limits: CertificateLimits, where: str) -> None:
    nodes = 0
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_expression_nodes:
            raise _refuse("max_expression_nodes", f"{where} has more than max_expression_nodes={limits.max_expression_nodes} nodes")
        if depth > limits.max_expression_depth:
            raise _refuse("max_expression_depth", f"{where} is nested deeper than max_expression_depth={limits.max_expression_depth}")
        if isinstance(node, list):  # a Piecewise branch [expr, cond]
            stack.extend((item, depth) for item in node)
            continue
        if not isinstance(node, dict):
            continue
        args = node.get("args")
        if not isinstance(args, list):
            continue
        if node.get("node") == "Pow" and len(args) == 2:
            exponent = args[1]
            text = exponent.get("rational") if isinstance(exponent, dict) else None
            if not isinstance(text, str) and isinstance(exponent, dict) and ("node" in exponent or "symbol" in exponent):
                # the language's powers have integer exponents: an expression there is a tower
                raise _refuse("max_exponent", f"{where} has a power whose exponent is not a number (only integers within ±max_exponent={limits.max_exponent})")
            if isinstance(text, str):  # anything else that is not an expression is malformed: the schema names it
                _digits(text, limits, where)
                match = _RATIONAL.fullmatch(text)
                if match is not None and (len(match.group(1)) > 4 or abs(int(text.split("/")[0])) > limits.max_exponent):
                    raise _refuse("max_exponent", f"{where} has the exponent {text[:40]}, beyond ±max_exponent={limits.max_exponent}", text[:40])
        stack.extend((item, depth + 1) for item in args)
    degree = _degree(tree)
    if degree > limits.max_degree:
        raise _refuse("max_degree", f"{where} has degree {degree}, more than max_degree={limits.max_degree} (nested powers multiply their exponents)", degree)


def _degree(tree: Any) -> int:
    """A bound on the expression's degree, every number and variable counting 1: products add, a power multiplies by
    its exponent's magnitude, anything else takes the largest of its arguments.  It bounds the digits an exact
    evaluation can reach (nested powers, each within max_exponent, multiply: ((r^64)^64)^64 has degree 64^3).
    Iterative (post-order), so any nesting of the (node-limited) tree is fine."""
    done: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(tree, False)]
    while stack:
        node, expanded = stack.pop()
        if isinstance(node, list):
            children: list[Any] = node
        elif isinstance(node, dict) and isinstance(node.get("args"), list):
            children = node["args"]
        else:
            done[id(node)] = 1
            continue
        if not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in children)
            continue
        degrees = [done[id(child)] for child in children]
        kind = node.get("node") if isinstance(node, dict) else None
        if kind == "Pow" and len(children) == 2:
            text = children[1].get("rational") if isinstance(children[1], dict) else None
            match = _RATIONAL.fullmatch(text) if isinstance(text, str) else None
            done[id(node)] = degrees[0] * (int(match.group(1)) if match is not None else 1)
        elif kind == "Mul":
            done[id(node)] = sum(degrees)
        else:
            done[id(node)] = max(degrees, default=1)
    return done[id(tree)]


def _domain(domain: Any, limits: CertificateLimits, where: str) -> None:
    if not isinstance(domain, dict):
        return
    kind = domain.get("kind")
    size = None
    lo, hi = _bound(domain.get("lo"), limits), _bound(domain.get("hi"), limits)
    if kind == "IntRange" and lo is not None and hi is not None:
        size = hi - lo + 1
        if size > SMALL_DOMAIN:
            return  # never listed (expmech.spec.SMALL_DOMAIN): symbolic, so its size costs nothing and is not limited
    elif kind == "Categories" and isinstance(domain.get("labels"), list):
        size = len(domain["labels"])
    elif kind == "Grid" and isinstance(domain.get("points"), list):
        size = len(domain["points"])
    if size is not None and size > limits.max_domain_size:
        raise _refuse("max_domain_size", f"{where} has {size} values, more than max_domain_size={limits.max_domain_size}", size)


def _bound(value: Any, limits: CertificateLimits) -> int | None:
    """An integer range's end as an int (a JSON integer, or ``{"integer": "digits"}`` within max_digits), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = value.get("integer") if isinstance(value, dict) else None
    if isinstance(text, str) and text.lstrip("-").isdigit() and text.isascii() and len(text) <= limits.max_digits + 1:
        return int(text)
    return None


_BUDGETS = {
    "rlimit": "max_rlimit",
    "timeout_ms": "max_timeout_ms",
    "search_size": "max_search_size",
    "search_budget": "max_search_budget",
    "pairs": "max_pairs",
}


def _member(value: Any, *keys: Any) -> Any:
    for key in keys:
        if isinstance(value, dict) and isinstance(key, str):
            value = value.get(key)
        elif isinstance(value, list) and isinstance(key, int) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def _work(predicate: dict[str, Any], quality: dict[str, Any], mechanism_range: Any, options: dict[str, Any], limits: CertificateLimits) -> None:
    """Refuse a re-derivation whose estimated peak memory (:mod:`..check._cost`) exceeds ``max_memory_mb`` or the address space left."""
    outputs = mechanism_range.get("outputs") if isinstance(mechanism_range, dict) else None
    variables = quality.get("outputs")
    pairs = options.get("pairs")
    estimate = estimate_work(
        listed_outputs=len(outputs) if isinstance(outputs, list) else 0,
        variables=len(variables) if isinstance(variables, list) else 1,
        pairs=pairs if isinstance(pairs, int) and not isinstance(pairs, bool) and pairs >= 0 else 0,
    )
    limit, source = effective_budget(limits.max_memory_mb)
    if estimate.memory_mb > limit:
        message = f"the estimated work of re-deriving it ({estimate.text()}) exceeds {source} (max_memory_mb; expmech check --budget MB)"
        raise _refuse("max_memory_mb", message, estimate.memory_mb)


def _derivations(predicate: dict[str, Any], limits: CertificateLimits) -> None:
    """Each claim's derivation tree: at most ``max_expression_nodes`` nodes nested at most ``max_expression_depth``
    deep, and every bound in it an expression within the expression limits."""
    claims = predicate.get("claims")
    for claim in claims if isinstance(claims, list) else []:
        derivation = claim.get("derivation") if isinstance(claim, dict) else None
        if not isinstance(derivation, dict):
            continue
        where = f"the derivation of claim {str(claim.get('id'))[:40]!r}"
        _expression(derivation.get("bound"), limits, where)
        nodes = 0
        stack: list[tuple[Any, int]] = [(derivation.get("root"), 1)]
        while stack:
            node, depth = stack.pop()
            if not isinstance(node, dict):
                continue
            nodes += 1
            if nodes > limits.max_expression_nodes:
                raise _refuse("max_expression_nodes", f"{where} has more than max_expression_nodes={limits.max_expression_nodes} nodes")
            if depth > limits.max_expression_depth:
                raise _refuse("max_expression_depth", f"{where} is nested deeper than max_expression_depth={limits.max_expression_depth}")
            _expression(node.get("bound"), limits, f"{where} (node {str(node.get('id'))[:20]!r})")
            premises = node.get("premises")
            stack.extend((premise, depth + 1) for premise in (premises if isinstance(premises, list) else []))


def check_exact_powers(predicate: Any, limits: CertificateLimits) -> None:
    """Refuse (:class:`CertificateRefused`, naming the field and the limit) a predicate whose exact arithmetic would
    raise a rational to a power past ``max_power_bits`` or a posterior's ``ε₀ = a/b`` with ``a > max_exponent``
    (:mod:`..check._powers`); ``check`` runs it with the content limits, ``certify`` before deriving."""
    problem = exact_power_problem(predicate, limits.max_power_bits, limits.max_exponent)
    if problem is not None:
        raise _refuse(problem.limit, problem.message, problem.value)


def check_content_limits(statement: Any, limits: CertificateLimits) -> None:
    """The content limits of a statement of any shape (run before the schema); raise :class:`CertificateRefused` naming the first exceeded."""
    predicate = _member(statement, "predicate")
    if not isinstance(predicate, dict):
        return
    quality: dict[str, Any] = predicate["quality"] if isinstance(predicate.get("quality"), dict) else {}
    _expression(quality.get("expression"), limits, "the quality expression")
    for side in ("schema", "outputs"):
        pairs = quality.get(side)
        for pair in pairs if isinstance(pairs, list) else []:
            if isinstance(pair, list) and len(pair) == 2:
                _domain(pair[1], limits, f"the domain of {str(pair[0])[:40]!r}")
    _derivations(predicate, limits)
    options: dict[str, Any] = predicate["options"] if isinstance(predicate.get("options"), dict) else {}
    if options.get("claimed") is not None:
        _expression(options["claimed"], limits, "the claimed sensitivity")
    for name, limit in _BUDGETS.items():
        value = options.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value > getattr(limits, limit):
            raise _refuse(limit, f"options.{name}={value} is above {limit}={getattr(limits, limit)}", value)
    mechanism_range = _member(predicate, "mechanism", "range")
    for name in ("alpha", "beta"):
        value = _member(mechanism_range, "prior", name)
        if isinstance(value, int) and not isinstance(value, bool) and value > limits.max_beta:
            raise _refuse("max_beta", f"the Beta prior's {name}={value} is above max_beta={limits.max_beta}", value)
    for key in ("outputs", "base_measure"):
        items = mechanism_range.get(key) if isinstance(mechanism_range, dict) else None
        if isinstance(items, list) and len(items) > limits.max_outputs:
            raise _refuse("max_outputs", f"mechanism.range.{key} has {len(items)} entries, more than max_outputs={limits.max_outputs}", len(items))
    _work(predicate, quality, mechanism_range, options, limits)
    check_exact_powers(predicate, limits)
    # one pass over the rest: records per dataset and the digits of every number written as text; a place is
    # (parent place, key) and becomes text only for the message; a list of scalars that cannot hold a number
    # past max_digits (ints, bools, null, short strings) is passed over in bulk
    stack: list[tuple[Any, Any]] = [(predicate, "predicate")]
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("dataset1", "dataset2") and isinstance(item, list) and len(item) > limits.max_records:
                    raise _refuse("max_records", f"{_place(where)}.{key} has {len(item)} records, more than max_records={limits.max_records}", len(item))
                stack.append((item, (where, key)))
        elif isinstance(value, list):
            if not _plain_scalars(value, limits.max_digits) and not _plain_scalar_rows(value, limits.max_digits):
                stack.extend((item, (where, i)) for i, item in enumerate(value))
        elif isinstance(value, str) and len(value) > limits.max_digits:  # a shorter text holds no longer number
            _digits(value, limits, _place(where))


def _plain_scalars(values: list[Any], digits: int) -> bool:
    """Whether ``values`` holds only ints, bools, None and strings of at most ``digits`` characters (no number in
    them can exceed ``digits`` digits), checked in bulk."""
    kinds = set(map(type, values))
    if not kinds <= {int, bool, type(None), str}:
        return False
    return str not in kinds or max(len(v) for v in values if type(v) is str) <= digits


def _plain_scalar_rows(rows: list[Any], digits: int) -> bool:
    """Whether ``rows`` is a list of lists of such scalars (a finite range's outputs), checked in bulk."""
    if not rows or set(map(type, rows)) != {list}:
        return False
    return _plain_scalars(list(itertools.chain.from_iterable(rows)), digits)


def _place(where: Any) -> str:
    """The text of a place built as nested ``(parent, key)`` pairs: ``predicate.claims[0].witness``."""
    keys: list[Any] = []
    while isinstance(where, tuple):
        where, key = where
        keys.append(key)
    return str(where) + "".join(f"[{key}]" if isinstance(key, int) else f".{key}" for key in reversed(keys))
