"""Streamlit helpers for the LLM judge: settings held in session state, the judge cache, a
"re-judge this example" control for the Review page, and the Label page's pieces (the settings box,
the choice of examples, the selection and estimate remembered across reruns, the run's progress, the
results, failures and recent runs).

The API key is a password field whose value lives only in ``st.session_state`` (never written to the
store, logs or exports); when it is empty ``OPENAI_API_KEY`` is used.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd
import streamlit as st

import ragviz.judge  # estimate_run and select_indices are looked up on their modules at call time
import ragviz.judge.selection
from ragviz.data.dataset import Dataset
from ragviz.data.model import Example
from ragviz.judge import PROMPT_VERSION, JudgeCache, JudgeConfigError, JudgeSettings, judge_example
from ragviz.judge.cache import JudgeFailure, JudgeRun
from ragviz.judge.client import API_KEY_ENV
from ragviz.judge.estimate import RunEstimate
from ragviz.judge.run import JudgeOutcome, RunProgress, RunSummary
from ragviz.judge.selection import ALL, FILTERED, FIRST_K, UNLABELED
from ragviz.metrics.trace import trace_scores
from ragviz.store.label_store import LabelStore
from ragviz.ui import state

MODEL_KEY = "label.model"
BASE_URL_KEY = "label.base_url"
API_KEY_KEY = "label.api_key"
CONCURRENCY_KEY = "label.concurrency"
TIMEOUT_KEY = "label.timeout"
MODEL_ENV = "RAGVIZ_JUDGE_MODEL"
BASE_URL_ENV = "OPENAI_BASE_URL"
DEFAULT_MODEL = "gpt-4o-mini"

SELECTION_LABELS = {
    ALL: "All examples",
    UNLABELED: "Unlabeled only",
    FILTERED: "Current Review filter",
    FIRST_K: "First K",
}
CANCEL = "label.cancel"
SELECTION_MEMO = "label.selection_memo"  # ((data, store, labels version, selection, K), filter rows, row indices)
ESTIMATE_MEMO = "label.estimate_memo"  # ((model, endpoint, prompt, labels versions, last run), row indices, estimate)


@st.cache_resource(show_spinner=False)
def _judge_cache(location: str) -> JudgeCache:
    return JudgeCache(state.store().reopen_database())


def judge_cache() -> JudgeCache:
    """The judge tables in the label store's database (opened once per process, own connection)."""
    return _judge_cache(state.store().location)


def init_settings_state() -> None:
    """Defaults for the settings widgets (from env on first use of the session)."""
    st.session_state.setdefault(MODEL_KEY, os.environ.get(MODEL_ENV) or DEFAULT_MODEL)
    st.session_state.setdefault(BASE_URL_KEY, os.environ.get(BASE_URL_ENV) or "")
    st.session_state.setdefault(API_KEY_KEY, "")
    st.session_state.setdefault(CONCURRENCY_KEY, 8)
    st.session_state.setdefault(TIMEOUT_KEY, 120)


def settings_from_state() -> JudgeSettings:
    """Judge settings from the Label page's widgets (session state only)."""
    init_settings_state()
    return JudgeSettings(
        model=str(st.session_state[MODEL_KEY]).strip(),
        base_url=str(st.session_state[BASE_URL_KEY]).strip() or None,
        api_key=st.session_state[API_KEY_KEY] or None,
        concurrency=int(st.session_state[CONCURRENCY_KEY]),
        timeout=float(st.session_state[TIMEOUT_KEY]),
    )


def key_source_note(settings: JudgeSettings) -> str:
    if settings.api_key:
        return "Using the key entered here (kept in this browser session only)."
    if os.environ.get(API_KEY_ENV):
        return f"Using {API_KEY_ENV} from the server's environment."
    if settings.base_url:
        return "No key: fine for local servers that need none."
    return f"No key yet: enter one or set {API_KEY_ENV}."


def format_cost(cost_usd: float | None) -> str:
    return "unknown" if cost_usd is None else f"${cost_usd:,.4f}"


def metric_row(items: Sequence[tuple[str, str]]) -> None:
    """One row of ``st.metric`` cards, ``(label, value)`` each."""
    for column, (label, value) in zip(st.columns(len(items)), items):
        column.metric(label, value)


