"""Imports flow one way (spec <- impl <- proofs, and room by room inside impl), without cycles and without private names across layers: read statically.

The checker (``tests/import_graph.py``) parses every module of the three
layers with ``ast`` and imports none of them, so the lazy packages cannot hide
an import from it: function-local imports count, ``TYPE_CHECKING`` imports
count for the layers and the private names (they are left out of the cycle
graph only, since they never run), relative imports are resolved, and a name
taken from a package's ``__init__`` is followed to the module that defines it.
Each rule is shown to fire on a small tree with the breach injected, so the
test of the real tree cannot pass by checking nothing.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from import_graph import cycles, imports_of_tree, module_files, violations

REPO = Path(__file__).resolve().parents[2]
ROOTS = {"expmech.spec": REPO / "spec", "expmech.impl": REPO / "impl", "expmech.proofs": REPO / "proofs"}


def _tree(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    """A synthetic three-layer tree under ``tmp_path`` with ``files`` ({"impl/room/_a.py": source}); every folder a package."""
    for name, source in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    for folder in {p.parent for p in tmp_path.rglob("*.py")}:
        (folder / "__init__.py").touch()
    return {"expmech.spec": tmp_path / "spec", "expmech.impl": tmp_path / "impl", "expmech.proofs": tmp_path / "proofs"}


CLEAN = {
    "spec/_errors.py": "class InvalidArgument(ValueError):\n    pass\n",
    "spec/internal.py": "from ._errors import InvalidArgument\n",
    "spec/__init__.py": "import typing\nif typing.TYPE_CHECKING:\n    from ._errors import InvalidArgument\n",
    "impl/exact/_sums.py": "from expmech.spec import InvalidArgument\n",
    "impl/exact/_balls.py": "from ._sums import InvalidArgument\n",
    "impl/exponential/_front.py": "from ..exact._balls import InvalidArgument\n",
    "proofs/_prover.py": "from expmech.impl import exponential\nfrom expmech.spec.internal import InvalidArgument\n",
}


def test_the_three_layers_keep_the_rules():
    """No cycle, no import against the layers or impl's rooms, no private name across layers, anywhere in spec/, impl/ and proofs/."""
    assert violations(ROOTS) == []


def test_the_checker_reads_the_real_tree():
    """The graph of the real tree is not empty: it holds the imports this test exists for (a checker reading nothing passes)."""
    imports = imports_of_tree(module_files(ROOTS))
    edges = {(i.importer, i.target) for i in imports}
    assert ("expmech.impl.exponential._front", "expmech.impl.exponential._countable") in edges
    assert ("expmech.impl.exponential._countable", "expmech.impl.exponential._ranges") in edges
    assert any(i.importer.startswith("expmech.proofs.") and i.target == "expmech.impl.internal" for i in imports)
    assert any(not i.written and i.target == "expmech.spec._errors" for i in imports), "re-exports are followed"
    assert len(module_files(ROOTS)) > 100


def test_a_clean_synthetic_tree_passes(tmp_path):
    """The synthetic tree the breaches are injected into keeps every rule as written."""
    assert violations(_tree(tmp_path, CLEAN)) == []


