"""ragviz: review LLM-judge labels of RAG answers. Run with `make run` (or `streamlit run app.py`).

`streamlit run app.py` first imports this file as the server's `st.App` (no session is running: the
first branch), whose start-up hook warms the process up before it serves (`ragviz.ui.startup`);
then every session runs it as its script (the second branch: `st.navigation` over the pages)."""

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

if get_script_run_ctx(suppress_warning=True) is None:  # the server starting up
    from ragviz.ui.startup import lifespan

    app = st.App(__file__, lifespan=lifespan)
else:
    from ragviz.ui.access import sidebar
    from ragviz.ui.present import present_toggle
    from ragviz.ui.render import theme_css

    st.set_page_config(page_title="ragviz", layout="wide")

    pages = [
        st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
        st.Page("pages/data.py", title="Data", icon=":material/folder_open:"),
        st.Page("pages/review.py", title="Review", icon=":material/fact_check:"),
        st.Page("pages/export.py", title="Export", icon=":material/download:"),
        st.Page("pages/label.py", title="Label", icon=":material/smart_toy:"),
        st.Page("pages/dashboard.py", title="Dashboard", icon=":material/monitoring:"),
        st.Page("pages/explainer.py", title="Explainer", icon=":material/school:"),
        st.Page("pages/compare.py", title="Compare", icon=":material/difference:"),
        st.Page("pages/claims.py", title="Claims", icon=":material/checklist:"),
    ]
    page = st.navigation(pages)
    st.html(theme_css())  # the app's few colour rules (a style-only block takes no space)
    sidebar()
    present_toggle()
    page.run()
