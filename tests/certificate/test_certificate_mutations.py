"""Mutation testing of the checker: every mutant of every catalogue certificate is rejected, unless it is equivalent.

Each certificate of the catalogues (CATALOGUE, WRONG_CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE) is mutated at every leaf (change, delete)
and every list item (delete, duplicate, reorder), objects are reordered, keys
are written twice, and the digest is resealed.  ``check_certificate`` must
reject each mutant — unless the mutant's claims are still all true, which an
oracle independent of the checker decides: a fresh ``certify`` from the
mutant's own inputs must give the mutant's statement, provenance aside (tool
versions, solver labels, implementation hash).  An accepted mutant the oracle
disagrees with is a survivor, and the test fails.

The default suite checks one mutant of every (path class, operator) pair over
the catalogues, spread over the certificates (nested expression arguments at
one depth: see ``_sample_class``), and shares that run between its two tests; ``-m slow`` checks all of
them (the README's mutation score).
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import pytest
import sympy

from certificate_mutants import duplicated_key_text, leaves_and_lists, mutants, path_class
from certificate_oracle import json_value as _value
from certificate_oracle import read_function
from certificate_tools import catalogue_certificate
from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE, DigitalGoodsAuction
from expmech.proofs import CheckOutcome, certify, check_certificate
from expmech.proofs.certificate import DerivationCache
from expmech.proofs.certificate.make._build import seal
from expmech.spec import DATASET_SIZE, BetaPrior, IntRange, RationalRange, measure_from_json
from expmech.spec._serial import expression_from_json

NAMES = [entry.name for entry in CATALOGUE + WRONG_CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE]
CACHE = DerivationCache()


def _without_provenance(statement: dict[str, Any], *, measurements: bool = True) -> dict[str, Any]:
    """The statement without provenance (tool versions, solver labels, implementation hash) and, with
    ``measurements=False``, without the certifier's solver measurements too: its solver log and each query's
    resource count, which z3 does not reproduce across processes."""
    result = copy.deepcopy(statement)
    predicate = result.get("predicate", {})
    if isinstance(predicate, dict):
        predicate.pop("tools", None)
        predicate.pop("implementation_sha256", None)
        if not measurements:
            predicate.pop("solver_calls", None)
        for claim in predicate.get("claims", []) if isinstance(predicate.get("claims"), list) else []:
            evidence = claim.get("evidence") if isinstance(claim, dict) else None
            if isinstance(evidence, dict):
                evidence.pop("solver", None)
                for query in evidence.get("queries", []):
                    if isinstance(query, dict):
                        query.pop("solver", None)
                        if not measurements:
                            query.pop("rlimit_used", None)
    return result


_RECERTIFIED: dict[str, Any] = {}


def _recertified(statement: dict[str, Any]) -> dict[str, Any]:
    """The oracle: a fresh certificate from the statement's own inputs, through ``certify``'s public arguments.

    Mutants that change claims but not inputs share one run (certify is deterministic: rlimits, not timeouts);
    each caller gets its own copy, and a refusal is raised again for each."""
    predicate = statement["predicate"]
    key = json.dumps([predicate.get("quality"), predicate.get("mechanism"), predicate.get("options")], sort_keys=True, default=repr)
    if key not in _RECERTIFIED:
        try:
            _RECERTIFIED[key] = ("ok", _recertify(statement))
        except Exception as error:  # noqa: BLE001 - remembered, raised again below
            _RECERTIFIED[key] = ("error", error)
    kind, value = _RECERTIFIED[key]
    if kind == "error":
        raise value
    return copy.deepcopy(value)


def _recertify(statement: dict[str, Any]) -> dict[str, Any]:
    predicate = statement["predicate"]
    options, mechanism = predicate["options"], predicate["mechanism"]
    claimed = options["claimed"]
    kind = mechanism["range"]["kind"]
    side = lambda v: None if v is None else Fraction(v["integer"] if isinstance(v, dict) else v)  # noqa: E731  # an IntRange end: int or {"integer"}
    if kind == "finite":
        outputs = [_value(r) for r in mechanism["range"]["outputs"]]
        measure: Any = dict(zip(outputs, (Fraction(m) for m in mechanism["range"]["base_measure"])))
    elif kind == "interval":
        outputs = RationalRange(side(mechanism["range"]["lo"]), side(mechanism["range"]["hi"]))
        measure = BetaPrior(mechanism["range"]["prior"]["alpha"], mechanism["range"]["prior"]["beta"])
    else:
        lo, hi = side(mechanism["range"]["lo"]), side(mechanism["range"]["hi"])
        outputs = RationalRange(lo, hi) if kind == "RationalRange" else IntRange(None if lo is None else int(lo), None if hi is None else int(hi))
        measure = measure_from_json(mechanism["range"]["base_measure"])
    auction = options["auction"]
    extra = {}
    if auction is not None:
        extra["auction"] = DigitalGoodsAuction(
            outputs=[Fraction(p) for p in auction["prices"]], epsilon=Fraction(auction["epsilon0"]), reports=[Fraction(b) for b in auction["reports"]]
        )
    quality = predicate["quality"]
    certificate = certify(
        read_function(quality),
        epsilon=Fraction(mechanism["epsilon0"]),
        neighbours=mechanism["neighbours"],
        claimed=None if claimed is None else expression_from_json(claimed, {"n": DATASET_SIZE}),
        outputs=outputs,
        base_measure=measure,
        pairs=options["pairs"],
        seed=options["seed"],
        rlimit=options["rlimit"],
        timeout_ms=options["timeout_ms"],
        search_size=options["search_size"],
        search_budget=options["search_budget"],
        **extra,
    )
    return certificate.statement


EVIDENCE = ("witness", "counterexample", "ratio_witness", "ratio_counterexample")


def _bag(dataset: list[Any]) -> Counter[str]:
    return Counter(json.dumps(record, sort_keys=True) for record in dataset)


def _neighbours(first: list[Any], second: list[Any], relation: str) -> bool:
    if relation == "replace-one":
        return len(first) == len(second) and sum((_bag(first) - _bag(second)).values()) <= 1
    return len(second) == len(first) + 1 and not (_bag(first) - _bag(second)) and sum((_bag(second) - _bag(first)).values()) == 1


def _at(text: str, size: int) -> Fraction:
    value = sympy.sympify(text, locals={"n": DATASET_SIZE}).subs(DATASET_SIZE, size)  # the oracle's own certificate: trusted text
    return Fraction(int(value.p), int(value.q))


def _valid_evidence(statement: dict[str, Any], claim: dict[str, Any]) -> bool:
    """The oracle's own re-evaluation of a claim's evidence (independent of the checker)."""
    predicate = statement["predicate"]
    relation = predicate["mechanism"]["neighbours"]
    if predicate["quality"].get("kind") == "log-likelihood":
        quality = read_function(predicate["quality"])
        for key in ("ratio_witness", "ratio_counterexample"):
            item = claim.get(key)
            if item is not None and item["record2"] is not None:
                theta = quality.output_space.encode(_value(item["output"]))
                first = quality.record_likelihood_codes(quality.schema.encode(_value(item["record1"])), theta)
                second = quality.record_likelihood_codes(quality.schema.encode(_value(item["record2"])), theta)
                if first / second != Fraction(item["ratio"]) or (key == "ratio_witness" and item["ratio"] != claim["ratio"]):
                    return False
        return True
    quality = read_function(predicate["quality"])
    if claim["id"] == "monotonicity" and claim["counterexample"] is not None:
        item = claim["counterexample"]
        first, second = [_value(r) for r in item["dataset1"]], [_value(r) for r in item["dataset2"]]
        up, down = _value(item["rises_at"]), _value(item["falls_at"])
        return _neighbours(item["dataset1"], item["dataset2"], relation) and quality(second, up) > quality(first, up) and quality(second, down) < quality(first, down)
    for key in ("witness", "counterexample"):
        item = claim.get(key)
        if item is None:
            continue
        first, second, output = [_value(r) for r in item["dataset1"]], [_value(r) for r in item["dataset2"]], _value(item["output"])
        difference = abs(quality(first, output) - quality(second, output))
        if not _neighbours(item["dataset1"], item["dataset2"], relation) or difference != Fraction(item["difference"]) or item["size"] != len(first):
            return False
        if key == "witness" and difference != _at(claim["bound"], len(first)):
            return False
        if key == "counterexample" and not difference > _at(claim["claimed"], len(first)):
            return False
    return True


def _same_but_evidence(fresh: dict[str, Any], mutant: dict[str, Any]) -> bool:
    """Equal but for valid evidence: two honest derivations may pick different witnesses (any model of a query)."""
    if set(fresh) != set(mutant) or len(fresh["predicate"]["claims"]) != len(mutant["predicate"]["claims"]):
        return False
    values = re.compile(r"\[[^\[\]]*\]|\([^()]*\)|\{[^{}]*\}|-?\d+(?:/\d+)?|True|False|'[^']*'")
    shape = lambda text: re.sub(values, "#", re.sub(values, "#", re.sub(values, "#", text)))  # noqa: E731
    for theirs, mine in zip(fresh["predicate"]["claims"], mutant["predicate"]["claims"]):
        if theirs == mine:
            continue
        patched = {**mine, **{k: theirs[k] for k in EVIDENCE if k in theirs and theirs[k] is not None and mine.get(k) is not None}}
        if isinstance(mine.get("reason"), str) and isinstance(theirs.get("reason"), str) and shape(mine["reason"]) == shape(theirs["reason"]):
            patched["reason"] = theirs["reason"]
        if patched != theirs or not _valid_evidence(mutant, mine):
            return False
    rest = lambda statement: {**statement, "predicate": {k: v for k, v in statement["predicate"].items() if k != "claims"}}  # noqa: E731
    return rest(fresh) == rest(mutant)


def _equivalent(original: dict[str, Any], mutant: dict[str, Any]) -> bool:
    """Whether the mutant's claims are all true: provenance aside it is the original; or it differs from the original
    only in the certifier's solver log (so its claims are the original's); or it is what certify derives from its
    inputs, solver measurements aside (up to evidence the oracle re-evaluates as valid itself)."""
    if _without_provenance(mutant) == _without_provenance(original):
        return True
    if _without_provenance(mutant, measurements=False) == _without_provenance(original, measurements=False) and all(
        query_a == query_b
        for claim_a, claim_b in zip(mutant["predicate"]["claims"], original["predicate"]["claims"])
        for query_a, query_b in zip(claim_a.get("evidence", {}).get("queries", []), claim_b.get("evidence", {}).get("queries", []))
    ):
        return True
    if _rescaled_measure(original, mutant):
        return True
    try:
        fresh, mine = _without_provenance(_recertified(mutant), measurements=False), _without_provenance(mutant, measurements=False)
        return fresh == mine or _same_but_evidence(fresh, mine)
    except Exception:  # noqa: BLE001 - inputs certify refuses cannot have true claims
        return False


def _rescaled_measure(original: dict[str, Any], mutant: dict[str, Any]) -> bool:
    """Whether the mutant is the original with its range's μ times one constant c > 0 (every density or weight):
    μ and c·μ give the same mechanism (c cancels in the normaliser), so the claims are the original's."""
    try:
        measure, theirs = (s["predicate"]["mechanism"]["range"]["base_measure"] for s in (mutant, original))
        key = "densities" if "densities" in theirs else "weights"
        ratios = {Fraction(a) / Fraction(b) for a, b in zip(measure[key], theirs[key], strict=True) if Fraction(b) != 0}
        if len(ratios) != 1 or min(ratios) <= 0 or any(Fraction(b) == 0 and Fraction(a) != 0 for a, b in zip(measure[key], theirs[key])):
            return False
        restored = copy.deepcopy(mutant)
        restored["predicate"]["mechanism"]["range"]["base_measure"][key] = theirs[key]
        return _without_provenance(restored) == _without_provenance(original)
    except (KeyError, TypeError, ValueError, ZeroDivisionError):
        return False


