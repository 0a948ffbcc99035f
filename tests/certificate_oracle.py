"""An oracle for certificate claims that is independent of the checker: are a statement's claims true on small instances?

It reads the statement's inputs with the spec alone (``quality_from_json`` /
``likelihood_from_json`` and the rationals of the JSON), and evaluates the
mechanism those inputs describe with ``mpmath`` at 50 digits: the exact
probabilities of a finite range, the integrals of a continuous posterior or
of a range mechanism whose quality is constant between the records, sums over
integers truncated far beyond any weight that matters.  On every neighbouring
pair with at most 2 records in the first dataset (the empty one included under
add-remove) it tests each claim: the sensitivity bound, a PROVED monotone
direction, a PROVED invariant normaliser, ε against the privacy loss, the
recorded conformance bounds, and the truthfulness guarantee of an auction on
every value profile of 1 and 2 bidders.  It uses no code of
``expmech.proofs`` and none of ``expmech.impl``'s exact mechanisms.

:func:`claims_hold` returns ``(True, "")`` only when every claim was shown true
on those instances (a tolerance of 10**-30 stands for exact ties), else
``(False, why)`` — an edit of an input it cannot read counts as not shown.
"""

from __future__ import annotations

import hashlib
import itertools
from fractions import Fraction
from typing import Any

import mpmath
import rfc8785
import sympy

from expmech.spec import DATASET_SIZE, QualityError, likelihood_from_json, measure_from_json, quality_from_json

mpmath.mp.dps = 50
TOLERANCE = mpmath.mpf(10) ** -30
_SPAN = 400  # integer ranges: |k| beyond this weighs less than e^-(ε₀·(|k| − 20)), far below TOLERANCE for ε₀ >= 1/4


def read_function(block: dict[str, Any]) -> Any:
    """The quality or log-likelihood a certificate's ``quality`` block describes, its recorded sha256 checked.

    The sha256 is the digest of the RFC 8785 form of the block's kind, schema,
    outputs and expression; a block whose digest differs raises ``ValueError``.
    """
    digest = hashlib.sha256(rfc8785.dumps({key: block.get(key) for key in ("kind", "schema", "outputs", "expression")})).hexdigest()
    if digest != block.get("sha256"):
        raise ValueError(f"the quality block's sha256 is not {digest}")
    if block.get("kind") == "log-likelihood":
        return likelihood_from_json(block, check_sha256=False)
    return quality_from_json(block, check_sha256=False)


def json_value(data: Any) -> Any:
    """A certificate's JSON value as Python values: ``{"rational": …}`` a Fraction, ``{"integer": …}`` an int, lists tuples."""
    if isinstance(data, dict) and set(data) == {"rational"}:
        return Fraction(data["rational"])
    if isinstance(data, dict) and set(data) == {"integer"}:
        return int(data["integer"])
    if isinstance(data, list):
        return tuple(json_value(v) for v in data)
    if isinstance(data, dict):
        return {k: json_value(v) for k, v in data.items()}
    return data


def _mpf(value: Fraction) -> mpmath.mpf:
    return mpmath.mpf(value.numerator) / value.denominator


def _real(text: str, n: int) -> mpmath.mpf:
    expr = sympy.sympify(text, locals={"n": DATASET_SIZE}).subs(DATASET_SIZE, n)
    return mpmath.mpf(sympy.N(expr, 60)) if expr != sympy.oo else mpmath.inf


def _records(quality: Any) -> list[Any]:
    """Every record of a finite schema; for an interval field its ends and midpoint."""
    fields = []
    for _, _, domain in quality.schema.items():
        if domain.is_finite:
            fields.append([domain.decode(c) for c in domain.codes()])
        else:
            lo, hi = domain.bounds()
            fields.append([lo, (lo + hi) / 2, hi])
    names = [name for name, _, _ in quality.schema.items()]
    rows = [dict(zip(names, combo)) for combo in itertools.product(*fields)]
    return [row[names[0]] for row in rows] if len(names) == 1 else rows


def pairs(relation: str, records: list[Any]) -> list[tuple[list[Any], list[Any]]]:
    pairs = []
    for size in range(0 if relation == "add-remove" else 1, 3):
        for data in itertools.combinations_with_replacement(range(len(records)), size):
            first = [records[i] for i in data]
            for extra in records:
                if relation == "add-remove":
                    pairs.append((first, first + [extra]))
                else:
                    pairs.extend((first, first[:p] + [extra] + first[p + 1 :]) for p in range(size))
    return pairs


