"""``expmech account CERT … --times K (--epsilon E | --delta D) [--adaptive]``: compose certified mechanisms.

Each certificate is first re-checked (:func:`~expmech.proofs.check_certificate`);
it must certify ε-DP.  Its ``bounded-range`` claim gives η (else η = 2ε from a
constant certified ε: an ε-DP mechanism's loss lies in [−ε, ε]).  The curve is
the optimal non-adaptive composition (exact for one η, a labelled sound
enclosure otherwise) or, with ``--adaptive``, the adaptive bound
(:mod:`expmech.proofs.accounting`).  For one certificate over a finite range,
the exact composed privacy-loss distribution of its bounded-range witness pair
is reported beside it as a proven lower bound.

Output: text, or JSON ``{"delta": {"lower": "p/q", "upper": "p/q"}, …}``.
``-o FILE`` writes a composition certificate holding the component
certificates (named by digest) and the query; ``expmech check`` re-derives it
(:func:`check_composition`).

Exit codes: 0 computed, 2 usage error (the flag named; a certificate that
certifies no ε), 1 a component (or a composition certificate) does not check.
"""

from __future__ import annotations

import argparse
import decimal
import json
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from expmech.spec import ExpMechError, InvalidArgument

from ._argtypes import bounded_int

__all__ = ["COMPOSITION_KIND", "add_account_parser", "check_composition", "check_composition_file", "compose", "run_account"]

COMPOSITION_KIND = "expmech-composition"
COMPOSITION_VERSION = "1"


def _repeated_int(flag: str, low: int, high: int | None = None) -> Callable[[str], int]:
    """:func:`bounded_int` for a flag that repeats (``action="append"``): a list such as ``2,3`` is refused with how
    to write it (``--times 2 --times 3``), since the flag takes one value each time."""
    one = bounded_int(low, high)

    def parse(text: str) -> int:
        parts = [part.strip() for part in text.replace(";", ",").split(",")]
        if len(parts) > 1 or (len(text.split()) > 1):
            values = [part for chunk in parts for part in chunk.split() if part]
            repeated = " ".join(f"{flag} {value}" for value in values[:4]) + (" …" if len(values) > 4 else "")
            raise argparse.ArgumentTypeError(f"{text!r} is a list, but the flag takes one value and repeats: {repeated}")
        return one(text)

    parse.__name__ = "integer"
    return parse


def _rational(text: str, flag: str) -> Fraction:
    from ._values import parse_rational

    return parse_rational(text, name=flag, where="", max_digits=None)  # a δ may be 1/10^400; text past 4300 digits is refused


def _text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _component(data: dict[str, Any], label: str) -> dict[str, Any]:
    """η and what it rests on, from a sealed certificate that checked; InvalidArgument when it certifies no ε."""
    from ..certificate.format._signing import envelope_payload

    statement = data["certificate"] if "certificate" in data else json.loads(envelope_payload(data["envelope"]))
    predicate = statement["predicate"]
    if predicate.get("epsilon") is None:
        raise InvalidArgument(f"certificate {label} certifies no ε", parameter="certificate", value=label)
    claims = {claim["id"]: claim for claim in predicate["claims"]}
    bounded = claims.get("bounded-range")
    eta: Fraction | None = None
    source = ""
    if bounded is not None and bounded["status"] == "PROVED" and bounded["eta"] is not None:
        eta, source = Fraction(bounded["eta"]), "bounded-range claim"
    try:
        epsilon = Fraction(predicate["epsilon"])
    except ValueError:
        epsilon = None
    if epsilon is not None and (eta is None or 2 * epsilon < eta):
        eta, source = 2 * epsilon, "2ε (an ε-DP mechanism's loss lies in [−ε, ε])"
    if eta is None:
        raise InvalidArgument(
            f"certificate {label} certifies ε = {predicate['epsilon']} (not a constant) and no bounded-range η",
            parameter="certificate",
            value=label,
        )
    return {"digest": data["digest"]["value"], "eta": eta, "source": source, "statement": statement}


def _witness(component: dict[str, Any], times: int) -> Any:
    """The k-fold exact PLD of the bounded-range witness pair, for a finite range; None otherwise.

    The scores are the verifier's own exact evaluation of the certificate's quality (no sympy, no prover).
    """
    from ..accounting import WitnessComposition
    from ..checker import Limits, Malformed, pair_of, quality_at, read_statement

    predicate = component["statement"]["predicate"]
    claims = {claim["id"]: claim for claim in predicate["claims"]}
    pair = claims.get("bounded-range", {}).get("witness")
    if pair is None:
        return None
    limits = Limits()
    statement = read_statement(component["statement"], max_nodes=limits.max_expression_nodes, max_outputs=limits.max_outputs)
    if statement.range.kind != "finite":
        return None
    quality, eps0 = statement.quality, statement.epsilon0
    try:
        d1, d2 = pair_of(quality, pair, "witness", statement.relation == "replace-one")
    except Malformed:
        return None
    first = [quality_at(quality, d1, output) for output in statement.range.outputs]
    second = [quality_at(quality, d2, output) for output in statement.range.outputs]
    if any(value is None for value in first + second):
        return None
    try:
        return WitnessComposition(
            tuple(statement.range.weights), tuple(eps0 * v for v in first if v is not None), tuple(eps0 * v for v in second if v is not None), times
        )
    except InvalidArgument:
        return None


