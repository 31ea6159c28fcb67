"""The Explainer page's pieces: each TRACe formula filled with the sentence keys it counts, a Venn of
the relevant / utilized sets, HTML for them and for the other families' explanations (every data text
escaped), and the renderers that draw them judge next to human, with the example picker.

The values shown are always those of :func:`ragviz.metrics.trace.trace_scores`; the key lists only
show *which* sentences make up the numerator and the denominator of that value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import streamlit as st

from ragviz.analysis.explain import (
    AnswerExplanation,
    RetrievalExplanation,
    TonicExplanation,
)
from ragviz.analysis.labelsets.selection import LabelSelection
from ragviz.analysis.review.edits import ContextSpan, ResponseSpan
from ragviz.data.dataset import Dataset
from ragviz.data.model import Example, Labels
from ragviz.metrics.retrieval import DEFAULT_KS
from ragviz.metrics.trace import TRACE_METRICS
from ragviz.ui.core import queue_settings, render
from ragviz.ui.core.keys import EXPLAINER_K, REVIEW_INDEX
from ragviz.ui.core.keys import EXPLAINER_LINK as LINK
from ragviz.ui.core.label_link import keep_in_url, labels_from_url
from ragviz.ui.core.picker import picker_options
from ragviz.ui.core.render import esc
from ragviz.ui.explainer.html import (
    FormulaTerm,
    answer_html,
    delta_html,
    formula_html,
    formula_terms,
    retrieval_html,
    tonic_html,
    venn_html,
)

if TYPE_CHECKING:
    from streamlit.delta_generator import DeltaGenerator

    from ragviz.store.label_store import LabelStore

__all__ = [
    "Finder",
    "INDEX",
    "LINK",
    "NUMBER",
    "SEARCH",
    "answer_section",
    "context_documents",
    "example_picker",
    "follow_link",
    "human_title",
    "link_to",
    "question",
    "response_pair",
    "retrieval_columns",
    "retrieval_heading",
    "tonic_section",
    "trace_formulas",
    "unlabeled_notice",
    "venn_pair",
    "version_said",
]


# -- the other metric families (shaped by ragviz.analysis.explain) ---------------------------------------------------


# -- the page's renderers ------------------------------------------------------------------------------------------

INDEX, NUMBER, SEARCH = "explainer.index", "explainer.number", "explainer.search"
Finder = Callable[[str], tuple[list[int], int]]  # search text -> (first matching rows, number of matches)


def follow_link(ds: Dataset, uid: str | None) -> None:
    """Choose the example: a new deep link's *uid* wins; else keep the one chosen, if it is in *ds*;
    else start at the Review page's example, or the first."""
    if uid and ds.index_of(uid) is not None and uid != st.session_state.get(LINK):
        st.session_state[LINK] = uid
        st.session_state[INDEX] = ds.index_of(uid)
    if not (isinstance(st.session_state.get(INDEX), int) and 0 <= st.session_state[INDEX] < len(ds)):
        st.session_state.pop(INDEX, None)  # new or other data
    if INDEX not in st.session_state:
        review_index = st.session_state.get(REVIEW_INDEX)
        st.session_state[INDEX] = review_index if isinstance(review_index, int) and 0 <= review_index < len(ds) else 0


def _go_to_number() -> None:
    st.session_state[INDEX] = st.session_state[NUMBER] - 1


def example_picker(ds: Dataset, names: list[LabelSelection], find: Finder) -> tuple[int, LabelSelection]:
    """The example (by number, by uid search through *find*, or from the list) and the label set
    (one of *names*) the judge is compared with."""
    st.session_state[NUMBER] = st.session_state[INDEX] + 1  # follows the picker and deep links
    number_col, search_col, pick_col, who_col = st.columns([0.12, 0.24, 0.39, 0.25])
    number_col.number_input("Example #", min_value=1, max_value=len(ds), step=1, key=NUMBER, on_change=_go_to_number)
    query = search_col.text_input("Find by uid", key=SEARCH, placeholder="part of dataset/id/model")
    matches, n_matches = find(query) if query.strip() else (None, 0)
    with pick_col:
        index = st.selectbox(
            "Example",
            picker_options(st.session_state[INDEX], len(ds), matches),
            format_func=lambda i: f"{i + 1}. {ds.uids[i]}",  # plain text: no Markdown escapes
            key=INDEX,
        )
        if matches is not None:
            st.caption(
                f"{n_matches:,} match(es)" + (f", first {len(matches):,} listed" if n_matches > len(matches) else "")
            )
    labels_from_url(names, "explainer.other")
    other = who_col.selectbox(
        "Compare the judge with",
        names,
        format_func=str,
        key="explainer.other",
        help="human: the latest human decision per label field; gold: the team's agreed or adjudicated labels; "
        "judge:NAME: the labels judge version NAME stored; or one annotator. The page's link carries the choice "
        "(?labels=, as ragviz agreement --against names it).",
    )
    other = other or names[0]
    keep_in_url(other, names[0], "explainer.other")
    return (index if index is not None else st.session_state[INDEX]), other


def link_to(uid: str) -> None:
    """Put the shown example's *uid* in the page URL (a copied link opens it)."""
    if st.query_params.get("uid") != uid:
        st.query_params["uid"] = uid
    st.session_state[LINK] = uid  # our own URL update is not a new deep link


