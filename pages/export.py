"""Export page: a person downloads the corrected label set (RAGBench schema, JSONL / Parquet) and the
per-example metrics (CSV), looks over those metrics, and finds the command line that does the same; an
admin may download the team's labels instead (every annotator's latest decision, a reviewer per row) or its gold
labels (as ``ragviz export --labels gold``)."""

import streamlit as st

from ragviz.analysis.labelsets.selection import GOLD, LabelSelection, store_annotator
from ragviz.analysis.review.queue import store_progress
from ragviz.data.errors import BadInput
from ragviz.export.targets import export
from ragviz.export.traces.targets import push_labels
from ragviz.judge.versions.registry import version_label_sets
from ragviz.store.label_store import default_db
from ragviz.store.roles import ADMIN
from ragviz.ui import phoenix as phoenix_ui
from ragviz.ui.core import access, results, state
from ragviz.ui.export import page as ui
from ragviz.ui.export import table as export_table

state.require_app_shell()

st.title("Export")

page = state.require_data()
granted = access.access()
ds, store, who = page.dataset, page.store, page.annotator
if page.present:  # presentation mode (always for viewers): no one's progress, nothing to take away
    ui.what_an_export_holds()
    if granted.can_export:
        st.caption("Presentation mode: downloads are hidden (turn it off in the sidebar).")
    else:
        ui.no_downloads(granted.why)
    st.stop()
ui.progress_metrics(len(ds), store_progress(store, who, state.uid_set()))
ui.what_an_export_holds()
whose = LabelSelection.of(who)
if granted.can_export:
    if granted.role == ADMIN:  # one file with every annotator's decisions
        team = bool(store.annotators()) or store.team.assignments.latest_round() is not None
        whose = ui.whose_labels(who, version_label_sets(store), gold=team)
    fmt = ui.format_choice()
    # gold follows the round (decisions, assignments, settlements); the others one person's labels
    labels = store.team.round_version() if whose == GOLD else store.annotator_version(store_annotator(whose))
    built_from = (state.current_paths(), store.location, whose, fmt, labels)
    ui.download(
        ui.file_owner(whose),
        fmt,
        built_from,
        len(ds),
        lambda out, bar: export(store, whose, ds, ui.download_target(out, fmt), progress=bar),
        labels=ui.labels_words(whose, who),
    )
else:
    ui.no_downloads(granted.why)

if (
    granted.role == ADMIN
    and (request := phoenix_ui.push_form(st.session_state.get(phoenix_ui.PHOENIX_URL_KEY))) is not None
):
    bar = st.progress(0.0, text="Pushing…")
    try:
        report = push_labels(ds, store, whose, request, lambda done, total: bar.progress(done / max(total, 1)))
    except BadInput as refused:
        st.error(str(refused))  # md: ours (one line)
    else:
        what = (
            "scores" if request.target == "langfuse" else f"span and {report.document_annotations} document annotations"
        )
        phoenix_ui.push_result(report.pushed, report.span_annotations, what, report.unchanged, report.refused)

st.subheader("Per-example metrics (current labels)")
if export_table.show_table_toggle(len(ds)):
    export_table.metrics_table(results.metrics_table(LabelSelection.of(who)))

if granted.can_see_store:  # the command names the store and the data files on the server
    st.subheader("From the command line")
    ui.command_line(default_db(), whose, state.current_paths(), store.annotators())