#: What the enclosure is, by case (``"case"`` in the answer).
_CASES = {
    "exact": "the exact optimum, enclosed to relative width 1e-9 (one η, or δ(ε) of at most two mechanisms)",
    "bound": "a sound enclosure of the optimum, not the exact optimum: different η beyond two mechanisms (or ε(δ)); its width is what it is",
    "adaptive": "a sound upper bound on adaptive composition; the lower end is the non-adaptive one",
}


def compose(components: list[dict[str, Any]], times: list[int], *, epsilon: Fraction | None, delta: Fraction | None, adaptive: bool) -> dict[str, Any]:
    """The answer of ``expmech account`` as JSON-ready data (exact rationals as strings)."""
    from ..accounting import AdaptiveComposition, OptimalComposition, ZCDPComposition

    pairs = tuple((c["eta"], k) for c, k in zip(components, times))
    curve = AdaptiveComposition(pairs) if adaptive else OptimalComposition(pairs)
    zcdp = ZCDPComposition(pairs)
    answer: dict[str, Any] = {
        "curve": "adaptive (least of: moment bound on the worst BR pair, Durfee–Rogers 2019 Azuma, zCDP, pure)" if adaptive else "optimal non-adaptive (Dong–Durfee–Rogers 2020)",
        "exact": (not adaptive) and len({eta for eta, _ in pairs}) == 1,
        "case": _CASES["adaptive" if adaptive else "exact" if len({eta for eta, _ in pairs}) == 1 else "bound"],
        "components": [{"digest": c["digest"], "eta": _text(c["eta"]), "eta_from": c["source"], "times": k} for c, k in zip(components, times)],
        "zcdp_rho": _text(zcdp.rho),
    }
    witness = _witness(components[0], times[0]) if len(components) == 1 else None
    if epsilon is not None:
        answer["epsilon"] = _text(epsilon)
        if isinstance(curve, OptimalComposition):
            enclosure, case = curve.delta_case(epsilon)
            answer["exact"], answer["case"] = case == "exact", _CASES[case]
        else:
            enclosure = curve.delta(epsilon)
        answer["delta"] = enclosure.as_json()
        answer["zcdp_delta"] = zcdp.delta(epsilon).as_json()
        if isinstance(curve, AdaptiveComposition):
            answer["adaptive_bound"] = _least(curve.bounds_delta(epsilon))
        if witness is not None:
            answer["witness_lower_bound"] = {"delta": witness.delta(epsilon).as_json()}
    else:
        assert delta is not None
        answer["delta"] = _text(delta)
        answer["epsilon"] = curve.epsilon(delta).as_json()
        answer["zcdp_epsilon"] = zcdp.epsilon(delta).as_json()
        if isinstance(curve, AdaptiveComposition):
            answer["adaptive_bound"] = _least(curve.bounds_epsilon(delta))
        if witness is not None:
            answer["witness_lower_bound"] = {"epsilon": _text(witness.epsilon_lower(delta))}
    return answer


def _least(bounds: dict[str, Fraction]) -> dict[str, Any]:
    """The tightest of the adaptive bounds by name, with every bound's upper end (exact rationals as strings)."""
    name = min(bounds, key=lambda key: bounds[key])
    return {"tightest": name, "bounds": {key: _text(value) for key, value in bounds.items()}}


def _show(text: str, digits: int) -> str:
    """The rational ``text`` to ``digits`` significant digits; past float64 (1e308, or a positive value below
    1e-308 that a float would show as 0) in decimal, so a tiny bound never reads as 0 and a huge one never overflows."""
    value = Fraction(text)
    try:
        shown = float(value)
        if shown != 0 or value == 0:
            return f"{shown:.{digits}g}"
    except OverflowError:
        pass
    with decimal.localcontext() as context:
        context.prec, context.Emax, context.Emin = digits + 5, decimal.MAX_EMAX, decimal.MIN_EMIN
        return f"{decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator):.{digits}g}"


