"""A side condition in n alone is decided at every size of its case, a case that starts past the root bound included.

The verifier decides such a condition by checking every size up to a bound M past which no polynomial whose sign
matters changes sign; a case that starts past M + 1 must still have its first size checked.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from expmech.proofs.checker._formula import Obligation, Var
from expmech.proofs.checker._univariate import decide_univariate

N = ("v", "n")


@pytest.mark.parametrize("start", [2, 3, 5, 100])
@pytest.mark.parametrize(("formula", "fails_from"), [(("<", ("*", ("k", Fraction(-1)), N), ("k", Fraction(0))), 1),
                                                     (("<", ("inv", N), ("k", Fraction(1))), 2)])
def test_a_case_starting_past_the_root_bound_is_still_checked(formula, fails_from, start):
    """``−n < 0`` and ``1/n < 1`` (root bounds 1 and 2) over sizes from ``start`` on: violated at the first size, never
    accepted unchecked (before the fix, a case starting past M + 1 checked no size at all)."""
    for hi in (None, start, start + 7):
        obligation = Obligation("1", "x", formula, (Var("n", True, Fraction(start), None if hi is None else Fraction(hi)),))
        assert decide_univariate(obligation) == f"fails at n = {max(start, fails_from)}"
    assert decide_univariate(Obligation("1", "x", formula, (Var("n", True, Fraction(start), Fraction(start - 1)),))) is None  # no size
