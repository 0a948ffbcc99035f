"""The report's plot keeps its axes whatever the length of the outputs' labels.

An output of 300 digits as a tick label squeezed both panels to nothing (matplotlib warned that constrained
layout collapsed the axes, and the PNG showed labels only).  Tick labels longer than 15 characters are now
their first and last 7 around "…"; the series, and the report's tables, keep the full text.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from expmech.proofs.certificate.report._report_plot import Series, _tick, plot_png

pytest.importorskip("matplotlib")


@settings(max_examples=4, deadline=None)
@given(
    digits=st.lists(st.integers(1, 400), min_size=2, max_size=12),
    negative=st.booleans(),
)
def test_long_output_labels_leave_the_axes_drawn(digits: list[int], negative: bool) -> None:
    """Outputs of up to 400 digits: the PNG is drawn with no layout warning, every tick label at most 15 characters."""
    labels = [("-" if negative else "") + "9" * d for d in digits]
    n = len(labels)
    series = Series(labels, [1 / n] * n, [1 / n] * n, [0.1] * n, 0.5, "ε at n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        png = plot_png(series)
    assert png is not None and png[:4] == b"\x89PNG"
    assert all(len(_tick(label)) <= 15 for label in labels)


@given(st.text(max_size=40))
def test_a_tick_label_is_the_label_or_its_two_ends(label: str) -> None:
    """Up to 15 characters a tick is the label itself; longer, its first 7 and last 7 characters around "…"."""
    tick = _tick(label)
    if len(label) <= 15:
        assert tick == label
    else:
        assert tick == label[:7] + "…" + label[-7:] and len(tick) == 15
