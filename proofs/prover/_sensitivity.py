"""Sensitivity Δq as a proof: per-record bounds proved with z3, lifted to every dataset size.

For a quality function ``q`` of the spec language and a neighbour relation,
:func:`prove_sensitivity` bounds ``Δq = sup |q(D, r) − q(D', r)|`` over
neighbouring ``D, D'`` of every size ``n`` and every output ``r``.

**Base cases** (one record changes; z3, certified):

=================  ============================================  =======================
aggregate          replace-one                                   add-remove (n = smaller)
=================  ============================================  =======================
``count(p)``       max ``[p(x')] − [p(x)]``                      max ``[p(x)]``
``total(f)``       max ``f(x', r) − f(x, r)``                    max ``|f(x, r)|``
``mean(f)``        the total's bound ``/ n``                     ``(max f − min f) / (n+1)``
``size()``         0                                             1
=================  ============================================  =======================

Each maximum is guessed by z3 ``Optimize`` and *certified* by two plain
solver calls — ``objective > B`` unsat, ``objective >= B`` sat with the model
re-evaluated exactly in Python.  **Lifting rules** (sound for every ``n``):
``Δ(a + b) <= Δa + Δb``; ``Δ(c·a) <= max_r |c(r)| · Δa`` for ``c`` free of the
data; ``Δ(a / size()) = Δa / n`` under replace-one (n is fixed);
``Δ|a| <= Δa``; ``ΔMax/Min(a, b) <= max(Δa, Δb)``; a ``Piecewise`` whose
conditions are free of the data ``<= max`` over its branches.  Where no rule
applies, the result is at best BOUNDED: an exhaustive exact check over every
dataset up to a stated size.

A proved bound is **tight** when an exact search over small neighbouring
datasets finds a pair attaining it (the witness); a claimed bound is
**refuted** by a pair exceeding it (the counterexample).  Every witness and
counterexample is re-evaluated with the quality function's exact interpreter.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.spec import (
    DATASET_SIZE,
    Booleans,
    Categories,
    Count,
    Domain,
    Grid,
    InvalidArgument,
    InvalidType,
    Mean,
    Neighbours,
    QualityError,
    QualityFunction,
    RationalRange,
    Size,
    Total,
)
from expmech.spec._errors import describe, readable
from expmech.spec._quality import _compile

from .._display import sensitivity_text, witness_text
from .._outcome import Status
from ._search import Codes, SearchSummary, all_records, count_multisets, decode_record, merge, record_space_size, search_pairs
from ._z3bridge import DEFAULT_RLIMIT, DEFAULT_TIMEOUT_MS, Query, Translator, check, maximise, z3_version

__all__ = ["SensitivityResult", "Witness", "prove_sensitivity"]

n = DATASET_SIZE
AGGREGATES = (Count, Total, Mean, Size)


@dataclass(frozen=True)
class Witness:
    """Two concrete neighbouring datasets, an output, and the exact ``|q(D1, r) − q(D2, r)|``.

    A counterexample also holds the ``claimed`` bound it exceeds.  ``quantity``
    words what ``difference`` measures.  ``str()`` gives the mathematical form,
    ``|q(D, r) − q(D', r)| = 1 > 1/2 at D = [0, 0], D' = [0, 1], r = 0``.
    """

    dataset1: tuple[Any, ...]
    dataset2: tuple[Any, ...]
    output: Hashable
    difference: Fraction
    size: int
    claimed: Any = None
    quantity: str = "|q(D, r) − q(D', r)| = {value}"

    def __str__(self) -> str:
        return witness_text(self)


@dataclass(frozen=True)
class SensitivityResult:
    """The outcome of :func:`prove_sensitivity`.

    ``bound`` is the proved Δq (a sympy rational, an expression in ``n``, or
    ``None``); ``tight`` says a witness attains it; ``counterexample`` refutes
    ``claimed``.  ``queries`` are every solver query the result relies on, with
    their SMT-LIB2 text.  ``bounded_size`` is the dataset size up to which a
    BOUNDED result was checked exhaustively.
    """

    status: Status
    neighbours: Neighbours
    bound: sympy.Expr | None
    claimed: sympy.Expr | None
    tight: bool
    witness: Witness | None
    counterexample: Witness | None
    reason: str
    method: str
    queries: tuple[Query, ...] = ()
    bounded_size: int | None = None
    solver: str = field(default_factory=lambda: f"z3 {z3_version()}")

    def __str__(self) -> str:
        return sensitivity_text(self)

    def __repr__(self) -> str:
        return f"<SensitivityResult {sensitivity_text(self).splitlines()[0]}; {len(self.queries)} solver queries>"

    @property
    def proved_bound(self) -> sympy.Expr | None:
        """The Δq an ε-DP claim may use: the claim when PROVED against it, else the proved bound; None otherwise."""
        if self.status is not Status.PROVED:
            return None
        return self.claimed if self.claimed is not None else self.bound


class _NoRule(Exception):
    """No lifting rule applies; carries the reason."""


class _Unknown(Exception):
    """A solver call was inconclusive; carries the reason."""


def _domain_constraint(var: z3.ExprRef, domain: Domain) -> z3.BoolRef:
    if isinstance(domain, Grid):
        return z3.Or(*[var == z3.Q(p.numerator, p.denominator) for p in domain.points])
    if isinstance(domain, Booleans):
        return z3.And(var >= 0, var <= 1)
    if isinstance(domain, Categories):
        return z3.And(var >= 0, var <= len(domain.labels) - 1)
    lo, hi = domain.bounds()
    parts = []
    if lo is not None:
        parts.append(var >= z3.Q(lo.numerator, lo.denominator) if isinstance(domain, RationalRange) else var >= int(lo))
    if hi is not None:
        parts.append(var <= z3.Q(hi.numerator, hi.denominator) if isinstance(domain, RationalRange) else var <= int(hi))
    return z3.And(*parts) if parts else z3.BoolVal(True)


def _var(name: str, domain: Domain) -> z3.ExprRef:
    return z3.Real(name) if domain.sort == "real" else z3.Int(name)


class _Prover:
    """State of one prove_sensitivity call: variables, recorded queries, seeds for the search."""

    def __init__(self, quality: QualityFunction, neighbours: Neighbours, rlimit: int, timeout_ms: int) -> None:
        self.quality = quality
        self.neighbours = neighbours
        self.rlimit = rlimit
        self.timeout_ms = timeout_ms
        self.queries: list[Query] = []
        self.seeds: list[dict[sympy.Symbol, Any]] = []
        self.output_vars = {sym: _var(f"out_{sym.name}", domain) for _, sym, domain in quality.output_space.items()}
        self.output_domain = [_domain_constraint(self.output_vars[sym], d) for _, sym, d in quality.output_space.items()]
        self.records = {}
        for tag in ("a", "b"):
            self.records[tag] = {sym: _var(f"{tag}_{sym.name}", d) for _, sym, d in quality.schema.items()}
        self.record_domain = {
            tag: [_domain_constraint(self.records[tag][sym], d) for _, sym, d in quality.schema.items()] for tag in ("a", "b")
        }

    # -- solver calls ------------------------------------------------------------

    def _translate(self, expr: sympy.Basic, tag: str) -> Any:
        env = {**self.records[tag], **self.output_vars}
        return Translator(env)(expr)

    def _record_seed(self, model: dict[str, Any], tag: str) -> None:
        codes = {}
        for _, sym, domain in self.quality.schema.items():
            key = f"{tag}_{sym.name}"
            if key not in model:
                codes[sym] = domain.codes()[0] if domain.is_finite else Fraction(0)
            else:
                value = model[key]
                codes[sym] = value if domain.sort == "real" else int(value)
        if codes not in self.seeds:
            self.seeds.append(codes)

    def certified_max(self, objective_expr: Any, evaluate: Any, constraints: list[Any], purpose: str) -> Fraction | None:
        """The certified maximum of a z3 objective; None when unbounded. Raises _Unknown when inconclusive."""
        kind, guess = maximise(objective_expr, constraints, rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if kind == "unknown":
            raise _Unknown(f"z3 could not optimise {purpose}")
        if kind == "unbounded":
            probe = check(constraints + [objective_expr > 1000], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
            self.queries.append(Query(f"{purpose} exceeds 1000 (unbounded)", "sat", probe))
            if probe.status == "sat" and probe.model is not None:
                self._record_seed(probe.model, "a")
                self._record_seed(probe.model, "b")
            return None
        assert guess is not None
        bound = z3.Q(guess.numerator, guess.denominator)
        above = check(constraints + [objective_expr > bound], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        self.queries.append(Query(f"{purpose} > {guess}", "unsat", above))
        if above.status != "unsat":
            raise _Unknown(f"could not certify {purpose} <= {guess}: z3 said {above.status} {above.reason}".strip())
        attained = check(constraints + [objective_expr >= bound], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        self.queries.append(Query(f"{purpose} >= {guess}", "sat", attained))
        if attained.status != "sat" or attained.model is None:
            raise _Unknown(f"could not certify that {purpose} attains {guess}: z3 said {attained.status}")
        if evaluate(attained.model) < guess:
            raise _Unknown(f"the model for {purpose} >= {guess} does not re-evaluate to it exactly")
        self._record_seed(attained.model, "a")
        self._record_seed(attained.model, "b")
        return guess

    def _exact(self, body: sympy.Basic, model: dict[str, Any], tag: str) -> Any:
        env: dict[sympy.Symbol, Any] = {}
        for name, sym, domain in self.quality.schema.items():
            value = model.get(f"{tag}_{sym.name}", domain.codes()[0] if domain.is_finite else 0)
            env[sym] = value if domain.sort == "real" else int(value)
        for name, sym, domain in self.quality.output_space.items():
            value = model.get(f"out_{sym.name}", domain.codes()[0] if domain.is_finite else 0)
            env[sym] = value if domain.sort == "real" else int(value)
        return _compile(body)(env, [])

    # -- base cases -----------------------------------------------------------------

    def _indicator(self, body: sympy.Basic, tag: str) -> Any:
        return z3.If(self._translate(body, tag), 1, 0)

    def aggregate_bound(self, node: sympy.Basic) -> sympy.Expr:
        """The certified one-record bound of an aggregate under the neighbour relation."""
        both = self.output_domain + self.record_domain["a"] + self.record_domain["b"]
        one = self.output_domain + self.record_domain["a"]
        if isinstance(node, Size):
            return sympy.Integer(0 if self.neighbours is Neighbours.REPLACE_ONE else 1)
        body = node.args[0]
        is_count = isinstance(node, Count)

        def value(tag: str) -> Any:
            return self._indicator(body, tag) if is_count else self._translate(body, tag)

        def exact(model: dict[str, Any], tag: str) -> Fraction:
            raw = self._exact(body, model, tag)
            return Fraction(1 if raw else 0) if is_count else Fraction(raw)

        label = f"{type(node).__name__.lower()}({body})"
        if self.neighbours is Neighbours.REPLACE_ONE:
            change = self.certified_max(
                value("b") - value("a"), lambda m: exact(m, "b") - exact(m, "a"), both, f"one-record change of {label}"
            )
            if change is None:
                return sympy.oo
            bound = _rational(change)
            return bound / n if isinstance(node, Mean) else bound
        top = self.certified_max(value("a"), lambda m: exact(m, "a"), one, f"largest record term of {label}")
        bottom = self.certified_max(-value("a"), lambda m: -exact(m, "a"), one, f"largest negated record term of {label}")
        if top is None or bottom is None:
            return sympy.oo
        if isinstance(node, Mean):
            return _rational(top + bottom) / (n + 1)
        return _rational(max(top, bottom))

    def constant_bound(self, factor: sympy.Expr) -> Fraction | None:
        """``max_r |c(r)|`` for a data-free factor; None when unbounded."""
        if not factor.free_symbols:
            if not factor.is_Rational:
                raise _NoRule(f"a constant factor {factor} that is not rational")
            return abs(Fraction(int(factor.p), int(factor.q)))
        if self.quality.output_space.is_finite and len(self.quality.outputs()) <= 100_000:
            evaluate = _compile(factor)
            best = Fraction(0)
            for r in self.quality.outputs():
                best = max(best, abs(Fraction(evaluate(self.quality.output_space.encode(r), []))))
            return best
        expr = self._translate(factor, "a")
        magnitude = z3.If(expr >= 0, expr, -expr)
        return self.certified_max(magnitude, lambda m: abs(Fraction(self._exact(factor, m, "a"))), self.output_domain, f"|{factor}|")

    # -- the joint encoding ---------------------------------------------------------------

    def joint_bound(self, expr: sympy.Expr, candidate: Fraction) -> bool:
        """Whether one z3 query over all aggregates at once proves ``Δq <= candidate`` (False when it does not apply).

        The changed record is shared by every aggregate, and each aggregate's
        contribution of the other records is a variable bounded by
        ``(records) · [min, max]`` of its per-record term — necessary
        conditions only, so "a change above ``candidate``" being unsatisfiable
        proves the bound for every n.  The candidate is the largest change the
        exact search found, so a proof here is also tight.  Applies when ``n``
        enters linearly: no ``mean`` and no division by the data.
        """
        aggregates = sorted(expr.atoms(Count, Total, Mean), key=sympy.default_sort_key)
        if any(isinstance(a, Mean) for a in aggregates):
            return False
        for power in expr.atoms(sympy.Pow):
            if power.exp < 0 and (power.base.atoms(*AGGREGATES) or isinstance(power.base, Size)):
                return False
        one = self.output_domain + self.record_domain["a"]
        size = z3.Int("n")
        constraints = [size >= 1] + self.output_domain + self.record_domain["a"] + self.record_domain["b"]
        before: dict[sympy.Basic, Any] = {}
        after: dict[sympy.Basic, Any] = {}
        rests = []
        for index, node in enumerate(aggregates):
            body = node.args[0]
            is_count = isinstance(node, Count)

            def term(tag: str, body: sympy.Basic = body, is_count: bool = is_count) -> Any:
                return self._indicator(body, tag) if is_count else self._translate(body, tag)

            def exact(model: dict[str, Any], tag: str, body: sympy.Basic = body, is_count: bool = is_count) -> Fraction:
                raw = self._exact(body, model, tag)
                return Fraction(1 if raw else 0) if is_count else Fraction(raw)

            label = f"{type(node).__name__.lower()}({body})"
            high = self.certified_max(term("a"), lambda m, e=exact: e(m, "a"), one, f"largest record term of {label}")
            low = self.certified_max(-term("a"), lambda m, e=exact: -e(m, "a"), one, f"largest negated record term of {label}")
            if high is None or low is None:
                return False
            rest = z3.Int(f"rest_{index}") if is_count else z3.Real(f"rest_{index}")
            others = size - 1 if self.neighbours is Neighbours.REPLACE_ONE else size
            constraints += [rest <= others * _q(high), rest >= -(others * _q(low))]
            rests.append((node, rest, exact))
            if self.neighbours is Neighbours.REPLACE_ONE:
                before[node], after[node] = term("a") + rest, term("b") + rest
            else:
                before[node], after[node] = rest, rest + term("a")
        before[Size()] = size
        after[Size()] = size if self.neighbours is Neighbours.REPLACE_ONE else size + 1
        try:
            first = Translator({**before, **self.output_vars})(expr)
            second = Translator({**after, **self.output_vars})(expr)
        except InvalidArgument:
            return False

        bound = _q(candidate)
        for name, objective in (("rise", second - first), ("fall", first - second)):
            answer = check(constraints + [objective > bound], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
            self.queries.append(Query(f"joint {name} of q between neighbours > {candidate}", "unsat", answer))
            if answer.status == "unknown":
                raise _Unknown(f"z3 could not decide the joint {name} > {candidate}: {answer.reason}")
            if answer.status != "unsat":
                return False
            if self.neighbours is Neighbours.REPLACE_ONE:
                break  # swapping the two records mirrors a fall into a rise
        return True

    # -- lifting -----------------------------------------------------------------------

    def lift(self, expr: sympy.Basic) -> sympy.Expr:
        """A sound bound on the change of ``expr`` between neighbours (see the module docstring)."""
        if not expr.atoms(*AGGREGATES) and not isinstance(expr, Size):
            return sympy.Integer(0)
        if isinstance(expr, AGGREGATES):
            return self.aggregate_bound(expr)
        if isinstance(expr, sympy.Add):
            return sympy.Add(*[self.lift(arg) for arg in expr.args])
        if isinstance(expr, sympy.Mul):
            data, constants, size_power = [], [], 0
            for factor in expr.args:
                if isinstance(factor, sympy.Pow) and isinstance(factor.base, Size) and self.neighbours is Neighbours.REPLACE_ONE:
                    size_power += int(factor.exp)
                elif isinstance(factor, Size) and self.neighbours is Neighbours.REPLACE_ONE:
                    size_power += 1
                elif factor.atoms(*AGGREGATES) or isinstance(factor, Size):
                    data.append(factor)
                else:
                    constants.append(factor)
            if len(data) > 1:
                raise _NoRule(f"a product of data-dependent factors {sympy.Mul(*data)}")
            if not data:
                return sympy.Integer(0)  # only size powers and constants: fixed under replace-one
            scale = self.constant_bound(sympy.Mul(*constants)) if constants else Fraction(1)
            if scale is None:
                return sympy.oo
            return _rational(scale) * n**size_power * self.lift(data[0])
        if isinstance(expr, sympy.Pow):
            if expr.exp == 1:
                return self.lift(expr.base)
            raise _NoRule(f"a power {expr} of a data-dependent term")
        if isinstance(expr, sympy.Abs):
            return self.lift(expr.args[0])
        if isinstance(expr, sympy.Max | sympy.Min):
            return sympy.Max(*[self.lift(arg) for arg in expr.args])
        if isinstance(expr, sympy.Piecewise):
            for pair in expr.args:
                if pair.cond.atoms(*AGGREGATES):
                    raise _NoRule(f"a Piecewise condition {pair.cond} that depends on the data")
            return sympy.Max(*[self.lift(pair.expr) for pair in expr.args])
        raise _NoRule(f"no rule for {type(expr).__name__}")


def _q(value: Fraction) -> Any:
    return z3.Q(value.numerator, value.denominator)


def _rational(value: Fraction) -> sympy.Rational:
    return sympy.Rational(value.numerator, value.denominator)


def _at(expr: sympy.Expr, size: int) -> sympy.Expr:
    return sympy.nsimplify(expr.subs(n, size)) if expr.free_symbols else expr


def _parse_claim(claimed: Any) -> sympy.Expr | None:
    if claimed is None:
        return None
    written = claimed
    if isinstance(claimed, str):
        if not claimed.strip() or any(c not in "0123456789n+-*/() " for c in claimed) or "**" in claimed or len(claimed) > 200:
            raise InvalidArgument(
                f"claimed={describe(written)} must be written with integers, n, + - * / and parentheses (at most 200 characters)",
                parameter="claimed",
                value=written,
            )
        try:
            claimed = sympy.sympify(claimed, locals={"n": n})
        except (sympy.SympifyError, SyntaxError, TypeError, ValueError, ZeroDivisionError):
            raise InvalidArgument(f"claimed={describe(written)} is not an expression in n", parameter="claimed", value=written) from None
    try:
        value = sympy.sympify(claimed, strict=True) if not isinstance(claimed, Fraction) else _rational(claimed)
    except (sympy.SympifyError, TypeError):
        raise InvalidType(f"claimed={describe(written)} must be a rational or an expression in n", parameter="claimed", value=written) from None
    if not isinstance(value, sympy.Expr) or value.free_symbols - {n} or value.has(sympy.Float):
        raise InvalidArgument(
            f"claimed={describe(written)} must be an exact rational or an expression in n (expmech.spec.DATASET_SIZE)",
            parameter="claimed",
            value=written,
        )
    for size in (1, 2, 3, 10, 1000):
        at = _at(value, size)
        if not at.is_Rational or at < 0:
            raise InvalidArgument(f"claimed={describe(written)} is {at} at n={size}; it must be a rational >= 0", parameter="claimed", value=written)
    return value


def _at_least(a: sympy.Expr, b: sympy.Expr) -> bool:
    """Whether a >= b for every n >= 1, decided symbolically (False when sympy cannot decide)."""
    if b is sympy.oo:
        return a is sympy.oo
    if a is sympy.oo:
        return True
    difference = sympy.simplify(a - b)
    if difference.is_nonnegative is True or difference == 0:
        return True
    # a − b = c / n^k style: substitute n = 1/h, h in (0, 1], and ask again
    h = sympy.Symbol("h", positive=True)
    candidate = sympy.simplify(difference.subs(n, 1 / h))
    return candidate.is_nonnegative is True


def _search_sizes(prover: _Prover, max_size: int, budget: int, outputs: Sequence[Hashable] | None) -> tuple[list[Codes], bool, list[int]] | None:
    """The records to search over, whether they are the whole record space, and the affordable sizes."""
    quality = prover.quality
    if outputs is None and not quality.output_space.is_finite:
        return None
    space = record_space_size(quality)
    exhaustive = space is not None and space <= 64
    records = all_records(quality) if exhaustive else list(prover.seeds)
    if not records:
        return None
    extra = 1 if prover.neighbours is Neighbours.ADD_REMOVE else 0
    width = len(outputs) if outputs is not None else _output_count(quality)
    sizes = [s for s in range(1, max_size + 1) if count_multisets(len(records), s + extra) * width <= budget]
    return records, exhaustive, sizes


def _output_count(quality: QualityFunction) -> int:
    total = 1
    for _, _, domain in quality.output_space.items():
        total *= len(domain.codes())
    return total


def _witness(quality: QualityFunction, summary: SearchSummary, size: int) -> Witness:
    pair = summary.best[size]
    first = tuple(decode_record(quality, summary.records[i]) for i in pair.first)
    second = tuple(decode_record(quality, summary.records[i]) for i in pair.second)
    exact = abs(quality(list(first), pair.output) - quality(list(second), pair.output))  # re-evaluated from the user form
    if exact != pair.difference:
        raise RuntimeError(f"internal error: a witness re-evaluates to {exact}, not {pair.difference}")
    return Witness(first, second, pair.output, exact, size)


def prove_sensitivity(
    quality: QualityFunction,
    *,
    neighbours: Any,
    claimed: Any = None,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    search_size: int = 3,
    search_budget: int = 200_000,
    outputs: Sequence[Hashable] | None = None,
) -> SensitivityResult:
    """Prove, bound or refute the sensitivity of ``quality`` under ``neighbours``.

    ``quality`` is a :class:`~expmech.spec.QualityFunction` (black-box
    callables go to :func:`expmech.proofs.falsify`); ``neighbours`` a
    :class:`~expmech.spec.Neighbours` or its name; ``claimed`` ``None``, a
    rational, or a sympy expression in ``n``.  Returns a frozen
    :class:`SensitivityResult`:

    * PROVED — the lifted bound holds for every n (and the claim, if given, is
      at least it); ``tight`` when a witness attains the bound;
    * REFUTED — a concrete neighbouring pair exceeds the claim;
    * BOUNDED — no lifting rule applies, but an exhaustive exact check over
      every dataset up to ``bounded_size`` records finds the claim (or the
      reported bound) respected;
    * UNKNOWN — a solver was inconclusive, or the proved bound exceeds the
      claim and no counterexample was found.

    ``rlimit`` is z3's deterministic resource budget per call; ``timeout_ms`` a
    safety net.  ``search_size`` and ``search_budget`` bound the exact search
    for witnesses and counterexamples; ``outputs`` restricts that search to a
    list of outputs (the proof still covers the whole output space).
    """
    if not isinstance(quality, QualityFunction):
        raise InvalidType(
            f"quality={describe(quality)} must be an expmech.spec.QualityFunction; use falsify() for a black-box callable",
            parameter="quality",
            value=quality,
        )
    relation = Neighbours.parse(neighbours)
    claim = _parse_claim(claimed)
    for name, value in (("rlimit", rlimit), ("timeout_ms", timeout_ms), ("search_size", search_size), ("search_budget", search_budget)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)
    prover = _Prover(quality, relation, rlimit, timeout_ms)
    bound: sympy.Expr | None = None
    rule_failure = ""
    method = "lifted"
    try:
        bound = sympy.simplify(prover.lift(quality.expr))
    except _NoRule as error:
        rule_failure = f"no lifting rule: {error}"
    except _Unknown as error:
        rule_failure = f"solver inconclusive: {error}"
    except InvalidArgument as error:
        rule_failure = f"not translatable: {error}"
    if outputs is not None:
        outputs = list(outputs)
        for r in outputs:
            quality.output_space.encode(r, name="outputs[…]")
    search_outputs = outputs if outputs is not None else (quality.outputs() if quality.output_space.is_finite else None)
    plan = _search_sizes(prover, search_size, search_budget, outputs)
    done: list[SearchSummary] = []
    if plan is not None and search_outputs is not None:
        records, exhaustive, sizes = plan
        proved_enough = bound is not None and bound is not sympy.oo and (claim is None or _at_least(claim, bound))
        for size in sizes:
            try:
                part = search_pairs(quality, records, search_outputs, relation, size, exhaustive=exhaustive)
            except QualityError as error:
                rule_failure = (rule_failure + "; " if rule_failure else "") + f"the search could not evaluate q: {error}"
                break
            done.append(part)
            pair = part.best.get(size)
            if pair is None:
                continue
            exceeds = claim is not None and pair.difference > _at(claim, size)
            attains = proved_enough and pair.difference == _at(bound, size)
            if exceeds or attains:
                break
    summary = merge(done)
    if summary is not None and summary.best and (bound is None or bound is sympy.oo or not bound.free_symbols):
        observed = max(p.difference for p in summary.best.values())
        attained = bound is not None and bound is not sympy.oo and observed == bound
        if not attained:
            try:
                if prover.joint_bound(quality.expr, observed):
                    bound, method = _rational(observed), "joint"
            except _Unknown as error:
                rule_failure = (rule_failure + "; " if rule_failure else "") + f"joint encoding inconclusive: {error}"
    queries = tuple(prover.queries)

    def result(
        status: Status,
        reason: str,
        method: str,
        *,
        tight: bool = False,
        witness: Witness | None = None,
        counterexample: Witness | None = None,
        bounded_size: int | None = None,
    ) -> SensitivityResult:
        return SensitivityResult(
            status, relation, bound, claim, tight, witness, counterexample, reason, method, queries, bounded_size
        )

    counterexample = None
    if claim is not None and summary is not None:
        for size, pair in sorted(summary.best.items()):
            if pair.difference > _at(claim, size):
                counterexample = replace(_witness(quality, summary, size), claimed=claim)
                break
    if counterexample is not None:
        return result(
            Status.REFUTED,
            f"neighbouring datasets of size {counterexample.size} differ by {counterexample.difference} "
            f"> claimed {_at(claim, counterexample.size)} at r={readable(counterexample.output)}",
            "search",
            counterexample=counterexample,
        )
    witness, tight = None, False
    if bound is not None and bound is not sympy.oo and summary is not None:
        for size, pair in sorted(summary.best.items()):
            if pair.difference == _at(bound, size):
                witness, tight = _witness(quality, summary, size), True
                break
    if bound is not None and bound is not sympy.oo:
        if claim is None or _at_least(claim, bound):
            note = "tight: a witness attains it" if tight else "not shown tight: no searched pair attains it"
            looser = "" if claim is None or _at_least(bound, claim) else f"; the claim {claim} is looser than the proved {bound}"
            how = "joint z3 bound" if method == "joint" else "lifted bound"
            return result(Status.PROVED, f"{how} {bound} holds for every n ({note}){looser}", method, tight=tight, witness=witness)
        reason = f"the proved bound {bound} exceeds the claim {claim} and no searched pair exceeds the claim"
    elif bound is sympy.oo:
        reason = "the lifted bound is unbounded and no searched pair exceeds the claim"
    else:
        reason = rule_failure
    if summary is not None and summary.exhaustive and summary.best:
        size = max(summary.best)
        largest = max(p.difference for p in summary.best.values())
        limit = f"every dataset of at most {size} records"
        if claim is None:
            return result(Status.BOUNDED, f"{reason}; over {limit} the largest change is {largest}", "exhaustive",
                          bounded_size=size, witness=_witness(quality, summary, max(summary.best, key=lambda s: summary.best[s].difference)))
        return result(Status.BOUNDED, f"{reason}; the claim holds over {limit} (checked exhaustively)", "exhaustive", bounded_size=size)
    return result(Status.UNKNOWN, reason or "no proof and no counterexample", "none")
