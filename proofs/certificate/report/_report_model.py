"""What a certificate report says, worked out from the certificate alone: plain data for the templates.

Every claim gets its status and an explanation in words; a witness is
labelled "Witness" and a counterexample "Counterexample"; the quality
function is rendered as MathML (sympy's presentation printer, no network) and
as LaTeX for Markdown; ε is stated once and, where it depends on the dataset
size n, evaluated at the n of the plotted pair — the same value the plot draws.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from fractions import Fraction
from importlib import metadata
from typing import Any

import sympy
from sympy.printing.mathml import mathml

from expmech.spec import DATASET_SIZE, ExpMechError, likelihood_from_json, quality_from_json, rational_from_text
from expmech.spec.internal import approximate, readable

from ..make._build import Certificate
from ..format._inputs import decode_value as _decode
from ._claims import recorded_pair

__all__ = ["ClaimView", "ReportModel", "report_model"]

NEIGHBOURS = {
    "replace-one": "D and D′ have the same number of records and differ in exactly one of them",
    "add-remove": "D′ is D with one record added (or removed)",
}
TITLES = {
    "sensitivity": "Global sensitivity Δq",
    "monotonicity": "Monotonicity of q",
    "privacy": "ε-differential privacy",
    "conformance": "Conformance of the implementation",
    "truthfulness": "Approximate truthfulness",
}
_SKIPPED = {"id", "statement", "status", "method", "reason", "witness", "counterexample", "evidence", "hypotheses", "auction", "instances"}


@dataclass(frozen=True)
class ClaimView:
    """One claim as the report shows it."""

    id: str
    title: str
    status: str
    css: str
    method: str
    explanation: str
    pair_label: str | None = None
    pair: str | None = None
    details: list[tuple[str, str]] = field(default_factory=list)
    queries: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ReportModel:
    """Everything the Markdown and HTML templates print."""

    name: str
    title: str
    status: str
    css: str
    dp_claim: bool
    epsilon: str | None
    epsilon_detail: str
    summary: str
    epsilon_label: str | None
    epsilon_at_n: float | None
    epsilon0: str
    neighbours: str
    neighbours_text: str
    kind: str
    formula_mathml: str
    formula_latex: str
    formula_text: str
    weight: str
    records: str
    outputs: str
    range_size: int
    base_measure: str
    delta_q: str
    delta_q_text: str
    delta_q_how: str
    claims: list[ClaimView]
    notes: list[str]
    digest: str
    quality_sha256: str
    implementation_sha256: str
    tools: str
    generated: str
    reporter: str
    traced: str = ""
    traced_source: str = ""


def _css(status: str) -> str:
    return {"PROVED": "proved", "REFUTED": "refuted"}.get(status, "inconclusive")


def _sympy(text: str) -> sympy.Expr:
    return sympy.sympify(text, locals={"n": DATASET_SIZE})


def _domain(data: dict[str, Any], *, interval: bool = False) -> str:
    kind = data.get("kind")
    lo, hi = data.get("lo"), data.get("hi")
    if kind == "IntRange":
        return f"integers {'−∞' if lo is None else lo} … {'∞' if hi is None else hi}"
    if kind in ("RationalRange", "interval"):
        span = f"{'(−∞' if lo is None else f'[{lo}'}, {'∞)' if hi is None else f'{hi}]'}"
        return f"the interval {span} of the reals" if interval else f"rationals in {span}"
    if kind == "Booleans":
        return "booleans {false, true}"
    if kind == "Categories":
        return "categories {" + ", ".join(str(label) for label in data["labels"]) + "}"
    if kind == "Grid":
        points = data["points"]
        shown = ", ".join(points[:8]) + (f", … ({len(points)} points)" if len(points) > 8 else "")
        return f"grid {{{shown}}}"
    return str(kind)


def _formula(predicate: dict[str, Any]) -> tuple[str, str, str, str]:
    """(kind, MathML, LaTeX, plain text) of the quality — or of the per-record likelihood for a log-likelihood."""
    data = predicate["quality"]
    likelihood = data.get("kind") == "log-likelihood"
    try:
        function = likelihood_from_json(data, check_sha256=False) if likelihood else quality_from_json(data, check_sha256=False)
        expr = function.expr
        body, latex, text = mathml(expr, printer="presentation"), sympy.latex(expr), str(expr)
    except (ExpMechError, TypeError, ValueError):
        body, latex, text = "<mtext>(not rebuilt)</mtext>", r"\text{(not rebuilt)}", "(not rebuilt)"
    if likelihood:
        head = "<mi>ℓ</mi><mo>(</mo><mi>x</mi><mo>,</mo><mi>θ</mi><mo>)</mo><mo>=</mo>"
        return "log-likelihood", f"<math display=\"block\"><mrow>{head}{body}</mrow></math>", r"\ell(x, \theta) = " + latex, text
    head = "<mi>q</mi><mo>(</mo><mi>d</mi><mo>,</mo><mi>r</mi><mo>)</mo><mo>=</mo>"
    return "quality", f"<math display=\"block\"><mrow>{head}{body}</mrow></math>", "q(d, r) = " + latex, text


def _base_measure(values: Any) -> str:
    if isinstance(values, dict):
        fields = {k: v for k, v in values.items() if k != "kind"}
        if values.get("kind") == "PiecewiseDensity" and not values.get("breakpoints") and values.get("densities") == ["1"]:
            return "Lebesgue measure (density 1)"
        def plain(value: Any) -> str:
            return "[" + ", ".join(map(str, value)) + "]" if isinstance(value, list) else str(value)

        return f"{values.get('kind', 'measure')}: " + ", ".join(f"{k} {plain(v)}" for k, v in fields.items())
    if not values:
        return "—"
    if all(v == "1" for v in values):
        return "counting measure (μ(r) = 1 for every output)"
    shown = ", ".join(values[:6]) + (", …" if len(values) > 6 else "")
    return f"μ = ({shown}) over the outputs in order"


def _approx(value: sympy.Expr) -> str:
    """A decimal approximation of a real constant such as log(81), for display."""
    return approximate(Fraction(str(sympy.N(value, 20))))


def _pair_size(sensitivity: dict[str, Any] | None) -> int | None:
    pair = sensitivity and (sensitivity.get("witness") or sensitivity.get("counterexample"))
    return int(_decode(pair["size"])) if pair and "size" in pair else None  # past 2**53 written {"integer": "digits"}


def _epsilon(predicate: dict[str, Any], size: int | None) -> tuple[str, str | None, float | None]:
    """(the sentence about ε, the plot's label, ε at the plotted n) — one value, said the same way everywhere."""
    epsilon = predicate.get("epsilon")
    if not predicate.get("dp_claim") or epsilon is None:
        return f"no ε is certified: the sensitivity is {predicate['status']}, not PROVED", None, None
    value = _sympy(epsilon)
    if DATASET_SIZE in value.free_symbols:
        if size is None:
            return f"ε = {epsilon}, where n is the number of records of the dataset", None, None
        at = value.subs(DATASET_SIZE, size)
        shown = str(at) if at.is_Rational else f"{at} ≈ {_approx(at)}"
        text = f"ε = {epsilon}, where n is the number of records; at n = {size} (the plotted pair): ε = {shown}"
        return text, f"certified ε at n = {size}: {shown}", float(at)
    shown = epsilon if value.is_Rational else f"{epsilon} ≈ {_approx(value)}"
    return f"ε = {shown}", f"certified ε = {shown}", float(value)


def _values(value: Any) -> str:
    return readable(_decode(value))


def _monotone_pair(claim: dict[str, Any]) -> str | None:
    pair = claim.get("counterexample")
    if not pair:
        return None
    return (
        f"from D = {_values(pair['dataset1'])} to D′ = {_values(pair['dataset2'])}, "
        f"q rises at r = {_values(pair['rises_at'])} and falls at r = {_values(pair['falls_at'])}"
    )


def _queries(claim: dict[str, Any]) -> list[dict[str, Any]]:
    evidence = claim.get("evidence") or {}
    return [
        {
            "purpose": q.get("purpose", ""),
            "expected": q.get("expected", ""),
            "result": q.get("result", ""),
            "rlimit": q.get("rlimit_used", ""),
            "solver": q.get("solver", evidence.get("solver", "")),
            "smt2": q.get("smt2", ""),
        }
        for q in evidence.get("queries", [])
    ]


def _details(claim: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for key, value in claim.items():
        if key in _SKIPPED or value is None or isinstance(value, dict | list) and not value:
            continue
        if isinstance(value, str) and "/" in value and value.replace("/", "").replace("-", "").isdigit():
            shown = f"{value} ≈ {approximate(rational_from_text(value))}" if len(value) > 12 else value
        elif isinstance(value, dict | list):
            shown = readable(_decode(value))
        else:
            shown = readable(value) if not isinstance(value, str) else value
        rows.append((key.replace("_", " "), shown))
    return rows


def _claim(claim: dict[str, Any], neighbours: str) -> ClaimView:
    cid, status = claim["id"], claim["status"]
    method, reason = claim.get("method", ""), claim.get("reason", "")
    pair_label = pair = None
    if cid == "sensitivity":
        if status == "PROVED":
            explanation = f"Δq = {claim.get('bound')} under {neighbours}" + (" (tight)" if claim.get("tight") else "") + f": {reason}"
        elif status == "REFUTED":
            explanation = f"the claimed Δq = {claim.get('claimed')} is false: the counterexample below exceeds it"
        else:
            explanation = f"no proof and no counterexample for Δq = {claim.get('claimed')}: {reason}"
        counter = recorded_pair(claim, "counterexample")
        witness = recorded_pair(claim, "witness")
        if counter is not None:
            pair_label, pair = "Counterexample", str(counter)
        elif witness is not None:
            pair_label, pair = "Witness", str(witness)
        elif claim.get("ratio_witness"):
            w = claim["ratio_witness"]
            pair_label = "Witness"
            pair = f"ℓ({_values(w['record2'])}, θ) / ℓ({_values(w['record1'])}, θ) = {w['ratio']} at θ = {_values(w['output'])}"
        elif claim.get("ratio_counterexample"):
            w = claim["ratio_counterexample"]
            pair_label, pair = "Counterexample", readable(_decode(w))
    elif cid == "monotonicity":
        if status == "PROVED":
            explanation = f"q is {claim.get('direction')}: {reason}; so ε = ε₀·Δq"
        elif status == "REFUTED":
            explanation = "q is not monotone — the counterexample below moves it in both directions — so ε = 2·ε₀·Δq"
        else:
            explanation = f"not decided ({reason}); the general bound ε = 2·ε₀·Δq is used"
        text = _monotone_pair(claim)
        if text is not None:
            pair_label, pair = "Counterexample", text
    elif cid == "privacy":
        formula = "ε₀·Δq" if claim.get("monotone") else "2·ε₀·Δq"
        explanation = f"ε = {formula} = {claim.get('epsilon')} with Δq = {claim.get('sensitivity')} ({method})"
    elif cid == "conformance":
        bound = claim.get("largest_loss_upper_bound")
        largest = f"; the largest exact privacy loss is at most {approximate(rational_from_text(bound))}" if bound else ""
        violations = claim.get("violations") or []
        explanation = (
            f"{claim.get('pairs')} generated neighbouring pairs (seed {claim.get('seed')}){largest}; "
            f"{len(violations)} exceed ε. Tested, not a proof."
        )
    elif cid == "truthfulness":
        explanation = f"{claim.get('guarantee', '')}; bound = {claim.get('bound')}"
    else:
        explanation = reason or method
    return ClaimView(cid, TITLES.get(cid, cid), status, _css(status), method, explanation, pair_label, pair, _details(claim), _queries(claim))


def _delta_q_text(sensitivity: dict[str, Any] | None) -> tuple[str, str]:
    """(the Δq shown in facts, the sentence about it)."""
    if sensitivity is None:
        return "—", "no sensitivity claim"
    bound, claimed, status = sensitivity.get("bound"), sensitivity.get("claimed"), sensitivity.get("status")
    if status == "PROVED":
        return str(bound), f"Δq = {bound}"
    if status == "REFUTED":
        proved = f"; the proved bound is {bound}" if bound not in (None, "oo") else ("; q is unbounded" if bound == "oo" else "")
        return f"{claimed} (refuted)", f"the claimed Δq = {claimed} is refuted{proved}"
    return f"{claimed} (not proved)", f"the claimed Δq = {claimed} is {status}"


def report_model(certificate: Certificate, *, title: str | None = None, now: datetime.datetime | None = None) -> ReportModel:
    """The report's content for ``certificate``; ``title`` names the mechanism (default: the quality's name);
    ``now`` (UTC) stamps the report, not the certificate."""
    predicate = certificate.statement["predicate"]
    mechanism = predicate["mechanism"]
    span = mechanism.get("range") or {}
    claims = predicate["claims"]
    sensitivity = next((c for c in claims if c["id"] == "sensitivity"), None)
    neighbours = mechanism["neighbours"]
    kind, formula_mathml, formula_latex, formula_text = _formula(predicate)
    epsilon_detail, epsilon_label, epsilon_at_n = _epsilon(predicate, _pair_size(sensitivity))
    delta_q, delta_q_text = _delta_q_text(sensitivity)
    if sensitivity is None:
        how = "no sensitivity claim"
    else:
        queries = _queries(sensitivity)
        solver = (sensitivity.get("evidence") or {}).get("solver", "")
        budget = sum(q["rlimit"] for q in queries if isinstance(q["rlimit"], int))
        how = f"{sensitivity['status']} by {sensitivity.get('method', '')}" + (
            f"; {len(queries)} solver queries on {solver}, rlimit {budget:,} in total" if queries else ""
        )
    stamp = (now or datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d %H:%M UTC")
    try:
        version = metadata.version("expmech")
    except metadata.PackageNotFoundError:  # pragma: no cover
        version = "unknown"
    name = predicate["quality"].get("name") or "unnamed"
    privacy = next((c for c in claims if c["id"] == "privacy"), None)
    summary = f"Under the {neighbours} neighbour relation with ε₀ = {mechanism['epsilon0']}: {delta_q_text}"
    if predicate.get("dp_claim") and privacy is not None:
        formula = "ε₀·Δq" if privacy.get("monotone") else "2·ε₀·Δq"
        summary += f", so ε = {formula} = {predicate.get('epsilon')}" + (f" ({epsilon_label})" if epsilon_label and "at n" in epsilon_label else "")
    else:
        summary += "; no ε is certified"
    return ReportModel(
        name=name,
        title=title or name,
        status=predicate["status"],
        css=_css(predicate["status"]),
        dp_claim=bool(predicate.get("dp_claim")),
        epsilon=predicate.get("epsilon"),
        epsilon_detail=epsilon_detail,
        summary=summary + ".",
        epsilon_label=epsilon_label,
        epsilon_at_n=epsilon_at_n,
        epsilon0=mechanism["epsilon0"],
        neighbours=neighbours,
        neighbours_text=NEIGHBOURS.get(neighbours, neighbours),
        kind=kind,
        formula_mathml=formula_mathml,
        formula_latex=formula_latex,
        formula_text=formula_text,
        weight=mechanism.get("weight", ""),
        records="; ".join(f"{field} ∈ {_domain(domain)}" for field, domain in predicate["quality"].get("schema", [])),
        outputs="; ".join(f"{field} ∈ {_domain(domain)}" for field, domain in predicate["quality"].get("outputs", []))
        + (f"; the range: {_domain(span, interval=True)}" if span.get("kind") in ("RationalRange", "IntRange", "interval") else ""),
        range_size=len(span["outputs"]) if isinstance(span.get("outputs"), list) else 0,
        base_measure=_base_measure(span.get("base_measure", span.get("prior", []))),
        delta_q=delta_q,
        delta_q_text=delta_q_text,
        delta_q_how=how,
        claims=[_claim(c, neighbours) for c in claims],
        notes=list(predicate.get("notes", [])),
        digest=certificate.digest,
        quality_sha256=predicate["quality"].get("sha256", ""),
        implementation_sha256=predicate.get("implementation_sha256", ""),
        tools=", ".join(f"{tool} {version}" for tool, version in sorted(predicate.get("tools", {}).items())),
        generated=stamp,
        reporter=f"expmech {version}",
        traced=_traced(predicate["quality"].get("trace")),
        traced_source=str((predicate["quality"].get("trace") or {}).get("source", "")),
    )


def _traced(trace: Any) -> str:
    """The sentence saying the quality was traced from Python, and what the proof is of (empty when it was not)."""
    if not isinstance(trace, dict):
        return ""
    return (
        f"Traced from a Python function (source sha256 {str(trace.get('source_sha256', ''))[:12]}…, below). "
        f"Every claim is about the traced expression {trace.get('expression')}, which equals the function on the "
        f"{trace.get('datasets_tested')} generated datasets it was compared on (at every tested output): a test, not a proof, "
        "that the two are the same function."
    )
