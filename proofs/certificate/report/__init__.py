"""Human reports of a certificate: :mod:`._report` renders the Markdown and self-contained HTML pages from the
Jinja2 templates in ``templates/`` and the plain data :mod:`._report_model` works out of the certificate alone;
:mod:`._report_plot` draws the recorded witness (with matplotlib, when it is installed); :mod:`._claims` decodes
a certificate's recorded witnesses and counterexamples for display.  ``expmech certify`` writes a report beside
each certificate; nothing here is needed to make or check one.
"""

__all__: list[str] = []