def _render_text(answer: dict[str, Any]) -> str:
    lines = [f"curve: {answer['curve']}", f"  enclosure: {answer['case']}"]
    for c in answer["components"]:
        lines.append(f"  {c['times']} × sha256:{c['digest'][:12]}…  η = {c['eta']} ({c['eta_from']})")
    if "adaptive_bound" in answer:
        lines.append(f"  tightest adaptive bound: {answer['adaptive_bound']['tightest']}")
    if isinstance(answer["delta"], dict):
        d = answer["delta"]
        lines.append(f"δ(ε = {answer['epsilon']}) <= {_show(d['upper'], 6)}   enclosure [{d['lower']}, {d['upper']}]")
        if "witness_lower_bound" in answer:
            lines.append(f"  lower bound (witness pair, exact PLD): δ >= {_show(answer['witness_lower_bound']['delta']['lower'], 6)}")
        lines.append(f"  zCDP (ρ = {answer['zcdp_rho']}): δ <= {_show(answer['zcdp_delta']['upper'], 6)}")
    else:
        e = answer["epsilon"]
        lines.append(f"ε(δ = {answer['delta']}) <= {_show(e['upper'], 10)}   enclosure [{e['lower']}, {e['upper']}]")
        if "witness_lower_bound" in answer:
            lines.append(f"  lower bound (witness pair, exact PLD): ε >= {_show(answer['witness_lower_bound']['epsilon'], 6)}")
        lines.append(f"  zCDP (ρ = {answer['zcdp_rho']}): ε <= {_show(answer['zcdp_epsilon']['upper'], 6)}")
    return "\n".join(lines)


def _load(path: str) -> dict[str, Any]:
    """The certificate at ``path``, read under check's input limits (bytes, depth, digits, strings, floats).

    A limit exceeded raises :class:`CertificateRefused` naming it (exit 2), as ``expmech check`` refuses it.
    """
    from .._inputlimits import check_json_depth
    from ..certificate.format._limits import CertificateLimits, parse_json, read_limited

    limits = CertificateLimits()
    raw = read_limited(Path(path), limits)
    check_json_depth(raw, max_depth=limits.max_depth, what=f"certificate {path!r}")
    data = parse_json(raw, limits)
    if not isinstance(data, dict):
        raise InvalidArgument(f"certificate {path!r} is not a JSON object", parameter="certificate", value=path)
    return data


def _checked(data: dict[str, Any], label: str) -> int:
    """0 when the certificate checks and certifies ε-DP; else its check exit code (with a message)."""
    from ..certificate.check._check import CheckOutcome, check_certificate

    report = check_certificate(data)
    if report.outcome is CheckOutcome.CERTIFIES_DP:
        return 0
    if report.outcome is CheckOutcome.NO_DP_CLAIM:
        raise InvalidArgument(f"certificate {label} certifies no ε: {report.summary}", parameter="certificate", value=label)
    print(f"expmech account: certificate {label}: {report.summary}", file=sys.stderr)
    return report.exit_code


def run_account(args: argparse.Namespace) -> int:
    """The ``account`` subcommand (see the module docstring for exit codes)."""
    epsilon = delta = None
    if args.epsilon is not None:
        epsilon = _rational(args.epsilon, "--epsilon")
        if epsilon <= 0:
            raise InvalidArgument(f"--epsilon={args.epsilon} must be > 0", parameter="--epsilon", value=args.epsilon)
    if args.delta is not None:
        delta = _rational(args.delta, "--delta")
        if not 0 < delta < 1:
            raise InvalidArgument(f"--delta={args.delta} must be in (0, 1)", parameter="--delta", value=args.delta)
    times = list(args.times)
    if any(k < 1 for k in times):
        bad = next(k for k in times if k < 1)
        raise InvalidArgument(f"--times={bad} must be an integer >= 1", parameter="--times", value=bad)
    if len(times) == 1:
        times = times * len(args.certificates)
    if len(times) != len(args.certificates):
        raise InvalidArgument(
            f"--times is given {len(args.times)} times for {len(args.certificates)} certificates (give it once, or once per certificate)",
            parameter="--times",
            value=args.times,
        )
    components = []
    for path in args.certificates:
        data = _load(path)
        code = _checked(data, path)
        if code:
            return code
        components.append(_component(data, path))
    answer = compose(components, times, epsilon=epsilon, delta=delta, adaptive=args.adaptive)
    if args.output:
        from ..certificate.format._canonical import sha256_hex

        body = {
            "kind": COMPOSITION_KIND,
            "version": COMPOSITION_VERSION,
            "adaptive": bool(args.adaptive),
            "query": {"epsilon": _text(epsilon)} if epsilon is not None else {"delta": _text(delta)},  # type: ignore[arg-type]
            "components": [{"digest": c["digest"], "times": k, "certificate": _load(p)} for c, k, p in zip(components, times, args.certificates)],
            "result": answer,
        }
        from .._files import write_atomically

        text = json.dumps({"composition": body, "digest": {"algorithm": "sha256", "value": sha256_hex(body)}}, indent=1) + "\n"
        write_atomically(Path(args.output), text)
    print(json.dumps(answer, indent=1) if args.format == "json" else _render_text(answer))
    return 0


