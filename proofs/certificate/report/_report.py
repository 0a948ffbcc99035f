"""Human reports for certificates: a styled, self-contained HTML page and a Markdown file, rendered with Jinja2.

The page shows the verdict and ε, the quality function as MathML, Δq and how
it was proved, the domains, the neighbour relation, ε₀ and ε (evaluated at
the plotted n when it depends on n), every claim with its status and an
explanation ("Witness" or "Counterexample" as the case is), the plots, the
digests, the tool versions and the report's date.  It loads nothing from the
network: the style is inline, the formula is MathML, the plot a data URI.
"""

from __future__ import annotations

import base64
import datetime
from functools import lru_cache
from pathlib import Path

import jinja2

from ..._files import write_atomically
from ..make._build import Certificate
from ._report_model import report_model
from ._report_plot import plot_png, witness_series

__all__ = ["render_report", "write_report"]


@lru_cache(maxsize=1)
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("expmech.proofs.certificate.report", "templates"),
        autoescape=jinja2.select_autoescape(enabled_extensions=("html.j2",), default_for_string=False),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_report(
    certificate: Certificate, stem: str, *, title: str | None = None, now: datetime.datetime | None = None
) -> tuple[str, str, bytes | None]:
    """The Markdown text, the HTML page and the plot's PNG (None without a plot) for ``certificate``.

    ``stem`` names the files the texts refer to (``stem.cert.json``, ``stem.png``); ``title`` the mechanism.
    """
    model = report_model(certificate, title=title, now=now)
    series = witness_series(certificate, epsilon_label=model.epsilon_label, epsilon_at_n=model.epsilon_at_n)
    png = plot_png(series) if series is not None else None
    sensitivity = next((c for c in model.claims if c.id == "sensitivity"), None)
    pair_label = (sensitivity.pair_label if sensitivity is not None else None) or "Witness"
    if png is not None:
        plot_note = None
    elif series is not None:
        plot_note = "Install matplotlib for the plot of the distribution and the privacy loss: pip install matplotlib."
    else:
        plot_note = "No plot: the certificate records no pair of neighbouring datasets of a spec-language quality to draw."
    values = {"m": model, "pair_label": pair_label, "plot_note": plot_note, "certificate_file": f"{stem}.cert.json"}
    environment = _environment()
    markdown = environment.get_template("report.md.j2").render(image_file=f"{stem}.png" if png else None, **values)
    page = environment.get_template("report.html.j2").render(image=base64.b64encode(png).decode() if png else None, **values)
    return markdown, page, png


def write_report(certificate: Certificate, directory: Path, stem: str, *, title: str | None = None) -> tuple[Path, Path]:
    """Write ``stem.md`` and ``stem.html`` (plus ``stem.png`` when matplotlib is installed) atomically; return both report paths."""
    markdown, page, png = render_report(certificate, stem, title=title)
    if png is not None:
        write_atomically(directory / f"{stem}.png", png)
    return write_atomically(directory / f"{stem}.md", markdown), write_atomically(directory / f"{stem}.html", page)
