"""The framework's floor for the Review page (``bench_floor.py``): a bare Streamlit page with a title, one
``st.html`` block of an example's sentences (question, context documents, response; escaped) and a button
(shortcut J) that shows the next example. The examples come from the JSON file named by ``FLOOR_EXAMPLES``
(written by ``bench_floor.py`` from the same data ragviz serves), so the page loads nothing else.

    FLOOR_EXAMPLES=/tmp/x.json streamlit run benchmarks/floor_page.py
"""

from __future__ import annotations

import html
import json
import os

import streamlit as st

__all__: list[str] = []


@st.cache_resource
def _examples(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _block(row: int, example: dict) -> str:
    docs = "".join(
        f"<p><b>Document {d}</b> "
        + " ".join(f'<span data-k="{html.escape(k)}">{html.escape(text)}</span>' for k, text in doc)
        + "</p>"
        for d, doc in enumerate(example["docs"])
    )
    response = " ".join(
        f'<span data-k="{html.escape(k)}">{html.escape(text)}</span>' for k, text in example["response"]
    )
    return (
        f'<div class="floor" data-row="{row}"><p><b>Question</b> {html.escape(example["question"])}</p>'
        f"{docs}<p><b>Response</b> {response}</p></div>"
    )


examples = _examples(os.environ["FLOOR_EXAMPLES"])
st.session_state.setdefault("row", 0)
st.title("Floor")
if st.button("Next ▶", shortcut="J"):
    st.session_state.row = (st.session_state.row + 1) % len(examples)
st.html(_block(st.session_state.row, examples[st.session_state.row]))