class Mechanism:
    """The mechanism a statement's inputs describe: log-probabilities of sample outputs, for one dataset at a time."""

    def __init__(self, predicate: dict[str, Any]) -> None:
        quality = predicate["quality"]
        self.posterior = quality.get("kind") == "log-likelihood"
        self.quality = read_function(quality)
        mechanism = predicate["mechanism"]
        self.epsilon0 = Fraction(mechanism["epsilon0"])
        self.relation = mechanism["neighbours"]
        if self.epsilon0 <= 0 or self.relation not in ("replace-one", "add-remove"):
            raise ValueError("not a mechanism")
        self.range = rng = mechanism["range"]
        self.kind = rng["kind"]
        side = lambda v: None if v is None else Fraction(v["integer"] if isinstance(v, dict) else v)  # noqa: E731  # an IntRange end: int or {"integer"}
        if self.kind == "finite":
            self.outputs = [json_value(r) for r in rng["outputs"]]
            self.outputs = [o[0] if isinstance(o, tuple) and len(o) == 1 else o for o in self.outputs]
            self.measure = [Fraction(m) for m in rng["base_measure"]]
            if len(self.measure) != len(self.outputs) or min(self.measure) < 0 or not any(self.measure):
                raise ValueError("not a base measure")
        else:
            self.lo, self.hi = side(rng.get("lo")), side(rng.get("hi"))
            if self.lo is not None and self.hi is not None and not self.lo < self.hi:
                raise ValueError("empty range")
        self.records = _records(self.quality)

    # -- the law -------------------------------------------------------------------------

    def _weight(self, dataset: list[Any], theta: Any) -> mpmath.mpf:
        """The unnormalised density at an output (0 where it vanishes); negative weights are refused."""
        if self.posterior:
            value = self.likelihood(dataset, theta)
            prior = self._prior(theta)
            return prior * _mpf(value) ** _mpf(self.epsilon0) if value else mpmath.mpf(0)
        return self._measure(theta) * mpmath.exp(_mpf(self.epsilon0 * self.quality(dataset, theta)))

    def likelihood(self, dataset: list[Any], theta: Any) -> Fraction:
        """``Π ℓ(x, θ)`` at any θ (the certificate's range, not the likelihood's declared domain, says where it is used)."""
        symbol = [s for _, s, _ in self.quality.output_space.items()][0]
        value = Fraction(1)
        for record in dataset:
            try:
                value *= self.quality.record_likelihood_codes(self.quality.schema.encode(record), {symbol: Fraction(theta)})
            except QualityError as error:  # negative: no likelihood, no mechanism
                raise ValueError(str(error)) from None
        return value

    def _prior(self, theta: Any) -> mpmath.mpf:
        if self.kind == "finite":
            return _mpf(self.measure[self.outputs.index(theta)])
        prior = self.range["prior"]
        value = _mpf(Fraction(theta)) ** (prior["alpha"] - 1) * (1 - _mpf(Fraction(theta))) ** (prior["beta"] - 1)
        if value < 0:
            raise ValueError("a negative prior: no mechanism")
        return value

    def _measure(self, r: Any) -> mpmath.mpf:
        if self.kind == "finite":
            return _mpf(self.measure[self.outputs.index(r)])
        measure = measure_from_json(self.range["base_measure"])
        return _mpf(measure.value(int(r)) if self.kind == "IntRange" else measure.density(r))

    def sample_outputs(self, dataset: list[Any]) -> list[Any]:
        """The outputs where the law is compared: all of a finite range; ends, records and a grid of an interval."""
        if self.kind == "finite":
            return list(self.outputs)
        if self.kind == "IntRange":
            lo = self.lo if self.lo is not None else -_SPAN
            hi = self.hi if self.hi is not None else _SPAN
            return list(range(int(lo), int(hi) + 1))
        lo, hi = self.lo, self.hi
        points = {lo, hi} | {lo + (hi - lo) * Fraction(i, 64) for i in range(1, 64)}
        return sorted(points)

    def log_law(self, dataset: list[Any]) -> dict[Any, mpmath.mpf]:
        """ln p(r) at the sample outputs (−inf where p is 0)."""
        if self.kind in ("finite", "IntRange"):
            weights = {r: self._weight(dataset, r) for r in self.sample_outputs(dataset)}
            total = mpmath.fsum(weights.values())
        else:
            weights = {r: self._weight(dataset, r) for r in self.sample_outputs(dataset)}
            total = self._integral(dataset)
        if not total > 0:
            raise ValueError("no mass")
        return {r: (mpmath.log(w / total) if w > 0 else -mpmath.inf) for r, w in weights.items()}

    def _integral(self, dataset: list[Any]) -> mpmath.mpf:
        """∫ of the density over an interval: exactly piecewise between the records (a language quality), else quad."""
        lo, hi = self.lo, self.hi
        if self.posterior:
            return mpmath.quad(lambda t: self._weight(dataset, min(max(_fraction(t), lo), hi)), [_mpf(lo), _mpf(hi)])
        cuts = sorted({lo, hi} | {Fraction(c) for c in self.range["base_measure"].get("breakpoints", []) if lo < Fraction(c) < hi} | {Fraction(v) for v in _flat(dataset) if lo < v < hi})
        total = mpmath.mpf(0)
        for a, b in zip(cuts, cuts[1:]):
            left, right = a + (b - a) / 3, a + 2 * (b - a) / 3
            qa, qb = self.quality(dataset, left), self.quality(dataset, right)
            slope = (qb - qa) / (right - left)
            at_a = qa - slope * (left - a)
            mu = self._measure((a + b) / 2)
            if slope == 0:
                total += mu * _mpf(b - a) * mpmath.exp(_mpf(self.epsilon0 * at_a))
            else:
                k = _mpf(self.epsilon0 * slope)
                total += mu * mpmath.exp(_mpf(self.epsilon0 * at_a)) * (mpmath.exp(k * _mpf(b - a)) - 1) / k
        return total

    def loss(self, first: list[Any], second: list[Any]) -> mpmath.mpf:
        one, two = self.log_law(first), self.log_law(second)
        worst = mpmath.mpf(0)
        for r in one:
            if one[r] == -mpmath.inf and two[r] == -mpmath.inf:
                continue
            worst = max(worst, abs(one[r] - two[r]))
        return worst

    def normaliser(self, dataset: list[Any]) -> mpmath.mpf:
        if self.kind in ("finite", "IntRange"):
            return mpmath.fsum(self._weight(dataset, r) for r in self.sample_outputs(dataset))
        return self._integral(dataset)


