"""Hypotheses and conclusions read only when needed give the searches and checks of reading them all at once.

A family may hand back its hypotheses and its conclusion as callables (``Hypotheses``, ``Evaluation``);
the checks then read only what their answer depends on.  Forcing every value at construction (the old,
eager evaluation) must give the same reports, draw for draw, for every family.
"""

from __future__ import annotations

import pytest

from expmech.proofs.conformance import _family_base
from expmech.proofs.conformance._conformance import FAMILIES, check_statement, search_dropped_hypothesis
from expmech.spec import statement


def _eager(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every hypothesis and conclusion computed when the evaluation is made."""
    hypotheses_init = _family_base.Hypotheses.__init__
    evaluation_init = _family_base.Evaluation.__init__

    def hypotheses(self, values):  # type: ignore[no-untyped-def]
        hypotheses_init(self, {key: bool(value()) if callable(value) else value for key, value in values.items()})

    def evaluation(self, hypotheses, conclusion, detail=""):  # type: ignore[no-untyped-def]
        if callable(conclusion):
            conclusion, detail = conclusion()
        evaluation_init(self, hypotheses, conclusion, detail)

    monkeypatch.setattr(_family_base.Hypotheses, "__init__", hypotheses)
    monkeypatch.setattr(_family_base.Evaluation, "__init__", evaluation)


@pytest.mark.parametrize("statement_id", sorted(FAMILIES))
def test_reading_on_demand_reports_what_reading_everything_reports(statement_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """check_statement and every dropped-hypothesis search give equal results, lazily and eagerly."""
    hypotheses = [h.id for h in statement(statement_id).hypotheses]
    lazy = (check_statement(statement_id, instances=12, seed=5), [search_dropped_hypothesis(statement_id, h, attempts=60, seed=9) for h in hypotheses])
    with monkeypatch.context() as patch:
        _eager(patch)
        eager = (check_statement(statement_id, instances=12, seed=5), [search_dropped_hypothesis(statement_id, h, attempts=60, seed=9) for h in hypotheses])
    assert lazy == eager
