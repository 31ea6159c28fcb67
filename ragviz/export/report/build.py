"""Build the stakeholder report: the one function the ``ragviz report`` command and the app's "Download report"
button call (:func:`report_bytes`), and its pieces: the charts of a :class:`~ragviz.export.report.content.ReportContent`
as SVG, the HTML, the PDF through WeasyPrint."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any

import ragviz.export.report.charts as charts
from ragviz.analysis.agreement import BINARY_LABELS
from ragviz.export.report.content import CORRECTED, ReportContent, gather
from ragviz.export.report.html import report_html
from ragviz.export.report.request import ReportError, ReportRequest

if TYPE_CHECKING:
    from ragviz.data.dataset import Dataset
    from ragviz.store.label_store import LabelStore

__all__ = [
    "FORMATS",
    "PDF_INSTALL",
    "pdf_unavailable",
    "ReportError",
    "chart_svgs",
    "check_date",
    "estimate_records",
    "html_report",
    "html_to_pdf",
    "report_bytes",
    "today",
]


FORMATS = ("html", "pdf")
PDF_INSTALL = (
    "PDF needs WeasyPrint: pip install 'ragviz[pdf]' (or pip install weasyprint; and its system libraries, on Debian/Ubuntu: "
    "apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0); or write HTML and print it to PDF "
    "from a browser"
)


def today() -> str:
    """Today's date (UTC) as ``YYYY-MM-DD``: the one date a report states unless it is given."""
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


def check_date(text: str) -> str:
    """*text* if it is a ``YYYY-MM-DD`` date, else :class:`ReportError`."""
    try:
        return _dt.date.fromisoformat(text).isoformat()
    except ValueError:
        raise ReportError(f"--date: expected YYYY-MM-DD, got {text!r}") from None


def estimate_records(content: ReportContent) -> list[dict[str, Any]]:
    """Chart rows of the headline: per metric the judge's mean, and people's and the corrected estimate where the
    audit is large enough to say them (:data:`ragviz.export.report.content.CORRECTED`)."""
    out = []
    for r in content.headline:
        m = content.estimates.overall.metrics.get(r.metric) if content.estimates and r.status == CORRECTED else None
        people = (m.human.estimate, m.human.low, m.human.high) if m is not None else (None, None, None)
        for who, (value, low, high) in zip(
            charts.ESTIMATORS, ((r.judge, None, None), people, (r.estimate, r.low, r.high) if m else (None, None, None))
        ):
            if value is not None:
                out.append({"metric": r.metric, "estimate": who, "value": value, "low": low, "high": high})
    return out


def chart_svgs(content: ReportContent) -> dict[str, str]:
    """Each chart the content has data for, as SVG (ids prefixed by the chart's name)."""
    specs: dict[str, dict[str, Any]] = {}
    records = estimate_records(content)
    if records:
        specs["estimates"] = charts.estimates_spec(records)
    kappas: list[dict[str, Any]] = [
        {"name": label, "value": t.kappa, "low": t.kappa_low, "high": t.kappa_high}
        for label in BINARY_LABELS
        if (t := content.trust.get(label)) is not None and t.kappa is not None and t.kappa_low is not None
    ]
    if kappas:
        lowest = min([0.0, *(float(k["low"] if k["low"] is not None else k["value"]) for k in kappas)])
        specs["kappa"] = charts.interval_spec(kappas, "Cohen's κ (judge vs people)", (lowest, 1), zero=lowest < 0)
    biases: list[dict[str, Any]] = []
    reach = 10.0  # points either side of 0, at least
    for b in content.bias.values():
        if b.bias is not None and b.low is not None and b.high is not None:
            biases.append({"name": b.metric, "value": 100 * b.bias, "low": 100 * b.low, "high": 100 * b.high})
            reach = max(reach, 100 * abs(b.low), 100 * abs(b.high))
    if biases:
        specs["bias"] = charts.interval_spec(biases, "bias (points)", (-reach, reach), zero=True)
    if content.scatter:
        specs["scatter"] = charts.scatter_spec(content.scatter)
    if content.histogram:
        specs["histogram"] = charts.histogram_spec(content.histogram, content.group_title)
    if any(r.get("mean") is not None for r in content.means):
        specs["means"] = charts.means_spec(content.means)
    return {name: charts.to_svg(spec, f"c-{name}") for name, spec in specs.items()}


def html_report(content: ReportContent) -> str:
    """The report of *content* as one HTML document."""
    return report_html(content, chart_svgs(content))


def pdf_unavailable() -> str | None:
    """``None`` when this environment can write PDF, else :data:`PDF_INSTALL` (what to install): asked before
    any work, so a missing WeasyPrint is said at once rather than after the report is built."""
    try:
        import weasyprint  # noqa: F401
    except (ImportError, OSError):  # OSError: the package is there but its system libraries are not
        return PDF_INSTALL
    return None


def html_to_pdf(html: str) -> bytes:
    """*html* as PDF through WeasyPrint (nothing fetched: every URL is refused); :class:`ReportError` saying how
    to install it when it is missing."""
    try:
        import weasyprint
    except (ImportError, OSError):  # OSError: the package is there but its system libraries are not
        raise ReportError(PDF_INSTALL) from None

    def refuse(url: str, *args: Any, **kwargs: Any) -> Any:
        raise ValueError(f"the report fetches nothing ({url})")

    return weasyprint.HTML(string=html, url_fetcher=refuse).write_pdf()


def report_bytes(dataset: Dataset, store: LabelStore | None, request: ReportRequest) -> bytes:
    """The report *request* asks for over *dataset* and the label store *store*, as the file's bytes (HTML in
    UTF-8, or PDF)."""
    if request.format not in FORMATS:
        raise ReportError(f"--format: expected one of {', '.join(FORMATS)}, got {request.format!r}")
    if not request.date:
        raise ReportError("the report needs its date (--date YYYY-MM-DD)")
    html = html_report(gather(dataset, store, request))
    return html_to_pdf(html) if request.format == "pdf" else html.encode("utf-8")
