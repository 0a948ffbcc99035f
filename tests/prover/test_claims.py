"""A claimed Δq that is not a claim — any function, symbol, boolean, ill-formed Piecewise, huge power or text — is a
clear InvalidArgument naming ``claimed`` and its value (exit 2 at the command line), never a raw exception."""

import itertools
import textwrap

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs import prove_sensitivity
from expmech.proofs.cli import main
from expmech.proofs.prover._claims import MAX_CLAIM_DEGREE, parse_claim
from expmech.spec import DATASET_SIZE, IntRange, InvalidArgument, OutputSpace, QualityFunction, RecordSchema, count

n = DATASET_SIZE
f, m = sympy.Function("f"), sympy.Symbol("m", positive=True)


def _unevaluated(kind, *args):
    """``kind(*args)`` as written, not simplified (how an ill-formed claim gets past sympy's own checks); where
    sympy refuses even that, the first argument."""
    for evaluate in (False, True):
        try:
            return kind(*args, evaluate=evaluate)
        except Exception:  # noqa: BLE001 - sympy refusing a combination while building the example
            continue
    first = args[0]
    return first[0] if isinstance(first, tuple) else first


def _claims():
    """Claim expressions: the language's own pieces and every foreign one, anywhere in the tree."""
    good_leaves = st.one_of(st.integers(-3, 5).map(sympy.Integer), st.sampled_from([n, sympy.Rational(1, 2), sympy.Rational(7, 3)]))
    bad_leaves = st.sampled_from([m, sympy.Float(0.5), sympy.pi, sympy.oo, sympy.zoo, sympy.nan, sympy.I, f(n), sympy.log(n), sympy.sin(n), sympy.true, sympy.Dummy("n")])
    conditions = st.sampled_from([n > 2, sympy.Eq(n, 1), sympy.And(n >= 1, n < 4), sympy.true, sympy.Integer(2), n, sympy.Integer(0)])

    def extend(children):
        return st.one_of(
            st.builds(lambda a, b: _unevaluated(sympy.Add, a, b), children, children),
            st.builds(lambda a, b: _unevaluated(sympy.Mul, a, b), children, children),
            st.builds(lambda a, e: _unevaluated(sympy.Pow, a, e), children, st.sampled_from([-1, 2, 3, sympy.Rational(1, 2), MAX_CLAIM_DEGREE + 1, 10**7, n])),
            st.builds(lambda a, b: _unevaluated(sympy.Max, a, b), children, children),
            st.builds(lambda a, b: _unevaluated(sympy.Min, a, b), children, children),
            st.builds(lambda a: _unevaluated(sympy.Abs, a), children),
            st.builds(lambda a, c, b: _unevaluated(sympy.Piecewise, (a, c), (b, True)), children, conditions, children),
            st.builds(lambda a, c: _unevaluated(sympy.Piecewise, (a, c)), children, conditions),
            st.builds(lambda a, b: _unevaluated(sympy.Piecewise, (_unevaluated(sympy.Gt, a, b), n > 1), (1, True)), children, children),
        )

    return st.recursive(good_leaves | bad_leaves, extend, max_leaves=6)


def _texts():
    return st.one_of(st.text(alphabet="0123456789n+-*/() .eE^x", max_size=30), st.text(max_size=12))


def _parsed(claimed):
    """parse_claim's result, or its InvalidArgument (checked to name the parameter and the value)."""
    try:
        return parse_claim(claimed)
    except InvalidArgument as error:
        assert error.parameter == "claimed" and str(error).startswith("claimed="), str(error)
        assert error.value is claimed or error.value == claimed
        return error


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # sympy's, on the non-Expr arguments generated on purpose
@settings(max_examples=400, deadline=None)
@given(st.one_of(_claims(), _texts()))
def test_a_malformed_claim_is_an_invalid_argument_naming_it(claimed):
    """Generated expressions and texts: a claim in n, >= 0 and exact at the sizes checked, or InvalidArgument."""
    result = _parsed(claimed)
    if not isinstance(result, InvalidArgument):
        assert isinstance(result, sympy.Expr) and result.free_symbols <= {n}
        values = [result.subs(n, size).doit() for size in (1, 2, 3, 10, 1000)]
        assert all(value.is_Rational and value >= 0 for value in values), values


@pytest.mark.parametrize("claimed", [
    sympy.Piecewise((1, n), evaluate=False),
    sympy.Piecewise((sympy.true, n > 1), (1, True), evaluate=False),
    sympy.Piecewise((n > 1, n > 1), (1, True), evaluate=False),
    f(n), sympy.log(n), sympy.sqrt(n), m + 1, sympy.Pow(2, 10**7, evaluate=False),
    sympy.Pow(sympy.Pow(n, 64, evaluate=False), 64, evaluate=False),
])
def test_the_reported_instances(claimed):
    """The issue's instances (a Piecewise whose condition is not one; a boolean value) and their neighbours."""
    assert isinstance(_parsed(claimed), InvalidArgument)


def test_claims_of_the_language_are_still_accepted():
    """Rationals, n, + − · /, integer powers, Max, Min, Abs and Piecewise with conditions on n."""
    for claimed in ["1", "2/n", "(n+1)/(n*n)", 1, sympy.Max(1, 2 / (n + 1)), sympy.Abs(1 - 2 / n) + 1, sympy.Piecewise((1, n > 2), (2, True)), n**-2 + 1]:
        assert isinstance(parse_claim(claimed), sympy.Expr)


SCHEMA, OUTPUTS = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
QUALITY = QualityFunction(count(SCHEMA["x"] >= OUTPUTS["r"]), schema=SCHEMA, outputs=OUTPUTS, name="threshold")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@settings(max_examples=40, deadline=None)
@given(_claims())
def test_prove_sensitivity_refuses_a_malformed_claim_by_name(claimed):
    """prove_sensitivity: the same InvalidArgument as parse_claim, before any proof."""
    expected = _parsed(claimed)
    if isinstance(expected, InvalidArgument):
        with pytest.raises(InvalidArgument, match="^claimed="):
            prove_sensitivity(QUALITY, neighbours="replace-one", claimed=claimed)


_COUNTER = itertools.count()


@pytest.mark.parametrize("claimed", [
    "sympy.Piecewise((1, n), evaluate=False)",
    "sympy.Piecewise((sympy.true, n > 1), (1, True), evaluate=False)",
    "sympy.Function('f')(n)",
    "sympy.Pow(2, 10**7, evaluate=False)",
])
@pytest.mark.parametrize("command", ["verify", "certify"])
def test_the_command_line_exits_2_naming_the_claim(tmp_path, monkeypatch, capsys, claimed, command):
    """expmech verify / certify with a malformed claim in a module target: exit 2, one line naming it, no traceback."""
    module = f"i11_claims_{next(_COUNTER)}_{command}"
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(f"""
        import sympy
        from expmech.spec import DATASET_SIZE as n, RecordSchema, OutputSpace, IntRange, QualityFunction, count
        schema, outputs = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
        quality = QualityFunction(count(schema["x"] >= outputs["r"]), schema=schema, outputs=outputs, name="threshold")
        entry = {{"quality": quality, "epsilon": "1/4", "neighbours": "replace-one", "claimed": {claimed}}}
    """))
    monkeypatch.chdir(tmp_path)
    argv = [command, f"{module}:entry"] + (["-o", str(tmp_path / "out")] if command == "certify" else [])
    code = main(argv)
    captured = capsys.readouterr()
    assert code == 2, captured.out + captured.err
    assert "claimed" in captured.err and "Traceback" not in captured.err + captured.out
