"""Per-record bounds certified by z3, lifted to every dataset size by sound rules.

**Linear forms.**  A part of q that is linear in the aggregates, with
coefficients free of the data — ``Σ cᵢ(r)·countᵢ + Σ dⱼ(r)·totalⱼ + k(r)·size()``,
and the same divided by ``size()`` (a mean) — changes between neighbours
through one record only.  Its per-record term ``h(x, r)`` (a count
contributes ``cᵢ(r)·[pᵢ(x, r)]``) gives the exact change, for each output:

====================  ===============================  =======================================
form                  replace-one                      add-remove (n = the smaller size)
====================  ===============================  =======================================
``Σ h + k·size()``    ``max h(b, r) − h(a, r)``        ``max |h(a, r) + k(r)|``
``(Σ h) / size()``    ``max (h(b, r) − h(a, r)) / n``  ``max (h(a, r) − h(b, r)) / (n + 1)``
====================  ===============================  =======================================

(a mean under add-remove moves by ``(h(x) − mean h) / (n + 1)``, and the mean
lies between the smallest and largest ``h`` at the same ``r``; it is
undefined on the empty dataset, so its bound is for ``n >= 1``).

Each maximum is *certified* by two plain solver calls — ``objective > B``
unsat, ``objective >= B`` sat with the model re-evaluated exactly — where
``B`` is a guess: the indicator's ``1`` (then ``0``) for a single count, and
z3 ``Optimize`` otherwise.  A supremum that is not attained (``B − ε``) is
certified by the first call alone and is reported as not attained.

**The indicator theorem** needs no solver: a form made of counts alone,
``Σ cᵢ(r)·[pᵢ]``, changes by at most ``max_r Σ |cᵢ(r)|`` (plus ``|k(r)|``
when a record is added, over ``n`` or ``n + 1`` for a mean).  The prover uses
it first (:attr:`Prover.theorem_bounds`); only where no pair attains the
resulting bound does it certify each form's exact per-output maximum with z3.

**Lifting rules** (sound for every n): ``Δ(a + b) <= Δa + Δb``;
``Δ(c·a) <= max_r |c(r)| · Δa`` for ``c`` free of the data; ``Δ(nᵏ·a) = nᵏ·Δa``
under replace-one (n is fixed); ``Δ|a| <= Δa``; ``ΔMax/Min(a, b) <= max(Δa,
Δb)``; a ``Piecewise`` whose conditions are free of the data ``<= max`` over
its branches, less those no output reaching it takes (z3 ``unsat``: a mean in
such a branch is never evaluated, even on the empty dataset); a term ``g(size())`` whose only data is the size does not move
under replace-one and moves by exactly ``|g(n + 1) − g(n)|`` under add-remove
(``1/size()``: ``1/(n(n + 1))``; a change of small degree, checked exactly at
n = 0 where q is defined there).  Where none applies the prover raises
:class:`NoRule`.

**What n is.**  Every bound is a function of ``n`` =
:data:`~expmech.spec.DATASET_SIZE`, a *nonnegative* integer symbol: under
replace-one the size of both datasets (so only ``n >= 1`` matters: there is
no neighbour of the empty dataset), under add-remove the size of the smaller
dataset, ``n >= 0`` wherever q is defined on the empty dataset (``n >= 1``
otherwise, stated as a hypothesis of the result).  No assumption of the symbol
removes a case that matters: bounds combined by ``Max`` (a ``Max`` of the
branches of a ``Min``, ``Piecewise`` or ``Max``) keep their ``n = 0`` value,
so ``Max(2, 11/((n + 1)(n + 2)))`` stays as it is (with a positive ``n`` sympy
rewrote it to ``2``, dropping the pair (∅, one record) whose change is 11/2).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
import z3

from expmech.spec import DATASET_SIZE, Count, InvalidArgument, Mean, Neighbours, OrderStatistic, QualityError, QualityFunction, Size, Total
from expmech.spec.internal import compile_expression

from ._claims import at_least, value_at
from ._derivation import Step, number
from ._encoding import Codes, codes_from_model, domain_constraint, variables
from ._z3bridge import Query, QueryResult, Translator, bool_val, check, int_var, is_nonlinear, maximise, q

__all__ = ["JOINT_TOTAL", "SEARCH_QUERY_COST", "SEARCH_RLIMIT", "SEARCH_TOTAL", "LinearForm", "Maximum", "NoRule", "Prover", "Unknown", "linear_form"]

n = DATASET_SIZE
#: The budget of one search query, and of all of one proof's search queries together:
#: a search may give up where a proof may not (z3's rlimit count is deterministic).
SEARCH_RLIMIT = 400_000
SEARCH_TOTAL = 1_500_000
#: Record × output combinations up to which a nonlinear maximum is guessed by exact enumeration, not Optimize.
ENUMERATION_LIMIT = 4096
SEARCH_QUERY_COST = 20_000  # the least a search query is charged, so their number is bounded too
#: What all of one proof's joint-encoding queries may use together (a deep expression gives up early).
JOINT_TOTAL = 1_000_000
AGGREGATES = (Count, Total, Mean, Size, OrderStatistic)
SIZE_DEGREE = 4  # a term of size() alone under add-remove: the largest degree of its change's numerator/denominator
SIZE_OPERATIONS = 40  # ... and the most operations of a change that is not a rational function
ZERO = sympy.Integer(0)
#: a linear form's (D, S) when a coefficient or a maximum is unbounded
UNBOUNDED: Any = ("unbounded",)
#: the enclosing ``(Piecewise, branch index)`` choices on the way to a subterm
Reach = tuple[tuple[sympy.Piecewise, int], ...]


class NoRule(Exception):
    """No lifting rule applies; carries the reason."""


class Unknown(Exception):
    """A solver call was inconclusive; carries the reason."""


@functools.lru_cache(maxsize=8192)
def has_data(expr: sympy.Basic) -> bool:
    """Whether ``expr`` depends on the dataset."""
    if isinstance(expr, AGGREGATES):
        return True
    return any(has_data(arg) for arg in expr.args)


@dataclass(frozen=True)
class LinearForm:
    """``Σ_records plain + per_size·size() + (Σ_records normalised) / size() + constant``."""

    plain: sympy.Expr = ZERO
    per_size: sympy.Expr = ZERO
    normalised: sympy.Expr = ZERO
    constant: sympy.Expr = ZERO  # the data-free part (it matters once divided by size())

    def __add__(self, other: LinearForm) -> LinearForm:
        return LinearForm(
            self.plain + other.plain, self.per_size + other.per_size, self.normalised + other.normalised, self.constant + other.constant
        )

    @staticmethod
    def total(forms: Sequence[LinearForm]) -> LinearForm:
        """The sum of ``forms``, each part added in one n-ary ``Add`` (a running sum is quadratic)."""
        return LinearForm(
            sympy.Add(*[f.plain for f in forms]),
            sympy.Add(*[f.per_size for f in forms]),
            sympy.Add(*[f.normalised for f in forms]),
            sympy.Add(*[f.constant for f in forms]),
        )

    def scaled(self, factor: sympy.Expr) -> LinearForm:
        """Every part times a data-free factor."""
        return LinearForm(_times(factor, self.plain), factor * self.per_size, _times(factor, self.normalised), factor * self.constant)


def _times(factor: sympy.Expr, term: sympy.Expr) -> sympy.Expr:
    """``factor · term``, pushing the factor into indicator branches so that ``c(r)·[p]`` stays linear."""
    if term == 0:
        return ZERO
    if isinstance(term, sympy.Add):
        return sympy.Add(*[_times(factor, t) for t in term.args])
    if isinstance(term, sympy.Piecewise):
        return sympy.Piecewise(*[(_times(factor, p.expr), p.cond) for p in term.args], evaluate=False)
    return factor * term


def _indicator(predicate: sympy.Basic) -> sympy.Expr:
    # not simplified by sympy (costly, and the term only goes to the solver and the exact evaluator)
    return sympy.Piecewise((sympy.Integer(1), predicate), (ZERO, sympy.true), evaluate=False)


@functools.lru_cache(maxsize=8192)
def linear_form(expr: sympy.Basic) -> LinearForm | None:
    """The linear form of ``expr`` in the aggregates (None if it is not one)."""
    if not has_data(expr):
        return LinearForm(constant=expr)
    if isinstance(expr, Count):
        return LinearForm(plain=_indicator(expr.args[0]))
    if isinstance(expr, Total):
        return LinearForm(plain=expr.args[0])
    if isinstance(expr, Mean):
        return LinearForm(normalised=expr.args[0])
    if isinstance(expr, Size):
        return LinearForm(per_size=sympy.Integer(1))
    if isinstance(expr, sympy.Add):
        parts = []
        for arg in expr.args:
            part = linear_form(arg)
            if part is None:
                return None
            parts.append(part)
        return LinearForm.total(parts)
    if isinstance(expr, sympy.Mul):
        constants = [f for f in expr.args if not has_data(f)]
        data = [f for f in expr.args if has_data(f)]
        factor = sympy.Mul(*constants)
        divided = [f for f in data if f == 1 / Size()]
        rest = [f for f in data if f != 1 / Size()]
        if len(rest) != 1 or len(divided) > 1:
            return None
        inner = linear_form(rest[0])
        if inner is None:
            return None
        if divided:
            if inner.normalised != 0 or inner.constant != 0:
                return None
            # (Σ h + k·size()) / size() = mean h + k: the k part does not move
            inner = LinearForm(normalised=inner.plain)
        return inner.scaled(factor)
    return None


@dataclass(frozen=True)
class Maximum:
    """A certified maximum (or supremum, when ``attained`` is False)."""

    value: Fraction
    attained: bool


class Prover:
    """State of one proof: solver variables, recorded queries, and models worth searching around."""

    def __init__(self, quality: QualityFunction, neighbours: Neighbours, rlimit: int, timeout_ms: int) -> None:
        self.quality = quality
        self.neighbours = neighbours
        self.rlimit = rlimit
        self.timeout_ms = timeout_ms
        self.queries: list[Query] = []
        self.search_left = SEARCH_TOTAL  # rlimit left for search queries
        self.joint_left = JOINT_TOTAL  # rlimit left for joint-encoding queries
        self.last_search_unknown = False
        self.record_seeds: list[Codes] = []
        self.output_seeds: list[Codes] = []
        self.output_vars = variables("out_", quality.output_space)
        self.output_domain = [domain_constraint(self.output_vars[sym], d) for _, sym, d in quality.output_space.items()]
        self.records = {tag: variables(f"{tag}_", quality.schema) for tag in ("a", "b")}
        self.record_domain = {
            tag: [domain_constraint(self.records[tag][sym], d) for _, sym, d in quality.schema.items()] for tag in ("a", "b")
        }
        self._translators = {tag: Translator({**self.records[tag], **self.output_vars}) for tag in ("a", "b")}
        self._lifted: dict[tuple[sympy.Basic, bool, Reach], sympy.Expr] = {}
        #: how each lifted bound was reached (same keys as the lifts: a cached lift is one step, reused)
        self._steps: dict[tuple[sympy.Basic, bool, Reach], Step] = {}
        self._constants: dict[sympy.Expr, Fraction | None] = {}
        #: whether q may be defined on the empty dataset (set by the proof once known; True is the cautious default)
        self.empty_defined = True
        #: the widest spread of d over a concrete neighbouring pair, exact (set by the range proof before its direct
        #: query, which tries it as its bound before z3 Optimize)
        self.range_guess: Fraction | None = None
        #: first pass: a count's change is bounded by the indicator theorem, with no solver call
        self.theorem_bounds = False
        self.used_theorem = False
        #: (objective, guard, bound, term, kind): data, not closures over the prover, so no reference cycle keeps
        #: the proof's z3 context alive after the proof (it is freed then, not at a later garbage collection)
        self.theorem_checks: list[tuple[Any, Any, Fraction, sympy.Expr, str]] = []
        self._forms: dict[tuple[sympy.Expr, sympy.Expr, str], Maximum | None] = {}
        self._ranges: dict[tuple[sympy.Expr, sympy.Expr], tuple[Maximum, Maximum] | None] = {}

    # -- solver calls ------------------------------------------------------------------

    def translate(self, expr: sympy.Basic, tag: str) -> Any:
        """``expr`` over record ``tag`` and the output variables, as a z3 number."""
        return self._translators[tag].number(expr)

    def defined(self, expr: sympy.Basic, tag: str) -> Any:
        """The condition under which ``expr`` evaluates without dividing by zero."""
        undefined = self._translators[tag].undefined(expr)
        return bool_val(True) if z3.is_false(undefined) else z3.Not(undefined)

    def run(self, assertions: list[Any], purpose: str, expected: str) -> QueryResult:
        """One plain solver call; recorded as evidence when it answers what the proof needs."""
        result = check(assertions, rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if result.status == expected:
            self.queries.append(Query(purpose, expected, result))
        return result

    def remember(self, model: dict[str, Any] | None) -> None:
        """Keep the records and output of a model (inside their domains) as seeds for the search."""
        if model is None:
            return
        for tag in ("a", "b"):
            codes = codes_from_model(model, f"{tag}_", self.quality.schema) if any(k.startswith(f"{tag}_") for k in model) else None
            if codes is not None and codes not in self.record_seeds:
                self.record_seeds.append(codes)
        output = codes_from_model(model, "out_", self.quality.output_space)
        if output is not None and output not in self.output_seeds:
            self.output_seeds.append(output)

    def exact(self, expr: sympy.Basic, model: dict[str, Any], tag: str) -> Fraction | None:
        """``expr`` evaluated exactly at the model's record ``tag`` and output; None if outside a domain or undefined."""
        record = codes_from_model(model, f"{tag}_", self.quality.schema)
        output = codes_from_model(model, "out_", self.quality.output_space)
        if record is None or output is None:
            return None
        try:
            return Fraction(compile_expression(expr)({**record, **output}, []))
        except (ZeroDivisionError, QualityError, TypeError):
            return None

    def certified_max(
        self,
        objective: Any,
        evaluate: Callable[[dict[str, Any]], Fraction | None],
        constraints: list[Any],
        purpose: str,
        *,
        guesses: tuple[int, ...] = (),
        enumerated: Callable[[], Fraction | None] | None = None,
    ) -> Maximum | None:
        """The certified maximum (or supremum) of a z3 objective; None when unbounded; Unknown when inconclusive.

        ``guesses`` are candidate maxima tried first, largest first (a count's
        change is 1 or 0).  z3 ``Optimize`` guesses only where it is steady — a
        linear query; for a nonlinear one the guess is ``enumerated()``, the
        exact maximum over small finite domains, when it can be had.  Every
        guess is certified by the two plain calls.
        """
        for guess in guesses:
            found = self._certify(objective, evaluate, constraints, purpose, Fraction(guess), attained_required=True)
            if found is not None:
                return found
        if enumerated is not None and is_nonlinear(constraints + [objective >= 0]):
            value = enumerated()
            if value is not None:
                found = self._certify(objective, evaluate, constraints, purpose, value, attained_required=True)
                if found is not None:
                    return found
        kind, value = maximise(objective, constraints, rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if kind == "unknown":
            raise Unknown(f"z3 could not optimise {purpose}")
        if kind == "unbounded":
            probe = self.run(constraints + [objective > 1000], f"{purpose} exceeds 1000 (unbounded)", "sat")
            self.remember(probe.model)
            return None
        assert value is not None
        found = self._certify(objective, evaluate, constraints, purpose, value, attained_required=kind == "bounded")
        if found is None:
            raise Unknown(f"could not certify {purpose} <= {value}")
        return found

    def _certify(
        self, objective: Any, evaluate: Callable[[dict[str, Any]], Fraction | None], constraints: list[Any], purpose: str,
        value: Fraction, *, attained_required: bool,
    ) -> Maximum | None:
        above = check(constraints + [objective > q(value)], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if above.status != "unsat":
            if above.status == "unknown" and not attained_required:
                raise Unknown(f"z3 could not decide {purpose} > {value}: {above.reason}")
            return None
        if not attained_required:
            self.queries.append(Query(f"{purpose} > {value}", "unsat", above))
            return Maximum(value, False)
        attained = check(constraints + [objective >= q(value)], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if attained.status != "sat" or attained.model is None:
            return None
        exact = evaluate(attained.model)
        if exact is None or exact < value:
            return None
        self.queries.append(Query(f"{purpose} > {value}", "unsat", above))
        self.queries.append(Query(f"{purpose} >= {value}", "sat", attained))
        self.remember(attained.model)
        return Maximum(value, True)

    def _table(self, term: sympy.Expr) -> list[list[Fraction]] | None:
        """``term`` at every (output, record) of small finite domains, exactly (undefined points left out); else None."""
        records = self.quality.schema.size
        space = self.quality.output_space
        if records is None or space.size is None or records * space.size > ENUMERATION_LIMIT:
            return None
        import itertools

        symbols = [sym for _, sym, _ in self.quality.schema.items()]
        combos = [dict(zip(symbols, c)) for c in itertools.product(*[d.codes() for _, _, d in self.quality.schema.items()])]
        evaluate = compile_expression(term)
        table = []
        for r in self.quality.outputs():
            output = space.encode(r)
            row = []
            for codes in combos:
                try:
                    row.append(Fraction(evaluate({**codes, **output}, [])))
                except (ZeroDivisionError, QualityError):
                    continue
            if row:
                table.append(row)
        return table or None

    def _enumerated_change(self, term: sympy.Expr) -> Callable[[], Fraction | None]:
        def value() -> Fraction | None:
            table = self._table(term)
            return None if table is None else max(max(row) - min(row) for row in table)

        return value

    def _enumerated_extreme(self, term: sympy.Expr, sign: int) -> Callable[[], Fraction | None]:
        def value() -> Fraction | None:
            table = self._table(term)
            return None if table is None else max(sign * v for row in table for v in row)

        return value

    # -- linear forms ---------------------------------------------------------------------

    def term_range(self, term: sympy.Expr, shift: sympy.Expr, label: Any) -> tuple[Maximum, Maximum] | None:
        """Certified ``max`` and ``max −`` of ``term(a, r) + shift(r)`` over one record and the outputs; None if unbounded."""
        key = (term, shift)
        if key not in self._ranges:
            self._ranges[key] = self._term_range(term, shift, label)
        return self._ranges[key]

    def _term_range(self, term: sympy.Expr, shift: sympy.Expr, label: Any) -> tuple[Maximum, Maximum] | None:
        value = self.translate(term + shift, "a")
        constraints = self.output_domain + self.record_domain["a"] + [self.defined(term + shift, "a")]
        guesses = (1, 0) if _is_indicator(term) and shift == 0 else ()
        high = self.certified_max(
            value, lambda m: self.exact(term + shift, m, "a"), constraints, f"largest record term of {label}", guesses=guesses,
            enumerated=self._enumerated_extreme(term + shift, 1),
        )
        low = self.certified_max(
            -value, lambda m: _negate(self.exact(term + shift, m, "a")), constraints, f"largest negated record term of {label}",
            guesses=(0,) if guesses else (), enumerated=self._enumerated_extreme(term + shift, -1),
        )
        if high is None or low is None:
            return None
        return high, low

    def change(self, term: sympy.Expr, label: Any) -> Maximum | None:
        """Certified ``max term(b, r) − term(a, r)`` over two records and the outputs; None if unbounded."""
        key = (term, ZERO, "change")
        if key in self._forms:
            return self._forms[key]
        objective = self.translate(term, "b") - self.translate(term, "a")
        constraints = self.output_domain + self.record_domain["a"] + self.record_domain["b"]
        constraints += [self.defined(term, "a"), self.defined(term, "b")]

        def evaluate(model: dict[str, Any]) -> Fraction | None:
            after, before = self.exact(term, model, "b"), self.exact(term, model, "a")
            return None if after is None or before is None else after - before

        guesses = (1, 0) if _is_indicator(term) else ()
        found = self.certified_max(
            objective, evaluate, constraints, f"one-record change of {label}", guesses=guesses, enumerated=self._enumerated_change(term)
        )
        self._forms[key] = found
        return found

    def _indicator_bound(self, form: LinearForm) -> tuple[Fraction, Fraction] | None:
        """The indicator theorem: ``Σ cᵢ(r)·[pᵢ]`` changes by at most ``max_r Σ |cᵢ(r)|`` (+ ``|k(r)|`` when a record is added).

        Returns ``(D, S)``: the sum part's bound and the mean part's spread (:data:`UNBOUNDED` when a coefficient is
        unbounded), or None when the theorem does not apply."""
        fields = set(self.quality.schema.symbols)
        coefficients: dict[str, list[sympy.Expr]] = {"plain": [], "normalised": []}
        for part, term in (("plain", form.plain), ("normalised", form.normalised)):
            for piece in sympy.Add.make_args(term):
                if piece == 0:
                    continue
                if not _is_weighted_indicator(piece) or piece.args[0].expr.free_symbols & fields:
                    return None
                coefficients[part].append(piece.args[0].expr)
        replace = self.neighbours is Neighbours.REPLACE_ONE
        values = [Fraction(0), Fraction(0)]
        plain = [sympy.Abs(c) for c in coefficients["plain"]] + ([] if replace or form.per_size == 0 else [sympy.Abs(form.per_size)])
        if plain:
            total = self.constant_bound(sympy.Add(*plain))
            if total is None:
                return UNBOUNDED
            values[0] = total
            if replace:
                self._theorem_change(form.plain, total)
            else:
                self._theorem_term(form.plain + form.per_size, total)
        if coefficients["normalised"]:
            total = self.constant_bound(sympy.Add(*[sympy.Abs(c) for c in coefficients["normalised"]]))
            if total is None:
                return UNBOUNDED
            values[1] = total
            self._theorem_change(form.normalised, total)
        self.used_theorem = True
        return values[0], values[1]

    def _theorem_change(self, term: sympy.Expr, bound: Fraction) -> None:
        guard = _guarded(self.defined(term, "a"), self.defined(term, "b"))
        self.theorem_checks.append((self.translate(term, "b") - self.translate(term, "a"), guard, bound, term, "change"))

    def _theorem_term(self, term: sympy.Expr, bound: Fraction) -> None:
        value = self.translate(term, "a")
        guard = self.defined(term, "a")
        self.theorem_checks.append((value, guard, bound, term, "term"))
        self.theorem_checks.append((-value, guard, bound, term, "negated"))

    def _theorem_value(self, term: sympy.Expr, kind: str, model: dict[str, Any]) -> Fraction | None:
        """A theorem check's objective at ``model``, exactly (None where undefined)."""
        if kind == "change":
            after, before = self.exact(term, model, "b"), self.exact(term, model, "a")
            return None if after is None or before is None else after - before
        value = self.exact(term, model, "a")
        return value if kind == "term" else _negate(value)

    def certify_theorem(self) -> bool | None:
        """Check every indicator bound used in one pair of queries: none is exceeded (unsat), one is attained (sat).

        Returns whether some bound is attained (None when no bound was used); raises Unknown if z3 cannot confirm.
        """
        checks = list(dict.fromkeys((o, g, b) for o, g, b, _, _ in self.theorem_checks))
        if not checks:
            return None
        constraints = self.output_domain + self.record_domain["a"] + self.record_domain["b"]
        above = check(constraints + [z3.Or(*[_guarded(g, o > q(b)) for o, g, b in checks])], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if above.status != "unsat":
            raise Unknown(f"z3 could not confirm the indicator bounds ({above.status} {above.reason})".strip())
        self.queries.append(Query("a count term changes by more than its indicator bound", "unsat", above))
        attained = check(constraints + [z3.Or(*[_guarded(g, o >= q(b)) for o, g, b in checks])], rlimit=self.rlimit, timeout_ms=self.timeout_ms)
        if attained.status != "sat" or attained.model is None:
            return False
        model = attained.model
        if not any((value := self._theorem_value(term, kind, model)) is not None and value >= bound for _, _, bound, term, kind in self.theorem_checks):
            return False
        self.queries.append(Query("a count term attains its indicator bound", "sat", attained))
        self.remember(model)
        return True

    def form_bound(self, form: LinearForm, label: Any) -> sympy.Expr:
        """The bound of a linear form (see the module docstring); ``label`` (printed only if a query is made) names it."""
        return self.form_step(form, label).bound

    def form_step(self, form: LinearForm, label: Any, args: tuple[int, ...] | None = None) -> Step:
        """The bound of a linear form as a ``linear`` step: ``D + S/n`` (replace-one) or ``D + S/(n+1)`` (add-remove)."""
        values = self._indicator_bound(form) if self.theorem_bounds else None
        if values is None:
            values = self._form_values(form, label)
        if values is UNBOUNDED:
            return Step("linear", sympy.oo, {}, (), args)
        plain, spread = values
        replace = self.neighbours is Neighbours.REPLACE_ONE
        bound = _rational(plain) + (_rational(spread) / n if replace else _rational(spread) / (n + 1))
        return Step("linear", bound, {"plain": number(plain), "mean": number(spread)}, (), args)

    def _form_values(self, form: LinearForm, label: Any) -> tuple[Fraction, Fraction]:
        """``(D, S)`` of a linear form by certified maxima (:data:`UNBOUNDED` when one is unbounded)."""
        plain = spread = Fraction(0)
        replace = self.neighbours is Neighbours.REPLACE_ONE
        if form.plain != 0 or (form.per_size != 0 and not replace):
            if replace:
                found = self.change(form.plain, label)
                if found is None:
                    return UNBOUNDED
                plain = max(found.value, Fraction(0))
            else:
                ranges = self.term_range(form.plain, form.per_size, label)
                if ranges is None:
                    return UNBOUNDED
                plain = max(ranges[0].value, ranges[1].value, Fraction(0))
        if form.normalised != 0:
            found = self.change(form.normalised, f"the mean of {label}")
            if found is None:
                return UNBOUNDED
            spread = max(found.value, Fraction(0))
        return plain, spread

    # -- lifting ----------------------------------------------------------------------------

    def constant_bound(self, factor: sympy.Expr) -> Fraction | None:
        """``max_r |c(r)|`` for a data-free factor over the outputs where it is defined; None when unbounded."""
        if not factor.free_symbols:
            if not factor.is_Rational:
                raise NoRule(f"a constant factor {factor} that is not rational")
            return abs(Fraction(int(factor.p), int(factor.q)))
        if factor not in self._constants:
            self._constants[factor] = self._constant_bound(factor)
        return self._constants[factor]

    def _constant_bound(self, factor: sympy.Expr) -> Fraction | None:
        space = self.quality.output_space
        if space.size is not None and space.size <= 100_000:
            evaluate = compile_expression(factor)
            best = Fraction(0)
            for r in self.quality.outputs():
                try:
                    best = max(best, abs(Fraction(evaluate(space.encode(r), []))))
                except (ZeroDivisionError, QualityError):
                    continue  # q is total, so the factor is never used where it is undefined
            return best
        expr = self.translate(factor, "a")
        magnitude = z3.If(expr >= 0, expr, -expr)
        found = self.certified_max(
            magnitude, lambda m: _magnitude(self.exact(factor, m, "a")), self.output_domain + [self.defined(factor, "a")], f"|{factor}|"
        )
        return None if found is None else found.value

    def lift(self, expr: sympy.Basic) -> sympy.Expr:
        """A sound bound on the change of ``expr`` between neighbours (see the module docstring)."""
        return self.step(expr).bound

    def step(self, expr: sympy.Basic, reach: Reach = ()) -> Step:
        """:meth:`lift` with how it was reached (the derivation's step for ``expr``); ``reach``: the enclosing
        ``(Piecewise, branch)`` choices that lead to ``expr`` (a branch no such output takes is left out)."""
        key = (expr, self.theorem_bounds, reach)
        cached = self._steps.get(key)
        if cached is None:
            cached = self._lift(expr, reach)
            self._steps[key] = cached
            self._lifted[key] = cached.bound
        return cached

    def _chosen(self, expr: sympy.Piecewise, i: int) -> Any:
        """At this output the Piecewise takes branch ``i`` (earlier conditions defined and false, the ``i``-th defined and true)."""
        translator, parts = self._translators["a"], []
        for j, pair in enumerate(expr.args[: i + 1]):
            condition = translator.condition(pair.cond)
            parts += [self.defined(pair.cond, "a"), condition if j == i else z3.Not(condition)]
        return z3.And(*parts)

    def dead_branches(self, expr: sympy.Piecewise, reach: Reach) -> tuple[int, ...]:
        """The branches of ``expr`` no output reaching it takes (z3 ``unsat``; an inconclusive answer keeps the branch)."""
        try:
            context = [self._chosen(p, i) for p, i in reach]
            chosen = [self._chosen(expr, i) for i in range(len(expr.args))]
        except InvalidArgument:  # a condition the solver cannot read: every branch counts as reached
            return ()
        purpose = "no output reaching {} takes branch {}"
        return tuple(i for i, c in enumerate(chosen) if self.run(self.output_domain + context + [c], purpose.format(expr, i), "unsat").status == "unsat")

    def _lift(self, expr: sympy.Basic, reach: Reach = ()) -> Step:
        if not has_data(expr):
            return Step("data-free", ZERO)
        form = linear_form(expr)
        if form is not None:
            try:
                return self.form_step(form, expr)
            except Unknown:
                if not isinstance(expr, sympy.Add | sympy.Mul):
                    raise
        if form is None and size_only(expr) and (self.neighbours is Neighbours.REPLACE_ONE or not expr.free_symbols):
            return Step("size-only", self._size_change(expr))
        if isinstance(expr, OrderStatistic):
            # the k-th smallest value of h is h at one of the records, before and after: it moves by at most the
            # largest change of h between two records at one output, whatever k and the relation
            found = self.change(expr.args[0], f"the records' values of {expr}")
            if found is None:
                return Step("order-statistic", sympy.oo)
            spread = max(found.value, Fraction(0))
            return Step("order-statistic", _rational(spread), {"spread": number(spread)})
        if isinstance(expr, sympy.Add):
            indices = [i for i, arg in enumerate(expr.args) if has_data(arg)]
            linear = [i for i in indices if linear_form(expr.args[i]) is not None]
            others = [i for i in indices if linear_form(expr.args[i]) is None]
            bound: sympy.Expr = ZERO
            premises: list[tuple[tuple[int, ...], Step]] = []
            if len(linear) > 1 and form is None:
                try:
                    combined = linear_form(sympy.Add(*[expr.args[i] for i in linear]))
                    assert combined is not None
                    part = self.form_step(combined, sympy.Add(*[expr.args[i] for i in linear]), tuple(linear))
                    bound += part.bound
                    premises.append(((), part))
                    linear = []
                except Unknown:
                    pass
            for i in linear + others:
                child = self.step(expr.args[i], reach)
                bound += child.bound
                premises.append(((i,), child))
            return Step("sum", bound, {}, tuple(premises))
        if isinstance(expr, sympy.Mul):
            data, constants, size_power = [], [], 0
            for index, factor in enumerate(expr.args):
                if isinstance(factor, sympy.Pow) and isinstance(factor.base, Size) and self.neighbours is Neighbours.REPLACE_ONE:
                    size_power += int(factor.exp)
                elif isinstance(factor, Size) and self.neighbours is Neighbours.REPLACE_ONE:
                    size_power += 1
                elif has_data(factor):
                    data.append(index)
                else:
                    constants.append(factor)
            if len(data) > 1:
                raise NoRule(f"a product of data-dependent factors {sympy.Mul(*[expr.args[i] for i in data])}")
            if not data:
                return Step("size-only", ZERO)  # only size powers and constants: fixed under replace-one
            scale = self.constant_bound(sympy.Mul(*constants)) if constants else Fraction(1)
            if scale is None:
                return Step("scale", sympy.oo)
            child = self.step(expr.args[data[0]], reach)
            if child.bound is sympy.oo:  # not oo·n**k (an expression sympy keeps, which read as a finite bound)
                return Step("scale", sympy.oo)
            return Step("scale", _rational(scale) * n**size_power * child.bound, {"factor_bound": number(scale)}, (((data[0],), child),))
        if isinstance(expr, sympy.Pow):
            raise NoRule(f"a power {expr} of a data-dependent term")
        if isinstance(expr, sympy.Abs):
            child = self.step(expr.args[0], reach)
            return Step("abs", child.bound, {}, (((0,), child),))
        if isinstance(expr, sympy.Max | sympy.Min):
            children = [self.step(arg, reach) for arg in expr.args]
            return Step("max-min", _largest([c.bound for c in children]), {}, tuple(((i,), c) for i, c in enumerate(children)))
        if isinstance(expr, sympy.Piecewise):
            for pair in expr.args:
                if has_data(pair.cond):
                    raise NoRule(f"a Piecewise condition {pair.cond} that depends on the data")
            dead = self.dead_branches(expr, reach)
            live = [i for i in range(len(expr.args)) if i not in dead]
            children = [self.step(expr.args[i].expr, reach + ((expr, i),)) for i in live]
            marks: dict[str, Any] = {"dead": list(dead)} if dead else {}
            return Step("piecewise", _largest([c.bound for c in children]), marks, tuple(((i, 0), c) for i, c in zip(live, children)))
        raise NoRule(f"no rule for {type(expr).__name__}")


    def _size_change(self, expr: sympy.Expr) -> sympy.Expr:
        """The change of a term whose only data is ``size()``: none under replace-one (the size is kept);
        under add-remove ``|g(n + 1) − g(n)|`` exactly, for a term without outputs (``c(r)·g(size())`` is a product).

        ``n`` is the smaller dataset's size, a nonnegative symbol, so no simplification drops n = 0; the change at
        n = 0 is checked against ``|g(1) − g(0)|`` evaluated exactly and stated apart where they differ."""
        if self.neighbours is Neighbours.REPLACE_ONE:
            return ZERO
        at = expr.xreplace({Size(): n})
        if at.has(sympy.floor):
            return self._floor_change(expr, at)
        change = at.xreplace({n: n + 1}) - at
        # kept small: the sign of a high-degree polynomial costs the solver seconds
        try:
            if max(sympy.degree(part, n) for part in sympy.fraction(sympy.cancel(at))) > SIZE_DEGREE + 1:
                raise NoRule(f"a term {expr} of size() of degree above {SIZE_DEGREE + 1}")
            change = sympy.cancel(change)
            if max(sympy.degree(part, n) for part in sympy.fraction(change)) > SIZE_DEGREE:
                raise NoRule(f"a term {expr} of size() of degree above {SIZE_DEGREE}")
            change = sympy.factor(change)
        except sympy.PolynomialError:
            if sympy.count_ops(change) > SIZE_OPERATIONS:
                raise NoRule(f"a term {expr} of size() too large for the size rule") from None
        start = 0 if self.empty_defined else 1  # n is nonnegative: Abs and Max of the change keep their n = 0 case
        if at_least(change, ZERO, start=start).holds:
            bound = change
        elif at_least(-change, ZERO, start=start).holds:
            bound = -change
        else:
            bound = sympy.Abs(change)
        if self.empty_defined:
            first, empty = (value_at(expr.xreplace({Size(): sympy.Integer(k)}), 0) for k in (1, 0))
            at_empty = value_at(bound, 0)
            if first is None or empty is None:
                raise NoRule(f"a term {expr} of size() whose change from the empty dataset is not that of n >= 1")
            if at_empty != abs(first - empty):
                # the change in n was simplified through a point where it is undefined at n = 0: state n = 0 apart
                bound = sympy.Piecewise((_rational(abs(first - empty)), sympy.Eq(n, 0)), (bound, True))
        return bound


    def _floor_change(self, expr: sympy.Expr, at: sympy.Expr) -> sympy.Expr:
        """``max |g(n + 1) − g(n)|`` over every n of the proof, for a term of size() with a floor: a constant, certified by z3."""
        start = 0 if self.empty_defined else 1
        size = int_var("n_size")
        try:
            before, after = Translator({n: size}).number(at), Translator({n: size + 1}).number(at)
        except InvalidArgument as error:
            raise NoRule(f"a term {expr} of size() the solver cannot read: {error}") from None
        change = after - before
        magnitude = z3.If(change >= 0, change, -change)

        def evaluate(model: dict[str, Any]) -> Fraction | None:
            k = model.get("n_size")
            if not isinstance(k, int) or k < start:
                return None
            first, second = value_at(at, k), value_at(at, k + 1)
            return None if first is None or second is None else abs(second - first)

        found = self.certified_max(magnitude, evaluate, [size >= start], f"the change of {expr} when a record is added")
        return sympy.oo if found is None else _rational(found.value)


def size_only(expr: sympy.Basic) -> bool:
    """Whether the data enters ``expr`` through ``size()`` alone (and does enter it)."""
    found = expr.atoms(*AGGREGATES)
    return bool(found) and all(isinstance(a, Size) for a in found)


def _guarded(guard: Any, condition: Any) -> Any:
    """``guard ∧ condition``, without the conjunction when the guard is plainly true."""
    return condition if z3.is_true(guard) else z3.And(guard, condition)


def _largest(bounds: list[sympy.Expr]) -> sympy.Expr:
    """``Max`` of bounds: numbers compared exactly, the rest left to sympy once."""
    if not bounds:
        return ZERO  # a Piecewise none of whose branches is reached
    unique = sorted(set(bounds), key=sympy.default_sort_key)
    if any(b is sympy.oo for b in unique):
        return sympy.oo
    numbers = [b for b in unique if b.is_Rational]
    symbolic = [b for b in unique if not b.is_Rational]
    if numbers:
        symbolic.append(max(numbers))
    return symbolic[0] if len(symbolic) == 1 else sympy.Max(*symbolic)


def _is_weighted_indicator(term: sympy.Expr) -> bool:
    return isinstance(term, sympy.Piecewise) and len(term.args) == 2 and term.args[1].expr == 0 and term.args[1].cond is sympy.true


def _is_indicator(term: sympy.Expr) -> bool:
    return isinstance(term, sympy.Piecewise) and len(term.args) == 2 and term.args[0].expr == 1 and term.args[1].expr == 0


def _negate(value: Fraction | None) -> Fraction | None:
    return None if value is None else -value


def _magnitude(value: Fraction | None) -> Fraction | None:
    return None if value is None else abs(value)


def _rational(value: Fraction) -> sympy.Rational:
    return sympy.Rational(value.numerator, value.denominator)


def rational(value: Fraction) -> sympy.Rational:
    """A Fraction as a sympy Rational."""
    return _rational(value)