def outcome_rows(examples: Sequence[Example], outcomes: Sequence[JudgeOutcome | None]) -> list[dict[str, Any]]:
    """One table row per example: status and the TRACe scores of the judge's new labels."""
    rows: list[dict[str, Any]] = []
    for ex, o in zip(examples, outcomes):
        if o is None:
            rows.append({"example": ex.uid, "status": "not run", "error": ""})
            continue
        scores = trace_scores(o.labels, ex.n_context_sentences)
        rows.append(
            {
                "example": ex.uid,
                "status": o.status,
                "relevance": scores.relevance,
                "utilization": scores.utilization,
                "completeness": scores.completeness,
                "adherence": scores.adherence,
                "calls": o.calls,
                "error": o.error or "",
            }
        )
    return rows


def show_failures(failures: Sequence[Any], limit: int = 50) -> None:
    """Failures with their raw output, shown as plain text (``st.code`` never interprets HTML)."""
    for f in list(failures)[:limit]:
        with st.expander(f"{f.example_uid}: {f.error[:120]}", icon=":material/error:"):
            st.text(f.error)
            st.caption("Raw model output")
            st.code(
                f.raw_output if f.raw_output is not None else "(no answer: the request itself failed)",
                language=None,
                wrap_lines=True,
            )
    if len(failures) > limit:
        st.caption(f"… and {len(failures) - limit} more failures")


def rejudge_control(example: Example, key: str = "review.rejudge") -> JudgeOutcome | None:
    """A "Re-judge this example" button for the Review page: one fresh call with the Label page's
    settings; the new labels become the base for review. Returns the outcome when clicked."""
    if not st.button(
        "Re-judge this example",
        key=key,
        icon=":material/smart_toy:",
        help="Ask the judge again with the settings of the Label page",
    ):
        return None
    try:
        settings = settings_from_state()
        settings.check()
    except JudgeConfigError as exc:
        st.error(f"Judge settings: {exc}")
        return None
    with st.spinner(f"Asking {settings.model}…"):
        try:
            outcome = judge_example(example, settings, state.store(), cache=judge_cache())
        except JudgeConfigError as exc:
            st.error(f"Judge settings: {exc}")
            return None
    if outcome.ok:
        state.bump_label_version()
        st.success(f"New judge labels from {settings.model} are now the base for review.")
    else:
        st.error("The judge's answer was not usable; nothing was changed.")
        st.text(outcome.error or "")
        st.code(outcome.raw_output or "(no answer)", language=None, wrap_lines=True)
    return outcome


# -- the Label page ----------------------------------------------------------------------------------------


def settings_box() -> JudgeSettings:
    """The judge's settings (model, base URL, API key, concurrent calls) and where the key comes from."""
    with st.container(border=True):
        left, right = st.columns(2)
        left.text_input("Model", key=MODEL_KEY, help="Any chat model of an OpenAI-compatible server")
        right.text_input(
            "Base URL",
            key=BASE_URL_KEY,
            placeholder="https://api.openai.com/v1 (default)",
            help="Leave empty for the OpenAI API; e.g. http://localhost:8000/v1 for vLLM",
        )
        left.text_input(
            "API key",
            key=API_KEY_KEY,
            type="password",
            help="Kept in this browser session only: never saved to the database, logs or exports",
        )
        right.number_input("Concurrent calls", min_value=1, max_value=64, step=1, key=CONCURRENCY_KEY)
        settings = settings_from_state()
        st.caption(f"{key_source_note(settings)} Prompt version `{PROMPT_VERSION}`.")
    return settings


def selection_picker(n_examples: int) -> tuple[str, int]:
    """Which examples to judge (one of :data:`SELECTION_LABELS`) and K for "First K" (else 0)."""
    selection = (
        st.segmented_control(
            "Which examples",
            list(SELECTION_LABELS),
            default=UNLABELED,
            key="label.selection",
            format_func=lambda selection: SELECTION_LABELS[selection],
        )
        or UNLABELED
    )
    first_k = (
        st.number_input("K", min_value=1, max_value=max(1, n_examples), value=min(10, n_examples), key="label.k")
        if selection == FIRST_K
        else 0
    )
    return selection, int(first_k)


