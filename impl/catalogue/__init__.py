"""The catalogue room: the built-in quality functions ``expmech verify`` checks, a catalogue of wrong claims, and the
scores libraries ship, as plain Python with their published sensitivities."""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._catalogue": ("CATALOGUE", "POSTERIOR_CATALOGUE", "RANGE_CATALOGUE", "WRONG_CATALOGUE", "CatalogueEntry", "catalogue_entry"),
    "._library": ("LIBRARY_CATALOGUE", "LibraryScore"),
}

if _typing.TYPE_CHECKING:
    from ._catalogue import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE, CatalogueEntry, catalogue_entry
    from ._library import LIBRARY_CATALOGUE, LibraryScore
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "CATALOGUE",
    "CatalogueEntry",
    "LIBRARY_CATALOGUE",
    "LibraryScore",
    "POSTERIOR_CATALOGUE",
    "RANGE_CATALOGUE",
    "WRONG_CATALOGUE",
    "catalogue_entry",
]
