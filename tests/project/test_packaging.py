"""The package installs under the expmech namespace, and only there."""

import importlib
import importlib.util
import pathlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("name", ["expmech.spec", "expmech.impl", "expmech.proofs"])
def test_layer_imports_under_namespace(name):
    """Each layer imports as expmech.<layer>."""
    assert importlib.import_module(name).__name__ == name


@pytest.mark.parametrize("bare", ["spec", "impl", "proofs"])
def test_bare_folder_names_do_not_import(bare, tmp_path):
    """The checkout's folder names are not importable as top-level modules.

    (The tests' own room of that name, ``tests/spec`` say, is a namespace package on the test path: it holds no
    layer code, so it is allowed; the layer's folder at the top of the checkout never is.)"""
    layer = pathlib.Path(__file__).resolve().parents[2] / bare
    found = importlib.util.find_spec(bare)
    locations = [] if found is None else [pathlib.Path(p).resolve() for p in (found.submodule_search_locations or [found.origin])]
    assert layer not in locations and all(p.parent.name == "tests" for p in locations)
    result = subprocess.run([sys.executable, "-c", f"import {bare}"], cwd=tmp_path, capture_output=True)
    assert result.returncode != 0


def test_expmech_is_a_namespace_package():
    """expmech itself has no __init__.py."""
    import expmech

    assert getattr(expmech, "__file__", None) is None


@pytest.mark.parametrize("name", ["expmech.spec", "expmech.impl", "expmech.proofs"])
def test_py_typed_is_shipped(name):
    """Every layer ships its py.typed marker."""
    from importlib.resources import files

    assert files(name).joinpath("py.typed").is_file()


# That the layers import one way (and without cycles or private names across them) is checked statically: test_layering.py.