@pytest.mark.parametrize(
    ("where", "source", "expected"),
    [
        ("spec/_quality.py", "from expmech.impl import exact\n", "layer: "),
        ("spec/_quality.py", "def f():\n    import expmech.proofs._prover\n", "layer: "),
        ("impl/exact/_lazy.py", "import typing\nif typing.TYPE_CHECKING:\n    from expmech.proofs import _prover\n", "layer: "),
        ("impl/exact/_rel.py", "from ... import proofs\n", "layer: "),
        ("proofs/_bad.py", "from expmech.impl.exact._sums import InvalidArgument\n", "private: "),
        ("proofs/_bad.py", "from expmech.spec.internal import _hidden\n", "private: "),
        ("proofs/_bad.py", "def f():\n    from expmech.spec import _errors\n", "private: "),
        ("impl/exact/_sums.py", "from expmech.spec import InvalidArgument\ndef f():\n    from . import _balls\n", "cycle: "),
        ("spec/_errors.py", "from .internal import InvalidArgument\n", "cycle: "),
        ("impl/exact/_sums.py", "def f():\n    from ..exponential import _front\n", "room: "),
        ("proofs/checker/_rules.py", "from expmech.proofs.prover import _rules\n", "kernel: "),
        ("proofs/checker/_rules.py", "def f():\n    from ..certificate import _build\n", "kernel: "),
        ("proofs/checker/_rules.py", "import typing\nif typing.TYPE_CHECKING:\n    import expmech.impl.internal\n", "kernel: "),
        ("proofs/checker/_rules.py", "from .. import prover\n", "kernel: "),
        ("proofs/checker/_rules.py", "import numpy\n", "kernel: "),
        ("proofs/checker/_rules.py", "from expmech.spec import count\n", "kernel: "),
        ("proofs/checker/_rules.py", "def f():\n    import sympy\n", "kernel: "),
    ],
    ids=["spec-imports-impl", "local-import-of-proofs", "type-checking-import-against-layers", "relative-import-up", "private-module", "private-name", "local-private", "local-cycle", "cycle-through-a-module", "room-imports-a-later-room",
         "verifier-imports-the-prover", "verifier-local-import-of-the-certificate", "verifier-type-checking-import-of-impl", "verifier-relative-import-of-the-prover", "verifier-imports-another-library",
         "verifier-imports-the-spec", "verifier-local-import-of-sympy"],
)
def test_each_rule_fires_on_an_injected_breach(tmp_path, where, source, expected):
    """A back-import, a private name across layers and a cycle — at module level, in a function or under TYPE_CHECKING — are each reported."""
    found = violations(_tree(tmp_path, {**CLEAN, where: source}))
    assert any(line.startswith(expected) for line in found), found


def test_the_verifier_imports_nothing_of_the_other_layers():
    """proofs/checker/ exists and imports nothing of spec, sympy, the prover, the certificate builder or impl (the rule reads real files)."""
    from import_graph import KERNEL, kernel_violations

    assert any(name.startswith(KERNEL + ".") for name in module_files(ROOTS))
    assert kernel_violations(ROOTS) == []


def test_a_cycle_through_a_lazy_reexport_is_seen(tmp_path):
    """``from package import Name`` reaches the module that defines Name (the package's TYPE_CHECKING import), so a cycle through a lazy package is found."""
    files = {**CLEAN, "spec/_errors.py": "def f():\n    from expmech.spec import InvalidArgument\nclass InvalidArgument(ValueError):\n    pass\n"}
    assert violations(_tree(tmp_path, files)) == []  # a module importing its own name back is not a cycle
    files["spec/_other.py"] = "from expmech.spec import InvalidArgument\n"
    files["spec/_errors.py"] = "from ._other import InvalidArgument as Again\nclass InvalidArgument(ValueError):\n    pass\n"
    found = cycles(imports_of_tree(module_files(_tree(tmp_path, files))))
    assert ["expmech.spec._errors", "expmech.spec._other"] in found


def test_a_type_checking_import_makes_no_cycle(tmp_path):
    """An import under ``if TYPE_CHECKING:`` never runs, so it closes no cycle (it still counts for the layers, see above)."""
    files = {**CLEAN, "impl/exact/_sums.py": "import typing\nfrom expmech.spec import InvalidArgument\nif typing.TYPE_CHECKING:\n    from ._balls import InvalidArgument as B\n"}
    assert violations(_tree(tmp_path, files)) == []


def test_a_range_whose_kind_is_not_registered_is_refused(monkeypatch):
    """ExponentialMechanism never takes a range for a finite list: with no kind registered, a range raises instead of being enumerated."""
    from fractions import Fraction

    from expmech.impl import ExponentialMechanism
    from expmech.impl.exponential import _kinds
    from expmech.spec import ExpMechError, IntRange, OutputSpace, QualityFunction, RecordSchema, size

    space = OutputSpace(k=IntRange(0, None))
    quality = QualityFunction(-space["k"] + 0 * size(), schema=RecordSchema(x=IntRange(0, 1)), outputs=space)
    assert type(ExponentialMechanism(quality, epsilon=Fraction(1), outputs=IntRange(0, None))).__name__ == "CountableMechanism"
    monkeypatch.setattr(_kinds, "_KINDS", {})
    with pytest.raises(ExpMechError, match="no mechanism is registered for a countable range"):
        ExponentialMechanism(quality, epsilon=Fraction(1), outputs=IntRange(0, None))
