"""The verifier's expansion of a term into monomials equals sympy's, on generated terms.

Every linear atom the verifier checks goes through ``_split._polynomial``: a wrong coefficient there would let Farkas
multipliers close a goal that is not contradictory.  Generated sums and products (of any arity, zeros, ones, minus
ones, repeated variables, substituted values and inverted constants) are expanded and compared, monomial by monomial,
with ``sympy.expand``; a term that is not a polynomial must give None.
"""

import math
from fractions import Fraction

import sympy
from hypothesis import given
from hypothesis import strategies as st

from expmech.proofs.checker._split import MAX_MONOMIALS, _polynomial, linear

NAMES = ("x", "y", "z")
SUBST = {"z": Fraction(-3, 7)}
CONSTANTS = st.sampled_from([Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2)]) | st.fractions(max_denominator=10**20)
LEAVES = st.builds(lambda q: ("k", q), CONSTANTS) | st.builds(lambda n: ("v", n), st.sampled_from(NAMES))


def _extend(children: st.SearchStrategy) -> st.SearchStrategy:
    nodes = st.builds(lambda tag, parts: (tag, *parts), st.sampled_from(["+", "*"]), st.lists(children, max_size=4))
    return nodes | st.builds(lambda t: ("inv", t), children) | st.builds(lambda t: ("ite", ("<", t, t), t, t), children)


TERMS = st.recursive(LEAVES, _extend, max_leaves=12)


def _sympy(term):
    """The term as a sympy expression (None where the verifier must refuse: an ite, or 1/0)."""
    tag = term[0]
    if tag == "k":
        return sympy.Rational(term[1].numerator, term[1].denominator)
    if tag == "v":
        value = SUBST.get(term[1])
        return sympy.Symbol(term[1]) if value is None else sympy.Rational(value.numerator, value.denominator)
    if tag == "ite":
        return None
    parts = [_sympy(p) for p in term[1:]]
    if any(p is None for p in parts):
        return None
    if tag == "inv":
        inner = sympy.expand(parts[0])
        return None if not inner.is_Rational or inner == 0 else 1 / inner
    return sympy.Add(*parts) if tag == "+" else sympy.Mul(*parts)


def _monomials(expression) -> dict[tuple[str, ...], Fraction]:
    poly = sympy.Poly(sympy.expand(expression), *[sympy.Symbol(n) for n in NAMES])
    result = {}
    for powers, c in poly.terms():
        key = tuple(sorted(name for name, k in zip(NAMES, powers) for _ in range(k)))
        result[key] = Fraction(int(c.p), int(c.q))
    return {key: c for key, c in result.items() if c}


@given(TERMS)
def test_the_expansion_of_a_generated_term_equals_sympys(term):
    expected, found = _sympy(term), _polynomial(term, SUBST)
    if expected is None:  # an ite, or the inverse of zero or of a non-constant: refused
        assert found is None
        return
    assert found == _monomials(expected)  # (12 leaves stay far below MAX_MONOMIALS)
    assert all(c != 0 and type(c) is Fraction for c in found.values())


@given(st.integers(1, 16))
def test_too_many_monomials_are_refused(k):
    wide = ("*", *[("+", ("v", "x"), ("v", "y"), ("v", "w"), ("k", Fraction(1))) for _ in range(k)])
    assert (_polynomial(wide, {}) is None) == (math.comb(k + 3, 3) > MAX_MONOMIALS)  # the monomials of degree <= k


@given(TERMS)
def test_linear_is_the_expansion_when_every_monomial_has_degree_one_or_zero(term):
    poly = _polynomial(term, SUBST)
    result = linear(term, SUBST)
    if poly is None or any(len(key) > 1 for key in poly):
        assert result is None
    else:
        assert result is not None
        coeffs, const = result
        assert coeffs == {key[0]: c for key, c in poly.items() if key} and const == poly.get((), 0)


def test_the_empty_sum_is_zero_and_the_empty_product_one():
    assert _polynomial(("+",), {}) == {} and _polynomial(("*",), {}) == {(): 1}
    assert _polynomial(("*", ("k", Fraction(0)), ("v", "x")), {}) == {}
    assert _polynomial(("+", ("v", "x"), ("*", ("k", Fraction(-1)), ("v", "x"))), {}) == {}
