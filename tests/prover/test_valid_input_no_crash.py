"""Valid input never crashes (issue 20, item 4): numbers of any size, the empty dataset, single records, the ends.

Each class is generated: rationals whose numerators and denominators are drawn
from 2**0 to 2**200 (past int64 from 2**63), ranges that are intervals of the
reals or sets of integers, datasets of 0 to 3 records with the domain's ends
among them (the exact arrays are cross-checked against ``fractions`` in
``tests/impl/test_rationals.py``).  The mechanisms must answer or raise the documented error (``DivergentNormaliser``
for a normaliser that diverges), never ``ValueError``/``OverflowError`` from an
int64 fast path; and the command line never exits 4 on such a configuration.
"""

from __future__ import annotations

import math
import textwrap
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.impl import ExponentialMechanism
from expmech.proofs.cli import main
from expmech.spec import DivergentNormaliser, IntRange, OutputSpace, QualityFunction, RationalRange, RecordSchema, count, size, total
from strategies import big_rationals, positive_big_rationals


# -- mechanisms over ranges: empty, single and end-of-domain data, any-size numbers ------------------


@st.composite
def range_cases(draw):
    """(quality, range, datasets, diverges): a range mechanism's quality, its range, datasets, and whether Z diverges."""
    integer = draw(st.booleans())
    bounded = draw(st.booleans())
    lo = draw(big_rationals())
    width = draw(positive_big_rationals())
    if integer:
        lo, width = Fraction(math.floor(lo)), Fraction(max(1, math.ceil(width)))
    hi = lo + width
    domain = (IntRange(int(lo), int(hi)) if bounded else IntRange(None, None)) if integer else (RationalRange(lo, hi) if bounded else RationalRange(None, None))
    v_lo = draw(big_rationals())
    v_hi = v_lo + draw(positive_big_rationals())
    schema, outputs = RecordSchema(v=RationalRange(v_lo, v_hi)), OutputSpace(r=domain)
    v, r = schema["v"], outputs["r"]
    slope = draw(positive_big_rationals())
    shape = draw(st.sampled_from(["laplace", "rank", "median", "linear"]))
    if shape == "laplace":
        expr = -sympy.Abs(sympy.Rational(slope.numerator, slope.denominator) * r - total(v))
    elif shape == "rank":
        expr = count(v <= r)
    elif shape == "median":
        expr = -sympy.Abs(count(v <= r) - size() / 2)
    else:
        expr = sympy.Rational(slope.numerator, slope.denominator) * r + total(v)
    quality = QualityFunction(expr, schema=schema, outputs=outputs)
    record = st.one_of(st.sampled_from([v_lo, v_hi]), big_rationals().map(lambda x: min(max(x, v_lo), v_hi)))
    first = draw(st.lists(record, max_size=3))
    second = first + [draw(record)]
    diverges = not bounded and shape != "laplace"
    return quality, domain, first, second, diverges


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(range_cases(), positive_big_rationals(max_bits=64))
def test_range_mechanisms_answer_or_say_the_normaliser_diverges(case, epsilon):
    """Over an interval or the integers: a mass, a probability and the privacy loss, or DivergentNormaliser — no crash."""
    quality, domain, first, second, diverges = case
    epsilon = min(epsilon, Fraction(8))  # e^{ε·q} with ε·q of 2**200 digits is a budget matter, not a crash
    if diverges:
        with pytest.raises(DivergentNormaliser):
            ExponentialMechanism(quality, epsilon=epsilon, outputs=domain).distribution(first)
        return
    mech = ExponentialMechanism(quality, epsilon=epsilon, outputs=domain)
    law = mech.distribution(first)
    lo, hi = domain.bounds()
    if lo is not None:
        point = int(lo) if isinstance(domain, IntRange) else lo
        value = law.probability(point) if isinstance(domain, IntRange) else law.density(point)
        assert value.sign() >= 0
    loss = mech.privacy_loss(first, second)
    assert loss.infinite or loss >= 0