def _true_verdict(statement: dict[str, Any], original: dict[str, Any]) -> bool:
    """Whether the mutant's verdict — status, dp_claim, ε, and claims PROVED — is what the oracle (a fresh
    ``certify`` from the mutant's own inputs, a deleted prover option taken from the original) gives: the verifier
    accepted a true verdict, whatever else changed.  (Claims not PROVED are --reproduce's to re-derive.)"""
    try:
        mutant = copy.deepcopy(statement)
        options = mutant["predicate"]["options"]
        for key, value in original["predicate"]["options"].items():
            options.setdefault(key, value)
        fresh = _recertified(mutant)
    except Exception:  # noqa: BLE001 - inputs certify refuses cannot have true claims
        return False
    verdict = lambda s: [s["predicate"].get(k) for k in ("status", "dp_claim", "epsilon")]  # noqa: E731
    proved = lambda s: {c.get("id") for c in s["predicate"]["claims"] if isinstance(c, dict) and c.get("status") == "PROVED"}  # noqa: E731
    try:  # the same verdict, and no claim PROVED that the oracle does not prove (fewer is true)
        return verdict(fresh) == verdict(statement) and proved(statement) <= proved(fresh)
    except (KeyError, TypeError, AttributeError):
        return False


@dataclass
class Score:
    """Mutants by fate: caught (rejected), equivalent (accepted, and the oracle agrees), survived (accepted wrongly)."""

    caught: Counter[str] = field(default_factory=Counter)
    equivalent: Counter[str] = field(default_factory=Counter)
    survived: list[str] = field(default_factory=list)
    reproduced: Counter[str] = field(default_factory=Counter)

    def add(self, certificate: Any, label: str, source: Any, statement: dict[str, Any] | None) -> str:
        """Check one mutant and record its fate ("caught", "equivalent", "reproduce" or "survived"), which is returned.

        A mutant the verifier accepts that the oracle does not call equivalent must carry a true verdict
        (:func:`_true_verdict`) and be rejected by ``reproduce=True`` ("reproduce": provenance, conformance, evidence
        and inputs the verdict does not depend on); anything else survived."""
        report = check_certificate(source, cache=CACHE)
        assert report.outcome in (CheckOutcome.INVALID, CheckOutcome.REFUSED, CheckOutcome.CERTIFIES_DP, CheckOutcome.NO_DP_CLAIM), label
        operator = label.split(" ")[0]
        if not report.ok:
            self.caught[operator] += 1
            return "caught"
        if statement is not None and _equivalent(certificate.statement, statement):
            self.equivalent[label.split(" ", 1)[1]] += 1
            return "equivalent"
        if statement is not None and _true_verdict(statement, certificate.statement):
            again = check_certificate(source, cache=CACHE, reproduce=True)
            if not again.ok:
                self.reproduced[operator] += 1
                return "reproduce"
        self.survived.append(f"{label}: accepted ({report.summary})")
        return "survived"

    @property
    def semantic(self) -> int:
        return sum(self.caught.values()) + sum(self.reproduced.values()) + len(self.survived)

    def line(self) -> str:
        score = 100 * (sum(self.caught.values()) + sum(self.reproduced.values())) / max(1, self.semantic)
        return (
            f"{sum(self.caught.values()) + sum(self.reproduced.values()) + sum(self.equivalent.values()) + len(self.survived)} mutants: "
            f"{sum(self.caught.values())} rejected, {sum(self.reproduced.values())} rejected by --reproduce only (verdict unchanged), "
            f"{sum(self.equivalent.values())} equivalent (accepted, claims re-derived true), "
            f"{len(self.survived)} survived — mutation score {score:.1f}% of {self.semantic} semantic mutants"
        )


