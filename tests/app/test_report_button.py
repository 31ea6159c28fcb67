"""Issue 27 in the app: "Download report" on the Dashboard and the Explainer for admins and annotators, for
viewers too when the app is not served, never on a projector someone chose (presentation mode); the file it
gives is the one ``ragviz report`` writes."""

from __future__ import annotations

import pytest

from ragviz.analysis.labelsets.selection import HUMAN
from ragviz.data.load import load
from ragviz.export.report import ReportRequest, report_bytes
from ragviz.ui.core import report
from tests.apptest_helpers import open_page, open_page_as
from tests.sample import SAMPLE_DATA

PAGES = ("pages/dashboard.py", "pages/explainer.py")
LEAD, ANA, GUEST = "lead@example.org", "ana@example.org", "guest@example.org"


def _labels(at) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


@pytest.mark.parametrize("page", PAGES)
def test_locally_the_report_is_offered(app_env, page):
    assert "Download report" in _labels(open_page(page))


@pytest.mark.parametrize("page", PAGES)
def test_a_local_viewer_downloads_it_too(app_env, monkeypatch, page):
    monkeypatch.setenv("RAGVIZ_ANNOTATORS", "somebody-else")  # "tester" at this machine is a viewer
    at = open_page(page)
    assert "Download report" in _labels(at)
    assert not [b for b in _labels(at) if b in ("PNG", "SVG")]  # the viewer's presentation hides the rest


@pytest.mark.parametrize(("email", "offered"), [(LEAD, True), (ANA, True), (GUEST, False)])
def test_served_only_those_who_review_get_it(app_env, monkeypatch, email, offered):
    for name, value in {"RAGVIZ_SERVED": "1", "RAGVIZ_ADMINS": LEAD, "RAGVIZ_ANNOTATORS": ANA}.items():
        monkeypatch.setenv(name, value)
    for page in PAGES:
        assert ("Download report" in _labels(open_page_as(page, email))) == offered, (page, email)


def test_a_chosen_presentation_shows_no_download(app_env):
    assert "Download report" not in _labels(open_page("pages/dashboard.py", present="1"))


def test_the_button_gives_what_ragviz_report_writes(app_env, monkeypatch):
    at = open_page("pages/dashboard.py")
    assert "Download report" in _labels(at)
    # the button's data: the same function over the same data and store (only its date differs by day)
    monkeypatch.setattr(report, "today", lambda: "2026-11-26")
    from ragviz.ui.core import state

    monkeypatch.setattr(state, "current_paths", lambda: (str(SAMPLE_DATA),))
    from ragviz.store.label_store import LabelStore

    with LabelStore(app_env["db"]) as store:
        monkeypatch.setattr(state, "store", lambda: store)
        monkeypatch.setattr(state, "dataset", lambda: load([SAMPLE_DATA]).dataset)
        built = report._report(HUMAN, "html")()
        request = ReportRequest(
            paths=(str(SAMPLE_DATA),), db=store.location, date="2026-11-26", output="ragviz-report-2026-11-26.html"
        )
        assert built == report_bytes(load([SAMPLE_DATA]).dataset, store, request)
    assert b'<section id="headline">' in built


def test_where_pdf_cannot_be_written_its_button_says_what_to_install(app_env, monkeypatch):
    """Issue 40: without WeasyPrint the PDF button was simply missing; now it is there, disabled, saying why."""
    from ragviz.export.report.build import PDF_INSTALL

    monkeypatch.setattr(report, "pdf_missing", lambda: PDF_INSTALL)
    at = open_page("pages/dashboard.py")
    assert "PDF" not in _labels(at)
    pdf = [b for b in at.button if b.label == "PDF"]
    assert len(pdf) == 1 and pdf[0].disabled and "pip install 'ragviz[pdf]'" in pdf[0].help
    assert any("pip install 'ragviz[pdf]'" in c.value for c in at.caption)


def test_where_pdf_can_be_written_the_button_downloads_it(app_env, monkeypatch):
    monkeypatch.setattr(report, "pdf_missing", lambda: None)
    at = open_page("pages/dashboard.py")
    assert "PDF" in _labels(at) and not [b for b in at.button if b.label == "PDF"]


@pytest.mark.parametrize(("role", "shown"), [("admin", True), ("annotator", False), ("viewer", False)])
def test_only_an_admins_report_says_where_the_store_is(app_env, monkeypatch, role, shown):
    """Issue 34, 9: an annotator's report showed the store's URL under Method and in "Rebuild this report"."""
    from ragviz.store.label_store import LabelStore
    from ragviz.store.roles import Access
    from ragviz.ui.core import access, state

    url = "postgresql://ragviz_app:***@db.internal:5432/labels"
    monkeypatch.setattr(report, "today", lambda: "2026-11-26")
    monkeypatch.setattr(access, "access", lambda: Access(role))
    monkeypatch.setattr(state, "current_paths", lambda: (str(SAMPLE_DATA),))
    with LabelStore(app_env["db"]) as store:
        store.location = url  # as a PostgreSQL store names itself (password masked)
        monkeypatch.setattr(state, "store", lambda: store)
        monkeypatch.setattr(state, "dataset", lambda: load([SAMPLE_DATA]).dataset)
        built = report._report(HUMAN, "html")().decode()
    assert ("db.internal" in built) == shown and ("ragviz_app" in built) == shown
    if not shown:
        assert "where it is: ask an admin" in built
        assert "--db DB" in built
