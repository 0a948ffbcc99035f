"""``check_derivation``: the envelope of a derivation, the claim's own checks, and the verdict.

The envelope is ``{"format": 1, "claim", "relation", "start", "bound",
"root"}``.  For a sensitivity claim the kernel decides itself which sizes
must be covered: under add-remove, n = 0 (the pair ∅, {x}) whenever q is
defined on the empty dataset at every output — decided by a query it writes
(an inconclusive answer counts as defined, the cautious side); under
replace-one n >= 1.  A derivation whose ``start`` is later is rejected.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from expmech.spec import Count, InvalidArgument, InvalidType, LogLikelihood, Mean, Neighbours, QualityFunction, Size, Total
from expmech.spec.internal import describe

from ._conclusions import CONCLUSION_CHECKERS, CONCLUSION_TABLE
from ._derivation import Context, Rule, read_node
from ._monotone import MONOTONE_RULES, MONOTONE_TABLE, check_monotone
from ._normaliser import NORMALISER_RULES, NORMALISER_TABLE, check_normaliser
from ._range import RANGE_RULES, RANGE_TABLE, check_range
from ._ratio import RATIO_RULES, RATIO_TABLE, check_ratio
from ._sensitivity import SENSITIVITY_RULES, SENSITIVITY_TABLE
from ._smt import Session, Unsupported
from ._truthful import TRUTHFUL_TABLE, check_truthful
from ._terms import Encoder
from ._verdict import KernelVerdict, Rejected, RuleInfo

__all__ = ["CLAIMS", "DEFAULT_RLIMIT", "DEFAULT_TIMEOUT_MS", "RULES", "check_derivation", "empty_defined"]

DEFAULT_RLIMIT = 5_000_000
DEFAULT_TIMEOUT_MS = 20_000

#: claim kind -> its rule set (other claims plug their rules in here)
CLAIMS: dict[str, Mapping[str, Rule]] = {"sensitivity": SENSITIVITY_RULES, "monotonicity": MONOTONE_RULES, "range-sensitivity": RANGE_RULES, "normaliser": NORMALISER_RULES,
                                            "likelihood-ratio": RATIO_RULES, **{kind: {} for kind in (*CONCLUSION_CHECKERS, "truthfulness")}}
#: every rule of every claim: name -> (claim, statement name, one-line statement)
RULES: dict[str, RuleInfo] = {**SENSITIVITY_TABLE, **MONOTONE_TABLE, **RANGE_TABLE, **NORMALISER_TABLE, **RATIO_TABLE, **CONCLUSION_TABLE, **TRUTHFUL_TABLE}
#: the claims about a LogLikelihood (True), about a QualityFunction (absent), about either (None)
LIKELIHOOD: dict[str, bool | None] = {"likelihood-ratio": True, "posterior-range": True, "privacy": None, "zcdp": None}


def empty_defined(ctx: Context) -> bool:
    """Whether q is defined on the empty dataset at every output (unknown counts as defined)."""
    s = ctx.session
    env: dict[Any, tuple[Any, Any]] = dict(ctx.outputs)
    for atom in ctx.quality.expr.atoms(Count, Total, Mean, Size):
        env[atom] = (s.num(0), s.boolean(isinstance(atom, Mean)))
    _, undefined = Encoder(s, env).number(ctx.quality.expr)
    return s.solve([undefined]) != "sat"


def _sensitivity(ctx: Context, derivation: Mapping[str, Any], start: int) -> None:
    required = 1 if ctx.replace else (0 if empty_defined(ctx) else 1)
    if start > required:
        raise Rejected(None, f"start={start}, but the claim must cover n >= {required}"
                       + (" (q is defined on the empty dataset: the pair ∅, {x} is a neighbour)" if required == 0 else ""))
    root = read_node(ctx, derivation["root"])
    if root.path or root.args is not None:
        raise Rejected(root.id, "the root must be about the whole quality function (term [])")
    if root.hi is not None or root.lo > start:
        raise Rejected(root.id, f"the root covers n >= {root.lo}{' only at one n' if root.hi is not None else ''}, not every n >= {start}")
    if derivation["bound"] != root.bound_json:
        raise Rejected(root.id, "the derivation's bound is not the root's bound")
    ctx.session.discharge()


CHECKERS: dict[str, Callable[[Context, Mapping[str, Any], int], None]] = {"sensitivity": _sensitivity, "monotonicity": check_monotone, "normaliser": check_normaliser, "likelihood-ratio": check_ratio,
    "range-sensitivity": lambda ctx, derivation, start: check_range(ctx, derivation, start, _sensitivity), **CONCLUSION_CHECKERS, "truthfulness": check_truthful,
}
#: the kernel's verdicts on derivations of claims that rest on no other claim: (quality, relation, derivation's JSON
#: and budget) -> verdict; a premise the kernel has just accepted as a claim of its own is not checked again
_PREMISES: dict[tuple[Any, ...], KernelVerdict] = {}


def check_derivation(
    quality: QualityFunction | LogLikelihood,
    neighbours: Any,
    derivation: Mapping[str, Any],
    *,
    premises: Mapping[str, Mapping[str, Any]] | None = None,
    rlimit: int = DEFAULT_RLIMIT,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> KernelVerdict:
    """Check ``derivation`` (a JSON-able mapping) for ``quality`` under ``neighbours``; never raises on the derivation.

    Accepted only when every node's rule applies to its subterm and every side
    condition — each a query the kernel writes from the quality function, never
    one read from the derivation — is confirmed (z3 ``unsat``); a ``sat`` or
    ``unknown`` answer, a malformed node, or a bound that differs from the root's
    is ``accepted=False`` naming the node and why.  ``premises`` holds the
    derivations of the certificate's other claims by claim kind: a claim that rests
    on others (``privacy``, ``zcdp``, ``posterior-range``, ``truthfulness``) reads its
    premise's bound only from a premise the kernel accepts itself here; a missing or
    rejected premise rejects it.  ``rlimit`` and ``timeout_ms`` budget each solver call.  Raises :class:`~expmech.spec.InvalidType` when
    ``quality`` is not a QualityFunction and :class:`~expmech.spec.InvalidArgument`
    for a bad ``neighbours``, ``rlimit`` or ``timeout_ms``.
    """
    if not isinstance(quality, QualityFunction | LogLikelihood):
        raise InvalidType(f"quality={describe(quality)} must be an expmech.spec.QualityFunction or LogLikelihood", parameter="quality", value=quality)
    relation = Neighbours.parse(neighbours)
    for name, value in (("rlimit", rlimit), ("timeout_ms", timeout_ms)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"{name}={describe(value)} must be an int >= 1", parameter=name, value=value)
    if premises is not None and not isinstance(premises, Mapping):
        raise InvalidArgument(f"premises={describe(premises)} must be a mapping of claim kinds to derivations", parameter="premises", value=premises)
    key = _base_key(quality, relation, derivation, rlimit, timeout_ms)
    known = _PREMISES.get(key) if key is not None else None
    if known is not None:
        return known
    session = Session(rlimit, timeout_ms)
    verdict = _verdict(quality, relation, derivation, session, premises or {})
    if key is not None:
        if len(_PREMISES) > 64:
            _PREMISES.clear()
        _PREMISES[key] = verdict
    return verdict


def _base_key(quality: QualityFunction | LogLikelihood, relation: Neighbours, derivation: Any, rlimit: int, timeout_ms: int) -> tuple[Any, ...] | None:
    """The cache key of a derivation of a claim that rests on no other claim (its verdict depends only on this key); None otherwise."""
    if not isinstance(derivation, Mapping) or not isinstance(derivation.get("claim"), str) or not CLAIMS.get(derivation["claim"]):
        return None
    try:
        return (quality, relation, json.dumps([derivation, rlimit, timeout_ms], sort_keys=True))
    except (TypeError, ValueError, RecursionError):
        return None


def _verdict(quality: QualityFunction | LogLikelihood, relation: Neighbours, derivation: Any, session: Session, premises: Mapping[str, Any]) -> KernelVerdict:
    """:func:`check_derivation` past its argument checks: the verdict, never an exception."""
    try:
        return _check(quality, relation, derivation, session, premises)
    except Rejected as rejected:
        return KernelVerdict(False, rejected.node, rejected.reason, session.queries)
    except Unsupported as error:
        return KernelVerdict(False, None, f"the kernel does not encode {error}", session.queries)
    except RecursionError:
        return KernelVerdict(False, None, "the derivation or an expression in it is nested too deeply", session.queries)
    except Exception as error:  # noqa: BLE001 - the kernel fails closed on anything it did not foresee
        return KernelVerdict(False, None, f"malformed derivation ({type(error).__name__}: {str(error)[:200]})", session.queries)


def _premise(quality: QualityFunction | LogLikelihood, relation: Neighbours, premises: Mapping[str, Any], session: Session) -> Callable[[str, str], Mapping[str, Any]]:
    """The reader of the premise of kind ``kind`` for ``node``: its derivation, once the kernel accepts it itself."""

    def premise(kind: str, node: str) -> Mapping[str, Any]:
        raw = premises.get(kind)
        if not isinstance(raw, Mapping) or raw.get("claim") != kind:
            raise Rejected(node, f"the certificate has no {kind} claim with a derivation to rest on")
        verdict = check_derivation(quality, relation, raw, premises=premises, rlimit=session.rlimit, timeout_ms=session.timeout_ms)
        if not verdict.accepted:
            raise Rejected(node, f"its premise, the {kind} claim, is not accepted: {verdict.reason[:200]}")
        return raw

    return premise


def _check(quality: QualityFunction | LogLikelihood, relation: Neighbours, derivation: Any, session: Session, premises: Mapping[str, Any]) -> KernelVerdict:
    if not isinstance(derivation, Mapping):
        raise Rejected(None, f"a derivation must be an object, not {type(derivation).__name__}")
    missing = [k for k in ("format", "claim", "relation", "start", "bound", "root") if k not in derivation]
    if missing:
        raise Rejected(None, f"the derivation has no {missing[0]!r}")
    if derivation["format"] != 1 or isinstance(derivation["format"], bool):
        raise Rejected(None, f"format {str(derivation['format'])[:20]!r} is not 1")
    claim = derivation["claim"]
    if not isinstance(claim, str) or claim not in CHECKERS:
        raise Rejected(None, f"claim {str(claim)[:40]!r} has no rule set (known: {', '.join(sorted(CHECKERS))})")
    if LIKELIHOOD.get(claim, False) not in (None, isinstance(quality, LogLikelihood)):
        raise Rejected(None, "likelihood-ratio and posterior-range claims are about a LogLikelihood, privacy and zcdp about either, every other claim about a QualityFunction")
    if derivation["relation"] != relation.value:
        raise Rejected(None, f"relation {str(derivation['relation'])[:20]!r} is not {relation.value!r}")
    start = derivation["start"]
    if isinstance(start, bool) or start not in (0, 1):
        raise Rejected(None, "start must be 0 or 1")
    ctx = Context(quality, relation, session, CLAIMS[claim])
    ctx.premise = _premise(quality, relation, premises, session)
    CHECKERS[claim](ctx, derivation, start)
    return KernelVerdict(True, None, f"accepted: {ctx.count} node(s), every side condition confirmed by z3", session.queries)
