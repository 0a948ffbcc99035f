"""Mutation of the prover: each rule broken in turn, and every false PROVED the mutant produces rejected by the verifier.

Each mutant rewrites one rule of the prover's source (the bound and the recorded step change together, as a real
bug would change them) and is installed with monkeypatch.  A mutant's PROVED is *false* when the exact brute force
(``brute_force``: the spec's evaluator on every neighbouring pair up to three records, the empty dataset included
under add-remove wherever q is defined on it) finds a change above the proved bound.  Every false PROVED must carry
a derivation the verifier rejects, written in the verifier's terms as the certifier writes it, with the best proofs
a certificate could record for its side conditions (the certifier's, or a forged solver call).  Each mutant also has
a witness quality on which it is known to produce a false PROVED (so no mutant is vacuous), and the unmutated
prover's derivation there is accepted.  The slow test measures the mutation score.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brute_force
from checker_tools import in_verifier_terms, judge, statement_for
from expmech.proofs import Status, prove_sensitivity
from expmech.proofs.prover import _rules, _sensitivity
from strategies import GENERATED_PROVER_OPTIONS
from expmech.spec import DATASET_SIZE, ExpMechError, IntRange, Neighbours, OutputSpace, QualityFunction, RecordSchema, count, mean, size, total

n = DATASET_SIZE
SCHEMA, OUTPUTS = RecordSchema(x=IntRange(-2, 2)), OutputSpace(r=IntRange(0, 2))
x, r = SCHEMA["x"], OUTPUTS["r"]
OPTIONS = GENERATED_PROVER_OPTIONS


@dataclass(frozen=True)
class Mutant:
    """A rewrite of one function of the prover: ``edits`` are (old, new) snippets of its source, each found exactly once."""

    name: str
    module: Any
    owner: str | None  # the class holding the method, None for a module-level function
    function: str
    edits: tuple[tuple[str, str], ...]
    witness: Callable[[], sympy.Expr]
    relation: Neighbours
    claim: Any = None


MUTANTS = [
    Mutant("max-drops-a-term", _rules, "Prover", "_lift", (("children = [self.step(arg, reach) for arg in expr.args]", "children = [self.step(arg, reach) for arg in expr.args[1:]]"),),
           lambda: sympy.Max(count(x >= 2), count(x >= 1) / 2), Neighbours.REPLACE_ONE),
    Mutant("max-keeps-the-smallest", _rules, None, "_largest", (("symbolic.append(max(numbers))", "symbolic.append(min(numbers))"),),
           lambda: sympy.Max(count(x >= 1), 3 * count(x >= 2)), Neighbours.REPLACE_ONE),
    Mutant("piecewise-drops-a-branch", _rules, "Prover", "_lift", (("for i in live]", "for i in live[1:]]"),),
           lambda: sympy.Piecewise((3 * count(x >= 1), r >= 1), (count(x >= 2), True)), Neighbours.REPLACE_ONE),
    Mutant("piecewise-calls-a-live-branch-dead", _rules, "Prover", "dead_branches", (("for i, c in enumerate(chosen) if", "for i, c in enumerate(chosen) if i == 0 or"),),
           lambda: sympy.Piecewise((3 * count(x >= 1), r >= 1), (count(x >= 2), True)), Neighbours.REPLACE_ONE),
    Mutant("sum-drops-a-term", _rules, "Prover", "_lift", (("for i in linear + others:", "for i in (linear + others)[1:]:"),),
           lambda: sympy.Abs(count(x >= 1) - r) + sympy.Abs(count(x >= 2) - r), Neighbours.REPLACE_ONE),
    Mutant("scale-without-its-factor", _rules, "Prover", "_lift",
           (("scale = self.constant_bound(sympy.Mul(*constants)) if constants else Fraction(1)", "scale = Fraction(1)"),),
           lambda: 3 * sympy.Abs(count(x >= 1) - r), Neighbours.REPLACE_ONE),
    Mutant("scale-forgets-its-n-power", _rules, "Prover", "_lift", (("_rational(scale) * n**size_power * child.bound", "_rational(scale) * child.bound"),),
           lambda: size() * sympy.Abs(count(x >= 1) - r), Neighbours.REPLACE_ONE),
    Mutant("mean-over-n-plus-one", _rules, "Prover", "form_step",
           (("_rational(spread) / n if replace else", "_rational(spread) / (n + 1) if replace else"),), lambda: mean(x), Neighbours.REPLACE_ONE),
    Mutant("flipped-sign-of-a-range", _rules, "Prover", "_form_values",
           (("plain = max(ranges[0].value, ranges[1].value, Fraction(0))", "plain = max(ranges[0].value, Fraction(0))"),),
           lambda: total(sympy.Min(x, 1)), Neighbours.ADD_REMOVE),
    Mutant("size-rule-skips-n-zero", _rules, "Prover", "_size_change",
           (("start = 0 if self.empty_defined else 1", "start = 1"), ("if self.empty_defined:", "if False:")),
           lambda: (size() - 1) ** 2, Neighbours.ADD_REMOVE),
    Mutant("start-one-under-add-remove", _sensitivity, None, "_prove",
           (("start = 0 if add_remove and defined.empty else 1", "start = 1"),), lambda: 6 / (size() + 1), Neighbours.ADD_REMOVE, 1),
]


def install(monkeypatch: pytest.MonkeyPatch, mutant: Mutant) -> None:
    """Compile the mutated function in its module's namespace and patch it in."""
    owner = getattr(mutant.module, mutant.owner) if mutant.owner else mutant.module
    source = textwrap.dedent(inspect.getsource(getattr(owner, mutant.function)))
    for old, new in mutant.edits:
        assert source.count(old) == 1, (mutant.name, old)
        source = source.replace(old, new)
    namespace = dict(vars(mutant.module))
    exec(compile("from __future__ import annotations\n" + source, f"<mutant {mutant.name}>", "exec"), namespace)  # noqa: S102
    monkeypatch.setattr(owner, mutant.function, namespace[mutant.function])