def selected_rows(
    ds: Dataset, store: LabelStore, selection: str, first_k: int, filtered: list[int] | None
) -> list[int]:
    """The selection's row indices, recomputed only when the data, the store's labels, the
    selection widgets or the Review filter's result (*filtered*) change (walking every row is O(N))."""
    key = (state.current_paths(), store.location, store.data_version(), selection, first_k)
    memo = st.session_state.get(SELECTION_MEMO)
    if memo and memo[0] == key and memo[1] is filtered:
        return memo[2]
    rows = ragviz.judge.selection.select_indices(
        ds, selection, judged_uids=store.judged_uids(), filtered=filtered, first_k=first_k
    )
    st.session_state[SELECTION_MEMO] = (key, filtered, rows)  # holding *filtered* keeps its identity unique
    return rows


def run_estimate(rows: list[int], settings: JudgeSettings, cache: JudgeCache, store: LabelStore) -> RunEstimate:
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
    estimate = ragviz.judge.estimate_run(state.examples_at(rows), settings, cache)
    st.session_state[ESTIMATE_MEMO] = (key, rows, estimate)
    return estimate


def estimate_summary(estimate: RunEstimate) -> None:
    """The run's size, calls, tokens and cost before it starts, and how they are estimated."""
    metric_row(
        [
            ("Examples", f"{estimate.n_examples:,}"),
            ("Already cached", f"{estimate.n_cached:,}"),
            ("Calls needed", f"{estimate.calls:,}"),
            ("Tokens (est.)", f"{estimate.prompt_tokens + estimate.completion_tokens:,}"),
            ("Cost (est.)", format_cost(estimate.cost_usd)),
        ]
    )
    st.caption(
        f"Estimate: prompt tokens = characters / 4 ({estimate.prompt_tokens:,}); completion tokens guessed from the "
        f"number of response sentences ({estimate.completion_tokens:,}); cost from list prices when the model is known. "
        "Fix-up retries after an invalid answer add calls."
    )


def cancelled_notice() -> None:
    """A warning on the run after the person clicked Cancel."""
    if st.session_state.get(CANCEL):
        st.warning("Run cancelled. Every answer accepted before the cancel is kept; run again to judge the rest.")


def run_button(disabled: bool) -> bool:
    return st.button("Run the judge", type="primary", key="label.run", disabled=disabled, icon=":material/play_arrow:")


def run_progress(n_examples: int) -> Callable[[RunProgress], None]:
    """A progress bar and a Cancel button for a run of *n_examples*; returns the callback that moves
    the bar. Clicking Cancel reruns the page, which stops the run at its next progress update."""
    bar = st.progress(0.0, text=f"Judging {n_examples:,} examples…")
    st.button("Cancel", key=CANCEL, icon=":material/stop:")

    def on_progress(p: RunProgress) -> None:
        bar.progress(
            p.done / max(p.total, 1),
            text=f"{p.done:,} / {p.total:,} — new {p.n_judged:,}, cached {p.n_cached:,}, failed {p.n_failed:,}",
        )

    return on_progress


def last_run(summary: RunSummary, examples: Sequence[Example], failures: Sequence[JudgeFailure]) -> None:
    """The session's last run: its figures, one row per example it judged, its failures."""
    st.subheader("Last run")
    metric_row(
        [
            ("Judged", f"{summary.n_judged:,}"),
            ("Cached", f"{summary.n_cached:,}"),
            ("Failed", f"{summary.n_failed:,}"),
            ("Requests", f"{summary.requests:,}"),
            ("Cost (est.)", format_cost(summary.cost_usd)),
        ]
    )
    st.caption(
        f"{summary.prompt_tokens:,} prompt + {summary.completion_tokens:,} completion tokens (as reported by the server); "
        f"{summary.wall_seconds:.1f} s; response format used: {summary.format_mode}"
        + ("; cancelled before the end" if summary.cancelled else "")
    )
    st.dataframe(pd.DataFrame(outcome_rows(examples, summary.outcomes)), hide_index=True, key="label.results")
    if failures:
        st.subheader(f"Failures ({len(failures)})")
        st.caption("Never applied: the examples keep their previous labels. The raw answer is kept for inspection.")
        show_failures(failures)


def recent_runs(runs: Sequence[JudgeRun]) -> None:
    with st.expander("Recent runs"):
        if runs:
            st.dataframe(pd.DataFrame([r.__dict__ for r in runs]), hide_index=True, key="label.runs")
        else:
            st.caption("No judge runs yet.")