def _flat(dataset: list[Any]) -> list[Fraction]:
    return [Fraction(v) for record in dataset for v in (record.values() if isinstance(record, dict) else [record]) if not isinstance(v, bool | str)]


def _fraction(value: mpmath.mpf) -> Fraction:
    man, exp = mpmath.mpf(value).man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


# -- the claims --------------------------------------------------------------------------------


def claims_hold(statement: dict[str, Any], *, conformance: bool = True) -> tuple[bool, str]:
    """Whether every claim of ``statement`` is true on the small instances (see the module docstring);
    ``conformance=False`` leaves out the recorded conformance losses (testing evidence, which the small
    verifier does not recompute: ``check --reproduce`` does)."""
    predicate = statement["predicate"]
    try:
        mech = Mechanism(predicate)
        return _claims(mech, predicate, conformance)
    except (ValueError, KeyError, TypeError, ZeroDivisionError, ArithmeticError) as error:
        return False, f"the inputs describe no mechanism the oracle can evaluate: {type(error).__name__}: {error}"


def _claims(mech: Mechanism, predicate: dict[str, Any], with_conformance: bool) -> tuple[bool, str]:
    claims = {claim["id"]: claim for claim in predicate["claims"]}
    neighbour_pairs = pairs(mech.relation, mech.records)
    if predicate["dp_claim"] and not predicate["epsilon"] == claims["privacy"]["epsilon"]:
        return False, "ε is not the privacy claim's"
    sensitivity = claims["sensitivity"]
    for first, second in neighbour_pairs:
        outputs = mech.sample_outputs(first) if mech.kind != "IntRange" else range(-30, 31) if mech.lo is None else mech.sample_outputs(first)
        if mech.posterior:
            if sensitivity["status"] == "PROVED" and len(first) == len(second):
                changed = [(a, b) for a, b in zip(first, second) if a != b]
                for theta in outputs:
                    for a, b in changed:
                        la, lb = mech.likelihood([a], theta), mech.likelihood([b], theta)
                        if la <= 0 or lb <= 0 or max(la / lb, lb / la) > Fraction(sensitivity["ratio"]):
                            return False, f"the likelihood ratio at θ = {theta} exceeds ρ = {sensitivity['ratio']}"
        else:
            moves = [mech.quality(second, r) - mech.quality(first, r) for r in outputs]
            if sensitivity["status"] == "PROVED" and _mpf(max(abs(m) for m in moves)) > _real(sensitivity["bound"], len(first)) + TOLERANCE:
                return False, f"Δq on {first} → {second} exceeds the bound {sensitivity['bound']}"
            monotone = claims.get("monotonicity", {})
            if monotone.get("status") == "PROVED":
                sign = {"non-decreasing": 1, "non-increasing": -1}.get(monotone["direction"])
                if (sign is not None and any(m * sign < 0 for m in moves)) or (sign is None and len(set(moves)) > 1):
                    return False, f"q moves against the PROVED direction {monotone['direction']} on {first} → {second}"
        if predicate["dp_claim"]:
            epsilon = _real(predicate["epsilon"], len(first))
            loss = mech.loss(first, second)
            if loss > epsilon + TOLERANCE:
                return False, f"the privacy loss {mpmath.nstr(loss, 8)} on {first} → {second} exceeds ε = {mpmath.nstr(epsilon, 8)}"
        normaliser = claims.get("normaliser")
        if normaliser is not None and normaliser["status"] == "PROVED":
            z1, z2 = mech.normaliser(first), mech.normaliser(second)
            if abs(z1 - z2) > TOLERANCE * max(1, abs(z1)):
                return False, f"the normaliser differs on {first} and {second} though PROVED invariant"
    conformance = claims.get("conformance") if with_conformance else None
    if conformance is not None and "checks" in conformance:
        for check in conformance["checks"]:
            first, second = [json_value(r) for r in check["dataset1"]], [json_value(r) for r in check["dataset2"]]
            first, second = list(first), list(second)
            loss = mech.loss(first, second)
            bound = Fraction(check["epsilon_at_n"])
            if predicate["epsilon"] is not None and _real(predicate["epsilon"], len(first)) != _mpf(bound):
                return False, "a conformance pair's ε at n is not ε"
            if check["within_epsilon"] and not (_mpf(Fraction(check["loss_lower_bound"])) - TOLERANCE <= loss <= _mpf(Fraction(check["loss_upper_bound"])) + TOLERANCE <= _mpf(bound) + 2 * TOLERANCE):
                return False, f"a conformance pair's loss {mpmath.nstr(loss, 8)} is not in its recorded bounds"
    elif conformance is not None and predicate["epsilon"] is not None:
        if conformance["largest_loss_upper_bound"] == "oo" or _mpf(Fraction(conformance["largest_loss_upper_bound"])) - mpmath.mpf(2) ** -19 > _real(predicate["epsilon"], 1):
            return False, "the recorded largest loss exceeds ε"
    if "truthfulness" in claims:
        return _truthful(claims["truthfulness"], predicate)
    return True, ""


