"""The text of a prover's derivation node is ``str(expr)``'s first 200 characters, however the printing is shared.

:func:`~expmech.proofs.prover._text.term_text` prints each subexpression object
once across calls.  The prover writes these texts for readers of its
derivations (a certificate's nodes carry the verifier's own rendering instead,
written by the certifier), so a text that differed from ``str`` would name a
subterm no one can read back.  Each subterm of every
catalogue quality, and generated expressions (Floats at every depth, whose
trailing zeros depend on the depth, Piecewise, Max/Min, rationals, the spec's
aggregates), are printed in a shuffled order against ``str``.
"""

from __future__ import annotations

import random

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.impl.applications._synthetic import SyntheticDataMechanism, halfspaces
from expmech.proofs.prover._text import term_text
from expmech.spec import Grid, IntRange, OutputSpace, RecordSchema, count, mean, size, total

LIMIT = 200


def _expected(expr: sympy.Basic, args: tuple[int, ...] | None = None) -> str:
    text = str(expr) if args is None else " + ".join(str(expr.args[i]) for i in args)
    return text if len(text) <= LIMIT else text[: LIMIT - 1] + "…"


def _subterms(expr: sympy.Basic) -> list[sympy.Basic]:
    return list(sympy.preorder_traversal(expr))


def _quality_expressions() -> list[sympy.Basic]:
    entries = [*CATALOGUE, *WRONG_CATALOGUE, *RANGE_CATALOGUE, *POSTERIOR_CATALOGUE]
    found = [getattr(entry, "quality", None) or getattr(entry, "likelihood", None) for entry in entries]
    return [q.expr for q in found if q is not None and hasattr(q, "expr")]


def test_every_subterm_of_the_catalogue_prints_as_str():
    """Each subterm of every catalogue quality (and half of each sum's arguments), in a shuffled order, prints as str."""
    exprs = _quality_expressions()
    assert len(exprs) >= 10
    terms = [t for e in exprs for t in _subterms(e)]
    random.Random(1).shuffle(terms)
    for term in terms:
        assert term_text(term) == _expected(term)
        if isinstance(term, sympy.Add):
            picked = tuple(sorted(random.Random(str(term)).sample(range(len(term.args)), max(1, len(term.args) // 2))))
            assert term_text(term, picked) == _expected(term, picked)


def test_a_large_synthetic_quality_prints_as_str_from_the_inside_out_and_back():
    """The synthetic-data quality's hundreds of subterms print as str, inner ones first and then outer ones first."""
    data = [(i % 2, (i // 2) % 2, (i // 4) % 2) for i in range(12)]
    quality = SyntheticDataMechanism(data, k=3, m=3, epsilon=1, queries=halfspaces(3)).quality_function()
    terms = _subterms(quality.expr)
    assert len(terms) > 100
    for order in (list(reversed(terms)), terms):
        for term in order:
            assert term_text(term) == _expected(term)


_x = sympy.Symbol("x")
_leaves = st.one_of(
    st.integers(-50, 50).map(sympy.Integer),
    st.fractions(max_denominator=30).map(lambda f: sympy.Rational(f.numerator, f.denominator)),
    st.sampled_from([0.5, 1.25, 2.0, 3.0, 1e-7, 12345.678]).map(sympy.Float),
    st.sampled_from([15, 30]).flatmap(lambda dps: st.sampled_from([0.5, 2.0]).map(lambda v: sympy.Float(v, dps))),
    st.just(_x),
    st.just(sympy.Symbol("r")),
)


def _combine(children: st.SearchStrategy[sympy.Basic]) -> st.SearchStrategy[sympy.Basic]:
    pair = st.tuples(children, children)
    return st.one_of(
        pair.map(lambda p: p[0] + p[1]),
        pair.map(lambda p: p[0] * p[1]),
        pair.map(lambda p: p[0] - p[1]),
        pair.map(lambda p: sympy.Max(p[0], p[1])),
        pair.map(lambda p: sympy.Min(p[0], p[1])),
        children.map(sympy.Abs),
        pair.map(lambda p: sympy.Piecewise((p[0], _x <= p[1]), (p[1], True)) if p[1].is_real is not False else p[0]),
        children.map(lambda c: c / 3),
    )


@settings(max_examples=200, deadline=None)
@given(st.recursive(_leaves, _combine, max_leaves=25), st.randoms(use_true_random=False))
def test_generated_expressions_print_as_str_in_any_order(expr, rng):
    """A Float inside prints without its trailing zeros and at the top with them: the same object may be printed at
    either depth, in either order."""
    terms = _subterms(expr)
    rng.shuffle(terms)
    for term in terms:
        assert term_text(term) == _expected(term)
    assert term_text(expr) == _expected(expr)


def test_a_float_prints_by_its_depth_whichever_comes_first():
    """A Float prints with its trailing zeros at the top and without them inside, whichever is printed first."""
    half = sympy.Float("0.500000000000000")
    outer = sympy.Max(half, _x)
    for first, second in ((half, outer), (outer, half)):
        assert term_text(first) == _expected(first) and term_text(second) == _expected(second)
    assert "0.5" in term_text(outer) and term_text(half) == str(half)


def test_spec_aggregates_print_as_str():
    """The spec's aggregates (count, total, mean, size) print as str, innermost first."""
    schema, outputs = RecordSchema(x=IntRange(0, 9), g=Grid((0, 1, 4))), OutputSpace(r=IntRange(0, 9))
    expr = sympy.Max(mean(schema["x"]) - outputs["r"], total(schema["g"]) / size(), count(schema["x"] <= outputs["r"]) - size() / 2)
    for term in reversed(_subterms(expr)):
        assert term_text(term) == _expected(term)
