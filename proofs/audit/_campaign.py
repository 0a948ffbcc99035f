"""Campaigns: independent audit cases run in parallel on a Dask ``distributed`` cluster, or serially.

Each case gets its own seed, ``seed + index`` (its position in the campaign),
recorded in its result; a case's verdict depends only on the case (its
sampler's own state), its options and that seed, never on which worker ran it
or in what order.  So a campaign gives the same verdicts serially, on a
``LocalCluster`` or on a remote scheduler.  Results are handed to
``on_result`` as cases finish (for progress), and returned in campaign order.

``distributed`` is optional: ``pip install 'expmech[campaign]'``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._cases import AuditCase
from ._result import AuditResult, require

__all__ = ["case_seed", "run_campaign"]


def case_seed(seed: int, index: int) -> int:
    """The seed of the case at ``index`` in a campaign started with ``seed``."""
    return seed + index


def _run(case: AuditCase, options: Mapping[str, Any], seed: int) -> AuditResult:
    return case.run(seed=seed, **options)


def run_campaign(
    cases: Sequence[AuditCase],
    *,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
    cluster: str = "serial",
    scheduler: str | None = None,
    workers: int | None = None,
    processes: bool = True,
    on_result: Callable[[int, AuditResult], None] | None = None,
) -> list[AuditResult]:
    """Audit every case; return the results in the order of ``cases``.

    ``cluster`` is ``"serial"`` (one after another, in this process),
    ``"local"`` (a Dask ``LocalCluster`` of ``workers`` workers, default the
    machine's cores, one thread each; ``processes=False`` keeps them in this
    process) or ``"scheduler"`` (an existing cluster at ``scheduler``, e.g.
    ``tcp://host:8786``).  ``options`` go to each :meth:`AuditCase.run`.
    Raises :class:`MissingDependency` naming the ``campaign`` extra when
    ``distributed`` is needed and missing, and whatever a case raises (a
    :class:`SamplerError` first of all) — never a partial verdict.
    """
    options = dict(options or {})
    seeds = [case_seed(seed, i) for i in range(len(cases))]
    results: list[AuditResult | None] = [None] * len(cases)
    if cluster == "serial":
        for index, case in enumerate(cases):
            results[index] = _run(case, options, seeds[index])
            if on_result is not None:
                on_result(index, results[index])  # type: ignore[arg-type]
        return [r for r in results if r is not None]
    dask: Any = require("distributed", "campaign")
    if cluster == "scheduler":
        client = dask.Client(scheduler)
        local = None
    else:
        local = dask.LocalCluster(
            n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=processes,
            dashboard_address=None, silence_logs=40,
        )
        client = dask.Client(local)
    try:
        futures = [client.submit(_run, case, options, seeds[i], pure=False) for i, case in enumerate(cases)]
        position = {future.key: i for i, future in enumerate(futures)}
        try:
            for future in dask.as_completed(futures):
                index = position[future.key]
                results[index] = future.result()
                if on_result is not None:
                    on_result(index, results[index])  # type: ignore[arg-type]
        except BaseException:
            client.cancel(futures)
            raise
    finally:
        client.close()
        if local is not None:
            local.close()
    return [r for r in results if r is not None]
