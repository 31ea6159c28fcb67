"""Label page: a person sets up the LLM judge (model, base URL, key, concurrent calls), chooses which loaded
examples it judges, reads the estimate, runs it with progress and cancel, and looks over the results and
the failures with their raw output; or sends them as a Batch API job (half the price) and collects it later."""

import streamlit as st

from ragviz.judge import JudgeConfigError
from ragviz.judge.sampling.run import check_samples, judge_with_samples
from ragviz.judge.selection import FILTERED
from ragviz.ui.core import access, render, state
from ragviz.ui.core.filters import active_filter_rows
from ragviz.ui.core.keys import LABEL_HOW
from ragviz.ui.core.present import is_present
from ragviz.ui.core.team_judge import team_judge
from ragviz.ui.label import batch, results
from ragviz.ui.label import options as judge_options
from ragviz.ui.label import page as ui

state.require_app_shell()

# (uids, kept RunSummary, called the configured judge, examples with a confidence, notes, the figures with the
# samples) of this session's last run
LAST_RUN = "label.last_run"

st.title("Label with an LLM judge")
if not (granted := access.access()).can_judge:
    st.info(granted.why, icon=":material/lock:")  # md: ours
    st.stop()
if is_present():  # a lock: no judge settings, no key field, no run while presenting
    st.info("Presentation mode: the judge is not set up or run here (turn presentation mode off in the sidebar).")
    st.stop()
page = state.require_data()
ds, store = page.dataset, page.store
ui.init_settings_state()
cache = ui.judge_cache()
settings = ui.settings_box()

selection, first_k = ui.selection_picker(len(ds))
filtered = active_filter_rows() if selection == FILTERED else None
if selection == FILTERED and filtered is None:
    st.caption("No filter is active on the Review page: every example is selected.")
indices = ui.selected_rows(ds, store, selection, first_k, filtered)

if not settings.model:
    st.warning("Enter a model name.")
    st.stop()

how = st.segmented_control("How", ["Live", "Batch"], default="Live", key=LABEL_HOW)
if how == "Batch":  # the Batch API: half the price, within 24 h, resumable from the ids in the store
    paths = state.current_paths()
    if batch.batch_panel(ds, indices, ui.checked_settings, settings, cache, store, paths):
        state.bump_redraw_count()
else:
    ui.estimate_summary(ui.run_estimate(indices, settings, cache, store))
    chosen = (
        judge_options.samples_from_state(),
        judge_options.sample_mode_from_state(),
        judge_options.confidence_from_state(),
    )
    if note := judge_options.samples_note(*chosen):
        st.caption(note)  # md: ours
    ui.cancelled_notice()

if how != "Batch" and ui.run_button(len(indices)):
    examples = state.examples_at(indices)
    samples = judge_options.samples_from_state()
    sample_mode, confidence = judge_options.sample_mode_from_state(), judge_options.confidence_from_state()
    try:
        settings = ui.checked_settings()
        check_samples(samples, settings, sample_mode, confidence)
        sampled = judge_with_samples(
            examples,
            settings,
            cache,
            store,
            samples=samples,
            sample_mode=sample_mode,
            confidence=confidence,
            on_progress=ui.run_progress(len(examples)),
            prompt=team_judge()[1],
        )
    except JudgeConfigError as exc:
        st.error(f"Judge settings: {render.md_escape(exc)}")
        st.stop()
    st.session_state[LAST_RUN] = (
        [e.uid for e in examples],
        sampled.kept,
        ui.own_endpoint(),
        len(sampled.confidence),
        sampled.notes,
        judge_options.sampled_totals(
            sampled.requests,
            sampled.prompt_tokens,
            sampled.completion_tokens,
            render.md_escape(results.format_cost(sampled.cost_usd)),
        )
        if sampled.samples
        else None,
    )
    state.bump_redraw_count()
    st.rerun()  # show the estimate, results and failures as they are now

last = st.session_state.get(LAST_RUN)
if last:
    uids, summary, own, n_confident, notes, totals = last
    run_examples = state.examples_at([i for i in (ds.index_of(u) for u in uids) if i is not None])
    results.last_run(summary, run_examples, cache.failures(summary.run_id), full=own)
    if totals:
        st.caption(totals)  # md: ours (numbers)
    for note in notes:  # the server's error text may be in it
        st.info(render.md_escape(note))
    if n_confident:
        st.caption(
            f"The judge's confidence is stored for {n_confident:,} examples: Review marks its "
            "unsure labels and filters 'judge unsure'; the audit's active and Neyman draws can use it."
        )

results.recent_runs(cache.runs(20))