# -- the command line: exit 0, 1 or 3 on valid configurations, never 4 ------------------------------


MODULE = textwrap.dedent(
    '''
    from fractions import Fraction
    import sympy
    from expmech.spec import IntRange, OutputSpace, QualityFunction, RationalRange, RecordSchema, count, size, total

    BIG = Fraction(2**200 + 1, 2**130)
    TINY = Fraction(1, 10**30)
    schema = RecordSchema(v=RationalRange(TINY, BIG))
    line = OutputSpace(r=RationalRange(None, None))
    interval = OutputSpace(r=RationalRange(-BIG, BIG))
    integers = OutputSpace(k=IntRange(None, None))
    v, r, k = schema["v"], line["r"], integers["k"]
    MECHANISMS = [
        {"name": "laplace-slope", "quality": QualityFunction(-sympy.Abs(r / 10**19 - total(v)), schema=schema, outputs=line),
         "epsilon": Fraction(1, 2**70), "neighbours": "replace-one"},
        {"name": "median-wide", "quality": QualityFunction(-sympy.Abs(count(v <= interval["r"]) - size() / 2), schema=schema, outputs=interval),
         "epsilon": Fraction(3, 2**64), "neighbours": "add-remove"},
        {"name": "count-integers", "quality": QualityFunction(-sympy.Abs(k - count(v >= BIG / 2)), schema=schema, outputs=integers),
         "epsilon": Fraction(2**65 + 1, 2**66), "neighbours": "add-remove"},
    ]
    DIVERGENT = {"name": "divergent", "quality": QualityFunction(r / 10**19 + total(v), schema=schema, outputs=line),
                 "epsilon": 1, "neighbours": "replace-one"}
    '''
)


@pytest.mark.slow
def test_the_command_line_never_exits_4_on_numbers_of_any_size(tmp_path, monkeypatch, capsys):
    """verify, certify and check on ranges with bounds, records, slopes and ε past int64: exit 0, 1 or 3 (a divergent
    normaliser is a configuration error, exit 2, naming it)."""
    (tmp_path / "bigmech.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    code = main(["verify", "bigmech:MECHANISMS"])
    out = capsys.readouterr().out
    assert code in (0, 1, 3), out
    code = main(["certify", "bigmech:MECHANISMS", "-o", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code in (0, 1, 3), out
    written = sorted(str(p) for p in (tmp_path / "out").glob("*.cert.json"))
    assert written, out
    code = main(["check", *written])
    out = capsys.readouterr().out
    assert code in (0, 3), out
    for command in (["verify", "bigmech:DIVERGENT"], ["certify", "bigmech:DIVERGENT", "-o", str(tmp_path / "div")]):
        code = main(command)
        captured = capsys.readouterr()
        out = captured.out + captured.err
        assert code == 2 and "DivergentNormaliser" in out, out


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 200).flatmap(lambda k: st.builds(Fraction, st.integers(1, 8), st.integers(2**(k - 1), 2**k))))
def test_posterior_with_a_tempering_factor_of_any_denominator(epsilon):
    """A fractional ε₀ whose denominator passes a C long (radicals of that index): the law and its loss, no OverflowError."""
    from expmech.impl import PosteriorSampling
    from expmech.spec import Booleans, Grid, LogLikelihood

    schema, space = RecordSchema(x=Booleans()), OutputSpace(theta=Grid((Fraction(1, 10), Fraction(1, 2), Fraction(9, 10))))
    x, theta = schema["x"], space["theta"]
    ell = LogLikelihood(sympy.Piecewise((theta, sympy.Eq(x, 1)), (1 - theta, True)), schema=schema, outputs=space)
    posterior = PosteriorSampling(ell, epsilon=epsilon)
    loss = posterior.privacy_loss([True, False], [True, True])
    assert loss.value >= 0
