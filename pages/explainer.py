"""Explainer: what each number means on one example — every formula filled with the sentences it counts,
the judge's labels next to the human's."""

import streamlit as st

from ragviz.analysis.compare import (
    HUMAN,
    JUDGE,
    human_labels,
    judge_labels,
    label_set_names,
)
from ragviz.analysis.dashboard import ANSWER, RETRIEVAL, TONIC, families_present
from ragviz.analysis.explain import (
    answer_explanation,
    retrieval_explanations,
    tonic_explanation,
)
from ragviz.analysis.review import document_spans, response_spans
from ragviz.metrics.retrieval import DEFAULT_KS
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui import render, state
from ragviz.ui.explainer import (
    answer_html,
    delta_html,
    formula_html,
    formula_terms,
    retrieval_html,
    tonic_html,
    venn_html,
)
from ragviz.ui.picker import matching_rows, picker_options
from ragviz.ui.state import require_app_shell

require_app_shell()

page = state.require_data()
ds, store, present = page.dataset, page.store, page.present
INDEX = "explainer.index"

link = st.query_params.get("uid")
if link and ds.index_of(link) is not None and link != st.session_state.get("explainer.link"):
    st.session_state["explainer.link"] = link
    st.session_state[INDEX] = ds.index_of(link)
if not (isinstance(st.session_state.get(INDEX), int) and 0 <= st.session_state[INDEX] < len(ds)):  # new or other data
    st.session_state.pop(INDEX, None)
if INDEX not in st.session_state:
    review_index = st.session_state.get("review.index")
    st.session_state[INDEX] = review_index if isinstance(review_index, int) and 0 <= review_index < len(ds) else 0

NUMBER, SEARCH = "explainer.number", "explainer.search"


@st.cache_resource(show_spinner=False, max_entries=32)
def _matches(paths: tuple[str, ...], query: str) -> tuple[list[int], int]:
    return matching_rows(state.load_result(paths).dataset.uids, query)


def go_to_number() -> None:
    st.session_state[INDEX] = st.session_state[NUMBER] - 1


st.session_state[NUMBER] = st.session_state[INDEX] + 1  # follows the picker and deep links
st.title("What the numbers mean")
number_col, search_col, pick_col, who_col = st.columns([0.12, 0.24, 0.39, 0.25])
number_col.number_input("Example #", min_value=1, max_value=len(ds), step=1, key=NUMBER, on_change=go_to_number)
query = search_col.text_input("Find by uid", key=SEARCH, placeholder="part of dataset/id/model")
matches, n_matches = _matches(state.current_paths(), query) if query.strip() else (None, 0)
with pick_col:
    index = st.selectbox(
        "Example",
        picker_options(st.session_state[INDEX], len(ds), matches),
        format_func=lambda i: f"{i + 1}. {ds.uids[i]}",
        key=INDEX,
    )
    if matches is not None:
        st.caption(
            f"{n_matches:,} match(es)" + (f", first {len(matches):,} listed" if n_matches > len(matches) else "")
        )
with who_col:
    names = [n for n in label_set_names(store) if n != JUDGE]
    other = st.selectbox("Compare the judge with", names, key="explainer.other")
ex = ds.example(index)
if st.query_params.get("uid") != ex.uid:
    st.query_params["uid"] = ex.uid
st.session_state["explainer.link"] = ex.uid  # our own URL update is not a new deep link

judge = judge_labels(ex, store)
human, decider = human_labels(ex, store, None if other == HUMAN else other)
human_title = f"Human said ({decider})" if decider else "Human said (nobody has reviewed this example: judge's labels)"
if human is None:
    human = judge

st.html(render.text_block_html("Question", ex.question))
if not present:
    st.page_link(
        "pages/review.py",
        label="Open this example on the Review page",
        query_params={"uid": ex.uid},
        icon=":material/edit:",
    )

if judge is None and human is None:
    st.warning(
        "This example is unlabeled: there is nothing to explain yet. Label it with the judge or on the Review page."
    )
    st.stop()

left, right = st.columns(2, gap="large")
left.subheader("Judge said")
right.subheader(human_title)
judge_terms = {t.metric: t for t in formula_terms(ex, judge)}
human_terms = {t.metric: t for t in formula_terms(ex, human)}
for metric in TRACE_METRICS:
    j, h = judge_terms.get(metric), human_terms.get(metric)
    with left:
        if j is not None:
            st.html(formula_html(j))
    with right:
        if h is not None:
            change = delta_html(j.value if j else None, h.value)
            st.html(
                formula_html(h)
                + (
                    f'<div style="font-size:0.85rem;margin:-6px 0 10px 0">change vs judge: {change}</div>'
                    if change
                    else ""
                )
            )

st.subheader("Relevant and utilized sentences")
left, right = st.columns(2, gap="large")
left.html(venn_html(ex, judge, "judge"))
right.html(venn_html(ex, human, "human"))

st.subheader("Response sentences and their support")
left, right = st.columns(2, gap="large")
left.html(render.response_html(response_spans(ex, judge)))
right.html(render.response_html(response_spans(ex, human)))

# -- the other metric families -------------------------------------------------------------------------
families = families_present({index: ex})


def judge_and_human_columns():
    """Two columns titled like the TRACe ones above (the human title names a person: escaped)."""
    left, right = st.columns(2, gap="large")
    left.html('<div style="font-weight:600">Judge said</div>')
    right.html(f'<div style="font-weight:600">{render.esc(human_title)}</div>')
    return left, right


if TONIC in families:
    st.subheader("Tonic Validate")
    st.caption(
        "A chunk is one retrieved document: relevant / used when any of its sentences is, unless chunk labels are set "
        "in the data or by a person. overall = mean of the computed values, answer_similarity / 5."
    )
    left, right = judge_and_human_columns()
    left.html(tonic_html(tonic_explanation(ex, judge)))
    right.html(tonic_html(tonic_explanation(ex, human)))

if RETRIEVAL in families:
    st.subheader("Retrieval")
    if present:
        k = st.session_state.get("explainer.k", DEFAULT_KS[0])
    else:
        k = st.columns([0.2, 0.8])[0].selectbox(
            "Cut-off k", DEFAULT_KS, key="explainer.k", help="MRR, Recall@k, Precision@k and nDCG@k at this k."
        )
    st.caption(
        "Each system's ranked ids (an id listed twice counts once, at its first rank); ✓ = in the gold list (grade ≥ 1)."
    )
    left, right = judge_and_human_columns()
    for column, labels in ((left, judge), (right, human)):
        explanations = retrieval_explanations(ex, labels, k)
        if not explanations:
            column.caption("No gold list for this example: retrieval is not scored.")
        for expl in explanations:
            column.html(retrieval_html(expl))

if ANSWER in families:
    st.subheader("Answer EM / F1")
    st.caption(
        "The response against the reference answer(s); these do not depend on any label, so judge and human agree."
    )
    st.html(answer_html(answer_explanation(ex)))

with st.expander("The context, with the human's labels", expanded=False):
    st.html(render.legend_html())
    for d, spans in enumerate(document_spans(ex, human)):
        st.html(render.document_html(d, spans))
