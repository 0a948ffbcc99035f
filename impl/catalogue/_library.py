"""Scores that libraries ship, written as plain Python the way each library writes it, with what it publishes.

Each :class:`LibraryScore` is a quality function as its library computes it —
numpy, sorting, loops, ``min`` against a size limit — not rewritten for the
prover: ``expmech verify`` traces it (:func:`expmech.spec.trace`), checks the
trace against the code, and proves or refutes the library's *published*
sensitivity.  ``verdict`` is the verdict expmech reaches (``"PROVED"``,
``"REFUTED"``, ``"BOUNDED"``), recorded so that a catalogue holding a wrong
published claim still verifies: ``expmech verify expmech.impl:LIBRARY_CATALOGUE``
exits 0 when every verdict is the recorded one, and the wrong claims are
reported REFUTED, with their counterexamples, all the same.

Sources were read at the versions named (``library``, ``path``, ``version``);
an OpenDP score was also compared with the installed ``opendp`` where it is that
version.  ``docs/reference/library-scores.md`` is generated from this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import sympy

from expmech.spec import DATASET_SIZE, Booleans, Categories, IntRange, Neighbours, OutputSpace, RationalRange, RecordSchema

__all__ = ["LIBRARY_CATALOGUE", "LibraryScore"]

n = DATASET_SIZE


@dataclass(frozen=True)
class LibraryScore:
    """A score a library ships, as plain Python, with its published sensitivity and expmech's verdict on it.

    ``function(data, r)`` is the score; ``schema`` and ``outputs`` its records
    and outputs; ``published`` the sensitivity the library states (under
    ``neighbours``); ``verdict`` what ``expmech verify`` finds for that claim,
    ``finding`` the proved bound and why in words; ``library``, ``path`` and
    ``version`` where the code comes from.  ``quality``,
    ``claimed_sensitivity`` and ``expected`` are the names ``expmech verify``
    reads a catalogue entry by.
    """

    name: str
    description: str
    function: Callable[..., Any]
    schema: RecordSchema
    outputs: OutputSpace
    neighbours: Neighbours
    published: sympy.Expr
    verdict: str
    finding: str
    library: str
    path: str
    version: str
    epsilon: Fraction = Fraction(1, 2)

    @property
    def quality(self) -> Callable[..., Any]:
        """The plain Python score (traced by ``expmech verify``)."""
        return self.function

    @property
    def claimed_sensitivity(self) -> sympy.Expr:
        """The published sensitivity: the claim verified."""
        return self.published

    @property
    def expected(self) -> str:
        """The verdict the catalogue records."""
        return self.verdict


# -- OpenDP's quantile score --------------------------------------------------------------------------

ALPHA_NUM, ALPHA_DEN = 1, 4  # alpha = 1/4, as OpenDP reads it (numerator, denominator)
SIZE_LIMIT = (2**64 - 1) // ALPHA_DEN  # usize::MAX.neg_inf_div(&alpha_den): 2**62 - 1
CANDIDATES = IntRange(0, 100)


def opendp_quantile_score_v013(data: Any, r: Any) -> Any:
    """OpenDP 0.10–0.13 ``score``: ``|α_den·min(#(x < c), l) − α_num·min(n − #(x = c), l)|`` for candidate c = r (minimised)."""
    lt = sum(1 for x in data if x < r)
    eq = sum(1 for x in data if x == r)
    score = abs(ALPHA_DEN * min(lt, SIZE_LIMIT) - ALPHA_NUM * min(len(data) - eq, SIZE_LIMIT))
    return -score  # OpenDP selects the least score: the quality is its negation


def opendp_quantile_score_v016(data: Any, r: Any) -> Any:
    """OpenDP 0.16 ``score_candidates``: ``|(α_den − α_num)·min(#(x < c), l) − α_num·min(#(x > c), l)|`` (minimised)."""
    lt = 0
    gt = 0
    for x in data:
        if x < r:
            lt += 1
        elif x > r:
            gt += 1
    lt_lim, gt_lim = min(lt, SIZE_LIMIT), min(gt, SIZE_LIMIT)
    return -abs((ALPHA_DEN - ALPHA_NUM) * lt_lim - ALPHA_NUM * gt_lim)


# -- the quantile of an interval: diffprivlib, Tumult, JointExp ------------------------------------------

LOWER, UPPER = 0, 100
QUANT = 0.25


def diffprivlib_quantile_utility(data: Any, r: Any) -> Any:
    """diffprivlib ``tools.quantile``: utility ``-|i − quant·k|`` of the interval i of the sorted, clipped data holding r."""
    array = np.clip(np.ravel(data), LOWER, UPPER)  # clip_to_bounds(np.ravel(array), bounds)
    k = array.size
    array.sort()
    idx = np.searchsorted(array, r, side="right")  # r lies in the interval [array[idx - 1], array[idx]]
    return -abs(idx - QUANT * k)  # -np.abs(np.arange(0, k + 1) - quant * k)[idx]


def tumult_quantile_score(data: Any, r: Any) -> Any:
    """Tumult Core ``_select_quantile_interval``: ``-|rank − q·n|``, rank the number of values below the interval of r."""
    values = np.sort(data)
    rank = np.searchsorted(values, r, side="left")
    target_rank = QUANT * len(values)
    return -abs(rank - target_rank)


def jointexp_utility(data: Any, r: Any) -> Any:
    """dp_multiq JointExp for one quantile: ``log φ`` of the gaps before and after the interval of r (without ε/2Δ)."""
    sorted_data = np.sort(np.clip(np.asarray(data), LOWER, UPPER))
    original_data_size = len(sorted_data)
    gaps = np.searchsorted(sorted_data, r)  # the interval [x_gaps, x_gaps+1] holding r
    target_ns = (QUANT * original_data_size, (1 - QUANT) * original_data_size)
    return -(abs(gaps - target_ns[0]) + abs((original_data_size - gaps) - target_ns[1]))


# -- the inverse-sensitivity median ----------------------------------------------------------------------


def inverse_sensitivity_median(data: Any, r: Any) -> Any:
    """−len(D; r): how many records must change for the (upper) median of D to be r (Asi & Duchi 2020)."""
    xs = sorted(data)
    m = len(xs) // 2
    below = sum(1 for x in xs if x < r)
    at_most = sum(1 for x in xs if x <= r)
    return -max(0, below - m, m + 1 - at_most)


# -- selection: MWEM, top-1, hyperparameters ---------------------------------------------------------------

BINS = 8
QUERY_LOW = (0, 2, 4, 0, 6)
QUERY_HIGH = (3, 5, 7, 7, 6)


def smartnoise_mwem_error(data: Any, r: Any) -> Any:
    """SmartNoise MWEM ``_exponential_mechanism``, first round: ``|Q_r(hist) − Q_r(A)|``, A the uniform histogram of n records."""
    n_records = len(data)
    lo, hi = QUERY_LOW[r], QUERY_HIGH[r]
    true_answer = sum(1 for x in data if lo <= x <= hi)
    synthetic_answer = n_records * (hi - lo + 1) / BINS
    return abs(true_answer - synthetic_answer)


CATEGORY_LABELS = ("a", "b", "c", "d")


def count_by_category(data: Any, r: Any) -> Any:
    """OpenDP ``make_count_by_categories`` then report-noisy-max: the count of category r."""
    return sum(1 for x in data if x == r)


def hyperparameter_score(data: Any, r: Any) -> Any:
    """Private hyperparameter selection: minus the total validation loss of candidate r, per-record losses in [0, 1]."""
    total = 0
    for rec in data:
        if r == 1:
            total += rec.loss1
        elif r == 2:
            total += rec.loss2
        else:
            total += rec.loss3
    return -total


# -- PrivBayes ----------------------------------------------------------------------------------------------


def _r_function(data: Any, first: str, second: str) -> Any:
    n_records = len(data)
    total: Any = 0
    for x in (False, True):
        for p in (False, True):
            joint = sum(1 for rec in data if rec[first] == x and rec[second] == p) / n_records
            p_x = sum(1 for rec in data if rec[first] == x) / n_records
            p_p = sum(1 for rec in data if rec[second] == p) / n_records
            total += abs(joint - p_x * p_p)
    return total / 2


def privbayes_r_score(data: Any, r: Any) -> Any:
    """PrivBayes's R score of the attribute–parent pair r: ``½ Σ |P(x, π) − P(x)·P(π)|``."""
    if r == 0:
        return _r_function(data, "a", "b")
    if r == 1:
        return _r_function(data, "a", "c")
    return _r_function(data, "b", "c")


def _entries() -> tuple[LibraryScore, ...]:
    values = RecordSchema(x=RationalRange(LOWER, UPPER))
    interval = OutputSpace(r=RationalRange(LOWER, UPPER))
    counts = RecordSchema(x=IntRange(0, 100))
    return (
        LibraryScore(
            "opendp-0.13-quantile-score",
            "OpenDP's quantile score (alpha = 1/4) with its size limit l = (2^64 − 1) // 4",
            opendp_quantile_score_v013, counts, OutputSpace(r=CANDIDATES), Neighbours.ADD_REMOVE, sympy.Integer(3),
            "REFUTED",
            "the tight bound is 4, attained only at n >= l = 2^62 − 1: one record below the candidate moves 4·min(#<, l) by 4 while "
            "min(n − #=, l) stays at l; the counterexample has 2^62 records, held by counts",
            "OpenDP", "rust/src/transformations/quantile_score_candidates/mod.rs (fn score)", "0.10–0.13",
        ),
        LibraryScore(
            "opendp-0.16-quantile-score",
            "OpenDP's quantile score (alpha = 1/4) after the fix: (1 − α)·#(x < c) against α·#(x > c), each clamped at l",
            opendp_quantile_score_v016, counts, OutputSpace(r=CANDIDATES), Neighbours.ADD_REMOVE, sympy.Integer(3),
            "PROVED", "Δq = 3, tight: a record below the candidate moves (α_den − α_num)·#(x < c) by 3, and only one term moves",
            "OpenDP", "rust/src/transformations/quantile_score_candidates (score_candidates; scores equal opendp 0.16.0's)", "0.16",
        ),
        LibraryScore(
            "diffprivlib-quantile",
            "diffprivlib's quantile (q = 1/4) over [0, 100]: the utility of the interval holding r, Lebesgue measure",
            diffprivlib_quantile_utility, values, interval, Neighbours.REPLACE_ONE, sympy.Integer(1),
            "PROVED", "Δq = 1, tight",
            "diffprivlib", "diffprivlib/tools/quantiles.py (quantile)", "0.6.6",
        ),
        LibraryScore(
            "tumult-quantile",
            "Tumult Core's NoisyQuantile (q = 1/4) over [0, 100]: −|rank − q·n|, symmetric difference",
            tumult_quantile_score, values, interval, Neighbours.ADD_REMOVE, sympy.Rational(3, 4),
            "PROVED", "Δq = max(q, 1 − q) = 3/4, tight",
            "Tumult Core", "src/tmlt/core/measurements/pandas_measurements/series.py (_select_quantile_interval)", "main at 01da7ba",
        ),
        LibraryScore(
            "jointexp-swap",
            "dp_multiq's JointExp for one quantile (q = 1/4), swap neighbours: sensitivity 2",
            jointexp_utility, values, interval, Neighbours.REPLACE_ONE, sympy.Integer(2),
            "PROVED", "Δq = 2, tight: both gaps move by one",
            "google-research dp_multiq", "dp_multiq/joint_exp.py (compute_log_phi)", "main at 1d4d2f1",
        ),
        LibraryScore(
            "jointexp-add-remove",
            "dp_multiq's JointExp for one quantile (q = 1/4), add-remove: sensitivity 2·(1 − min(q, 1 − q))",
            jointexp_utility, values, interval, Neighbours.ADD_REMOVE, sympy.Rational(3, 2),
            "PROVED", "Δq = 3/2, tight",
            "google-research dp_multiq", "dp_multiq/joint_exp.py (compute_log_phi)", "main at 1d4d2f1",
        ),
        LibraryScore(
            "inverse-sensitivity-median",
            "the inverse-sensitivity median over 0..100: minus the records to change for the median to be r, from sorted data",
            inverse_sensitivity_median, counts, OutputSpace(r=CANDIDATES), Neighbours.REPLACE_ONE, sympy.Integer(1),
            "PROVED", "Δq = 1, tight (also under add-remove)",
            "Asi & Duchi, NeurIPS 2020", "the inverse-sensitivity mechanism's definition", "paper",
        ),
        LibraryScore(
            "inverse-sensitivity-median-add-remove",
            "the inverse-sensitivity median under add-remove: the median index len(xs) // 2 moves with n",
            inverse_sensitivity_median, counts, OutputSpace(r=CANDIDATES), Neighbours.ADD_REMOVE, sympy.Integer(1),
            "PROVED", "Δq = 1, tight (the joint encoding: the floor of n/2 and the counts at once)",
            "Asi & Duchi, NeurIPS 2020", "the inverse-sensitivity mechanism's definition", "paper",
        ),
        LibraryScore(
            "mwem-selection",
            "MWEM's query selection (first round) over a histogram of 8 bins and 5 range queries",
            smartnoise_mwem_error, RecordSchema(x=IntRange(0, BINS - 1)), OutputSpace(r=IntRange(0, len(QUERY_LOW) - 1)), Neighbours.REPLACE_ONE,
            sympy.Integer(1), "PROVED", "Δq = 1, tight",
            "SmartNoise Synth", "synth/snsynth/mwem.py (MWEMSynthesizer._exponential_mechanism)", "main",
        ),
        LibraryScore(
            "top-1-count",
            "the most frequent category by report-noisy-max over counts of 4 categories",
            count_by_category, RecordSchema(x=Categories(CATEGORY_LABELS)), OutputSpace(r=Categories(CATEGORY_LABELS)), Neighbours.ADD_REMOVE,
            sympy.Integer(1), "PROVED", "Δq = 1, tight; monotone, so ε = ε₀·Δq",
            "OpenDP", "rust/src/transformations/count (make_count_by_categories)", "0.16",
        ),
        LibraryScore(
            "parameter-tuning",
            "hyperparameter selection by the exponential mechanism: minus the total loss, per-record losses in [0, 1]",
            hyperparameter_score, RecordSchema(loss1=RationalRange(0, 1), loss2=RationalRange(0, 1), loss3=RationalRange(0, 1)),
            OutputSpace(r=IntRange(1, 3)), Neighbours.REPLACE_ONE, sympy.Integer(1), "PROVED", "Δq = 1, tight",
            "Chaudhuri & Vinterbo, NeurIPS 2013", "the selection step of private hyperparameter tuning", "paper",
        ),
        LibraryScore(
            "privbayes-r-score",
            "PrivBayes's R score of three candidate attribute–parent pairs over three binary attributes",
            privbayes_r_score, RecordSchema(a=Booleans(), b=Booleans(), c=Booleans()), OutputSpace(r=IntRange(0, 2)), Neighbours.REPLACE_ONE,
            3 / n + 2 / n**2, "BOUNDED",
            "not proved: the score multiplies counts (P(x)·P(π)), for which no rule lifts a bound; the published bound holds on every "
            "dataset of at most three records (checked exhaustively)",
            "PrivBayes (Zhang et al., TODS 2017)", "the R function (its sensitivity lemma)", "paper",
        ),
    )


#: The library scores, as plain Python, with their published sensitivities and the verdicts expmech reaches.
LIBRARY_CATALOGUE: tuple[LibraryScore, ...] = _entries()
