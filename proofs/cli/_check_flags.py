"""The ``expmech check`` flags a freshly written certificate needs past the default input limits.

``expmech synth --certificate`` writes certificates far past the checker's
default limits (a (5, 4) release: 6 MB, 52,360 outputs, an expression of
10⁵ nodes); :func:`check_flags` names the flags that admit exactly that file
(its size, its outputs, its expression's nodes) and any limit the user raised
for the run itself (``--limit``), so the printed command checks it as written.
The plain ``expmech check`` reads only the verifier's input limits
(:data:`expmech.proofs.checker.LIMIT_NAMES`); a limit of the re-derivation
(``max_small_model_evaluations``, ``max_pairs``, …) is repeated only in the
``--reproduce`` command, which refuses nothing the plain one admits.
"""

from __future__ import annotations

from typing import Any

from ..certificate.format._limits import CertificateLimits
from ..checker import LIMIT_NAMES

__all__ = ["check_flags"]


def _nodes(tree: Any) -> int:
    """Nodes of an expression tree as the content limits count them (every dict and Piecewise branch; iterative)."""
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        count += 1
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict) and isinstance(node.get("args"), list):
            stack.extend(node["args"])
    return count


def check_flags(text: str, statement: dict[str, Any], raised: dict[str, int], *, reproduce: bool = False) -> list[str]:
    """Flags of ``expmech check`` admitting the certificate file ``text`` (whose statement is ``statement``): ``--max-bytes``
    and ``--limit`` for the defaults it exceeds, and ``--limit`` for every limit in ``raised`` (the run's own) that the
    command reads: every one with ``reproduce`` (``expmech check --reproduce``), the verifier's input limits without."""
    defaults = CertificateLimits()
    predicate = statement["predicate"]
    needed = {name: value for name, value in raised.items() if reproduce or name in LIMIT_NAMES}
    size = len(text.encode("utf-8"))
    outputs = predicate["mechanism"]["range"].get("outputs")
    for name, value in (
        ("max_bytes", size),
        ("max_outputs", len(outputs) if isinstance(outputs, list) else 0),
        ("max_expression_nodes", _nodes(predicate["quality"]["expression"])),
    ):
        if value > getattr(defaults, name):
            needed[name] = max(value, needed.get(name, 0))
    flags: list[str] = []
    for name in sorted(needed):
        if needed[name] != getattr(defaults, name):
            flags += ["--max-bytes", str(needed[name])] if name == "max_bytes" else ["--limit", f"{name}={needed[name]}"]
    return flags
