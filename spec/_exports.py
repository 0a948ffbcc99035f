"""Lazy public names for a package (PEP 562): a name's module is imported when the name is first used.

``expmech check`` refuses hostile input before sympy, z3 or numpy are
imported, so a package's ``__init__`` must not import its whole public API up
front.  Each package lists where its public names live and, for type
checkers, imports them under ``TYPE_CHECKING``::

    _EXPORTS = {"._errors": ("ExpMechError",), ...}
    if TYPE_CHECKING:
        from ._errors import ExpMechError
    else:
        __getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

``from package import Name``, ``package.Name``, ``from package import *``
and ``dir(package)`` behave as with eager imports; a submodule not imported
yet is imported on attribute access too (``package.submodule``).
``tests/project/test_public_api.py`` holds ``_EXPORTS``, the ``TYPE_CHECKING``
imports and ``__all__`` to one set.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, tuple[str, ...]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module ``__getattr__`` and ``__dir__`` for ``package`` whose public names live where ``exports`` says.

    ``exports`` maps a module, relative to ``package`` (``"._errors"``) or
    absolute (``"expmech.spec._errors"``, for a plain module such as
    ``expmech.spec.internal``), to the names it provides.  ``__getattr__(name)`` imports the name's module,
    binds the name in the package (later lookups cost nothing) and returns it;
    for any other name that is a submodule of ``package`` it imports the
    submodule; otherwise it raises :class:`AttributeError` as a module does.
    ``__dir__()`` lists the names bound so far and every exported name.
    """
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> Any:
        namespace = vars(sys.modules[package])
        module = where.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module, package), name)
            namespace[name] = value
            return value
        is_package = "__path__" in namespace  # a plain module (``internal``) has no submodules
        if is_package and not (name.startswith("__") and name.endswith("__")) and importlib.util.find_spec(f"{package}.{name}") is not None:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
