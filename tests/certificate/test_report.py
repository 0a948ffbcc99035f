"""Certificate reports: self-contained styled HTML and Markdown that say every claim, with ε said one way everywhere."""

import datetime
import html.parser
import json
import re
import shutil
import subprocess
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from expmech.impl import CATALOGUE, POSTERIOR_CATALOGUE, RANGE_CATALOGUE, WRONG_CATALOGUE
from expmech.proofs import certify
from expmech.proofs.certificate.report._report import render_report, write_report
from expmech.spec import DATASET_SIZE, QualityError
from strategies import quality_functions

NOW = datetime.datetime(2026, 1, 2, 3, 4, tzinfo=datetime.timezone.utc)
ENTRIES = CATALOGUE + WRONG_CATALOGUE + POSTERIOR_CATALOGUE + RANGE_CATALOGUE


class _Page(html.parser.HTMLParser):
    """Collects the resources a page would load and the text of labelled elements."""

    def __init__(self):
        super().__init__()
        self.resources, self.tags, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name in ("src", "href", "data", "poster", "srcset") and value:
                self.resources.append(value)

    def handle_data(self, data):
        self.text.append(data)


def parse(page):
    parser = _Page()
    parser.feed(page)
    parser.close()
    return parser


def _certificate(entry):
    return certify(entry.quality, epsilon=entry.epsilon, neighbours=entry.neighbours, claimed=entry.claimed_sensitivity,
                   base_measure=getattr(entry, "base_measure", None), **({"auction": entry.auction} if getattr(entry, "auction", None) else {}))


class _Reports(dict):
    """A catalogue entry's certificate and its rendered report, made on first use."""

    def __missing__(self, name):
        entry = next(e for e in ENTRIES if e.name == name)
        certificate = _certificate(entry)
        self[name] = (certificate, *render_report(certificate, name, title=name, now=NOW))
        return self[name]


@pytest.fixture(scope="module")
def reports():
    """The catalogue entries' certificates and reports, each made when a test first asks for it."""
    return _Reports()


#: One entry of each kind runs by default (finite PROVED under either relation, an auction, synthetic data, REFUTED,
#: a posterior, a continuous and a countable range); every entry runs with -m slow.
DEFAULT_REPORTS = {"median", "mode-add-remove", "auction-price", "synthetic-data", "median-half", "signed-mean-add-remove",
                   "posterior-bernoulli", "median-interval", "count-geometric-measure"}


def check_report(certificate, markdown, page, png, *, title):
    """The properties every report has, whatever its certificate."""
    predicate = certificate.statement["predicate"]
    parsed = parse(page)
    text = " ".join(" ".join(parsed.text).split())
    # self-contained and styled: nothing to fetch, inline style, MathML formula
    assert all(r.startswith("data:") or r.startswith("#") for r in parsed.resources), parsed.resources
    assert "@import" not in page and "url(" not in page and "<script" not in page
    assert "style" in parsed.tags and "math" in parsed.tags
    # the verdict, every claim with its status and explanation
    assert f"{title} {predicate['status']}" in text
    for claim in predicate["claims"]:
        assert f'id="claim-{claim["id"]}"' in page and claim["status"] in markdown
    sensitivity = next(c for c in predicate["claims"] if c["id"] == "sensitivity")
    has_counterexample = bool(sensitivity.get("counterexample") or sensitivity.get("ratio_counterexample"))
    assert ("Counterexample" in text) == (has_counterexample or any(c.get("counterexample") for c in predicate["claims"] if c["id"] == "monotonicity"))
    if has_counterexample:
        assert "Witness" not in re.sub(r"the witness pair", "", text.split("Global sensitivity")[1].split("Monotonicity")[0])
    # domains, neighbours, ε₀, tools, date, digest
    assert predicate["mechanism"]["neighbours"] in text and f"ε₀ = {predicate['mechanism']['epsilon0']}" in text
    for name, _ in predicate["quality"]["schema"]:
        assert f"{name} ∈" in text
    assert "2026-01-02 03:04 UTC" in text and certificate.digest in text and f"z3 {predicate['tools']['z3']}" in text
    # ε said one way: the headline, the facts, Markdown; at the plotted n when it depends on n
    if predicate["dp_claim"]:
        assert f"ε = {predicate['epsilon']}" in text and f"ε = {predicate['epsilon']}" in markdown
        epsilon = sympy.sympify(predicate["epsilon"], locals={"n": DATASET_SIZE})
        pair = sensitivity.get("witness") or sensitivity.get("counterexample")
        if DATASET_SIZE in epsilon.free_symbols and pair:
            at = epsilon.subs(DATASET_SIZE, pair["size"])
            label = f"certified ε at n = {pair['size']}: {at}"
            assert label in text and label in markdown
    else:
        assert "No ε-DP claim" in text and "no ε is certified" in text
    if png is not None:
        assert png[:4] == b"\x89PNG" and "data:image/png;base64," in page