_NESTED_ARGUMENTS = re.compile(r"(\.args\.\*(?:\.\*)?)+")


def _sample_class(path: tuple[Any, ...]) -> str:
    """The path class with nested expression arguments collapsed (``args.*.args.*`` as ``args.*``): every depth of
    the quality's expression tree is one recursive schema definition and one kernel rule per node, so the default
    tier samples one depth of each; ``-m slow`` runs every mutant at every depth."""
    return _NESTED_ARGUMENTS.sub(".args.*", path_class(path))


def _plan(sample: bool) -> list[tuple[str, tuple[Any, ...], str]]:
    """(certificate, path, operator) to run: everything, or one of each (class, operator) spread over the certificates."""
    everything = [(name, path, operator) for name in NAMES for path, operator, _ in mutants(catalogue_certificate(name).statement)]
    if not sample:
        return everything
    groups: dict[tuple[str, str], list[tuple[str, tuple[Any, ...], str]]] = {}
    for item in everything:
        groups.setdefault((_sample_class(item[1]), item[2]), []).append(item)
    chosen = []
    for ordinal, key in enumerate(sorted(groups)):
        members = groups[key]
        chosen.append(members[(ordinal * 7919) % len(members)])
    return chosen


def _run(plan: list[tuple[str, tuple[Any, ...], str]], fates: dict[tuple[str, tuple[Any, ...], str], str] | None = None) -> Score:
    """Check every mutant of ``plan``; each one's fate is written to ``fates`` when given."""
    score = Score()
    builders: dict[str, dict[tuple[tuple[Any, ...], str], Any]] = {}
    for name, path, operator in plan:
        certificate = catalogue_certificate(name)
        if name not in builders:
            builders[name] = {(p, o): build for p, o, build in mutants(certificate.statement)}
        mutant = builders[name][(path, operator)]()
        fate = score.add(certificate, f"{operator} {name}:{path_class(path)}", seal(mutant), mutant)
        if fates is not None:
            fates[(name, path, operator)] = fate
    return score


