"""The [tool.expmech] table is read strictly: every usage or configuration error exits 2 with one line, never 4."""

import json
import pathlib
import sys
import textwrap
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from expmech.proofs.cli import main
from expmech.proofs.cli._config import read_config
from expmech.proofs.cli._targets import load_targets

REPO = pathlib.Path(__file__).parents[2]
MODULE = "i10cfg_mechanisms"  # unique: modules are cached in sys.modules across tests
KNOWN_TOP = ["mechanisms", "targets", "rlimit", "timeout-ms"]
KNOWN_ENTRY = ["name", "quality", "epsilon", "neighbours", "claimed"]


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A small user project: a module with a quality function, one that fails to import, one whose attribute raises."""
    root = tmp_path_factory.mktemp("project")
    (root / f"{MODULE}.py").write_text(
        textwrap.dedent(
            """
            from expmech.spec import RecordSchema, OutputSpace, IntRange, QualityFunction, count
            schema, outputs = RecordSchema(x=IntRange(0, 3)), OutputSpace(r=IntRange(0, 3))
            threshold = QualityFunction(count(schema["x"] >= outputs["r"]), schema=schema, outputs=outputs, name="threshold")
            entry = {"quality": threshold, "epsilon": "1/4", "neighbours": "replace-one", "claimed": 1}
            from expmech.impl import POSTERIOR_CATALOGUE
            categorical = POSTERIOR_CATALOGUE[1].quality  # a LogLikelihood with a uniform prior
            not_a_mechanism = 42

            def __getattr__(name):
                if name == "explode":
                    raise RuntimeError("a property of the user's module raised")
                raise AttributeError(name)
            """
        )
    )
    (root / "i10cfg_broken.py").write_text("raise RuntimeError('this module fails at import')\n")
    return root


def run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(root, text):
    (root / "pyproject.toml").write_text(textwrap.dedent(text), encoding="utf-8")
    return root / "pyproject.toml"


def assert_usage_error(code, err, *fragments):
    """Exit 2, with exactly one line on stderr that contains every fragment."""
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.fixture
def isolated(monkeypatch):
    """Keep sys.path changes (the project root goes on it) inside the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))


def test_expmechs_own_pyproject_names_its_catalogue():
    """The README's `pip install -e . && expmech verify` verifies the catalogue because the table names it."""
    config = read_config(REPO / "pyproject.toml")
    assert [entry.value for entry in config.targets] == ["expmech.impl:CATALOGUE", "expmech.impl:POSTERIOR_CATALOGUE", "expmech.impl:RANGE_CATALOGUE"] and not config.mechanisms


def test_no_pyproject_exits_2(tmp_path, monkeypatch, capsys):
    """With no target and no pyproject.toml anywhere up the tree, nothing is verified: exit 2 with a hint."""
    monkeypatch.chdir(tmp_path)
    if any((folder / "pyproject.toml").is_file() for folder in tmp_path.parents):
        pytest.skip("a pyproject.toml above the temporary directory")
    code, out, err = run(["verify"], capsys)
    assert_usage_error(code, err, "no pyproject.toml", "expmech verify module:attr")
    assert out == ""


def _edits(word):
    """Every single-character deletion, substitution and transposition of ``word``."""
    letters = "abcdefghijklmnopqrstuvwxyz-_"
    out = {word[:i] + word[i + 1 :] for i in range(len(word))}
    out |= {word[:i] + c + word[i + 1 :] for i in range(len(word)) for c in letters}
    out |= {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)}
    return sorted(out - {word})


@given(st.sampled_from(_edits("expmech")))
def test_a_missing_or_misspelt_table_exits_2_and_says_so(tmp_path_factory, misspelt):
    """[tool.expmch] (any one-letter slip) is not a silent pass: exit 2, naming the table found."""
    root = tmp_path_factory.mktemp("misspelt")
    path = write(root, f'[tool.{json.dumps(misspelt)}]\ntargets = ["expmech.impl:CATALOGUE"]\n')
    code = main(["verify", str(path)])
    assert code == 2
    with pytest.raises(Exception) as error:
        read_config(path)
    assert f"did you mean [tool.expmech]" in str(error.value) and misspelt in str(error.value)


