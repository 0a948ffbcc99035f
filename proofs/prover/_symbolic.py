"""Counterexamples at any dataset size: one z3 query with the size ``n`` as an integer unknown.

The exact encoding of :mod:`._bounded` fixes the size and tries a few; a claim
that fails only beyond them (``4 − 2/n`` against a claim of 39/10 first fails
at ``n = 21``; ``1 − 1/n`` against 99/100 at ``n = 101``) escapes it.  Here
the other records are ``k`` *kinds* — record unknowns ``k₁ … k_k`` — each
repeated an integer unknown ``mᵢ >= 0`` times, with ``n = Σ mᵢ`` (plus the
changed record: replace-one ``a → b`` among ``n`` records, add-remove ``a``
added to ``n``).  Every aggregate is then an exact term in the ``mᵢ``
(``count(p) = Σ mᵢ·[p(kᵢ, r)] + [p(a, r)]``, ``mean = total / size``), the
claim is read at ``n``, and a model of ``|q(D', r) − q(D, r)| > claim(n)`` is
a pair of datasets of the model's size.

The query is a search, never evidence: the model's pair is built and
re-evaluated exactly with the quality's own interpreter (:func:`._bounded.confirm`)
before anyone sees it, and a model the interpreter does not confirm — z3's
division by zero is unspecified, not an error — is dropped.  A model of more
than :data:`LARGEST_SIZE` records (a claim that fails only past a size limit
such as ``min(count, 2**62)``) is kept by counts: each kind with its
multiplicity, evaluated from the counts at any size.
"""

from __future__ import annotations

from typing import Any

import sympy
import z3

from expmech.spec import DATASET_SIZE, Count, InvalidArgument, Mean, Neighbours, Size, Total
from expmech.spec.internal import WeightedRecords

from ._bounded import ConcretePair, RecordUnknowns, confirm
from ._claims import value_at
from ._encoding import Codes, codes_from_model
from ._rules import Prover
from ._z3bridge import Translator, as_number, as_real, check, int_val, int_var

__all__ = ["LARGEST_SIZE", "SYMBOLIC_RLIMIT", "symbolic_pair"]

#: The budget of one symbolic query (a search: it may give up).
SYMBOLIC_RLIMIT = 1_000_000
#: A wall-clock safety net for that query (z3's nonlinear arithmetic may overrun its rlimit).
SYMBOLIC_TIMEOUT_MS = 3_000
#: The largest dataset a model's pair is listed record by record; past it the pair is held by counts.
LARGEST_SIZE = 200_000


def symbolic_pair(prover: Prover, claim: sympy.Expr, *, start: int, kinds: tuple[int, ...] = (1, 2), rlimit: int = SYMBOLIC_RLIMIT) -> ConcretePair | None:
    """A neighbouring pair exceeding ``claim`` at some size ``n >= start``, found with ``n`` unknown; None if none is found.

    ``kinds`` are the numbers of record kinds tried, in order.  The pair is
    confirmed by exact evaluation; the first dataset has ``n`` records.
    """
    for count in kinds:
        found = _query(prover, claim, start, count, rlimit)
        if found is not None:
            return found
    return None


def _query(prover: Prover, claim: sympy.Expr, start: int, kinds: int, rlimit: int) -> ConcretePair | None:
    quality = prover.quality
    replace = prover.neighbours is Neighbours.REPLACE_ONE
    outputs = prover.output_vars
    records = RecordUnknowns(prover, "s", kinds)
    kind_vars, term = records.kinds, records.term
    multiplicities = [int_var(f"sm{i}") for i in range(kinds)]
    others = z3.Sum(*multiplicities) if multiplicities else int_val(0)
    size = others + 1 if replace else others  # the first dataset's size, n
    constraints = records.constraints + [m >= 0 for m in multiplicities] + [size >= max(start, 1 if replace else 0)]

    def times(m: Any, value: Any) -> Any:
        return m * value if z3.is_int(value) else as_real(m) * value

    before: dict[sympy.Basic, Any] = {Size(): size}
    after: dict[sympy.Basic, Any] = {Size(): size if replace else size + 1}
    try:
        for node in sorted(quality.expr.atoms(Count, Total, Mean), key=sympy.default_sort_key):
            if isinstance(node, Count):  # [p(k, r)]·m is If(p, m, 0): linear in m
                rest = [z3.If(records.translator(k).condition(node.args[0]), m, int_val(0)) for m, k in zip(multiplicities, kind_vars)]
            else:
                rest = [times(m, term(node, k)) for m, k in zip(multiplicities, kind_vars)]
            first, second = records.sums(node, rest)
            if isinstance(node, Mean):
                first = as_real(first) / as_real(before[Size()])
                second = as_real(second) / as_real(after[Size()])
            before[node], after[node] = first, second
        value_before = as_number(Translator({**before, **outputs})(quality.expr))
        value_after = as_number(Translator({**after, **outputs})(quality.expr))
        limit = Translator({DATASET_SIZE: as_real(size)}).number(claim)
    except InvalidArgument:
        return None
    difference = value_after - value_before
    answer = check(constraints + [z3.Or(difference > limit, -difference > limit)], rlimit=rlimit, timeout_ms=min(prover.timeout_ms, SYMBOLIC_TIMEOUT_MS), export=False)
    if answer.status != "sat" or answer.model is None:
        return None
    return _pair_from_model(prover, claim, answer.model, kinds, replace)


def _pair_from_model(prover: Prover, claim: sympy.Expr, model: dict[str, Any], kinds: int, replace: bool) -> ConcretePair | None:
    """The model's datasets, re-evaluated exactly (None if too large, outside a domain, or not confirmed)."""
    quality = prover.quality
    output = codes_from_model(model, "out_", quality.output_space)
    records: dict[str, Codes] = {}
    for tag in ("a", "b") if replace else ("a",):
        codes = codes_from_model(model, f"s{tag}_", quality.schema)
        if codes is None:
            return None
        records[tag] = codes
    counted: list[tuple[Codes, int]] = []
    for i in range(kinds):
        m = model.get(f"sm{i}", 0)
        if not isinstance(m, int) or m < 0:
            return None
        if m == 0:
            continue
        codes = codes_from_model(model, f"sk{i}_", quality.schema)
        if codes is None:
            return None
        counted.append((codes, m))
    if output is None:
        return None
    first: Any
    second: Any
    if sum(m for _, m in counted) + 1 > LARGEST_SIZE:  # held by counts: a pair at a size past listing
        changed = [(records["a"], 1)]
        if replace:
            first, second = WeightedRecords(changed + counted), WeightedRecords([(records["b"], 1)] + counted)
        else:
            first, second = WeightedRecords(counted), WeightedRecords(counted + changed)
        size = first.size
    else:
        rest = [codes for codes, m in counted for _ in range(m)]
        if replace:
            first, second = tuple([records["a"]] + rest), tuple([records["b"]] + rest)
        else:
            first, second = tuple(rest), tuple(rest + [records["a"]])
        size = len(first)
    limit = value_at(claim, size)
    if limit is None:
        return None
    return confirm(prover, first, second, output, limit, strict=True)

