"""What every family of instances is: the base class, its evaluation, and the helpers the families share.

Apart from :mod:`._families` (which gathers every family into ``FAMILIES``)
so that the families kept in modules of their own build on it without
importing the gathering module back.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

__all__ = ["Evaluation", "Hypotheses", "InstanceFamily"]


class Hypotheses(Mapping[str, bool]):
    """Which hypotheses hold on an instance, each computed when it is first read.

    ``values`` maps each hypothesis id to a bool or to a callable returning one.  A search that drops one
    hypothesis reads that one first and the others only while they hold, so a hypothesis that needs the
    mechanism's whole law is computed only where the answer depends on it; every value read is computed
    exactly as it would be at once.
    """

    __slots__ = ("_values",)

    def __init__(self, values: Mapping[str, bool | Callable[[], bool]]) -> None:
        self._values: dict[str, bool | Callable[[], bool]] = dict(values)

    def __getitem__(self, key: str) -> bool:
        value = self._values[key]
        if callable(value):
            value = self._values[key] = bool(value())
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


class Evaluation:
    """Which hypotheses hold on an instance, and whether the conclusion does (``None``: undefined).

    ``conclusion`` is a bool or None with its ``detail``, or a callable returning ``(conclusion, detail)``:
    then it is computed, exactly as it would be at once, the first time either attribute is read.  A
    dropped-hypothesis search reads it only on the instances that violate just the hypothesis it drops,
    and a conformance check only on those that satisfy every hypothesis.
    """

    __slots__ = ("hypotheses", "_conclusion", "_detail", "_later")

    def __init__(
        self,
        hypotheses: Mapping[str, bool],
        conclusion: bool | None | Callable[[], tuple[bool | None, str]],
        detail: str = "",
    ) -> None:
        self.hypotheses: Mapping[str, bool] = hypotheses
        self._later = conclusion if callable(conclusion) else None
        self._conclusion = None if callable(conclusion) else conclusion
        self._detail = detail

    def _settle(self) -> None:
        later = self._later
        if later is not None:
            self._conclusion, self._detail = later()
            self._later = None

    @property
    def conclusion(self) -> bool | None:
        """Whether the conclusion holds on the instance (None: undefined there)."""
        self._settle()
        return self._conclusion

    @property
    def detail(self) -> str:
        """What was computed, for the report."""
        self._settle()
        return self._detail

    def __repr__(self) -> str:
        return f"Evaluation(hypotheses={self.hypotheses!r}, conclusion={self.conclusion!r}, detail={self.detail!r})"


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
