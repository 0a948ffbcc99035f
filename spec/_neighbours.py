"""Neighbour relations between datasets, as named values."""

from __future__ import annotations

import enum
from typing import Any

from ._errors import InvalidArgument, describe

__all__ = ["Neighbours"]


class Neighbours(enum.Enum):
    """How two neighbouring datasets differ.

    * ``REPLACE_ONE`` — same size ``n``; one record replaced (``d(D₁, D₂) = 1`` in
      the source's Hamming sense).  ``n`` is public.
    * ``ADD_REMOVE`` — one dataset is the other plus one record; sizes ``n`` and
      ``n + 1`` with ``n >= 1``.  ``n`` is not public.
    """

    REPLACE_ONE = "replace-one"
    ADD_REMOVE = "add-remove"

    @classmethod
    def parse(cls, value: Any) -> Neighbours:
        """A :class:`Neighbours` from itself or its name (``"replace-one"``, ``"add-remove"``)."""
        if isinstance(value, cls):
            return value
        for member in cls:
            if value == member.value or value == member.name:
                return member
        choices = ", ".join(repr(m.value) for m in cls)
        raise InvalidArgument(
            f"neighbours={describe(value)} must be one of {choices}", parameter="neighbours", value=value
        )
