"""ragviz: review LLM-judge labels of RAG answers. Run with `make run` (or `streamlit run app.py`)."""

import streamlit as st

from ragviz.ui.core.access import sidebar
from ragviz.ui.core.favicon import favicon
from ragviz.ui.core.present import present_toggle
from ragviz.ui.core.render import theme_css

# the tab icon from the app itself: with none, Streamlit fetches the page's :material/…: icon from fonts.gstatic.com
st.set_page_config(page_title="ragviz", layout="wide", page_icon=favicon())

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
page = st.navigation(pages)
st.html(theme_css())  # the app's few colour rules (a style-only block takes no space)
sidebar()
present_toggle()
page.run()