def quality(expr: sympy.Expr) -> QualityFunction:
    return QualityFunction(expr, schema=SCHEMA, outputs=OUTPUTS)


def false_proved(q: QualityFunction, relation: Neighbours, result: Any) -> bool:
    """Whether a PROVED result's bound is exceeded by some neighbouring pair up to three records."""
    start = result.derivation["start"] if result.derivation is not None else 0
    return brute_force.sensitivity_violation(q, relation, result.proved_bound, start, largest=3) is not None


def accepted(q: QualityFunction, relation: Neighbours, derivation: dict[str, Any] | None, *, forge: bool = True) -> bool:
    """Whether the verifier accepts the prover's derivation (None: the prover wrote none) in a certificate's terms."""
    if derivation is None:
        return False
    data = statement_for(q, relation)
    return judge(data, in_verifier_terms(derivation, data, q), forge=forge).accepted


def verdict_of(q: QualityFunction, relation: Neighbours, claim: Any) -> tuple[Any, bool | None]:
    """(result, whether it is a false PROVED) — (None, None) when the prover raises, (result, None) when not PROVED."""
    try:
        result = prove_sensitivity(q, neighbours=relation, claimed=claim, **OPTIONS)
    except ExpMechError:
        return None, None
    if result.status is not Status.PROVED:
        return result, None
    return result, false_proved(q, relation, result)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_mutant_proves_its_witness_falsely_and_the_verifier_rejects_it(monkeypatch, mutant):
    """The mutant's false PROVED on its witness is rejected by the verifier; the unmutated prover is right there (its derivation accepted)."""
    q = quality(mutant.witness())
    honest, wrong = verdict_of(q, mutant.relation, mutant.claim)
    assert honest is not None and wrong is not True
    if wrong is False:
        assert accepted(q, mutant.relation, honest.derivation, forge=False)
    install(monkeypatch, mutant)
    result, wrong = verdict_of(q, mutant.relation, mutant.claim)
    assert wrong is True, (mutant.name, result)
    assert not accepted(q, mutant.relation, result.derivation)


