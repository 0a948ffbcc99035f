"""Where ``certify`` stores a claim's derivation: the prover's record of how it reached a PROVED claim.

A prover result that reached PROVED may carry ``derivation`` (for the
sensitivity: :attr:`~expmech.proofs.prover.SensitivityResult.derivation`):
a tree of rule applications in the format of :mod:`expmech.proofs.checker`
(``{"format": 1, "claim": …, "relation": …, "start": …, "bound": …, "root": …}``).
:func:`attach_derivation` writes it into the claim under ``"derivation"``,
as plain JSON data; a node's ``evidence`` holds indices into the claim's own
``evidence.queries``, so no query is written twice.  A claim that is not
PROVED carries no derivation.

Any claim kind plugs in the same way: its prover result gets a
``derivation`` attribute and its claim builder calls :func:`attach_derivation`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..._outcome import Status

__all__ = ["attach_derivation", "derivation_json"]


def derivation_json(result: Any) -> dict[str, Any] | None:
    """The derivation of a PROVED ``result`` as JSON data (dicts, lists, str, int, bool, None), else None.

    ``result.derivation`` may be a mapping or an object with ``to_json()``;
    anything else (or a value that is not JSON data) is an internal error of
    the prover and raises :class:`TypeError` rather than write a certificate
    ``check`` could not read.
    """
    if getattr(result, "status", None) is not Status.PROVED:
        return None
    derivation = getattr(result, "derivation", None)
    if derivation is None:
        return None
    if hasattr(derivation, "to_json"):
        derivation = derivation.to_json()
    if not isinstance(derivation, Mapping):
        raise TypeError(f"a derivation must be a mapping, not {type(derivation).__name__}")
    data = _plain(derivation)
    assert isinstance(data, dict)
    return data


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, str | int | bool):
        return value
    raise TypeError(f"a derivation holds {type(value).__name__} {value!r}; certificates hold JSON data only")


def attach_derivation(claim: dict[str, Any], result: Any) -> dict[str, Any]:
    """``claim`` with ``"derivation"`` set from ``result`` when it is PROVED and carries one (in place; returned).

    The claim's status decides too: a result the certificate downgraded (a
    PROVED resting on an ``unknown`` query) carries no derivation.
    """
    if claim.get("status") != "PROVED":
        return claim
    data = derivation_json(result)
    if data is not None:
        claim["derivation"] = data
    return claim
