"""``verify`` and ``certify`` refuse a mechanism whose estimated work exceeds the budget, before doing any of it.

The estimate is :func:`~expmech.proofs.certificate.check._cost.estimate_work` on the
outputs the certificate would list one by one: none for a range (an infinite
or continuous output space, or one integer variable past
:data:`~expmech.spec.SMALL_DOMAIN` values), else every output of the output
space.  The budget is ``--budget`` MB, else ``[tool.expmech] budget``, else
:data:`~expmech.proofs.certificate.check._cost.DEFAULT_BUDGET_MB`; under an
``RLIMIT_AS`` below it, the address space left.
"""

from __future__ import annotations

from expmech.spec import LARGEST_LISTED, BudgetExceeded, LogLikelihood

from ..certificate.check._cost import WorkEstimate, effective_budget, estimate_work
from ..certificate.make._ranges import is_ranged
from ._targets import Target

__all__ = ["CERTIFY_PAIRS", "check_budget", "estimate_target"]

#: The conformance pairs ``verify`` and ``certify`` generate (``certify``'s default).
CERTIFY_PAIRS = 20


def estimate_target(target: Target, *, pairs: int = CERTIFY_PAIRS) -> WorkEstimate:
    """The estimated work of certifying ``target``, from its output space alone (nothing is listed)."""
    quality = target.quality
    space = quality.output_space
    variables = len(list(space.items()))
    if isinstance(quality, LogLikelihood):
        listed = space.size or 0  # an infinite parameter space is an interval of θ: nothing listed
    else:
        listed = 0 if is_ranged(quality, None) else (space.size or 0)
    return estimate_work(listed_outputs=listed, variables=variables, pairs=pairs)


def check_budget(target: Target, budget_mb: int, *, command: str) -> WorkEstimate:
    """The target's estimate; :class:`~expmech.spec.BudgetExceeded` (exit 2) naming it, the estimate and ``--budget`` when over."""
    estimate = estimate_target(target)
    limit, source = effective_budget(budget_mb)
    if estimate.memory_mb > limit or estimate.listed_outputs > LARGEST_LISTED:
        if estimate.listed_outputs > LARGEST_LISTED:
            source, raise_it = f"the {LARGEST_LISTED:,} outputs that may be listed one by one (no budget raises that)", "split the mechanism"
        elif limit < budget_mb:
            raise_it = "raise the address-space limit (ulimit -v)"
        else:
            raise_it = f"rerun with expmech {command} --budget {estimate.memory_mb} (or set budget = {estimate.memory_mb} in [tool.expmech])"
        raise BudgetExceeded(
            f"mechanism {target.name!r}: the estimated work, {estimate.text()}, exceeds {source}; to proceed, {raise_it}, or make the "
            "output space one integer variable (certified by its ends, never listed) or smaller",
            parameter="budget",
            value=budget_mb,
        )
    return estimate