def _truthful(claim: dict[str, Any], predicate: dict[str, Any]) -> tuple[bool, str]:
    """The guarantee E[u | b] − E[u | v] <= (e^ε − 1)·E[u | v] <= (e^ε − 1)·U on every profile of 1 and 2 bidders,
    for the auction the claim describes (its prices, reports and ε₀; counting measure), with the claim's ε."""
    auction = claim["auction"]
    prices = [Fraction(p) for p in auction["prices"]]
    reports = sorted(Fraction(b) for b in auction["reports"])
    epsilon0 = Fraction(auction["epsilon0"])
    epsilon = Fraction(claim["epsilon"])
    if claim["epsilon"] != predicate["epsilon"]:
        return False, "the truthfulness claim's ε is not the certified ε"
    bound_u = Fraction(claim["utility_bound"])
    if bound_u < max(Fraction(0), reports[-1] - min(prices)):
        return False, "U is below the largest utility"
    scale = mpmath.exp(_mpf(epsilon)) - 1

    def law(bids: list[Fraction]) -> list[mpmath.mpf]:
        weights = [mpmath.exp(_mpf(epsilon0 * p * sum(1 for b in bids if b >= p))) for p in prices]
        total = mpmath.fsum(weights)
        return [w / total for w in weights]

    def utility(value: Fraction, report: Fraction, bids: list[Fraction]) -> mpmath.mpf:
        return mpmath.fsum(pr * _mpf(value - p if report >= p else Fraction(0)) for pr, p in zip(law(bids), prices))

    for size in (1, 2):
        for values in itertools.product(reports, repeat=size):
            for i, v in enumerate(values):
                truthful = utility(v, v, list(values))
                for b in reports:
                    lie = utility(v, b, [*values[:i], b, *values[i + 1 :]])
                    gain = lie - truthful
                    if gain > scale * truthful + TOLERANCE or gain > scale * _mpf(bound_u) + TOLERANCE:
                        return False, f"bidder {i} with value {v} among {values} gains {mpmath.nstr(gain, 6)} by reporting {b}"
    return True, ""