def version_said(example: Example, store: LabelStore | None, version: LabelSelection) -> tuple[Labels | None, str]:
    """Judge version *version*'s labels of *example* (the latest it stored) and its column's title."""
    labels = store.judge.of_prompt(version.prompt_version).get(example.uid) if store is not None else None
    said = f"Judge version {version.version} said"
    return labels, said if labels is not None else f"{said} (it did not label this example: judge's labels)"


def human_title(decider: str) -> str:
    """The human column's title: who decided, or that nobody did."""
    return f"Human said ({decider})" if decider else "Human said (nobody has reviewed this example: judge's labels)"


def question(example: Example, review_link: bool) -> None:
    """The question, and (unless presenting) a link to the example on the Review page."""
    st.html(render.text_block_html("Question", example.question))
    if review_link:
        st.page_link(
            "pages/review.py",
            label="Open this example on the Review page",
            query_params=queue_settings.review_query(example.uid),
            icon=":material/edit:",
        )


def unlabeled_notice() -> None:
    st.warning(
        "This example is unlabeled: there is nothing to explain yet. Label it with the judge or on the Review page."
    )


def _change_html(judge: FormulaTerm | None, human: FormulaTerm) -> str:
    change = delta_html(judge.value if judge else None, human.value)
    return f'<div style="font-size:0.85rem;margin:-6px 0 10px 0">change vs judge: {change}</div>' if change else ""


def trace_formulas(example: Example, judge: Labels | None, human: Labels | None, title: str) -> None:
    """The four TRACe formulas, the judge's on the left, the human's (titled *title*) on the right
    with the change against the judge."""
    left, right = st.columns(2, gap="large")
    left.subheader("Judge said")
    right.subheader(render.md_escape(title))
    judge_terms = {t.metric: t for t in formula_terms(example, judge)}
    human_terms = {t.metric: t for t in formula_terms(example, human)}
    for metric in TRACE_METRICS:
        j, h = judge_terms.get(metric), human_terms.get(metric)
        if j is not None:
            left.html(formula_html(j))
        if h is not None:
            right.html(formula_html(h) + _change_html(j, h))


def venn_pair(example: Example, judge: Labels | None, human: Labels | None, other: str = "human") -> None:
    """The two Venns, the right one titled *other* (``human``, or ``judge:v2`` beside a judge version; escaped)."""
    st.subheader("Relevant and utilized sentences")
    left, right = st.columns(2, gap="large")
    left.html(venn_html(example, judge, "judge"))
    right.html(venn_html(example, human, other))


def response_pair(judge: Sequence[ResponseSpan], human: Sequence[ResponseSpan]) -> None:
    st.subheader("Response sentences and their support")
    left, right = st.columns(2, gap="large")
    left.html(render.response_html(judge))
    right.html(render.response_html(human))


def _judge_and_human_columns(title: str) -> tuple[DeltaGenerator, DeltaGenerator]:
    """Two columns titled like the TRACe ones (the human *title* names a person: escaped)."""
    left, right = st.columns(2, gap="large")
    left.html('<div style="font-weight:600">Judge said</div>')
    right.html(f'<div style="font-weight:600">{esc(title)}</div>')
    return left, right


def tonic_section(judge: TonicExplanation | None, human: TonicExplanation | None, title: str) -> None:
    st.subheader("Tonic Validate")
    st.caption(
        "A chunk is one retrieved document: relevant / used when any of its sentences is, unless chunk labels are set "
        "in the data or by a person. overall = mean of the computed values, answer_similarity / 5."
    )
    left, right = _judge_and_human_columns(title)
    left.html(tonic_html(judge))
    right.html(tonic_html(human))


def retrieval_heading(present: bool) -> int:
    """The retrieval heading and its cut-off k (in presentation mode: the one chosen before)."""
    st.subheader("Retrieval")
    if present:
        k = st.session_state.get(EXPLAINER_K, DEFAULT_KS[0])
    else:
        k = st.columns([0.2, 0.8])[0].selectbox(
            "Cut-off k", DEFAULT_KS, key="explainer.k", help="MRR, Recall@k, Precision@k and nDCG@k at this k."
        )
    st.caption(
        "Each system's ranked ids (an id listed twice counts once, at its first rank); ✓ = in the gold list (grade ≥ 1)."
    )
    return k


def retrieval_columns(judge: Sequence[RetrievalExplanation], human: Sequence[RetrievalExplanation], title: str) -> None:
    """Each retrieval system's ranking and formulas, judge next to human."""
    left, right = _judge_and_human_columns(title)
    for column, explanations in ((left, judge), (right, human)):
        if not explanations:
            column.caption("No gold list for this example: retrieval is not scored.")
        for expl in explanations:
            column.html(retrieval_html(expl))


def answer_section(explanation: AnswerExplanation | None) -> None:
    st.subheader("Answer EM / F1")
    st.caption(
        "The response against the reference answer(s); these do not depend on any label, so judge and human agree."
    )
    st.html(answer_html(explanation))


def context_documents(documents: Sequence[Sequence[ContextSpan]]) -> None:
    """The context documents, their sentences coloured by the human's labels."""
    with st.expander("The context, with the human's labels", expanded=False):
        st.html(render.legend_html())
        for d, spans in enumerate(documents):
            st.html(render.document_html(d, spans))
