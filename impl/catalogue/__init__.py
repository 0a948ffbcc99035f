"""The catalogue room: the built-in quality functions ``expmech verify`` checks, and a catalogue of wrong claims."""

import typing as _typing

from expmech.spec.internal import lazy_exports as _lazy_exports

_EXPORTS = {
    "._catalogue": ("CATALOGUE", "POSTERIOR_CATALOGUE", "RANGE_CATALOGUE", "WRONG_CATALOGUE", "CatalogueEntry", "catalogue_entry"),
}

if _typing.TYPE_CHECKING:
    from ._catalogue import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE, CatalogueEntry, catalogue_entry
else:
    __getattr__, __dir__ = _lazy_exports(__name__, _EXPORTS)

__all__ = [
    "CATALOGUE",
    "CatalogueEntry",
    "POSTERIOR_CATALOGUE",
    "RANGE_CATALOGUE",
    "WRONG_CATALOGUE",
    "catalogue_entry",
]
