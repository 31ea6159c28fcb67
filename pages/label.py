"""Label page: run the LLM judge over loaded examples (model, base URL, key, which examples, estimate,
progress with cancel, results, failures with their raw output)."""

import pandas as pd
import streamlit as st

from ragviz.judge import PROMPT_VERSION, JudgeConfigError, estimate_run, judge_examples
from ragviz.judge.selection import ALL, FILTERED, FIRST_K, UNLABELED, select_indices
from ragviz.ui import label as ui
from ragviz.ui import state
from ragviz.ui.state import active_filter_rows, require_app_shell

require_app_shell()

SELECTION_LABELS = {
    ALL: "All examples",
    UNLABELED: "Unlabeled only",
    FILTERED: "Current Review filter",
    FIRST_K: "First K",
}
LAST_RUN = "label.last_run"
CANCEL = "label.cancel"
SELECTION_MEMO = "label.selection_memo"  # ((data, store, labels version, selection, K), filter rows, row indices)
ESTIMATE_MEMO = "label.estimate_memo"  # ((model, endpoint, prompt, labels versions, last run), row indices, estimate)

st.title("Label with an LLM judge")
page = state.require_data()
ds, store = page.dataset, page.store
ui.init_settings_state()
cache = ui.judge_cache()

with st.container(border=True):
    left, right = st.columns(2)
    left.text_input("Model", key=ui.MODEL_KEY, help="Any chat model of an OpenAI-compatible server")
    right.text_input(
        "Base URL",
        key=ui.BASE_URL_KEY,
        placeholder="https://api.openai.com/v1 (default)",
        help="Leave empty for the OpenAI API; e.g. http://localhost:8000/v1 for vLLM",
    )
    left.text_input(
        "API key",
        key=ui.API_KEY_KEY,
        type="password",
        help="Kept in this browser session only: never saved to the database, logs or exports",
    )
    right.number_input("Concurrent calls", min_value=1, max_value=64, step=1, key=ui.CONCURRENCY_KEY)
    settings = ui.settings_from_state()
    st.caption(f"{ui.key_source_note(settings)} Prompt version `{PROMPT_VERSION}`.")

selection = (
    st.segmented_control(
        "Which examples",
        list(SELECTION_LABELS),
        default=UNLABELED,
        key="label.selection",
        format_func=SELECTION_LABELS.get,
    )
    or UNLABELED
)
first_k = (
    st.number_input("K", min_value=1, max_value=max(1, len(ds)), value=min(10, len(ds)), key="label.k")
    if selection == FIRST_K
    else 0
)

filtered = active_filter_rows() if selection == FILTERED else None
if selection == FILTERED and filtered is None:
    st.caption("No filter is active on the Review page: every example is selected.")


def selected_rows() -> list[int]:
    """The selection's row indices, recomputed only when the data, the store's labels, the
    selection widgets or the Review filter's result change (walking every row is O(N))."""
    key = (state.current_paths(), str(store.path), store.data_version(), selection, int(first_k))
    memo = st.session_state.get(SELECTION_MEMO)
    if memo and memo[0] == key and memo[1] is filtered:
        return memo[2]
    rows = select_indices(ds, selection, judged_uids=store.judged_uids(), filtered=filtered, first_k=int(first_k))
    st.session_state[SELECTION_MEMO] = (key, filtered, rows)  # holding *filtered* keeps its identity unique
    return rows


def run_estimate(rows: list[int]):
    """The estimate for *rows*, recomputed only when the selection, the model/endpoint or the judge
    cache (a new run, new judge labels) change: it hashes every selected example."""
    last_run = next(iter(cache.runs(1)), None)
    key = (
        settings.model,
        settings.endpoint,
        PROMPT_VERSION,
        store.data_version(),
        state.label_version(),
        last_run and (last_run.id, last_run.status, last_run.finished_at),
    )
    memo = st.session_state.get(ESTIMATE_MEMO)
    if memo and memo[0] == key and memo[1] is rows:
        return memo[2]
    estimate = estimate_run(state.examples_at(rows), settings, cache)
    st.session_state[ESTIMATE_MEMO] = (key, rows, estimate)
    return estimate


indices = selected_rows()

if not settings.model:
    st.warning("Enter a model name.")
    st.stop()

estimate = run_estimate(indices)
ui.metric_row(
    [
        ("Examples", f"{estimate.n_examples:,}"),
        ("Already cached", f"{estimate.n_cached:,}"),
        ("Calls needed", f"{estimate.calls:,}"),
        ("Tokens (est.)", f"{estimate.prompt_tokens + estimate.completion_tokens:,}"),
        ("Cost (est.)", ui.format_cost(estimate.cost_usd)),
    ]
)
st.caption(
    f"Estimate: prompt tokens = characters / 4 ({estimate.prompt_tokens:,}); completion tokens guessed from the "
    f"number of response sentences ({estimate.completion_tokens:,}); cost from list prices when the model is known. "
    "Fix-up retries after an invalid answer add calls."
)

if st.session_state.get(CANCEL):
    st.warning("Run cancelled. Every answer accepted before the cancel is kept; run again to judge the rest.")

if st.button("Run the judge", type="primary", key="label.run", disabled=not indices, icon=":material/play_arrow:"):
    examples = state.examples_at(indices)
    try:
        settings.check()
        settings.resolved_api_key()
    except JudgeConfigError as exc:
        st.error(f"Judge settings: {exc}")
        st.stop()
    bar = st.progress(0.0, text=f"Judging {len(examples):,} examples…")
    # Clicking Cancel reruns the page, which stops this run at its next progress update.
    st.button("Cancel", key=CANCEL, icon=":material/stop:")

    def on_progress(p):
        bar.progress(
            p.done / max(p.total, 1),
            text=f"{p.done:,} / {p.total:,} — new {p.n_judged:,}, cached {p.n_cached:,}, failed {p.n_failed:,}",
        )

    summary = judge_examples(examples, settings, cache, store, on_progress=on_progress)
    st.session_state[LAST_RUN] = ([e.uid for e in examples], summary)
    state.bump_label_version()
    st.rerun()  # show the estimate, results and failures as they are now

last = st.session_state.get(LAST_RUN)
if last:
    uids, summary = last
    st.subheader("Last run")
    ui.metric_row(
        [
            ("Judged", f"{summary.n_judged:,}"),
            ("Cached", f"{summary.n_cached:,}"),
            ("Failed", f"{summary.n_failed:,}"),
            ("Requests", f"{summary.requests:,}"),
            ("Cost (est.)", ui.format_cost(summary.cost_usd)),
        ]
    )
    st.caption(
        f"{summary.prompt_tokens:,} prompt + {summary.completion_tokens:,} completion tokens (as reported by the server); "
        f"{summary.wall_seconds:.1f} s; response format used: {summary.format_mode}"
        + ("; cancelled before the end" if summary.cancelled else "")
    )
    run_examples = state.examples_at([i for i in (ds.index_of(u) for u in uids) if i is not None])
    st.dataframe(pd.DataFrame(ui.outcome_rows(run_examples, summary.outcomes)), hide_index=True, key="label.results")
    failures = cache.failures(summary.run_id)
    if failures:
        st.subheader(f"Failures ({len(failures)})")
        st.caption("Never applied: the examples keep their previous labels. The raw answer is kept for inspection.")
        ui.show_failures(failures)

with st.expander("Recent runs"):
    runs = cache.runs(20)
    if runs:
        st.dataframe(pd.DataFrame([r.__dict__ for r in runs]), hide_index=True, key="label.runs")
    else:
        st.caption("No judge runs yet.")
