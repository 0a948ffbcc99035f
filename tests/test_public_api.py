"""Each layer's __all__ is exactly its public set."""

import importlib
import types

import pytest


LAYERS = ["expmech.spec", "expmech.impl", "expmech.proofs"]
ROOMS = [
    "expmech.proofs.prover",
    "expmech.proofs.certificate",
    "expmech.proofs.conformance",
    "expmech.proofs.cli",
    "expmech.proofs.audit",
    "expmech.proofs.adapters",
]


@pytest.mark.parametrize("name", LAYERS + ROOMS)
def test_all_is_the_public_set(name):
    """__all__ lists every public name the package defines, and only those."""
    module = importlib.import_module(name)
    public = {
        attr
        for attr, value in vars(module).items()
        if not attr.startswith("_") and not isinstance(value, types.ModuleType) and attr != "annotations"
    }
    assert set(module.__all__) == public
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
