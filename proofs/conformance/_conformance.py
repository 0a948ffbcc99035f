"""Conformance of the source's statements on concrete instances, and the dropped-hypothesis search.

:func:`check_statement` evaluates a statement on random instances that satisfy
all of its hypotheses: a violation there means the statement, or the impl it
constrains, is wrong.  :func:`search_dropped_hypothesis` looks, for one
hypothesis, for an instance satisfying all the *other* hypotheses on which the
conclusion fails — a concrete counterexample showing the hypothesis is
needed.  Finding none is reported as what it is (no counterexample in so many
instances), never as a proof that the hypothesis is superfluous.

Both are derandomised by ``seed`` so their reports are reproducible.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from typing import Any

from expmech.spec import InvalidArgument, Statement, StepStatus, check_steps, statement

from ._identity_families import IDENTITY_FAMILIES
from ._range_families import FAMILIES_WITH_RANGES as _SOURCE_FAMILIES

FAMILIES = {**_SOURCE_FAMILIES, **IDENTITY_FAMILIES}

__all__ = [
    "ConformanceReport",
    "DroppedHypothesis",
    "Finding",
    "StatementReport",
    "check_statement",
    "report_statement",
    "search_dropped_hypothesis",
]


@dataclass(frozen=True)
class ConformanceReport:
    """Instances drawn, those satisfying every hypothesis, and any violation found among them."""

    statement_id: str
    drawn: int
    satisfying: int
    violations: tuple[dict[str, Any], ...]
    seed: int

    @property
    def holds(self) -> bool:
        """No instance satisfying every hypothesis violated the conclusion."""
        return not self.violations


class Finding(enum.Enum):
    """What the dropped-hypothesis search found."""

    NEEDED = "needed"  # a counterexample without it
    NOT_FOUND = "no counterexample found"
    IMPLIED = "implied by the others"  # no instance satisfied the others while violating it
    NOT_SEARCHABLE = "not searchable"


@dataclass(frozen=True)
class DroppedHypothesis:
    """The result of searching for a counterexample with one hypothesis dropped."""

    statement_id: str
    hypothesis_id: str
    finding: Finding
    attempts: int
    candidates: int  # instances violating only this hypothesis
    counterexample: dict[str, Any] | None
    detail: str


def _family(statement_id: str) -> Any:
    statement(statement_id)  # validates the id
    family = FAMILIES.get(statement_id)
    if family is None:
        raise InvalidArgument(
            f"statement_id={statement_id!r} has no finite instances to check", parameter="statement_id", value=statement_id
        )
    return family


def _check_count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidArgument(f"{name}={value!r} must be an int >= 1", parameter=name, value=value)
    return value


def check_statement(statement_id: str, *, instances: int = 100, seed: int = 0) -> ConformanceReport:
    """Evaluate ``statement_id`` exactly on ``instances`` random instances; report violations.

    Only instances satisfying every hypothesis count; the conclusion must hold
    (and be defined) on each of them.
    """
    family = _family(statement_id)
    instances = _check_count("instances", instances)
    rng = random.Random(seed)
    satisfying = 0
    violations = []
    for _ in range(instances):
        instance = family.generate(rng)
        evaluation = family.evaluate(instance)
        if all(evaluation.hypotheses.values()):
            satisfying += 1
            if evaluation.conclusion is not True:
                violations.append({"instance": instance, "detail": evaluation.detail})
    return ConformanceReport(statement_id, instances, satisfying, tuple(violations), seed)


def search_dropped_hypothesis(
    statement_id: str, hypothesis_id: str, *, attempts: int = 2000, seed: int = 0
) -> DroppedHypothesis:
    """Search for an instance where every hypothesis but ``hypothesis_id`` holds and the conclusion fails.

    The first such instance is returned as the counterexample (``NEEDED``).  If
    no drawn instance violates only this hypothesis the finding is ``IMPLIED``
    (within the search); otherwise ``NOT_FOUND``.  A structural hypothesis the
    instance family never varies is ``NOT_SEARCHABLE``.
    """
    family = _family(statement_id)
    statement(statement_id).hypothesis(hypothesis_id)
    attempts = _check_count("attempts", attempts)
    rng = random.Random(seed)
    candidates = 0
    seen_false = False
    for attempt in range(1, attempts + 1):
        instance = family.generate(rng)
        evaluation = family.evaluate(instance)
        if hypothesis_id not in evaluation.hypotheses:
            return DroppedHypothesis(
                statement_id, hypothesis_id, Finding.NOT_SEARCHABLE, attempt, 0, None, "the instances do not vary it"
            )
        hypotheses = evaluation.hypotheses
        holds = hypotheses[hypothesis_id]
        seen_false = seen_false or not holds
        if holds or not all(hypotheses[k] for k in hypotheses if k != hypothesis_id):  # read only while needed
            continue
        candidates += 1
        if evaluation.conclusion is not True:
            what = "undefined" if evaluation.conclusion is None else "false"
            return DroppedHypothesis(
                statement_id,
                hypothesis_id,
                Finding.NEEDED,
                attempt,
                candidates,
                instance,
                f"conclusion {what} ({evaluation.detail})" if evaluation.detail else f"conclusion {what}",
            )
    if not seen_false:
        return DroppedHypothesis(
            statement_id, hypothesis_id, Finding.NOT_SEARCHABLE, attempts, 0, None, "every instance drawn satisfies it"
        )
    if candidates == 0:
        return DroppedHypothesis(
            statement_id,
            hypothesis_id,
            Finding.IMPLIED,
            attempts,
            0,
            None,
            "no instance satisfied the other hypotheses while violating this one",
        )
    return DroppedHypothesis(
        statement_id,
        hypothesis_id,
        Finding.NOT_FOUND,
        attempts,
        candidates,
        None,
        f"the conclusion held on all {candidates} instances that violate only this hypothesis",
    )


@dataclass(frozen=True)
class StatementReport:
    """Everything ``expmech spec`` says about one statement."""

    statement: Statement
    steps_verified: int
    steps_failed: tuple[str, ...]
    conformance: ConformanceReport | None
    dropped: tuple[DroppedHypothesis, ...]

    @property
    def holds(self) -> bool:
        """Every step verified and no violation under the stated hypotheses."""
        return not self.steps_failed and (self.conformance is None or self.conformance.holds)


def report_statement(statement_id: str, *, instances: int = 100, attempts: int = 1000, seed: int = 0) -> StatementReport:
    """Check the steps, the instances and every dropped hypothesis of one statement."""
    item = statement(statement_id)
    checks = check_steps(item)
    failed = tuple(f"step {i + 1}: {c.reason}" for i, c in enumerate(checks) if c.status is not StepStatus.VERIFIED)
    conformance = None
    dropped: list[DroppedHypothesis] = []
    if item.instantiable and statement_id in FAMILIES:
        conformance = check_statement(statement_id, instances=instances, seed=seed)
        dropped = [
            search_dropped_hypothesis(statement_id, h.id, attempts=attempts, seed=seed + index + 1)
            for index, h in enumerate(item.hypotheses)
        ]
    return StatementReport(item, len(checks) - len(failed), failed, conformance, tuple(dropped))