@given(st.sampled_from(KNOWN_ENTRY).flatmap(lambda key: st.tuples(st.just(key), st.sampled_from(_edits(key)))))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_an_unknown_key_is_an_error_with_did_you_mean(project, isolated, capsys, pair):
    """A misspelt key of a mechanism (claimd) is an error naming it, its line and the closest known key."""
    key, misspelt = pair
    if misspelt in KNOWN_ENTRY:
        return
    fields = {"quality": f"{MODULE}:threshold", "epsilon": "1/4", "neighbours": "replace-one"}
    fields[misspelt] = fields.pop(key) if key in fields else "1"
    entry = ", ".join(f"{json.dumps(k)} = {json.dumps(v)}" for k, v in fields.items())
    path = write(project, f"[project]\nname = 'x'\n\n[tool.expmech]\nmechanisms = [\n  {{ {entry} }},\n]\n")
    code, _, err = run(["verify", str(path)], capsys)
    assert_usage_error(code, err, f"pyproject.toml:6: mechanisms[0].{misspelt}=", "is not a known key")
    with pytest.raises(Exception) as error:
        load_targets([str(path)])
    assert "did you mean" in str(error.value) or "known keys" in str(error.value)


def test_unknown_top_level_key_and_missing_keys(project, isolated, capsys):
    """Unknown table keys get a did-you-mean; missing required keys are named."""
    path = write(project, '[tool.expmech]\nmechanism = []\n')
    code, _, err = run(["verify", str(path)], capsys)
    assert_usage_error(code, err, "pyproject.toml:2: mechanism=[]", "did you mean 'mechanisms'?")
    path = write(project, f'[tool.expmech]\nmechanisms = [{{ quality = "{MODULE}:threshold", epsilon = 1 }}]\n')
    code, _, err = run(["verify", str(path)], capsys)
    assert_usage_error(code, err, "mechanisms[0] needs the key 'neighbours'")
    path = write(project, "[tool.expmech]\n")
    code, _, err = run(["verify", str(path)], capsys)
    assert_usage_error(code, err, "needs the key 'mechanisms' or 'targets'")


finite_decimals = st.decimals(min_value=Decimal("0.000001"), max_value=Decimal("1000"), places=6, allow_nan=False, allow_infinity=False)


@given(finite_decimals)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_toml_decimals_are_read_exactly(project, isolated, value):
    """epsilon = 0.1 is exactly 1/10 (never 3602879701896397/36028797018963968), as a number or a string."""
    literal = format(value, "f")
    if "." not in literal:
        literal += ".0"
    for written in (literal, json.dumps(literal)):
        path = write(project, f'[tool.expmech]\nmechanisms = [{{ quality = "{MODULE}:threshold", epsilon = {written}, neighbours = "replace-one" }}]\n')
        (target,) = load_targets([str(path)]).targets
        assert target.epsilon == Fraction(Decimal(literal))


def test_the_value_shown_is_the_value_used(project, isolated, capsys):
    """The text output shows ε₀ = 1/10 for epsilon = 0.1, and ε derived from exactly that."""
    path = write(project, f'[tool.expmech]\nmechanisms = [{{ quality = "{MODULE}:threshold", epsilon = 0.1, neighbours = "replace-one", claimed = 1 }}]\n')
    code, out, _ = run(["verify", str(path)], capsys)
    assert code == 0 and "ε = 1/5" in out and "ε₀ = 1/10" in out


BAD_EPSILONS = ['"0"', '"-1"', "0", "-1", "0.0", "-0.5", "nan", "inf", "-inf", "true", '"abc"', '"1/0"', "1e-400", "1e400", "[1]", '"0x10"']


