"""The pytest plugin, which pytest loads in every run of an environment with expmech, loads no prover, impl or sympy.

A fresh ``pytest`` on one test that records ``sys.modules``: the plugin is there (the entry point works), and none
of sympy, z3, the prover, the certifier or ``expmech.impl`` is, until a test calls ``assert_dp``.
"""

import json
import subprocess
import sys

HEAVY = ("sympy", "z3", "expmech.impl", "expmech.spec", "expmech.proofs.prover", "expmech.proofs.certificate", "expmech.proofs._assertions")


def _modules_seen_by_a_test(tmp_path, body: str) -> list[str]:
    out = tmp_path / "modules.json"
    (tmp_path / "test_probe.py").write_text(
        f"import json, sys\n\ndef test_probe():\n{body}    open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_probe.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text(encoding="utf-8"))


def _heavy(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == name or m.startswith(name + ".") for name in HEAVY)]


def test_a_pytest_run_loads_the_plugin_and_nothing_heavy(tmp_path):
    modules = _modules_seen_by_a_test(tmp_path, "")
    assert "expmech.proofs.pytest_plugin" in modules
    assert not _heavy(modules), _heavy(modules)[:10]


def test_assert_dp_from_the_plugin_module_loads_the_prover_when_named(tmp_path):
    modules = _modules_seen_by_a_test(tmp_path, "    from expmech.proofs.pytest_plugin import assert_dp\n    assert callable(assert_dp)\n")
    assert "expmech.proofs._assertions" in modules and "sympy" in modules
