"""Explainer: a person picks an example and sees what each number means on it — every TRACe formula
filled with the sentences it counts, the judge's labels next to a human's, and the other metric
families (Tonic, retrieval, answer EM / F1) explained the same way."""

import streamlit as st

from ragviz.analysis.dashboard.families import ANSWER, RETRIEVAL, TONIC, families_present
from ragviz.analysis.explain import answer_explanation, retrieval_explanations, tonic_explanation
from ragviz.analysis.labelsets.named import GOLD, HUMAN, JUDGE, human_labels, judge_labels, label_sets
from ragviz.analysis.review.edits import document_spans, response_spans
from ragviz.analysis.team.gold import example_round
from ragviz.judge.versions.registry import version_label_sets
from ragviz.ui.audit import estimates as audit_estimates
from ragviz.ui.audit import systems as compare_systems
from ragviz.ui.core import access, report, results, state
from ragviz.ui.explainer import page as ui
from ragviz.ui.team import queue as team_queue

state.require_app_shell()

page = state.require_data()
ds, store, present = page.dataset, page.store, page.present
ui.follow_link(ds, st.query_params.get("uid"))

st.title("What the numbers mean")
report.download_report_button(HUMAN, key="explainer.report", present=present)
audit_estimates.plain_words_section(store)
compare_systems.compare_plain_words(store)
names = access.names_shown()  # viewers and presenters: the latest human labels, no one's name
offered = [*(n for n in label_sets(store) if n != JUDGE), *version_label_sets(store)] if names else [HUMAN]
index, other = ui.example_picker(ds, team_queue.blind_label_sets(offered, store, page.annotator), results.uid_matches)
ex = ds.example(index)
ui.link_to(ex.uid)

judge = judge_labels(ex, store)
if other.kind == "version":  # judge:NAME: what that version said beside the judge's latest labels
    human, title = ui.version_said(ex, store, other)
else:
    if other == GOLD:  # the team's agreed or adjudicated labels, by whoever agreed or settled them
        gold = example_round(ex, store).gold if store is not None else None
        human, decider = (gold.labels, gold.by) if gold is not None else (None, "")
    else:
        human, decider = human_labels(ex, store, other)
    title = ui.human_title(decider if names else "a person" if decider else "")
if human is None:
    human = judge

ui.question(ex, review_link=not present)
if judge is None and human is None:
    ui.unlabeled_notice()
    st.stop()

ui.trace_formulas(ex, judge, human, title)
ui.venn_pair(ex, judge, human, other.name if other.kind == "version" else "human")
ui.response_pair(response_spans(ex, judge), response_spans(ex, human))

families = families_present({index: ex})
if TONIC in families:
    ui.tonic_section(tonic_explanation(ex, judge), tonic_explanation(ex, human), title)
if RETRIEVAL in families:
    k = ui.retrieval_heading(present)
    ui.retrieval_columns(retrieval_explanations(ex, judge, k), retrieval_explanations(ex, human, k), title)
if ANSWER in families:
    ui.answer_section(answer_explanation(ex))

ui.context_documents(document_spans(ex, human))
