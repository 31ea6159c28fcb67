"""The sidebar's page list as app.py draws it on every page (ragviz/ui/core/page_nav.py, issue 38): every page of the
app in order with its icon and URL, the page shown marked, presentation mode carried in the links while it is on.
Clicking (a browser's trigger) is tested in tests/browser/test_page_nav.py."""

from __future__ import annotations

import pytest

from tests.apptest_helpers import component_data, open_page

pytestmark = pytest.mark.usefixtures("app_env")

TITLES = ["Home", "Data", "Review", "Export", "Label", "Judge", "Dashboard", "Explainer", "Compare", "Claims", "Team"]


def _links(at) -> list[dict]:
    for element in at.get("bidi_component"):
        data = component_data(element.proto)
        if "links" in data:
            return data["links"]
    raise AssertionError("no page list on the page")


def test_every_page_is_listed_with_its_icon_and_url_and_the_page_shown_is_marked():
    links = _links(open_page("pages/export.py"))
    assert [link["title"] for link in links] == TITLES
    assert [link["title"] for link in links if link["current"]] == ["Export"]
    by_title = {link["title"]: link for link in links}
    assert by_title["Home"]["href"] == "/" and by_title["Home"]["icon"] == "home"
    assert by_title["Review"]["href"] == "/review" and by_title["Review"]["icon"] == "fact_check"
    assert all(link["icon"] for link in links)  # every page has a Material glyph, none drawn as its name


def test_while_presenting_every_link_keeps_presentation_mode():
    links = _links(open_page("pages/home.py", present="1"))
    assert {link["href"] for link in links} == {f"/{link['path']}?present=1" for link in links}
    assert [link["title"] for link in links if link["current"]] == ["Home"]
