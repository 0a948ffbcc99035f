"""The verifier's normaliser rule never assumes a total is an integer: it is established from the schema or refused.

Issue 32's hole: ``q = −|r − total(x)| + [total(x) = 1/2]`` over ``x ∈ {0, 1/2, 1}`` was accepted as
"Z(D) is the same for every D" because every total was encoded as an integer.  Generated cases of the
class (shifts and conditions over totals, counts and sizes of integer and fractional fields, on ℤ and
on ℝ) are held to a brute force over every dataset of at most two records and a window of outputs.
"""

import itertools
import json
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from checker_tools import accepted, node, num, root_text, statement, sym

FIELDS = {  # name -> (JSON domain, values)
    "half-grid": ({"kind": "Grid", "points": ["0", "1/2", "1"]}, [Fraction(0), Fraction(1, 2), Fraction(1)]),
    "int-grid": ({"kind": "Grid", "points": ["0", "1", "3"]}, [Fraction(0), Fraction(1), Fraction(3)]),
    "ints": ({"kind": "IntRange", "lo": 0, "hi": 2}, [Fraction(0), Fraction(1), Fraction(2)]),
    "booleans": ({"kind": "Booleans"}, [Fraction(0), Fraction(1)]),
}


def aggregates(scale: Fraction) -> dict[str, tuple[dict, object]]:
    """name -> (JSON tree, brute-force value on a dataset)."""
    return {
        "total": (node("Total", node("Mul", num(scale), sym("x"))), lambda d: sum((scale * x for x in d), Fraction(0))),
        "count": (node("Count", node("Ge", sym("x"), num(1))), lambda d: Fraction(sum(1 for x in d if x >= 1))),
        "size": (node("Size"), lambda d: Fraction(len(d))),
    }


@st.composite
def cases(draw):
    field = draw(st.sampled_from(sorted(FIELDS)))
    scale = draw(st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(2)]))
    parts = aggregates(scale)
    shift_name, cond_name = draw(st.sampled_from(sorted(parts))), draw(st.sampled_from(sorted(parts) + [None]))
    target = draw(st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(0), Fraction(3, 2)]))
    line = draw(st.sampled_from(["integers", "reals"]))
    return field, scale, shift_name, cond_name, target, line


def _truth(field, scale, shift_name, cond_name, target, line) -> bool:
    """Brute force: q(D, r) = h(r − f(D)) on every dataset of <= 2 records and r in a window, f integer on ℤ."""
    parts = aggregates(scale)
    f = parts[shift_name][1]
    values = FIELDS[field][1]
    window = [Fraction(k, 1 if line == "integers" else 2) for k in range(-8, 9)]
    for size in range(3):
        for data in itertools.combinations_with_replacement(values, size):
            shift = f(data)
            if line == "integers" and shift.denominator != 1:
                return False
            if cond_name is not None and parts[cond_name][1](data) == target:
                return False  # q − h(r − f(D)) = 1 at every r of the window
    return bool(window)


def _accepted(case) -> bool:
    """Whether the verifier accepts the translate derivation of ``case`` (its side conditions proved by the certifier's search)."""
    field, scale, shift_name, cond_name, target, line = case
    parts = aggregates(scale)
    shift = parts[shift_name][0]
    q = node("Mul", num(-1), node("Abs", node("Add", sym("r"), node("Mul", num(-1), shift))))
    if cond_name is not None:
        q = node("Add", q, node("Piecewise", [num(1), node("Eq", parts[cond_name][0], num(target))], [num(0), {"bool": True}]))
    output = {"kind": "IntRange", "lo": None, "hi": None} if line == "integers" else {"kind": "RationalRange", "lo": None, "hi": None}
    measure = {"kind": "PiecewiseGeometric", "breakpoints": [], "weights": ["1"], "ratios": ["1"]} if line == "integers" else {"kind": "PiecewiseDensity", "breakpoints": [], "densities": ["1"]}
    data = statement(q, [["x", FIELDS[field][0]]], [["r", output]], {"kind": output["kind"], "lo": None, "hi": None, "base_measure": measure})
    derivation = {"format": 1, "claim": "normaliser", "relation": "replace-one", "start": 1, "bound": num(0), "root": {
        "id": "normaliser", "term": [], "text": root_text(data), "case": {"from": 1}, "bound": num(0), "rule": "normaliser-translate",
        "data": {"line": line, "shift": json.dumps(shift), "profile": json.dumps(node("Mul", num(-1), node("Abs", sym("r"))))}, "premises": []}}
    return accepted(data, derivation)


@settings(max_examples=80, deadline=None)
@given(cases())
def test_a_translate_is_accepted_only_where_the_brute_force_agrees(case):
    """Accepted only when q = h(r − f(D)) on every small dataset and f is an integer on ℤ (never the other way round)."""
    if _accepted(case):
        assert _truth(*case), f"accepted a false translate: {case}"


def test_the_issues_case_is_rejected_and_an_honest_one_accepted():
    """The issue's case is false and rejected; −|r − count(x >= 1)| on ℤ (a true translate) is accepted."""
    wrong = ("half-grid", Fraction(1), "total", "total", Fraction(1, 2), "integers")
    assert not _truth(*wrong) and not _accepted(wrong)
    honest = ("ints", Fraction(1), "count", None, Fraction(0), "integers")
    assert _truth(*honest) and _accepted(honest)