ATOMS = [count(x >= 1), count(x >= 2), count(sympy.Eq(x, r)), total(sympy.Min(x, 1)), total(x), mean(x), size(), 6 / (size() + 1), (size() - 1) ** 2]


def rule_expression(choose: Callable[[list[Any]], Any], depth: int = 2) -> sympy.Expr:
    """A small expression over every lifting rule — linear atoms, sizes, Abs, Max/Min, Piecewise on r, products — picked by ``choose``."""
    kind = choose(["leaf", "leaf"] + (["add", "abs", "max", "min", "piecewise", "scale", "size"] if depth else []))
    if kind == "leaf":
        return choose([1, 2, 3, -1, sympy.Rational(1, 2)]) * choose(ATOMS)
    a, b = rule_expression(choose, depth - 1), rule_expression(choose, depth - 1)
    return {"add": lambda: a + b, "abs": lambda: sympy.Abs(a - r), "max": lambda: sympy.Max(a, b), "min": lambda: sympy.Min(a, b),
            "piecewise": lambda: sympy.Piecewise((a, r >= 1), (b, True)), "scale": lambda: (r + 1) * sympy.Abs(a),
            "size": lambda: size() * sympy.Abs(a - r)}[kind]()


@st.composite
def rule_qualities(draw: st.DrawFn) -> sympy.Expr:
    """:func:`rule_expression` drawn by hypothesis."""
    return rule_expression(lambda options: draw(st.sampled_from(options)))


def _all_false_rejected(monkeypatch: pytest.MonkeyPatch, mutant: Mutant, expr: sympy.Expr, relation: Neighbours, claim: Any) -> tuple[int, int]:
    """(false PROVEDs, of them rejected) for one generated case under ``mutant``."""
    try:
        q = quality(expr)
    except ExpMechError:
        return 0, 0
    with monkeypatch.context() as patch:
        install(patch, mutant)
        result, wrong = verdict_of(q, relation, claim)
    if not wrong:
        return 0, 0
    return 1, int(not accepted(q, relation, result.derivation))


CASES = 100
relations = st.sampled_from([Neighbours.REPLACE_ONE, Neighbours.ADD_REMOVE])
claims = st.sampled_from([None, None, 1, 2, 1 / n])


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(MUTANTS), rule_qualities(), relations, claims)
def test_every_false_proved_of_a_mutant_on_generated_qualities_is_rejected(mutant, expr, relation, claim):
    """Generated expressions over every rule, any mutant: each false PROVED it produces is rejected by the verifier."""
    patch = pytest.MonkeyPatch()
    try:
        wrong, rejected = _all_false_rejected(patch, mutant, expr, relation, claim)
    finally:
        patch.undo()
    assert wrong == rejected, (mutant.name, expr, relation, claim)


@pytest.mark.slow
def test_slow_mutation_score(monkeypatch, capsys):
    """Mutation score over 100 generated cases per mutant plus its witness (fixed seed): every mutant killed, every false PROVED rejected."""
    import random

    rng = random.Random(23)
    cases = [(rule_expression(rng.choice), rng.choice(list(Neighbours)), rng.choice([None, None, 1, 2, 1 / n])) for _ in range(CASES)]
    killed, wrong_total, rejected_total = 0, 0, 0
    for mutant in MUTANTS:
        mutant_cases = cases + [(mutant.witness(), mutant.relation, mutant.claim)]
        wrong = rejected = 0
        for expr, relation, claim in mutant_cases:
            w, rj = _all_false_rejected(monkeypatch, mutant, expr, relation, claim)
            wrong, rejected = wrong + w, rejected + rj
        killed += int(wrong > 0 and wrong == rejected)
        wrong_total, rejected_total = wrong_total + wrong, rejected_total + rejected
        with capsys.disabled():
            print(f"\n{mutant.name}: {wrong} false PROVED, {rejected} rejected by the verifier")
    with capsys.disabled():
        print(f"\nmutation score: {killed}/{len(MUTANTS)} mutants killed; {rejected_total}/{wrong_total} false PROVEDs rejected")
    assert killed == len(MUTANTS) and rejected_total == wrong_total
