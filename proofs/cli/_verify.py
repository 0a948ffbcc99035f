"""``expmech verify``: load targets, certify each mechanism, aggregate an exit code, render it.

Targets are ``module:attr`` (a catalogue entry, a sequence of them, or a dict
with ``quality``, ``epsilon``, ``neighbours`` and optionally ``claimed``,
``name``) or a ``pyproject.toml`` whose ``[tool.expmech]`` table lists
``mechanisms``.  With no target: the current directory's ``pyproject.toml``
if it has that table, else the built-in catalogue.

Exit codes: 0 every mechanism certified; 1 a violation (REFUTED); 2 usage or
configuration error; 3 inconclusive (BOUNDED, TESTED or UNKNOWN); 4 internal
error.  With mixed results a violation wins, then an internal error, then an
inconclusive result.
"""

from __future__ import annotations

import importlib
import math
import json
import tomllib
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE
from expmech.spec import ExpMechError, InvalidArgument, LogLikelihood, QualityFunction
from expmech.spec._serial import rational_from_text

from ..certificate._build import Certificate, certify
from .._outcome import Status

__all__ = [
    "EXIT_INCONCLUSIVE",
    "EXIT_INTERNAL",
    "EXIT_USAGE",
    "EXIT_VERIFIED",
    "EXIT_VIOLATION",
    "Target",
    "Verdict",
    "exit_code",
    "load_targets",
    "render",
    "verify_targets",
]

EXIT_VERIFIED, EXIT_VIOLATION, EXIT_USAGE, EXIT_INCONCLUSIVE, EXIT_INTERNAL = 0, 1, 2, 3, 4


class UsageError(InvalidArgument):
    """A target or configuration that cannot be used (exit code 2)."""


@dataclass(frozen=True)
class Target:
    """One mechanism to verify."""

    name: str
    quality: QualityFunction | LogLikelihood
    epsilon: Any
    neighbours: Any
    claimed: Any = None
    source: str = "catalogue"
    base_measure: Any = None
    auction: Any = None


@dataclass(frozen=True)
class Verdict:
    """The outcome for one target: its certificate, or the internal error that stopped it."""

    target: Target
    certificate: Certificate | None
    error: str | None = None

    @property
    def status(self) -> Status | None:
        """The certificate's status (None after an internal error)."""
        return None if self.certificate is None else self.certificate.status

    def claim(self, claim_id: str) -> dict[str, Any] | None:
        """The certificate's claim with this id."""
        if self.certificate is None:
            return None
        for claim in self.certificate.statement["predicate"]["claims"]:
            if claim["id"] == claim_id:
                return claim
        return None


def _epsilon(value: Any, source: str) -> Any:
    if isinstance(value, str):
        try:
            return rational_from_text(value, name="epsilon")
        except InvalidArgument as error:
            raise UsageError(f"{source}: {error}", parameter="epsilon", value=value) from None
    return value


def _from_entry(entry: Any, source: str) -> Target:
    if isinstance(entry, dict):
        try:
            return Target(
                name=str(entry.get("name") or getattr(entry["quality"], "name", None) or "unnamed"),
                quality=entry["quality"],
                epsilon=_epsilon(entry["epsilon"], source),
                neighbours=entry["neighbours"],
                claimed=entry.get("claimed"),
                source=source,
                base_measure=entry.get("base_measure"),
            )
        except KeyError as missing:
            raise UsageError(f"{source}: the mechanism needs the key {missing}", parameter="target", value=source) from None
    needed = ("name", "quality", "epsilon", "neighbours", "claimed_sensitivity")
    if all(hasattr(entry, attr) for attr in needed):
        return Target(entry.name, entry.quality, entry.epsilon, entry.neighbours, entry.claimed_sensitivity, source, getattr(entry, "base_measure", None), getattr(entry, "auction", None))
    raise UsageError(f"{source}: {entry!r} is neither a catalogue entry nor a mechanism dict", parameter="target", value=source)


def _import(reference: str) -> Any:
    module_name, _, attr = reference.partition(":")
    if not module_name or not attr:
        raise UsageError(f"target {reference!r} must be module:attr or a pyproject.toml", parameter="target", value=reference)
    try:
        value: Any = importlib.import_module(module_name)
    except ImportError as error:
        raise UsageError(f"target {reference!r}: cannot import {module_name!r}: {error}", parameter="target", value=reference) from None
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise UsageError(f"target {reference!r}: {module_name!r} has no attribute {attr!r}", parameter="target", value=reference) from None
    return value


def _from_value(value: Any, source: str) -> list[Target]:
    if isinstance(value, dict) or hasattr(value, "claimed_sensitivity"):
        return [_from_entry(value, source)]
    if isinstance(value, Iterable) and not isinstance(value, str | bytes):
        return [_from_entry(item, source) for item in value]
    raise UsageError(f"{source}: {value!r} is not a mechanism or a list of them", parameter="target", value=source)