@pytest.mark.parametrize("written", BAD_EPSILONS)
def test_bad_epsilon_exits_2_naming_it(project, isolated, capsys, written):
    """Each bad ε of the issue's list (and more) is exit 2 with one line naming epsilon and its value."""
    path = write(project, f'[tool.expmech]\nmechanisms = [\n  {{ quality = "{MODULE}:threshold", epsilon = {written}, neighbours = "replace-one" }},\n]\n')
    code, _, err = run(["verify", str(path)], capsys)
    assert_usage_error(code, err, "pyproject.toml:3: mechanisms[0].epsilon=")


@pytest.mark.parametrize(
    ("field", "written", "fragment"),
    [
        ("neighbours", '"replace_one"', 'did you mean "replace-one"'),
        ("neighbours", "1", "neighbours=1"),
        ("claimed", '"-1"', 'claimed="-1"'),
        ("claimed", '"("', 'claimed="("'),
        ("claimed", '"9**9**9"', "claimed="),
        ("claimed", "nan", "claimed=nan"),
        ("claimed", '"x"', 'claimed="x"'),
        ("quality", "5", "quality=5"),
        ("quality", '"nope_module_i10:x"', "cannot import 'nope_module_i10'"),
        ("quality", '"i10cfg_broken:x"', "RuntimeError"),
        ("quality", f'"{MODULE}:explode"', "RuntimeError"),
        ("quality", f'"{MODULE}:not_a_mechanism"', "not an expmech.spec.QualityFunction"),
        ("quality", '"expmech.impl:catalogue_entry"', "not an expmech.spec.QualityFunction"),
        ("name", '""', "name="),
    ],
)
def test_bad_fields_exit_2_naming_them(project, isolated, capsys, field, written, fragment):
    """A bad neighbours, claimed, quality or name is exit 2 with one line naming the key and the value."""
    fields = {"quality": f'"{MODULE}:threshold"', "epsilon": '"1/4"', "neighbours": '"replace-one"', field: written}
    entry = ", ".join(f"{k} = {v}" for k, v in fields.items())
    path = write(project, f"[tool.expmech]\nmechanisms = [{{ {entry} }}]\n")
    code, _, err = run(["verify", str(path)], capsys)
    assert_usage_error(code, err, f"pyproject.toml:2: mechanisms[0].{field}=", fragment)


@pytest.mark.parametrize("flag", ["--rlimit", "--timeout-ms"])
@pytest.mark.parametrize("value", ["0", "-1", "abc", "1.5", str(2**32), str(2**64 + 1)])
def test_bad_solver_flags_exit_2(flag, value, capsys):
    """--rlimit 0 or --timeout-ms 0 (or beyond z3's unsigned range, which would wrap) is exit 2, one line."""
    code, _, err = run(["verify", "expmech.impl:CATALOGUE", flag, value], capsys)
    assert_usage_error(code, err, f"argument {flag}: '{value}'")


@pytest.mark.parametrize("key", ["rlimit", "timeout-ms"])
@pytest.mark.parametrize("written", ["0", "-1", "nan", "-nan", "inf", "-inf", "1.5", "1e3", "-0.0", "true", '"5"', "[]", str(2**32), "1" + "0" * 5000])
def test_bad_solver_options_in_the_table_exit_2(project, isolated, capsys, key, written):
    """rlimit / timeout-ms in the table: NaN, infinities, decimals, 5000-digit integers — exit 2 in one line naming the key."""
    write(project, f'[tool.expmech]\ntargets = ["{MODULE}:entry"]\n{key} = {written}\n')
    code, _, err = run(["verify", str(project / "pyproject.toml")], capsys)
    assert_usage_error(code, err, "pyproject.toml")
    assert key in err or "cannot be read" in err


