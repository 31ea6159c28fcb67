"""ragviz: review LLM-judge labels of RAG answers. Run with `make run` (`ragviz app`: `streamlit run serve.py`, this script
as an st.App); `streamlit run app.py` serves it too, without serve.py's quicker HTML page."""

import streamlit as st

from ragviz.ui.core.access import sidebar
from ragviz.ui.core.component_files import SERVED
from ragviz.ui.core.favicon import favicon_url
from ragviz.ui.core.page_keys import PAGE_KEYS_HTML
from ragviz.ui.core.page_nav import page_nav, page_query
from ragviz.ui.core.present import CORRECTIONS_PAGES, is_present, present_toggle
from ragviz.ui.core.render import theme_css
from ragviz.ui.core.retry import unsaved_banner
from ragviz.ui.core.served import hide_error_details
from ragviz.ui.core.shell import store_faults
from ragviz.ui.core.unsaved import pending
from ragviz.ui.review import editor_files, toolbar
from ragviz.ui.review.actions import return_query

# the tab icon from the app itself: with none, Streamlit fetches the page's :material/…: icon from fonts.gstatic.com
st.set_page_config(page_title="ragviz", layout="wide", page_icon=favicon_url())
st.set_option("client.disableDataExport", True)  # tables' CSV download is unguarded: ragviz's own are guarded

pages = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/data.py", title="Data", icon=":material/folder_open:"),
    st.Page("pages/review.py", title="Review", icon=":material/fact_check:"),
    st.Page("pages/export.py", title="Export", icon=":material/download:"),
    st.Page("pages/label.py", title="Label", icon=":material/smart_toy:"),
    st.Page("pages/judge.py", title="Judge", icon=":material/model_training:"),
    st.Page("pages/dashboard.py", title="Dashboard", icon=":material/monitoring:"),
    st.Page("pages/explainer.py", title="Explainer", icon=":material/school:"),
    st.Page("pages/compare.py", title="Compare", icon=":material/difference:"),
    st.Page("pages/claims.py", title="Claims", icon=":material/checklist:"),
    st.Page("pages/team.py", title="Team", icon=":material/groups:"),
]
# the page list is ragviz's own, one element first in the sidebar: Streamlit's re-rendered ~780 components a J (issue 38)
page = st.navigation(pages, position="hidden")
early = None  # Review's first element, which also carries the theme and the page's keys below (issue 38)
if page.url_path == "review":  # its keys listen, and its components' scripts load, from its first element (issue 38)
    files = editor_files.served_paths(SERVED)
    early = toolbar.listen_early(not is_present(), files, also=theme_css() + PAGE_KEYS_HTML)
# after Review's early element (drawn first, it starts the scripts' preloads: a warm Review ~0.2 s sooner, issue 38)
if (chosen := page_nav(pages, page)) is not None:  # a plain click on a link: that page, in this same session
    # Review opens at the example the session shows, its query in the switch's own URL (one history entry)
    back = return_query() if chosen.url_path == "review" else {}
    st.switch_page(chosen, query_params=page_query(is_present()) | back)
hide_error_details()  # served: no traceback, path or SQL in a browser
# the app's few colour rules and the page's keyboard script (a disclosure's aria-expanded, the focus back on a redrawn
# sidebar button): one hidden element, constant text of ragviz's own
if early is None:  # (on Review one element fewer: main's block re-renders each child on every commit of a J)
    st.html(theme_css() + PAGE_KEYS_HTML, unsafe_allow_javascript=True)
shown = unsaved_banner()  # clicks the database did not take: "Not saved: ... retry" and Retry
try:
    with store_faults():  # the database unavailable: one calm message, never a traceback
        sidebar()
        present_toggle(corrections=page.url_path in CORRECTIONS_PAGES)  # and "Show corrections" under it
        page.run()
finally:  # a click this run could not store (a sentence click is stored inside the page): say so now
    if len(pending()) > shown:
        st.rerun()