def _from_pyproject(path: Path) -> list[Target] | None:
    try:
        config = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"{path}: cannot read it: {error}", parameter="target", value=str(path)) from None
    table = config.get("tool", {}).get("expmech")
    if table is None:
        return None
    mechanisms = table.get("mechanisms")
    if not isinstance(mechanisms, list) or not mechanisms:
        raise UsageError(f"{path}: [tool.expmech] needs a non-empty 'mechanisms' array", parameter="target", value=str(path))
    targets = []
    for index, item in enumerate(mechanisms):
        if not isinstance(item, dict) or "quality" not in item:
            raise UsageError(f"{path}: mechanisms[{index}] needs a 'quality' = \"module:attr\"", parameter="target", value=str(path))
        quality = _import(item["quality"])
        entry = {**item, "quality": quality}
        targets.append(_from_entry(entry, f"{path}:mechanisms[{index}]"))
    return targets


def load_targets(references: list[str], *, cwd: Path | None = None) -> list[Target]:
    """Resolve command-line targets (see the module docstring); raises a usage error naming the bad one."""
    if not references:
        local = (cwd or Path.cwd()) / "pyproject.toml"
        if local.is_file():
            found = _from_pyproject(local)
            if found:
                return found
        return [_from_entry(entry, "expmech.impl:CATALOGUE") for entry in CATALOGUE] + [
            _from_entry(entry, "expmech.impl:POSTERIOR_CATALOGUE") for entry in POSTERIOR_CATALOGUE
        ]
    targets: list[Target] = []
    for reference in references:
        path = Path(reference)
        if reference.endswith(".toml") or path.is_file():
            found = _from_pyproject(path)
            if found is None:
                raise UsageError(f"{reference}: has no [tool.expmech] table", parameter="target", value=reference)
            targets.extend(found)
        else:
            targets.extend(_from_value(_import(reference), reference))
    for target in targets:
        if not isinstance(target.quality, QualityFunction | LogLikelihood):
            raise UsageError(
                f"{target.source}: quality {target.quality!r} is not an expmech.spec.QualityFunction or LogLikelihood "
                "(black-box callables can only be falsified: see expmech.proofs.falsify)",
                parameter="target",
                value=target.source,
            )
    return targets


def verify_targets(targets: list[Target], *, progress: Any = None, **prover_options: Any) -> list[Verdict]:
    """Certify each target; an unexpected exception becomes an internal-error verdict, not a crash."""
    verdicts = []
    for target in targets:
        try:
            certificate = certify(
                target.quality,
                epsilon=target.epsilon,
                neighbours=target.neighbours,
                claimed=target.claimed,
                base_measure=target.base_measure,
                **({"auction": target.auction} if target.auction is not None else {}),
                **prover_options,
            )
            verdicts.append(Verdict(target, certificate))
        except ExpMechError as error:
            verdicts.append(Verdict(target, None, f"{type(error).__name__}: {error}"))
        except Exception:  # noqa: BLE001 - reported as exit code 4 with the traceback
            verdicts.append(Verdict(target, None, traceback.format_exc(limit=3)))
        if progress is not None:
            progress()
    return verdicts


def exit_code(verdicts: list[Verdict]) -> int:
    """0 all PROVED; 1 any REFUTED; else 4 any internal error; else 3 anything inconclusive."""
    if any(v.status is Status.REFUTED for v in verdicts):
        return EXIT_VIOLATION
    if any(v.certificate is None for v in verdicts):
        return EXIT_INTERNAL
    if any(v.status is not Status.PROVED for v in verdicts):
        return EXIT_INCONCLUSIVE
    return EXIT_VERIFIED


def _line(verdict: Verdict) -> list[str]:
    target = verdict.target
    if verdict.certificate is None:
        return [f"ERROR    {target.name}: internal error: {verdict.error.strip().splitlines()[-1] if verdict.error else ''}"]
    sensitivity = verdict.claim("sensitivity") or {}
    status = verdict.status
    eps = verdict.certificate.epsilon
    head = f"{status!s:8} {target.name}  "
    relation = sensitivity.get("claimed") or sensitivity.get("bound")
    if status is Status.PROVED:
        tight = "tight" if sensitivity.get("tight") else "not shown tight"
        lines = [head + f"ε = {eps}  (Δq = {relation}, {tight}; {verdict.certificate.statement['predicate']['mechanism']['neighbours']}, ε₀ = {target.epsilon})"]
    else:
        lines = [head + f"no ε-DP claim: {sensitivity.get('reason', '')}"]
    truthfulness = verdict.claim("truthfulness")
    if truthfulness is not None:
        approx = float(Fraction(truthfulness["utility_bound"])) * math.expm1(float(Fraction(truthfulness["epsilon"])))
        lines.append(
            f"         truthfulness {truthfulness['status']}: no report gains more than (e^ε − 1)·U = {truthfulness['bound']} ≈ {approx:.4g}"
        )
    counterexample = sensitivity.get("counterexample")
    if counterexample:
        lines.append(
            f"         counterexample: D = {json.dumps(counterexample['dataset1'])}, D' = {json.dumps(counterexample['dataset2'])}, "
            f"r = {json.dumps(counterexample['output'])}, |q(D,r) − q(D',r)| = {counterexample['difference']}"
        )
    return lines