@pytest.mark.parametrize("name", [pytest.param(e.name, marks=() if e.name in DEFAULT_REPORTS else pytest.mark.slow) for e in ENTRIES])
def test_catalogue_reports(reports, name):
    """Each catalogue, wrong-catalogue and posterior certificate gets a report with every required part."""
    certificate, markdown, page, png = reports[name]
    check_report(certificate, markdown, page, png, title=name)


def test_a_refuted_report_says_counterexample(reports):
    """A REFUTED sensitivity is shown as a Counterexample with |q(D, r) − q(D', r)| = d > claim, never as a Witness."""
    _, markdown, page, _ = reports["median-half"]
    assert "**Counterexample:** `|q(D, r) − q(D', r)| = 1 > 1/2 at D = [1, 1], D' = [0, 1], r = 0`" in markdown
    assert '<span class="label">Counterexample</span>' in page


def test_the_synthetic_data_report_states_one_epsilon(reports):
    """ε = 1/n, and at the plotted pair's n = 1 it is 1: the text and the plot say the same (the issue's 1/n vs 1)."""
    _, markdown, page, _ = reports["synthetic-data"]
    assert "ε = 1/n" in markdown and "certified ε at n = 1: 1" in markdown and "certified ε at n = 1: 1" in page


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(quality_functions(finite=True), st.sampled_from(["replace-one", "add-remove"]), st.sampled_from([Fraction(1, 2), Fraction(1, 3), 1]))
def test_generated_certificates_get_complete_reports(quality, neighbours, epsilon):
    """Any quality function of the language: the report is self-contained and says every claim, whatever the verdict."""
    try:
        certificate = certify(quality, epsilon=epsilon, neighbours=neighbours, pairs=2, rlimit=20_000, search_budget=2_000)
    except QualityError:  # a partial quality (the generator draws them on purpose) gets no certificate to report
        reject()
    markdown, page, png = render_report(certificate, "generated", title="generated", now=NOW)
    check_report(certificate, markdown, page, png, title="generated")


def test_reports_are_written_atomically(tmp_path, reports):
    """write_report writes the three files, no temporary file remains, and the Markdown links the PNG."""
    certificate = reports["median"][0]
    md, page = write_report(certificate, tmp_path, "median", title="median")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["median.html", "median.md", "median.png"]
    assert "![" in md.read_text() and "(median.png)" in md.read_text() and page.read_text().startswith("<!doctype html>")


def _browser():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


PROBE = """
<script>
window.addEventListener("load", () => {
  const math = document.querySelector("math").getBoundingClientRect();
  const image = document.querySelector("figure img");
  const style = getComputedStyle(document.querySelector("header.verdict"));
  document.title = JSON.stringify({math: math.width, image: image ? image.naturalWidth : -1,
    border: style.borderLeftWidth, badge: getComputedStyle(document.querySelector(".badge")).backgroundColor});
});
</script>
"""


@pytest.mark.slow
@pytest.mark.skipif(_browser() is None, reason="no headless Chromium installed")
@pytest.mark.parametrize("name", ["median", "median-half", "posterior-bernoulli", "median-interval"])
def test_the_report_renders_in_a_real_browser(tmp_path, reports, name):
    """Headless Chromium, offline: the MathML formula lays out, the inline plot decodes, the style applies."""
    certificate, _, page, png = reports[name]
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", PROBE + "</body>"), encoding="utf-8")
    command = [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=5000", "--dump-dom", probe.as_uri()]
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    title = re.search(r"<title>(.*?)</title>", dom, flags=re.S).group(1)
    measured = json.loads(title.replace("&quot;", '"'))
    assert measured["math"] > 50 and measured["border"] == "8px"
    assert measured["image"] > 100 if png is not None else measured["image"] == -1
    assert measured["badge"] != "rgba(0, 0, 0, 0)"
    shot = tmp_path / "shot.png"
    subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1000,1400",
                    f"--screenshot={shot}", probe.as_uri()], capture_output=True, timeout=120)
    assert shot.read_bytes()[:4] == b"\x89PNG" and shot.stat().st_size > 20_000
