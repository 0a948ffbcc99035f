"""An ``expmech`` command run in a fresh process, with the modules it loaded: what a user's own process imports."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable
from typing import Any

_PROBE = r"""
import contextlib, io, json, sys
from expmech.proofs.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "output": json.loads(out.getvalue()), "modules": sorted(sys.modules)}))
"""


def probe(arguments: list[str]) -> tuple[int, Any, list[str]]:
    """``(exit code, the command's JSON output, every module loaded)`` of ``expmech ARGUMENTS`` (which must print
    JSON) in a fresh interpreter; fails the test if the process itself fails."""
    result = subprocess.run([sys.executable, "-c", _PROBE, *arguments], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])
    return data["code"], data["output"], data["modules"]


def loaded(modules: Iterable[str], names: Iterable[str]) -> list[str]:
    """The modules that are one of ``names`` or inside one of them."""
    names = tuple(names)
    return [m for m in modules if any(m == name or m.startswith(name + ".") for name in names)]