def check_composition(data: dict[str, Any]) -> tuple[int, str]:
    """Re-derive a composition certificate: its digest, every component (checked, digest matching), and the result.

    Returns ``(exit code, message)``: 0 when every part re-derives equal, 1 otherwise, 3 if a component certifies no ε.
    """
    from ..certificate.format._canonical import sha256_hex

    body = data.get("composition")
    if not isinstance(body, dict) or body.get("kind") != COMPOSITION_KIND or body.get("version") != COMPOSITION_VERSION:
        return 1, "not a composition certificate of a known version"
    if sha256_hex(body) != data.get("digest", {}).get("value"):
        return 1, "the digest does not match the composition"
    components, times = [], []
    for index, item in enumerate(body.get("components", [])):
        cert = item.get("certificate")
        if not isinstance(cert, dict) or cert.get("digest", {}).get("value") != item.get("digest"):
            return 1, f"component {index + 1}: its certificate does not have the digest it is named by"
        code = _checked(cert, f"component {index + 1}")
        if code:
            return code, f"component {index + 1} does not check"
        components.append(_component(cert, f"component {index + 1}"))
        times.append(int(item["times"]))
    if not components:
        return 1, "no components"
    query = body.get("query", {})
    epsilon = Fraction(query["epsilon"]) if "epsilon" in query else None
    delta = Fraction(query["delta"]) if "delta" in query else None
    fresh = compose(components, times, epsilon=epsilon, delta=delta, adaptive=bool(body.get("adaptive")))
    if fresh != body.get("result"):
        return 1, "the recorded result differs from the re-derived one"
    shown = fresh["delta"] if isinstance(fresh["delta"], dict) else fresh["epsilon"]
    return 0, f"composition re-derived: {'δ' if isinstance(fresh['delta'], dict) else 'ε'} <= {shown['upper']}"


def check_composition_file(path: str, *, max_bytes: int | None = None) -> tuple[int, str] | None:
    """``check_composition`` of the file at ``path`` if it is a composition certificate; None if it is not one.

    The file is measured before it is read: over ``max_bytes`` (default: check's, 1 MiB; ``expmech check
    --max-bytes`` raises it for a composition as for a certificate) it is not read here at all, and
    ``check_certificate`` refuses it by that same limit.  Its nesting is bounded before it is parsed, and it is
    parsed under check's input limits only when its bytes hold the key ``"composition"`` or a ``\\u`` escape
    that could spell it.
    """
    from .._inputlimits import check_json_depth, read_limited_bytes
    from ..certificate.format._limits import CertificateLimits, parse_json

    limits = CertificateLimits() if max_bytes is None else CertificateLimits(max_bytes=max_bytes)
    try:
        raw = read_limited_bytes(path, max_bytes=limits.max_bytes, what="composition certificate")
        if b'"composition"' not in raw and b"\\u" not in raw:
            return None  # no such key, even escaped: not a composition, and a certificate is parsed once, by check
        check_json_depth(raw, max_depth=limits.max_depth, what="composition certificate")
        data = parse_json(raw, limits)
    except (OSError, ExpMechError):  # not a composition, or past a limit: check_certificate refuses it under its own limits
        return None
    if not isinstance(data, dict) or "composition" not in data:
        return None
    try:
        return check_composition(data)
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as error:
        return 1, f"malformed composition certificate: {type(error).__name__}: {error}"


def add_account_parser(commands: Any) -> None:
    """Register ``expmech account`` on the subcommand parsers."""
    account = commands.add_parser("account", help="compose certified mechanisms: (ε, δ) as an exact enclosure")
    account.add_argument("certificates", nargs="+", metavar="CERT", help="certificates (.cert.json) of the mechanisms composed, each re-checked first")
    account.add_argument(
        "--times", type=_repeated_int("--times", 1), action="append", required=True, metavar="K",
        help="how many times each certificate's mechanism runs: once for all certificates, or repeated once per certificate "
        "in their order (--times 2 --times 3 for two certificates)",
    )
    which = account.add_mutually_exclusive_group(required=True)
    which.add_argument("--epsilon", default=None, help="report δ(ε) at this ε > 0 (p/q or a decimal)")
    which.add_argument("--delta", default=None, help="report ε(δ) at this δ in (0, 1)")
    account.add_argument("--adaptive", action="store_true", help="adaptive composition (a sound bound; also for peeling top-k)")
    account.add_argument("--format", choices=("text", "json"), default="text", help="format of the answer")
    account.add_argument("-o", "--output", default=None, help="write a composition certificate that expmech check re-derives (default: none)")

