"""Statements of the source and their algebraic proof steps, checked by sympy.

A :class:`Statement` holds one definition, lemma or theorem of the source: a
stable id, where it stands in the source, its hypotheses (each marked as
stated in the source or left implicit there), its conclusion, and — where the
source argues by algebra — its proof as a list of :class:`ProofStep`.

A step is checked by :func:`check_step`, with one of three rules:

* ``identity`` — the claim ``lhs = rhs`` holds because ``lhs − rhs``
  simplifies to 0;
* ``combination`` — the claim ``lhs <= rhs`` (or ``<``, ``>=``, ``>``) follows
  from the step's premises ``aᵢ <= bᵢ`` because
  ``(rhs − lhs) − Σ λᵢ·(bᵢ − aᵢ)`` is provably non-negative for the given
  multipliers ``λᵢ``, each provably non-negative (a checked certificate: the
  proof author supplies the ``λᵢ``, sympy checks them under the symbols'
  assumptions).  With ``log_scale`` the claim is compared after taking
  logarithms of both (positive) sides;
* ``termwise-sum`` — the claim ``Σ_s f(s) <= Σ_s g(s)`` follows from an earlier
  step ``f(s) <= g(s)`` that holds for every ``s``.

Nothing here is numeric except sympy's own sign decisions on constants.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy

from ._errors import InvalidArgument, describe

__all__ = [
    "Hypothesis",
    "ProofStep",
    "Statement",
    "StepCheck",
    "StepStatus",
    "check_step",
    "check_steps",
]


@dataclass(frozen=True)
class Hypothesis:
    """One hypothesis of a statement.

    ``relation`` is a sympy relation when the hypothesis is algebraic, else
    ``None`` (a structural condition stated in ``text``).  ``in_source`` is
    False for a hypothesis the source leaves implicit; the toolkit must show
    with a counterexample that it is needed.
    """

    id: str
    text: str
    relation: sympy.Basic | None = None
    in_source: bool = True


@dataclass(frozen=True)
class ProofStep:
    """One algebraic step of a proof: a claim, the rule that justifies it, and its inputs.

    ``premises`` are relations assumed (hypotheses or earlier claims);
    ``multipliers`` the non-negative weights of the ``combination`` rule, one per
    premise; ``from_step`` the index of the earlier step a ``termwise-sum``
    sums.  ``cites`` names the impl code the step constrains, if any.
    """

    text: str
    claim: sympy.Basic
    rule: str = "identity"
    premises: tuple[sympy.Basic, ...] = ()
    multipliers: tuple[sympy.Expr, ...] = ()
    log_scale: bool = False
    from_step: int | None = None
    cites: tuple[str, ...] = ()


@dataclass(frozen=True)
class Statement:
    """A definition, lemma or theorem of the source, with its hypotheses and proof steps.

    ``source_lines`` are the line numbers in the source text (first, last);
    ``source_quote`` a short quote of it.  ``constrains`` names the impl code
    the statement is checked against.  ``instantiable`` is False where the
    statement is asymptotic or informal and has no finite instance to check;
    ``note`` says why, or what the toolkit found about the source's text.
    """

    id: str
    kind: str
    title: str
    source_lines: tuple[int, int]
    source_quote: str
    hypotheses: tuple[Hypothesis, ...]
    conclusion: sympy.Basic | None
    conclusion_text: str
    steps: tuple[ProofStep, ...] = ()
    constrains: tuple[str, ...] = ()
    instantiable: bool = True
    note: str = ""
    symbols: dict[str, str] = field(default_factory=dict)

    def hypothesis(self, hypothesis_id: str) -> Hypothesis:
        """The hypothesis with this id."""
        for h in self.hypotheses:
            if h.id == hypothesis_id:
                return h
        raise InvalidArgument(
            f"statement {self.id!r} has no hypothesis {hypothesis_id!r}", parameter="hypothesis_id", value=hypothesis_id
        )


class StepStatus(enum.Enum):
    """Outcome of checking one step."""

    VERIFIED = "verified"
    FAILED = "failed"


@dataclass(frozen=True)
class StepCheck:
    """The result of :func:`check_step`: status, the step, and why."""

    status: StepStatus
    step: ProofStep
    reason: str


def _slack(relation: sympy.Basic, *, log_scale: bool = False) -> tuple[sympy.Expr, bool]:
    """``(rhs − lhs, strict)`` for ``lhs <= rhs`` / ``lhs < rhs`` (and the mirrored forms)."""
    if isinstance(relation, sympy.LessThan | sympy.StrictLessThan):
        small, large = relation.lhs, relation.rhs
    elif isinstance(relation, sympy.GreaterThan | sympy.StrictGreaterThan):
        small, large = relation.rhs, relation.lhs
    else:
        raise InvalidArgument(
            f"relation {describe(relation)} must be an inequality", parameter="relation", value=relation
        )
    strict = isinstance(relation, sympy.StrictLessThan | sympy.StrictGreaterThan)
    if log_scale:
        return sympy.expand_log(sympy.log(large) - sympy.log(small), force=True), strict
    return large - small, strict


def _nonnegative(expr: sympy.Expr) -> bool:
    simplified = sympy.simplify(expr)
    if simplified == 0:
        return True
    if simplified.is_nonnegative is True:
        return True
    expanded = sympy.expand(simplified)
    if expanded == 0 or expanded.is_nonnegative is True:
        return True
    lifted = _exp_at_least_one(expanded)
    return lifted is not None and sympy.expand(lifted).is_nonnegative is True


def _exp_at_least_one(expr: sympy.Expr) -> sympy.Expr | None:
    """``expr`` with each ``e^a``, ``a`` provably >= 0, replaced by ``1 + t`` for a fresh ``t >= 0``.

    Sound for sign proofs: every such ``e^a`` *is* ``1 + t`` for some ``t >= 0``,
    so if the result is >= 0 for all ``t >= 0`` then so is ``expr``.  ``None``
    when there is no such power to replace.
    """
    powers = [p for p in expr.atoms(sympy.exp) if p.args[0].is_nonnegative is True]
    if not powers:
        return None
    return expr.subs({p: 1 + sympy.Dummy("t", nonnegative=True) for p in powers})


def _positive(expr: sympy.Expr) -> bool:
    simplified = sympy.simplify(expr)
    return simplified.is_positive is True or sympy.expand(simplified).is_positive is True


def check_step(step: ProofStep, steps: Sequence[ProofStep] = ()) -> StepCheck:
    """Check one proof step symbolically (see the module docstring for the rules)."""
    try:
        if step.rule == "identity":
            if not isinstance(step.claim, sympy.Equality):
                return StepCheck(StepStatus.FAILED, step, "an identity step needs an Eq claim")
            difference = step.claim.lhs - step.claim.rhs
            for simplifier in (
                lambda d: sympy.simplify(d),
                lambda d: sympy.simplify(sympy.expand_log(sympy.powsimp(sympy.expand(d), force=True), force=True)),
                lambda d: sympy.simplify(d.doit()),  # integrals evaluated first (the noise identities need it)
            ):
                if simplifier(difference) == 0:
                    return StepCheck(StepStatus.VERIFIED, step, "lhs − rhs simplifies to 0")
            return StepCheck(StepStatus.FAILED, step, f"lhs − rhs simplifies to {sympy.simplify(difference)}, not 0")
        if step.rule == "combination":
            if len(step.multipliers) != len(step.premises):
                return StepCheck(StepStatus.FAILED, step, "one multiplier is needed per premise")
            if step.log_scale:
                small, large = _sides(step.claim)
                if not (_positive(small) and _positive(large)):
                    return StepCheck(StepStatus.FAILED, step, "log_scale needs both sides provably positive")
            target, strict = _slack(step.claim, log_scale=step.log_scale)
            remainder = target
            strict_used = False
            for premise, weight in zip(step.premises, step.multipliers):
                if not _nonnegative(weight):
                    return StepCheck(StepStatus.FAILED, step, f"multiplier {weight} is not provably >= 0")
                slack, premise_strict = _slack(premise)
                remainder = remainder - weight * slack
                if premise_strict and _positive(weight):
                    strict_used = True
            if not _nonnegative(remainder):
                return StepCheck(
                    StepStatus.FAILED, step, f"the remainder {sympy.simplify(remainder)} is not provably >= 0"
                )
            if strict and not (strict_used or _positive(remainder)):
                return StepCheck(StepStatus.FAILED, step, "a strict claim needs a strict premise or a positive remainder")
            return StepCheck(StepStatus.VERIFIED, step, "the weighted premises leave a non-negative remainder")
        if step.rule == "termwise-sum":
            if step.from_step is None or not 0 <= step.from_step < len(steps):
                return StepCheck(StepStatus.FAILED, step, "termwise-sum needs from_step, an earlier step")
            earlier = steps[step.from_step]
            small, large = _sides(step.claim)
            term_small, term_large = _sides(earlier.claim)
            if not (_sums_of(small, term_small) and _sums_of(large, term_large)):
                return StepCheck(StepStatus.FAILED, step, "the claim is not the sum of the earlier step's sides")
            if type(step.claim) is not type(earlier.claim) and not _same_direction(step.claim, earlier.claim):
                return StepCheck(StepStatus.FAILED, step, "the claim and the earlier step point different ways")
            return StepCheck(StepStatus.VERIFIED, step, f"sums step {step.from_step + 1} over its index")
        return StepCheck(StepStatus.FAILED, step, f"unknown rule {step.rule!r}")
    except (TypeError, ValueError, AttributeError) as error:
        return StepCheck(StepStatus.FAILED, step, f"could not be checked: {error}")


def _sides(relation: sympy.Basic) -> tuple[sympy.Expr, sympy.Expr]:
    if isinstance(relation, sympy.LessThan | sympy.StrictLessThan):
        return relation.lhs, relation.rhs
    if isinstance(relation, sympy.GreaterThan | sympy.StrictGreaterThan):
        return relation.rhs, relation.lhs
    raise InvalidArgument(f"relation {describe(relation)} must be an inequality", parameter="relation", value=relation)


def _same_direction(a: sympy.Basic, b: sympy.Basic) -> bool:
    upward = (sympy.LessThan, sympy.StrictLessThan)
    return isinstance(a, upward) == isinstance(b, upward)


def _sums_of(total: sympy.Expr, term: sympy.Expr) -> bool:
    """Whether ``total`` is ``c · Sum(term, limits)`` with ``c`` free of the index."""
    sums = [node for node in sympy.preorder_traversal(total) if isinstance(node, sympy.Sum)]
    if len(sums) != 1:
        return False
    (the_sum,) = sums
    factor = sympy.simplify(total / the_sum)
    index = the_sum.limits[0][0]
    if index in factor.free_symbols:
        return False
    return sympy.simplify(factor * the_sum.function - term) == 0


def check_steps(statement: Statement) -> list[StepCheck]:
    """Check every proof step of ``statement`` in order."""
    return [check_step(step, statement.steps) for step in statement.steps]
