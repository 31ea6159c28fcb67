"""The stakeholder report: one self-contained HTML file (or PDF) that leads with what people would say, shows how
far the judge can be trusted, then the evidence and the provenance (``ragviz report``, the app's "Download
report"). :mod:`~ragviz.export.report.content` gathers the figures from the analysis floor,
:mod:`~ragviz.export.report.charts` draws them as SVG, :mod:`~ragviz.export.report.html` writes the document,
:mod:`~ragviz.export.report.build` ties them together."""

from ragviz.export.report.build import FORMATS, ReportError, check_date, pdf_unavailable, report_bytes, today
from ragviz.export.report.request import ReportRequest

__all__ = ["FORMATS", "ReportError", "ReportRequest", "check_date", "pdf_unavailable", "report_bytes", "today"]
