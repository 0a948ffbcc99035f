"""Each layer's __all__ is exactly its public set, exported lazily (PEP 562) where the package says so."""

import ast
import importlib
import inspect
import subprocess
import sys
import types

import pytest


LAYERS = ["expmech.spec", "expmech.impl", "expmech.proofs"]
IMPL_ROOMS = [f"expmech.impl.{room}" for room in ("exact", "quality", "sampling", "exponential", "selection", "applications", "catalogue")]
ROOMS = [
    "expmech.proofs.prover",
    "expmech.proofs.certificate",
    "expmech.proofs.conformance",
    "expmech.proofs.cli",
    "expmech.proofs.audit",
    "expmech.proofs.adapters",
    *IMPL_ROOMS,
    "expmech.spec.internal",
    "expmech.impl.internal",
    "expmech.proofs.accounting",
    "expmech.proofs.checker",
]


@pytest.mark.parametrize("name", LAYERS + ROOMS)
def test_all_is_the_public_set(name):
    """__all__ lists every public name the package defines, and only those."""
    module = importlib.import_module(name)
    public = {
        attr
        for attr in dir(module)  # dir() lists lazy names before they are imported
        if not attr.startswith("_") and not isinstance(getattr(module, attr), types.ModuleType) and attr != "annotations"
    }
    assert set(module.__all__) == public
    assert public <= set(vars(module)), "a name dir() lists is bound once used"
    assert len(module.__all__) == len(set(module.__all__))


@pytest.mark.parametrize("name", LAYERS + ROOMS)
def test_public_callables_have_docstrings(name):
    """Every public function and class states its contract in a docstring."""
    module = importlib.import_module(name)
    for attr in module.__all__:
        value = getattr(module, attr)
        if callable(value):
            assert value.__doc__ and value.__doc__.strip(), f"{name}.{attr} has no docstring"


def test_strategies_module_all_is_its_public_functions():
    """expmech.proofs.strategies exports exactly its public strategy functions."""
    import inspect

    from expmech.proofs import strategies

    defined = {
        name
        for name, value in vars(strategies).items()
        if not name.startswith("_") and inspect.isfunction(value) and value.__module__ == strategies.__name__
    }
    assert set(strategies.__all__) == defined


LAZY = [name for name in LAYERS + ROOMS if hasattr(importlib.import_module(name), "_EXPORTS")]


def test_the_layers_and_the_rooms_with_heavy_modules_are_lazy():
    """The three layers and every room but the command and the verifier (whose modules are light) and the adapters export lazily."""
    assert set(LAZY) == set(LAYERS + ROOMS) - {"expmech.proofs.cli", "expmech.proofs.adapters", "expmech.proofs.checker"}


def _type_checking_imports(module):
    """{name: module} of the ``if TYPE_CHECKING:`` imports of a package's ``__init__``, as written."""
    tree = ast.parse(inspect.getsource(module))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom), ast.unparse(statement)
                for alias in statement.names:
                    assert alias.asname is None
                    found[alias.name] = "." * statement.level + (statement.module or "")
    return found


@pytest.mark.parametrize("name", LAZY)
def test_lazy_exports_agree_with_the_type_checking_imports_and_all(name):
    """What type checkers see (the TYPE_CHECKING imports), what runs (_EXPORTS) and __all__ name one set, from one place each."""
    module = importlib.import_module(name)
    runtime = {export: where for where, names in module._EXPORTS.items() for export in names}
    assert _type_checking_imports(module) == runtime
    assert set(runtime) == set(module.__all__)
    for export, where in runtime.items():
        assert getattr(module, export) is getattr(importlib.import_module(where, name), export)


@pytest.mark.parametrize("name", LAZY)
def test_a_lazy_package_behaves_as_a_module(name):
    """Unknown names raise AttributeError; submodules resolve on attribute access; star-import gives __all__."""
    module = importlib.import_module(name)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018
    assert not hasattr(module, "__no_such_dunder__")
    namespace = {}
    exec(f"from {name} import *", namespace)  # noqa: S102
    assert set(namespace) - {"__builtins__"} == set(module.__all__)


def test_importing_the_api_imports_no_heavy_module():
    """A fresh interpreter that imports the three layers, every room and the command loads none of the heavy libraries."""
    heavy = ("sympy", "z3", "cvc5", "numpy", "flint", "matplotlib", "jinja2", "scipy", "hypothesis", "jsonschema")
    code = (
        "import sys\n"
        f"import {', '.join(LAZY)}, expmech.proofs.cli\n"
        "import expmech.proofs.prover as p\n"
        "assert 'Witness' in dir(p)\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.strip() == "[]", result.stdout