def _json(verdicts: list[Verdict]) -> str:
    items = []
    for v in verdicts:
        sensitivity = v.claim("sensitivity") or {}
        items.append(
            {
                "name": v.target.name,
                "status": None if v.status is None else str(v.status),
                "epsilon": None if v.certificate is None else v.certificate.epsilon,
                "sensitivity": sensitivity.get("bound"),
                "claimed": sensitivity.get("claimed"),
                "tight": sensitivity.get("tight"),
                "counterexample": sensitivity.get("counterexample"),
                "reason": sensitivity.get("reason") if v.error is None else v.error,
                "digest": None if v.certificate is None else v.certificate.digest,
            }
        )
    return json.dumps({"exit_code": exit_code(verdicts), "mechanisms": items}, indent=2, ensure_ascii=False)


_LEVEL = {Status.REFUTED: "error", Status.UNKNOWN: "warning", Status.TESTED: "warning", Status.BOUNDED: "note", Status.PROVED: "none"}


def _sarif(verdicts: list[Verdict], version: str) -> str:
    rules = [
        {"id": "expmech/refuted", "shortDescription": {"text": "A claimed sensitivity or ε-DP guarantee is violated by a concrete counterexample"}},
        {"id": "expmech/inconclusive", "shortDescription": {"text": "No proof and no counterexample: no ε-DP claim is made"}},
        {"id": "expmech/proved", "shortDescription": {"text": "ε-differential privacy proved"}},
        {"id": "expmech/internal-error", "shortDescription": {"text": "The verifier failed on this mechanism"}},
    ]
    results = []
    for v in verdicts:
        status = v.status
        if status is None:
            rule, level, text = "expmech/internal-error", "error", v.error or "internal error"
        elif status is Status.REFUTED:
            rule, level, text = "expmech/refuted", "error", "; ".join(_line(v))
        elif status is Status.PROVED:
            rule, level, text = "expmech/proved", "none", "; ".join(_line(v))
        else:
            rule, level, text = "expmech/inconclusive", _LEVEL[status], "; ".join(_line(v))
        results.append(
            {
                "ruleId": rule,
                "level": level,
                "kind": "pass" if status is Status.PROVED else "fail",
                "message": {"text": text},
                "locations": [{"logicalLocations": [{"name": v.target.name, "fullyQualifiedName": f"{v.target.source}:{v.target.name}", "kind": "function"}]}],
            }
        )
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{"tool": {"driver": {"name": "expmech", "version": version, "rules": rules}}, "results": results}],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _junit(verdicts: list[Verdict]) -> str:
    failures = sum(1 for v in verdicts if v.status is Status.REFUTED)
    errors = sum(1 for v in verdicts if v.status is None)
    skipped = sum(1 for v in verdicts if v.status is not None and v.status not in (Status.PROVED, Status.REFUTED))
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<testsuites><testsuite name="expmech verify" tests="{len(verdicts)}" failures="{failures}" errors="{errors}" skipped="{skipped}">',
    ]
    for v in verdicts:
        text = escape("\n".join(_line(v)))
        lines.append(f"  <testcase classname={quoteattr(v.target.source)} name={quoteattr(v.target.name)}>")
        if v.status is Status.REFUTED:
            lines.append(f"    <failure message={quoteattr('REFUTED')}>{text}</failure>")
        elif v.status is None:
            lines.append(f"    <error message={quoteattr('internal error')}>{escape(v.error or '')}</error>")
        elif v.status is not Status.PROVED:
            lines.append(f"    <skipped message={quoteattr(str(v.status) + ': no ε-DP claim')}/>")
        lines.append("  </testcase>")
    lines.append("</testsuite></testsuites>")
    return "\n".join(lines)


def render(verdicts: list[Verdict], fmt: str, *, version: str = "") -> str:
    """The report in ``text``, ``json``, ``sarif`` (2.1.0) or ``junit`` (XML)."""
    if fmt == "json":
        return _json(verdicts)
    if fmt == "sarif":
        return _sarif(verdicts, version)
    if fmt == "junit":
        return _junit(verdicts)
    lines = [line for v in verdicts for line in _line(v)]
    counts: dict[str, int] = {}
    for v in verdicts:
        key = "ERROR" if v.status is None else str(v.status)
        counts[key] = counts.get(key, 0) + 1
    lines.append(", ".join(f"{count} {key}" for key, count in sorted(counts.items())) + f" — exit code {exit_code(verdicts)}")
    return "\n".join(lines)
