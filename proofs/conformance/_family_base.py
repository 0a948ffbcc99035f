"""What every family of instances is: the base class, its evaluation, and the helpers the families share.

Apart from :mod:`._families` (which gathers every family into ``FAMILIES``)
so that the families kept in modules of their own build on it without
importing the gathering module back.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Evaluation", "InstanceFamily"]


@dataclass(frozen=True)
class Evaluation:
    """Which hypotheses hold on an instance, and whether the conclusion does (``None``: undefined)."""

    hypotheses: dict[str, bool]
    conclusion: bool | None
    detail: str = ""


class InstanceFamily:
    """Random finite instances of one statement."""

    statement_id: str = ""

    def generate(self, rng: random.Random) -> dict[str, Any]:
        """A random instance."""
        raise NotImplementedError

    def evaluate(self, instance: dict[str, Any]) -> Evaluation:
        """Exact evaluation of the hypotheses and the conclusion on ``instance``."""
        raise NotImplementedError


def _pick(rng: random.Random, values: Sequence[Any]) -> Any:
    return values[rng.randrange(len(values))]
