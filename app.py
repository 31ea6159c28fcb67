"""ragviz: review LLM-judge labels of RAG answers. Run with `make run` (or `streamlit run app.py`)."""

import streamlit as st

from ragviz.ui.state import sidebar

st.set_page_config(page_title="ragviz", page_icon="🔎", layout="wide")

pages = [
    st.Page("pages/data.py", title="Data", icon="📂", default=True),
    st.Page("pages/review.py", title="Review", icon="✅"),
    st.Page("pages/export.py", title="Export", icon="📤"),
]
page = st.navigation(pages)
sidebar()
page.run()