@given(st.lists(st.sampled_from(["a", "a", "A", "b", "A b", "A-b", "a-B", "x y", "x-y", "c"]), min_size=2, max_size=4))
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_duplicate_names_are_an_error(project, isolated, names):
    """Two mechanisms with one name — or names giving one certificate file, also up to case — are refused, naming both."""
    from expmech.proofs.cli._targets import slug

    entries = ",\n".join(f'  {{ name = "{n}", quality = "{MODULE}:threshold", epsilon = 1, neighbours = "replace-one" }}' for n in names)
    path = write(project, f"[tool.expmech]\nmechanisms = [\n{entries},\n]\n")
    stems = [slug(n).casefold() for n in names]
    if len(set(stems)) == len(stems):
        assert [t.name for t in load_targets([str(path)]).targets] == names
        return
    with pytest.raises(Exception) as error:
        load_targets([str(path)])
    second = next(i for i, s in enumerate(stems) if s in stems[:i])
    first = stems.index(stems[second])
    message = str(error.value)
    assert f"mechanisms[{second}] (pyproject.toml:{3 + second})" in message and f"mechanisms[{first}] (pyproject.toml:{3 + first})" in message


def test_project_root_goes_on_sys_path(tmp_path, monkeypatch, isolated, capsys):
    """The user's own module imports without PYTHONPATH, from the root and from a subfolder (as pytest does)."""
    name = "i10cfg_rootonly"
    (tmp_path / f"{name}.py").write_text(
        "from expmech.spec import RecordSchema, OutputSpace, IntRange, QualityFunction, count\n"
        "s, o = RecordSchema(x=IntRange(0, 2)), OutputSpace(r=IntRange(0, 2))\n"
        "q = QualityFunction(count(s['x'] >= o['r']), schema=s, outputs=o, name='q')\n"
    )
    write(tmp_path, f'[tool.expmech]\nmechanisms = [{{ quality = "{name}:q", epsilon = "1/2", neighbours = "replace-one" }}]\n')
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    monkeypatch.delenv("PYTHONPATH", raising=False)
    assert str(tmp_path) not in sys.path
    code, out, _ = run(["verify"], capsys)
    assert code == 0 and "PROVED   q" in out


# --- exit code 4 is unreachable from malformed tables, values and flags ----------------------------------------

STRINGS = [
    f"{MODULE}:threshold", f"{MODULE}:entry", f"{MODULE}:explode", f"{MODULE}:not_a_mechanism", "i10cfg_broken:x",
    "nope_i10:x", "expmech.impl:CATALOGUE", "expmech.impl:catalogue_entry", "expmech.impl:NOPE", "os:path", ":", "a:",
    "0", "-1", "1/0", "1/4", "0.1", "1e-400", "abc", "(", "1/n", "n", "n/(n-1)", "9**9", "replace-one", "add-remove",
    "replace_one", "", " ", "é", "\\u0000",
]
FLOATS = ["nan", "inf", "-inf", "0.1", "1e-400", "1e400", "-0.0", "2.5", "1e20"]


def _toml(value):
    if isinstance(value, tuple) and value[0] == "float":
        return value[1]
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{ " + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + " }"


scalars = st.one_of(
    st.sampled_from(STRINGS),
    st.text(max_size=6),
    st.integers(-3, 3) | st.sampled_from([10**30, -(10**30), 2**32, 2**64]),
    st.sampled_from(FLOATS).map(lambda f: ("float", f)),
    st.booleans(),
)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(KNOWN_ENTRY + ["x"]), inner, max_size=2), max_leaves=4)
entry_keys = st.sampled_from(KNOWN_ENTRY + ["claimd", "Name", "eps"])
good_entry = st.fixed_dictionaries(
    {"quality": st.just(f"{MODULE}:threshold"), "epsilon": st.sampled_from(["1/4", 1, ("float", "0.5")]), "neighbours": st.sampled_from(["replace-one", "add-remove"])},
    optional={"claimed": st.sampled_from([1, "1", "1/2", "0", "1/n"]), "name": st.sampled_from(["a", "b", "c"])},
)


