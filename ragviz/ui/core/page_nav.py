"""ragviz's own page navigation, first in the sidebar on every page: one ``st.components.v2`` element (``page_nav/``:
``page_nav.js``, ``page_nav.css``) where Streamlit's page list was ~780 components re-rendered on every J of the
Review page (issue 38: Streamlit re-renders every block of its app tree once per React commit; a leaf element is
memoised). A ``<nav aria-label="Pages">`` of real links (each page's URL: a middle-click, a modified click or "copy
link" opens that page in a new tab), each with its Material icon and title, the current page marked
``aria-current="page"``. A plain click (or Enter) comes back as the trigger ``go`` (the page's URL path) and app.py
switches to that page in the same session (:func:`page_nav` returns it) as Streamlit's own links do.

The script and styles are sent inline, not served through the manifest: a served file is one more JS fetch on a cold
first page, and the inline script becomes a ``blob:`` module the browser keeps (the JS is sent again only with a
whole-page run, never with a J: the element sits outside Review's fragment)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.navigation.page import StreamlitPage

from ragviz.ui.core.present import PARAM, is_present

__all__ = ["ASSETS", "KEY", "NAME", "NavLink", "icon_name", "nav_data", "page_href", "page_nav", "page_query"]

ASSETS = Path(__file__).with_name("page_nav")
NAME = "ragviz_page_nav"  # no manifest entry: inline (see the module's docstring)
KEY = "ragviz.page_nav"


@dataclass(frozen=True)
class NavLink:
    """One link of the list: *path* the page's URL path (``""``: the default page), *href* its URL, *icon* the name
    of its Material Symbols glyph (``""``: none), *current* whether it is the page shown."""

    title: str
    icon: str
    path: str
    href: str
    current: bool = False


def icon_name(icon: str) -> str:
    """The Material Symbols glyph of an ``st.Page`` icon (``""`` for an emoji or none: drawn as text then).

    >>> icon_name(":material/fact_check:"), icon_name("")
    ('fact_check', '')
    """
    if icon.startswith(":material/") and icon.endswith(":"):
        return icon[len(":material/") : -1]
    return ""


def page_href(path: str, base_path: str = "", present: bool = False) -> str:
    """The URL of the page at URL path *path* (``""``: the default page, the app's root) under the server's
    *base_path*, with ``?present=1`` while presentation mode is on (the page opened from it keeps presenting).

    >>> page_href("review"), page_href("", "/team/ragviz/"), page_href("data", present=True)
    ('/review', '/team/ragviz/', '/data?present=1')
    """
    parts = [p for p in base_path.strip("/").split("/") if p]
    root = "/" + "".join(f"{p}/" for p in parts)
    return root + path + (f"?{PARAM}=1" if present else "")


def page_query(present: bool) -> dict[str, str]:
    """The query parameters a page switched to from the list opens with: presentation mode's while it is on."""
    return {PARAM: "1"} if present else {}


def nav_data(pages: Sequence[StreamlitPage], current: str, base_path: str = "", present: bool = False) -> dict:
    """What the list draws: one link per page in order, the page at URL path *current* marked."""
    links = [
        NavLink(
            p.title, icon_name(p.icon), p.url_path, page_href(p.url_path, base_path, present), p.url_path == current
        )
        for p in pages
    ]
    return {"links": tuple(dict(vars(link)) for link in links)}


def _lean(text: str, css: bool = False) -> str:
    r"""*text* (the script, or the styles when *css*) without its comments and indentation: it rides inline with every
    whole-page run (~5 KB with them, ~3.6 KB without). Only whole-line ``//`` comments (and the styles' ``/* */``
    blocks) are dropped.

    >>> _lean("/* a\n   b */\n.x { c: d; }", css=True), _lean("  // e\n  f('/*');\n")
    ('.x { c: d; }', "f('/*');")
    """
    if css:
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.DOTALL)
    lines = (line.strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line and not line.startswith("//"))


@functools.cache
def _component() -> Any:
    return st.components.v2.component(
        NAME,
        js=_lean((ASSETS / "page_nav.js").read_text(encoding="utf-8")),
        css=_lean((ASSETS / "page_nav.css").read_text(encoding="utf-8"), css=True),
        isolate_styles=False,  # drawn in the page's own theme and icon font
    )


def page_nav(pages: Sequence[StreamlitPage], current: StreamlitPage) -> StreamlitPage | None:
    """Draw the list in the sidebar (*current* marked) and return the page of *pages* a plain click just chose
    (``None``: no click this run, or the page shown); the caller switches to it with ``st.switch_page``."""
    present = is_present()
    data = nav_data(pages, current.url_path, str(st.get_option("server.baseUrlPath") or ""), present)
    with st.sidebar:
        result = _component()(key=KEY, data=data, on_go_change=lambda: None)
    chosen = getattr(result, "go", None)
    if not isinstance(chosen, str) or chosen == current.url_path:
        return None
    return next((p for p in pages if p.url_path == chosen), None)