@functools.cache
def _sampled() -> tuple[Score, dict[tuple[str, tuple[Any, ...], str], str]]:
    """The default tier's sample, checked once for the module's two tests: its score and each mutant's fate."""
    fates: dict[tuple[str, tuple[Any, ...], str], str] = {}
    return _run(_plan(sample=True), fates), fates


def _duplicate_keys(sample: bool) -> Score:
    """Every object (one per path class when sampling) written with a key twice: malformed, always rejected."""
    score = Score()
    seen: set[str] = set()
    for name in NAMES:
        certificate = catalogue_certificate(name)
        for path, value in leaves_and_lists(certificate.statement):
            if not isinstance(value, dict) or not value or (sample and path_class(path) in seen):
                continue
            seen.add(path_class(path))
            text = duplicated_key_text(copy.deepcopy(certificate.data), path)
            score.add(certificate, f"duplicate-key {name}:{path_class(path) or '<statement>'}", text.encode(), None)
    return score


def test_every_class_of_mutant_is_caught():
    """One mutant of every (path class, operator) over both catalogues: none survives; the count is not vacuous."""
    score = _sampled()[0]
    keys = _duplicate_keys(sample=True)
    assert not score.survived, score.survived[:5]
    assert not keys.survived and sum(keys.caught.values()) > 20
    assert sum(score.caught.values()) > 400, score.line()
    print(score.line())


def test_mutants_the_checker_accepts_are_really_equivalent():
    """The equivalent mutants are the expected kinds: reordered objects and provenance — not claims."""
    fates = [fate for item, fate in _sampled()[1].items() if item[2] == "reorder" and not isinstance(item[1][-1], int)]
    assert fates and set(fates) == {"equivalent"}, sorted(set(fates))


@pytest.mark.slow
def test_every_mutant_of_every_certificate_is_caught():
    """Slow: every mutant of every catalogue certificate (the README's mutation score)."""
    score = _run(_plan(sample=False))
    keys = _duplicate_keys(sample=False)
    print(score.line())
    print(f"duplicated keys: {sum(keys.caught.values())} rejected, {len(keys.survived)} survived")
    print("equivalent:", json.dumps(score.equivalent.most_common(), ensure_ascii=False))
    assert not score.survived, score.survived[:10]
    assert not keys.survived