@st.composite
def tables(draw):
    """A valid table, then zero to two mutations: a value replaced, a key added or dropped, at any level."""
    table = {"mechanisms": draw(st.lists(good_entry, min_size=1, max_size=2))}
    if draw(st.booleans()):
        table["targets"] = [draw(st.sampled_from([f"{MODULE}:entry", "expmech.impl:WRONG_CATALOGUE"]))]
    if draw(st.booleans()):
        table[draw(st.sampled_from(["rlimit", "timeout-ms"]))] = draw(st.sampled_from([1, 50_000, 10**6]))
    for _ in range(draw(st.integers(0, 2))):
        mechanisms = table.get("mechanisms")
        dicts = [m for m in mechanisms if isinstance(m, dict)] if isinstance(mechanisms, list) else []
        where = draw(st.sampled_from(["top", "entry"])) if dicts else "top"
        target = table if where == "top" else draw(st.sampled_from(dicts))
        action = draw(st.sampled_from(["replace", "add", "drop"]))
        keys = sorted(target)
        if action == "drop" and keys:
            del target[draw(st.sampled_from(keys))]
        elif action == "replace" and keys:
            target[draw(st.sampled_from(keys))] = draw(values)
        else:
            key = draw(st.sampled_from(KNOWN_TOP + ["mechanism", "x"]) if where == "top" else entry_keys)
            target[key] = draw(values)
    return table


flags = st.lists(
    st.tuples(st.sampled_from(["--rlimit", "--timeout-ms", "--format"]), st.sampled_from(["0", "1", "-5", "x", "50000", "json", "sarif", "junit", "yaml", str(2**40)])),
    max_size=1,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(tables(), flags, st.sampled_from(["tool.expmech"] * 8 + ["tool.expmch", "tool"]))
def test_exit_4_is_unreachable_from_malformed_configuration(project, isolated, capsys, table, options, header):
    """Any table, value or flag: exit 0–3, never 4; a usage error is exactly one line on stderr."""
    body = "\n".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in table.items())
    (project / "pyproject.toml").write_text(f"[{header}]\n{body}\n", encoding="utf-8")
    argv = ["verify", str(project / "pyproject.toml")] + [part for pair in options for part in pair]
    code = main(argv)
    captured = capsys.readouterr()
    event(f"exit {code}")
    assert code in (0, 1, 2, 3), captured.err
    assert "Traceback" not in captured.err and "internal error" not in captured.err + captured.out
    if code == 2 and not captured.out:
        assert captured.err.count("\n") == 1, captured.err



def test_sys_path_is_left_as_it_was(monkeypatch):
    """The root is on sys.path only while targets import: the checkout's bare folders never become importable."""
    monkeypatch.chdir(REPO)
    before = list(sys.path)
    assert len(load_targets([]).targets) >= 10
    assert sys.path == before


@pytest.mark.parametrize(("claimed", "code"), [('"log(2)"', 0), ('"2*log(2)"', 0), ('"1/2"', 1), ('"log("', 2), ('"exp(1)"', 2), ('"-log(2)"', 2), ('"9**9**9"', 2)])
def test_log_likelihood_claims_in_the_table(project, isolated, capsys, claimed, code):
    """A LogLikelihood quality takes Δq claims such as "log(2)"; anything else is exit 2 naming it."""
    path = write(project, f'[tool.expmech]\nmechanisms = [{{ quality = "{MODULE}:categorical", epsilon = "1/2", neighbours = "replace-one", claimed = {claimed} }}]\n')
    result, out, err = run(["verify", str(path)], capsys)
    assert result == code, out + err
    if code == 2:
        assert_usage_error(result, err, f"mechanisms[0].claimed={claimed}")


# --- exit code 4 is unreachable from the raw text of pyproject.toml and from the user's own objects --------------

TOKENS = st.sampled_from([
    "[tool.expmech]\n", "[tool]\n", "[[tool.expmech.mechanisms]]\n", "mechanisms = ", "targets = ", "rlimit = ", "epsilon = ",
    "quality = ", "[", "]", "{", "}", ", ", " = ", "\n", '"', "'", "#", "1", "0.1", "-", "inf", "nan", "true", '"1/4"',
    f'"{MODULE}:entry"', '"replace-one"', "\\", "\x00", "é", "\r\n", "a.b", '"""', "1979-05-27",
])
HUGE = st.sampled_from(["1" + "0" * 5000, "[" * 3000 + "]" * 3000, "{ a = " * 600 + "1" + " }" * 600, '"' + "9" * 5000 + '"'])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(st.lists(TOKENS | HUGE, max_size=25).map("".join), st.sampled_from(["", "[tool.expmech]\nrlimit = ", "[tool.expmech]\nmechanisms = [{ quality = \"x:y\", epsilon = "]))
def test_exit_4_is_unreachable_from_any_pyproject_text(project, isolated, capsys, text, prefix):
    """Any text as pyproject.toml (broken TOML, 5000-digit integers, arrays nested 3000 deep): exit 0–3, never 4."""
    (project / "pyproject.toml").write_text(prefix + text, encoding="utf-8")
    code = main(["verify", str(project / "pyproject.toml")])
    captured = capsys.readouterr()
    assert code in (0, 1, 2, 3), captured.err
    assert "Traceback" not in captured.err and "internal error" not in captured.err + captured.out
    if code == 2 and not captured.out:
        assert captured.err.count("\n") == 1, captured.err


OBJECT_ERRORS = ["RuntimeError", "ValueError", "TypeError", "KeyError", "ZeroDivisionError", "RecursionError", "AttributeError", "LookupError"]
ENTRY_ATTRIBUTES = ["name", "quality", "epsilon", "neighbours", "claimed_sensitivity", "base_measure", "auction"]


@st.composite
def user_objects(draw):
    """Python source for ``TARGET``: a catalogue-entry-like object, a list or a mechanism dict whose parts misbehave."""
    error = draw(st.sampled_from(OBJECT_ERRORS))
    raising = draw(st.sets(st.sampled_from(ENTRY_ATTRIBUTES + ["__iter__", "__len__", "__getitem__", "__repr__", "items"]), max_size=3))
    value = draw(st.sampled_from(["1", "10**5000", "-10**5000", "Fraction(1, 10**5000)", "sympy.Integer(10**5000)", "float('nan')", "object()"]))
    values = {"name": '"obj"', "quality": "threshold", "epsilon": '"1/4"', "neighbours": '"replace-one"', "claimed_sensitivity": "1"}
    values[draw(st.sampled_from(["epsilon", "claimed_sensitivity", "name"]))] = value
    base = draw(st.sampled_from(["object", "list", "dict"]))
    lines = [f"class Odd({base}):"]
    for attribute in ENTRY_ATTRIBUTES:
        if attribute in raising:
            lines.append(f"    @property\n    def {attribute}(self):\n        raise {error}('{attribute} raised')")
        elif attribute in values and base != "dict":
            lines.append(f"    {attribute} = {values[attribute]}")
    for method in ("__iter__", "__len__", "__getitem__", "__repr__", "items"):
        if method in raising:
            lines.append(f"    def {method}(self, *args):\n        raise {error}('{method} raised')")
    lines.append("    pass")
    fields = "{" + ", ".join(f'"{"claimed" if k == "claimed_sensitivity" else k}": {v}' for k, v in values.items()) + "}"
    shape = {"object": "Odd()", "list": "Odd([Odd()])", "dict": f"Odd({fields})"}[base]
    lines.append(f"TARGET = {draw(st.sampled_from([shape, f'[{shape}]']))}")
    return "\n".join(lines) + "\n"


_OBJECT_MODULES = iter(range(10**6))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(user_objects())
def test_exit_4_is_unreachable_from_the_users_objects(project, isolated, capsys, source):
    """A target whose properties, __iter__, __getitem__, items or __repr__ raise, or holding 5000-digit numbers: exit 0–3, never 4."""
    name = f"i10cfg_objects_{next(_OBJECT_MODULES)}"
    (project / f"{name}.py").write_text(f"import sympy\nfrom fractions import Fraction\nfrom {MODULE} import threshold\n" + source)
    sys.path.insert(0, str(project))
    code = main(["verify", f"{name}:TARGET"])
    captured = capsys.readouterr()
    assert code in (0, 1, 2, 3), captured.err + "\n" + source
    assert "Traceback" not in captured.err and "internal error" not in captured.err + captured.out, source
    if code == 2 and not captured.out:
        assert captured.err.count("\n") == 1, captured.err
